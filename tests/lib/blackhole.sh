# tests/lib/blackhole.sh - a remote-write receiver that accepts, reads the
# request and never answers, and the config that points memwatchd at it
# (timeout 10 minutes), for the stop tests (tests/api/stop_blackhole.sh,
# tests/e2e/stop_blackhole_win64.sh).  Source it after tap.sh.

# blackhole_start: the receiver in the background (stopped at exit), its
# port in bh_port; each post it has read adds a line to $tmpdir/bh.seen.
blackhole_start() {
	python3 - "$tmpdir/bh.port" "$tmpdir/bh.seen" <<'PY' &
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    c.recv(65536)
    open(sys.argv[2], "a").write("post\n")
PY
	bh_pid=$!
	track "$bh_pid"
	check "the black-hole receiver listens" wait_until 10 test -s "$tmpdir/bh.port"
	bh_port=$(cat "$tmpdir/bh.port")
}

# blackhole_config FILE: sampling every 200 ms, flushes every 30 s (so
# only the final flush stores the last ticks), system series sent to the
# receiver with a 10-minute timeout.
blackhole_config() {
	cat >"$1" <<INI
[daemon]
interval = 200ms
[storage]
flush_interval = 30s
[remote_write.bh]
url = http://127.0.0.1:$bh_port/api/v1/write
match = {__name__=~"memwatch_system_.*"}
timeout = 10m
INI
}

# blackhole_stop SIGNAL NAME: once a post is in flight to the receiver,
# send SIGNAL (TERM, INT) to the daemon $mw_pid and check it ends without
# waiting for the post's 10 minutes (bounded to 60 s, then killed) with
# exit status 0.  The time of the stop in stop_ms.
blackhole_stop() {
	local rc
	check "a post is in flight to the receiver that never answers" wait_until 60 test -s "$tmpdir/bh.seen"
	stop_ms=$(date +%s%3N)
	kill -"$1" "$mw_pid"
	check "$2 ends it without waiting for the post's timeout" wait_until 60 bh_daemon_gone
	bh_daemon_gone || kill -KILL "$mw_pid"	# failed: not for ten minutes
	wait "$mw_pid"
	rc=$?
	untrack "$mw_pid"
	check "exit status 0 (got $rc)" "[ $rc -eq 0 ] || { tail -5 '$tmpdir/bh.log'; false; }"
}

bh_daemon_gone() { ! kill -0 "$mw_pid" 2>/dev/null; }
