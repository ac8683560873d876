#!/usr/bin/env bash
# export.sh DAEMON - `memwatchd export` beside a running daemon writing the
# same database, its input errors, a round trip through `memwatchd import`,
# and GET /api/v1/export up to now having every point taken before the
# request (not only the last periodic flush).  TAP output; bounded (< 60 s).
#
#   tests/api/export.sh build/native/memwatchd
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need curl python3

# A flush interval longer than this script: after the first data (flushed
# at once), everything the daemon samples stays in its writer's memory
# unless something asks for a flush.
mw_serve_data x --interval 100ms --set storage.flush_interval=120s

# cli_exit WANT ARGS...: `memwatchd ARGS` exits WANT; stdout to $tmpdir/out,
# stderr to $tmpdir/err.
cli_exit() {
	local want=$1 rc
	shift
	"$daemon" "$@" >"$tmpdir/out" 2>"$tmpdir/err"
	rc=$?
	[ "$rc" -eq "$want" ] || { echo "exit $rc, want $want"; head -c 600 "$tmpdir/err"; return 1; }
}
# cli_error NEEDLE ARGS...: exit 2 and NEEDLE in the message, nothing on stdout.
cli_error() {
	local needle=$1
	shift
	cli_exit 2 "$@" || return 1
	grep -qF -- "$needle" "$tmpdir/err" || { echo "no '$needle' in: $(cat "$tmpdir/err")"; return 1; }
	[ ! -s "$tmpdir/out" ] || { echo "stdout not empty"; return 1; }
}

# --- GET /api/v1/export up to now: the points not flushed yet too -----------------
# Wait (bounded) until the daemon has sampled for 3 s past its only flush
# (of its first batch), then the newest exported point must be from the
# last moments before the request.  Before any flush of its own the
# system series is not even in the file.
sampled_for() {
	local i
	for i in $(seq 1 100); do
		curl -sf --max-time 2 "$base/healthz" | js 'd["uptime_s"] >= 3' >/dev/null && return 0
		sleep 0.1
	done
	return 1
}
check "the daemon has sampled for 3 s" sampled_for
to_now() {
	local t0
	t0=$(python3 -c 'import time; print(int(time.time()*1000))')
	curl -sf --max-time 10 -D "$tmpdir/h" \
		"$base/api/v1/export?match=memwatch_system_available_bytes&format=json&from=-1h&to=now" |
		python3 -c "import json,sys
d=json.load(sys.stdin); p=d['series'][0]['points']; t0=$t0
assert p[-1][0] >= t0 - 1500, ('newest point %d ms before the request' % (t0 - p[-1][0]), len(p))
assert d['complete_to_ms'] >= t0, (d['complete_to_ms'], t0)
assert len(p) >= 20, len(p)" &&
		tr -d '\r' <"$tmpdir/h" | grep -qi '^X-Complete-To-Ms: [0-9]'
}
check "export to now: every point taken before the request, complete_to_ms" to_now

# --- the command beside the running daemon (what it flushed for the above) -----
export_json_live() {
	cli_exit 0 export --db "$db" --match memwatch_system_available_bytes --format json &&
		kill -0 "$main_pid" &&
		js 'len(d["series"])==1 and len(d["series"][0]["points"])>=1 and d["complete_to_ms"]>0' <"$tmpdir/out"
}
check "export --format json beside the running daemon: exit 0, points" export_json_live
export_csv_live() {
	cli_exit 0 export --db "$db" --match '{__name__=~"memwatch_system_.*"}' --from -1h &&
		cp "$tmpdir/out" "$tmpdir/live.csv" &&
		python3 - "$tmpdir/live.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0][0] == "(PDH-CSV 4.0) (UTC)(0)", rows[0]
assert len(rows[0]) >= 4 and all(c.startswith("memwatch_system_") for c in rows[0][1:]), rows[0]
assert len(rows) >= 2 and all(len(r) == len(rows[0]) for r in rows), "ragged"
assert open(sys.argv[1], "rb").read().count(b"\r\r") == 0
PY
}
check "export (CSV, the default) beside the running daemon: typeperf's shape" export_csv_live
check "the daemon is still running and answering" wait_ready "$base/healthz"

