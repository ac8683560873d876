#!/usr/bin/env bash
# first_tick.sh DAEMON - the first collector tick is readable at once on a
# fresh database, whatever batch reaches the writer first (the leak
# gauges, the self metrics): with a flush interval of a minute, the
# system collector's first point must be in /api/v1/series long before
# the first regular flush (the bound, 10 s, is far from both).  Daemon
# ours, stopped by PID.  Loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

if ! command -v curl >/dev/null; then
	skip "curl missing"
	finish
	exit 0
fi

# has_system BASE: the system collector's first point is stored.
has_system() {
	curl -sf "$1/api/v1/series?match=memwatch_system_available_bytes" 2>/dev/null |
		grep -q '"memwatch_system_available_bytes"'
}

# the leak judgement runs at once too (refresh 1 s), so its gauges' batch
# competes with the collectors' first one
mw_serve ft --interval 1s --set storage.flush_interval=60s --set leak.refresh=1s \
	--set leak.cpu_budget=0
check "daemon ready" wait_ready "$base/healthz"
check "the first tick is readable before the first regular flush" wait_until 10 has_system "$base"
check "daemon stops cleanly" mw_stop "$mw_pid"
finish
