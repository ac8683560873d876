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

. "$mw_lib/blackhole.sh"
blackhole_start
blackhole_config "$tmpdir/bh.ini"
wine_serve bh --config "$(wine_path "$tmpdir/bh.ini")"
check "daemon ready" answers "$base/healthz"
blackhole_stop INT Ctrl+C
check "it logged the orderly stop" "grep -q 'memwatchd stopped' '$tmpdir/bh.log'"
points=$(sqlite3 "$tmpdir/bh.db" "SELECT count(*) FROM chunk" 2>&1)
check "the final flush stored the ticks ($points chunks; flush interval 30 s)" "[ \"\$points\" -gt 0 ] 2>/dev/null"
finish
