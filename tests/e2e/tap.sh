# tap.sh - sourced by the end-to-end scripts: TAP lines the test runner
# counts ("ok N - what", "not ok N - what").
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
# check DESCRIPTION SHELL-CONDITION
check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }
# A free loopback port for a daemon under test.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
