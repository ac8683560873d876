#!/usr/bin/env bash
# watch.sh DAEMON - the watch list end to end on Linux: a process whose
# name is longer than the 15-character comm (a copy of the memhog helper
# named verylongprocessname-leaky) is found by its full name; an entry
# that selects nothing ("nope") is listed as unmatched in
# /api/v1/collectors and logged once; when the watched process exits its
# entry turns unmatched and is logged once too.  Repeated --watch adds to
# the list (the config file's too), --watch "" clears it, --set replaces.
# The helper and the daemon are ours, stopped by PID.  Loopback only.
set -u
. "$(dirname "$0")/../lib/tap.sh"
daemon_under_test "$@"

hog=$root/build/native/helpers/memhog
if [ "$(uname -s)" != Linux ] || [ ! -x "$hog" ] || ! command -v curl >/dev/null ||
	! command -v python3 >/dev/null; then
	skip "Linux with the memhog helper, curl and python3 needed"
	finish
	exit 0
fi
name=verylongprocessname-leaky

# --- the list from the command line (no daemon needed) ---------------------
watch_line() { "$daemon" config "$@" | sed -n 's/^watch = //p'; }
printf '[daemon]\nwatch = from_file.exe, 7\n' >"$tmpdir/w.ini"
check "repeated --watch adds" test "$(watch_line --watch a --watch 'b, c')" = "a,b,c"
check "--watch adds to the config file's list" \
	test "$(watch_line --config "$tmpdir/w.ini" --watch x)" = "from_file.exe,7,x"
check "--watch \"\" clears, later --watch adds again" \
	test "$(watch_line --config "$tmpdir/w.ini" --watch x --watch '' --watch y)" = "y"
check "--set daemon.watch= replaces" \
	test "$(watch_line --watch a --set daemon.watch=z)" = "z"
check "--watch without a value is a usage error" \
	bash -c '"$1" config --watch >/dev/null 2>&1; [ $? -eq 2 ]' _ "$daemon"

# --- a daemon watching a long-named process and a name that matches none ---
cp "$hog" "$tmpdir/$name"
"$tmpdir/$name" 64 100 1 60 >"$tmpdir/hog.out" 2>&1 &
hog_pid=$!
pids+=("$hog_pid")

mw_serve w --interval 100ms \
	--set storage.flush_interval=200ms --watch "$name" --watch nope
main_pid=$mw_pid
check "daemon answers /healthz" wait_ready "$base/healthz"

# watch_ok EXPR: poll /api/v1/collectors until EXPR over d["watch"] as `w`
# holds (bounded: ~10 s); the last body is shown on failure.
watch_ok() {
	local i
	for i in $(seq 1 100); do
		curl -sf --max-time 2 "$base/api/v1/collectors" >"$tmpdir/coll.json" &&
			python3 -c "import json,sys
w=json.load(open(sys.argv[1]))['watch']
sys.exit(0 if ($1) else 1)" "$tmpdir/coll.json" 2>/dev/null && return 0
		sleep 0.1
	done
	head -c 800 "$tmpdir/coll.json"
	return 1
}
# log_count NEEDLE: how many log lines hold NEEDLE.
log_count() { grep -cF -- "$1" "$tmpdir/w.log"; }

check "both --watch entries kept, in order" watch_ok \
	"[e['entry'] for e in w['entries']]==['$name','nope']"
check "$name found by its full name, with its pid" watch_ok \
	"w['entries'][0]['matched']==[{'pid':$hog_pid,'process':'$name'}] and w['entries'][0]['matched_total']==1"
check "nope matches nothing and is listed unmatched" watch_ok \
	"w['entries'][1]['matched']==[] and w['unmatched']==['nope'] and w['checked_ms']>0"
sleep 1	# several ticks of three collectors: still one line
check "nope logged once" test "$(log_count "watch: 'nope' matches no process")" = 1
check "$name not logged as unmatched" test "$(log_count "watch: '$name' matches no process")" = 0

# The watched process exits: its entry turns unmatched, logged once.
kill -TERM "$hog_pid" && wait "$hog_pid" 2>/dev/null
rest=()
for q in "${pids[@]}"; do [ "$q" != "$hog_pid" ] && rest+=("$q"); done
pids=("${rest[@]}")
check "after it exits, $name is unmatched" watch_ok \
	"w['entries'][0]['matched']==[] and sorted(w['unmatched'])==sorted(['$name','nope'])"
sleep 0.5
check "$name logged once when it went" \
	test "$(log_count "watch: '$name' matches no process")" = 1
check "nope still logged only once" test "$(log_count "watch: 'nope' matches no process")" = 1

check "daemon stops cleanly" mw_stop "$main_pid"
finish
