#!/usr/bin/env bash
# robust.sh DAEMON - failures are visible and errors honest: one writer per
# database, a writer that cannot commit says so in /healthz and /metrics
# and recovers, the first tick is visible at once, and start-up errors
# name the option and exit 2.  Loopback only; daemons stopped by PID.
set -u
here=$(cd "$(dirname "$0")" && pwd)
daemon=$(cd "$(dirname "${1:?usage: robust.sh DAEMON}")" && pwd)/$(basename "$1")
. "$here/lib.sh"

expect_rc() {
	local want=$1 got
	shift
	"$@" >"$tmpdir/cmd.out" 2>&1
	got=$?
	[ "$got" = "$want" ] || { echo "exit $got, want $want"; cat "$tmpdir/cmd.out"; return 1; }
}

# --- start-up errors name the option, exit 2 --------------------------------
check "bad --listen port: exit 2" expect_rc 2 "$daemon" run --listen 127.0.0.1:99999 --db "$tmpdir/e.db"
check "... naming --listen" grep -q -- '--listen' "$tmpdir/cmd.out"
check "--db \"\" is refused: exit 2" expect_rc 2 "$daemon" run --db "" --listen off
check "... naming --db" grep -q -- '--db' "$tmpdir/cmd.out"
check "a missing database directory: exit 2" \
	expect_rc 2 "$daemon" run --db "$tmpdir/no/such/dir/x.db" --listen off
check "... naming --db and the path" grep -q -- "--db.*$tmpdir/no/such/dir" "$tmpdir/cmd.out"
busy_port=$(free_port)
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1",int(sys.argv[1]))); s.listen(1); time.sleep(30)' "$busy_port" &
holder=$!
pids+=("$holder")
for _ in $(seq 1 50); do
	python3 -c 'import socket,sys; s=socket.socket(); s.connect(("127.0.0.1",int(sys.argv[1])))' "$busy_port" 2>/dev/null && break
	sleep 0.1
done
check "a --listen address in use: exit 2 naming --listen" bash -c \
	"'$daemon' run --listen 127.0.0.1:$busy_port --db '$tmpdir/e2.db' >'$tmpdir/busy.out' 2>&1; rc=\$?; [ \$rc = 2 ] && grep -q -- '--listen' '$tmpdir/busy.out' || { cat '$tmpdir/busy.out'; echo rc=\$rc; false; }"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
pids=()

# --- config --config FILE prints the effective settings ----------------------
printf '[leak]\nwarmup = 7m\n\n[storage]\nretention_raw = 14d\n' >"$tmpdir/c.ini"
check "memwatchd config --config FILE shows the file's values" bash -c \
	"'$daemon' config --config '$tmpdir/c.ini' --set web.threads=3 | grep -qx 'warmup = 7m' &&
	 '$daemon' config --config '$tmpdir/c.ini' | grep -Eqx 'retention_raw = (14d|2w)' &&
	 '$daemon' config --set web.threads=3 | grep -qx 'threads = 3'"

# --- the first tick is visible at once, whatever the flush interval ----------
port=$(free_port)
base=http://127.0.0.1:$port
mw_start a --listen "127.0.0.1:$port" --db "$tmpdir/r.db" --set storage.flush_interval=1h
a_pid=$mw_pid
check "daemon A ready" wait_ready "$base/healthz"
check "its first samples are visible long before the 1 h flush interval" wait_data "$base"
check "/healthz: ok, with the writer's state" bash -c \
	"curl -s '$base/healthz' | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"status\"]==\"ok\" and d[\"storage\"][\"writer\"]==\"ok\" and d[\"storage\"][\"last_flush_ms\"], d'"
check "/metrics: the writer's own figures" bash -c \
	"curl -s '$base/metrics' | grep -q '^memwatch_storage_writer_up 1\$' &&
	 curl -s '$base/metrics' | grep -q '^memwatch_storage_points_total [1-9]' &&
	 curl -s '$base/metrics' | grep -q '^memwatch_storage_failed_flushes_total 0\$' &&
	 curl -s '$base/metrics' | grep -q '^memwatch_storage_last_flush_timestamp_seconds [1-9]'"
mw_stop "$a_pid" >/dev/null

# --- one writer per database --------------------------------------------------
port=$(free_port)
base=http://127.0.0.1:$port
mw_start a --listen "127.0.0.1:$port" --db "$tmpdir/two.db" --interval 200ms \
	--set storage.flush_interval=300ms
a_pid=$mw_pid
check "daemon A on two.db ready" wait_ready "$base/healthz"
check "daemon B on the same database refuses to start (exit 2)" \
	expect_rc 2 "$daemon" run --listen "127.0.0.1:$(free_port)" --db "$tmpdir/two.db"
check "... saying it is in use, with A's pid" grep -q "in use by another memwatchd (pid $a_pid)" "$tmpdir/cmd.out"
check "memwatchd import into it refuses too (exit 1 or 2)" bash -c \
	"printf 'time,x\n' >'$tmpdir/i.csv'; '$daemon' import --db '$tmpdir/two.db' '$tmpdir/i.csv' >'$tmpdir/imp.out' 2>&1; rc=\$?; [ \$rc != 0 ] && grep -q 'in use' '$tmpdir/imp.out' || { cat '$tmpdir/imp.out'; false; }"
check "check --db reads it meanwhile (readers take no lock)" bash -c \
	"'$daemon' check --db '$tmpdir/two.db' >/dev/null; [ \$? != 2 ]"

# --- a writer that cannot commit says so, then recovers -----------------------
# Another process holds the database's write lock (BEGIN EXCLUSIVE) for a
# while: A's flushes fail (busy) and are retried.
python3 - "$tmpdir/two.db" "$tmpdir/held" <<'PY' &
import sqlite3, sys, os, time
db = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)
db.execute("BEGIN EXCLUSIVE")
open(sys.argv[2], "w").close()
time.sleep(12)
db.execute("ROLLBACK")
PY
locker=$!
pids+=("$locker")
degraded() {
	local i
	for i in $(seq 1 200); do
		curl -s "$base/healthz" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"]=="degraded" and d["storage"]["writer"]=="failing" and d["storage"]["error"] else 1)' && return 0
		sleep 0.1
	done
	curl -s "$base/healthz"
	return 1
}
check "/healthz says degraded, with the writer's error, while it cannot commit" degraded
check "/metrics: writer down and failed flushes counted" bash -c \
	"curl -s '$base/metrics' | grep -q '^memwatch_storage_writer_up 0\$' &&
	 curl -s '$base/metrics' | grep -q '^memwatch_storage_failed_flushes_total [1-9]'"
wait "$locker"
pids=("$a_pid")
recovered() {
	local i
	for i in $(seq 1 300); do
		curl -s "$base/healthz" | grep -q '"status":"ok"' && return 0
		sleep 0.1
	done
	curl -s "$base/healthz"
	return 1
}
check "... and ok again once the lock is gone" recovered
check "daemon A stops with status 0" mw_stop "$a_pid"
check "the lock went with it: B starts on two.db now" bash -c \
	"'$daemon' once --db '$tmpdir/two.db' >/dev/null 2>&1 || true; '$daemon' check --db '$tmpdir/two.db' >/dev/null; [ \$? != 2 ]"
finish
