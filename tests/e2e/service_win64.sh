#!/usr/bin/env bash
# service_win64.sh - the Windows service through Wine's service control
# manager: `service install` registers it, `sc start` runs it as a service
# (the HTTP API answers), `sc stop` stops it in order (samples written,
# "memwatchd stopped" logged), `service uninstall` removes it.  A prefix
# of its own keeps the auto-start service away from the other tests.
set -u
cd "$(dirname "$0")/../.."
export MW_WINEPREFIX=$PWD/build/wine/service-prefix WINEPREFIX=$PWD/build/wine/service-prefix
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
exe=build/win64/memwatchd.exe
. tests/e2e/tap.sh
w() { timeout 60 wine "$@" 2>&1 | tr -d '\r'; }

dir=$(mktemp -d)
winpath() { local p=$1; echo "Z:${p//\//\\}"; }
port=$(free_port)
cleanup() {
	w "$exe" service uninstall >/dev/null
	wineserver -k 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
scripts/wine-run.sh "$exe" --version >/dev/null	# makes the prefix once

w "$exe" service install --listen "127.0.0.1:$port" --db "$(winpath "$dir/svc.db")" \
	--log-file "$(winpath "$dir/svc.log")" >"$dir/install"
check "service install registers 'memwatch'" "grep -q \"installed service 'memwatch'\" '$dir/install' || { cat '$dir/install'; false; }"
w sc start memwatch >"$dir/start"
for _ in $(seq 1 80); do
	curl -sf -m 2 "http://127.0.0.1:$port/healthz" >"$dir/health" 2>/dev/null && break
	sleep 0.25
done
check "started by the SCM, it serves /healthz" "grep -q '\"status\":\"ok\"' '$dir/health' || { cat '$dir/start' '$dir/svc.log'; false; }"
check "the SCM reports it RUNNING" "w sc query memwatch | grep -q RUNNING"
w sc stop memwatch >"$dir/stop"
for _ in $(seq 1 80); do
	w sc query memwatch | grep -q STOPPED && break
	sleep 0.25
done
check "sc stop: it reaches STOPPED" "w sc query memwatch | grep -q STOPPED"
check "sc stop: it wrote what was in flight and logged the stop" "grep -q 'memwatchd stopped' '$dir/svc.log' || { cat '$dir/svc.log'; false; }"
w "$exe" service uninstall >"$dir/uninstall"
check "service uninstall removes it" "grep -q \"removed service 'memwatch'\" '$dir/uninstall'"
w "$exe" service uninstall >"$dir/again"
check "uninstalling again fails with a clear message" "grep -q \"no service 'memwatch'\" '$dir/again'"
