#!/usr/bin/env bash
# service_win64.sh - the Windows service through Wine's service control
# manager: `service install` registers it, `sc start` runs it as a service
# (the HTTP API answers), `sc stop` stops it in order (samples written,
# "memwatchd stopped" logged), `service uninstall` removes it.  A prefix
# of its own keeps the auto-start service away from the other tests.
# Also the status protocol as Wine's SCM shows it (RUNNING only once the
# server answers, STOPPED with exit code 0, a failed start reported with a
# service-specific exit code), the Event Log source key, and --config with a
# relative database resolving next to the config file.  What install sets
# beyond CreateService (description, preshutdown time-out, recovery) read
# back from the service's registry key (Wine's SCM keeps no FailureActions:
# there the install's own report is checked); --firewall through Wine's
# netsh stub, whose FIXME line shows the command it was given; and a config
# file broken after install: the start fails with exit code 2 and the error
# reaches the Event Log (Wine's ReportEventW prints it on the err:eventlog
# channel of the session's services.exe).
set -u
cd "$(dirname "$0")/../.."
export MW_WINEPREFIX=$PWD/build/wine/service-prefix WINEPREFIX=$PWD/build/wine/service-prefix
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
exe=build/win64/memwatchd.exe
. tests/lib/tap.sh
w() { timeout 60 wine "$@" 2>&1 | tr -d '\r'; }

dir=$tmpdir
port=$(free_port)
# this test's own prefix: its service and its wineserver
at_exit 'w "$exe" service uninstall >/dev/null; wineserver -k 2>/dev/null'
scripts/wine-run.sh "$exe" --version >/dev/null	# makes the prefix once

w "$exe" service install --firewall --listen "127.0.0.1:$port" --db "$(wine_path "$dir/svc.db")" \
	--log-file "$(wine_path "$dir/svc.log")" >"$dir/install"
check "service install registers 'memwatch'" "grep -q \"installed service 'memwatch'\" '$dir/install' || { cat '$dir/install'; false; }"
svckey='HKLM\SYSTEM\CurrentControlSet\Services\memwatch'
w reg query "$svckey" >"$dir/svckey"
check "install sets a description" "grep -Eq 'Description +REG_SZ +Samples the memory' '$dir/svckey' || { cat '$dir/svckey'; false; }"
check "install sets the preshutdown time-out (30 s)" "grep -Eq 'PreshutdownTimeout +REG_DWORD +0x7530' '$dir/svckey' || { cat '$dir/svckey'; false; }"
check "install sets recovery: restart after 5 s, 10 s, 60 s" "grep -q 'recovery: restart after 5 s, 10 s, 60 s' '$dir/install' || { cat '$dir/install'; false; }"
check "--firewall with a loopback address: no rule, and says why" "grep -q 'firewall: no rule: .127.0.0.1:$port. is reachable from this machine only' '$dir/install' || { cat '$dir/install'; false; }"
evkey='HKLM\SYSTEM\CurrentControlSet\Services\EventLog\Application\memwatch'
w reg query "$evkey" >"$dir/evkey"
check "install registers the Event Log source (EventMessageFile)" "grep -q EventMessageFile '$dir/evkey' || { cat '$dir/evkey'; false; }"
w sc start memwatch >"$dir/start"
# Poll the SCM: the first time it says RUNNING, the server must answer.
running_ok=none
for _ in $(seq 1 200); do
	if w sc query memwatch | grep -q RUNNING; then
		if curl -sf -m 2 "http://127.0.0.1:$port/healthz" >"$dir/health" 2>/dev/null; then
			running_ok=yes
		else
			running_ok=no
		fi
		break
	fi
	sleep 0.05
