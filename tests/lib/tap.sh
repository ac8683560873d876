# tests/lib/tap.sh - the one library every shell test sources
# (tests/api/*.sh, tests/e2e/*.sh; scripts/run-tests.sh skips it by name).
#
# It owns what those scripts used to repeat: TAP output the runner counts
# ("ok N - what", "not ok N - what", "ok N # SKIP why", "1..N" at the end),
# a scratch folder, free loopback ports, background processes started by
# the test and stopped at exit by their PID (never by name), bounded
# waits, a daemon on a free port with a scratch database, and the
# line-by-line dialogue with a helper program.
#
#   $root     the repository                 $tmpdir   scratch, removed at exit
#   $daemon   the memwatchd to run (set it before mw_start / mw_serve)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
n=0
failures=0
pids=()		# stopped at exit, by PID
at_exit_cmds=()	# run at exit, before the PIDs are stopped
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/mw-test.XXXXXX")

# ---- TAP ---------------------------------------------------------------------

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failures=$((failures + 1)); echo "not ok $n - $1"; }
nok() { not_ok "$@"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

# check DESC CONDITION | check DESC CMD ARGS...: ok when the shell
# condition (one string, eval'd) or the command succeeds.  Runs in this
# shell (no subshell: `wait` works on our children, variables set stay
# set).  Its output is kept aside: the "# ..." lines are shown always,
# everything on failure (as "#   " comments, so nothing it prints counts
# as a TAP line).
check() {
	local desc=$1 rc
	shift
	if [ $# -eq 1 ]; then
		eval "$1" >"$tmpdir/check.out" 2>&1
	else
		"$@" >"$tmpdir/check.out" 2>&1
	fi
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$desc"
		grep -a '^#' "$tmpdir/check.out"
	else
		not_ok "$desc"
		head -60 "$tmpdir/check.out" | sed 's/^/#   /'
	fi
	return 0
}

# finish: the plan line; the exit status says whether everything passed.
finish() {
	echo "1..$n"
	[ "$failures" -eq 0 ]
}

# need TOOL...: every tool on the PATH, or one SKIP naming the first that
# is missing and exit 0 (the test cannot run here, it did not fail).
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 && continue
		skip "$t not installed"
		finish
		exit 0
	done
}

# need_file DESC FILE...: every file exists (built first), or one failure
# saying what to build and exit 1.
need_file() {
	local desc=$1 f
	shift
	for f in "$@"; do
		[ -e "$f" ] && continue
		not_ok "build first: $desc ($f missing)"
		finish
		exit 1
	done
}

# ---- processes, stopped by PID -----------------------------------------------

# at_exit CMD: a shell command run at exit (before the PIDs are stopped).
at_exit() { at_exit_cmds+=("$1"); }

# track PID: stop PID at exit.
track() { pids+=("$1"); }

# untrack PID: it was stopped (and waited for) by the test itself.
untrack() {
	local q rest=()
	for q in "${pids[@]}"; do [ "$q" != "$1" ] && rest+=("$q"); done
	pids=("${rest[@]}")
}

# stop_pid PID: SIGTERM, then SIGKILL if it is still there after 10 s;
# reaped, so no zombie is left.  The exit status is PID's.
stop_pid() {
	local p=$1 killer rc
	kill -TERM "$p" 2>/dev/null || { wait "$p" 2>/dev/null; return; }
	(sleep 10; kill -KILL "$p" 2>/dev/null) >/dev/null 2>&1 &
	killer=$!
	wait "$p" 2>/dev/null
	rc=$?
	kill "$killer" 2>/dev/null
	wait "$killer" 2>/dev/null
	return "$rc"
}

cleanup() {
	local c p
	for c in "${at_exit_cmds[@]}"; do
		eval "$c"
	done
	for p in "${pids[@]}"; do
		stop_pid "$p"
	done
	rm -rf "$tmpdir"
}
trap cleanup EXIT

# start_bg NAME CMD ARGS...: CMD in the background, its output in
# $tmpdir/NAME.log, stopped at exit; its PID in bg_pid.
start_bg() {
	local name=$1
	shift
	"$@" >"$tmpdir/$name.log" 2>&1 &
	bg_pid=$!
	track "$bg_pid"
}

# ---- daemons -----------------------------------------------------------------

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# The command that runs $daemon: empty natively, (scripts/wine-run.sh)
# for the Windows build under Wine.
mw_runner=()

# mw_start NAME ARGS...: `$daemon run ARGS` in the background, its log in
# $tmpdir/NAME.log; its PID in mw_pid, stopped at exit.
mw_start() {
	local name=$1
	shift
	start_bg "$name" "${mw_runner[@]}" "$daemon" run "$@"
	mw_pid=$bg_pid
}

# mw_serve NAME ARGS...: mw_start on a free loopback port with a scratch
# database $tmpdir/NAME.db (Z:\... under Wine); sets port and base (the
# URL).  Wait for it with wait_ready "$base/healthz".
mw_serve() {
	local name=$1 db
	shift
	port=$(free_port)
	base=http://127.0.0.1:$port
	db=$tmpdir/$name.db
	[ ${#mw_runner[@]} -gt 0 ] && db=$(wine_path "$db")
	mw_start "$name" --listen "127.0.0.1:$port" --db "$db" "$@"
}

# mw_stop PID: SIGTERM and expect exit status 0.
mw_stop() {
	local p=$1 rc
	kill -TERM "$p" || return 1
	wait "$p"
	rc=$?
	untrack "$p"
	[ "$rc" -eq 0 ] || { echo "exit status $rc"; return 1; }
}

# wine_daemon EXE: mw_start and mw_serve run the Windows build EXE under
# Wine from here on.  wine-run.sh execs Wine, which runs the .exe in the
# process started: its PID is mw_pid.
wine_daemon() {
	daemon=$1
	mw_runner=("$root/scripts/wine-run.sh")
}

# wine_path PATH: the same file as Wine's Z: drive names it.
wine_path() { local p=$1; echo "Z:${p//\//\\}"; }

# ---- bounded waits -----------------------------------------------------------

# wait_until SECONDS CMD ARGS...: poll CMD every 0.1 s until it succeeds;
# 1 if it never did.
wait_until() {
	local tries=$(($1 * 10)) i
	shift
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}

# answers URL: one quick request succeeds (any HTTP answer, as curl -s).
answers() { curl -s -o /dev/null --max-time 2 "$1"; }

# wait_ready URL [SECONDS]: poll until it answers (default 10 s; the
# Windows build under Wine needs 30).
wait_ready() { wait_until "${2:-10}" answers "$1"; }

# has_series BASE [AUTH_HEADER]: /api/v1/series lists a series.
has_series() {
	curl -s --max-time 2 ${2:+-H "$2"} "$1/api/v1/series" |
		python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin)["series"] else 1)' 2>/dev/null
}

# wait_data BASE [AUTH_HEADER]: poll until /api/v1/series lists a series
# (the first flush; bounded to 15 s).
wait_data() { wait_until 15 has_series "$@"; }

# ---- commands, JSON and HTTP ---------------------------------------------------

# expect_rc WANT CMD ARGS...: CMD exits WANT; its output (both streams) in
# $tmpdir/cmd.out, shown when the status is another.
expect_rc() {
	local want=$1 got
	shift
	"$@" >"$tmpdir/cmd.out" 2>&1
	got=$?
	[ "$got" = "$want" ] || { echo "exit $got, want $want"; cat "$tmpdir/cmd.out"; return 1; }
}

# enc TEXT: TEXT percent-encoded for a query string.
enc() { python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }

# js CODE: run Python over the JSON on stdin as `d`; CODE must be an expression
# that is true, or statements that raise.
js() {
	python3 -c "import json,sys
d=json.load(sys.stdin)
r=($1)
if r is False: print(json.dumps(d)[:600]); sys.exit(1)"
}

# status URL [CURL ARGS...]: print the HTTP status code (body in $tmpdir/body).
status() {
	local url=$1
	shift
	curl -s -o "$tmpdir/body" -w '%{http_code}' --max-time 10 "$@" "$url"
}

# expect_error CODE NEEDLE URL [CURL ARGS...]: status CODE and a JSON
# {"error": "..."} containing NEEDLE.
expect_error() {
	local code=$1 needle=$2 url=$3 got
	shift 3
	got=$(status "$url" "$@")
	[ "$got" = "$code" ] || { echo "status $got, want $code: $(head -c 300 "$tmpdir/body")"; return 1; }
	python3 -c "import json,sys
e=json.load(open(sys.argv[1]))['error']
sys.exit(0 if sys.argv[2] in e else (print(e) or 1))" "$tmpdir/body" "$needle"
}

# ---- a helper program driven line by line --------------------------------------

# helper_start CMD ARGS...: run a helper (tests/helpers/*) as a coprocess,
# stopped at exit; its PID in hpid.  It answers each command with a line.
helper_start() {
	coproc HELPER { exec "$@"; }
	hpid=$HELPER_PID
	track "$hpid"
}

# helper_begin HELPER ARGS...: $daemon and HELPER built (else one failure
# and exit 1), HELPER started (helper_start) and its "ready" checked.
helper_begin() {
	need_file "make $daemon $1" "$daemon" "$1"
	helper_start "$@"
	check "helper starts" helper_ready
}

# once_snap NAME: `$daemon once --watch $hpid` into $tmpdir/NAME.json
# (stderr NAME.err), then the helper's /proc/PID/smaps into NAME.smaps,
# read right after; the status is once's.
once_snap() {
	local rc
	"$daemon" once --watch "$hpid" >"$tmpdir/$1.json" 2>"$tmpdir/$1.err"
	rc=$?
	cat "/proc/$hpid/smaps" >"$tmpdir/$1.smaps"
	return $rc
}

# helper_quits_and_gone COLLECTOR DESC: tell the helper to quit (checked),
# then `$daemon once --watch` its PID: a process that is gone is skipped,
# not an error: exit 0 (checked), and COLLECTOR with no error and no
# samples (checked as DESC).
helper_quits_and_gone() {
	local gone=$hpid
	step quit >/dev/null
	wait "$gone" 2>/dev/null
	check "helper quits" "! kill -0 $gone 2>/dev/null"
	untrack "$gone"
	"$daemon" once --watch "$gone" >"$tmpdir/gone.json" 2>"$tmpdir/gone.err"
	check "once --watch a gone pid exits 0" "[ $? -eq 0 ]"
	check "$2" python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["collectors"] if c["name"] == sys.argv[2]][0]
assert c["error"] is None and not c["samples"], c' "$tmpdir/gone.json" "$1"
}

