#!/usr/bin/env bash
# diff_win64.sh - MemDiff from the Windows build under Wine: the .exe
# daemon watches itself (Wine gives QueryWorkingSetEx for one's own
# process, not for others: tests/test_collectors_wine_win32.c covers the
# other-process categories on what Wine gives), stores its region
# snapshots, and /api/v1/regions, /api/v1/diff and `memwatchd.exe diff
# --url` answer from them, with owners as DOS paths.  Stopped by PID.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

dir=$tmpdir
wine_serve d --watch self --interval 500ms --set collector.workingset.interval=500ms \
	--set storage.flush_interval=300ms
dpid=$mw_pid
check "the Windows daemon answers under Wine" "curl -sf -m 2 '$base/healthz' >/dev/null || { cat '$dir/d.log'; false; }"
# two snapshots of itself, polled (bounded)
snaps() {
	curl -s -m 5 "$base/api/v1/regions?process=memwatchd.exe" >"$dir/regions.json"
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["t_ms"])' "$dir/regions.json" 2>/dev/null
}
t1=
for _ in $(seq 1 120); do t1=$(snaps) && [ -n "$t1" ] && break; sleep 0.25; done
t2=$t1
for _ in $(seq 1 120); do t2=$(snaps); [ -n "$t2" ] && [ "$t2" -gt "${t1:-0}" ] && break; sleep 0.25; done
check "its region snapshots are stored (at ${t1:-none} and ${t2:-none})" "[ -n '$t1' ] && [ '$t2' -gt '$t1' ]"
check "/api/v1/regions: its modules with DOS paths" "python3 - '$dir/regions.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
owners = [r['owner'] for r in d['regions'] if r['category'] == 'image' and r['owner']]
assert any(o.lower().endswith('ntdll.dll') and o[1:3] == ':\\\\' for o in owners), owners[:5]
assert sum(r['resident']['private'] + r['resident']['shareable'] + r['resident']['shared'] for r in d['regions']) > 0
PY"
curl -s -m 10 "$base/api/v1/diff?process=memwatchd.exe&from=$t1&to=$t2" >"$dir/diff.json"
check "/api/v1/diff between them answers with totals and snapped times" "python3 - '$dir/diff.json' <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['t1_ms'] <= d['t2_ms'] and set(d['totals']) == {'t1', 't2', 'change'}, d.get('error', d.keys())
assert d['process'] == 'memwatchd.exe' and sum(sum(v.values()) for v in d['totals']['t2'].values()) > 0
PY"
check "an unknown process is a 404 naming it" \
	"[ \"\$(curl -s -o '$dir/e.json' -w '%{http_code}' '$base/api/v1/diff?process=nope.exe')\" = 404 ] && grep -q nope.exe '$dir/e.json'"
scripts/wine-run.sh "$exe" diff --url "$base" --process memwatchd.exe --from "$t1" --to "$t2" >"$dir/diff.txt" 2>&1
rc=$?
check "memwatchd.exe diff --url prints the table (exit $rc)" "[ $rc -eq 0 ] && grep -qi 'image' '$dir/diff.txt' || { cat '$dir/diff.txt'; false; }"
kill -INT "$dpid"
wait "$dpid"
rc=$?
untrack "$dpid"
check "the daemon stops on Ctrl+C with exit 0 (got $rc)" "[ $rc -eq 0 ]"
scripts/wine-run.sh "$exe" diff --db "$(wine_path "$dir/d.db")" --process memwatchd.exe --from "$t1" --to "$t2" --json \
	>"$dir/diff2.json" 2>&1
check "memwatchd.exe diff --db on the file gives the same totals" "python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); assert a[\"totals\"]==b[\"totals\"]' '$dir/diff.json' '$dir/diff2.json'"
finish
