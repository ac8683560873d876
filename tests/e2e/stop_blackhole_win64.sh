#!/usr/bin/env bash
# stop_blackhole_win64.sh - tests/api/stop_blackhole.sh for the Windows
# build under Wine: with a remote-write receiver that accepts and never
# answers (timeout 10 minutes), Ctrl+C ends the daemon at once with exit 0:
# the WinHTTP step in flight (waiting for the answer) is cancelled, not
# waited for (the bound, 60 s, is far from the 10 minutes), and the final
# flush has stored the last ticks.  Daemon and receiver ours, stopped by PID.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

# the black hole: accepts, reads, never answers; says when a post came
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
wine_serve bh --config "$(wine_path "$tmpdir/bh.ini")"
check "daemon ready" answers "$base/healthz"
check "a post is in flight to the receiver that never answers" wait_until 60 test -s "$tmpdir/bh.seen"
kill -INT "$mw_pid"
stopped() { ! kill -0 "$mw_pid" 2>/dev/null; }
check "Ctrl+C ends it without waiting for the post's timeout" wait_until 60 stopped
stopped || kill -KILL "$mw_pid"	# failed: not for ten minutes
wait "$mw_pid"
rc=$?
untrack "$mw_pid"
check "exit status 0 (got $rc)" "[ $rc -eq 0 ] || { tail -5 '$tmpdir/bh.log'; false; }"
check "it logged the orderly stop" "grep -q 'memwatchd stopped' '$tmpdir/bh.log'"
points=$(sqlite3 "$tmpdir/bh.db" "SELECT count(*) FROM chunk" 2>&1)
check "the final flush stored the ticks ($points chunks; flush interval 30 s)" "[ \"\$points\" -gt 0 ] 2>/dev/null"
finish