# helper_ready: read its first line ("ready PID"); 1 unless it came.
helper_ready() {
	IFS= read -r -t 30 ready <&"${HELPER[0]}" || return 1
	[ "${ready%% *}" = ready ] && [ "${ready#ready }" = "$hpid" ]
}

# step CMD: send a command, wait (helper_timeout s) for the helper's
# answer line (shown as a comment); 1 on no answer, an "error..." or
# "unknown..." one, or one that does not match the glob helper_want.
helper_want='*'
helper_timeout=30
step() {
	local reply
	echo "$1" >&"${HELPER[1]}"
	if ! IFS= read -r -t "$helper_timeout" reply <&"${HELPER[0]}"; then
		echo "# no answer to $1"
		return 1
	fi
	echo "# helper: $reply"
	case "$reply" in error*|unknown*) return 1 ;; esac
	# shellcheck disable=SC2053 # a glob on purpose
	[[ $reply == $helper_want ]]
}

# ---- headless Chromium -------------------------------------------------------

# chromium, or empty when it is not installed
chrome=$(command -v chromium || command -v chromium-browser || true)
# headless, nothing fetched of its own, the page's scripts given 8 s of
# virtual time; a later --window-size overrides the default one
chrome_flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
	--disable-background-networking --disable-component-update --disable-sync
	--disable-extensions --disable-default-apps --hide-scrollbars
	--window-size=1280,900 --virtual-time-budget=8000)

