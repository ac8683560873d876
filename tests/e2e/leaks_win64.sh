#!/usr/bin/env bash
# leaks_win64.sh - leak verdicts from the Windows build under Wine: the
# .exe daemon samples a leaking and a plateauing Windows process (the
# memhog helper cross-built, under two image names); `memwatchd.exe check
# --url` (under Wine) and `curl -f /api/v1/check` fail the first and pass
# the second.  Everything started here is stopped by its PID.
set -u
cd "$(dirname "$0")/../.."
hog=build/win64/helpers/memhog.exe
. tests/lib/tap.sh

dir=$tmpdir
cp "$hog" "$dir/leaky_app.exe"
cp "$hog" "$dir/steady_app.exe"
wine_serve l --interval 200ms --set storage.flush_interval=500ms --set leak.refresh=1s --set leak.cpu_budget=0 \
	--set leak.warmup=3s --set leak.min_duration=20s
check "the Windows daemon answers under Wine" "curl -sf -m 2 '$base/healthz' >/dev/null || { cat '$dir/l.log'; false; }"

# 512 KiB every 100 ms; 4 MiB five times, then flat (two minutes at most).
scripts/wine-run.sh "$dir/leaky_app.exe" 512 100 0 120 >"$dir/leaky.out" 2>&1 &
track "$!"
scripts/wine-run.sh "$dir/steady_app.exe" 4096 100 5 120 >"$dir/steady.out" 2>&1 &
track "$!"

leaky=$(enc 'memwatch_process_private_bytes{process="leaky_app.exe"}')
steady=$(enc 'memwatch_process_private_bytes{process="steady_app.exe"}')
opts="warmup=3s&min_duration=20s"
code() { curl -s -o "$dir/body" -w '%{http_code}' -m 30 "$base/api/v1/check?match=$1&$opts"; }
# Poll (bounded) until both are judged (409 is inconclusive, 400 no series
# yet: selecting nothing is an error).
for _ in $(seq 1 150); do
	a=$(code "$leaky")
	b=$(code "$steady")
	[ "$a" != 409 ] && [ "$b" != 409 ] && [ "$a" != 400 ] && [ "$b" != 400 ] && break
	sleep 1
done
check "both judged within the bound (leaky $a, steady $b)" "[ '$a' != 409 ] && [ '$b' != 409 ] && [ '$a' != 400 ] && [ '$b' != 400 ]"
check "curl -f /api/v1/check fails the leaking process" \
	"! curl -sf -m 30 '$base/api/v1/check?match=$leaky&$opts' >/dev/null && [ \"\$(code '$leaky')\" = 412 ]"
check "curl -f /api/v1/check passes the plateauing process" \
	"curl -sf -m 30 '$base/api/v1/check?match=$steady&$opts' >/dev/null"
scripts/wine-run.sh "$exe" check --url "$base" --match 'memwatch_process_private_bytes{process="leaky_app.exe"}' \
	--warmup 3s --min-duration 20s >"$dir/check.out" 2>&1
rc=$?
check "memwatchd.exe check --url fails it with exit 1 (got $rc)" "[ $rc -eq 1 ] || { cat '$dir/check.out'; false; }"
check "... its table names leaky_app.exe" "grep -Eq '^fail +leaky_app.exe' '$dir/check.out'"
scripts/wine-run.sh "$exe" check --url "$base" --match 'memwatch_process_private_bytes{process="steady_app.exe"}' \
	--warmup 3s --min-duration 20s >"$dir/check2.out" 2>&1
rc=$?
check "memwatchd.exe check --url passes the plateau with exit 0 (got $rc)" "[ $rc -eq 0 ] || { cat '$dir/check2.out'; false; }"

kill -INT "$mw_pid"
wait "$mw_pid"
rc=$?
untrack "$mw_pid"
check "the daemon stops on Ctrl+C with exit 0 (got $rc)" "[ $rc -eq 0 ]"
scripts/wine-run.sh "$exe" check --db "$(wine_path "$dir/l.db")" \
	--match 'memwatch_process_private_bytes{process="leaky_app.exe"}' --warmup 3s --min-duration 20s \
	>"$dir/check3.out" 2>&1
rc=$?
check "memwatchd.exe check --db on the file: fail, exit 1 (got $rc)" "[ $rc -eq 1 ] || { cat '$dir/check3.out'; false; }"
finish
