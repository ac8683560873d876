#!/usr/bin/env bash
# page_select.sh DAEMON - the page follows the user's choice: a headless
# Chromium driven over its DevTools protocol (tests/api/page_select.js,
# node 20+ with --experimental-websocket) clicks a row of the Leaks panel,
# a row of the process table, the leak again, then opens the page's own URL
# afresh; after each step every panel (chart, heap breakdown, working set
# over time, diff, address-space map) must ask for and name the chosen
# process, and the URL must carry it.  Chromium runs in a time zone that is
# not UTC: the times the page shows (chart legend and axis ticks, the leak's
# "since", the diff, the map) must be UTC, "YYYY-MM-DD HH:MM:SS UTC" ("HH:MM
# UTC" on axis ticks, with the date where it changes).  Data: two watched
# processes and a flat one of tests/api/page_fixture.py (--two) behind its
# stand-in proxy.  Screenshot build/page-select.png.  Skips without chromium
# or node.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need_devtools
# A long interval: the fixture's processes stay live in the process table
# (live = sampled within three intervals of the newest sample).
fixture_serve "fixture of two watched processes imported" 30s --two
TZ=Asia/Kolkata devtools_chrome --lang=en-US
devtools_drive "leak row, table row and leak row clicked, page opened again, over DevTools" 90 page_select.js \
	"http://127.0.0.1:$pport/" page-select.png
steps() {	# steps STEP PID NAME OTHER_PID
	python3 - "$tmpdir/steps.json" "$@" <<'PY'
import json, re, sys
s = {d["step"]: d["v"] for d in map(json.loads, open(sys.argv[1]))}
step, pid, name, other = sys.argv[2:6]
v = s.get(step)
assert isinstance(v, dict), v
bad = []
for k in ("chart", "breakdown", "ws", "diff", "vm", "regions"):
    if not v[k] or not re.search(r'pid="?%s\b' % pid, v[k]) or re.search(r'pid="?%s\b' % other, v[k]):
        bad.append("%s asked %r" % (k, v[k]))
for k in ("chart_title", "breakdown_title", "ws_title", "diff_title", "map_title"):
    if not v[k] or name not in v[k] or not re.search(r'\bpid %s\b' % pid, v[k]):
        bad.append("%s is %r" % (k, v[k]))
if step != "open" and not re.search(r'[#&?]pid=%s(&|$)' % pid, v["url"]):
    bad.append("URL %r lacks pid=%s" % (v["url"], pid))
if v["leak_selected"] != [name]:
    bad.append("leak rows marked: %r" % v["leak_selected"])
if v["table_selected"] != [pid]:
    bad.append("table rows marked: %r" % v["table_selected"])
assert not bad, "\n".join(bad)
print(step, "all panels on", name, pid)
PY
}
check "opened on the worst leak: every panel on bloat.exe (5151)" steps open 5151 bloat.exe 4242
check "leak row leaky.exe clicked: every panel on pid 4242, URL too" steps leak 4242 leaky.exe 5151
check "table row 5151 clicked: every panel on bloat.exe, URL too" steps table 5151 bloat.exe 4242
check "leak row leaky.exe clicked again: every panel on pid 4242" steps leak2 4242 leaky.exe 5151
check "the page's URL opened afresh keeps leaky.exe on every panel" steps reload 4242 leaky.exe 5151
times() {
	python3 - "$tmpdir/steps.json" <<'PY'
import json, re, sys
s = {d["step"]: d["v"] for d in map(json.loads, open(sys.argv[1]))}
t = s.get("times")
assert isinstance(t, dict), t
UTC = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
bad = []
if t["tz"] in ("UTC", "Etc/UTC"):
    bad.append("the browser runs in UTC: the test proves nothing")
for p in ("chart", "ws"):
    x = t[p]
    if not x or not x["iso"]:
        bad.append("%s: no plot or no cursor: %r" % (p, x))
        continue
    want = x["iso"][:10] + " " + x["iso"][11:19] + " UTC"
    if x["shown"] != want:
        bad.append("%s legend shows %r for %s (want %r)" % (p, x["shown"], x["iso"], want))
    ticks = [v for v in x["ticks"] or [] if v]
    if not ticks or not all(re.fullmatch(r"\d\d:\d\d(:\d\d)? UTC(\n\d{4}-\d\d-\d\d)?|\d{4}-\d\d-\d\d", v) for v in ticks):
        bad.append("%s axis ticks %r" % (p, ticks))
    elif "\n" not in ticks[0]:
        bad.append("%s axis: no date under the first tick %r" % (p, ticks))
# leaky.exe ran two hours before its data: its leak was under way "before" its first point
if not re.fullmatch("before " + UTC + r" \(.* ago\)", t["since"] or ""):
    bad.append("leak since %r" % t["since"])
if not re.search(UTC + " – " + UTC, t["leaks_summary"]):
    bad.append("leaks summary %r" % t["leaks_summary"])
if not re.search("snapped to %s and %s" % (UTC, UTC), t["diff"]):
    bad.append("diff summary %r" % t["diff"])
if not re.search(" at " + UTC, t["map"]):
    bad.append("map title %r" % t["map"])
if not re.match("T1 %s, T2 %s" % (UTC, UTC), t["hint"]):
    bad.append("picks %r" % t["hint"])
if re.search(r"\b(AM|PM)\b", json.dumps(t)):
    bad.append("AM/PM shown")
assert not bad, "\n".join(bad)
print("browser in", t["tz"], "; legend", t["chart"]["shown"], "; ticks", t["chart"]["ticks"][:3])
PY
}
check "times shown in UTC in one format (browser in Asia/Kolkata)" times
check "the page's 'map' link scrolls and keeps pid=4242 in the URL" python3 -c '
import json, re, sys
s = {d["step"]: d["v"] for d in map(json.loads, open(sys.argv[1]))}
assert re.search(r"[#&]pid=4242(&|$)", s.get("nav") or ""), s.get("nav")' "$tmpdir/steps.json"
check "daemon stops with status 0" mw_stop "$main_pid"
finish
