#!/usr/bin/env bash
# diff_linux.sh - MemDiff end to end on Linux: the daemon watches
# tests/helpers/wsdemo_linux, which loads libz, maps a file, starts
# threads, grows its heap and makes shared memory between two moments;
# GET /api/v1/diff and `memwatchd diff` between them show each change with
# the right category and owner, from the region snapshots the daemon
# stored.  Everything started here is stopped by PID.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
helper_test wsdemo_linux

mw_serve d --watch "$hpid" --interval 200ms \
	--set collector.workingset.interval=200ms --set storage.flush_interval=200ms
dpid=$mw_pid

# latest_snapshot: the time of the newest stored snapshot of the helper
latest_snapshot() {
	curl -s -m 5 "$base/api/v1/regions?pid=$hpid" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["t_ms"])' 2>/dev/null
}
# wait_snapshot_after MS: poll (bounded) until a snapshot newer than MS is stored
wait_snapshot_after() {
	local i t
	for i in $(seq 1 150); do
		t=$(latest_snapshot)
		[ -n "$t" ] && [ "$t" -gt "$1" ] && { echo "$t"; return 0; }
		sleep 0.1
	done
	return 1
}
t1=$(wait_snapshot_after 0)
check "the daemon stores the helper's region snapshots (first at ${t1:-none})" "[ -n '$t1' ]"
now_ms() { python3 -c 'import time; print(int(time.time()*1000))'; }
check "dlopen libz" "step dlopen"
check "map a file" "step mmap"
check "start threads" "step threads"
check "grow the heap" "step heap"
check "make shared memory" "step shm"
after=$(now_ms)
t2=$(wait_snapshot_after "$after")
check "a snapshot after the steps (${t2:-none})" "[ -n '$t2' ]"

curl -s -m 10 "$base/api/v1/diff?pid=$hpid&from=$t1&to=$t2&limit=500" >"$out/diff.json"
verify() {
	python3 - "$out/diff.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); what = sys.argv[2]
ch = d["totals"]["change"]
tot = lambda c: sum(ch[c].values())
regs = d["regions"]
if what == "snapped":
    assert d["t1_ms"] and d["t2_ms"] and d["t1_ms"] < d["t2_ms"], (d["t1_ms"], d["t2_ms"])
elif what == "image":
    r = [x for x in regs if x["owner"] and "libz.so" in x["owner"]]
    assert r and r[0]["category"] == "image" and r[0]["change"] == "new", r[:1]
    assert tot("image") > 0, ch["image"]
elif what == "mapped":
    r = [x for x in regs if x["owner"] and x["owner"].endswith("wsdemo.dat")]
    assert r and r[0]["category"] == "mapped_file" and r[0]["delta_bytes"] >= 8 << 20, r[:1]
elif what == "heap":
    assert tot("heap") >= 30 << 20, ch["heap"]
    assert any(x["category"] == "heap" and x["change"] in ("grown", "new") for x in regs)
elif what == "stack":
    assert tot("stack") >= 4 * 512 * 1024, ch["stack"]
    assert sum(1 for x in regs if x["category"] == "stack" and x["change"] == "new") >= 4
elif what == "shareable":
    assert tot("shareable") >= 8 << 20, ch["shareable"]
elif what == "sorted":
    deltas = [abs(x["delta_bytes"]) for x in regs]
    assert deltas == sorted(deltas, reverse=True)
PY
}
check "the diff says which snapshots it used" "verify snapped"
check "libz.so.1: a new image region owned by its path" "verify image"
check "the mapped file: mapped_file, owned by its path, +8 MiB" "verify mapped"
check "heap grew by the 31 MiB malloc'ed" "verify heap"
check "four new thread stacks" "verify stack"
check "shared memory and memfd: shareable +8 MiB" "verify shareable"
check "regions sorted by size of change" "verify sorted"
"$daemon" diff --url "$base" --pid "$hpid" --from "$t1" --to "$t2" >"$out/diff.txt" 2>&1
rc=$?
check "memwatchd diff --url prints the table (exit $rc)" "[ $rc -eq 0 ] && grep -q 'libz.so' '$out/diff.txt'"
# The page from live data: the stacked working set, the diff and the map
# for the helper, drawn by headless Chromium (screenshots under build/).
if [ -n "$chrome" ]; then
	url="$base/#pid=$hpid&t1=$t1&t2=$t2"
	run_chrome --window-size=1280,1100 --dump-dom "$url" >"$out/page.html"
	page_check() {
		python3 - "$out/page.html" "$1" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read(); what = sys.argv[2]
def section(sid):
    m = re.search(r'<section id="%s".*?</section>' % sid, dom, re.S)
    assert m, "no #" + sid
    return m.group(0)
if what == "stacked":
    s = section("ws-section")
    m = re.search(r'<div id="ws-chart"[^>]*data-drawn="(\d+)"', s)
    assert m and int(m.group(1)) >= 2 and "<canvas" in s, "stacked chart not drawn"
elif what == "diff":
    s = section("ws-section")
    body = re.search(r'<table id="diff-regions".*?<tbody>(.*?)</tbody>', s, re.S)
    rows = re.findall(r"<tr", body.group(1) if body else "")
    assert len(rows) >= 3 and "libz.so" in body.group(1), "diff rows: %d" % len(rows)
    assert re.search(r'snapped to \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC and \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC', s), "no snapped times"
elif what == "map":
    s = section("map-section")
    blocks = len(re.findall(r'<div class="blk', s))
    assert blocks >= 10, "map: %d blocks" % blocks
    assert re.search(r'id="largest-free"[^>]*><b>[^<]+</b>', s), "largest free block missing"
elif what == "overflow":
    m = re.search(r'<html[^>]*\sdata-overflow-x="([^"]*)"', dom)
    assert m and m.group(1) == "0", "overflow %s" % (m.group(1) if m else None)
PY
	}
	check "page: the helper's working set stacked by category, from live data" "page_check stacked"
	check "page: the diff table with libz.so.1 and the snapped times" "page_check diff"
	check "page: the address-space map with its blocks and largest free block" "page_check map"
	check "page: nothing overflows horizontally" "page_check overflow"
	mkdir -p build
	(cd "$out" && run_chrome --window-size=1280,1100 --screenshot="$OLDPWD/build/page-diff-live.png" "$url&show=diff") >/dev/null
	(cd "$out" && run_chrome --window-size=1280,1100 --screenshot="$OLDPWD/build/page-map-live.png" "$url&show=map") >/dev/null
	check "page: screenshots build/page-diff-live.png and build/page-map-live.png" \
		"[ -s build/page-diff-live.png ] && [ -s build/page-map-live.png ]"
else
	ok "# SKIP chromium not installed"
fi

kill -TERM "$dpid"
wait "$dpid"
rc=$?
untrack "$dpid"
check "daemon stops with status 0" "[ $rc -eq 0 ]"
"$daemon" diff --db "$out/d.db" --pid "$hpid" --from "$t1" --to "$t2" --json >"$out/diff2.json" 2>&1
check "memwatchd diff --db on the file gives the same changes" \
	"python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a[\"totals\"][\"change\"]==b[\"totals\"][\"change\"]' '$out/diff.json' '$out/diff2.json'"
echo "step quit" >/dev/null
finish