done
check "sc start: START_PENDING with a checkpoint and a wait hint" "grep -q START_PENDING '$dir/start' && grep -Eq 'CHECKPOINT *: *0x[1-9]' '$dir/start' && grep -Eq 'WAIT_HINT *: *0x[1-9a-f]' '$dir/start' || { cat '$dir/start'; false; }"
check "RUNNING is reported only once the server answers" "[ \$running_ok = yes ] || { echo \$running_ok; cat '$dir/start' '$dir/svc.log'; false; }"
check "started by the SCM, it serves /healthz" "grep -q '\"status\":\"ok\"' '$dir/health' || { cat '$dir/start' '$dir/svc.log'; false; }"
check "the SCM reports it RUNNING" "w sc query memwatch | grep -q RUNNING"
w sc stop memwatch >"$dir/stop"
: >"$dir/states"
for _ in $(seq 1 200); do
	w sc query memwatch >"$dir/q"
	grep STATE "$dir/q" >>"$dir/states"
	grep -q STOPPED "$dir/q" && break
	sleep 0.05
done
check "sc stop: it reaches STOPPED" "w sc query memwatch | grep -q STOPPED"
# The handler reports STOP_PENDING before it returns, and the SCM answers
# ControlService with the status it holds then: no race with a fast stop.
check "sc stop: answered STOP_PENDING (reported before the stop begins)" "grep -Eq 'STATE *: *3 +STOP_PENDING' '$dir/stop' || { cat '$dir/stop' '$dir/states'; false; }"
check "sc stop: exit code 0 (nothing for the SCM to recover from)" "w sc query memwatch | grep -Eq 'WIN32_EXIT_CODE *: *0 ' || { w sc query memwatch; false; }"
check "sc stop: it wrote what was in flight and logged the stop" "grep -q 'memwatchd stopped' '$dir/svc.log' || { cat '$dir/svc.log'; false; }"
w "$exe" service uninstall >"$dir/uninstall"
check "service uninstall removes it" "grep -q \"removed service 'memwatch'\" '$dir/uninstall'"
check "uninstall removes the Event Log source" "! w reg query '$evkey' | grep -q EventMessageFile"

# A start that fails (the database path is a folder; install makes the
# database's folder itself, so a missing one no longer fails): STOPPED
# with ERROR_SERVICE_SPECIFIC_ERROR (1066) and the daemon's exit code 2.
mkdir -p "$dir/a_folder.db"
w "$exe" service install --listen "127.0.0.1:$port" --db "$(wine_path "$dir/a_folder.db")" \
	--log-file "$(wine_path "$dir/bad.log")" >"$dir/install-bad"
w sc start memwatch >"$dir/start-bad"
for _ in $(seq 1 120); do
	w sc query memwatch >"$dir/q-bad"	# Wine's sc has no queryex
	grep -q STOPPED "$dir/q-bad" && break
	sleep 0.1
done
check "a failed start: STOPPED, WIN32_EXIT_CODE 1066, SERVICE_EXIT_CODE 2" "grep -Eq 'WIN32_EXIT_CODE *: *1066' '$dir/q-bad' && grep -Eq 'SERVICE_EXIT_CODE *: *2 ' '$dir/q-bad' || { cat '$dir/q-bad' '$dir/bad.log'; false; }"
w "$exe" service uninstall >/dev/null

# --config with a relative [storage] db: next to the config file.
mkdir -p "$dir/conf"
printf '[storage]\ndb = rel.db\n[web]\nlisten = 127.0.0.1:%s\n' "$port" >"$dir/conf/memwatch.ini"
w "$exe" service install --config "$(wine_path "$dir/conf/memwatch.ini")" \
	--log-file "$(wine_path "$dir/conf.log")" >"$dir/install-conf"
check "--config: the relative db is passed resolved next to the config" "grep -qF 'conf\\rel.db' '$dir/install-conf' || { cat '$dir/install-conf'; false; }"
w sc start memwatch >/dev/null
for _ in $(seq 1 80); do
	curl -sf -m 2 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
	sleep 0.25