# run_chrome ARGS...: one headless Chromium run with a fresh profile,
# bounded to 40 s; its stderr goes to $tmpdir/chrome.log.
run_chrome() {
	timeout 40 "$chrome" "${chrome_flags[@]}" --user-data-dir="$(mktemp -d "$tmpdir/chrome.XXXXXX")" \
		"$@" 2>>"$tmpdir/chrome.log"
}

# devtools_chrome PORT ARGS...: Chromium left running headless with its
# DevTools on PORT (driven by tests/api/page_*.js), stopped at exit.
devtools_chrome() {
	local port=$1
	shift
	"$chrome" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-extensions --hide-scrollbars --window-size=1280,1100 --remote-debugging-port="$port" \
		--user-data-dir="$tmpdir/chrome" "$@" about:blank >/dev/null 2>"$tmpdir/chrome.log" &
	track "$!"
}

# need_devtools: chromium and node with WebSocket (tests/api/page_*.js
# drive the page over DevTools), or one SKIP and exit 0.
need_devtools() {
	if [ -z "$chrome" ] || ! command -v node >/dev/null ||
		! node --experimental-websocket -e 'WebSocket' 2>/dev/null; then
		skip "chromium or node with WebSocket not installed"
		finish
		exit 0
	fi
}

# fixture_serve DESC INTERVAL [EXPORT ARGS...]: the recording of
# tests/api/page_fixture.py imported into $tmpdir/x.db (checked as DESC),
# a daemon serving it (mw_serve x --interval INTERVAL, in main_pid) and the
# fixture's stand-in proxy in front of it on pport, both checked ready.
fixture_serve() {
	local desc=$1 interval=$2 fixture=$root/tests/api/page_fixture.py
	shift 2
	check "$desc" sh -c 'f=$1 d=$2 m=$3; shift 3
		python3 "$f" export "$d/f.json" "$@" && "$m" import --db "$d/x.db" "$d/f.json"' \
		sh "$fixture" "$tmpdir" "$daemon" "$@"
	mw_serve x --interval "$interval"
	main_pid=$mw_pid
	check "daemon ready" wait_ready "$base/healthz"
	pport=$(free_port)
	start_bg proxy python3 "$fixture" proxy "$pport" "$port"
	check "stand-in proxy ready" wait_ready "http://127.0.0.1:$pport/healthz"
}
