# Feeds ok_redis or ok_memcached with SETs of keys that expire after 60 s,
# 200 a second, values of 200-1800 bytes, pipelined; the set of live keys
# (and so the server's memory) is steady once the first keys expire.
import socket, sys, time, random
kind, port = sys.argv[1], int(sys.argv[2])
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
rnd = random.Random(7)
i = 0
while True:
    t = time.monotonic()
    buf = []
    for _ in range(20):
        key = "k%09d" % i; i += 1
        val = b"v" * rnd.randint(200, 1800)
        if kind == "redis":
            buf.append(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$2\r\nEX\r\n$2\r\n60\r\n"
                       % (len(key), key.encode(), len(val), val))
        else:
            buf.append(b"set %s 0 60 %d noreply\r\n%s\r\n" % (key.encode(), len(val), val))
    s.sendall(b"".join(buf))
    if kind == "redis":  # drain the +OK replies
        got = 0
        while got < 20 * 5:
            got += len(s.recv(65536))
    time.sleep(max(0.0, 0.1 - (time.monotonic() - t)))
