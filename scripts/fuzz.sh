#!/usr/bin/env bash
# fuzz.sh - run every libFuzzer target for a bounded time, one after the
# other, and say which found a crash.  `make fuzz` builds them first
# (build/fuzz/fuzz_NAME from fuzz/fuzz_NAME.c) and calls this.
#
#   scripts/fuzz.sh [SECONDS [NAME...]]   default 60 s each (or $MW_FUZZ_SECONDS), every target
#
# New inputs go to build/fuzz/corpus/NAME; the saved seed corpus in
# fuzz/corpus/NAME is read, never written (copy an interesting find there
# by hand, keep it small: tests/test_perfdata_corpus.c replays perfdata's).
# A crash leaves its input in build/fuzz/crash-NAME-*; exit status 1.
# A target stops at its first crash; MW_FUZZ_KEEP_GOING=1 runs it for the
# whole time in libFuzzer's fork mode, saving every crash it finds.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${MW_FUZZ_SECONDS:-60}}
shift $(($# > 0 ? 1 : 0))
out=build/fuzz
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in fuzz/fuzz_*.c; do
		f=${f#fuzz/fuzz_}
		names+=("${f%.c}")
	done
fi

# crashes NAME: how many crash inputs NAME has left so far
crashes() { find "$out" -maxdepth 1 -name "crash-$1-*" | wc -l; }
keep_going=()
[ -n "${MW_FUZZ_KEEP_GOING:-}" ] && keep_going=(-fork=1 -ignore_crashes=1)
crashed=()
for t in "${names[@]}"; do
	if [ ! -x "$out/fuzz_$t" ]; then
		echo "fuzz_$t: not built (make fuzz-build)"
		crashed+=("$t")
		continue
	fi
	mkdir -p "$out/corpus/$t" "fuzz/corpus/$t"
	echo "fuzz_$t: ${secs}s"
	before=$(crashes "$t")
	"$out/fuzz_$t" -max_total_time="$secs" -max_len=65536 -print_final_stats=1 "${keep_going[@]}" \
		-artifact_prefix="$out/crash-$t-" "$out/corpus/$t" "fuzz/corpus/$t"
	if [ $? -ne 0 ] || [ "$(crashes "$t")" -gt "$before" ]; then
		crashed+=("$t")
	fi
done
if [ ${#crashed[@]} -ne 0 ]; then
	echo "fuzz: crashes in ${crashed[*]} (inputs in $out/crash-*)"
	exit 1
fi
echo "fuzz: ${#names[@]} targets, no crash"
