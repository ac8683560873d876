#!/usr/bin/env bash
# chromium.sh DAEMON - headless Chromium (Debian's `chromium`) opens the
# embedded page of a running memwatchd, and the DOM after the scripts ran
# must hold a chart canvas drawn from live data and a process table with
# rows; a screenshot is saved as build/page.png.  Skips when chromium is
# not installed.  Loopback only; Chromium's background networking is off.
#
# The MemDiff and address-space panels are checked on a watched process
# imported from tests/api/page_fixture.py (pid 4242, leaky.exe), behind that
# script's proxy, which answers /api/v1/diff and /api/v1/regions (stand-ins
# of the documented shapes) and passes the rest to the daemon: the stacked
# working-set chart, the diff rows, the map blocks, the largest free block,
# and no horizontal overflow at 1280 and 800 px (the page's
# data-overflow-x attribute); screenshots build/page-diff.png,
# build/page-map.png.  The same page straight from the daemon must say the
# endpoints are missing without breaking.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

if [ -z "$chrome" ] || ! command -v curl >/dev/null || ! command -v python3 >/dev/null; then
	skip "chromium (or curl, python3) not installed"
	finish
	exit 0
fi

fixture=$here/page_fixture.py
check "fixture of a watched process imported" sh -c \
	'python3 "$1" export "$2/fixture.json" && "$3" import --db "$2/x.db" "$2/fixture.json"' sh "$fixture" "$tmpdir" "$daemon"
mw_serve x --interval 100ms \
	--set storage.flush_interval=200ms
main_pid=$mw_pid
check "daemon ready" wait_ready "$base/healthz"
check "daemon has data" wait_data "$base"
# The chart wants a few points and the table a process row.
has_points() {
	local i
	for i in $(seq 1 100); do
		curl -sf "$base/api/v1/query?match=memwatch_system_available_bytes&from=-1m&step=raw" |
			python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if sum(v is not None for v in d["series"][0]["values"])>=3 else 1)' 2>/dev/null &&
			return 0
		sleep 0.1
	done
	return 1
}
check "at least three points to draw" has_points

if run_chrome --dump-dom "$base/" >"$tmpdir/dom.html"; then
	ok "dump the DOM after the page's scripts ran"
else
	not_ok "dump the DOM after the page's scripts ran"
	tail -5 "$tmpdir/chrome.log" | sed 's/^/#   /'
