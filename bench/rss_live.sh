#!/usr/bin/env bash
# rss_live.sh - memwatchd's memory at rest (issue 26, "Memory" and "Memory
# at rest"): memwatchd run --interval 1s while N idle processes with their
# own names (bench/peers/peerload.c) are running.  For each binary: RSS
# once the daemon answers and has sampled for 10 s (start), after SECONDS
# (rest), after SCRAPES /metrics scrapes (scraped), the peak (VmHWM), the
# anonymous and file-backed parts of the final RSS (/proc/PID/smaps_rollup)
# and the thread count.  With --base BIN the same is measured for BIN (an
# older build) first, on its own fresh database, and the ratios new/base
# are printed.
#
#   bench/rss_live.sh [--procs N] [--seconds S] [--scrapes K] [--base BIN]
#
# Linux only.  Stops only what it started, by PID.
set -u
cd "$(dirname "$0")/.."
procs=1000 seconds=600 scrapes=20 base_bin=""
# Every option takes a value: --NAME VALUE sets the variable of that name.
while [ $# -ge 2 ] && [[ $1 =~ ^--(procs|seconds|scrapes|base)$ ]]; do
	name=${BASH_REMATCH[1]}
	[ "$name" = base ] && name=base_bin
	printf -v "$name" '%s' "$2"
	shift 2
done
[ $# -eq 0 ] || { echo "usage: $0 [--procs N] [--seconds S] [--scrapes K] [--base BIN]" >&2; exit 2; }
PROCS=$procs SECS=$seconds SCRAPES=$scrapes BASE=$base_bin
. bench/live_common.sh
live_setup rss_live

cc -std=c11 -D_GNU_SOURCE -O2 -o "$tmp/peerload" bench/peers/peerload.c ||
	{ echo "rss_live: cannot build peerload.c" >&2; exit 2; }
"$tmp/peerload" work "$PROCS" 0 "$tmp/work.ready" &
pids+=("$!")
for _ in $(seq 600); do [ -f "$tmp/work.ready" ] && break; sleep 0.1; done
[ -f "$tmp/work.ready" ] || { echo "rss_live: peerload did not start" >&2; exit 1; }

status_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
rollup_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/smaps_rollup"; }

# measure NAME BIN: writes "start rest scraped hwm anon file threads" (KiB)
# to $tmp/NAME.out
measure() {
	local base pid start rest scraped i
	live_start "$1" "$2" 1s
	sleep 10
	start=$(status_kb "$pid" VmRSS)
	sleep "$SECS"
	rest=$(status_kb "$pid" VmRSS)
	for ((i = 0; i < SCRAPES; i++)); do
		curl -s -o /dev/null "$base/metrics"
		sleep 1
	done
	scraped=$(status_kb "$pid" VmRSS)
	echo "$start $rest $scraped $(status_kb "$pid" VmHWM)" \
		"$(rollup_kb "$pid" Anonymous) $(($(rollup_kb "$pid" Rss) - $(rollup_kb "$pid" Anonymous)))" \
		"$(status_kb "$pid" Threads)" >"$tmp/$1.out"
	kill "$pid"
	wait "$pid"
}

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
row() {
	printf '%-5s RSS start %6s MiB  after %ss %6s  after %s scrapes %6s  peak %6s  (anon %6s, file %5s)  threads %s\n' \
		"$1" "$(mb "$2")" "$SECS" "$(mb "$3")" "$SCRAPES" "$(mb "$4")" "$(mb "$5")" "$(mb "$6")" "$(mb "$7")" "$8"
}

echo "rss_live: $PROCS idle processes ($(ls /proc | grep -c '^[0-9]') on the machine)," \
	"--interval 1s, ${SECS} s at rest, then $SCRAPES /metrics scrapes"
bp=""
[ -n "$BASE" ] && { measure base "$BASE" & bp=$!; }
measure new "$bin"
[ -n "$bp" ] && wait "$bp"
if [ -n "$BASE" ]; then
	read -r a1 a2 a3 a4 a5 a6 a7 < <(tr '\n' ' ' <"$tmp/base.out"; echo)
	row base "$a1" "$a2" "$a3" "$a4" "$a5" "$a6" "$a7"
fi
read -r b1 b2 b3 b4 b5 b6 b7 < <(tr '\n' ' ' <"$tmp/new.out"; echo)
row new "$b1" "$b2" "$b3" "$b4" "$b5" "$b6" "$b7"
if [ -n "$BASE" ]; then
	awk -v a1="$a1" -v a2="$a2" -v a3="$a3" -v a4="$a4" -v b1="$b1" -v b2="$b2" -v b3="$b3" -v b4="$b4" \
		'BEGIN { printf "ratios new/base: start %.2fx  rest %.2fx  scraped %.2fx  peak %.2fx\n",
			 b1 / a1, b2 / a2, b3 / a3, b4 / a4 }'
fi
awk -v r="$b2" -v s="$b3" 'BEGIN { printf "scrapes added %.1f MiB to the resting RSS\n", (s - r) / 1024 }'
