#!/usr/bin/env bash
# startup_check.sh DAEMON - the start-up's full read of the database
# (storage/clean_stop.c): a start after SIGTERM skips it, a start after
# SIGKILL runs it ("did not stop cleanly"), `--set storage.full_check=0`
# runs it every time; the stored points survive all of it.  Daemons ours,
# stopped by PID.  Loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"
need curl

# logged NAME TEXT: the log of run NAME says TEXT
logged() { grep -qF -- "$2" "$tmpdir/$1.log" || { tail -5 "$tmpdir/$1.log"; return 1; }; }

points() {
	curl -sf "$base/api/v1/series?match=memwatch_system_available_bytes" |
		grep -o '"memwatch_system_available_bytes"' | head -1
}

mw_serve sc --interval 200ms --set storage.flush_interval=200ms
dbfile=$tmpdir/sc.db
check "first run answers" wait_ready "$base/healthz"
check "first run: a new file is checked" logged sc "no record of how the file was last closed"
check "first run stores points" wait_until 20 points
check "first run stops cleanly" mw_stop "$mw_pid"

# the same file again: mw_start with the same database (a new log name)
port=$(free_port); base=http://127.0.0.1:$port
mw_start sc2 --listen "127.0.0.1:$port" --db "$dbfile" --interval 200ms \
	--set storage.flush_interval=200ms
check "second run answers" wait_ready "$base/healthz"
check "after a clean stop the full check is skipped" logged sc2 "full check skipped"
check "second run still has the points" wait_until 20 points
kill -KILL "$mw_pid"; wait "$mw_pid" 2>/dev/null; untrack "$mw_pid"

port=$(free_port); base=http://127.0.0.1:$port
mw_start sc3 --listen "127.0.0.1:$port" --db "$dbfile" --interval 200ms
check "third run answers" wait_ready "$base/healthz"
check "after SIGKILL the file is checked" logged sc3 "the last run did not stop cleanly): ok"
check "third run stops cleanly" mw_stop "$mw_pid"

port=$(free_port); base=http://127.0.0.1:$port
mw_start sc4 --listen "127.0.0.1:$port" --db "$dbfile" --interval 200ms \
	--set storage.full_check=0
check "fourth run answers" wait_ready "$base/healthz"
check "full_check=0 checks at every start-up" logged sc4 "full check at every start-up"
check "fourth run stops cleanly" mw_stop "$mw_pid"
check "no database was moved aside" test -z "$(ls "$tmpdir" | grep corrupt)"
finish
