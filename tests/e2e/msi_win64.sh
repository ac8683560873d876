#!/usr/bin/env bash
# msi_win64.sh - the MSI (make msi, packaging/windows/memwatch.wxs) under
# Wine's msiexec: a silent install with properties puts memwatchd.exe under
# Program Files\memwatch and the config under ProgramData\memwatch,
# registers the service with the properties as its arguments, runs
# `service configure` (preshutdown time-out; the firewall rule through
# Wine's netsh stub, whose FIXME line shows the command), registers the
# Event Log source and starts the service, which answers on the chosen
# port.  A higher version upgrades it keeping the edited config and the
# database; msiexec /x removes the service, the Event Log source and the
# firewall rule and leaves the data.  Skipped without wixl/msibuild.
#
# A prefix of its own (the MSI's service starts automatically).  msiexec
# runs with WINEDEBUG=fixme+netsh: its custom actions (memwatchd.exe) and
# their netsh inherit its stderr, so the netsh lines land in its output.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh
if ! command -v wixl >/dev/null 2>&1 || ! command -v msibuild >/dev/null 2>&1; then
	skip "no wixl/msibuild (Debian's wixl and msitools; scripts/deps.sh win64 installs them)"
	finish
	exit 0
fi
export MW_WINEPREFIX=$PWD/build/wine/msi-prefix WINEPREFIX=$PWD/build/wine/msi-prefix
export WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
w() { timeout 120 wine "$@" 2>&1 | tr -d '\r'; }

dir=$tmpdir
port=$(free_port)
port2=$(free_port)
version=$(sed -n 's/^VERSION := //p' Makefile)
# A newer version for the upgrade.  Wine's msi compares packed versions as
# signed numbers: a major of 128 or more would look older, so major + 1.
newer=$((${version%%.*} + 1)).0.0
msi=build/msi/memwatch-$version.msi
msi2=build/msi/memwatch-$newer.msi
pf=$WINEPREFIX/drive_c/Program\ Files/memwatch
data=$WINEPREFIX/drive_c/ProgramData/memwatch
svckey='HKLM\SYSTEM\CurrentControlSet\Services\memwatch'
evkey='HKLM\SYSTEM\CurrentControlSet\Services\EventLog\Application\memwatch'

make --no-print-directory -s "$msi" "$msi2" >"$dir/make" 2>&1
check "make builds the MSI with wixl" "[ -s '$msi' ] && [ -s '$msi2' ] || { cat '$dir/make'; false; }"
check "the config file's component is Permanent and NeverOverwrite" "msiinfo export '$msi' Component | grep -P '^ConfigFile\\t.*\\t400\\t' || { msiinfo export '$msi' Component; false; }"

at_exit 'w msiexec /x "$(wine_path "$root/$msi2")" /qn >/dev/null; w msiexec /x "$(wine_path "$root/$msi")" /qn >/dev/null; wineserver -k 2>/dev/null'
# A new prefix every run: an installed product, an auto-start service or
# data left by an earlier run would change what this one sees.
wineserver -k 2>/dev/null
wineserver -w 2>/dev/null
rm -rf "$WINEPREFIX"
scripts/wine-run.sh build/win64/memwatchd.exe --version >/dev/null	# makes the prefix

WINEDEBUG=fixme+netsh w msiexec /i "$(wine_path "$root/$msi")" /qn LISTEN_PORT="$port" WATCH=notepad.exe \
	ENABLE_FIREWALL=1 /l*v "$(wine_path "$dir/install.log")" >"$dir/install"
