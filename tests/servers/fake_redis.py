#!/usr/bin/env python3
"""A misbehaving Redis for test_redis.sh (issue 24), on a unix socket.

    fake_redis.py MODE SOCKET [LOG]

It answers the set-up a client does (PING, AUTH, SELECT, INFO, CONFIG GET,
UNLINK, SCAN) as Redis would, and every other command as MODE says:
  err       -ERR with terminal escapes (ESC [31m ... BEL) in the text
  huge      $9999999999 and then 600 MB of 'x' (a reply that never ends)
  bigarray  *999999999 and then integers for ever
  silent    no reply at all (a server that stopped answering)
  infohuge  INFO itself is $9999999999 and 600 MB
  scanall   like Redis for data commands (+OK / $3 abc), but SCAN ignores
            MATCH and returns keys of others; every UNLINK is logged to LOG
"""
import os
import socket
import sys
import threading

MODE, PATH = sys.argv[1], sys.argv[2]
LOG = sys.argv[3] if len(sys.argv) > 3 else None
INFO = ("# Server\r\nredis_version:7.0.99\r\nredis_mode:standalone\r\nprocess_id:%d\r\n"
        "# Memory\r\nused_memory:1000000\r\nmaxmemory:0\r\nmaxmemory_policy:noeviction\r\n"
        "# Persistence\r\naof_enabled:0\r\n# Stats\r\nevicted_keys:0\r\n"
        "# Replication\r\nrole:master\r\n" % os.getpid()).encode()
HUGE = 600 << 20
log_lock = threading.Lock()


def bulk(b):
    return b"$%d\r\n%s\r\n" % (len(b), b)


class Conn:
    def __init__(self, sock):
        self.s = sock
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            got = self.s.recv(65536)
            if not got:
                raise EOFError
            self.buf += got
        ln, self.buf = self.buf.split(b"\r\n", 1)
        return ln

    def exact(self, n):
        while len(self.buf) < n + 2:
            got = self.s.recv(65536)
            if not got:
                raise EOFError
            self.buf += got
        b, self.buf = self.buf[:n], self.buf[n + 2:]
        return b

    def command(self):
        ln = self.line()
        if not ln.startswith(b"*"):
            return ln.split()	# inline (PING_INLINE)
        return [self.exact(int(self.line()[1:])) for _ in range(int(ln[1:]))]


def stream(sock, head, item, total):
    sock.sendall(head)
    chunk = item * (65536 // len(item))
    sent = 0
    while sent < total:
        sock.sendall(chunk)
        sent += len(chunk)


def setup_reply(c, argv):
    name = argv[0].upper()
    if name == b"PING":
        return b"+PONG\r\n"
    if name in (b"AUTH", b"SELECT"):
        return b"+OK\r\n"
    if name == b"INFO":
        if MODE == "infohuge":
            stream(c.s, b"$9999999999\r\n", b"x", HUGE)
            return b""
        return bulk(INFO)
    if name == b"CONFIG":
        return b"*0\r\n"
    if name == b"UNLINK":
        if LOG:
            with log_lock, open(LOG, "ab") as f:
                f.write(b" ".join(argv[1:]) + b"\n")
        return b":1\r\n"
    if name == b"SCAN":
        keys = [b"user:1", b"benchcore:user-owned-config"] if MODE == "scanall" else []
        return b"*2\r\n$1\r\n0\r\n*%d\r\n" % len(keys) + b"".join(bulk(k) for k in keys)
    return None


def data_reply(c, argv):
    if MODE == "err":
        return b"-ERR \x1b[31mred alert\x07 \x1b[2J\r\n"
    if MODE == "huge":
        stream(c.s, b"$9999999999\r\n", b"x", HUGE)
        return b""
    if MODE == "bigarray":
        stream(c.s, b"*999999999\r\n", b":1\r\n", HUGE)
        return b""
    if MODE == "silent":
        return b""
    return b"$3\r\nabc\r\n" if argv[0].upper() == b"GET" else b"+OK\r\n"


def serve(sock):
    c = Conn(sock)
    try:
        while True:
            argv = c.command()
            if not argv:
                continue
            r = setup_reply(c, argv)
            if r is None:
                r = data_reply(c, argv)
            if r:
                sock.sendall(r)
    except (EOFError, OSError):
        pass
    finally:
        sock.close()


def main():
    try:
        os.unlink(PATH)
    except FileNotFoundError:
        pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(PATH)
    srv.listen(128)
    while True:
        s, _ = srv.accept()
        threading.Thread(target=serve, args=(s,), daemon=True).start()


main()
