# tests/lib/helper.sh - part of the shell test library, sourced by
# tests/lib/tap.sh (not on its own): a program from tests/helpers/ run as
# a coprocess and driven line by line (heap_linux.sh, workingset_linux.sh,
# diff_linux.sh, process_kinds_linux.sh).  Uses tap.sh's check, track and
# untrack, and daemon.sh's $daemon.

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

# helper_test NAME: the start of an e2e test of the native daemon beside
# tests/helpers/NAME (run from the repository): $daemon and $helper set,
# $out the scratch folder, the helper begun (helper_begin).
helper_test() {
	daemon=build/native/memwatchd
	helper=build/native/helpers/$1
	out=$tmpdir
	helper_begin "$helper" "$out"
}

# val SNAP KEY: the number on KEY's line of $out/SNAP.sum ("key bytes"
# lines a test summed a snapshot into).
val() { awk -v k="$2" '$1 == k { print $2 }' "$out/$1.sum"; }

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

# helper_next_step CMD: one step of a test that snapshots the helper
# before and after each of its steps, s0, s1, ...: prev names the
# snapshot before this step (s0 the first time), cur the one to take after
# it; CMD is sent (step) and checked as "helper: CMD".
helper_next_step() {
	prev=${cur:-s0}
	cur=s$((${prev#s} + 1))
	step "$1"
	check "helper: $1" "[ $? -eq 0 ]"
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

