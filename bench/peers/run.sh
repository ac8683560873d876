#!/usr/bin/env bash
# bench/peers/run.sh - memwatch side by side with the tools users would pick
# instead (issue 14): Netdata (apps.plugin + dbengine), collectd (processes
# + csv) and prometheus-process-exporter + Prometheus, all from Debian's
# packages, each sampling every process's memory every second on the same
# machine at the same time, on the same fixed workload.
#
#   bench/peers/run.sh [--duration S] [--procs N] [--churn[=RATE]]
#                      [--tools memwatch,netdata,collectd,prometheus]
#                      [--pe-group comm|pid] [--warmup S] [--keep]
#                      [--no-install] [--memwatchd PATH] [--memwatch-set S.K=V]...
#                      [--host]
#   make bench-peers PEERS_ARGS="--duration 300 --churn"
#
# Prints, per tool, the CPU seconds of every process it started (its whole
# process tree, reaped children included) over the measured window, its
# peak resident set, the points it stored and its bytes on disk, then
# memwatch's ratio to each.  The headline is memwatch's CPU over Netdata's
# apps.plugin (issue 14's target: at most 0.5; issue 26's: at most 0.2).
#
# Owns: installing the missing packages (with services kept from starting),
# the temp dir with every tool's config and data, the workload, and the
# PIDs it starts.  It stops only those PIDs, never a service that was
# running before (it says so and runs its own instance beside it, on other
# ports and dirs), listens on 127.0.0.1 only, and ends within a hard
# timeout (duration + warm-up + 300 s; the package install has its own).
#
# By default it runs in a PID namespace of its own (unshare --pid
# --mount-proc), so every tool sees the same fixed set of processes: the
# workload and the tools, not whatever else the machine runs.  --host
# runs on the machine's own process table instead (every process there).
#
# Configs are the templates beside this script (memwatch.ini, netdata.conf,
# collectd.conf, process-exporter.yml, prometheus.yml); the workload and
# the meter are peerload.c, built here with cc.
set -u

ARGS=("$@")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

DURATION=${DURATION:-180}
PROCS=${PROCS:-300}
CHURN=${CHURN:-0}
WARMUP=${WARMUP:-15}
TOOLS=${TOOLS:-memwatch,netdata,collectd,prometheus}
PE_GROUP=${PE_GROUP:-comm}
KEEP=0
INSTALL=1
ISOLATE=1
MEMWATCHD=${MEMWATCHD:-$ROOT/build/native/memwatchd}
MW_SET=()	# --memwatch-set: memwatchd --set options (a variant, e.g. process.pss_budget=0)

usage() {
	sed -n '8,13p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

while [ $# -gt 0 ]; do
	case "$1" in
	-d|--duration) DURATION=${2:-}; shift ;;
	--duration=*) DURATION=${1#*=} ;;
	-n|--procs) PROCS=${2:-}; shift ;;
	--procs=*) PROCS=${1#*=} ;;
	--churn) CHURN=5 ;;
	--churn=*) CHURN=${1#*=} ;;
	--tools) TOOLS=${2:-}; shift ;;
	--tools=*) TOOLS=${1#*=} ;;
	--pe-group) PE_GROUP=${2:-}; shift ;;
	--pe-group=*) PE_GROUP=${1#*=} ;;
	--warmup) WARMUP=${2:-}; shift ;;
	--warmup=*) WARMUP=${1#*=} ;;
	--keep) KEEP=1 ;;
	--host) ISOLATE=0 ;;
	--no-install) INSTALL=0 ;;
	--memwatchd) MEMWATCHD=${2:-}; shift ;;
	--memwatchd=*) MEMWATCHD=${1#*=} ;;
	--memwatch-set) MW_SET+=(--set "${2:-}"); shift ;;
	--memwatch-set=*) MW_SET+=(--set "${1#*=}") ;;
	-h|--help) usage ;;
	*) echo "run.sh: unknown option '$1'" >&2; usage ;;
	esac
	shift
