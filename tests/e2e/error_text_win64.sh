#!/usr/bin/env bash
# error_text_win64.sh - Windows' error text in memwatch's UTF-8 messages
# under a French user interface (Wine takes it from LC_ALL / LANG): the cmocka
# program test_mwerr_text_win32 run with LANG=fr_FR.UTF-8, where its
# French case runs instead of skipping ("Accès refusé" as UTF-8, where
# FormatMessageA's bytes are not).
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

exe=build/win64/tests/test_mwerr_text_win32.exe
need_file "the Windows test program" "$exe"
LANG=fr_FR.UTF-8 LC_ALL=fr_FR.UTF-8 scripts/wine-run.sh "$exe" >"$tmpdir/out" 2>&1
rc=$?
check "test_mwerr_text_win32 passes in French (exit $rc)" "[ $rc -eq 0 ] || { cat '$tmpdir/out'; false; }"
check "its French case ran, not skipped" "grep -q 'wide: Acc' '$tmpdir/out' && ! grep -q 'skipped' '$tmpdir/out' || { cat '$tmpdir/out'; false; }"
finish
