#!/usr/bin/env bash
# exit_leaks_win64.sh - the Windows exit leak capture end to end under
# Wine: the .exe daemon with [exit_leaks] images naming a helper turns the
# image's exit check on (IFEO ShutdownFlags = 1), attaches to the helper as
# its debugger, reads the report the helper prints with DbgPrint (Wine's
# ntdll has no exit check of its own, so the helper prints ntdll's lines)
# and stores it: /api/v1/exit-leaks serves the exact figures and check
# fails the run.  A second helper still running when the daemon stops
# keeps running (memwatch detaches) and exits with its own code; the
# registry value is put back at the stop.  Everything started here is
# stopped by its PID.
set -u
cd "$(dirname "$0")/../.."
helper=build/win64/helpers/ntdll_report_win32.exe
. tests/lib/tap.sh

dir=$tmpdir
image=ntdll_report_win32.exe
ifeo='HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution Options\'$image
shutdown_flags() {
	scripts/wine-run.sh reg query "$ifeo" /v ShutdownFlags 2>/dev/null | tr -d '\r' |
		awk '$1 == "ShutdownFlags" { print $3 }'
}

wine_serve x --interval 200ms --set storage.flush_interval=500ms \
	--set collector.exit_leaks.interval=200ms --set "exit_leaks.images=$image"
check "the Windows daemon answers under Wine" "curl -sf -m 2 '$base/healthz' >/dev/null || { cat '$dir/x.log'; false; }"
check "ShutdownFlags of the image is 1 while memwatch runs" "[ \"\$(shutdown_flags)\" = 0x1 ]"

# start_helper N CODE: the helper on a FIFO, its pid in hpid_N
start_helper() {
	mkfifo "$dir/in$1"
	scripts/wine-run.sh "$helper" "$2" <"$dir/in$1" >"$dir/h$1.out" 2>&1 &
	track "$!"
	eval "wine_pid_$1=$!"
	eval "exec $((6 + $1))>'$dir/in$1'"
}
ready_pid() { tr -d '\r' <"$dir/h$1.out" | awk '/^ready/ { print $2 }'; }
attached() { grep -q "attached to $image pid $1 " "$dir/x.log"; }

start_helper 1 3
check "helper 1 runs" wait_until 30 grep -q '^ready' "$dir/h1.out"
p1=$(ready_pid 1)
check "memwatch attaches to it as its debugger (pid $p1)" wait_until 20 attached "$p1"
mode_says() {
	curl -sf -m 5 "$base/api/v1/collectors" | python3 -c "import json,sys
c = [c for c in json.load(sys.stdin)['collectors'] if c['name'] == 'exit_leaks'][0]
sys.exit(0 if '$1' in (c.get('mode') or '') else 1)"
}
check "/api/v1/collectors: the exit_leaks mode says it attached" wait_until 10 mode_says "attached 1"
echo go >&7
wait "$wine_pid_1"
rc=$?
untrack "$wine_pid_1"
check "the helper exits with its own code 3 (got $rc)" "[ $rc -eq 3 ]"

report() {
	curl -sf -m 5 "$base/api/v1/exit-leaks?process=$image" | python3 -c "import json,sys
r = json.load(sys.stdin)['reports']
sys.exit(0 if any(x['pid'] == $p1 for x in r) else 1)" 2>/dev/null
}
check "the report is stored and served" wait_until 20 report
check "exact figures: ntdll, 3 leaks, 4396 bytes, blocks 4096, 200, 100" \
	"curl -sf -m 5 '$base/api/v1/exit-leaks?process=$image' | python3 -c \"import json,sys
x = [x for x in json.load(sys.stdin)['reports'] if x['pid'] == $p1][0]
sizes = sorted((b['size'] for b in x['blocks']), reverse=True)
ok = x['source'] == 'ntdll' and x['leaks'] == 3 and x['bytes'] == 4396 and sizes == [4096, 200, 100]
sys.exit(0 if ok else print(x) or 1)\""
code=$(curl -s -o "$dir/check.json" -w '%{http_code}' -m 30 "$base/api/v1/check?process=$image")
check "/api/v1/check fails the run: 412, the reason naming the report (got $code)" \
	"[ '$code' = 412 ] && grep -q 'exit leak report [0-9]* (ntdll, $image pid $p1): 4396 bytes in 3 allocations' '$dir/check.json'"

start_helper 2 5
check "helper 2 runs" wait_until 30 grep -q '^ready' "$dir/h2.out"
p2=$(ready_pid 2)
check "memwatch attaches to helper 2 (pid $p2)" wait_until 20 attached "$p2"
kill -INT "$mw_pid"
wait "$mw_pid"
rc=$?
untrack "$mw_pid"
check "the daemon stops on Ctrl+C with exit 0 (got $rc)" "[ $rc -eq 0 ]"
check "... it detached from helper 2" "grep -q 'detached from $image pid $p2' '$dir/x.log'"
check "... and put ShutdownFlags back (none before: removed)" "[ -z \"\$(shutdown_flags)\" ]"
echo go >&8
wait "$wine_pid_2"
rc=$?
untrack "$wine_pid_2"
check "helper 2 outlives memwatch and exits with its own code 5 (got $rc)" "[ $rc -eq 5 ]"
finish
