# tests/lib/tap.sh - the one library every shell test sources
# (tests/api/*.sh, tests/e2e/*.sh; scripts/run-tests.sh runs only those).
#
# It owns what those scripts used to repeat.  This file: TAP output the
# runner counts ("ok N - what", "not ok N - what", "ok N # SKIP why",
# "1..N" at the end), a scratch folder, background processes started by
# the test and stopped at exit by their PID (never by name), bounded
# waits.  It sources the rest of the library:
#   daemon.sh  memwatchd on a free port with a scratch database (natively
#              or under Wine), HTTP and JSON checks
#   helper.sh  the line-by-line dialogue with a tests/helpers program
#   chrome.sh  headless Chromium and the page fixture behind its proxy
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
# set).  Its output is kept aside ($tmpdir/.check.out, a name no test
# uses): the "# ..." lines are shown always, everything on failure (as
# "#   " comments, so nothing it prints counts as a TAP line).
check() {
	local desc=$1 rc
	shift
	if [ $# -eq 1 ]; then
		eval "$1" >"$tmpdir/.check.out" 2>&1
	else
		"$@" >"$tmpdir/.check.out" 2>&1
	fi
	rc=$?
	if [ "$rc" -eq 0 ]; then
		ok "$desc"
		grep -a '^#' "$tmpdir/.check.out"
	else
		not_ok "$desc"
		head -60 "$tmpdir/.check.out" | sed 's/^/#   /'
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
	# Only the test's own shell cleans up: a ( ... ) & subshell the test
	# stops runs this trap too, and took $tmpdir with it.
	[ "$BASHPID" = "$$" ] || return 0
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

# wait_or_show SECONDS SHOW CMD ARGS...: wait_until SECONDS CMD ARGS...;
# when CMD never succeeded, SHOW (a shell command, eval'd) prints what
# there was instead, for the failure's comment, and the status is 1.
wait_or_show() {
	local secs=$1 show=$2
	shift 2
	wait_until "$secs" "$@" && return 0
	eval "$show"
	return 1
}

# daemon_under_test "$@": a tests/api script's argument, the memwatchd to
# test, as $daemon (an absolute path, so the test may cd), and $here, the
# script's folder; no argument is a usage error.
daemon_under_test() {
	here=$(cd "$(dirname "$0")" && pwd)
	daemon=$(cd "$(dirname "${1:?usage: $(basename "$0") DAEMON}")" && pwd)/$(basename "$1")
}

mw_lib=$(dirname "${BASH_SOURCE[0]}")
. "$mw_lib/daemon.sh"
. "$mw_lib/helper.sh"
. "$mw_lib/chrome.sh"
