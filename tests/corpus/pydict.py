# pydict.py - the validation set's Python workloads (CORPUS_SET=validation,
# session 12): vo_pydict / vk_pydict (sys.argv[1] == "leak": session dicts
# kept forever, counted as 400 bytes each, 3 MiB/h by that count; CPython
# spends more on each).  A cache of 20,000 str values of 200-800 bytes, 50
# replaced at random every 0.1 s, 200 short-lived request dicts each time.
import random, sys, time
leak = len(sys.argv) > 1 and sys.argv[1] == "leak"
cache = ['v' * (200 + i % 600) for i in range(20000)]
sessions = []
rate = 3 * 1048576 / 3600
owed = 0.0
last = time.monotonic()
while True:
    time.sleep(0.1)
    for k in range(200):
        req = {'path': '/item/%d' % k, 'hdr': ['a', 'b', last]}
    for _ in range(50):
        cache[random.randrange(20000)] = 'v' * random.randrange(200, 800)
    now = time.monotonic()
    if leak:
        owed += rate * (now - last)
        while owed >= 400:
            sessions.append({'id': len(sessions), 'user': 'user-%08d' % len(sessions), 'data': 'x' * 200})
            owed -= 400
    last = now
