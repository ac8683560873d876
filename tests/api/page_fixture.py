#!/usr/bin/env python3
"""page_fixture.py - data for the page tests of the MemDiff chart, the
address-space map and the selected process (tests/api/chromium.sh,
tests/api/page_map.sh, tests/api/page_select.sh).

  page_fixture.py export FILE [--two]
      write a /api/v1/export JSON file (for `memwatchd import`) with 20 min
      of memwatch_workingset_bytes{pid="4242",category,sharing} (heap
      growing) and the memwatch_vm_* series of the watched process
      leaky.exe, pid 4242, ending now.  With --two (tests/api/page_select.sh)
      also a second watched process, bloat.exe, pid 5151, and 55 min of
      memwatch_process_{private,working_set}_bytes of both and of an idle
      steady.exe, pid 6262: bloat.exe leaks fastest (the worst leak),
      leaky.exe leaks too, steady.exe is flat.

  page_fixture.py proxy PORT UPSTREAM_PORT
      a loopback HTTP proxy to the daemon that answers /api/v1/diff and
      /api/v1/regions itself with JSON of the documented shapes for the
      watched pids 4242 and 5151 (a stand-in until the daemon has them; 404
      for any other pid) and passes everything else through.
      Requests it answered are appended to $PROXY_LOG when set.
"""
import json, os, sys, time, urllib.request, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PID, NAME = "4242", "leaky.exe"
# The watched processes the proxy answers diff and regions for.
NAMES = {PID: NAME, "5151": "bloat.exe"}
# --two: process series (pid, name, started: seconds before its first
# point, private bytes at minute m).  leaky.exe ran two hours before its
# data: its leak is under way "before" its first point (the page's since).
PROCS = [("4242", "leaky.exe", 7200, lambda m: 80 * MiB + m * 0.5 * MiB),
         ("5151", "bloat.exe", 0, lambda m: 120 * MiB + m * 1.5 * MiB),
         ("6262", "steady.exe", 0, lambda m: 30 * MiB + (m % 3) * 4096)]
CATS = ["image", "mapped_file", "shareable", "heap", "stack", "private_data", "other"]
SHARING = ["private", "shareable", "shared"]
STEP_MS, POINTS = 10000, 120
MiB, GiB, TiB = 1 << 20, 1 << 30, 1 << 40


