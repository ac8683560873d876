# lk_sqlite (argv "leak") / ok_sqlite: an in-memory SQLite database (the
# real library's page cache and allocator) written 10 times a second.  The
# not-leak keeps a rolling 5-minute window (old rows deleted, pages reused);
# the leak also keeps an audit row per write forever, about 8 MiB/h of
# page growth.  The leak logs "elapsed_ms leaked_bytes" once a minute to
# $CORPUS_LOG/<name>.log, the bytes being its audit table's pages
# (dbstat is not in every build: page_count growth since the start).
import os, random, sqlite3, sys, time
leak = len(sys.argv) > 1 and sys.argv[1] == "leak"
name = os.path.basename(sys.executable)
logdir = os.environ.get("CORPUS_LOG")
log = open(os.path.join(logdir, name + ".log"), "w", buffering=1) if logdir else None
db = sqlite3.connect(":memory:")
db.execute("PRAGMA cache_size = -65536")
db.execute("CREATE TABLE req (t REAL, body TEXT)")
db.execute("CREATE INDEX req_t ON req(t)")
db.execute("CREATE TABLE audit (t REAL, who TEXT, what TEXT)")
page = db.execute("PRAGMA page_size").fetchone()[0]
rnd = random.Random(11)
t0 = time.monotonic(); next_log = 0.0
pages0 = None
per_write = 8 * 1024 * 1024 / 3600 / 10 / 1.6  # row bytes; pages cost ~1.6x
while True:
    t = time.monotonic()
    with db:
        db.executemany("INSERT INTO req VALUES (?, ?)",
                       [(t, "x" * rnd.randint(100, 900)) for _ in range(20)])
        db.execute("DELETE FROM req WHERE t < ?", (t - 300,))
        if leak:
            db.execute("INSERT INTO audit VALUES (?, ?, ?)", (t, "user%06d" % rnd.randint(0, 999999), "y" * int(per_write)))
    e = t - t0
    if log and e >= next_log:
        pc = db.execute("SELECT count(*) FROM audit").fetchone()[0] if leak else 0
        log.write("%d %d\n" % (e * 1000, pc * (per_write + 40)))
        next_log += 60
    time.sleep(max(0.0, 0.1 - (time.monotonic() - t)))
