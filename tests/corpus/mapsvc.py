# mapsvc.py MODE DIR - the mapped-files set (session 19): processes whose
# file-backed resident memory (Linux RssFile) grows, healthy or not.
#   scan    ok_mapscan: an indexer reading a 1 GiB file it mapped once,
#           front to back at ~800 MB/h (one byte a page): its mapped pages
#           resident rise steadily for 75 minutes, page cache it can lose.
#   sqlite  ok_sqlmmap: SQLite with mmap_size over a ~456 MB database,
#           random point lookups at a steady rate: the pages it has
#           touched rise ever slower toward the file.
#   leak    lk_mapfiles: maps a new 1 MiB file every 30 s, reads it and
#           keeps the mapping forever (120 MiB/h of mappings and their
#           pages).
# Each logs "elapsed_ms bytes" once a minute to $CORPUS_LOG/<name>.log
# (scan: bytes read, sqlite: lookups, leak: bytes kept mapped).
import mmap
import os
import random
import sqlite3
import sys
import time

mode, work = sys.argv[1], sys.argv[2]
name = os.path.basename(os.path.realpath('/proc/self/exe'))
logdir = os.environ.get('CORPUS_LOG')
log = open(os.path.join(logdir, name + '.log'), 'w') if logdir else None
os.makedirs(work, exist_ok=True)
PAGE = 4096
t0 = time.monotonic()
next_log = 0.0


def note(value):
    global next_log
    e = time.monotonic() - t0
    if log is not None and e >= next_log:
        log.write('%d %d\n' % (round(e * 1000), value))
        log.flush()
        next_log += 60


if mode == 'scan':
    path = os.path.join(work, 'scan.dat')
    size = 1 << 30
    with open(path, 'wb') as f:
        block = os.urandom(1 << 20)
        for _ in range(size >> 20):
            f.write(block)
    fd = os.open(path, os.O_RDONLY)
    m = mmap.mmap(fd, size, prot=mmap.PROT_READ)
    rate = 800e6 / 3600  # bytes an hour, read front to back
    off = 0
    total = 0
    while True:
        due = min(size, int((time.monotonic() - t0) * rate))
        while off < due:
            total += m[off]
            off += PAGE
        note(off)
        time.sleep(0.2)
elif mode == 'sqlite':
    path = os.path.join(work, 'lookup.db')
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.execute('PRAGMA page_size=4096')
    db.execute('CREATE TABLE kv(id INTEGER PRIMARY KEY, v BLOB)')
    rows = 1_000_000
    with db:
        db.executemany('INSERT INTO kv VALUES(?, randomblob(400))', ((i,) for i in range(rows)))
    db.close()
    db = sqlite3.connect(path)
    db.execute('PRAGMA mmap_size=2147483648')
    db.execute('PRAGMA cache_size=-2000')
    lookups = 0
    rnd = random.Random(7)
    while True:
        for _ in range(8):
            db.execute('SELECT length(v) FROM kv WHERE id=?', (rnd.randrange(rows),)).fetchone()
            lookups += 1
        note(lookups)
        time.sleep(0.2)
else:
    kept = []
    i = 0
    while True:
        path = os.path.join(work, 'seg%05d.dat' % i)
        with open(path, 'wb') as f:
            f.write(os.urandom(1 << 20))
        fd = os.open(path, os.O_RDONLY)
        m = mmap.mmap(fd, 1 << 20, prot=mmap.PROT_READ)
        os.close(fd)
        s = 0
        for off in range(0, 1 << 20, PAGE):
            s += m[off]
        kept.append(m)
        i += 1
        end = t0 + 30 * i
        while time.monotonic() < end:
            note(len(kept) << 20)
            time.sleep(1)
