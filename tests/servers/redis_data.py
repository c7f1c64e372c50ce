#!/usr/bin/env python3
"""Someone else's data on a Redis, for test_redis.sh (issue 24).

    redis_data.py fill SOCKET N SIZE    N keys user:0.. of SIZE bytes, plus
                                        benchcore:user-owned-config (a user's
                                        key that merely looks like ours)
    redis_data.py digest SOCKET         "COUNT SHA256" of every key's name and
                                        DUMP, sorted, except keys of a run
                                        (benchcore:<16 hex>:...)
    redis_data.py runkeys SOCKET        how many keys of runs there are
    redis_data.py delrun SOCKET         deletes every key of a run (what another
                                        run's cleanup used to do mid-window)
    redis_data.py peakrss CMD...        runs CMD, prints its exit code and the
                                        largest RSS of it and its descendants (KiB)
"""
import hashlib
import re
import resource
import socket
import subprocess
import sys

RUN_KEY = re.compile(rb"^benchcore:[0-9a-f]{16}:")


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""

    def send(self, *argv):
        out = b"*%d\r\n" % len(argv)
        for a in argv:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)

    def _line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.s.recv(1 << 20)
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def reply(self):
        ln = self._line()
        t, rest = ln[:1], ln[1:]
        if t in (b"+", b"-", b":"):
            return rest
        if t == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 20)
            b, self.buf = self.buf[:n], self.buf[n + 2:]
            return b
        if t == b"*":
            return [self.reply() for _ in range(int(rest))]
        raise ValueError(ln)

    def call(self, *argv):
        self.send(*argv)
        return self.reply()


def keys(c):
    cur, out = b"0", []
    while True:
        cur, batch = c.call("SCAN", cur, "COUNT", 1000)
        out += batch
        if cur == b"0":
            return out


def main():
    cmd = sys.argv[1]
    if cmd == "peakrss":
        rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
        return
    c = Client(sys.argv[2])
    if cmd == "fill":
        n, size = int(sys.argv[3]), int(sys.argv[4])
        for i in range(n):
            c.send("SET", "user:%d" % i, (b"%d:" % i).ljust(size, b"v"))
        c.send("SET", "benchcore:user-owned-config", "do not delete")
        for _ in range(n + 1):
            assert c.reply() == b"OK"
    elif cmd == "digest":
        ks = sorted(k for k in keys(c) if not RUN_KEY.match(k))
        for k in ks:
            c.send("DUMP", k)
        h = hashlib.sha256()
        for k in ks:
            h.update(k + b"\0" + (c.reply() or b"<gone>") + b"\0")
        print(len(ks), h.hexdigest())
    elif cmd == "runkeys":
        print(sum(1 for k in keys(c) if RUN_KEY.match(k)))
    elif cmd == "delrun":
        ks = [k for k in keys(c) if RUN_KEY.match(k)]
        for k in ks:
            c.send("UNLINK", k)
        for _ in ks:
            c.reply()
        print(len(ks))


main()
