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

. "$mw_lib/blackhole.sh"
blackhole_start
blackhole_config "$tmpdir/bh.ini"
mw_serve bh --config "$tmpdir/bh.ini"
check "daemon ready" wait_ready "$base/healthz"
blackhole_stop TERM SIGTERM
newest_ms() {
	"$daemon" export --db "$tmpdir/bh.db" --match memwatch_system_available_bytes --format json |
		python3 -c "import json,sys
print(max([p[0] for s in json.load(sys.stdin)['series'] for p in s['points']] or [0]))"
}
newest=$(newest_ms)
check "the last ticks are stored (newest $newest, stop at $stop_ms; flush interval 30 s)" \
	"[ $((stop_ms - newest)) -lt 5000 ]"
finish
