#!/usr/bin/env bash
# run.sh DAEMON - the HTTP API end to end against a running memwatchd:
# every endpoint, selectors, time formats, buckets, errors, the token,
# keep-alive reuse and hostile input.  TAP output; exit 1 on any failure.
# Loopback only, temp database, bounded (< 60 s).
#
#   tests/api/run.sh build/native/memwatchd
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need curl python3
need_file "make build/native/memwatchd" "$daemon"

# getj PATH EXPR: GET base+PATH (200 expected) and check EXPR over it.
getj() {
	curl -sf --max-time 10 ${auth:+-H "$auth"} "$base$1" | js "$2"
}
auth=

mw_serve_data x --interval 100ms --set storage.flush_interval=200ms

# --- status ---------------------------------------------------------------
check "healthz: status, version, uptime_s" getj /healthz \
	'd["status"]=="ok" and isinstance(d["version"],str) and d["uptime_s"]>=0'
check "collectors: every field of every collector" getj /api/v1/collectors \
	'len(d["collectors"])>=2 and all(set(c)>={"name","enabled","supported","reason","mode","interval_ms","last_duration_us","samples","errors","last_error","skipped_ticks"} for c in d["collectors"])'
check "collectors: process collector sampling" getj /api/v1/collectors \
	'any(c["name"]=="process" and c["samples"]>0 for c in d["collectors"])'

