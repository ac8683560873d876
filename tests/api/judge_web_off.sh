#!/usr/bin/env bash
# judge_web_off.sh DAEMON - the leak judgement is a daemon service, not a
# part of the web server: with [web] listen = off a leaking helper's
# verdict (memwatch_leak_verdict 1) and its kind (memwatch_leak_kind) are
# stored as series, read back from the file with `check --db --json`.
# Warm-up and minimum duration are shortened to seconds.  Helper and daemon
# are ours, stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

hog=$root/build/native/helpers/memhog
if [ ! -x "$hog" ] || ! command -v python3 >/dev/null; then
	skip "memhog helper (or python3) missing"
	finish
	exit 0
fi
cp "$hog" "$tmpdir/leaky_off"
db=$tmpdir/off.db

mw_start off --listen off --db "$db" --interval 100ms --set storage.flush_interval=200ms \
	--set leak.refresh=1s --set leak.cpu_budget=0 --set leak.window=1h \
	--set leak.warmup=2s --set leak.min_duration=10s --watch leaky_off
off_pid=$mw_pid
# 256 KiB every 100 ms for a minute at most
"$tmpdir/leaky_off" 256 100 0 60 >"$tmpdir/leaky.out" 2>&1 &
pids+=("$!")

# stored_verdict: the stored memwatch_leak_verdict of leaky_off, read back
# from the file with `export` (offline, beside the running daemon): a point
# of 1 is a stored fail.  Not judged: a judgement of the verdict series
# needs its coverage, which a loaded machine's sparse refreshes lack.
stored_verdict() {
	local i
	for i in $(seq 1 120); do
		if "$daemon" export --db "$db" --match 'memwatch_leak_verdict{process="leaky_off"}' \
			--from 0 --format json >"$tmpdir/v.json" 2>/dev/null &&
			python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
sys.exit(0 if any(p[1] == 1 for s in d["series"] for p in s["points"]) else 1)' "$tmpdir/v.json"; then
			return 0
		fi
		sleep 0.5
	done
	cat "$tmpdir/v.json" 2>/dev/null
	return 1
}
check "web off: the leak verdict (fail) is stored as memwatch_leak_verdict" stored_verdict
check "... and its kind as memwatch_leak_kind" bash -c \
	"'$daemon' check --db '$db' --match 'memwatch_leak_kind{process=\"leaky_off\"}' --json | grep -q '\"process\":\"leaky_off\"'"
check "daemon stops with status 0" mw_stop "$off_pid"
check "the log says the web server is off" grep -q "web server off" "$tmpdir/off.log"
finish
