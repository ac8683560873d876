# lk_python (argv[1] == "leak") / ok_python_gc: CPython objects under GC
# churn.  Every 0.1 s a few thousand short-lived objects, some of them in
# reference cycles (collected by the cyclic GC, not by refcounting), and
# for the leak a few records kept in a module-level list forever.  The kept
# bytes are measured once with tracemalloc and logged once a minute to
# $CORPUS_LOG/<name>.log as "elapsed_ms leaked_bytes".
import os, sys, time, tracemalloc, random

leak = len(sys.argv) > 1 and sys.argv[1] == "leak"
name = os.path.basename(sys.executable) if sys.executable else "python"
logdir = os.environ.get("CORPUS_LOG")
log = open(os.path.join(logdir, name + ".log"), "w") if logdir else None

def record(i):
    return {"id": i, "name": "user-%08d" % i, "tags": ["a%d" % (i % 97), "b%d" % (i % 89)],
            "payload": bytes(64)}

# bytes per kept record, measured once
tracemalloc.start()
s0 = tracemalloc.get_traced_memory()[0]
probe = [record(i) for i in range(5000)]
per = (tracemalloc.get_traced_memory()[0] - s0) / 5000.0
tracemalloc.stop()
del probe

RATE = 15 * 1024 * 1024 / 3600.0  # bytes/h design rate of the leak
kept = []
t0 = time.monotonic()
next_log = 0.0
owed = 0.0
last = t0
i = 0
while True:
    time.sleep(0.1)
    now = time.monotonic()
    # churn: garbage, a third of it cyclic
    junk = []
    for k in range(3000):
        d = {"k": k, "v": [k, str(k)]}
        if k % 3 == 0:
            d["self"] = d
        junk.append(d)
    del junk
    if leak:
        owed += RATE * (now - last)
        while owed >= per:
            kept.append(record(i)); i += 1; owed -= per
    last = now
    e = now - t0
    if log and e >= next_log:
        log.write("%.0f %.0f\n" % (e * 1000, len(kept) * per)); log.flush()
        next_log += 60
