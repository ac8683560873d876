#!/usr/bin/env bash
# paths_win64.sh - the Windows build under Wine with file names outside any
# ANSI code page (a folder "dïr ü", files "cönf.ini", "ü.db", "ïn.csv"):
# arguments arrive as UTF-8 from GetCommandLineW and files are opened with
# the wide-character API, so the config is read, the database and its lock
# are created where asked, and the data reads back; `perfdata decode` reads a
# recording folder there and `perfdata dump` writes one (the folder test
# and the files go through the wide API too); a corrupt database there is
# moved aside (its rename too).
set -u
cd "$(dirname "$0")/../.."
exe=build/win64/memwatchd.exe
. tests/lib/tap.sh

d=$tmpdir
mkdir -p "$d/dïr ü"
w=$(wine_path "$d/dïr ü")
printf '[leak]\nwarmup = 7m\n' >"$d/dïr ü/cönf.ini"
printf '"(PDH-CSV 4.0) (UTC)(0)","\\\\H\\Memory\\Available Bytes"\n"11/22/2026 10:00:00.000","100"\n"11/22/2026 10:00:01.000","200"\n' \
	>"$d/dïr ü/ïn.csv"
out=$(scripts/wine-run.sh "$exe" config --config "$w\\cönf.ini" 2>&1)
check "config --config reads a file in a non-ASCII folder" "echo \"\$out\" | tr -d '\\r' | grep -qx 'warmup = 7m'"
scripts/wine-run.sh "$exe" import --db "$w\\ü.db" "$w\\ïn.csv" >"$d/imp.out" 2>&1
rc=$?
check "import reads ïn.csv and writes ü.db (exit $rc)" "[ $rc -eq 0 ] && grep -q '2 points' '$d/imp.out'"
check "its summary gives the span in the one time format" \
	"grep -q '2026-11-22 10:00:00 UTC .. 2026-11-22 10:00:01 UTC' '$d/imp.out'"
check "the database is where it was asked, under its own name" "[ -s \"$d/dïr ü/ü.db\" ]"
check "the lock file went with the process" "[ ! -e \"$d/dïr ü/ü.db.lock\" ]"
scripts/wine-run.sh "$exe" check --db "$w\\ü.db" --match memwatch_system_available_bytes --json >"$d/chk.out" 2>&1
rc=$?
check "check --db reads it back (exit $rc: inconclusive, 2 s of data)" "[ $rc -eq 3 ] && grep -q '\"verdict\"' '$d/chk.out'"
head -c 8192 /dev/urandom >"$d/dïr ü/bäd.db"
scripts/wine-run.sh "$exe" import --db "$w\\bäd.db" "$w\\ïn.csv" >"$d/bad.out" 2>&1
rc=$?
check "a corrupt bäd.db is moved aside and a new one made (exit $rc)" \
	"[ $rc -eq 0 ] && ls \"$d/dïr ü\" | grep -q '^bäd.db.corrupt-' || { cat '$d/bad.out'; false; }"
cp -r tests/data/perfdata/sample "$d/dïr ü/récording"
scripts/wine-run.sh "$exe" perfdata decode "$w\\récording" --json >"$d/dec.out" 2>"$d/dec.err"
rc=$?
check "perfdata decode reads a recording folder named récording (exit $rc)" \
	"[ $rc -eq 0 ] && grep -q '\"objects\"' '$d/dec.out' || { cat '$d/dec.err'; false; }"
scripts/wine-run.sh "$exe" perfdata dump "$w\\düḿp" >"$d/dump.out" 2>&1
rc=$?
if grep -q 'HKEY_PERFORMANCE_DATA\|RegQueryValueEx\|perflib' "$d/dump.out" && [ $rc -ne 0 ]; then
	skip "perfdata dump: Wine has no performance data here ($(head -c 120 "$d/dump.out"))"
else
	check "perfdata dump writes its recording into düḿp (exit $rc)" \
		"[ $rc -eq 0 ] && [ -s \"$d/dïr ü/düḿp/titles-counter.bin\" ] || { cat '$d/dump.out'; false; }"
fi
finish