# the same content as GET /api/v1/export for the same range and selector
same_as_api() {
	local q='match=memwatch_system_available_bytes&from=1000&to=4102444800000&format=json'
	cli_exit 0 export --db "$db" --match memwatch_system_available_bytes --from 1000 \
		--to 2100-01-01T00:00:00Z --format json &&
		curl -sf --max-time 10 "$base/api/v1/export?$q" >"$tmpdir/api.json" &&
		python3 - "$tmpdir/out" "$tmpdir/api.json" <<'PY'
import json, sys
cli, api = (json.load(open(p)) for p in sys.argv[1:])
assert set(cli) == set(api) == {"complete_to_ms", "series"}, (set(cli), set(api))
c, a = cli["series"][0], api["series"][0]
assert {k: v for k, v in c.items() if k != "points"} == {k: v for k, v in a.items() if k != "points"}
# the API flushed first: the command's points are a prefix of the API's
assert a["points"][:len(c["points"])] == c["points"] and len(c["points"]) >= 1
PY
}
check "export --format json: the shape of GET /api/v1/export" same_as_api

# --- input errors: exit 2 naming what was wrong ---------------------------------
check "no such database: exit 2 naming --db" cli_error "--db" export --db "$tmpdir/nope.db"
check "a bad selector: exit 2 naming --match" cli_error "--match" export --db "$db" --match 'x{'
check "a selector matching nothing: exit 2 naming --match" cli_error "--match" \
	export --db "$db" --match memwatch_nothing_here
check "a bad time: exit 2 naming --from" cli_error "--from" export --db "$db" --from yesterday
check "a bad time: exit 2 naming --to" cli_error "--to" export --db "$db" --to 12:00
check "--to before --from: exit 2" cli_error "--to" export --db "$db" --from -1h --to -2h
check "a bad format: exit 2 naming --format" cli_error "--format" export --db "$db" --format xml
check "an unknown option: exit 2" cli_error "unknown option" export --db "$db" --frobnicate
check "export --help: exit 0" cli_exit 0 export --help
check "memwatchd --help lists export" sh -c "'$daemon' --help | grep -q '^  export '"

# --- what the command writes, import reads back ----------------------------------
roundtrip() {
	local fmt=$1 db2=$tmpdir/back-$1.db
	cli_exit 0 export --db "$db" --match '{__name__=~"memwatch_system_.*"}' --to now \
		--format "$fmt" || return 1
	cp "$tmpdir/out" "$tmpdir/rt.$fmt"
	cli_exit 0 import --db "$db2" "$tmpdir/rt.$fmt" || return 1
	cli_exit 0 export --db "$db2" --format "$fmt" || return 1
	if [ "$fmt" = csv ]; then
		cmp "$tmpdir/out" "$tmpdir/rt.$fmt"
		return
	fi
	# ids differ between the files, and only a daemon's file has a mark
	python3 - "$tmpdir/out" "$tmpdir/rt.$fmt" <<'PY'
import json, sys
da, db = (json.load(open(p)) for p in sys.argv[1:])
strip = lambda d: [(s["name"], s["labels"], s["points"]) for s in d["series"]]
assert len(da["series"]) >= 3 and strip(da) == strip(db), "points differ after the round trip"
PY
}
check "export CSV -> import -> export: the same CSV" roundtrip csv
check "export JSON -> import -> export: the same series and points" roundtrip json
# importing the same files again, and the other format of the same points:
# nothing is added (the file's export does not change)
reimport() {
	local db2=$tmpdir/back-json.db
	cli_exit 0 export --db "$db2" --format json || return 1
	cp "$tmpdir/out" "$tmpdir/before.json"
	cli_exit 0 import --db "$db2" "$tmpdir/rt.json" "$tmpdir/rt.csv" || return 1
	grep -q "points already stored" "$tmpdir/out" || { echo "no count of stored points"; cat "$tmpdir/out"; return 1; }
	cli_exit 0 export --db "$db2" --format json || return 1
	cmp "$tmpdir/out" "$tmpdir/before.json"
}
check "import the same points again (JSON and CSV): nothing added" reimport

check "daemon stops cleanly" mw_stop "$main_pid"

# --- beside a daemon that writes all the time ------------------------------------
mw_serve busy --interval 100ms --set storage.flush_interval=100ms
busy_pid=$mw_pid
busy_db=$tmpdir/busy.db
check "a second daemon flushing every 100 ms" wait_data "$base"
# five exports while it commits a flush every 100 ms: each one complete and
# valid, and each sees at least the points the one before saw
exports_while_writing() {
	local i last=0 got
	for i in 1 2 3 4 5; do
		cli_exit 0 export --db "$busy_db" --format json || return 1
		got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
print(sum(len(s["points"]) for s in d["series"]))' "$tmpdir/out") || return 1
		[ "$got" -ge "$last" ] && [ "$got" -gt 0 ] || { echo "export $i: $got points after $last"; return 1; }
		last=$got
	done
	kill -0 "$busy_pid"
}
check "export x5 while the daemon writes: exit 0, valid JSON, points only grow" exports_while_writing
check "second daemon stops cleanly" mw_stop "$busy_pid"
finish
