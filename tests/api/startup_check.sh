#!/usr/bin/env bash
# startup_check.sh DAEMON - the start-up's full read of the database
# (storage/clean_stop.c): a start after SIGTERM skips it, a start after
# SIGKILL runs it ("did not stop cleanly"), `--set storage.full_check=0`
# runs it every time, `storage.full_check_background=0B` reads it beside the
# running daemon; the stored points survive all of it.  Daemons ours,
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

# A file at least storage.full_check_background big (here any) is read
# whole beside the running daemon: it answers and samples first.
port=$(free_port); base=http://127.0.0.1:$port
mw_start sc5 --listen "127.0.0.1:$port" --db "$dbfile" --interval 200ms \
	--set storage.flush_interval=200ms --set storage.full_check=0 \
	--set storage.full_check_background=0B
check "fifth run answers" wait_ready "$base/healthz"
check "the check is read in the background" logged sc5 "read in the background while the daemon runs"
check "the background check passes" wait_until 20 logged sc5 "read in the background: ok in"
check "healthz stays ok" sh -c "curl -sf '$base/healthz' | grep -q '\"status\":\"ok\"'"
check "fifth run still has the points" wait_until 20 points
check "fifth run stops cleanly" mw_stop "$mw_pid"
check "no database was moved aside" test -z "$(ls "$tmpdir" | grep corrupt)"
check "no check-failed marker" test ! -e "$dbfile.check-failed"

# Damage where the start-up does not read (a table of its own, its last
# pages garbled): the daemon starts, the check beside it finds the damage,
# /healthz says so, and the next start-up moves the file aside.
healthz_says() {
	curl -s --max-time 2 "$1/healthz" | js "d['status'] == '$2' and
('$3' == '' or '$3' in (d['storage']['error'] or ''))" >/dev/null
}
python3 - "$dbfile" <<'PY'
import sqlite3, sys
path = sys.argv[1]
db = sqlite3.connect(path)
db.execute("CREATE TABLE filler (i INTEGER, b BLOB)")
db.execute("INSERT INTO filler WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
           " WHERE i < 400) SELECT i, randomblob(300) FROM n")
db.commit()
size = db.execute("PRAGMA page_size").fetchone()[0]
pages = db.execute("PRAGMA page_count").fetchone()[0]
db.close()
with open(path, "r+b") as f:
    f.seek((pages - 3) * size)
    f.write(bytes((0xA5 ^ i) & 0xFF for i in range(4096)))
PY
port=$(free_port); base=http://127.0.0.1:$port
mw_start sc6 --listen "127.0.0.1:$port" --db "$dbfile" --interval 200ms \
	--set storage.flush_interval=200ms --set storage.full_check=0 \
	--set storage.full_check_background=0B
check "damaged: the daemon answers" wait_ready "$base/healthz"
check "damaged: the check beside it finds it" wait_until 20 logged sc6 "FAILED ITS FULL CHECK"
check "damaged: healthz says degraded, naming the check" \
	wait_until 10 healthz_says "$base" degraded "failed its full check"
check "damaged: a marker for the next start-up" test -e "$dbfile.check-failed"
check "damaged: the run stops" mw_stop "$mw_pid"
port=$(free_port); base=http://127.0.0.1:$port
mw_start sc7 --listen "127.0.0.1:$port" --db "$dbfile" --interval 200ms \
	--set storage.full_check_background=0B
check "next start-up answers" wait_ready "$base/healthz"
check "next start-up checks first and moves the file aside" logged sc7 "moved it to"
check "the marker is gone" test ! -e "$dbfile.check-failed"
check "healthz ok on the new file" wait_until 10 healthz_says "$base" ok ""
check "next start-up stops cleanly" mw_stop "$mw_pid"
finish
