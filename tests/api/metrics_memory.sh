#!/usr/bin/env bash
# metrics_memory.sh DAEMON - /metrics scrapes leave no memory behind
# (issue 26, "Memory at rest": the first scrapes added 18-21 MiB that
# stayed).  The daemon samples every second, with 200 sleeping processes
# of ours besides the machine's (thousands of series, a /metrics answer of
# hundreds of KB) and a 512 KB writer cache (full within the first
# seconds, so the writer does not grow under the check).  Twenty scrapes,
# each a rebuild of the stored part (1.2 s apart: the answer is kept for a
# second); RSS after them may exceed RSS before the first by at most 8 MB.
# Before base/heap_tune_linux.c (an arena per thread, glibc's sliding mmap
# threshold, no trim) the first scrape alone added about 11 MB here.  Linux only (/proc); every
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
# Our sleepers are sampled and stored (asked through the series list: no
# /metrics answer before the first measurement).
has_sleepers() {
	curl -s "$base/api/v1/series?match=memwatch_process_working_set_bytes" |
		python3 -c 'import json,sys
s = json.load(sys.stdin)["series"]
sys.exit(0 if sum(x["labels"].get("process") == "sleep" for x in s) >= 200 else 1)'
}
check "the 200 sleeping processes are stored" wait_until 30 has_sleepers
r0=$(rss_kb)
for i in $(seq 20); do
	sleep 1.2
	curl -s -o "$tmpdir/metrics.txt" "$base/metrics"
done
r1=$(rss_kb)
bytes=$(wc -c <"$tmpdir/metrics.txt")
echo "# /metrics $bytes bytes; RSS before the first scrape $r0 kB, after 20 scrapes $r1 kB"
check "20 scrapes added at most 8 MB (+$(((r1 - r0) / 1024)) MB)" "[ $((r1 - r0)) -le 8192 ]"
finish
