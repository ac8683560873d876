#!/usr/bin/env bash
# stop_blackhole.sh DAEMON - a stop never waits on forwarding (issue 24):
# with a remote-write receiver that accepts the connection and never
# answers (timeout 10 minutes), SIGTERM ends the daemon at once (exit 0,
# well before the post's timeout: the bound, 60 s, is far from both) and
# the samples of its last ticks are in the file (the final flush comes
# before the forwarder is waited for).  Daemon and receiver ours,
# stopped by PID.  Loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

# the black hole: accepts, reads, never answers; says when a post came
python3 - "$tmpdir/bh.port" "$tmpdir/bh.seen" <<'PY' &
import socket, sys, time
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

cat >"$tmpdir/bh.ini" <<INI
[daemon]
interval = 200ms
[storage]
flush_interval = 30s
[remote_write.bh]
url = http://127.0.0.1:$bh_port/api/v1/write
match = {__name__=~"memwatch_system_.*"}
timeout = 10m
INI
mw_serve bh --config "$tmpdir/bh.ini"
check "daemon ready" wait_ready "$base/healthz"
check "a post is in flight to the receiver that never answers" wait_until 30 test -s "$tmpdir/bh.seen"
stop_ms=$(date +%s%3N)
kill -TERM "$mw_pid"
stopped() { ! kill -0 "$mw_pid" 2>/dev/null; }
check "SIGTERM ends it without waiting for the post's timeout" wait_until 60 stopped
stopped || kill -KILL "$mw_pid"	# failed: not for ten minutes
wait "$mw_pid"
rc=$?
untrack "$mw_pid"
check "exit status 0 (got $rc)" "[ $rc -eq 0 ]"
newest_ms() {
	"$daemon" export --db "$tmpdir/bh.db" --match memwatch_system_available_bytes --format json |
		python3 -c "import json,sys
print(max([p[0] for s in json.load(sys.stdin)['series'] for p in s['points']] or [0]))"
}
newest=$(newest_ms)
check "the last ticks are stored (newest $newest, stop at $stop_ms; flush interval 30 s)" \
	"[ $((stop_ms - newest)) -lt 5000 ]"
finish