fi
dom_check() {
	python3 - "${2:-$tmpdir/dom.html}" "$1" "${3:-0}" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
what = sys.argv[2]
if what == "canvas":
    # uPlot draws into a canvas inside #chart, with a legend of its series.
    m = re.search(r'<div id="chart".*?</section>', dom, re.S)
    assert m and "<canvas" in m.group(0), "no canvas in #chart"
    assert "available_bytes" in m.group(0), "legend lacks the series"
elif what == "rows":
    body = re.search(r'<table id="processes".*?<tbody>(.*?)</tbody>', dom, re.S)
    rows = re.findall(r"<tr", body.group(1) if body else "")
    assert len(rows) >= 1, "process table empty"
    print(len(rows), "rows")
elif what == "leaks":
    # The Leaks panel comes first and shows its table or a message.
    m = re.search(r'<section id="leaks".*?</section>', dom, re.S)
    assert m, "no #leaks section"
    assert dom.index('id="leaks"') < dom.index('id="chart"'), "leaks panel is not first"
    msg = re.search(r'id="leaks-msg"[^>]*>([^<]*)<', m.group(0))
    table_shown = re.search(r'<table id="leaks-table"(?![^>]*hidden)', m.group(0))
    assert table_shown or (msg and msg.group(1).strip() and "loading" not in msg.group(1)), "leaks panel shows nothing"
    print(msg.group(1) if msg else "table")
elif what == "count":
    m = re.search(r'id="proc-count"[^>]*>([\d,]+) processes', dom)
    assert m, "no true count in #proc-count"
    n = int(m.group(1).replace(",", ""))
    total = int(sys.argv[3])
    rows = len(re.findall(r"<tr", re.search(r'<table id="processes".*?<tbody>(.*?)</tbody>', dom, re.S).group(1)))
    assert abs(n - total) <= max(10, total // 5) and n >= rows, (n, total, rows)
    print(n, "processes, API says", total)
elif what == "points":
    m = re.search(r'id="chart-msg"[^>]*>(\d+) points', dom)
    assert m and int(m.group(1)) >= 1, "chart message lacks points"
PY
}
check "chart canvas drawn in #chart" dom_check canvas
check "chart drawn from live data points" dom_check points
check "process table has rows" dom_check rows
check "Leaks panel (#leaks) first, with a table or a clear message" dom_check leaks
total=$(curl -sf "$base/api/v1/processes?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["total"])')
check "process table shows the true count of live processes" dom_check count "$tmpdir/dom.html" "${total:-0}"

# --- MemDiff and the address-space map, through the stand-in proxy ---------
pport=$(free_port)
proxy=http://127.0.0.1:$pport
PROXY_LOG=$tmpdir/proxy.req python3 "$fixture" proxy "$pport" "$port" 2>"$tmpdir/proxy.log" &
proxy_pid=$!
pids+=("$proxy_pid")
check "stand-in proxy ready" wait_ready "$proxy/healthz"
dump() {	# dump WIDTH URL FILE
	local w=$1
	shift
	run_chrome_w "$w" --dump-dom "$1" >"$2"
}
run_chrome_w() {
	local w=$1
	shift
	run_chrome --window-size="$w,900" "$@"
}
map_check() {
	python3 - "$1" "$2" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
what = sys.argv[2]
def section(sid):
    m = re.search(r'<section id="%s".*?</section>' % sid, dom, re.S)
    assert m, "no #" + sid
    return m.group(0)
def attr(name):
    m = re.search(r'<html[^>]*\s%s="([^"]*)"' % name, dom)
    return m.group(1) if m else None
if what == "overflow":
    v = attr("data-overflow-x")
    assert v is not None, "page did not set data-overflow-x"
    assert v == "0", "page overflows horizontally by %s px" % v
    inner = attr("data-inner-overflow")
    print("overflow 0; sections scrolling inside:", repr(inner))
elif what == "stacked":
    s = section("ws-section")
    m = re.search(r'<div id="ws-chart"[^>]*data-drawn="(\d+)"', s)
    assert m and int(m.group(1)) >= 2, "stacked chart not drawn (data-drawn)"
    assert "<canvas" in s, "no canvas in #ws-chart"
    for c in ("heap", "image", "private data"):
        assert c in s, "legend lacks " + c
    print(m.group(1), "categories stacked")
elif what == "diff":
    s = section("ws-section")
    utc = r'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC'
    assert re.search(r'snapped to %s and %s' % (utc, utc), s), "no snapped times (UTC)"
    tot = re.search(r'<table id="diff-totals".*?</table>', s, re.S)
    assert tot and len(re.findall(r"<tr", tot.group(0))) >= 8, "totals table lacks categories"
    body = re.search(r'<table id="diff-regions".*?<tbody>(.*?)</tbody>', s, re.S)
    rows = re.findall(r"<tr", body.group(1) if body else "")
    assert len(rows) >= 3, "diff regions: %d rows" % len(rows)
    badges = re.findall(r'class="badge ch-(new|gone|grown|shrunk)"', body.group(1))
    assert len(badges) == len(rows), "rows without a change badge"
    assert "0x020e50000000" in body.group(1), "base address missing"
    print(len(rows), "diff rows", sorted(set(badges)))
elif what == "map":
    s = section("map-section")
    m = re.search(r'id="addrmap-inner"[^>]*data-blocks="(\d+)"[^>]*data-gaps="(\d+)"', s) or \
        re.search(r'data-blocks="(\d+)"[^>]*data-gaps="(\d+)"', s)
    assert m, "no map blocks"
    blocks = len(re.findall(r'<div class="blk', s))
    assert blocks >= 10 and blocks == int(m.group(1)), (blocks, m.group(1))
    lf = re.search(r'id="largest-free"[^>]*><b>([^<]+)</b>', s)
    assert lf and "TiB" in lf.group(1), "largest free block figure missing"
    fr = re.search(r'id="fragmentation"[^>]*><b>([\d.]+ %)</b>', s)
    assert fr, "fragmentation figure missing"
    print(blocks, "blocks,", m.group(2), "gaps; largest free", lf.group(1), "fragmentation", fr.group(1))
elif what == "missing":
    # Straight from a daemon without the endpoints: clear messages, the rest drawn.
    d = re.search(r'id="diff-error"[^>]*>([^<]*)<', dom)
    r = re.search(r'id="map-error"[^>]*>([^<]*)<', dom)
    assert d and ("no /api/v1/diff endpoint" in d.group(1) or "No diff" in d.group(1)), "no diff message"
    assert r and ("no /api/v1/regions endpoint" in r.group(1) or "No region map" in r.group(1)), "no map message"
    assert re.search(r'id="largest-free"', dom), "vm totals not drawn"
    print(d.group(1)); print(r.group(1))
elif what == "nosnap":
    d = re.search(r'id="diff-error"[^>]*>([^<]*)<', dom)
    assert d and d.group(1).startswith("No diff: no region snapshots"), "no 404 message"
    print(d.group(1))
PY
}
for w in 1280 800; do
	if dump "$w" "$proxy/#pid=4242" "$tmpdir/map$w.html"; then
		ok "$w px: dump the page of the watched process"
	else
		not_ok "$w px: dump the page of the watched process"
	fi
	check "$w px: nothing overflows horizontally" map_check "$tmpdir/map$w.html" overflow
done
check "working set over time drawn stacked by category" map_check "$tmpdir/map1280.html" stacked
check "diff: snapped times, totals and changed regions with badges" map_check "$tmpdir/map1280.html" diff
check "map: region blocks, largest free block and fragmentation" map_check "$tmpdir/map1280.html" map
check "page asked /api/v1/diff and /api/v1/regions for pid 4242" \
	sh -c 'grep -q "^/api/v1/diff?pid=4242&from=[0-9]*&to=[0-9]*&limit=50$" "$1" && grep -q "^/api/v1/regions?pid=4242&at=[0-9]*$" "$1"' sh "$tmpdir/proxy.req"
dump 1280 "$proxy/#pid=999&t1=1000&t2=2000" "$tmpdir/nosnap.html"
check "diff 404 (no snapshots) shown as a message" map_check "$tmpdir/nosnap.html" nosnap
dump 1280 "$base/#pid=4242" "$tmpdir/missing.html"
check "daemon without the endpoints: clear messages, page intact" map_check "$tmpdir/missing.html" missing
check "1280 px: plain page does not overflow" map_check "$tmpdir/dom.html" overflow
dump 800 "$base/" "$tmpdir/plain800.html"
check "800 px: plain page does not overflow" map_check "$tmpdir/plain800.html" overflow

mkdir -p "$root/build"
pshot() {	# pshot WIDTH HEIGHT URL FILE
	rm -f "$4"
	(cd "$tmpdir" && run_chrome --window-size="$1,$2" --screenshot="$4" "$3") >/dev/null &&
		[ -s "$4" ]
}
check "screenshot build/page-diff.png" pshot 1280 1100 "$proxy/#pid=4242&show=diff" "$root/build/page-diff.png"
check "screenshot build/page-map.png" pshot 1280 700 "$proxy/#pid=4242&show=map" "$root/build/page-map.png"
check "screenshot build/page-map-800.png" pshot 800 800 "$proxy/#pid=4242&show=map" "$root/build/page-map-800.png"
stop_proxy() {	# by its PID; it was started by this shell, so wait reaps it
	kill -TERM "$proxy_pid" || return 1
	wait "$proxy_pid" 2>/dev/null
	! kill -0 "$proxy_pid" 2>/dev/null
}
check "stand-in proxy stopped" stop_proxy

shot() {
	(cd "$tmpdir" && run_chrome --screenshot="$root/build/page.png" "$base/") >/dev/null &&
		[ -s "$root/build/page.png" ] &&
		python3 -c 'import sys; sys.exit(0 if open(sys.argv[1],"rb").read(8)==b"\x89PNG\r\n\x1a\n" else 1)' "$root/build/page.png"
}
rm -f "$root/build/page.png"
check "screenshot saved as build/page.png" shot
check "daemon stops with status 0" mw_stop "$main_pid"
finish
