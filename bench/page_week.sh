#!/usr/bin/env bash
# page_week.sh DAEMON DB [RUNS] - the page's switch to a 7-day view of a
# watched process on a week of history (issue 26), timed in a headless
# Chromium: DB is a file bench/bench_page wrote (`build/native/bench/bench_page
# DB`: a watched process, soakd pid 4242, and a few hundred others over the
# 7 days that end when it was written; run it shortly before).  DAEMON serves
# it with its collectors off (nothing else writes to it), the page opens on
# soakd (#pid=4242) over the last hour, and tests/api/page_requests.js
# switches the range to 7 days, RUNS times (3), each on a fresh load.  Per
# run: the requests the switch made, the ms from the switch until the last
# answer was read, and each request's own time (sent to last byte, Resource
# Timing) and size.  Uses the shell test library for the daemon and
# Chromium (stopped at exit by PID); prints figures, checks nothing.
set -u
. "$(dirname "$0")/../tests/lib/tap.sh"
daemon=$(cd "$(dirname "${1:?usage: page_week.sh DAEMON DB [RUNS]}")" && pwd)/$(basename "$1")
db=$(cd "$(dirname "${2:?usage: page_week.sh DAEMON DB [RUNS]}")" && pwd)/$(basename "$2")
runs=${3:-3}

need_devtools
off=()
for c in system process workingset perfcounters heap vmmap exit_leaks; do
	off+=(--set "collector.$c.enabled=false")
done
port=$(free_port)
start_bg page_week "$daemon" run --listen "127.0.0.1:$port" --db "$db" "${off[@]}" \
	--set leak.refresh=24h
main_pid=$bg_pid
check "daemon ready on $db" wait_ready "http://127.0.0.1:$port/healthz" 60
devtools_chrome --lang=en-US
for i in $(seq "$runs"); do
	devtools_drive "run $i: switch to 7 days" 120 page_requests.js \
		"http://127.0.0.1:$port/#pid=4242&process=soakd" page-week.png
	python3 - "$tmpdir/steps.json" "$i" <<'PY'
import json, sys
v = [d["v"] for d in map(json.loads, open(sys.argv[1])) if d["step"] == "switch"][0]
print("# run %s: %d requests, last answer %s ms after the switch; %d leak rows, %d drawn"
      % (sys.argv[2], len(v["calls"]), v["ms"], v["rows"], v["drawn"]))
# The selected process's panels: every request the switch sent before the
# leak verdicts'; the leak table: the verdicts and their sparklines.
t = v.get("timing", [])
leak = next((i for i, x in enumerate(t) if x["url"].startswith("/api/v1/leaks")), len(t))
proc = t[:leak]
print("#   process panels: %d requests, answered %s ms after the switch; leak table: %s ms"
      % (len(proc), max((x["end"] for x in proc), default="-"),
         max((x["end"] for x in t[leak:leak + 2]), default="-")))
for x in t:
    print("#   %5d-%5d ms (%4d ms) %8d B  %s" % (x["start"], x["end"], x["ms"], x["bytes"], x["url"][:120]))
PY
done
check "the daemon stops cleanly" mw_stop "$main_pid"
finish
