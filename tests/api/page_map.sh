#!/usr/bin/env bash
# page_map.sh DAEMON - the MemDiff picks by mouse: a headless Chromium driven
# over its DevTools protocol (tests/api/page_click.js, node 20+ with
# --experimental-websocket) clicks the working-set chart twice and drags
# across it; each must move T1/T2 and fetch a new diff.  Data: the watched
# process of tests/api/page_fixture.py behind its stand-in proxy.  Screenshot
# build/page-diff-clicked.png.  Skips without chromium or node.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need_devtools
fixture_serve "fixture imported" 1s
devtools_chrome
devtools_drive "chart clicked and dragged over DevTools" 60 page_click.js \
	"http://127.0.0.1:$pport/#pid=4242&show=diff" page-diff-clicked.png
steps() {
	python3 - "$tmpdir/steps.json" <<'PY'
import json, sys
s = {d["step"]: d["v"] for d in map(json.loads, open(sys.argv[1]))}
assert s["defaults"][0] and s["defaults"][1] and s["defaults"][2] >= 3, s["defaults"]
assert s["click1"][0] and s["click1"][1] is None and "click again for T2" in s["click1"][2], s["click1"]
assert s["click2"][0] == s["click1"][0] and s["click2"][1] and "snapped to" in s["click2"][2], s["click2"]
assert s["drag"][:2] != s["click2"][:2] and "snapped to" in s["drag"][2], s["drag"]
assert s["drag"][4] == 0, "drag left a selection (or zoomed)"
for k in ("click1", "click2", "drag"):
    print(k, s[k][:3])
PY
}
check "click sets T1, second click T2 and a diff; a drag sets both" steps
check "daemon stops with status 0" mw_stop "$main_pid"
finish
