#!/usr/bin/env bash
# run-bench.sh - run every benchmark that `make bench-build` built
# (build/native/bench/bench_*), one after another, printing their output
# under a header line each.  Exit status 1 if any benchmark failed.
set -u
cd "$(dirname "$0")/.."

status=0
found=0
for b in build/native/bench/bench_*; do
	[ -x "$b" ] || continue
	case "$b" in *.d|*.o) continue ;; esac
	found=1
	echo "== $(basename "$b")"
	if ! "$b"; then
		echo "!! $(basename "$b") failed"
		status=1
	fi
	echo
done
if [ "$found" -eq 0 ]; then
	echo "run-bench: no benchmarks in build/native/bench (run make bench-build)" >&2
	exit 1
fi
exit $status
