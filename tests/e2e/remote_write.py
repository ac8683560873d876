#!/usr/bin/env python3
"""remote_write.py - the end-to-end run of the remote-write forwarder
(driven by remote_write.sh; prints TAP lines).

Run 1, real receivers: memwatch samples every 200 ms and forwards to
Prometheus and VictoriaMetrics; both receivers are stopped for a while and
started again; memwatch is SIGKILLed and restarted; then a last memwatch
run without collectors lets the forwarders catch up, and every point
memwatch stored for the forwarded series up to then (its own
/api/v1/export) must be in each receiver (Prometheus' query API,
VictoriaMetrics' export API), series by series, same timestamps and
values, no gap.

Run 3: Prometheus without an out-of-order window refuses a series
imported 3 hours back once it holds recent samples (400 "out of
bounds"): skipped, counted, the receiver's words in the status and log.

Run 2, bad receivers (remote_write_fake.py): a wrong token (401), a 400
for the first batch, a receiver that hangs past the timeout, a TLS
certificate that does not verify.  Each must show a clear status
(/api/v1/remote_write) while memwatch runs; after a restart with the token
and the CA file fixed, every point is at each receiver except exactly the
batch refused with 400 (counted as skipped).

Waiting is always for a condition (polled, with a deadline), never a fixed
sleep standing in for one; the only fixed pauses are the outage and the
sampling time the scenario asks for.
"""
import json
import math
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

EXE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/native/memwatchd")
HERE = os.path.dirname(os.path.abspath(__file__))
MATCH = '{__name__=~"memwatch_(system|collector|leak)_.*"}'
n = 0
started = []


def tap(ok, what, diag=None):
    global n
    n += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (n, what))
    if diag and not ok:
        for line in str(diag).splitlines()[:30]:
            print("# " + line)
    sys.stdout.flush()
    return ok


def skip(what, why):
    global n
    n += 1
    print("ok %d - %s # SKIP %s" % (n, what, why))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def get(url, timeout=5, data=None):
    req = urllib.request.Request(url, data=data)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read()


def get_json(url, timeout=5):
    return json.loads(get(url, timeout))


def wait_for(cond, timeout, what):
    """Poll cond() until true or the deadline; returns its last value."""
    end = time.time() + timeout
    last = None
    while time.time() < end:
        try:
            last = cond()
        except Exception as e:  # not up yet
            last = None
            err = e
        if last:
            return last
        time.sleep(0.1)
    print("# timed out after %ss waiting for %s" % (timeout, what))
    return last


def start(args, log):
    p = subprocess.Popen(args, stdout=open(log, "ab"), stderr=subprocess.STDOUT)
    started.append(p)
    return p


def stop(p, sig=signal.SIGTERM):
    if p.poll() is None:
        os.kill(p.pid, sig)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.kill(p.pid, signal.SIGKILL)
        p.wait()


