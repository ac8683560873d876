#!/usr/bin/env bash
# churn_soak.sh - "weeks unattended": a store fed like the process
# collector on a build agent (200 long-lived processes and 40 new
# short-lived ones every 5 s tick, 4 series each; about 230,000 series
# over 1,450 ticks of synthetic time), flushed every tick, read by
# /metrics' mw_reader_latest.  Checks memory bounds only: RSS flat (within
# 8 MB) while series come and go, the writer holding the live series only,
# /metrics serving the live ones only, start-up loading the live ones
# only; timings are printed as comments (bench/bench_churn.c, which
# `make bench` runs with more churn).  About 30 s.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
bin=build/native/bench/bench_churn

# The driver links the daemon's objects, which `make test` has built.
if ! make --no-print-directory -s "$bin" >"$tmpdir/build" 2>&1; then
	nok "build $bin"
	sed 's/^/# /' "$tmpdir/build"
	finish
	exit 1
fi
(cd "$tmpdir" && "$root/$bin" --soak)
exit $?
