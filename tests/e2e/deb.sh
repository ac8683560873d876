#!/usr/bin/env bash
# deb.sh - the Debian package (make deb; packaging/debian/,
# scripts/build-deb.sh) built, checked by lintian, installed with dpkg,
# its unit verified and its ExecStart= run the way systemd would (its
# User=, its capabilities, no others) until it answers /healthz, then
# removed and purged.
#
# Installing needs root (CI runs as root): as another user everything past
# lintian is one SKIP.  The machine is left as it was, on failure too: the
# package is purged, and the memwatch user and the folders it made are
# removed again if they were not there before.  A machine that already has
# a memwatch package (or its /etc/memwatch, /var/lib/memwatch) is not
# touched: SKIP.  Where systemd runs, a policy-rc.d that refuses every
# start is put in place for the test (when there is none), so that
# installing does not start the real service.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib/tap.sh
# Stopped (SIGTERM, ^C): exit, so that tap.sh's EXIT trap restores the
# machine before the shell ends.
trap 'exit 143' TERM
trap 'exit 130' INT
need dpkg-deb dpkg-shlibdeps lintian

version=$(sed -n 's/^VERSION := //p' Makefile)

# ---- build and lintian --------------------------------------------------------
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 deb >"$tmpdir/make.out" 2>&1
rc=$?
deb=$(tail -n 1 "$tmpdir/make.out")
check "make deb builds memwatch_${version}_ARCH.deb" \
	"[ $rc -eq 0 ] && [[ '$deb' == build/deb/memwatch_${version}_*.deb ]] && [ -f '$deb' ] || { cat '$tmpdir/make.out'; false; }"
[ -f "$deb" ] || { finish; exit 1; }
deb=$root/$deb

# Errors fail; warnings (and infos) are listed.  lintian warns that it runs
# as root, which is not a tag.
lintian --info --display-info "$deb" >"$tmpdir/lintian.out" 2>&1
check "lintian: no errors" "! grep '^E: ' '$tmpdir/lintian.out'"
grep -E '^[WI]: ' "$tmpdir/lintian.out" | sed 's/^/# lintian /'

if [ "$(id -u)" -ne 0 ]; then
	skip "installing with dpkg needs root (CI runs as root)"
	finish
	exit
fi
if dpkg-query -W -f='${db:Status-Abbrev}' memwatch 2>/dev/null | grep -q '^[a-z]i' ||
	[ -e /etc/memwatch ] || [ -e /var/lib/memwatch ]; then
	skip "a memwatch package or its files are already on this machine: not touched"
	finish
	exit
fi

