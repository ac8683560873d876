#!/usr/bin/env bash
# chromium.sh DAEMON - headless Chromium (Debian's `chromium`) opens the
# embedded page of a running memwatchd, and the DOM after the scripts ran
# must hold a chart canvas drawn from live data and a process table with
# rows; a screenshot is saved as build/page.png.  Skips when chromium is
# not installed.  Loopback only; Chromium's background networking is off.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
daemon=$(cd "$(dirname "${1:?usage: chromium.sh DAEMON}")" && pwd)/$(basename "$1")
. "$here/lib.sh"

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ] || ! command -v curl >/dev/null || ! command -v python3 >/dev/null; then
	skip "chromium (or curl, python3) not installed"
	finish
	exit 0
fi

port=$(free_port)
base=http://127.0.0.1:$port
mw_start main --listen "127.0.0.1:$port" --db "$tmpdir/x.db" --interval 100ms \
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

flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--disable-extensions --disable-default-apps --hide-scrollbars
	--window-size=1280,900 --virtual-time-budget=8000)
run_chrome() {
	timeout 40 "$chrome" "${flags[@]}" --user-data-dir="$(mktemp -d "$tmpdir/chrome.XXXXXX")" "$@" 2>>"$tmpdir/chrome.log"
}
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

mkdir -p "$root/build"
shot() {
	(cd "$tmpdir" && run_chrome --screenshot="$root/build/page.png" "$base/") >/dev/null &&
		[ -s "$root/build/page.png" ] &&
		python3 -c 'import sys; sys.exit(0 if open(sys.argv[1],"rb").read(8)==b"\x89PNG\r\n\x1a\n" else 1)' "$root/build/page.png"
}
rm -f "$root/build/page.png"
check "screenshot saved as build/page.png" shot
check "daemon stops with status 0" mw_stop "$main_pid"
finish
