#!/usr/bin/env bash
# fuzz.sh - build and run the libFuzzer targets for a bounded time.
#
#   scripts/fuzz.sh [SECONDS]      default 60 (or $MW_FUZZ_SECONDS)
#
# New inputs go to build/fuzz/corpus/NAME; the saved seed corpus in
# fuzz/corpus/NAME is read, never written (copy an interesting find there
# by hand, keep it small: tests/test_perfdata_corpus.c replays it).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${MW_FUZZ_SECONDS:-60}}
CLANG=${CLANG:-clang}
out=build/fuzz
mkdir -p "$out"

build() {
	local name=$1; shift
	"$CLANG" -std=c11 -g -O1 -D_GNU_SOURCE -I. -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -o "$out/fuzz_$name" "fuzz/fuzz_$name.c" "$@"
}

build perfdata collectors/perfdata_walk.c collectors/perfdata_titles.c collectors/perfdata_text.c base/utf16.c \
	collectors/perfdata_calc.c collectors/perfdata_select.c collectors/perfdata_json.c base/xalloc.c base/mwerr.c -lm

for t in perfdata; do
	mkdir -p "$out/corpus/$t"
	echo "fuzz_$t: ${secs}s"
	"$out/fuzz_$t" -max_total_time="$secs" -max_len=65536 -print_final_stats=1 \
		"$out/corpus/$t" "fuzz/corpus/$t"
done