# ---- the machine as it was, at exit -------------------------------------------
user_existed=$(getent passwd memwatch >/dev/null && echo 1)
group_existed=$(getent group memwatch >/dev/null && echo 1)
made_policy=
if [ -d /run/systemd/system ] && [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\n# tests/e2e/deb.sh: no service starts while it runs\nexit 101\n' \
		>/usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	made_policy=1
fi
daemon_pid=
restore_machine() {
	[ -z "$daemon_pid" ] || stop_pid "$daemon_pid"
	if dpkg-query -W memwatch >/dev/null 2>&1; then
		dpkg_run --purge memwatch >/dev/null
	fi
	rm -rf /var/lib/memwatch /etc/memwatch
	[ -n "$user_existed" ] || ! getent passwd memwatch >/dev/null || userdel memwatch
	[ -n "$group_existed" ] || ! getent group memwatch >/dev/null || groupdel memwatch
	[ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
}
at_exit restore_machine

# dpkg_run ARGS...: dpkg ARGS, tried again while another dpkg or apt-get
# holds dpkg's lock (up to 120 s); its output in $tmpdir/dpkg.out.
dpkg_try() {
	dpkg "$@" >"$tmpdir/dpkg.out" 2>&1
	dpkg_rc=$?
	[ "$dpkg_rc" -eq 0 ] || ! grep -q 'lock' "$tmpdir/dpkg.out"
}
dpkg_run() {
	dpkg_rc=1
	wait_until 120 dpkg_try "$@"
	cat "$tmpdir/dpkg.out"
	return "$dpkg_rc"
}

# ---- install ----------------------------------------------------------------
check "dpkg -i installs it" dpkg_run -i "$deb"
check "/usr/bin/memwatchd is the package's version" \
	"[ \"\$(/usr/bin/memwatchd --version)\" = 'memwatchd $version' ]"
check "the unit, the conffile and the docs are in place" \
	"ls -l /lib/systemd/system/memwatch.service /etc/memwatch/memwatch.conf \
		/usr/share/doc/memwatch/copyright /usr/share/doc/memwatch/changelog.gz \
		/usr/share/man/man1/memwatchd.1.gz"
check "/etc/memwatch/memwatch.conf is a registered conffile" \
	"dpkg-query -W -f='\${Conffiles}' memwatch | grep -E '^ /etc/memwatch/memwatch.conf [0-9a-f]{32}$'"
check "the conffile gives the defaults, the database in /var/lib/memwatch" \
	"diff <(/usr/bin/memwatchd config | sed 's|^db = .*|db = /var/lib/memwatch/memwatch.db|') \
		<(/usr/bin/memwatchd config --config /etc/memwatch/memwatch.conf)"
check "postinst made the system user memwatch and /var/lib/memwatch (its, 0750)" \
	"[ \"\$(id -u memwatch)\" -lt 1000 ] && [ \"\$(stat -c '%U:%G %a' /var/lib/memwatch)\" = 'memwatch:memwatch 750' ]"

unit=/lib/systemd/system/memwatch.service
if command -v systemd-analyze >/dev/null; then
	# Silent and 0: it also checks that ExecStart='s binary and
	# Documentation='s man page are installed.
	check "systemd-analyze verify accepts the unit" \
		"systemd-analyze verify $unit >'$tmpdir/verify.out' 2>&1; rc=\$?; cat '$tmpdir/verify.out';
		 [ \$rc -eq 0 ] && ! [ -s '$tmpdir/verify.out' ]"
else
	skip "systemd-analyze verify: systemd-analyze not installed (package systemd)"
fi

# ---- the unit's command line, as systemd would run it ---------------------------
# unit_value KEY: KEY='s value in the [Service] section of the installed unit.
unit_value() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
exec_start=$(unit_value ExecStart)
run_user=$(unit_value User)
workdir=$(unit_value WorkingDirectory)
# CAP_SYS_PTRACE CAP_DAC_READ_SEARCH -> +sys_ptrace,+dac_read_search
caps=$(unit_value AmbientCapabilities | tr '[:upper:]' '[:lower:]' | sed -e 's/cap_/+/g' -e 's/ \+/,/g')
check "the unit runs memwatchd as memwatch with CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH" \
	"[ '$run_user' = memwatch ] && [ '$caps' = '+sys_ptrace,+dac_read_search' ] &&
	 [ \"\$(unit_value CapabilityBoundingSet)\" = \"\$(unit_value AmbientCapabilities)\" ] &&
	 [[ '$exec_start' == '/usr/bin/memwatchd run '* ]]"
as_unit=(setpriv --reuid="$run_user" --regid="$run_user" --init-groups
	--inh-caps="-all,$caps" --ambient-caps="$caps" --bounding-set="-all,$caps" --no-new-privs)

# The capabilities reach other users' processes: the open-fd count
# (/proc/PID/fd) and the address-space map (/proc/PID/smaps) of a root
# process (this shell) and of one of nobody's.
setpriv --reuid=nobody --regid=nogroup --clear-groups sleep 300 &
other=$!
track "$other"
(cd "$workdir" && "${as_unit[@]}" /usr/bin/memwatchd once --config /etc/memwatch/memwatch.conf \
	--watch "$$,$other" --set collector.process.min_age=0 \
	--set collector.process.pss_budget=100% --set collector.perfcounters.enabled=false) >"$tmpdir/once.json" 2>"$tmpdir/once.err"
check "as memwatch with those capabilities it reads root's and nobody's fds and smaps" \
	python3 - "$tmpdir/once.json" "$$" "$other" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {(s["name"], s["labels"].get("pid")) for c in d["collectors"] for s in c.get("samples") or []}
missing = [(m, p) for p in sys.argv[2:] for m in ("memwatch_process_handles",
           "memwatch_process_pss_bytes", "memwatch_vm_regions") if (m, p) not in got]
inacc = {c["name"]: c["inaccessible"] for c in d["collectors"] if c.get("inaccessible")}
assert not missing and not inacc, (missing, inacc)
PY
stop_pid "$other"
untrack "$other"

# An [exit_leaks] lsan_dir shared with group memwatch (setgid, group
# writable, as README says): memwatch reads a LeakSanitizer report of
# root's and moves it into done/.
lsan=$tmpdir/lsan
if gcc -fsanitize=address -g -O0 tests/helpers/lsan_leaky_linux.c -o "$tmpdir/leaky" -lpthread \
	2>"$tmpdir/gcc.log"; then
	install -d -o root -g memwatch -m 2775 "$lsan"
	ASAN_OPTIONS="log_path=$lsan/leaky" "$tmpdir/leaky" >/dev/null 2>&1 &
	lpid=$!
	wait "$lpid"
	(cd "$workdir" && "${as_unit[@]}" /usr/bin/memwatchd once --config /etc/memwatch/memwatch.conf \
		--set "exit_leaks.lsan_dir=$lsan" --set collector.perfcounters.enabled=false) \
		>"$tmpdir/lsan.json" 2>"$tmpdir/lsan.err"
	check "as memwatch it reads root's LeakSanitizer report in a group-memwatch lsan_dir" \
		"[ -e '$lsan/done/leaky.$lpid' ] && [ ! -e '$lsan/leaky.$lpid' ] &&
		 grep -q '\"memwatch_exit_leak_bytes\",\"labels\":{[^}]*},\"value\":4396' '$tmpdir/lsan.json' ||
		 { ls -lR '$lsan'; cat '$tmpdir/lsan.err'; false; }"
else
	skip "lsan_dir as memwatch: gcc cannot build with -fsanitize=address: $(head -1 "$tmpdir/gcc.log")"
fi

# ExecStart= itself (the conffile, its database in /var/lib/memwatch), on a
# free port: a later --listen overrides the conffile's.
port=$(free_port)
read -ra cmd <<<"$exec_start"
(cd "$workdir" && exec "${as_unit[@]}" "${cmd[@]}" --listen "127.0.0.1:$port") \
	>"$tmpdir/daemon.log" 2>&1 &
daemon_pid=$!
check "ExecStart= as the unit's user answers /healthz" \
	"wait_or_show 15 'cat $tmpdir/daemon.log' answers http://127.0.0.1:$port/healthz"
check "it logs to stderr (the journal under systemd)" "[ -s '$tmpdir/daemon.log' ]"
check "it stops on SIGTERM with status 0" "mw_stop $daemon_pid"
daemon_pid=
check "its database is in /var/lib/memwatch, owned by memwatch" \
	"[ \"\$(stat -c %U /var/lib/memwatch/memwatch.db)\" = memwatch ]"

# ---- remove, then purge ----------------------------------------------------------
check "dpkg -r removes it" dpkg_run -r memwatch
check "remove: the binary and the unit are gone" \
	"[ ! -e /usr/bin/memwatchd ] && [ ! -e $unit ]"
check "remove: the conffile and the data stay" \
	"[ -f /etc/memwatch/memwatch.conf ] && [ -f /var/lib/memwatch/memwatch.db ] &&
	 dpkg-query -W -f='\${db:Status-Abbrev}' memwatch | grep -q '^rc'"
check "dpkg -P purges it" dpkg_run -P memwatch
check "purge: the conffile, /etc/memwatch and /var/lib/memwatch are gone" \
	"[ ! -e /etc/memwatch ] && [ ! -e /var/lib/memwatch ]"
check "purge: dpkg knows no memwatch and no enablement link is left" \
	"! dpkg-query -W memwatch 2>/dev/null &&
	 [ ! -e /etc/systemd/system/multi-user.target.wants/memwatch.service ] &&
	 [ ! -L /etc/systemd/system/memwatch.service ]"
finish
