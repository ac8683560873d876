# live_common.sh - sourced by the live benches (churn_live.sh, rss_live.sh):
# the daemon under test ($bin), a scratch folder ($tmp) removed at exit,
# the PIDs started ($pids, each stopped by PID at exit) and a free
# loopback port.  Not run on its own.
#
#   . bench/live_common.sh; live_setup NAME
live_setup() {
	bin=build/native/memwatchd
	[ -x "$bin" ] || { echo "$1: build $bin first (make native)" >&2; exit 2; }
	command -v curl >/dev/null || { echo "$1: needs curl" >&2; exit 2; }
	tmp=$(mktemp -d)
	pids=()
	trap live_cleanup EXIT
}

live_cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# live_start NAME BIN INTERVAL: BIN run on a fresh database $tmp/NAME.db and
# a free port, sampling every INTERVAL; returns once it answers /healthz,
# with its PID in pid and its URL in base (the caller's locals, if it
# declared them).  Exits with its log if it stops before answering.
live_start() {
	local port
	port=$(free_port)
	base=http://127.0.0.1:$port
	"$2" run --db "$tmp/$1.db" --listen "127.0.0.1:$port" --interval "$3" \
		>"$tmp/$1.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	until curl -sf -o /dev/null "$base/healthz"; do
		kill -0 "$pid" 2>/dev/null || { cat "$tmp/$1.log" >&2; exit 1; }
		sleep 0.1
	done
}
