#!/usr/bin/env bash
# exit_leaks.sh DAEMON - exit leak reports from LeakSanitizer, end to end
# (issue 23): tests/helpers/lsan_leaky_linux.c built with AddressSanitizer
# leaks 4096 bytes directly and 2 x 150 indirectly (4396 bytes in 3
# allocations) and runs with ASAN_OPTIONS=log_path=LSAN_DIR/leaky into a
# running daemon's [exit_leaks] lsan_dir.  The report is stored once (the
# file moved into done/), served by /api/v1/exit-leaks with those exact
# figures and stacks, fails `memwatchd check` (CLI over --url, --db, and
# /api/v1/check) with the reason naming the report, shows in /metrics;
# a report written while its process still runs is attributed to that
# run (its start time) and read only after it exits.  The same file
# imported into a fresh database gives the same report and the same
# failing check.  Linux only (gcc with -fsanitize=address).
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need curl python3 gcc

src=$here/../helpers/lsan_leaky_linux.c
leaky=$tmpdir/leaky
if ! gcc -fsanitize=address -g -O0 "$src" -o "$leaky" -lpthread 2>"$tmpdir/gcc.log"; then
	skip "gcc cannot build with -fsanitize=address: $(head -1 "$tmpdir/gcc.log")"
	finish
	exit 0
fi
lsan=$tmpdir/lsan

mw_serve_data d --interval 200ms --set storage.flush_interval=200ms \
	--set collector.exit_leaks.interval=200ms --set "exit_leaks.lsan_dir=$lsan"

check "lsan_dir and lsan_dir/done are made at start" '[ -d "$lsan/done" ]'

# one run that leaks and exits; the report appears under its pid
ASAN_OPTIONS="log_path=$lsan/leaky" "$leaky" >/dev/null 2>&1 &
lpid=$!
wait "$lpid"
lrc=$?
check "the helper leaked (LeakSanitizer's non-zero exit, a report file)" \
	'[ "$lrc" -ne 0 ] && { [ -e "$lsan/leaky.$lpid" ] || [ -e "$lsan/done/leaky.$lpid" ]; }'

has_report() {
	curl -s "$base/api/v1/exit-leaks?process=leaky" | js "len(d['reports']) >= $1" >/dev/null
}
check "the report is stored and served" wait_until 15 has_report 1
check "the file was moved into done/, read once" \
	'[ -e "$lsan/done/leaky.$lpid" ] && [ ! -e "$lsan/leaky.$lpid" ]'
curl -s "$base/api/v1/exit-leaks?process=leaky" >"$tmpdir/served.json"
check "exact figures: 4396 bytes in 3 allocations, pid, source, complete" \
	js "(r:=d['reports'][0]) and r['bytes']==4396 and r['leaks']==3 and r['pid']==$lpid \
	    and r['process']=='leaky' and r['source']=='lsan' and r['complete'] is True \
	    and r['blocks']==[] and r['exited_ms']>0" <"$tmpdir/served.json"
check "stacks by bytes: 4096 direct, then 2 x 150 indirect, with their frames" \
	js "[(s['bytes'],s['count'],s['indirect']) for s in d['reports'][0]['stacks']] == \
	    [(4096,1,False),(150,1,True),(150,1,True)] and \
	    any('lsan_leaky_linux.c' in f for f in d['reports'][0]['stacks'][0]['frames'])" \
	<"$tmpdir/served.json"
# ticks N: wait until the exit_leaks collector has run N more times
runs_now() { python3 -c "import json,sys; print([c['runs'] for c in json.load(sys.stdin)['collectors'] if c['name']=='exit_leaks'][0])" < <(curl -s "$base/api/v1/collectors"); }
ran_since() { [ "$(runs_now)" -ge "$1" ]; }
ticks() { local want=$(( $(runs_now) + $1 )); wait_until 15 ran_since "$want"; }
check "a later tick does not read it again (one delivery in the log)" \
	'ticks 3 && [ "$(grep -c "exit_leaks: leaky pid $lpid:" "$tmpdir/d.log")" = 1 ]'

id=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['reports'][0]['id'])" "$tmpdir/served.json")
check "check --url fails (exit 1), the reason naming the report" \
	'expect_rc 1 "$daemon" check --url "$base"; grep -q "exit leak report $id (lsan, leaky pid $lpid): 4396 bytes in 3 allocations leaked at exit" "$tmpdir/cmd.out" || { cat "$tmpdir/cmd.out"; false; }'
check "/api/v1/check: verdict fail, the group of leaky failing with the report" \
	'curl -s "$base/api/v1/check" | js "d[\"verdict\"]==\"fail\" and d[\"exit_leaks\"][\"failed\"]>=1 and \
	  any(g[\"process\"]==\"leaky\" and g[\"verdict\"]==\"fail\" and \"exit leak report $id\" in g[\"reason\"] for g in d[\"groups\"])"'
check "/metrics: the last report's gauges of leaky" \
	'curl -s "$base/metrics" | grep -qx "memwatch_exit_leak_bytes{process=\"leaky\"} 4396" && \
	 curl -s "$base/metrics" | grep -qx "memwatch_exit_leak_allocations{process=\"leaky\"} 3"'

