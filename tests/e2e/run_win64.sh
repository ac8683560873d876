#!/usr/bin/env bash
# run_win64.sh - the Windows daemon end to end under Wine: `run` serves the
# API from the cross-built .exe, stores samples in SQLite, and on Ctrl+C
# (Wine turns SIGINT into a console control event) writes what is in
# flight and exits 0.
set -u
cd "$(dirname "$0")/../.."
. tests/lib/tap.sh

dir=$tmpdir
# Readiness: poll (bounded) until the server answers, then until data is in.
wine_serve w --interval 200ms --set storage.flush_interval=500ms --watch self
runner=$mw_pid
curl -sf -m 2 "$base/healthz" >"$dir/health" 2>/dev/null
check "healthz answers from the Windows build" "grep -q '\"status\":\"ok\"' '$dir/health' || { cat '$dir/w.log'; false; }"
own_series() {
	curl -sf -m 2 "$base/api/v1/series?match=memwatch_process_working_set_bytes%7Bprocess%3D%22memwatchd.exe%22%7D" >"$dir/series" 2>/dev/null
	grep -q '"id"' "$dir/series"
}
wait_until 30 own_series
check "its own process series is stored and listed" "grep -q 'memwatchd.exe' '$dir/series'"
curl -sf -m 5 "$base/api/v1/collectors" >"$dir/collectors"
python3 - "$dir/collectors" <<'PY' >"$dir/py" 2>&1
import json, sys
cs = {c["name"]: c for c in json.load(open(sys.argv[1]))["collectors"]}
assert cs["process"]["supported"] and cs["process"]["samples"] > 0, cs["process"]
assert cs["vmmap"]["supported"] and cs["vmmap"]["samples"] > 0, cs["vmmap"]
assert not cs["perfcounters"]["supported"] and cs["perfcounters"]["reason"], cs["perfcounters"]
print("ok")
PY
check "collectors report under Wine (vmmap samples self, perfcounters says why not)" "grep -q '^ok$' '$dir/py' || { cat '$dir/py'; false; }"
curl -sf -m 5 "$base/metrics" >"$dir/metrics"
check "/metrics lists the process series" "grep -q '^memwatch_process_private_bytes{' '$dir/metrics'"

kill -INT "$runner"
wait "$runner"
rc=$?
untrack "$runner"
check "Ctrl+C stops it with exit 0" "[ $rc -eq 0 ] || { cat '$dir/w.log'; false; }"
check "it logged the orderly stop" "grep -q 'memwatchd stopped' '$dir/w.log'"
points=$(sqlite3 "$dir/w.db" "SELECT count(*) FROM chunk" 2>&1)
check "the database holds chunks after the stop ($points)" "[ \"\$points\" -gt 0 ] 2>/dev/null"
check "the database passes integrity_check" "[ \"\$(sqlite3 '$dir/w.db' 'PRAGMA integrity_check')\" = ok ]"
finish
