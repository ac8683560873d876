#!/usr/bin/env bash
# private.sh DAEMON - private by default (issue 22): the database, its
# -wal and -shm and the log are created 0600 (owner only; on Linux the
# lock is the database file itself, no file of its own); a
# listen address beyond loopback without [web] token is refused at start
# (exit 2, naming [web] allow_anonymous) and allowed with that option,
# with a warning in the log.  Daemons are ours, stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

# mode FILE: its permission bits in octal (600)
mode() { stat -c %a "$1"; }

# all_private: every file the daemon made is there and 0600
all_private() {
	local f ok=0
	for f in "$tmpdir/p.db" "$tmpdir/p.db-wal" "$tmpdir/p.db-shm" "$tmpdir/p-file.log"; do
		if [ ! -e "$f" ]; then
			echo "missing $f"
			ok=1
		elif [ "$(mode "$f")" != 600 ]; then
			echo "$f: mode $(mode "$f"), want 600"
			ok=1
		fi
	done
	return "$ok"
}

# The umask of the shell that starts it does not matter.
umask 022
mw_serve p --log-file "$tmpdir/p-file.log" --interval 200ms --set storage.flush_interval=200ms
check "daemon answers /healthz" wait_ready "$base/healthz"
check "first samples are queryable" wait_data "$base"
check "database, -wal, -shm and log are 0600 while it runs" all_private
check "it stops cleanly" mw_stop "$mw_pid"
check "database and log are still 0600 after the stop" \
	'[ "$(mode "$tmpdir/p.db")" = 600 ] && [ "$(mode "$tmpdir/p-file.log")" = 600 ]'

# Beyond loopback without a token: refused, naming the option (bounded:
# a daemon that starts instead is stopped by timeout, exit 124).
port=$(free_port)
for addr in "0.0.0.0:$port" "[::]:$port"; do
	check "--listen $addr without a token exits 2 naming [web] allow_anonymous" \
		'expect_rc 2 timeout 20 "$daemon" run --db "$tmpdir/open.db" --listen "$addr" &&
		 grep -q "allow_anonymous" "$tmpdir/cmd.out"'
done
check "loopback without a token is fine ([::1] too)" \
	'"$daemon" config --listen "[::1]:$port" >/dev/null'

# Allowed explicitly: it starts and says so in the log.
mw_start anon --db "$tmpdir/anon.db" --listen "0.0.0.0:$port" --set web.allow_anonymous=true
anon_pid=$mw_pid
check "with allow_anonymous = true it starts" wait_ready "http://127.0.0.1:$port/healthz"
check "and logs a warning naming the address" \
	'grep "warn" "$tmpdir/anon.log" | grep -q "0.0.0.0:$port without a token"'
check "it stops cleanly" mw_stop "$anon_pid"

# With a token there is nothing to warn about.
port=$(free_port)
mw_start tok --db "$tmpdir/tok.db" --listen "0.0.0.0:$port" --set web.token=s3cret
tok_pid=$mw_pid
check "with a token 0.0.0.0 starts" wait_ready "http://127.0.0.1:$port/healthz"
check "without the warning" '! grep -q "without a token" "$tmpdir/tok.log"'
check "it stops cleanly" mw_stop "$tok_pid"

finish
