#!/usr/bin/env bash
# diff.sh DAEMON - GET /api/v1/diff and /api/v1/regions, and `memwatchd
# diff`, against a running native daemon: bad input is a 400 naming the
# parameter, an unknown pid or process a 404, and the CLI exits 2 on both.
# When the daemon has stored working-set region snapshots (a collector
# that emits "workingset.regions" records on this platform), the answers'
# shape is checked too; else that part is skipped.  The daemon is ours,
# stopped by PID.  Loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need curl python3

mw_serve_data d --interval 200ms --set storage.flush_interval=200ms --watch memwatchd

# errors
check "diff without pid or process: 400 naming pid" \
	expect_error 400 "pid" "$base/api/v1/diff"
check "diff with a bad pid: 400 naming pid" \
	expect_error 400 "pid:" "$base/api/v1/diff?pid=abc"
check "diff with a bad from: 400 naming from" \
	expect_error 400 "from:" "$base/api/v1/diff?pid=1&from=yesterday-ish"
check "diff with a bad to: 400 naming to" \
	expect_error 400 "to:" "$base/api/v1/diff?pid=1&to=x"
check "diff with from after to: 400" \
	expect_error 400 "from:" "$base/api/v1/diff?pid=1&from=-1m&to=-2h"
check "diff with a bad limit: 400 naming limit" \
	expect_error 400 "limit:" "$base/api/v1/diff?pid=1&limit=0"
check "diff with an unknown parameter: 400" \
	expect_error 400 "bogus" "$base/api/v1/diff?pid=1&bogus=1"
check "diff for an unknown pid: 404" \
	expect_error 404 "no snapshots for pid 4000000000" "$base/api/v1/diff?pid=4000000000"
check "diff for an unknown process: 404" \
	expect_error 404 "unknown process" "$base/api/v1/diff?process=no_such_process.exe"
check "regions without pid or process: 400" \
	expect_error 400 "pid" "$base/api/v1/regions"
check "regions with a bad at: 400 naming at" \
	expect_error 400 "at:" "$base/api/v1/regions?pid=1&at=never"
check "regions for an unknown pid: 404" \
	expect_error 404 "no snapshots for pid" "$base/api/v1/regions?pid=4000000000"

cli_exit() {	# WANT ARGS...: memwatchd diff exits WANT
	local want=$1 rc
	shift
	"$daemon" diff "$@" >"$tmpdir/cli.out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit $rc, want $want"; cat "$tmpdir/cli.out"; return 1; }
}
check "diff --help exits 0" cli_exit 0 --help
check "diff without --pid/--process exits 2" cli_exit 2 --url "$base"
check "diff --url for an unknown pid exits 2" cli_exit 2 --url "$base" --pid 4000000000
check "diff --url with a bad --from exits 2" cli_exit 2 --url "$base" --pid 1 --from nonsense
check "diff --db for an unknown process exits 2" cli_exit 2 --db "$db" --process no_such.exe
check "diff with --db and --url exits 2" cli_exit 2 --db "$db" --url "$base" --pid 1

# with snapshots (when this platform's collector emits region records)
snap=$(python3 -c "import sqlite3,sys
c=sqlite3.connect('file:'+sys.argv[1]+'?mode=ro', uri=True)
r=c.execute('SELECT p.pid FROM ws_process p JOIN ws_snapshot s ON s.process_id=p.id LIMIT 1').fetchone()
print(r[0] if r else '')" "$db" 2>/dev/null)
if [ -n "$snap" ]; then
	check "diff answers the shape" sh -c "curl -sf '$base/api/v1/diff?pid=$snap' | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert d[\"pid\"]==\"$snap\" and d[\"page_size\"]>0
assert len(d[\"categories\"])==7 and d[\"sharing\"]==[\"private\",\"shareable\",\"shared\"]
for k in (\"t1\",\"t2\",\"change\"): assert set(d[\"totals\"][k])==set(d[\"categories\"])
assert d[\"t1_ms\"]<=d[\"t2_ms\"] and isinstance(d[\"regions\"],list)'"
	check "regions answers the shape" sh -c "curl -sf '$base/api/v1/regions?pid=$snap' | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert d[\"regions\"] and all(set(r[\"resident\"])=={\"private\",\"shareable\",\"shared\"} for r in d[\"regions\"])'"
	check "memwatchd diff --url prints a table" cli_exit 0 --url "$base" --pid "$snap"
	# Times for people: UTC, "YYYY-MM-DD HH:MM:SS UTC", not epoch ms (--json keeps the ms).
	utc='[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC'
	check "... its moments in UTC, YYYY-MM-DD HH:MM:SS UTC" \
		grep -Eq "^pid $snap \(.*\): $utc -> $utc \([0-9.]+ s\)\$" "$tmpdir/cli.out"
	check "... and no epoch milliseconds" sh -c '! grep -Eq "[0-9]{13}" "$1"' sh "$tmpdir/cli.out"
	check "memwatchd diff --url --json keeps t1_ms and t2_ms" sh -c \
		'"$1" diff --url "$2" --pid "$3" --json | python3 -c "import json,sys; d=json.load(sys.stdin); assert d[\"t1_ms\"]>1e12 and d[\"t2_ms\"]>=d[\"t1_ms\"]"' \
		sh "$daemon" "$base" "$snap"
	# A shown time pastes back as --from (seconds truncated: at or before the snapshot).
	t1=$(sed -En "1s/^pid [^:]*: ($utc) -> .*/\1/p" "$tmpdir/cli.out")
	check "a printed time reads back as --from '$t1'" cli_exit 0 --url "$base" --pid "$snap" --from "$t1"
	check "... the same first snapshot" grep -Fq ": $t1 -> " "$tmpdir/cli.out"
else
	skip "no working-set region snapshots on this platform yet (collector not merged)"
fi

check "daemon stops cleanly" mw_stop "$main_pid"
check "memwatchd diff --db after stop: unknown pid exits 2" cli_exit 2 --db "$db" --pid 4000000000
finish
