#!/usr/bin/env bash
# restart_port_win64.sh - the Windows build under Wine gets its port back
# when restarted at once after serving pages: the daemon closes each
# "Connection: close" request first, so those connections sit in TIME_WAIT
# on its side when it stops; `sc stop` then `sc start` must still bind.
# A second daemon on the same port is still refused (the database lock
# refuses it first; a plain second bind fails on Windows).  Wine lets any
# socket rebind past TIME_WAIT, so it cannot show the SO_EXCLUSIVEADDRUSE
# failure itself: test_listen_options_win32 checks the option is not set,
# and docs/first-run-windows.md says how to confirm on real Windows.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

d=$tmpdir
wine_serve w --interval 1s
first=$mw_pid
# HTTP/1.0 without keep-alive, read to end of file before closing: the
# daemon must close first, so the TIME_WAIT is on its side whatever the
# scheduling (curl with "Connection: close" may race it and close first,
# leaving the TIME_WAIT on the client side instead).
for i in 1 2 3 4 5; do
	timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" &&
		printf "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3 &&
		cat <&3' _ "$port" >"$d/h$i" 2>/dev/null
done
check "the first daemon served pages the server side closed" "grep -q '\"status\":\"ok\"' '$d/h5'"
# ss shows the server side's TIME_WAIT (Wine's sockets are the host's)
if command -v ss >/dev/null; then
	tw=$(ss -Htan state time-wait "( sport = :$port )" | wc -l)
	check "its closed connections sit in TIME_WAIT on port $port ($tw)" "[ $tw -gt 0 ]"
fi
kill -INT "$first"
wait "$first"
rc=$?
untrack "$first"
check "it stops with exit 0" "[ $rc -eq 0 ] || { cat '$d/w.log'; false; }"

# restart at once on the same port and database
mw_start w2 --listen "127.0.0.1:$port" --db "$(wine_path "$d/w.db")" --interval 1s
second=$mw_pid
wait_ready "$base/healthz" 30
check "the restarted daemon binds the same port and answers" \
	"curl -sf -m 5 '$base/healthz' | grep -q '\"status\":\"ok\"' || { cat '$d/w2.log'; false; }"

# a second daemon on the same port, its own database: the bind fails
mw_start w3 --listen "127.0.0.1:$port" --db "$(wine_path "$d/other.db")" --interval 1s
third=$mw_pid
wait "$third"
rc=$?
untrack "$third"
check "a second daemon cannot share the port (exit $rc)" "[ $rc -ne 0 ] || { cat '$d/w3.log'; false; }"
check "it says the address is in use" "grep -qi 'listen\|bind\|in use' '$d/w3.log' || { cat '$d/w3.log'; false; }"
kill -INT "$second"
wait "$second"
untrack "$second"
finish