def mw_config(path, db, port, dests, collectors=True):
    lines = ["[daemon]", "interval = 200ms", "[storage]", "db = " + db,
             "flush_interval = 500ms", "[web]", "listen = 127.0.0.1:%d" % port,
             "[leak]", "refresh = 1s", "cpu_budget = 0"]
    for c in ("process", "workingset", "perfcounters", "heap", "vmmap"):
        lines += ["[collector.%s]" % c, "enabled = false"]
    if not collectors:
        lines += ["[collector.system]", "enabled = false"]
    for name, keys in dests:
        lines.append("[remote_write.%s]" % name)
        keys = dict(keys)
        keys.setdefault("match", MATCH)
        keys.setdefault("labels", "instance=e2e")
        keys.setdefault("max_backoff", "1s")
        for k, v in keys.items():
            lines.append("%s = %s" % (k, v))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def mw_start(cfg, port, log):
    p = start([EXE, "run", "--config", cfg], log)
    ok = wait_for(lambda: get("http://127.0.0.1:%d/healthz" % port, 1), 30, "memwatch /healthz")
    if not ok:
        r = subprocess.run(["ss", "-tanp"], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            if ":%d " % port in line:
                print("# " + line)
    return p, bool(ok)


def rw_status(port):
    d = get_json("http://127.0.0.1:%d/api/v1/remote_write" % port)
    return {x["name"]: x for x in d["remote_write"]}


def caught_up_past(port, names, t_cut):
    st = rw_status(port)
    for nm in names:
        s = st[nm]
        if not (s["caught_up"] or (s["oldest_unsent_ms"] or 0) > t_cut):
            return None
    return st


def mw_points(port, t_from, t_to):
    """memwatch's own stored points: {labelkey: [(ts, v)]}."""
    q = urllib.parse.urlencode({"match": MATCH, "from": str(t_from), "to": str(t_to),
                                "format": "json"})
    d = json.loads(get("http://127.0.0.1:%d/api/v1/export?%s" % (port, q), 30))
    out = {}
    for s in d["series"]:
        labels = dict(s["labels"])
        labels["__name__"] = s["name"]
        labels["instance"] = "e2e"
        out[json.dumps(labels, sort_keys=True)] = [(int(p[0]), p[1]) for p in s["points"]
                                                   if t_from <= p[0] <= t_to]
    return out


def same_value(a, b):
    if a is None or b is None:
        return a is None and b is None
    a, b = float(a), float(b)
    return a == b or (math.isnan(a) and math.isnan(b))


def compare(mine, theirs, what, allow_missing=0):
    """Series by series: every point of mine at the receiver, same value;
    nothing the receiver has that memwatch does not.  Returns a list of
    problems (empty: equal) and the number of duplicates seen."""
    problems = []
    missing_total = 0
    dups = 0
    for key, pts in sorted(mine.items()):
        got = theirs.get(key, [])
        by_ts = {}
        for t, v in got:
            if t in by_ts:
                dups += 1
                if not same_value(by_ts[t], v):
                    problems.append("%s %s: ts %d twice with %r and %r" % (what, key, t, by_ts[t], v))
            by_ts[t] = v
        missing = [t for t, _ in pts if t not in by_ts]
        missing_total += len(missing)
        for t, v in pts:
            if t in by_ts and not same_value(by_ts[t], v):
                problems.append("%s %s: ts %d memwatch %r receiver %r" % (what, key, t, v, by_ts[t]))
        extra = set(by_ts) - set(t for t, _ in pts)
        if extra:
            problems.append("%s %s: %d points memwatch does not have" % (what, key, len(extra)))
        if missing and not allow_missing:
            problems.append("%s %s: %d of %d points missing (first %d)" %
                            (what, key, len(missing), len(pts), missing[0]))
    for key in set(theirs) - set(mine):
        problems.append("%s: series %s memwatch does not have" % (what, key))
    if allow_missing and missing_total != allow_missing:
        problems.append("%s: %d points missing, want exactly %d (the refused batch)" %
                        (what, missing_total, allow_missing))
    return problems, dups


def prom_points(port, t_from, t_to):
    rng = int((t_to - t_from) / 1000) + 60
    q = urllib.parse.urlencode({"query": '{instance="e2e"}[%ds]' % rng, "time": "%.3f" % (t_to / 1000)})
    d = get_json("http://127.0.0.1:%d/api/v1/query?%s" % (port, q), 30)
    out = {}
    for s in d["data"]["result"]:
        key = json.dumps(s["metric"], sort_keys=True)
        out[key] = [(int(round(float(t) * 1000)), float(v)) for t, v in s["values"]
                    if t_from <= round(float(t) * 1000) <= t_to]
    return out


def vm_points(port, t_from, t_to):
    try:
        get("http://127.0.0.1:%d/internal/force_flush" % port, 10)
    except Exception:
        pass
    q = urllib.parse.urlencode({"match[]": '{instance="e2e"}', "start": "%.3f" % (t_from / 1000),
                                "end": "%.3f" % (t_to / 1000)})
    text = get("http://127.0.0.1:%d/api/v1/export?%s" % (port, q), 30).decode()
    out = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        s = json.loads(line)
        key = json.dumps(s["metric"], sort_keys=True)
        lst = out.setdefault(key, [])
        lst += [(int(t), float(v)) for t, v in zip(s["timestamps"], s["values"])
                if t_from <= t <= t_to]
    return out


# ---------------------------------------------------------------------------
def run_real(tmp):
    prom = shutil.which("prometheus")
    vm = shutil.which("victoria-metrics")
    if not prom or not vm:
        skip("real receivers", "prometheus or victoria-metrics not installed (scripts/deps.sh test)")
        return
    pp, vp, mp = free_port(), free_port(), free_port()
    with open(tmp + "/prom.yml", "w") as f:
        # Backfill older than the head needs the out-of-order window.
        f.write("global:\n  scrape_interval: 1h\nstorage:\n  tsdb:\n    out_of_order_time_window: 1h\n")
    prom_args = [prom, "--config.file=" + tmp + "/prom.yml", "--storage.tsdb.path=" + tmp + "/prom",
                 "--web.listen-address=127.0.0.1:%d" % pp, "--web.enable-remote-write-receiver"]
    vm_args = [vm, "-storageDataPath=" + tmp + "/vm", "-httpListenAddr=127.0.0.1:%d" % vp,
               "-dedup.minScrapeInterval=1ms", "-retentionPeriod=100y", "-search.latencyOffset=0s"]

    def receivers_up():
        p = start(prom_args, tmp + "/prom.log")
        v = start(vm_args, tmp + "/vm.log")
        ok = wait_for(lambda: get("http://127.0.0.1:%d/-/ready" % pp, 1) and
                      get("http://127.0.0.1:%d/health" % vp, 1), 60, "receivers ready")
        return p, v, bool(ok)

    p, v, ok = receivers_up()
    if not tap(ok, "prometheus and victoria-metrics start on loopback"):
        return
    cfg = tmp + "/mw.ini"
    db = tmp + "/mw.db"
    dests = [("prom", {"url": "http://127.0.0.1:%d/api/v1/write" % pp}),
             ("vm", {"url": "http://127.0.0.1:%d/api/v1/write" % vp})]
    mw_config(cfg, db, mp, dests)
    t_start = int(time.time() * 1000)
    mw, ok = mw_start(cfg, mp, tmp + "/mw.log")
    tap(ok, "memwatch starts with two remote_write destinations")
    st = wait_for(lambda: (lambda s: s if s["prom"]["points_sent"] and s["vm"]["points_sent"] else None)
                  (rw_status(mp)), 30, "first points sent")
    tap(bool(st), "both destinations accept points", st)

    # The outage: both receivers stopped, memwatch keeps sampling.
    stop(p)
    stop(v)
    t_out = int(time.time() * 1000)
    st = wait_for(lambda: (lambda s: s if not s["prom"]["up"] and not s["vm"]["up"] else None)
                  (rw_status(mp)), 30, "destinations down")
    tap(bool(st) and st["prom"]["retries"] > 0 and st["vm"]["retries"] > 0 and
        st["prom"]["last_status"] == 0 and st["prom"]["last_error"],
        "receivers down: status up=false, retries counted, the network error shown", st)
    metrics = get("http://127.0.0.1:%d/metrics" % mp).decode()
    tap('memwatch_remote_write_up{destination="prom"} 0' in metrics and
        'memwatch_remote_write_lag_seconds{destination="vm"}' in metrics,
        "/metrics has the destinations' up and lag", "\n".join(l for l in metrics.splitlines()
                                                              if "remote_write" in l))
    time.sleep(4)   # the outage lasts a while
    st = rw_status(mp)
    tap(st["prom"]["lag_seconds"] >= 2 and not st["prom"]["caught_up"],
        "during the outage the lag grows (%.1f s)" % st["prom"]["lag_seconds"], st)
    # memwatch is SIGKILLed during the outage and restarted: the backlog
    # is only in its database and its cursor now.  (Each start gets a new
    # web port: the daemon does not set SO_REUSEADDR on Linux, so its old
    # port is refused while connections it closed are in TIME-WAIT.)
    t_kill = int(time.time() * 1000)
    stop(mw, signal.SIGKILL)
    mp = free_port()
    mw_config(cfg, db, mp, dests)
    mw, ok = mw_start(cfg, mp, tmp + "/mw.log")
    tap(ok, "memwatch restarts after SIGKILL")
    st = wait_for(lambda: (lambda s: s if s["prom"]["retries"] and s["vm"]["retries"] else None)
                  (rw_status(mp)), 30, "retries after the restart")
    tap(bool(st) and 0 < (st["prom"]["oldest_unsent_ms"] or 0) < t_out and
        0 < (st["vm"]["oldest_unsent_ms"] or 0) < t_out,
        "after the restart the cursor still has the whole outage to send", st)
    time.sleep(2)   # the outage goes on a little after the restart
    t_back = int(time.time() * 1000)
    p, v, ok = receivers_up()
    tap(ok, "receivers start again")
    st = wait_for(lambda: (lambda s: s if s["prom"]["up"] and s["vm"]["up"] and
                           (s["prom"]["last_sent_ms"] or 0) > t_back and
                           (s["vm"]["last_sent_ms"] or 0) > t_back else None)(rw_status(mp)),
                  60, "destinations back")
    tap(bool(st), "memwatch resumes sending to both", st)
    time.sleep(2)   # sampling goes on with the receivers back
    stop(mw)
    # Drain: a run without collectors; every stored point is older than t_cut.
    t_cut = int(time.time() * 1000)
    mp = free_port()
    mw_config(cfg, db, mp, dests, collectors=False)
    mw, ok = mw_start(cfg, mp, tmp + "/mw.log")
    st = wait_for(lambda: caught_up_past(mp, ("prom", "vm"), t_cut), 120, "catch-up")
    tap(bool(st), "both destinations catch up after the restarts", st)
    mine = mw_points(mp, t_start - 60000, t_cut)
    npts = sum(len(x) for x in mine.values())
    during = sum(1 for pts in mine.values() for t, _ in pts if t_out < t < t_back)
    leak = sum(1 for k in mine if '"memwatch_leak_' in k)
    tap(len(mine) >= 4 and npts > 100 and during > 0 and leak > 0,
        "memwatch stored %d points of %d series (%d of them leak verdicts), %d during the outage "
        "(killed %.1f s into it)" % (npts, len(mine), leak, during, (t_kill - t_out) / 1000))
    for name, fn, port in (("prometheus", prom_points, pp), ("victoria-metrics", vm_points, vp)):
        try:
            theirs = fn(port, t_start - 60000, t_cut)
        except Exception as e:
            tap(False, "%s query API answers" % name, e)
            continue
        problems, dups = compare(mine, theirs, name)
        got = sum(len(x) for x in theirs.values())
        tap(not problems, "%s has every point memwatch stored, series by series, same values, "
            "no gap (%d series, %d points received, %d duplicates)" % (name, len(theirs), got, dups),
            "\n".join(problems))
    stop(mw)
    stop(p)
    stop(v)


# ---------------------------------------------------------------------------
def run_bad(tmp):
    if not shutil.which("openssl"):
        skip("bad receivers", "openssl not installed")
        return
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                        tmp + "/key.pem", "-out", tmp + "/cert.pem", "-days", "2", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not tap(r.returncode == 0, "a throw-away certificate"):
        return
    fake = os.path.join(HERE, "remote_write_fake.py")
    f1 = start([sys.executable, fake, tmp + "/p1", "--hang", "2"], tmp + "/fake1.log")
    f2 = start([sys.executable, fake, tmp + "/p2", "--tls", tmp + "/cert.pem", tmp + "/key.pem"],
               tmp + "/fake2.log")
    ok = wait_for(lambda: os.path.exists(tmp + "/p1") and os.path.exists(tmp + "/p2"), 30, "fakes")
    if not tap(bool(ok), "fake receivers start"):
        return
    hp = int(open(tmp + "/p1").read())
    sp = int(open(tmp + "/p2").read())
    mp = free_port()
    cfg = tmp + "/bad.ini"
    db = tmp + "/bad.db"
    base = "http://127.0.0.1:%d" % hp

    def dests(fixed):
        return [("auth", {"url": base + "/auth", "bearer_token": "good" if fixed else "bad"}),
                ("bad400", {"url": base + "/bad400", "batch_size": "40"}),
                ("hang", {"url": base + "/hang", "timeout": "1s"}),
                ("tls", dict({"url": "https://127.0.0.1:%d/ok" % sp},
                             **({"ca_file": tmp + "/cert.pem"} if fixed else {})))]
    mw_config(cfg, db, mp, dests(False))
    t_start = int(time.time() * 1000)
    mw, ok = mw_start(cfg, mp, tmp + "/bad.log")
    tap(ok, "memwatch starts with four bad destinations")

    def settled():
        s = rw_status(mp)
        return s if (s["auth"]["retries"] >= 2 and s["tls"]["retries"] >= 2 and
                     s["bad400"]["batches_skipped"] >= 1 and s["bad400"]["points_sent"] > 0 and
                     s["hang"]["retries"] >= 1 and s["hang"]["points_sent"] > 0) else None
    st = wait_for(settled, 60, "bad receivers' status")
    if not tap(bool(st), "each bad destination shows its trouble", rw_status(mp)):
        st = rw_status(mp)
    a, b, h, t = st["auth"], st["bad400"], st["hang"], st["tls"]
    tap(not a["up"] and a["last_status"] == 401 and "invalid bearer token" in (a["last_error"] or "")
        and a["batches_skipped"] == 0 and a["points_sent"] == 0,
        "401: up=false, the receiver's message, retried, nothing skipped", a)
    skipped_400 = b["points_skipped"]
    tap(b["batches_skipped"] == 1 and 0 < skipped_400 <= 40 and
        "out of bounds" in (b["last_error"] or "") and b["points_sent"] > 0,
        "400 once: that batch skipped and counted (%d points, batch_size 40), the receiver's "
        "message, the rest sent" % skipped_400, b)
    tap("timed out" in (h["last_error"] or "").lower() and h["retries"] >= 1,
        "a hanging receiver: timed out, retried (%s)" % h["last_error"], h)
    tap(not t["up"] and t["last_status"] == 0 and t["points_sent"] == 0 and t["batches_skipped"] == 0
        and any(w in (t["last_error"] or "").lower() for w in ("certificate", "verif", "ssl", "tls")),
        "TLS certificate that does not verify: up=false, says so, nothing skipped (%s)" %
        t["last_error"], t)
    log = open(tmp + "/bad.log").read()
    tap("remote_write.bad400" in log and "out of bounds" in log,
        "the refused batch is logged with the receiver's message")

    # Fix the token and the CA, let everything drain, compare.
    stop(mw)
    t_cut = int(time.time() * 1000)
    mp = free_port()
    mw_config(cfg, db, mp, dests(True), collectors=False)
    mw, ok = mw_start(cfg, mp, tmp + "/bad.log")
    st = wait_for(lambda: caught_up_past(mp, ("auth", "bad400", "hang", "tls"), t_cut), 120,
                  "catch-up after the fix")
    tap(bool(st), "after the fix every destination catches up", st or rw_status(mp))
    mine = mw_points(mp, t_start - 60000, t_cut)
    for path, dest, skipped in (("/auth", "auth", 0), ("/bad400", "bad400", skipped_400),
                                ("/hang", "hang", 0), ("/ok", "tls", 0)):
        port = sp if dest == "tls" else hp
        if dest == "tls":
            import ssl
            ctx = ssl.create_default_context(cafile=tmp + "/cert.pem")
            with urllib.request.urlopen("https://127.0.0.1:%d/dump?path=%s" % (port, path),
                                        context=ctx, timeout=10) as r:
                d = json.loads(r.read())
        else:
            d = get_json("http://127.0.0.1:%d/dump?path=%s" % (port, path))
        theirs = {}
        for key, ts, v in d["samples"]:
            # the drain run's own points (leak verdicts) are newer than t_cut
            if t_start - 60000 <= ts <= t_cut:
                theirs.setdefault(key, []).append((ts, v))
        problems, dups = compare(mine, theirs, dest, allow_missing=skipped)
        tap(not problems, "%s: every point arrived%s (%d duplicates)" %
            (dest, ", except the %d refused" % skipped if skipped else "", dups),
            "\n".join(problems))
    hdr = get_json("http://127.0.0.1:%d/dump?path=/auth" % hp)["headers"]
    tap(hdr.get("Content-Encoding") == "snappy" and
        hdr.get("X-Prometheus-Remote-Write-Version") == "0.1.0" and
        hdr.get("Content-Type") == "application/x-protobuf",
        "the documented remote-write headers", hdr)
    stop(mw)
    stop(f1)
    stop(f2)


# ---------------------------------------------------------------------------
def run_too_old(tmp):
    """Prometheus without an out-of-order window refuses samples older than
    its head: a series imported with points 3 hours old, after recent
    points were accepted, comes back 400 - skipped, counted, and the
    receiver's words in the status; everything else still arrives."""
    prom = shutil.which("prometheus")
    if not prom:
        skip("too old for Prometheus", "prometheus not installed")
        return
    pp, mp = free_port(), free_port()
    with open(tmp + "/prom2.yml", "w") as f:
        f.write("global:\n  scrape_interval: 1h\n")
    p = start([prom, "--config.file=" + tmp + "/prom2.yml", "--storage.tsdb.path=" + tmp + "/prom2",
               "--web.listen-address=127.0.0.1:%d" % pp, "--web.enable-remote-write-receiver"],
              tmp + "/prom2.log")
    if not tap(bool(wait_for(lambda: get("http://127.0.0.1:%d/-/ready" % pp, 1), 60, "ready")),
               "prometheus (no out-of-order window) starts"):
        return
    cfg, db = tmp + "/old.ini", tmp + "/old.db"
    dests = [("prom", {"url": "http://127.0.0.1:%d/api/v1/write" % pp})]
    mw_config(cfg, db, mp, dests)
    t_start = int(time.time() * 1000)
    mw, ok = mw_start(cfg, mp, tmp + "/old.log")
    st = wait_for(lambda: (lambda s: s if s["prom"]["points_sent"] > 20 else None)(rw_status(mp)),
                  30, "recent points sent")
    tap(bool(st), "recent points accepted first", st)
    stop(mw)
    t_old = int(time.time() * 1000) - 3 * 3600 * 1000
    with open(tmp + "/old.json", "w") as f:
        json.dump({"series": [{"id": 1, "name": "memwatch_system_old_bytes",
                               "labels": {"src": "import"},
                               "points": [[t_old + i * 1000, 1000 + i] for i in range(50)]}]}, f)
    r = subprocess.run([EXE, "import", "--db", db, tmp + "/old.json"], capture_output=True, text=True)
    tap(r.returncode == 0, "a series 3 hours old imported behind the cursor", r.stderr)
    t_cut = int(time.time() * 1000)
    mp = free_port()
    mw_config(cfg, db, mp, dests, collectors=False)
    mw, ok = mw_start(cfg, mp, tmp + "/old.log")
    st = wait_for(lambda: caught_up_past(mp, ("prom",), t_cut), 60, "catch-up")
    st = (st or rw_status(mp))["prom"]
    tap(st["batches_skipped"] >= 1 and st["points_skipped"] == 50 and
        "HTTP 400: out of bounds" in (st["last_error"] or ""),
        "Prometheus refuses the old series: 400 (%s), 50 points skipped and counted, not resent" %
        st["last_error"], st)
    log = open(tmp + "/old.log").read()
    tap("refused 50 points" in log and "out of bounds" in log,
        "the refusal is logged with the receiver's message")
    mine = mw_points(mp, t_start - 60000, t_cut)
    theirs = prom_points(pp, t_start - 60000, t_cut)
    problems, _ = compare(mine, theirs, "prometheus")
    tap(not problems and len(mine) >= 4, "the recent series all arrived (%d series)" % len(mine),
        "\n".join(problems))
    stop(mw)
    stop(p)


def main():
    tmp = tempfile.mkdtemp(prefix="mw-rw-")
    try:
        run_real(tmp)
        run_bad(tmp)
        run_too_old(tmp)
    finally:
        for p in started:
            if p.poll() is None:
                os.kill(p.pid, signal.SIGKILL)
                p.wait()
        if os.environ.get("MW_KEEP"):
            print("# kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print("1..%d" % n)


if __name__ == "__main__":
    main()
