#!/usr/bin/env bash
# query_multi.sh DAEMON - /api/v1/query with match= repeated (issue 26: the
# page asks for every sparkline in one request): the union of the
# selectors' series in the order asked, on one time axis, each series
# once, the same values as one request per series; one match= still
# answers as before; an empty or bad match among several is a 400 naming
# match.  Loopback, temp database; the daemon is ours, stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need curl python3

getj() {
	curl -sf --max-time 10 "$base$1" | js "$2"
}

mw_serve_data multi --interval 100ms --set storage.flush_interval=200ms

avail=memwatch_system_available_bytes
priv="memwatch_process_private_bytes%7Bpid%3D%22$main_pid%22%7D"
now_ms=$(($(date +%s) * 1000))
range="from=$((now_ms - 600000))&to=$((now_ms + 60000))&step=10s"
# both series stored (the process collector's first flush may come later)
both_stored() {
	curl -sf --max-time 2 "$base/api/v1/query?match=$priv&$range" >/dev/null &&
		curl -sf --max-time 2 "$base/api/v1/query?match=$avail&$range" >/dev/null
}
check "this daemon's private bytes and available bytes are stored" wait_until 15 both_stored

check "two selectors: both series, in the order asked, one axis" getj \
	"/api/v1/query?match=$priv&match=$avail&$range" \
	'len(d["series"])==2 and d["series"][0]["name"]=="memwatch_process_private_bytes" and d["series"][1]["name"]=="memwatch_system_available_bytes" and all(len(s["values"])==len(d["t"]) for s in d["series"])'
check "a series matched twice is answered once" getj \
	"/api/v1/query?match=$avail&match=$avail&$range" 'len(d["series"])==1'
# The same values as one request per series (same step and range).  A
# flush between the requests may change the newest bucket, so the three
# are asked again until they were read between two flushes (bounded).
same_as_one_by_one() {
	curl -sf "$base/api/v1/query?match=$priv&match=$avail&$range" >"$tmpdir/both.json" &&
		curl -sf "$base/api/v1/query?match=$priv&$range" >"$tmpdir/a.json" &&
		curl -sf "$base/api/v1/query?match=$avail&$range" >"$tmpdir/b.json" &&
		python3 -c '
import json, sys
both, a, b = (json.load(open(f)) for f in sys.argv[1:4])
ok = both["t"] == a["t"] == b["t"] and any(v is not None for v in a["series"][0]["values"])
ok = ok and both["series"][0]["values"] == a["series"][0]["values"]
ok = ok and both["series"][1]["values"] == b["series"][0]["values"]
sys.exit(0 if ok else 1)' "$tmpdir/both.json" "$tmpdir/a.json" "$tmpdir/b.json"
}
check "values equal one request per series" wait_until 15 same_as_one_by_one
check "one match= answers as before" getj "/api/v1/query?match=$avail&$range" \
	'len(d["series"])==1 and d["series"][0]["name"]=="memwatch_system_available_bytes"'
check "an empty match among several is 400 naming match" expect_error 400 match \
	"$base/api/v1/query?match=$avail&match="
check "a bad selector among several is 400 naming match" expect_error 400 match \
	"$base/api/v1/query?match=$avail&match=memwatch_x%7Bpid%3D"
check "nothing matched by any is 404" expect_error 404 match \
	"$base/api/v1/query?match=memwatch_nothing&match=memwatch_none_either"
check "it stops cleanly" mw_stop "$main_pid"

finish
