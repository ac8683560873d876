#!/usr/bin/env bash
# db_deleted.sh DAEMON - a database deleted or replaced under a running
# daemon is noticed: /healthz says degraded with the reason, an error is
# logged, and a second daemon on the same path is still refused (the lock
# is not a file someone can delete).  Loopback only; daemons stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

# healthz_says BASE STATUS NEEDLE: /healthz has status STATUS and, when
# NEEDLE is given, a storage error containing it.
healthz_says() {
	curl -s --max-time 2 "$1/healthz" | js "d['status'] == '$2' and
('$3' == '' or '$3' in (d['storage']['error'] or ''))" >/dev/null
}

# flushing often, so a change is seen within a second
fast=(--interval 200ms --set storage.flush_interval=300ms)

# --- deleted ------------------------------------------------------------------
mw_serve_data del "${fast[@]}"
del_pid=$main_pid
check "healthz ok before" healthz_says "$base" ok ""
rm -f "$tmpdir/del.db" "$tmpdir/del.db-wal" "$tmpdir/del.db-shm" "$tmpdir/del.db.lock"
check "deleted: healthz says degraded, naming the deletion" \
	wait_until 10 healthz_says "$base" degraded "was deleted"
check "... and an error is logged" grep -q "error storage: the database file '.*del.db' was deleted" \
	"$tmpdir/del.log"
check "a second daemon on the same path is refused (exit 2)" \
	expect_rc 2 timeout 20 "$daemon" run --listen "127.0.0.1:$(free_port)" --db "$tmpdir/del.db"
check "... saying it is in use, with its pid" \
	grep -q "in use by another memwatchd (pid $del_pid)" "$tmpdir/cmd.out"
check "... and it created no database there" test ! -e "$tmpdir/del.db"
check "it stops when asked" stop_pid "$del_pid"

# --- replaced -----------------------------------------------------------------
mw_serve_data rep "${fast[@]}"
rep_pid=$main_pid
cp "$tmpdir/rep.db" "$tmpdir/other.db"
mv "$tmpdir/other.db" "$tmpdir/rep.db"
check "replaced: healthz says degraded, naming the replacement" \
	wait_until 10 healthz_says "$base" degraded "was replaced"
check "... and an error is logged" grep -q "error storage: the database file '.*rep.db' was replaced" \
	"$tmpdir/rep.log"
check "it stops when asked" stop_pid "$rep_pid"

# --- the same file under another name -----------------------------------------
mw_serve one
one_pid=$mw_pid
check "daemon O ready" wait_ready "$base/healthz"
ln -s "$tmpdir/one.db" "$tmpdir/alias.db"
check "a daemon on a link to its file is refused (exit 2)" \
	expect_rc 2 timeout 20 "$daemon" run --listen "127.0.0.1:$(free_port)" --db "$tmpdir/alias.db"
check "... saying it is in use" grep -q "in use by another memwatchd" "$tmpdir/cmd.out"
check "it stops with status 0" mw_stop "$one_pid"

finish