# the page lists it (Chromium renders the page; skipped without it)
page_row() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=8000 \
		--dump-dom "$base/" 2>/dev/null | python3 -c "import re,sys
t=sys.stdin.read(); i=t.find('id=\"exit-table\"'); row=re.sub(r'<[^>]+>', '|', t[i:t.find('</table>', i)])
assert '|leaky||$lpid||lsan||3||4.29 KiB|' in row and 'lsan_leaky_linux.c' in row, row[:800]"
}
if command -v chromium >/dev/null 2>&1; then
	check "the page's exit leak panel shows the run: figures and top stacks" page_row
else
	skip "chromium not installed (the page's exit leak panel)"
fi

# a report written while its process runs: read after it exits, with its start time
go=$tmpdir/go
ASAN_OPTIONS="log_path=$lsan/held" "$leaky" hold "$go" >/dev/null 2>&1 &
hpid=$!
track "$hpid"
check "the held run's report file is written while it runs" \
	wait_until 15 test -s "$lsan/held.$hpid"
check "... and not taken while the process lives" \
	'ticks 3 && [ -e "$lsan/held.$hpid" ] && kill -0 $hpid && ! grep -q "pid $hpid:" "$tmpdir/d.log"'
touch "$go"
wait "$hpid"
untrack "$hpid"
# the name is the one seen running (the executable), not the file's prefix
held_report() { curl -s "$base/api/v1/exit-leaks" | js "len([r for r in d['reports'] if r['pid']==$hpid])==1" >/dev/null; }
check "after it exits the report is stored" wait_until 15 held_report
check "attributed to that run: its start time, before its exit" \
	'curl -s "$base/api/v1/exit-leaks" | js "(r:=[x for x in d[\"reports\"] if x[\"pid\"]==$hpid][0]) and r[\"process\"]==\"leaky\" and r[\"started_ms\"] is not None and r[\"started_ms\"]<=r[\"exited_ms\"]+999 and r[\"bytes\"]==4396"'

# bad input
check "from not a time: 400 naming from" expect_error 400 "from:" "$base/api/v1/exit-leaks?from=yesterday-ish"
check "from after to: 400" expect_error 400 "from:" "$base/api/v1/exit-leaks?from=-1m&to=-2h"
check "limit 0: 400 naming limit" expect_error 400 "limit:" "$base/api/v1/exit-leaks?limit=0"
check "an unknown parameter: 400" expect_error 400 "bogus" "$base/api/v1/exit-leaks?bogus=1"
check "an unknown process: no reports" \
	'curl -s "$base/api/v1/exit-leaks?process=no_such" | js "d[\"reports\"]==[]"'

# the same file into a fresh database: the same report, the same verdict
check "import of the LeakSanitizer file into a fresh database" \
	expect_rc 0 "$daemon" import --db "$tmpdir/f.db" "$lsan/done/leaky.$lpid"
check "import names what it stored" \
	'grep -q "LeakSanitizer exit leak report: leaky pid $lpid, 4396 bytes in 3 allocations" "$tmpdir/cmd.out"'
check "importing it again stores it once" \
	'expect_rc 0 "$daemon" import --db "$tmpdir/f.db" "$lsan/done/leaky.$lpid" && \
	 [ "$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"select count(*) from exit_report\").fetchone()[0])" "$tmpdir/f.db")" = 1 ]'
check "check --db on the fresh database fails (exit 1) naming the report" \
	'expect_rc 1 "$daemon" check --db "$tmpdir/f.db"; grep -q "exit leak report 1 (lsan, leaky pid $lpid): 4396 bytes in 3 allocations leaked at exit" "$tmpdir/cmd.out" || { cat "$tmpdir/cmd.out"; false; }'
check "check --db --process leaky (a run with no series, only its report) fails too" \
	'expect_rc 1 "$daemon" check --db "$tmpdir/f.db" --process leaky; grep -q "exit leak report 1" "$tmpdir/cmd.out" || { cat "$tmpdir/cmd.out"; false; }'
check "check --db --exit-max-bytes 4396: the run is within it, no longer failed" \
	'"$daemon" check --db "$tmpdir/f.db" --exit-max-bytes 4396B >"$tmpdir/cmd.out" 2>&1; rc=$?; \
	 [ "$rc" != 1 ] && [ "$rc" != 2 ] && ! grep -q "exit leak report" "$tmpdir/cmd.out" || { echo "exit $rc"; cat "$tmpdir/cmd.out"; false; }'
check "check --db --exit-max-bytes 4395 still fails" \
	'expect_rc 1 "$daemon" check --db "$tmpdir/f.db" --exit-max-bytes 4395B'
main_base=$base
mw_serve f --interval 1s
check "a daemon on the fresh database answers" wait_ready "$base/healthz"
curl -s "$base/api/v1/exit-leaks?process=leaky" >"$tmpdir/imported.json"
check "it serves the same report as the daemon that picked it up" \
	python3 -c "import json,sys
a=json.load(open(sys.argv[1]))['reports']; b=json.load(open(sys.argv[2]))['reports']
strip=lambda r: {k: v for k, v in r.items() if k not in ('id', 'started_ms')}
assert len(a)==1 and len(b)==1, (a, b)
assert strip(a[0])==strip(b[0]), (a[0], b[0])" "$tmpdir/served.json" "$tmpdir/imported.json"

finish
