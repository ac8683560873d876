#!/usr/bin/env python3
"""alerts_prometheus.py - contrib/prometheus's rules and contrib/grafana's
dashboard against a real Prometheus fed by memwatch (driven by
alerts_prometheus.sh; prints TAP lines).

Debian's Prometheus runs on loopback with the remote-write receiver and
the rules loaded, and scrapes memwatch's /metrics for the figures memwatch
does not store (remote write lag, up), keeping only those, as
contrib/README.md advises.  memwatch samples every second, watches two
copies of tests/helpers/memhog - mw_leaker growing 1.25 MiB/s, mw_plateau
holding 20 MiB it took before memwatch started - and a saw-tooth (mw_saw,
below), and remote-writes to Prometheus with instance=<its web address>.

Test-only copy of the rules, and why: the shipped durations are for hours
of data (a 10-minute floor, a 15-minute slope, `for: 5m` and `30m`); the
copy shortens those windows to seconds (floor 10 s, slope 20 s, every
`for` 5 s) and Prometheus evaluates every second, and memwatch's [leak]
warm-up and minimum duration are seconds too.  Expressions, labels and
annotations are the shipped ones.

Checked: MemwatchLeakVerdictFail and MemwatchProcessGrowthOverBudget fire
for mw_leaker in Prometheus' own ALERTS series, with the page annotation
naming memwatch's page for that pid (and the page answering); mw_plateau
and mw_saw (a copy of python3 taking 40 MiB and giving it back every 4 s),
judged pass by memwatch (mw_saw may read inconclusive over the short window) and with their floors' growth recorded, never have
an ALERTS series (pending or firing) over the whole run (without the floor,
the growth alert goes pending on mw_saw); then every query of the
dashboard returns data for host=<instance>, process=mw_leaker
(check_dashboard.py), and the checker names the empty ones for a process
never seen.  Every wait polls a condition with a deadline.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remote_write as rw  # noqa: E402  (tap, processes, HTTP and polling helpers)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXE = os.path.join(ROOT, "build/native/memwatchd")
HOG = os.path.join(ROOT, "build/native/helpers/memhog")
CONTRIB = os.path.join(ROOT, "contrib")
HEALTH_ONLY = ("memwatch_(remote_write_.*|storage_writer_up|storage_failed_flushes_total|"
               "storage_pending_points|collector_up|uptime_seconds|build_info|leak_check_.*)")


def test_copy_of_rules(src_dir, dst_dir):
    """The shipped rules with windows and `for` durations in seconds."""
    os.makedirs(dst_dir)
    for name in ("memwatch-rules.yml", "memwatch-alerts.yml"):
        text = open(os.path.join(src_dir, name)).read()
        text = re.sub(r"\bfor: \d+m\b", "for: 5s", text)
        text = text.replace("[10m])", "[10s])").replace("[15m])", "[20s])")
        with open(os.path.join(dst_dir, name), "w") as f:
            f.write(text)
    return [os.path.join(dst_dir, n) for n in ("memwatch-rules.yml", "memwatch-alerts.yml")]


def prom_query(port, query):
    q = urllib.parse.urlencode({"query": query})
    return rw.get_json("http://127.0.0.1:%d/api/v1/query?%s" % (port, q))["data"]["result"]


def resident_pages(pid):
    with open("/proc/%d/statm" % pid) as f:
        return int(f.read().split()[1])


def hog(tmp, name, args):
    """A copy of memhog named NAME (memwatch's process label), started."""
    exe = os.path.join(tmp, name)
    shutil.copy(HOG, exe)
    return rw.start([exe] + [str(a) for a in args], os.path.join(tmp, name + ".out"))


# mw_saw: takes 40 MiB and gives it back every 4 seconds (a GC's saw-tooth:
# resident and private, freed with munmap), for 4 minutes at most.
SAW = ("import time\nend = time.time() + 240\nwhile time.time() < end:\n"
       "    b = bytearray(b'Z') * (40 << 20)\n    time.sleep(2)\n    del b\n    time.sleep(2)\n")


def sawtooth(tmp):
    """A copy of python3 named mw_saw running SAW."""
    exe = os.path.join(tmp, "mw_saw")
    shutil.copy(sys.executable, exe)
    return rw.start([exe, "-c", SAW], os.path.join(tmp, "mw_saw.out"))


def check_dashboard(port, host, process):
    """contrib/grafana/check_dashboard.py against the Prometheus on port."""
    return subprocess.run([sys.executable, os.path.join(CONTRIB, "grafana/check_dashboard.py"),
                           os.path.join(CONTRIB, "grafana/memwatch.json"), "-v",
                           "--prometheus", "http://127.0.0.1:%d" % port,
                           "--var", "host=" + host, "--var", "process=" + process],
                          capture_output=True, text=True)


def run(tmp):
    prom, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not prom or not promtool:
        rw.skip("alerts in a real Prometheus", "prometheus or promtool not installed (scripts/deps.sh test)")
        return
    for f in (EXE, HOG):
        if not rw.tap(os.access(f, os.X_OK), "%s built" % os.path.relpath(f, ROOT)):
            return
    rules = test_copy_of_rules(os.path.join(CONTRIB, "prometheus"), os.path.join(tmp, "rules"))
    r = subprocess.run([promtool, "check", "rules"] + rules, capture_output=True, text=True)
    rw.tap(r.returncode == 0, "the test copy of the rules (windows in seconds) loads", r.stdout + r.stderr)

    # mw_plateau takes its 20 MiB before memwatch starts, so every sample is flat.
    plateau = hog(tmp, "mw_plateau", (20480, 100, 1, 240))
    rw.tap(bool(rw.wait_for(lambda: resident_pages(plateau.pid) * 4096 >= 20 << 20, 30, "plateau")),
           "mw_plateau holds its 20 MiB")
    leaker = hog(tmp, "mw_leaker", (256, 200, 0, 240))
    saw = sawtooth(tmp)

    pp, mp = rw.free_port(), rw.free_port()
    instance = "127.0.0.1:%d" % mp
    with open(os.path.join(tmp, "prom.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "storage:\n  tsdb:\n    out_of_order_time_window: 1h\n"
                "rule_files:\n" + "".join("  - %s\n" % r for r in rules) +
                "scrape_configs:\n  - job_name: memwatch\n    static_configs:\n"
                "      - targets: ['%s']\n    metric_relabel_configs:\n"
                "      - source_labels: [__name__]\n        regex: '%s'\n        action: keep\n"
                % (instance, HEALTH_ONLY))
    p = rw.start([prom, "--config.file=" + tmp + "/prom.yml", "--storage.tsdb.path=" + tmp + "/prom",
                  "--web.listen-address=127.0.0.1:%d" % pp, "--web.enable-remote-write-receiver"],
                 tmp + "/prom.log")
    if not rw.tap(bool(rw.wait_for(lambda: rw.get("http://127.0.0.1:%d/-/ready" % pp, 1), 60, "ready")),
                  "prometheus starts with the rules"):
        return

    cfg = tmp + "/mw.ini"
    with open(cfg, "w") as f:
        f.write("\n".join([
            "[daemon]", "interval = 1s", "watch = mw_leaker, mw_plateau, mw_saw",
            "[storage]", "db = " + tmp + "/mw.db", "flush_interval = 500ms",
            "[web]", "listen = " + instance,
            "[leak]", "refresh = 1s", "cpu_budget = 0", "window = 1h", "warmup = 2s", "min_duration = 10s",
            "[collector.perfcounters]", "enabled = false",
            "[collector.vmmap]", "enabled = false",
            "[collector.workingset]", "enabled = false",
            "[remote_write.prom]", "url = http://127.0.0.1:%d/api/v1/write" % pp,
            "labels = instance=%s,job=memwatch" % instance, "max_backoff = 1s", ""]))
    mw, ok = rw.mw_start(cfg, mp, tmp + "/mw.log")
    if not rw.tap(ok, "memwatch starts, remote-writing to prometheus"):
        return

    t0 = time.time()
    firing = '{alertstate="firing",process="mw_leaker"}'
    got = rw.wait_for(lambda: prom_query(pp, 'ALERTS{alertname="MemwatchLeakVerdictFail",%s' % firing[1:]),
                      150, "MemwatchLeakVerdictFail firing")
    rw.tap(bool(got), "MemwatchLeakVerdictFail fires for mw_leaker in ALERTS (after %.0f s)" % (time.time() - t0),
           prom_query(pp, "ALERTS") if not got else None)
    got = rw.wait_for(lambda: prom_query(pp, 'ALERTS{alertname="MemwatchProcessGrowthOverBudget",%s' % firing[1:]),
                      60, "MemwatchProcessGrowthOverBudget firing")
    rw.tap(bool(got), "MemwatchProcessGrowthOverBudget fires for mw_leaker in ALERTS",
           prom_query(pp, "ALERTS") if not got else None)

    alerts = rw.get_json("http://127.0.0.1:%d/api/v1/alerts" % pp)["data"]["alerts"]
    verdict = [a for a in alerts if a["labels"]["alertname"] == "MemwatchLeakVerdictFail"
               and a["labels"].get("process") == "mw_leaker"]
    page = verdict[0]["annotations"].get("page", "") if verdict else ""
    want = "http://%s/#pid=%d&started=" % (instance, leaker.pid)
    rw.tap(page.startswith(want) and page.endswith("&process=mw_leaker"),
           "its page annotation is memwatch's page for the leaker (%s)" % page, json.dumps(verdict))
    rw.tap(bool(page) and b"<html" in rw.get(page.split("#")[0]).lower(), "... and that page answers")
    desc = verdict[0]["annotations"].get("description", "") if verdict else ""
    rw.tap(re.search(r"leaking \w+ memory, rising [0-9.]+[KMG]iB/h since .*UTC, \+[0-9.]+[KMG]?i?B so far", desc),
           "its description names the kind, the rate and since when: %s" % desc[:160])

    # mw_plateau was judged pass, mw_saw not fail (over the test's short
    # window its floors can scatter too much to judge yet: inconclusive,
    # analysis/leak.c), their floors' growth recorded, and nothing ever
    # alerted on them.
    for name, want, said in (("mw_plateau", "== 0", "pass"),
                             ("mw_saw", "!= 1", "pass or inconclusive, not fail")):
        rw.tap(bool(rw.wait_for(lambda: prom_query(pp, 'memwatch_leak_verdict{process="%s"} %s' % (name, want)),
                                30, name + " verdict")), "memwatch judges %s %s (in Prometheus)" % (name, said),
               prom_query(pp, 'memwatch_leak_verdict{process="%s"}' % name))
        rw.tap(bool(prom_query(pp, 'memwatch_process:private_bytes_floor:growth_bytes_per_hour{process="%s"}' % name)),
               "the growth of %s's floor is recorded" % name)
        seen = prom_query(pp, 'count_over_time(ALERTS{process="%s"}[1h])' % name)
        rw.tap(not seen, "no alert, pending or firing, for %s over the whole run" % name, json.dumps(seen))
    swing = prom_query(pp, 'max_over_time(memwatch_process_private_bytes{process="mw_saw"}[1m])'
                       ' - min_over_time(memwatch_process_private_bytes{process="mw_saw"}[1m])')
    rw.tap(bool(swing) and float(swing[0]["value"][1]) >= 30 << 20,
           "... though mw_saw's private bytes swing by %s bytes" % (swing[0]["value"][1] if swing else "?"))

    # The dashboard's queries, with its variables set to this daemon and the leaker.
    r = check_dashboard(pp, instance, "mw_leaker")
    rw.tap(r.returncode == 0, "every query of the Grafana dashboard returns data from this Prometheus",
           r.stdout + r.stderr)
    print("\n".join(line for line in r.stdout.splitlines() if line.startswith("#")))
    # The checker sees an empty answer: a process nobody runs.
    r = check_dashboard(pp, instance, "mw_nobody")
    rw.tap(r.returncode == 1 and "query A returns no data" in r.stdout and "variable process offers" in r.stdout,
           "... and names the panels without data for a process memwatch never saw", r.stdout + r.stderr)
    rw.stop(mw)
    rw.stop(leaker)
    rw.stop(plateau)
    rw.stop(saw)
    rw.stop(p)


def main():
    tmp = tempfile.mkdtemp(prefix="mw-alerts-")
    try:
        run(tmp)
    finally:
        # Whatever a failed check left running, by the PIDs we started.
        for p in (p for p in rw.started if p.poll() is None):
            p.kill()
            p.wait()
        if not os.environ.get("MW_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % rw.n)


if __name__ == "__main__":
    main()
