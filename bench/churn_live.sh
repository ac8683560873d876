#!/usr/bin/env bash
# churn_live.sh - the daemon on a busy build agent (issue 26): memwatchd
# run --interval 200ms for SECONDS without process churn (the baseline),
# then as long again on a fresh database while RATE short-lived processes
# a second (copies of sleep named mwchurn, each living LIFE seconds) come
# and go.  For each phase: memwatchd's RSS at the end and its peak, its CPU
# (user + system) as a share of one core, /metrics answer time (median of
# five), points stored and points dropped; then the churn phase against
# the baseline as ratios, and against the targets (RSS <= 64 MB, CPU <=
# 10 % of a core, /metrics <= 100 ms, nothing dropped).
#
#   bench/churn_live.sh [--seconds S] [--baseline B] [--every E] [--rate R] [--life L]
#
# --baseline: the quiet phase's length (default S); --every: also print
# RSS, peak and CPU every E seconds of each phase (to stderr), to show
# whether the RSS stays flat over a long run.
#
# Linux only.  Stops only what it started, by PID.  The machine should be
# otherwise quiet: CPU figures are the daemon's own, but a loaded machine
# still slows it.
set -u
cd "$(dirname "$0")/.."
SECONDS_EACH=300 RATE=20 LIFE=6 BASELINE= EVERY=0
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) SECONDS_EACH=$2; shift ;;
	--baseline) BASELINE=$2; shift ;;
	--every) EVERY=$2; shift ;;
	--rate) RATE=$2; shift ;;
	--life) LIFE=$2; shift ;;
	*) echo "usage: $0 [--seconds S] [--baseline B] [--every E] [--rate R] [--life L]" >&2; exit 2 ;;
	esac
	shift
done
. bench/live_common.sh
live_setup churn_live
cp "$(command -v sleep)" "$tmp/mwchurn"
clk=$(getconf CLK_TCK)

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
metric() { curl -s "$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }
metrics_ms() {
	local i
	for i in 1 2 3 4 5; do
		curl -s -o /dev/null -w '%{time_total}\n' "$1/metrics"
	done | sort -n | sed -n 3p | awk '{ printf "%.1f", $1 * 1000 }'
}

# churn for S seconds: RATE copies of mwchurn LIFE a second
churn() {
	local end=$((SECONDS + $1)) i
	while [ $SECONDS -lt $end ]; do
		for ((i = 0; i < RATE; i++)); do "$tmp/mwchurn" "$LIFE" & done
		sleep 1
	done
	wait
}

# phase NAME CHURN(0|1) SECONDS: prints "rss hwm cpu% metrics_ms points dropped"
phase() {
	local base pid c0 c1 t0 t1 cp="" left=$3 step cs ts
	live_start "$1" "$bin" 200ms
	if [ "$2" = 1 ]; then
		churn "$3" &
		cp=$!
		pids+=("$cp")
	fi
	c0=$(cpu_ticks "$pid") t0=$(date +%s.%N)
	while [ "$left" -gt 0 ]; do
		step=$left
		[ "$EVERY" -gt 0 ] && [ "$EVERY" -lt "$left" ] && step=$EVERY
		cs=$(cpu_ticks "$pid") ts=$(date +%s.%N)
		sleep "$step"
		left=$((left - step))
		[ "$EVERY" -gt 0 ] && awk -v n="$1" -v e=$(($3 - left)) -v r="$(rss_kb "$pid")" \
			-v h="$(hwm_kb "$pid")" -v a="$cs" -v b="$(cpu_ticks "$pid")" -v t0="$ts" \
			-v t1="$(date +%s.%N)" -v k="$clk" 'BEGIN { printf "  %s at %5d s: RSS %.1f MB (peak %.1f), CPU %.1f %% over the last step\n",
				n, e, r / 1024, h / 1024, 100 * (b - a) / k / (t1 - t0) }' >&2
	done
	c1=$(cpu_ticks "$pid") t1=$(date +%s.%N)
	[ -n "$cp" ] && wait "$cp"
	echo "$(rss_kb "$pid") $(hwm_kb "$pid")" \
		"$(awk -v a="$c0" -v b="$c1" -v t0="$t0" -v t1="$t1" -v k="$clk" \
			'BEGIN { printf "%.1f", 100 * (b - a) / k / (t1 - t0) }')" \
		"$(metrics_ms "$base")" \
		"$(metric "$base" memwatch_storage_points_total)" \
		"$(metric "$base" memwatch_storage_dropped_points_total)" \
		"$(metric "$base" memwatch_storage_live_series)"
	kill "$pid"
	wait "$pid"
}

BASELINE=${BASELINE:-$SECONDS_EACH}
echo "churn_live: baseline ${BASELINE} s, churn ${SECONDS_EACH} s, at 200 ms; churn $RATE processes/s living $LIFE s"
read -r a_rss a_hwm a_cpu a_ms a_pts a_drop a_live < <(phase base 0 "$BASELINE")
read -r b_rss b_hwm b_cpu b_ms b_pts b_drop b_live < <(phase churn 1 "$SECONDS_EACH")
row() {
	printf '%-9s RSS %6.1f MB (peak %6.1f)  CPU %5.1f %%  /metrics %7.1f ms  live series %6s  points %9s  dropped %s\n' \
		"$1" "$(awk -v k="$2" 'BEGIN { print k / 1024 }')" "$(awk -v k="$3" 'BEGIN { print k / 1024 }')" \
		"$4" "$5" "$6" "$7" "$8"
}
row baseline "$a_rss" "$a_hwm" "$a_cpu" "$a_ms" "$a_live" "$a_pts" "$a_drop"
row churn "$b_rss" "$b_hwm" "$b_cpu" "$b_ms" "$b_live" "$b_pts" "$b_drop"
awk -v r1="$a_rss" -v r2="$b_rss" -v c1="$a_cpu" -v c2="$b_cpu" -v m1="$a_ms" -v m2="$b_ms" \
	'BEGIN { printf "ratios churn/baseline: RSS %.2fx  CPU %.2fx  /metrics %.2fx\n",
		 r2 / r1, (c1 > 0 ? c2 / c1 : 0), (m1 > 0 ? m2 / m1 : 0) }'
awk -v r="$b_rss" -v c="$b_cpu" -v m="$b_ms" -v d="$b_drop" \
	'BEGIN { printf "targets: RSS %.1f MB <= 64 %s, CPU %.1f %% <= 10 %s, /metrics %.1f ms <= 100 %s, dropped %d == 0 %s\n",
		 r / 1024, (r / 1024 <= 64 ? "met" : "NOT met"), c, (c <= 10 ? "met" : "NOT met"),
		 m, (m <= 100 ? "met" : "NOT met"), d, (d == 0 ? "met" : "NOT met") }'
