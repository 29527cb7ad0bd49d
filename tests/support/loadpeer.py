#!/usr/bin/env python3
"""loadpeer.py - a small TCP server for `latlab load`'s tests, on 127.0.0.1.

Modes: http (a fixed "ok" reply per request, Content-Length or chunked) and
echo (bytes back as they come).  Faults on request: a stall of --stall
seconds every --every seconds (nothing is read or answered meanwhile: the
coordinated-omission case), a reset (RST) of the connection at the Nth
request, a malformed or an oversized reply at the Nth request, or closing
keep-alive connections after N replies each, a status of its own for a path (--status
/missing=404, repeatable), closing a connection instead of
answering the Nth request, or never answering it.  Prints "listening PORT" once
bound (port 0 picks one) and, on SIGTERM, "requests N" (requests answered)
to --count-file."""
import argparse, selectors, signal, socket, struct, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--mode", choices=["http", "echo"], default="http")
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--chunked", action="store_true")
ap.add_argument("--stall", type=float, default=0.0)
ap.add_argument("--every", type=float, default=1.0)
ap.add_argument("--reset-at", type=int, default=0)
ap.add_argument("--malformed-at", type=int, default=0)
ap.add_argument("--oversized-at", type=int, default=0)
ap.add_argument("--close-after", type=int, default=0)
ap.add_argument("--drop-at", type=int, default=0)  # close (FIN) instead of answering
ap.add_argument("--hang-at", type=int, default=0)  # never answer; the connection stays open
ap.add_argument("--count-file", default="")
ap.add_argument("--status", action="append", default=[])  # PATH=CODE: that path's replies say CODE
a = ap.parse_args()

sel = selectors.DefaultSelector()
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", a.port))
ls.listen(512)
ls.setblocking(False)
sel.register(ls, selectors.EVENT_READ)
print("listening", ls.getsockname()[1], flush=True)

answered = 0
seen = 0  # requests read (the Nth of the fault options counts these)
hung = []
bufs = {}
perconn = {}


def finish(*_):
    if a.count_file:
        with open(a.count_file, "w") as f:
            f.write("requests %d\n" % answered)
    sys.exit(0)


signal.signal(signal.SIGTERM, finish)
OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\no\r\n1\r\nk\r\n0\r\n\r\n"


def drop(c, rst=False):
    if rst:
        c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sel.unregister(c)
    bufs.pop(c, None)
    perconn.pop(c, None)
    c.close()


def send(c, out):
    """All of out to c; False (c dropped) when the client went away."""
    try:
        n = c.send(out)  # nonblocking: one syscall when it all fits (the usual case)
        if n < len(out):
            c.setblocking(True)
            c.sendall(out[n:])
            c.setblocking(False)
        return True
    except OSError:
        drop(c)
        return False


STATUS = {p.encode(): int(code) for p, code in (x.split("=") for x in a.status)}


def reply(c, n, path=b""):
    """Answer the nth request (1-based) on c; False when c was dropped."""
    global answered
    if n == a.reset_at:
        drop(c, rst=True)
        return False
    if n == a.drop_at:
        drop(c)
        return False
    if n == a.hang_at:
        sel.unregister(c)  # kept open, never read again
        hung.append(c)
        return False
    if n == a.malformed_at:
        out = b"HTTP/1.1 2x0 nonsense\r\n\r\n"
    elif n == a.oversized_at:
        out = b"HTTP/1.1 200 OK\r\nContent-Length: 4000000\r\n\r\n" + b"x" * 4000000
    elif path in STATUS:
        out = b"HTTP/1.1 %d Status\r\nContent-Length: 2\r\n\r\nno" % STATUS[path]
    else:
        out = CHUNKED if a.chunked else OK
    perconn[c] = perconn.get(c, 0) + 1
    last = a.close_after and perconn[c] >= a.close_after
    if last:
        out = out.replace(b"HTTP/1.1 200 OK\r\n", b"HTTP/1.1 200 OK\r\nConnection: close\r\n")
    if not send(c, out):
        return False
    answered += 1
    if last:
        drop(c)
        return False
    return True


def serve(c):
    global answered, seen
    try:
        d = c.recv(65536)
    except ConnectionError:
        d = b""
    if not d:
        drop(c)
        return
    if a.mode == "echo":
        if send(c, d):
            answered += len(d)
        return
    b = bufs.get(c, b"") + d
    while b"\r\n\r\n" in b:
        head, b = b.split(b"\r\n\r\n", 1)
        words = head.split(b" ", 2)
        seen += 1
        if not reply(c, seen, words[1] if len(words) > 2 else b""):
            return
    bufs[c] = b


next_stall = time.monotonic() + a.every
while True:
    now = time.monotonic()
    if a.stall and now >= next_stall:
        # Frozen until an absolute end, so a stall that starts late ends on time.
        end = next_stall + a.stall
        while time.monotonic() < end:
            time.sleep(max(0.0, end - time.monotonic()))
        next_stall += a.every
        continue
    timeout = max(0.0, next_stall - now) if a.stall else 1.0
    for key, _ in sel.select(timeout):
        if key.fileobj is ls:
            try:
                c, _ = ls.accept()
            except BlockingIOError:
                continue
            c.setblocking(False)
            c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sel.register(c, selectors.EVENT_READ)
        else:
            serve(key.fileobj)
