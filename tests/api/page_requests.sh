#!/usr/bin/env bash
# page_requests.sh DAEMON - switching the page to 7 days asks for little
# (issue 26: it made one request per leak row for the sparklines, 53 with
# 50 rows): a headless Chromium (tests/api/page_requests.js over DevTools)
# opens the page on the fixture of tests/api/page_fixture.py (--two: two
# leak rows with a series), switches the range to 7 days and counts
# the page's fetches until all have answered and every leak row has its
# sparkline again: the sparklines come in one request (match= repeated),
# at most 10 requests in all.  Skips without chromium or node.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need_devtools
fixture_serve "fixture of two watched processes imported" 30s --two
devtools_chrome --lang=en-US
devtools_drive "7-day switch counted over DevTools" 90 page_requests.js \
	"http://127.0.0.1:$pport/" page-requests.png
switch() {	# switch EXPR: EXPR over the counted switch (v)
	python3 - "$tmpdir/steps.json" "$1" <<'PY'
import json, sys
s = {d["step"]: d["v"] for d in map(json.loads, open(sys.argv[1]))}
v = s.get("switch")
ok = isinstance(v, dict) and eval(sys.argv[2], {"v": v})
sys.exit(0 if ok else print(json.dumps(v, indent=1)) or 1)
PY
}
check "every leak row has its sparkline again" switch 'v["rows"] >= 2 and v["drawn"] == v["rows"] and v["open"] == 0'
check "the sparklines come in one request" switch \
	'sum(1 for c in v["calls"] if "max_points=60" in c) == 1 and [c.count("match=") for c in v["calls"] if "max_points=60" in c] == [v["rows"]]'
check "at most 10 requests in all" switch 'len(v["calls"]) <= 10'
# A figure for the record (no timing threshold): requests and time taken.
python3 -c 'import json,sys
v = [d["v"] for d in map(json.loads, open(sys.argv[1])) if d["step"] == "switch"][0]
print("# 7-day switch: %d requests, last answer after %s ms" % (len(v["calls"]), v.get("ms")))' "$tmpdir/steps.json" 2>/dev/null
check "the daemon stops cleanly" mw_stop "$main_pid"

finish
