#!/usr/bin/env bash
# hostile.sh DAEMON - hostile queries against a running memwatchd
# ("Weeks unattended"): pathological regular expressions, huge ranges with
# tiny steps and max_points=1, from=1900 and from=-3000w, 1,000 query
# parameters, a wide selector with max_points=100000.  Each must get a
# prompt answer (curl -m bounds), /healthz must answer while they run,
# and the daemon's RSS must stay bounded.  TAP; loopback only; < 60 s.
#
#   tests/api/hostile.sh build/native/memwatchd
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

RSS_MAX_MB=${RSS_MAX_MB:-400}

need curl python3
need_file "make build/native/memwatchd" "$daemon"

mw_serve_data x --interval 100ms --set storage.flush_interval=200ms --set web.query_timeout=5s

# q PATH ARG...: GET with URL-encoded arguments, at most 10 s; prints the
# status, body in $tmpdir/body.
q() {
	local path=$1
	shift
	local a args=()
	for a in "$@"; do args+=(--data-urlencode "$a"); done
	curl -s -G -o "$tmpdir/body" -w '%{http_code}' --max-time 10 "${args[@]}" "$base$path"
}
# want CODES NEEDLE PATH ARG...: status among CODES (a|b), error naming NEEDLE
# when it is not 200.
want() {
	local codes=$1 needle=$2 got
	shift 2
	got=$(q "$@")
	case "|$codes|" in *"|$got|"*) ;; *) echo "status $got, want $codes: $(head -c 300 "$tmpdir/body")"; return 1 ;; esac
	[ "$got" = 200 ] && return 0
	python3 -c "import json,sys
e=json.load(open(sys.argv[1]))['error']
sys.exit(0 if sys.argv[2] in e else (print(e) or 1))" "$tmpdir/body" "$needle"
}
# body EXPR: Python over the last JSON body as d.
body() { js "$1" <"$tmpdir/body"; }
rss_mb() { awk '/^VmRSS:/ { print int($2 / 1024) }' "/proc/$main_pid/status"; }

rss0=$(rss_mb)
avail=memwatch_system_available_bytes
# the first flush may hold only the process collector's series: wait for
# the series the checks below query
avail_stored() {
	local i
	for i in $(seq 1 150); do
		curl -s --max-time 2 "$base/api/v1/series?match=$avail" |
			python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["series"] else 1)' 2>/dev/null &&
			return 0
		sleep 0.1
	done
	return 1
}
check "$avail is stored" avail_stored

# --- huge ranges ------------------------------------------------------------
check "from=1900, max_points=1: one point, promptly" \
	want 200 "" /api/v1/query "match=$avail" from=1900-01-01T00:00:00Z max_points=1
check "  ... and it summarises the stored data" body 'len(d["t"])==1 and d["series"][0]["values"][0] is not None'
check "from=-3000w, max_points=1: promptly" \
	want 200 "" /api/v1/query "match=$avail" from=-3000w max_points=1
check "  ... one point" body 'len(d["t"])<=1'
check "from=-3000w, max_points=2 and 3" sh -c "
	curl -sf -m 10 '$base/api/v1/query?match=$avail&from=-3000w&max_points=2' >/dev/null &&
	curl -sf -m 10 '$base/api/v1/query?match=$avail&from=-3000w&max_points=3' >/dev/null"
check "to in year 9999, max_points=1: promptly" \
	want 200 "" /api/v1/query "match=$avail" from=0 to=9999-12-31T23:59:59Z max_points=1
check "from=1900 with step=1ms: 400 naming step" \
	want 400 "step:" /api/v1/query "match=$avail" from=1900-01-01T00:00:00Z step=1ms
check "huge step: 400 naming step" \
	want 400 "step:" /api/v1/query "match=$avail" from=0 step=99999999999999999ms
check "far times: 400" \
	want 400 "" /api/v1/query "match=$avail" from=0 to=99999999999999999
check "step=raw from 1900: promptly" \
	want 200 "" /api/v1/query "match=$avail" from=1900-01-01T00:00:00Z step=raw max_points=1
check "export from 1900: promptly" \
	want 200 "" /api/v1/export "match=$avail" from=1900-01-01T00:00:00Z format=json

# --- regular expressions -------------------------------------------------------
stars='.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*x'
check "regex with 20 .* over every process: prompt answer" \
	want 200 "" /api/v1/series "match={process=~\"$stars\"}"
check "regex (a*)* nested over __name__: prompt answer" \
	want "200|404" "" /api/v1/query "match={__name__=~\"((.*)*)*((.*)*)*((.*)*)*y\"}" max_points=1
check "regex longer than 256 bytes: 400 naming match" \
	want 400 "match:" /api/v1/series "match={process=~\"$(printf 'a%.0s' $(seq 300))\"}"

# --- size limits --------------------------------------------------------------
nseries=$(curl -s -m 10 "$base/api/v1/series" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["series"]))' 2>/dev/null)
if [ "${nseries:-0}" -gt 50 ]; then
	check "wide selector, max_points=100000: 400 naming the limit" \
		want 400 "over the limit of 5000000 values" /api/v1/query \
		'match={__name__=~".+"}' from=0 max_points=100000
else
	skip "only $nseries series: the wide query fits the limit"
fi
check "wide selector with top=20 still works" \
	want 200 "" /api/v1/query 'match={__name__=~".+"}' top=20
check "  ... at most 20 series, growth ordered, series_total counts all" body \
	'len(d["series"])<=20 and d["series_total"]>=len(d["series"]) and d["top"]==20'

# --- 1,000 parameters -------------------------------------------------------------
params=$(python3 -c 'print("&".join("p%d=%d" % (i, i) for i in range(1000)))')
check "1,000 query parameters: a prompt answer" sh -c "
	c=\$(curl -s -o /dev/null -w '%{http_code}' -m 10 '$base/api/v1/query?match=$avail&$params')
	case \$c in 200|400|413|414|431) ;; *) echo \"status \$c\"; exit 1 ;; esac"

# --- /healthz while hostile requests run ----------------------------------------------
hostile_loop() {
	local i
	for i in 1 2 3 4 5 6; do
		curl -s -o /dev/null -m 10 -G --data-urlencode "match={process=~\"$stars\"}" \
			--data-urlencode from=1900-01-01T00:00:00Z --data-urlencode max_points=1 \
			"$base/api/v1/query"
		curl -s -o /dev/null -m 10 -G --data-urlencode 'match={__name__=~".+"}' \
			--data-urlencode from=-3000w --data-urlencode max_points=1 "$base/api/v1/query"
		curl -s -o /dev/null -m 10 -G --data-urlencode 'match={__name__=~".+"}' \
			--data-urlencode from=0 --data-urlencode max_points=100000 "$base/api/v1/query"
	done
}
loops=()
for j in 1 2 3 4; do
	hostile_loop &
	loops+=($!)
done
health_ok=0
for i in $(seq 1 20); do
	curl -sf -o /dev/null -m 2 "$base/healthz" && health_ok=$((health_ok + 1))
done
for p in "${loops[@]}"; do wait "$p"; done
check "/healthz answered 20 of 20 times during hostile load ($health_ok)" test "$health_ok" -eq 20
check "hostile requests ran in bounded time, daemon still queryable" \
	want 200 "" /api/v1/query "match=$avail"

rss1=$(rss_mb)
check "RSS bounded: ${rss0} MB before, ${rss1} MB after (limit $RSS_MAX_MB MB)" \
	test "${rss1:-99999}" -lt "$RSS_MAX_MB"
check "daemon stops cleanly" mw_stop "$main_pid"
finish
