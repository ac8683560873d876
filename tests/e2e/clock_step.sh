#!/usr/bin/env bash
# clock_step.sh - a wall clock stepped back, then forward, under a running
# daemon (issue 22): tests/e2e/wallclock_shim.c, built here and preloaded,
# moves the daemon's wall clock by the seconds in a file this test
# rewrites.  The daemon starts an hour ahead; the step back of an hour
# must not stop remote write (tests/e2e/remote_write_fake.py receives),
# the background leak judgement or the slow-client guard, and remote write
# must deliver the points stamped after the step without sending any
# stamped after the present; the step forward of an hour is logged, and
# afterwards no series' newest point lies ahead of the daemon's clock and
# the remote-write status says caught up.  Linux only (LD_PRELOAD).
# The kernel's clock does not move: a CLOCK_REALTIME wait the daemon
# starts while an hour ahead ends an hour late, as any wait under way
# during a real step back of an hour does; before the waits moved to the
# monotonic clock the daemon stalled from its start.
# Every process is started here and stopped by its PID; loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/fake_receiver.bash"
need cc curl python3
daemon=$root/build/native/memwatchd
need_file "make build/native/memwatchd" "$daemon"

shim=$tmpdir/wallclock_shim.so
check "the wall-clock shim builds" \
	cc -shared -fPIC -O1 -o "$shim" "$root/tests/e2e/wallclock_shim.c" -ldl
offset=$tmpdir/offset
echo 3600 >"$offset"

fake_receiver_start

cat >"$tmpdir/mw.ini" <<INI
[daemon]
interval = 200ms
[storage]
flush_interval = 500ms
[web]
header_timeout = 1s
timeout = 60s
$(forwarding_ini "$recv/ok")
INI

export MW_WALLCLOCK_OFFSET_FILE=$offset
LD_PRELOAD=$shim mw_serve cs --config "$tmpdir/mw.ini"
check "daemon ready (its clock an hour ahead)" wait_ready "$base/healthz"

# Python over the receiver's dump (d: samples [[labels, ts, value]...]).
# recv_py CODE: prints what CODE prints.
recv_py() {
	curl -sf "$recv/dump?path=/ok" | python3 -c "import json,sys
d=json.load(sys.stdin)['samples']
sys_ts=[t for k,t,v in d if 'memwatch_system_available_bytes' in k]
$1"
}
# the daemon's clock in ms, as the shim moves it
daemon_now_ms() { echo $(( $(date +%s%3N) + $(cat "$offset") * 1000 )); }
has_system_below() { [ "$(recv_py "print(sum(1 for t in sys_ts if t < $1))")" -gt 0 ]; }
has_system_above() { [ "$(recv_py "print(sum(1 for t in sys_ts if t > $1))")" -gt 0 ]; }
checks_above() { [ "$(metric memwatch_leak_checks_total)" -gt "$1" ]; }
guard_above() { [ "$(metric memwatch_web_slow_clients_closed_total)" -gt "$1" ]; }
# slow_client: a request head trickled a byte every 200 ms (MHD's idle
# timeout never fires); true when the server closes it within 15 s.
slow_client() {
	python3 - "$port" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(0.2)
head = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
end = time.monotonic() + 15
i = 0
while time.monotonic() < end:
    try:
        s.send(head[i % len(head):i % len(head) + 1])
        i += 1
        if s.recv(1) == b"":
            sys.exit(0)
    except socket.timeout:
        continue
    except OSError:
        sys.exit(0)
sys.exit(1)
PY
}

check "remote write delivers before the step" wait_until 20 has_system_above 0
check "the leak judgement runs before the step" wait_until 20 checks_above 0
before_max=$(recv_py "print(max(sys_ts or [0]))")

# ---- the wall clock steps back an hour --------------------------------------
echo 0 >"$offset"
step_back_ms=$(daemon_now_ms)
c0=$(metric memwatch_leak_checks_total)
g0=$(metric memwatch_web_slow_clients_closed_total)
check "after a step back remote write delivers the points stamped after it" \
	wait_until 20 has_system_below $((before_max - 1800000))
check "after a step back the leak judgement keeps running" wait_until 20 checks_above $((c0 + 2))
leak_after_step() {
	[ "$(recv_py "print(sum(1 for k,t,v in d if 'memwatch_leak_' in k and t < $before_max - 1800000))")" -gt 0 ]
}
check "  ... and its series reach the receiver" wait_until 20 leak_after_step
check "after a step back the slow-client guard still cuts" slow_client
check "  ... and counts it" wait_until 10 guard_above "$g0"
# from the first point stamped after the step on, nothing the receiver
# got may lie ahead of the daemon's clock (the points stamped before the
# step and sent before it are an hour ahead: they are not sent again)
now=$(daemon_now_ms)
future_after_step() {
	recv_py "first=min([i for i,(k,t,v) in enumerate(d) if t < $before_max - 1800000] or [len(d)])
print(sum(1 for k,t,v in d[first:] if t > $now + 2000))"
}
check "remote write sent nothing stamped after the present" test "$(future_after_step)" -eq 0
check "the step back is logged" grep -q "wall clock stepped back by 1h" "$tmpdir/cs.log"
caught_up() {
	curl -sf "$base/api/v1/remote_write" | python3 -c "import json,sys
r=json.load(sys.stdin)['remote_write'][0]
sys.exit(0 if r['caught_up'] and r['lag_seconds'] < 60 else 1)"
}
check "after a step back the remote-write status says caught up, lag under a minute" \
	wait_until 20 caught_up

# ---- the wall clock steps forward an hour -----------------------------------
echo 3600 >"$offset"
fwd_ms=$(daemon_now_ms)
c1=$(metric memwatch_leak_checks_total)
check "after a step forward remote write delivers" wait_until 20 has_system_above "$fwd_ms"
check "after a step forward the leak judgement keeps running" wait_until 20 checks_above $((c1 + 2))
check "the step forward is logged" wait_until 10 grep -q "wall clock stepped forward by 1h" "$tmpdir/cs.log"
check "after a step forward the remote-write status says caught up, lag under a minute" \
	wait_until 20 caught_up
newest_ok() {
	curl -sf "$base/api/v1/series?match=memwatch_system_available_bytes" | python3 -c "import json,sys
now=$(daemon_now_ms)
s=json.load(sys.stdin)
s=s.get('data', s.get('series', s))
sys.exit(0 if s and all(x['last_ts'] <= now + 2000 for x in s) else 1)"
}
check "no series' newest point lies ahead of the daemon's clock" newest_ok
check "daemon stops cleanly" mw_stop "$mw_pid"
steps_stored() {
	"$daemon" export --db "$tmpdir/cs.db" --match memwatch_clock_step_seconds --format csv |
		awk -F, 'NR > 1 { gsub(/"/, "", $NF); printf "%.0f\n", $NF }' | sort -n | tr '\n' ' '
}
check "both steps are stored for the leak judge: memwatch_clock_step_seconds -3600 and 3600 (got $(steps_stored))" \
	'[ "$(steps_stored)" = "-3600 3600 " ]'
unset MW_WALLCLOCK_OFFSET_FILE
finish