done
check "--config: the service writes rel.db next to the config file" "[ -f '$dir/conf/rel.db' ] || { ls '$dir' '$dir/conf'; cat '$dir/conf.log'; false; }"
w sc stop memwatch >/dev/null
for _ in $(seq 1 80); do
	w sc query memwatch | grep -q STOPPED && break
	sleep 0.25
done
w "$exe" service uninstall >/dev/null

# --firewall beyond loopback: netsh replaces the rule "memwatch" by one for
# the port and this executable; uninstall deletes it.
WINEDEBUG=fixme+netsh w "$exe" service install --firewall --listen "0.0.0.0:$port" \
	--set web.allow_anonymous=true --db "$(wine_path "$dir/fw.db")" >"$dir/install-fw"
check "--firewall: netsh adds an inbound rule for the port and memwatchd.exe" "grep 'netsh:wmain' '$dir/install-fw' | grep -F '\"add\" L\"rule\" L\"name=memwatch\" L\"dir=in\" L\"action=allow\" L\"protocol=TCP\" L\"localport=$port\"' | grep -q 'program=.*memwatchd.exe' || { cat '$dir/install-fw'; false; }"
check "--firewall: the rule is replaced, not added twice" "grep 'netsh:wmain' '$dir/install-fw' | head -1 | grep -qF '\"delete\" L\"rule\" L\"name=memwatch\"' || { cat '$dir/install-fw'; false; }"
WINEDEBUG=fixme+netsh w "$exe" service uninstall >"$dir/uninstall-fw"
check "uninstall deletes the firewall rule" "grep 'netsh:wmain' '$dir/uninstall-fw' | grep -qF '\"delete\" L\"rule\" L\"name=memwatch\"' || { cat '$dir/uninstall-fw'; false; }"

# A config file that breaks after install: the error found before the
# service dispatcher reaches the Event Log, and the SCM sees exit code 2.
# A new session whose services.exe prints Wine's eventlog channel to a file.
printf '[web]\nlisten = 127.0.0.1:%s\n' "$port" >"$dir/conf/broken.ini"
w "$exe" service install --config "$(wine_path "$dir/conf/broken.ini")" \
	--db "$(wine_path "$dir/broken.db")" >/dev/null
printf '[web]\nlisten = 127.0.0.1:%s\nno_such_key = 1\n' "$port" >"$dir/conf/broken.ini"
wineserver -k 2>/dev/null
wineserver -w 2>/dev/null
WINEDEBUG=err+eventlog timeout 60 wine sc start memwatch >"$dir/start-broken" 2>"$dir/session.err"
for _ in $(seq 1 120); do
	w sc query memwatch >"$dir/q-broken"
	grep -q STOPPED "$dir/q-broken" && grep -q 'eventlog' "$dir/session.err" && break
	sleep 0.1
done
check "a bad config file at start: STOPPED, WIN32_EXIT_CODE 1066, SERVICE_EXIT_CODE 2" "grep -Eq 'WIN32_EXIT_CODE *: *1066' '$dir/q-broken' && grep -Eq 'SERVICE_EXIT_CODE *: *2 ' '$dir/q-broken' || { cat '$dir/q-broken'; false; }"
check "a bad config file at start: the error is in the Event Log" "grep 'err:eventlog' '$dir/session.err' | grep -q \"broken.ini:3: unknown key 'no_such_key'\" || { cat '$dir/session.err'; false; }"
w "$exe" service configure --firewall=abc >"$dir/configure-bad"
check "service configure --firewall=abc: a clear error, nothing changed" "grep -q \"no port in 'abc'\" '$dir/configure-bad' && ! grep -q recovery '$dir/configure-bad' || { cat '$dir/configure-bad'; false; }"
w "$exe" service uninstall >/dev/null
w "$exe" service uninstall >"$dir/again"
check "uninstalling again fails with a clear message" "grep -q \"no service 'memwatch'\" '$dir/again'"
finish
