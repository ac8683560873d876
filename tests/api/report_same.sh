#!/usr/bin/env bash
# report_same.sh DAEMON - `check` and `diff` print the same from a
# database file (--db) and from a running daemon (--url): the same JSON
# bytes with --json, the same table, the same exit status.  Both sides
# write the report with the same code (json_out) and the table reads that
# text parsed (app/report_source.c), so any difference is a bug.  The
# range ends at a fixed time (--to, in the past once flushed) so the
# daemon's new samples do not change it.  The daemon is ours, stopped by
# PID.  Loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

need curl python3

mw_serve_data r --interval 200ms --set storage.flush_interval=200ms --watch memwatchd \
	--set collector.workingset.interval=1s

# The daemon's own region snapshots, when this platform stores them.
has_regions() { curl -sf "$base/api/v1/regions?pid=$main_pid" >/dev/null; }
regions=0
wait_until 15 has_regions && regions=1

# A range that ends at $to, judged once the store holds data past it (the
# report's to_ms is then $to itself, not the newest point before it).
to=$(($(date +%s%3N) + 2000))
opts=(--to "$to" --warmup 1s --min-duration 2s)
flushed_past() {
	"$daemon" check --db "$db" --json "${opts[@]}" 2>/dev/null |
		python3 -c "import json,sys; sys.exit(0 if json.load(sys.stdin)['to_ms'] == $to else 1)"
}
check "the store holds data past the range's end" wait_until 20 flushed_past

# same NAME CMD ARGS...: CMD --db and CMD --url print the same bytes and
# exit with the same status.
same() {
	local name=$1 cmd=$2 a b
	shift 2
	"$daemon" "$cmd" --db "$db" "$@" >"$tmpdir/$name.db" 2>&1
	a=$?
	"$daemon" "$cmd" --url "$base" "$@" >"$tmpdir/$name.url" 2>&1
	b=$?
	[ "$a" = "$b" ] || { echo "exit --db $a, --url $b"; return 1; }
	cmp "$tmpdir/$name.db" "$tmpdir/$name.url" || {
		head -c 600 "$tmpdir/$name.db"; echo; head -c 600 "$tmpdir/$name.url"; return 1; }
	[ -s "$tmpdir/$name.db" ] || { echo "empty output"; return 1; }
}

check "check --json: --db and --url the same bytes" same cj check --json "${opts[@]}"
check "... a leak report" sh -c "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d[\"groups\"]' '$tmpdir/cj.db'"
check "check table: --db and --url the same" same ct check "${opts[@]}"
check "check --process: the same" same cp check --process 'memwatch*' "${opts[@]}"
check "check --limit 1 --json: the same" same cl check --limit 1 --json "${opts[@]}"
# An error: exit 2 both ways, the same words after where they come from.
same_error() {
	local m="match: no series match 'no_such_metric'"
	expect_rc 2 "$daemon" check --db "$db" --match no_such_metric "${opts[@]}" &&
		grep -qxF "memwatchd check: $m" "$tmpdir/cmd.out" &&
		expect_rc 2 "$daemon" check --url "$base" --match no_such_metric "${opts[@]}" &&
		grep -qxF "memwatchd check: --url: $base answered 400: $m" "$tmpdir/cmd.out"
}
check "check of a selector matching nothing: exit 2, the same message" same_error

if [ "$regions" = 1 ]; then
	check "diff --json: --db and --url the same bytes" same dj diff --json --pid "$main_pid" --to "$to"
	check "diff table: --db and --url the same" same dt diff --pid "$main_pid" --to "$to"
else
	skip "no working-set region snapshots on this platform"
fi

check "daemon stops cleanly" mw_stop "$main_pid"
finish