def ws_at(i):
    """Working set by category and sharing at point i (bytes)."""
    grow = i * 512 * 1024
    return {
        "image": {"private": 3 * MiB, "shareable": 0, "shared": 22 * MiB},
        "mapped_file": {"private": 0, "shareable": 2 * MiB, "shared": 6 * MiB},
        "shareable": {"private": 0, "shareable": 1 * MiB, "shared": 512 * 1024},
        "heap": {"private": 40 * MiB + grow, "shareable": 0, "shared": 0},
        "stack": {"private": 256 * 1024 + (i % 4) * 4096, "shareable": 0, "shared": 0},
        "private_data": {"private": 12 * MiB + (i // 30) * MiB, "shareable": 0, "shared": 0},
        "other": {"private": 1 * MiB, "shareable": 0, "shared": 0},
    }


def export(path, two=False):
    now = int(time.time() * 1000) // 1000 * 1000
    t0 = now - (POINTS - 1) * STEP_MS
    ts = [t0 + i * STEP_MS for i in range(POINTS)]
    series = []
    for pid, name in (NAMES.items() if two else [(PID, NAME)]):
        series += watched(pid, name, ts)
    if two:
        pts = [now - (659 - i) * 5000 for i in range(660)]	# 55 min at 5 s
        for pid, name, before, f in PROCS:
            started = str(pts[0] // 1000 - before)
            for metric, extra in (("private", 0), ("working_set", 20 * MiB)):
                series.append({"name": "memwatch_process_%s_bytes" % metric,
                               "labels": {"pid": pid, "process": name, "started": started},
                               "points": [[t, f((t - pts[0]) / 60000) + extra] for t in pts]})
    with open(path, "w") as f:
        json.dump({"series": series}, f)


def watched(PID, NAME, ts):
    """The working-set and memwatch_vm_* series of one watched process."""
    series = []
    for c in CATS:
        for s in SHARING:
            series.append({"name": "memwatch_workingset_bytes",
                           "labels": {"pid": PID, "process": NAME, "category": c, "sharing": s},
                           "points": [[t, ws_at(i)[c][s]] for i, t in enumerate(ts)]})
    vm = {("committed", "image"): 48 * MiB, ("committed", "mapped"): 30 * MiB,
          ("committed", "private"): None, ("reserved", "image"): 0,
          ("reserved", "mapped"): 96 * MiB, ("reserved", "private"): 2 * GiB}
    for (st, ty), v in vm.items():
        series.append({"name": "memwatch_vm_bytes", "labels": {"pid": PID, "process": NAME, "state": st, "type": ty},
                       "points": [[t, v if v is not None else 60 * MiB + i * 512 * 1024] for i, t in enumerate(ts)]})
    used = lambda i: sum(v if v is not None else 60 * MiB + i * 512 * 1024 for v in vm.values())
    free = lambda i: (1 << 47) - 65536 * 2 - used(i)
    series.append({"name": "memwatch_vm_bytes", "labels": {"pid": PID, "process": NAME, "state": "free", "type": "none"},
                   "points": [[t, free(i)] for i, t in enumerate(ts)]})
    for name, f in (("memwatch_vm_largest_free_bytes", lambda i: 120 * TiB + 5 * GiB),
                    ("memwatch_vm_free_blocks", lambda i: 87 + i // 20),
                    ("memwatch_vm_regions", lambda i: 612 + i // 10)):
        series.append({"name": name, "labels": {"pid": PID, "process": NAME},
                       "points": [[t, f(i)] for i, t in enumerate(ts)]})
    return series


# A Windows x64 layout: stacks and heaps low, mapped files, modules high.
def regions_at(grown):
    r = []
    add = lambda base, size, cat, owner, kind, oid, res: r.append(
        {"base": "0x%012x" % base, "size": size, "category": cat, "owner": owner, "owner_kind": kind,
         "owner_id": oid, "resident": res})
    priv = lambda n: {"private": n, "shareable": 0, "shared": 0}
    add(0x7ffe0000, 4096, "shareable", None, "unknown", 0, {"private": 0, "shareable": 0, "shared": 4096})
    for k in range(3):
        add(0xa1b2c00000 + k * 0x100000 + 0xf0000, 0x10000, "stack", None, "stack", 5100 + k,
            priv(0x4000 + k * 4096 - (0x2000 if grown and k == 0 else 0)))
    add(0x20e4a000000, 0x100000, "heap", None, "heap", 1, priv(0xc0000))
    add(0x20e4a100000, 0x10000, "mapped_file", "C:\\Windows\\System32\\C_1252.NLS", "file", 0,
        {"private": 0, "shareable": 0, "shared": 0x10000})
    add(0x20e4a200000, 0x1000000 + (grown * 0x800000), "heap", None, "heap", 2, priv(0x800000 + grown * 0x2800000))
    for k in range(24):
        add(0x20e4c000000 + k * 0x40000, 0x20000, "heap", None, "heap", 3, priv(0x8000 + k * 4096))
    if grown:
        add(0x20e50000000, 0x4000000, "heap", None, "heap", 3, priv(0x3c00000))
        add(0x20e60000000, 0x200000, "private_data", None, "unknown", 0, priv(0x180000))
    if not grown:
        add(0x20e6f000000, 0x40000, "mapped_file", "C:\\Users\\someone\\AppData\\Local\\Temp\\leaky-cache-0001.dat",
            "file", 0, {"private": 0, "shareable": 0x30000, "shared": 0})
    add(0x20e70000000, 0x300000, "mapped_file", "C:\\Windows\\Globalization\\Sorting\\SortDefault.nls", "file", 0,
        {"private": 0, "shareable": 0x100000, "shared": 0x80000})
    mods = [(0x7ff6a0000000, 0x80000, "C:\\Program Files\\Leaky Test Application With A Long Install Path\\bin\\x64\\leaky.exe"),
            (0x7ffb10000000, 0x120000, "C:\\Windows\\System32\\ucrtbase.dll"),
            (0x7ffb20000000, 0x3a0000, "C:\\Windows\\System32\\KERNELBASE.dll"),
            (0x7ffb30000000, 0xc0000, "C:\\Windows\\System32\\kernel32.dll"),
            (0x7ffb40000000, 0x1f8000, "C:\\Windows\\System32\\ntdll.dll")]
    for k, (base, size, path) in enumerate(mods):
        add(base, size, "image", path, "module", k + 1,
            {"private": 0x3000 + (0x5000 if grown and k == 0 else 0), "shareable": 0, "shared": size // 2})
    return r


def diff(q, pid=PID, name=NAME):
    fr, to = int(q.get("from", ["0"])[0]), int(q.get("to", ["0"])[0])
    snap = lambda t: t // STEP_MS * STEP_MS + 3000
    t1, t2 = snap(fr), snap(to)
    a, b = regions_at(0), regions_at(1)
    tot = lambda rs: {c: {s: sum(x["resident"][s] for x in rs if x["category"] == c) for s in SHARING} for c in CATS}
    T1, T2 = tot(a), tot(b)
    change = {c: {s: T2[c][s] - T1[c][s] for s in SHARING} for c in CATS}
    A = {x["base"]: x for x in a}
    B = {x["base"]: x for x in b}
    out = []
    for base in sorted(set(A) | set(B)):
        x, y = A.get(base), B.get(base)
        b1 = sum(x["resident"].values()) if x else 0
        b2 = sum(y["resident"].values()) if y else 0
        if b1 == b2:
            continue
        r = y or x
        out.append({"base": base, "size": r["size"], "category": r["category"], "owner": r["owner"],
                    "owner_kind": r["owner_kind"], "owner_id": r["owner_id"],
                    "change": "new" if not x else "gone" if not y else "grown" if b2 > b1 else "shrunk",
                    "bytes_t1": b1, "bytes_t2": b2, "delta_bytes": b2 - b1,
                    "delta": {s: (y["resident"][s] if y else 0) - (x["resident"][s] if x else 0) for s in SHARING}})
    out.sort(key=lambda r: -abs(r["delta_bytes"]))
    limit = int(q.get("limit", ["50"])[0])
    return {"pid": pid, "process": name, "from_ms": fr, "to_ms": to, "t1_ms": t1, "t2_ms": t2, "page_size": 4096,
            "categories": CATS, "sharing": SHARING, "totals": {"t1": T1, "t2": T2, "change": change},
            "regions_total": len(out), "regions": out[:limit]}


def proxy(port, upstream):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def reply(self, code, body, ctype="application/json"):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            q = urllib.parse.parse_qs(u.query)
            if u.path in ("/api/v1/diff", "/api/v1/regions"):
                if os.environ.get("PROXY_LOG"):
                    with open(os.environ["PROXY_LOG"], "a") as f:
                        f.write(self.path + "\n")
                pid = q.get("pid", [""])[0]
                if pid not in NAMES:
                    return self.reply(404, b'{"error":"no region snapshots of this pid"}')
                if u.path == "/api/v1/diff":
                    d = diff(q, pid, NAMES[pid])
                else:
                    at = int(q.get("at", ["0"])[0] or 0)
                    d = {"pid": pid, "process": NAMES[pid], "t_ms": at // STEP_MS * STEP_MS, "page_size": 4096,
                         "regions": regions_at(1)}
                return self.reply(200, json.dumps(d).encode())
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d%s" % (upstream, self.path), timeout=20) as r:
                    self.reply(r.status, r.read(), r.headers.get("Content-Type", "application/octet-stream"))
            except urllib.error.HTTPError as e:
                self.reply(e.code, e.read(), e.headers.get("Content-Type", "application/json"))

    ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(sys.argv[2], "--two" in sys.argv[3:])
    elif sys.argv[1] == "proxy":
        proxy(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(__doc__)
