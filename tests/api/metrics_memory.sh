#!/usr/bin/env bash
# metrics_memory.sh DAEMON - /metrics scrapes leave no memory behind
# (issue 26, "Memory at rest": the first scrapes added 18-21 MiB that
# stayed).  The daemon samples every second, with 200 sleeping processes
# of ours besides the machine's (thousands of series, a /metrics answer of
# hundreds of KB) and a 512 KB writer cache (full within the first
# seconds, so the writer does not grow under the check).  After its first
# scrape, twenty more, each a rebuild of the stored part (1.2 s apart: the
# answer is kept for a second); RSS after them may exceed RSS after the
# first by at most 6 MB.  Before base/heap_tune_linux.c (glibc arena per
# thread, sliding mmap threshold, no trim) it grew by more (see the
# report of the commit that added this test).  Linux only (/proc); every
# process started here is stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"
need curl

for i in $(seq 200); do
	sleep 600 &
	track "$!"
done
mw_serve_data m --interval 1s --set storage.cache_size=512KB
if [ ! -r "/proc/$main_pid/status" ]; then
	skip "RSS is read from /proc (Linux)"
	finish
	exit 0
fi
rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$main_pid/status"; }
# Our sleepers are sampled and stored: /metrics has their series.
has_sleepers() {
	curl -s "$base/metrics" >"$tmpdir/metrics.txt" &&
		[ "$(grep -c '^memwatch_process_working_set_bytes{.*process="sleep"' "$tmpdir/metrics.txt")" -ge 200 ]
}
check "/metrics has the 200 sleeping processes" wait_until 30 has_sleepers
bytes=$(wc -c <"$tmpdir/metrics.txt")
r0=$(rss_kb)
for i in $(seq 20); do
	sleep 1.2
	curl -s -o /dev/null "$base/metrics"
done
r1=$(rss_kb)
echo "# /metrics $bytes bytes; RSS after the first scrape $r0 kB, after 20 more $r1 kB"
check "20 scrapes added at most 6 MB (+$(((r1 - r0) / 1024)) MB)" "[ $((r1 - r0)) -le 6144 ]"
finish
