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
# What the switch asked (the first request of each; the page's timers, live
# follow every 2 s and the process table every 5 s, add others meanwhile):
# the selected process's panels (chart, working set over time, exit leak
# reports) and the leak table (the verdicts, then their sparklines).
t = v.get("timing", [])
kinds = [("chart", lambda u: u.startswith("/api/v1/query?") and "top=20" in u),
         ("working set", lambda u: "memwatch_workingset_bytes" in u),
         ("exit leaks", lambda u: u.startswith("/api/v1/exit-leaks")),
         ("verdicts", lambda u: u.startswith("/api/v1/leaks")),
         ("sparklines", lambda u: u.startswith("/api/v1/query?") and "max_points=60" in u)]
first = {k: next((x for x in t if f(x["url"])), None) for k, f in kinds}
end = lambda ks: max((first[k]["end"] for k in ks if first[k]), default=-1)
print("#   the switch: %d requests; process panels answered %d ms after it, leak table %d ms"
      % (sum(1 for k in first if first[k]), end(["chart", "working set", "exit leaks"]),
         end(["verdicts", "sparklines"])))
for k, _ in kinds:
    x = first[k]
    if x:
        print("#   %-11s %5d-%5d ms (%4d ms) %8d B  %s" % (k, x["start"], x["end"], x["ms"], x["bytes"], x["url"][:100]))
print("#   chart: %s; working set: %s" % (v.get("chartMsg"), v.get("wsMsg")))
PY
done
check "the daemon stops cleanly" mw_stop "$main_pid"
finish
