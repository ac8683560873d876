# Feeds ok_redis / ok_memcached (and lk_redis / lk_memcached) with SETs of
# keys that expire after 60 s, 200 a second, values of 200-1800 bytes,
# pipelined; the set of live keys (and so the server's memory) is steady
# once the first keys expire.  With GROW (bytes/h) and NAME it also stores
# keys that never expire, GROW bytes of values an hour (a session store
# nobody cleans: the server's leak), and logs "elapsed_ms leaked_bytes"
# (the values' bytes) once a minute to $CORPUS_LOG/NAME.log.
# Usage: feed.py redis|memcached PORT [GROW NAME]
import os, socket, sys, time, random
kind, port = sys.argv[1], int(sys.argv[2])
grow = float(sys.argv[3]) if len(sys.argv) > 4 else 0.0
log = None
if grow and os.environ.get("CORPUS_LOG"):
    log = open(os.path.join(os.environ["CORPUS_LOG"], sys.argv[4] + ".log"), "w", buffering=1)
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
rnd = random.Random(7)


def cmd(key, val, ttl):
    if kind == "redis":
        if ttl:
            return (b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$2\r\nEX\r\n$%d\r\n%d\r\n"
                    % (len(key), key.encode(), len(val), val, len(str(ttl)), ttl))
        return b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key.encode(), len(val), val)
    return b"set %s 0 %d %d noreply\r\n%s\r\n" % (key.encode(), ttl, len(val), val)


i = 0
t0 = time.monotonic(); owed = 0.0; kept = 0; next_log = 0.0; last = t0
while True:
    t = time.monotonic()
    buf = []
    for _ in range(20):
        key = "k%09d" % i; i += 1
        buf.append(cmd(key, b"v" * rnd.randint(200, 1800), 60))
    owed += grow * (t - last) / 3600.0
    last = t
    while owed >= 1000:
        key = "s%09d" % i; i += 1
        buf.append(cmd(key, b"s" * 1000, 0))
        owed -= 1000; kept += 1000
    s.sendall(b"".join(buf))
    if kind == "redis":  # drain the +OK replies
        got = 0
        while got < len(buf) * 5:
            got += len(s.recv(65536))
    if log and t - t0 >= next_log:
        log.write("%d %d\n" % ((t - t0) * 1000, kept))
        next_log += 60
    time.sleep(max(0.0, 0.1 - (time.monotonic() - t)))
