#!/usr/bin/env bash
# robust.sh DAEMON - failures are visible and errors honest: one writer per
# database, a writer that cannot commit says so in /healthz and /metrics
# and recovers, the first tick is visible at once, and start-up errors
# name the option and exit 2.  Loopback only; daemons stopped by PID.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

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

check "max_request_size has an upper bound: 1TB refused (exit 2)" \
	expect_rc 2 "$daemon" run --set web.max_request_size=1TB --db "$tmpdir/e3.db" --listen off
check "... saying the limit" grep -q "too large" "$tmpdir/cmd.out"
check "max_connections has an upper bound" \
	expect_rc 2 "$daemon" run --set web.max_connections=1000000 --db "$tmpdir/e3.db" --listen off

# --- slow clients do not lock others out (slowloris) ------------------------
# Eight connections from 127.0.0.1 send a header line every 0.3 s for 15 s:
# with a per-IP limit of 8 they would hold every slot all that time.  The
# request head must arrive within header_timeout (1 s here): they are cut
# and /healthz answers well before they would have given up.
port=$(free_port)
base=http://127.0.0.1:$port
mw_start slow --listen "127.0.0.1:$port" --db "$tmpdir/slow.db" \
	--set web.max_connections_per_ip=8 --set web.header_timeout=1s
slow_pid=$mw_pid
check "daemon for the slow clients ready" wait_ready "$base/healthz"
python3 - "$port" >"$tmpdir/slowloris.out" 2>&1 <<'PY' &
import socket, sys, time
port = int(sys.argv[1]); socks = []
for i in range(8):
    s = socket.create_connection(("127.0.0.1", port)); s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n"); socks.append(s)
print("opened", len(socks), flush=True)
t0 = time.time(); cut = 0
while socks and time.time() - t0 < 15:
    for s in list(socks):
        try:
            s.sendall(b"X-Slow: 1\r\n")
        except OSError:
            socks.remove(s); cut += 1
    time.sleep(0.3)
print("cut by the server:", cut, flush=True)
PY
loris=$!
pids+=("$loris")
opened() {
	local i
	for i in $(seq 1 50); do grep -q opened "$tmpdir/slowloris.out" && return 0; sleep 0.1; done
	return 1
}
check "eight slow connections hold the per-IP slots" opened
served() {
	local i
	for i in $(seq 1 40); do
		curl -s -m 1 -o /dev/null -w '%{http_code}' "$base/healthz" | grep -q 200 && return 0
		sleep 0.1
	done
	return 1
}
check "/healthz is answered within 4 s while they keep sending (header_timeout 1 s)" served
wait "$loris"
pids=("$slow_pid")
check "all eight were cut by the server" grep -q "cut by the server: 8" "$tmpdir/slowloris.out"
check "/metrics counts them" bash -c \
	"curl -s '$base/metrics' | grep -Eq '^memwatch_web_slow_clients_closed_total ([8-9]|[1-9][0-9]+)\$'"
check "daemon for the slow clients stops with status 0" mw_stop "$slow_pid"

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

# --- one daemon per port --------------------------------------------------------
port=$(free_port)
mw_start p1 --listen "127.0.0.1:$port" --db "$tmpdir/p1.db"
p1=$mw_pid
check "daemon P1 ready on its port" wait_ready "http://127.0.0.1:$port/healthz"
check "a second daemon on the same port refuses to start (exit 2, naming --listen)" bash -c \
	"timeout 20 '$daemon' run --listen 127.0.0.1:$port --db '$tmpdir/p2.db' >'$tmpdir/p2.out' 2>&1; rc=\$?; [ \$rc = 2 ] && grep -q -- '--listen' '$tmpdir/p2.out' || { cat '$tmpdir/p2.out'; echo rc=\$rc; false; }"
# requests the server closes first ("Connection: close") leave its side of
# those connections in TIME_WAIT, which the restart below must not wait for
check "P1 answers requests it closes itself" bash -c \
	"for i in 1 2 3; do curl -s -f -o /dev/null -H 'Connection: close' http://127.0.0.1:$port/healthz || exit 1; done"
check "P1 stops with status 0" mw_stop "$p1"
mw_start p3 --listen "127.0.0.1:$port" --db "$tmpdir/p1.db"
p3=$mw_pid
check "a restart takes the port at once (no wait for TIME_WAIT)" wait_ready "http://127.0.0.1:$port/healthz"
check "P3 stops with status 0" mw_stop "$p3"

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
	curl -s "$base/healthz" | python3 -c 'import json,sys; d=json.load(sys.stdin); sys.exit(0 if d["status"]=="degraded" and d["storage"]["writer"]=="failing" and d["storage"]["error"] else 1)'
}
check "/healthz says degraded, with the writer's error, while it cannot commit" \
	wait_or_show 20 'curl -s "$base/healthz"' degraded
check "/metrics: writer down and failed flushes counted" bash -c \
	"curl -s '$base/metrics' | grep -q '^memwatch_storage_writer_up 0\$' &&
	 curl -s '$base/metrics' | grep -q '^memwatch_storage_failed_flushes_total [1-9]'"
wait "$locker"
pids=("$a_pid")
recovered() { curl -s "$base/healthz" | grep -q '"status":"ok"'; }
check "... and ok again once the lock is gone" wait_or_show 30 'curl -s "$base/healthz"' recovered
check "daemon A stops with status 0" mw_stop "$a_pid"
check "the lock went with it: B starts on two.db now" bash -c \
	"'$daemon' once --db '$tmpdir/two.db' >/dev/null 2>&1 || true; '$daemon' check --db '$tmpdir/two.db' >/dev/null; [ \$? != 2 ]"
finish