done

die() { echo "run.sh: $*" >&2; exit 2; }
say() { echo "== $*"; }
isnum() { case "$1" in ''|*[!0-9]*) return 1 ;; esac; }

isnum "$DURATION" && [ "$DURATION" -ge 10 ] && [ "$DURATION" -le 7200 ] ||
	die "--duration must be 10-7200 seconds, not '$DURATION'"
isnum "$PROCS" && [ "$PROCS" -le 5000 ] || die "--procs must be 0-5000, not '$PROCS'"
isnum "$CHURN" && [ "$CHURN" -le 100 ] || die "--churn must be 0-100 a second, not '$CHURN'"
isnum "$WARMUP" && [ "$WARMUP" -le 600 ] || die "--warmup must be 0-600 seconds, not '$WARMUP'"
case "$PE_GROUP" in comm|pid) ;; *) die "--pe-group must be comm or pid, not '$PE_GROUP'" ;; esac
want() { case ",$TOOLS," in *",$1,"*) return 0 ;; esac; return 1; }
for t in ${TOOLS//,/ }; do
	case "$t" in memwatch|netdata|collectd|prometheus) ;;
	*) die "--tools: unknown tool '$t' (memwatch, netdata, collectd, prometheus)" ;;
	esac
done
[ "$(id -u)" = 0 ] || echo "run.sh: not root: the tools cannot read every process, and missing packages cannot be installed" >&2

# ---------------------------------------------------------------------------
# Packages.  Debian's postinst scripts start their service; a policy-rc.d
# answering 101 forbids that (ours only if none is there, removed after).

POLICY=/usr/sbin/policy-rc.d
POLICY_OURS=0
TMP=
WATCHDOG=
declare -A PID=()	# tool -> the PID we started (the root of its tree)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

install_missing() {
	local need=() p
	want netdata && need+=(netdata)
	want collectd && need+=(collectd)
	want prometheus && need+=(prometheus-process-exporter prometheus)
	need+=(curl sqlite3 gcc)
	local missing=()
	for p in "${need[@]}"; do installed "$p" || missing+=("$p"); done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$INSTALL" = 1 ] || die "missing packages: ${missing[*]} (run without --no-install, as root)"
	[ "$(id -u)" = 0 ] || die "missing packages: ${missing[*]}: run as root to install them"
	say "installing ${missing[*]} (services kept from starting)"
	if [ ! -e "$POLICY" ]; then
		printf '#!/bin/sh\n# memwatch bench/peers/run.sh: no service starts during its install\nexit 101\n' > "$POLICY"
		chmod 755 "$POLICY"
		POLICY_OURS=1
	fi
	local apt=(timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends)
	if ! "${apt[@]}" "${missing[@]}" > /tmp/memwatch-peers-apt.log 2>&1; then
		timeout 300 apt-get update -q >> /tmp/memwatch-peers-apt.log 2>&1
		"${apt[@]}" "${missing[@]}" >> /tmp/memwatch-peers-apt.log 2>&1 ||
			{ tail -20 /tmp/memwatch-peers-apt.log >&2; die "apt-get install ${missing[*]} failed (log: /tmp/memwatch-peers-apt.log)"; }
	fi
	rm -f /tmp/memwatch-peers-apt.log
	remove_policy
}

remove_policy() {
	if [ "$POLICY_OURS" = 1 ]; then
		rm -f "$POLICY"
		POLICY_OURS=0
	fi
}

# ---------------------------------------------------------------------------
# Processes: ours are in PID[]; stopping is by PID, TERM then KILL.