# --- thread names (native only: under Wine the pid is Wine's) ----------------
# thread_comms: the comm of each of the daemon's threads, sorted, on one line
thread_comms() { cat /proc/"$main_pid"/task/*/comm 2>/dev/null | sort | tr '\n' ' '; }
named_threads() {
	local t
	t=" $(thread_comms)"
	[[ $t == *" mw-writer "* && $t == *" mw-judge "* && $t == *" memwatchd "* ]]
}
if [ ${#mw_runner[@]} -eq 0 ]; then
	check "threads: the writer and the judge carry their names, the main thread stays memwatchd" \
		wait_or_show 10 'echo "threads: $(thread_comms)"' named_threads
fi

# --- series and selectors ---------------------------------------------------
check "series: all, with id, name, labels, first/last timestamp" getj /api/v1/series \
	'len(d["series"])>5 and all(set(s)>={"id","name","labels","first_ts","last_ts"} for s in d["series"])'
check "series: metric name selector" getj "/api/v1/series?match=memwatch_system_available_bytes" \
	'len(d["series"])==1 and d["series"][0]["name"]=="memwatch_system_available_bytes" and d["series"][0]["last_ts"]>=d["series"][0]["first_ts"]'
check "series: label matcher (this daemon's pid)" getj \
	"/api/v1/series?match=memwatch_process_private_bytes%7Bpid%3D%22$main_pid%22%7D" \
	"len(d['series'])==1 and d['series'][0]['labels']['pid']=='$main_pid' and d['series'][0]['labels']['process'].startswith('memwatchd')"
check "series: regex on __name__" getj \
	"/api/v1/series?match=%7B__name__%3D~%22memwatch_system_.*%22%7D" \
	'len(d["series"])>=3 and all(s["name"].startswith("memwatch_system_") for s in d["series"])'
check "series: negative matcher" getj \
	"/api/v1/series?match=memwatch_process_threads%7Bpid!%3D%22$main_pid%22%7D" \
	"all(s['labels']['pid']!='$main_pid' for s in d['series'])"
check "series: no match is an empty list" getj "/api/v1/series?match=memwatch_nothing_here" \
	'd["series"]==[]'
check "series: bad selector is 400 naming match" expect_error 400 match \
	"$base/api/v1/series?match=memwatch_x%7Bpid%3D"

# --- query -----------------------------------------------------------------
q=/api/v1/query?match=memwatch_system_available_bytes
check "query: columnar t + values, same lengths" getj "$q" \
	'len(d["t"])>=1 and len(d["series"])==1 and len(d["series"][0]["values"])==len(d["t"]) and d["t"]==sorted(d["t"])'
check "query: series carry id, name, labels" getj "$q" \
	'set(d["series"][0])>={"id","name","labels","values"}'
now_ms=$(($(date +%s) * 1000))
check "query: from/to as epoch ms" getj "$q&from=$((now_ms - 600000))&to=$((now_ms + 60000))" 'len(d["t"])>=1'
rfc_from=$(date -u -d '-10 min' +%Y-%m-%dT%H:%M:%SZ)
rfc_to=$(date -u -d '+1 min' +%Y-%m-%dT%H:%M:%S.000+00:00)
check "query: from/to as RFC 3339" getj "$q&from=$rfc_from&to=${rfc_to/+/%2B}" 'len(d["t"])>=1'
check "query: relative -1h and now" getj "$q&from=-1h&to=now" 'len(d["t"])>=1'
check "query: now-15m" getj "$q&from=now-15m" 'len(d["t"])>=1'
check "query: step=1s agg=max buckets on whole seconds" getj "$q&from=-1m&step=1s&agg=max" \
	'd["step_ms"]==1000 and d["agg"]=="max" and all(t%1000==0 for t in d["t"])'
check "query: agg=min, avg, last accepted" sh -c "for a in min avg last; do curl -sf '$base$q&agg='\$a >/dev/null || exit 1; done"
check "query: max_points bounds the axis" getj "$q&from=-1h&max_points=5" 'len(d["t"])<=5'
check "query: step=raw gives raw points" getj "$q&from=-1m&step=raw" \
	'd["step_ms"]==-1 and all(v is None or v>0 for v in d["series"][0]["values"])'
# Every process of this host, raw: 15 s keeps it under the values limit
# (5,000,000) on a host with thousands of processes at 100 ms.
check "query: null for gaps (JSON null, never NaN)" sh -c \
	"curl -s -w '\n%{http_code}' '$base/api/v1/query?match=%7B__name__%3D~%22memwatch_process_.*%22%7D&from=-15s&step=raw&max_points=1000' >'$tmpdir/gaps' && tail -n 1 '$tmpdir/gaps' | grep -qx 200 && head -n -1 '$tmpdir/gaps' | python3 -c 'import json,sys; json.loads(sys.stdin.read(), parse_constant=lambda c: sys.exit(1))' || { tail -c 300 '$tmpdir/gaps'; false; }"
check "query: unknown series is 404" expect_error 404 match "$base/api/v1/query?match=memwatch_nothing_here"
check "query: missing match is 400" expect_error 400 match "$base/api/v1/query"
check "query: bad from is 400 naming from" expect_error 400 from "$base$q&from=yesterday"
check "query: bad to is 400 naming to" expect_error 400 to "$base$q&to=2025-02-30T00:00:00Z"
check "query: from after to is 400" expect_error 400 from "$base$q&from=now&to=-1h"
check "query: bad agg is 400" expect_error 400 agg "$base$q&agg=median"
check "query: bad step is 400" expect_error 400 step "$base$q&step=fast"
check "query: max_points=0 is 400" expect_error 400 max_points "$base$q&max_points=0"
check "query: max_points huge is 400" expect_error 400 max_points "$base$q&max_points=99999999999999"
check "query: unknown parameter is 400" expect_error 400 frm "$base$q&frm=-1h"

qp=/api/v1/query?match=memwatch_process_private_bytes
check "query: top=N keeps N series, series_total counts them all" getj "$qp&from=-5m&top=2" \
	'd["series_total"]>=2 and len(d["series"])==2 and d["top"]==2'
check "query: top series are the largest growers (last minus first), descending" getj "$qp&from=-5m&top=5" \
	'[s["growth"] for s in d["series"] if s["growth"] is not None]==sorted([s["growth"] for s in d["series"] if s["growth"] is not None],reverse=True)'
check "query: top above the match count returns every series" getj "$q&top=20" \
	'd["series_total"]==1 and len(d["series"])==1'
check "query: without top there is no series_total" getj "$q" '"series_total" not in d'
check "query: top=0 is 400 naming top" expect_error 400 top "$base$q&top=0"
check "query: top=abc is 400 naming top" expect_error 400 top "$base$q&top=abc"

# --- processes ----------------------------------------------------------------
check "processes: table with headline metrics and growth" getj /api/v1/processes \
	'len(d["processes"])>=1 and all(set(p)>={"process","pid","private_bytes","working_set_bytes","private_growth_bytes"} for p in d["processes"])'
# descending FIELD: the JSON check that the processes come by FIELD, largest
# first (those without it left out).
descending() {
	echo "[p['$1'] for p in d['processes'] if p['$1'] is not None]==sorted([p['$1'] for p in d['processes'] if p['$1'] is not None],reverse=True)"
}
check "processes: sorted by private bytes (default)" getj /api/v1/processes "$(descending private_bytes)"
check "processes: sort=working_set" getj "/api/v1/processes?sort=working_set" "$(descending working_set_bytes)"
check "processes: sort=growth and limit" getj "/api/v1/processes?sort=growth&limit=3" 'len(d["processes"])<=3'
check "processes: the daemon itself is listed" getj "/api/v1/processes?sort=name&filter=$main_pid" \
	"any(p['pid']=='$main_pid' for p in d['processes'])"
check "processes: bad sort is 400" expect_error 400 sort "$base/api/v1/processes?sort=color"
check "processes: total, matched, offset, limit; total counts every live process" getj "/api/v1/processes?limit=2" \
	'd["total"]>=2 and d["matched"]==d["total"] and d["offset"]==0 and d["limit"]==2 and len(d["processes"])==2'
# Pages: offset walks the same order without gaps or repeats.
pages() {
	python3 - "$base" <<'PY'
import json, sys, urllib.request
base = sys.argv[1]
get = lambda q: json.load(urllib.request.urlopen(base + "/api/v1/processes?sort=name&" + q, timeout=10))
whole = get("limit=1000")
names = [(p["process"], p["pid"]) for p in whole["processes"]]
assert len(names) == whole["total"] == whole["matched"], (len(names), whole["total"])
walked = []
for off in range(0, len(names), 3):
    d = get("limit=3&offset=%d" % off)
    walked += [(p["process"], p["pid"]) for p in d["processes"]]
# Processes may start or exit between the requests (the machine is
# busy), so: the walk stays in name order across page boundaries and
# covers nearly all of the whole table.
assert walked == sorted(walked), walked
seen = len(set(walked) & set(names))
assert seen >= len(names) * 0.8, (seen, len(names))
assert get("offset=100000")["processes"] == []
PY
}
check "processes: offset pages through the table" pages
check "processes: filter by name is case-insensitive, matched counts it" getj "/api/v1/processes?filter=MEMWATCHD" \
	"d['matched']>=1 and d['matched']<=d['total'] and len(d['processes'])==d['matched'] and all('memwatchd' in p['process'].lower() for p in d['processes']) and any(p['pid']=='$main_pid' for p in d['processes'])"
check "processes: filter by pid" getj "/api/v1/processes?filter=$main_pid" \
	"d['matched']>=1 and all(p['pid']=='$main_pid' or '$main_pid' in p['process'] for p in d['processes'])"
check "processes: filter matching nothing" getj "/api/v1/processes?filter=no-such-process-xyz" \
	'd["matched"]==0 and d["processes"]==[] and d["total"]>=1'
check "processes: limit above the maximum is 400" expect_error 400 limit "$base/api/v1/processes?limit=100000"
check "processes: negative offset is 400" expect_error 400 offset "$base/api/v1/processes?offset=-1"
check "processes: non-numeric offset is 400" expect_error 400 offset "$base/api/v1/processes?offset=ten"
check "processes: control character in filter is 400" expect_error 400 filter "$base/api/v1/processes?filter=a%01b"
check "processes: oversized filter is 400" expect_error 400 filter "$base/api/v1/processes?filter=$(head -c 300 /dev/zero | tr '\0' f)"
check "processes: bad window is 400" expect_error 400 window "$base/api/v1/processes?window=soon"
check "processes: too short window is 400" expect_error 400 window "$base/api/v1/processes?window=10s"
check "processes: too long window is 400" expect_error 400 window "$base/api/v1/processes?window=30d"
check "processes: window and rate fields" getj "/api/v1/processes?window=15m&limit=5" \
	'd["window_ms"]==900000 and all("private_rate_bytes_per_hour" in p and "working_set_rate_bytes_per_hour" in p and 0<=p["growth_span_ms"]<=900000 for p in d["processes"])'
check "processes: a young process has no rate yet (fewer than 5 floors)" getj "/api/v1/processes?filter=$main_pid&window=1h" \
	"[p['working_set_rate_bytes_per_hour'] for p in d['processes'] if p['pid']=='$main_pid']==[None]"
# Seed 40 to 47 minutes of per-minute floors (rising 100,000 bytes a
# minute: 6,000,000 bytes/h) for this daemon's private bytes, older than
# its live data, straight into the 1-minute rollup table.  Every seeded
# floor is below every value the daemon itself recorded (the line ends at
# 0 three minutes ago), and the first seeded minute starts an 8-minute
# bucket (the 24 h window's floors), so each bucket that holds seeded
# minutes has its floor on the line.  A line ending just below the live
# value failed once: the daemon's first seconds had less private memory
# (1.4 MB against 4 MB at the check), that low floor shared a bucket with
# the seeded ones, and with the partial first bucket it tipped the median
# slope to 4.5 MB/h.
seed_history() {
	local id
	id=$(curl -sf "$base/api/v1/series?match=memwatch_process_private_bytes%7Bpid%3D%22$main_pid%22%7D" |
		js 'print(d["series"][0]["id"])') || return 1
	python3 - "$tmpdir/x.db" "$id" >"$tmpdir/seed_first" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=10)
sid = int(sys.argv[2])
now_min = int(time.time() * 1000) // 60000
last = now_min - 3
first = (now_min - 42) // 8 * 8
with db:
    for t in range(first, last + 1):
        db.execute("INSERT OR REPLACE INTO rollup_1m_data(series_id,t,base,min,max,last,sum,count) VALUES (?,?,?,0,0,0,0,1)",
                   (sid, t, -100_000 * (last - t)))
print(first)
PY
}
check "seed 40 to 47 minutes of rising floors for the daemon's private bytes" seed_history
# The floors span from the first seeded minute to the last live one.
seeded_span_ok() {
	local first now_min
	first=$(cat "$tmpdir/seed_first") && now_min=$(($(date +%s) / 60)) &&
		getj "/api/v1/processes?filter=$main_pid&window=1h" \
			"[abs(p['private_rate_bytes_per_hour']-6e6)<6e4 and $((now_min - first - 2))*60000<=p['growth_span_ms']<=$((now_min - first))*60000 for p in d['processes'] if p['pid']=='$main_pid']==[True]"
}
check "processes: rate is the Theil-Sen slope of the floors, bytes per hour" seeded_span_ok
check "processes: a 15m window covers 15 minutes" getj "/api/v1/processes?filter=$main_pid&window=15m" \
	"[abs(p['private_rate_bytes_per_hour']-6e6)<6e4 and 13*60000<=p['growth_span_ms']<=15*60000 for p in d['processes'] if p['pid']=='$main_pid']==[True]"
check "processes: sort=growth ranks by the rate" getj "/api/v1/processes?sort=growth&window=1h&limit=3" \
	"d['processes'][0]['pid']=='$main_pid'"
check "processes: the slope survives a 24h window (coarser floors)" getj "/api/v1/processes?filter=$main_pid&window=24h" \
	"[p['private_rate_bytes_per_hour'] is not None and abs(p['private_rate_bytes_per_hour']-6e6)<6e4 for p in d['processes'] if p['pid']=='$main_pid']==[True]"

# --- export -------------------------------------------------------------------
export_csv() {
	curl -sf --max-time 10 "$base/api/v1/export?match=%7B__name__%3D~%22memwatch_system_.*%22%7D&from=-1h&format=csv" >"$tmpdir/x.csv" &&
		python3 - "$tmpdir/x.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0][0].startswith("(PDH-CSV 4.0)"), rows[0]
assert len(rows[0]) >= 4 and all(c.startswith("memwatch_system_") for c in rows[0][1:]), rows[0]
assert len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), "ragged"
raw = open(sys.argv[1], "rb").read().split(b"\r\n")[1]
assert raw.startswith(b'"') and b"/" in raw.split(b",")[0], raw   # quoted MM/DD/YYYY time
assert any(float(v) > 0 for v in rows[1][1:] if v), rows[1]
PY
}
check "export: CSV in typeperf's shape" export_csv
check "export: JSON raw points" getj "/api/v1/export?match=memwatch_system_available_bytes&format=json" \
	'len(d["series"])==1 and len(d["series"][0]["points"])>=1 and all(len(p)==2 for p in d["series"][0]["points"])'
check "export: bad format is 400" expect_error 400 format "$base/api/v1/export?match=memwatch_system_available_bytes&format=xls"
check "export: unknown series is 404" expect_error 404 match "$base/api/v1/export?match=memwatch_nothing_here"

# --- /metrics -------------------------------------------------------------------
metrics() { curl -sf --max-time 10 "$base/metrics" >"$tmpdir/metrics.txt"; }
check "metrics: 200 text exposition" metrics
check "metrics: live series and daemon health" sh -c \
	"grep -q '^memwatch_system_available_bytes ' '$tmpdir/metrics.txt' && grep -q '^memwatch_process_private_bytes{' '$tmpdir/metrics.txt' && grep -q '^memwatch_collector_duration_seconds{collector=\"process\"}' '$tmpdir/metrics.txt' && grep -q '^memwatch_storage_up 1' '$tmpdir/metrics.txt'"
if command -v promtool >/dev/null; then
	check "metrics: promtool check metrics passes" sh -c "promtool check metrics <'$tmpdir/metrics.txt'"
else
	skip "promtool not installed"
fi

# --- page --------------------------------------------------------------------------
check "page: / is the embedded HTML" sh -c "curl -sf '$base/' | grep -q '<html'"
check "page: uPlot embedded" sh -c "curl -sf -o /dev/null '$base/uPlot.iife.min.js'"
check "page: app.js embedded" sh -c "curl -sf '$base/app.js' | grep -q 'api/v1/query'"

# --- keep-alive, methods, paths -----------------------------------------------------
keep_alive() {
	curl -s -o /dev/null -o /dev/null -w '%{num_connects}\n' "$base/healthz" "$base/api/v1/collectors" |
		awk '{ s += $1; n++ } END { if (s != 1 || n != 2) { print "connects " s " for " n " requests"; exit 1 } }'
}
check "keep-alive: two requests, one connection" keep_alive
check "unknown path is 404 JSON" expect_error 404 path "$base/api/v2/nothing"
check "path traversal is 404" expect_error 404 path "$base/../../etc/passwd" --path-as-is
check "encoded traversal is 404" expect_error 404 path "$base/%2e%2e/%2e%2e/etc/passwd" --path-as-is
check "POST is 405" expect_error 405 method "$base/api/v1/series" -X POST -d x=1
check "DELETE is 405" expect_error 405 method "$base/healthz" -X DELETE
check "HEAD is 200" sh -c "[ \"\$(curl -s -I -o /dev/null -w '%{http_code}' '$base/healthz')\" = 200 ]"

# --- hostile input -------------------------------------------------------------------
check "invalid UTF-8 is 400 naming the parameter" expect_error 400 "match: is not valid UTF-8" \
	"$base/api/v1/series?match=%C0%AF"
check "NUL byte is 400" expect_error 400 match "$base/api/v1/series?match=a%00b"
big=$(head -c 20000 /dev/zero | tr '\0' a)
check "oversized parameter is 413" expect_error 413 "too large" "$base/api/v1/series?match=$big"
check "oversized body is 413" expect_error 413 "too large" "$base/api/v1/series" -X POST --data-binary "@$tmpdir/x.csv" -H 'Content-Length: 50000000'
check "huge header is answered cleanly" sh -c \
	"code=\$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Big: $(head -c 100000 /dev/zero | tr '\0' b)' '$base/healthz'); case \$code in 413|431|414|400|000) exit 0;; *) echo \$code; exit 1;; esac"
check "garbage request line is answered cleanly" python3 - "$port" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 GARBAGE\r\n\r\n")
data = s.recv(4096)
assert data == b"" or data.startswith(b"HTTP/1.1 4"), data[:100]
PY
slow_and_many() {
	python3 - "$port" "$base" <<'PY'
import socket, sys, urllib.request
port = int(sys.argv[1])
# A slow client: half a request line, never finished.
slow = socket.create_connection(("127.0.0.1", port), timeout=5)
slow.sendall(b"GET /api/v1/collec")
# Others are still served while it dawdles.
assert urllib.request.urlopen(sys.argv[2] + "/healthz", timeout=5).status == 200
# Many connections: the per-IP limit (32) bounds them; the surplus is closed.
conns, served = [], 0
for i in range(80):
    try:
        conns.append(socket.create_connection(("127.0.0.1", port), timeout=5))
    except OSError:
        pass
for c in conns:
    try:
        c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        if c.recv(64).startswith(b"HTTP/1.1 200"):
            served += 1
    except OSError:
        pass
for c in conns:
    c.close()
slow.close()
assert 1 <= served <= 32, served
print("served", served, "of", len(conns))
PY
}
check "slow client and 80 connections: bounded, others served" slow_and_many
check "daemon still serves after the hostile input" wait_ready "$base/healthz"
still_sampling() {
	local a b i
	a=$(curl -sf "$base/api/v1/series?match=memwatch_system_available_bytes" | js 'print(d["series"][0]["last_ts"])' | head -1)
	for i in $(seq 1 50); do
		b=$(curl -sf "$base/api/v1/series?match=memwatch_system_available_bytes" | js 'print(d["series"][0]["last_ts"])' | head -1)
		[ -n "$a" ] && [ -n "$b" ] && [ "$b" -gt "$a" ] && return 0
		sleep 0.1
	done
	echo "last_ts stayed $a"
	return 1
}
check "daemon still sampling after the hostile input" still_sampling

# --- the token -----------------------------------------------------------------------
tport=$(free_port)
printf '[web]\ntoken = s3cret-token\n' >"$tmpdir/token.ini"
mw_start token --config "$tmpdir/token.ini" --listen "127.0.0.1:$tport" --db "$tmpdir/t.db" \
	--interval 100ms --set storage.flush_interval=200ms
token_pid=$mw_pid
tbase=http://127.0.0.1:$tport
check "token daemon answers /healthz without the token" wait_ready "$tbase/healthz"
check "token: API without it is 401" expect_error 401 token "$tbase/api/v1/collectors"
check "token: wrong token is 401" expect_error 401 token "$tbase/api/v1/series" -H 'Authorization: Bearer nope'
check "token: /metrics without it is 401" expect_error 401 token "$tbase/metrics"
check "token: page without it is 401" expect_error 401 token "$tbase/"
check "token: with it, 200" sh -c \
	"[ \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer s3cret-token' '$tbase/api/v1/collectors')\" = 200 ]"
check "token daemon stops with status 0" mw_stop "$token_pid"

check "SIGTERM stops the daemon with status 0" mw_stop "$main_pid"
finish
