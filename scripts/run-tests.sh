#!/usr/bin/env bash
# run-tests.sh - run every test that `make test-build` built, or only the
# ones named, and end with one summary line ("tests: N passed, M failed").
# Exit status 1 on any failure.  Output of a failing program is shown in
# full; passing ones get one line each, with its wall time; the slowest ten
# are listed before the summary.
#
#   scripts/run-tests.sh                  everything below
#   scripts/run-tests.sh NAME...          only these (what `make test T=NAME` runs):
#       test_leak        build/asan/tests/test_leak
#       test_leak.exe    build/win64/tests/test_leak.exe under Wine
#       tests/api/X.sh, tests/e2e/X.sh    that script
#
#   native cmocka programs   build/asan/tests/*   (ASan + UBSan)
#   win64 cmocka programs    build/win64/tests/*.exe under Wine
#   end to end               tests/e2e/*.sh, tests/api/*.sh (TAP output)
#
# MW_SKIP_WIN64=1 skips everything that needs Wine.
set -u
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()
times=()	# "SECONDS NAME" of each test, for the slowest at the end
all_started=$SECONDS
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logdir=build/test-logs
mkdir -p "$logdir"

# count KIND LOG RC NAME: add the counts of one test program; KIND is
# cmocka (its "[  PASSED  ] N" lines) or tap ("ok N" / "not ok N" lines).
# A program that exits non-zero without reporting a failure (a crash, a
# sanitizer abort) counts as one failure.
count() {
	local kind=$1 log=$2 rc=$3 name=$4 p f secs
	if [ "$kind" = cmocka ]; then
		p=$(grep -aoE '^\[  PASSED  \] [0-9]+' "$log" | awk '{s += $4} END {print s + 0}')
		f=$(grep -aoE '^\[  FAILED  \] [0-9]+' "$log" | awk '{s += $4} END {print s + 0}')
	else
		p=$(grep -acE '^ok [0-9]+' "$log")
		f=$(grep -acE '^not ok [0-9]+' "$log")
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	secs=$((SECONDS - started))
	times+=("$secs $name")
	if [ "$f" -ne 0 ]; then
		failures+=("$name")
		echo "FAIL $name ($p passed, $f failed) ${secs}s"
		sed 's/^/    /' "$log"
	else
		echo "pass $name ($p) ${secs}s"
	fi
}

# run_cmocka PROGRAM, run_wine PROGRAM.exe, run_e2e SCRIPT, run_api SCRIPT:
# one test, its output in $logdir, counted.
run_cmocka() {
	local log=$logdir/$(basename "$1").log
	started=$SECONDS
	"$1" >"$log" 2>&1
	count cmocka "$log" $? "$1"
}
# A Windows test that exits non-zero having printed nothing at all never
# reached its first line (cmocka prints before any test runs): Wine itself
# failed to start it, which a clean-clone run showed once in ~80 (session
# 10, test_privilege_win32.exe, passing 3 of 3 again).  Such a start is
# made once more with Wine's error channel on, and both attempts are kept
# in the log; a program that printed anything is counted as it ran.
run_wine() {
	local log=$logdir/win64-$(basename "$1").log rc
	started=$SECONDS
	scripts/wine-run.sh "$1" >"$log" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && [ ! -s "$log" ]; then
		echo "run-tests: wine exited $rc before $1 printed anything;" \
			"starting it again with WINEDEBUG=err+all" >"$log"
		WINEDEBUG=err+all scripts/wine-run.sh "$1" >>"$log" 2>&1
		rc=$?
	fi
	count cmocka "$log" "$rc" "wine $1"
}
run_e2e() {
	local log=$logdir/$(basename "$1").log
	started=$SECONDS
	bash "$1" >"$log" 2>&1
	count tap "$log" $? "$1"
}
run_api() {
	local log=$logdir/api-$(basename "$1").log
	started=$SECONDS
	bash "$1" build/native/memwatchd >"$log" 2>&1
	count tap "$log" $? "$1"
}

if [ $# -gt 0 ]; then
	for name in "$@"; do
		case "$name" in
		tests/api/*.sh) run_api "$name" ;;
		tests/e2e/*.sh) run_e2e "$name" ;;
		*.exe) run_wine "build/win64/tests/$(basename "$name")" ;;
		*) run_cmocka "build/asan/tests/$(basename "$name")" ;;
		esac
	done
else
	for t in build/asan/tests/test_*; do
		[ -x "$t" ] && run_cmocka "$t"
	done
	for t in tests/e2e/*.sh; do
		case "$t" in *_win64.sh) [ -n "${MW_SKIP_WIN64:-}" ] && continue ;; esac
		run_e2e "$t"
	done
	for t in tests/api/*.sh; do
		run_api "$t"
	done
	if [ -z "${MW_SKIP_WIN64:-}" ]; then
		for t in build/win64/tests/test_*.exe; do
			[ -f "$t" ] && run_wine "$t"
		done
	fi
fi

# The slowest ten: CI must finish well inside its 30 minutes.
echo "slowest (wall seconds):"
printf '%s\n' "${times[@]}" | sort -rn | head -10 | sed 's/^/  /'
echo "all tests: $((SECONDS - all_started)) s"
if [ "${#failures[@]}" -ne 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
