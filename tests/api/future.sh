#!/usr/bin/env bash
# future.sh DAEMON - a recording from a clock-skewed machine cannot poison
# the store (issue 22): a point an hour ahead refuses its file (exit 2,
# nothing stored), year 10000 is refused even with --allow-future; a point
# a day ahead stored with --allow-future does not hide the processes the
# daemon samples now from /api/v1/processes, and /api/v1/leaks still
# answers.  The daemon is ours, stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

db=$tmpdir/fut.db
now=$(($(date +%s) * 1000))

# points NAME LAST: a JSON export of skewed.exe's private bytes, a point a
# minute ago and one at LAST
points() {
	printf '{"series":[{"name":"memwatch_process_private_bytes","labels":{"pid":"7","process":"skewed.exe","started":"1"},"points":[[%s,1],\n[%s,2]]}]}\n' \
		$((now - 60000)) "$2" >"$tmpdir/$1.json"
}
# stored: how many series the database holds ("0" when none or no file)
stored() { "$daemon" export --db "$db" --format json 2>/dev/null | python3 -c 'import json,sys
try: print(len(json.load(sys.stdin)["series"]))
except Exception: print(0)'; }

points hour $((now + 3600000))
check "a point an hour ahead refuses the file: exit 2 naming line 2" \
	'expect_rc 2 "$daemon" import --db "$db" "$tmpdir/hour.json" &&
	 grep -q "hour.json:2: .*is in the future" "$tmpdir/cmd.out"'
check "and nothing of it is stored" '[ "$(stored)" = 0 ]'
points y10k 253402300800000
check "year 10000 is refused even with --allow-future" \
	'expect_rc 2 "$daemon" import --db "$db" --allow-future "$tmpdir/y10k.json" &&
	 grep -q "years 0001 to 9999" "$tmpdir/cmd.out"'
check "and nothing of it is stored" '[ "$(stored)" = 0 ]'
points day $((now + 86400000))
check "--allow-future stores a point a day ahead" \
	'expect_rc 0 "$daemon" import --db "$db" --allow-future "$tmpdir/day.json"'

# The daemon on that database: its own process is sampled now.
port=$(free_port)
base=http://127.0.0.1:$port
mw_start fut --listen "127.0.0.1:$port" --db "$db" --interval 200ms \
	--set storage.flush_interval=200ms
check "daemon answers /healthz" wait_ready "$base/healthz"

# lists_self: /api/v1/processes has the daemon's own pid
lists_self() {
	curl -s --max-time 5 "$base/api/v1/processes?limit=1000" |
		python3 -c 'import json,sys
d=json.load(sys.stdin)
sys.exit(0 if any(p["pid"] == sys.argv[1] for p in d["processes"]) else 1)' "$mw_pid"
}
check "/api/v1/processes lists the processes sampled now (the daemon itself)" \
	wait_or_show 20 'curl -s "$base/api/v1/processes?limit=5" | head -c 600' lists_self
check "/api/v1/leaks answers 200" '[ "$(status "$base/api/v1/leaks")" = 200 ] || { head -c 400 "$tmpdir/body"; false; }'
check "it stops cleanly" mw_stop "$mw_pid"
check "check --db judges it (no 'bad range')" \
	'"$daemon" check --db "$db" >"$tmpdir/check.out" 2>&1; [ $? -ne 2 ] && ! grep -q "bad range" "$tmpdir/check.out"'

finish