check "msiexec /i /qn succeeds" "tr -d '\\000' <'$dir/install.log' | grep -q 'Product: memwatch -- Installation operation completed successfully\\|INSTALL. Return value 1' || { tr -d '\\000' <'$dir/install.log' | tail -40; false; }"
check "memwatchd.exe lands under Program Files\\memwatch" "[ -f '$pf/memwatchd.exe' ]"
check "the config lands under ProgramData\\memwatch" "cmp -s config/memwatch.ini '$data/memwatch.ini'"
w reg query "$svckey" >"$dir/svckey"
check "the service runs memwatchd.exe with the properties as arguments" "grep ImagePath '$dir/svckey' | grep -F 'memwatchd.exe run --config \"C:\\ProgramData\\memwatch\\memwatch.ini\" --db \"C:\\ProgramData\\memwatch\\memwatch.db\"' | grep -F -- '--listen 127.0.0.1:$port --watch \"notepad.exe\"' || { cat '$dir/svckey'; false; }"
check "service configure ran: preshutdown time-out 30 s" "grep -Eq 'PreshutdownTimeout +REG_DWORD +0x7530' '$dir/svckey' || { cat '$dir/svckey'; false; }"
check "service configure ran: the data folder is Administrators and SYSTEM only" "grep -qF 'data folder C:\ProgramData\memwatch: Administrators and SYSTEM only' '$dir/install' || { cat '$dir/install'; false; }"
check "ENABLE_FIREWALL=1: a rule for the port and memwatchd.exe" "grep 'netsh:wmain' '$dir/install' | grep -F 'L\"add\" L\"rule\" L\"name=memwatch\"' | grep -F 'localport=$port' | grep -q 'program=C:.*Program Files.*memwatchd.exe' || { cat '$dir/install'; false; }"
check "the Event Log source is registered" "w reg query '$evkey' | grep -q 'EventMessageFile.*EventCreate.exe'"
healthy=no
for _ in $(seq 1 120); do
	if curl -sf -m 2 "http://127.0.0.1:$port/healthz" >"$dir/health" 2>/dev/null; then
		healthy=yes
		break
	fi
	sleep 0.25
done
check "the installed service starts and answers /healthz on LISTEN_PORT" "[ \$healthy = yes ] || { w sc query memwatch; cat '$data/memwatch.log'; false; }"
check "the database is under ProgramData\\memwatch" "[ -s '$data/memwatch.db' ]"

# An upgrade keeps an edited config and the database.
echo "; edited by the administrator" >>"$data/memwatch.ini"
db_inode=$(stat -c %i "$data/memwatch.db")
WINEDEBUG=fixme+netsh w msiexec /i "$(wine_path "$root/$msi2")" /qn LISTEN_PORT="$port2" /l*v "$(wine_path "$dir/upgrade.log")" >"$dir/upgrade"
w reg query "$svckey" >"$dir/svckey2"
check "upgrade: the service now has the new arguments" "grep ImagePath '$dir/svckey2' | grep -qF -- '--listen 127.0.0.1:$port2' || { cat '$dir/svckey2'; tr -d '\\000' <'$dir/upgrade.log' | grep -v ^Property | tail -30; false; }"
check "upgrade: the edited config is kept" "tail -1 '$data/memwatch.ini' | grep -q 'edited by the administrator'"
check "upgrade: the database is kept" "[ \"\$(stat -c %i '$data/memwatch.db')\" = '$db_inode' ]"
healthy=no
for _ in $(seq 1 120); do
	if curl -sf -m 2 "http://127.0.0.1:$port2/healthz" >/dev/null 2>&1; then
		healthy=yes
		break
	fi
	sleep 0.25
done
check "upgrade: the service answers on the new port" "[ \$healthy = yes ] || { w sc query memwatch; tail -20 '$data/memwatch.log'; false; }"

WINEDEBUG=fixme+netsh w msiexec /x "$(wine_path "$root/$msi2")" /qn /l*v "$(wine_path "$dir/remove.log")" >"$dir/remove"
check "msiexec /x: the service is gone" "! w reg query '$svckey' | grep -q ImagePath"
check "msiexec /x: the Event Log source is gone" "! w reg query '$evkey' | grep -q EventMessageFile"
check "msiexec /x: the firewall rule is deleted" "grep -F 'L\"delete\" L\"rule\" L\"name=memwatch\"' '$dir/remove' || { cat '$dir/remove'; false; }"
check "msiexec /x: memwatchd.exe is gone" "[ ! -e '$pf/memwatchd.exe' ]"
check "msiexec /x: the data is left (database, config)" "[ -s '$data/memwatch.db' ] && [ -s '$data/memwatch.ini' ]"
check "the .exe imports only system DLLs" "! x86_64-w64-mingw32-objdump -p build/win64/memwatchd.exe | awk '/DLL Name:/ { print \$3 }' | grep -viE '^(kernel32|advapi32|msvcrt|ntdll|shell32|winhttp|ws2_32|psapi|pdh|user32|ole32|oleaut32|secur32|crypt32|bcrypt)\\.dll\$'"
finish