alive() {
	# a zombie (exited, not yet reaped) counts as gone
	local st
	st=$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

stop_pid() {	# PID NAME GRACE_S
	local pid=$1 name=$2 grace=$3 i
	alive "$pid" || { wait "$pid" 2>/dev/null; return 0; }
	kill -TERM "$pid" 2>/dev/null
	for ((i = 0; i < grace * 5; i++)); do
		alive "$pid" || break
		sleep 0.2
	done
	if alive "$pid"; then
		echo "run.sh: $name (pid $pid) still running after ${grace}s: SIGKILL" >&2
		kill -KILL "$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null
	return 0
}

cleanup() {
	local t
	# a second signal must not cut the stopping short
	trap - EXIT
	trap '' INT TERM
	for t in prometheus pe netdata collectd memwatch work; do
		[ -n "${PID[$t]:-}" ] && stop_pid "${PID[$t]}" "$t" 10
		unset 'PID[$t]'
	done
	[ -n "$WATCHDOG" ] && kill -TERM "$WATCHDOG" 2>/dev/null && wait "$WATCHDOG" 2>/dev/null
	remove_policy
	if [ -n "$TMP" ] && [ -d "$TMP" ]; then
		if [ "$KEEP" = 1 ]; then echo "kept: $TMP"; else rm -rf "$TMP"; fi
	fi
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted" >&2; exit 130' INT
trap 'echo "run.sh: stopped (hard timeout or SIGTERM)" >&2; exit 3' TERM

# This script again, as PID 1 of a PID namespace of its own: when it ends,
# whatever is left in there ends with it (and with unshare, --kill-child).
# unshare ignores SIGINT and SIGTERM, so a signal here is passed on, by PID,
# to the inner script, which stops its tools; this one waits for it.
run_inner() {
	local us rc inner
	trap - EXIT
	unshare --pid --fork --mount-proc --kill-child=TERM env MW_PEERS_INNER=1 \
		MEMWATCHD="$MEMWATCHD" "$0" ${ARGS[@]+"${ARGS[@]}"} --no-install &
	us=$!
	trap 'inner=$(cat "/proc/$us/task/$us/children" 2>/dev/null)
		[ -n "$inner" ] && kill -TERM $inner 2>/dev/null' INT TERM
	while :; do
		wait "$us"
		rc=$?
		alive "$us" || break
	done
	exit "$rc"
}

if [ -z "${MW_PEERS_INNER:-}" ]; then
	install_missing
	[ -x "$MEMWATCHD" ] || die "no $MEMWATCHD: build it first (make build/native/memwatchd)"
	# Services already running are left alone: named, never touched.
	for name in netdata collectd prometheus prometheus-proc; do
		for c in /proc/[0-9]*/comm; do
			[ "$(cat "$c" 2>/dev/null)" = "$name" ] || continue
			p=${c#/proc/}; p=${p%/comm}
			echo "note: $name already running (pid $p): left alone; this run starts its own instance on other ports and dirs (its CPU load is on the machine too)"
		done
	done
	if [ "$ISOLATE" = 1 ]; then
		if unshare --pid --fork --mount-proc true 2>/dev/null; then
			run_inner
		fi
		echo "run.sh: cannot make a PID namespace (unshare --pid needs root): every process of the machine is sampled (as --host)" >&2
		ISOLATE=0
	fi
fi

# The hard timeout starts now: everything below is bounded by it.
HARD=$((DURATION + WARMUP + 300))
(
	s=
	trap '[ -n "$s" ] && kill "$s" 2>/dev/null; exit 0' TERM
	sleep "$HARD" & s=$!
	wait "$s" && kill -TERM $$
) &
WATCHDOG=$!

TMP=$(mktemp -d /tmp/memwatch-peers.XXXXXX) || die "mktemp failed"
mkdir -p "$TMP"/{memwatch,netdata/etc,netdata/log,netdata/cache,netdata/lib,collectd/csv,pe,prom/data}

declare -A TAKEN=()
free_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
		[ -n "${TAKEN[$p]:-}" ] && continue
		if [ -z "$(ss -Htln "( sport = :$p )" 2>/dev/null)" ]; then
			TAKEN[$p]=1
			echo "$p"
			return 0
		fi
	done
	die "no free port found"
}
MW_PORT=$(free_port); ND_PORT=$(free_port); PE_PORT=$(free_port); PR_PORT=$(free_port)

fill() {	# TEMPLATE OUT: @TMP@ and the ports
	sed -e "s#@TMP@#$TMP#g" -e "s#@ND_PORT@#$ND_PORT#g" -e "s#@PE_PORT@#$PE_PORT#g" \
		-e "s#@PE_NAME@#$PE_NAME#g" "$HERE/$1" > "$2"
}

curl_get() { curl -sf --max-time 10 "$@"; }

wait_up() {	# NAME PID CHECK-COMMAND...
	local name=$1 pid=$2 i
	shift 2
	for ((i = 0; i < 150; i++)); do
		alive "$pid" || die "$name exited at start-up (log in $TMP, run with --keep)"
		"$@" > /dev/null 2>&1 && return 0
		sleep 0.2
	done
	die "$name not up after 30 s"
}

# ---------------------------------------------------------------------------
# The workload: PROCS idle processes with names of their own, plus churn.

say "building the workload (peerload.c)"
cc -std=c11 -D_GNU_SOURCE -O2 -o "$TMP/peerload" "$HERE/peerload.c" || die "cannot build peerload.c"
"$TMP/peerload" work "$PROCS" "$CHURN" "$TMP/work.ready" &
PID[work]=$!
for ((i = 0; i < 300; i++)); do [ -e "$TMP/work.ready" ] && break; sleep 0.1; done
[ -e "$TMP/work.ready" ] || die "workload not ready after 30 s"
say "workload: $PROCS idle processes (mwpeer000...), churn $CHURN/s (mwchurn00...)"

# Every process name on the machine now, plus the churn names: collectd
# reports only processes it is given by name; Netdata reports groups.
names() {
	local c n
	for c in /proc/[0-9]*/comm; do
		n=$(cat "$c" 2>/dev/null) || continue
		echo "$n"
	done
	if [ "$CHURN" -gt 0 ]; then
		for ((i = 0; i < 100; i++)); do printf 'mwchurn%02d\n' "$i"; done
	fi
}
names | grep -v '["\\]' | grep -v '^$' | sort -u > "$TMP/names"

# ---------------------------------------------------------------------------
# The tools, each with its own dirs and loopback port.

if want memwatch; then
	PE_NAME=x fill memwatch.ini "$TMP/memwatch/memwatch.ini"
	(cd "$TMP/memwatch" && exec "$MEMWATCHD" run --config "$TMP/memwatch/memwatch.ini" \
		--db "$TMP/memwatch/memwatch.db" --listen "127.0.0.1:$MW_PORT" ${MW_SET[@]+"${MW_SET[@]}"}) \
		> "$TMP/memwatch/stdout.log" 2>&1 &
	PID[memwatch]=$!
fi

if want netdata; then
	PE_NAME=x fill netdata.conf "$TMP/netdata/etc/netdata.conf"
	# each workload process its own group, then Debian's stock groups
	{
		grep -E '^mw(peer|churn)' "$TMP/names" | awk '{ print $1 ": " $1 }'
		cat /usr/lib/netdata/conf.d/apps_groups.conf
	} > "$TMP/netdata/etc/apps_groups.conf"
	touch "$TMP/netdata/etc/.opt-out-from-anonymous-statistics"
	(cd "$TMP/netdata" && DO_NOT_TRACK=1 DISABLE_TELEMETRY=1 exec netdata -D \
		-c "$TMP/netdata/etc/netdata.conf") > "$TMP/netdata/stdout.log" 2>&1 &
	PID[netdata]=$!
fi

if want collectd; then
	awk '{ printf "\tProcess \"%s\"\n", $0 }' "$TMP/names" > "$TMP/collectd/processes"
	PE_NAME=x fill collectd.conf "$TMP/collectd/collectd.conf.in"
	awk -v list="$TMP/collectd/processes" '
		/^@PROCESSES@$/ { while ((getline l < list) > 0) print l; next } { print }
	' "$TMP/collectd/collectd.conf.in" > "$TMP/collectd/collectd.conf"
	(cd "$TMP/collectd" && exec collectd -f -C "$TMP/collectd/collectd.conf") \
		> "$TMP/collectd/stdout.log" 2>&1 &
	PID[collectd]=$!
fi

if want prometheus; then
	if [ "$PE_GROUP" = pid ]; then PE_NAME='{{.Comm}}:{{.PID}}'; else PE_NAME='{{.Comm}}'; fi
	fill process-exporter.yml "$TMP/pe/process-exporter.yml"
	fill prometheus.yml "$TMP/prom/prometheus.yml"
	(cd "$TMP/pe" && exec prometheus-process-exporter -config.path "$TMP/pe/process-exporter.yml" \
		-web.listen-address "127.0.0.1:$PE_PORT") > "$TMP/pe/stdout.log" 2>&1 &
	PID[pe]=$!
	(cd "$TMP/prom" && exec prometheus --config.file="$TMP/prom/prometheus.yml" \
		--storage.tsdb.path="$TMP/prom/data" --web.listen-address="127.0.0.1:$PR_PORT") \
		> "$TMP/prom/stdout.log" 2>&1 &
	PID[prometheus]=$!
fi

want memwatch && wait_up memwatch "${PID[memwatch]}" curl_get "http://127.0.0.1:$MW_PORT/healthz"
want netdata && wait_up netdata "${PID[netdata]}" curl_get "http://127.0.0.1:$ND_PORT/api/v1/info"
want collectd && wait_up collectd "${PID[collectd]}" test -d "$TMP/collectd/csv/memwatch-peers"
want prometheus && wait_up process-exporter "${PID[pe]}" curl_get "http://127.0.0.1:$PE_PORT/metrics"
want prometheus && wait_up prometheus "${PID[prometheus]}" curl_get "http://127.0.0.1:$PR_PORT/-/ready"

# ---------------------------------------------------------------------------
# Measure: CPU over the window, RSS every 5 s.

ROOTS=()
for t in memwatch netdata collectd pe prometheus; do
	[ -n "${PID[$t]:-}" ] && ROOTS+=("$t")
done
declare -A CPU0=() CPU1=() APPS0=() APPS1=() RSSMAX=() HWM=() NPROC=()

sample() {	# fills $1 (cpu) and $2 (apps.plugin cpu), updates RSSMAX, HWM, NPROC
	local -n cpu=$1 apps=$2
	local pids=() t line
	for t in "${ROOTS[@]}"; do pids+=("${PID[$t]}"); done
	while read -r line; do
		set -- $line
		for t in "${ROOTS[@]}"; do
			[ "${PID[$t]}" = "$1" ] || continue
			cpu[$t]=$2
			apps[$t]=$6
			[ "$3" -gt "${RSSMAX[$t]:-0}" ] && RSSMAX[$t]=$3
			HWM[$t]=$4
			NPROC[$t]=$5
		done
	done < <("$TMP/peerload" tree "${pids[@]}")
}

machine_busy() {	# busy and total jiffies of the machine
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

say "all up; warming up ${WARMUP}s, then measuring ${DURATION}s side by side (hard timeout ${HARD}s)"
sleep "$WARMUP" & wait $!
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
NPROCS_SEEN=$(ls -d /proc/[0-9]* | wc -l)
read -r BUSY0 TOT0 < <(machine_busy)
sample CPU0 APPS0
T0=$(date +%s)
for ((el = 0; el < DURATION; el += 5)); do
	step=$((DURATION - el < 5 ? DURATION - el : 5))
	sleep "$step" & wait $!
	sample CPU1 APPS1
	for t in "${ROOTS[@]}"; do
		alive "${PID[$t]}" || die "$t (pid ${PID[$t]}) exited during the run (log in $TMP, run with --keep)"
	done
done
sample CPU1 APPS1
T1=$(date +%s)
read -r BUSY1 TOT1 < <(machine_busy)
LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
ELAPSED=$((T1 - T0))

# ---------------------------------------------------------------------------
# Points, asked while the tools run; bytes on disk, once they have stopped.

json_num() {	# FILE SQL-EXPRESSION over json (readfile in sqlite3's shell)
	sqlite3 :memory: "SELECT $2 FROM (SELECT readfile('$1') AS j);" 2>/dev/null
}

declare -A POINTS=() SERIES=() BYTES=() DATA=() NOTE=()
if want netdata; then
	curl_get "http://127.0.0.1:$ND_PORT/api/v1/charts" > "$TMP/nd-charts.json"
	# points = dimensions x collections, chart by chart, over all it stored
	POINTS[netdata]=$(sqlite3 :memory: "
		SELECT sum(((json_extract(c.value, '\$.last_entry') - json_extract(c.value, '\$.first_entry'))
			/ json_extract(c.value, '\$.update_every') + 1)
			* (SELECT count(*) FROM json_each(c.value, '\$.dimensions')))
		FROM json_each(readfile('$TMP/nd-charts.json'), '\$.charts') c;")
	SERIES[netdata]=$(sqlite3 :memory: "
		SELECT sum((SELECT count(*) FROM json_each(c.value, '\$.dimensions')))
		FROM json_each(readfile('$TMP/nd-charts.json'), '\$.charts') c;")
fi
if want prometheus; then
	prom_query() {
		curl -sf --max-time 60 "http://127.0.0.1:$PR_PORT/api/v1/query" \
			--data-urlencode "query=$1" > "$TMP/prom-q.json" &&
			json_num "$TMP/prom-q.json" "json_extract(j, '\$.data.result[0].value[1]')"
	}
	# count_over_time drops the metric name, so one query per name
	# (series of different names can share their other labels)
	POINTS[prometheus]=0 SERIES[prometheus]=0
	if curl_get "http://127.0.0.1:$PR_PORT/api/v1/label/__name__/values" > "$TMP/prom-names.json"; then
		while read -r m; do
			n=$(prom_query "sum(count_over_time($m[1d]))")
			s=$(prom_query "count(count_over_time($m[1d]))")
			POINTS[prometheus]=$((POINTS[prometheus] + ${n:-0}))
			SERIES[prometheus]=$((SERIES[prometheus] + ${s:-0}))
		done < <(sqlite3 :memory: "SELECT value FROM json_each(readfile('$TMP/prom-names.json'), '\$.data');")
	fi
fi
if want memwatch; then
	SERIES_LIVE_MW=$(curl_get "http://127.0.0.1:$MW_PORT/metrics" | grep -c '^memwatch_')
fi

say "stopping the tools (by PID)"
for t in prometheus pe netdata collectd memwatch; do
	[ -n "${PID[$t]:-}" ] && stop_pid "${PID[$t]}" "$t" 60 && unset 'PID[$t]'
done
stop_pid "${PID[work]}" workload 10 && unset 'PID[work]'

dirsize() { du -sb "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
if want memwatch; then
	db=$TMP/memwatch/memwatch.db
	read -r POINTS[memwatch] DATA[memwatch] SERIES[memwatch] < <(sqlite3 -readonly -separator ' ' "$db" \
		"SELECT sum(npoints), sum(length(data)), (SELECT count(*) FROM series) FROM chunk;")
	BYTES[memwatch]=$(dirsize "$db" "$db-wal" "$db-shm")
	NOTE[memwatch]="data = chunk blobs; total = the SQLite file (rollups, labels, indexes)"
fi
if want netdata; then
	DATA[netdata]=$(dirsize "$TMP"/netdata/cache/dbengine*)
	BYTES[netdata]=$(dirsize "$TMP/netdata/cache")
	NOTE[netdata]="data = dbengine dirs (3 tiers); total = + metadata SQLite"
fi
if want collectd; then
	BYTES[collectd]=$(dirsize "$TMP/collectd/csv")
	DATA[collectd]=${BYTES[collectd]}
	# one awk over the list of files: values = rows x columns past the time
	find "$TMP/collectd/csv" -type f > "$TMP/collectd/files"
	read -r POINTS[collectd] SERIES[collectd] < <(awk -F, '{
		first = 1
		while ((getline line < $0) > 0) {
			nf = split(line, f, ",")
			if (first) cols += nf - 1; else n += nf - 1
			first = 0
		}
		close($0)
	} END { print n + 0, cols + 0 }' "$TMP/collectd/files")
	NOTE[collectd]="csv files (one per value list and day)"
fi
if want prometheus; then
	BYTES[prometheus]=$(dirsize "$TMP/prom/data")
	DATA[prometheus]=${BYTES[prometheus]}
	NOTE[prometheus]="TSDB dir (WAL + head chunks: no block is cut in under 2 h)"
fi

# ---------------------------------------------------------------------------
# Report.

f2() { awk -v x="$1" 'BEGIN { printf "%.2f", x }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 > 0) printf "%.2f", a / b; else printf "-" }'; }
cpu_of() { awk -v a="${CPU1[$1]:-0}" -v b="${CPU0[$1]:-0}" 'BEGIN { printf "%.2f", a - b }'; }

declare -A C=() R=() P=() B=() D=() S=()
# RSS in MB to a tenth: whole MB hid the differences the memory work of
# issue 26 is about (10 MB against 10 MB for 0.7 MB less)
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
for t in "${ROOTS[@]}"; do C[$t]=$(cpu_of "$t"); R[$t]=$(mb "${RSSMAX[$t]:-0}"); done
if want netdata; then
	C[apps]=$(awk -v a="${APPS1[netdata]:-0}" -v b="${APPS0[netdata]:-0}" 'BEGIN { printf "%.2f", a - b }')
fi
if want prometheus; then
	C[promtotal]=$(awk -v a="${C[pe]}" -v b="${C[prometheus]}" 'BEGIN { printf "%.2f", a + b }')
	R[promtotal]=$(mb $((${RSSMAX[pe]:-0} + ${RSSMAX[prometheus]:-0})))
fi

per10() { awk -v c="$1" -v e="$ELAPSED" 'BEGIN { printf "%.2f", c * 600 / e }'; }
row() {	# LABEL CPU RSS_MB POINTS SERIES BYTES DATA
	local bpp="-" dpp="-"
	[ -n "${4:-}" ] && [ "${4:-0}" != 0 ] && bpp=$(div "${6:-0}" "$4") && dpp=$(div "${7:-0}" "$4")
	printf '%-34s %8s %9s %8s %11s %8s %11s %7s %7s\n' "$1" "$2" "$(per10 "$2")" "${3:--}" \
		"${4:--}" "${5:--}" "${6:--}" "$dpp" "$bpp"
}

echo
echo "memwatch peer benchmark (bench/peers/run.sh), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "  side by side for ${ELAPSED}s after a ${WARMUP}s warm-up, every tool sampling every process every 1 s"
[ ${#MW_SET[@]} -gt 0 ] && echo "  memwatchd options: ${MW_SET[*]}"
if [ "$ISOLATE" = 1 ]; then
	echo "  processes: a PID namespace of its own, $NPROCS_SEEN processes at the start (the workload and the tools)"
else
	echo "  processes: the machine's, $NPROCS_SEEN at the start (the workload, the tools and everything else)"
fi
echo "  workload: $PROCS idle processes, churn $CHURN/s; $(nproc) cores; load average $LOAD0 at start, $LOAD1 at end;"
echo "  machine busy $(awk -v a=$((BUSY1 - BUSY0)) -v b=$((TOT1 - TOT0)) -v n="$(nproc)" 'BEGIN { printf "%.0f%% of %d cores", 100 * a / b, n }') during the window (all tools, the workload and anything else running)"
echo "  $(uname -r); $("$MEMWATCHD" version 2>/dev/null | head -1); $(dpkg-query -W -f='netdata ${Version}' netdata 2>/dev/null); $(dpkg-query -W -f='collectd ${Version}' collectd 2>/dev/null); $(dpkg-query -W -f='process-exporter ${Version}' prometheus-process-exporter 2>/dev/null); $(dpkg-query -W -f='prometheus ${Version}' prometheus 2>/dev/null)"
echo
printf '%-34s %8s %9s %8s %11s %8s %11s %7s %7s\n' tool "CPU s" "s/10min" "RSS MB" points series "disk bytes" "B/pt" "B/pt"
printf '%-34s %8s %9s %8s %11s %8s %11s %7s %7s\n' "" "" "" "peak" "stored" "" "total" "data" "total"
want memwatch && row "memwatch (1 process)" "${C[memwatch]}" "${R[memwatch]}" "${POINTS[memwatch]:-}" \
	"${SERIES[memwatch]:-}" "${BYTES[memwatch]:-}" "${DATA[memwatch]:-}"
if want netdata; then
	row "netdata + apps.plugin (${NPROC[netdata]} procs)" "${C[netdata]}" "${R[netdata]}" "${POINTS[netdata]:-}" \
		"${SERIES[netdata]:-}" "${BYTES[netdata]:-}" "${DATA[netdata]:-}"
	row "  of which apps.plugin" "${C[apps]}"
fi
want collectd && row "collectd processes+csv (${NPROC[collectd]} procs)" "${C[collectd]}" "${R[collectd]}" \
	"${POINTS[collectd]:-}" "${SERIES[collectd]:-}" "${BYTES[collectd]:-}" "${DATA[collectd]:-}"
if want prometheus; then
	row "process-exporter + prometheus" "${C[promtotal]}" "${R[promtotal]}" "${POINTS[prometheus]:-}" \
		"${SERIES[prometheus]:-}" "${BYTES[prometheus]:-}" "${DATA[prometheus]:-}"
	row "  process-exporter" "${C[pe]}" "${R[pe]}"
	row "  prometheus" "${C[prometheus]}" "${R[prometheus]}"
fi
echo
for t in memwatch netdata collectd prometheus; do
	want "$t" && echo "  $t bytes: ${NOTE[$t]}"
done
want memwatch && echo "  memwatch series: every one stored in the run; $((${SERIES_LIVE_MW:-0})) live at the end (lines on /metrics)"
echo "  CPU: utime+stime of each tool's process tree (reaped children included) over the window; RSS: peak of the tree's summed VmRSS, every 5 s"

if want memwatch; then
	echo
	echo "memwatch's ratios (memwatch / peer; CPU target vs apps.plugin: <= 0.2 (issue 26)):"
	if want netdata; then
		echo "  CPU / apps.plugin:                  $(div "${C[memwatch]}" "${C[apps]}")   <- headline"
		echo "  CPU / netdata + apps.plugin:        $(div "${C[memwatch]}" "${C[netdata]}")"
		echo "  RSS / netdata + apps.plugin:        $(div "${R[memwatch]}" "${R[netdata]}")"
	fi
	if want collectd; then
		echo "  CPU / collectd:                     $(div "${C[memwatch]}" "${C[collectd]}")"
		echo "  RSS / collectd:                     $(div "${R[memwatch]}" "${R[collectd]}")"
	fi
	if want prometheus; then
		echo "  CPU / process-exporter+prometheus:  $(div "${C[memwatch]}" "${C[promtotal]}")"
		echo "  RSS / process-exporter+prometheus:  $(div "${R[memwatch]}" "${R[promtotal]}")"
	fi
	mwb=$(div "${BYTES[memwatch]:-0}" "${POINTS[memwatch]:-0}")
	for t in netdata collectd prometheus; do
		want "$t" || continue
		printf '  bytes/point total / %-14s %s\n' "$t:" \
			"$(div "$mwb" "$(div "${BYTES[$t]:-0}" "${POINTS[$t]:-0}")")"
	done
fi
exit 0
