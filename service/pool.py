"""The app processes: Flask, one request at a time each, fed first come first served by the front.

The front (service/front.py) holds the connections and parses the requests; every request that Flask must
answer waits in the front's one queue and goes, in arrival order, to the first app process that is free.
An app process is a plain loop: read a request frame from the front's Unix socket, call the Flask app
(service.app:create_app, hot lanes included) as any WSGI server would, write the answer frame back.

Why one queue: when each process queues its own connections' requests (granian, gunicorn and uvicorn
workers all do: a keep-alive connection stays with the process that accepted it), a request waits behind
its own process's queue while another process may be idle, and the latency of a loaded server spreads
by several times its median (docs/benchmarks.md#against-boardgameio: the tail at 64 matches).  One
queue serves the oldest request first, whichever process frees up.

Frames, both ways: two big-endian u32 (head length, body length), the head as JSON, the body's bytes.
A request's head: [method, path, query, HTTP version, client, server, headers, cut].  An answer's head:
[status, headers, hold, route, match]: ``hold`` is the route's ``Referee-Hold`` header, parsed (what the front
needs to hold a long-poll or an event stream: service/api/__init__.py ``HOLD``), else None; ``route`` the
template of the route that answered and ``match`` the match id of the path (for the front's log line and
metrics), or None.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import io
import logging
import os
import signal
import socket
import struct
import sys
import time
from collections.abc import Callable

import orjson

from service.api import HOLD as HOLD_HEADER
from service.api import MATCH as MATCH_KEY
from service.api import ROUTE as ROUTE_KEY

log = logging.getLogger("referee.pool")

FRAME = struct.Struct("!II")
PEER = struct.Struct("3i")  # SO_PEERCRED: pid, uid, gid
#: app processes run a step below the front (and an embedded Redis): the front's dispatch, a Redis answer and
#: a heartbeat are short and unblock the app processes' work, so they should never wait behind it.  Measured
#: with `referee serve` at 8 and 64 matches: 3-7 % more moves/s and a tighter p99 (see
#: docs/benchmarks.md#one-queue-the-front-and-its-app-processes-2026-11-27).
NICE = 2
Answer = tuple[int, list, bytes, dict | None, str | None, str | None]  # status, headers, body, hold, route, match
#: what the front is handed back: the answer; None when the app process died with the request; ``TIMED_OUT`` when
#: it held the request past ``REFEREE_APP_TIMEOUT`` (the process is then killed, and its supervisor starts another)
TIMED_OUT = "timed out"
Done = Callable[["Answer | None | str"], None]


class Request:
    """One request as the front read it: the method, the percent-decoded path (latin-1, as WSGI has it), the raw
    query string, ``headers`` with lower-case names in their order, and the whole body (``cut`` when it went past
    the limit: then only its start, or nothing when its declared length was too long)."""

    __slots__ = ("method", "path", "query", "version", "headers", "body", "client", "server", "cut")

    def __init__(self, method: str, path: str, query: str, version: str, headers: list[tuple[str, str]],
                 body: bytes, client: str, server: str, cut: bool = False) -> None:
        self.method, self.path, self.query, self.version = method, path, query, version
        self.headers, self.body, self.client, self.server, self.cut = headers, body, client, server, cut

    def header(self, name: str) -> str | None:
        """A header's value (lower-case name); a repeated one joined with commas."""
        found = [v for k, v in self.headers if k == name]
        return ",".join(found) if found else None


def request_frame(request: Request) -> bytes:
    head = orjson.dumps([request.method, request.path, request.query, request.version, request.client,
                         request.server, request.headers, request.cut])
    return FRAME.pack(len(head), len(request.body)) + head + request.body


def answer_frame(status: int, headers: list, body: bytes, hold: dict | None = None, route: str | None = None,
                 match_id: str | None = None) -> bytes:
    head = orjson.dumps([status, headers, hold, route, match_id])
    return FRAME.pack(len(head), len(body)) + head + body


# -- the front's side --------------------------------------------------------------------------------
class Link(asyncio.Protocol):
    """One app process, as the front sees it: at most one request under way."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.transport: asyncio.Transport | None = None
        self.chunks: list[bytes] = []  # the answer read so far
        self.size = 0
        self.need = 0  # the answer frame's whole length, once its first 8 bytes came
        self.done: Done | None = None
        self.since = 0.0  # when the request under way was handed over
        self.pid: int | None = None

    def connection_made(self, transport) -> None:
        self.transport = transport
        with contextlib.suppress(OSError, TypeError, AttributeError):  # the process on the other end
            creds = transport.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, PEER.size)
            self.pid = PEER.unpack(creds)[0]
        self.pool.joined(self)

    def send(self, frame: bytes, done: Done) -> None:
        self.done = done
        self.since = time.monotonic()
        self.transport.write(frame)

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        if not self.need and self.size >= 8:
            head = data if len(self.chunks) == 1 else b"".join(self.chunks)
            self.need = 8 + sum(FRAME.unpack_from(head))
        if not self.need or self.size < self.need:
            return
        frame = data if len(self.chunks) == 1 else b"".join(self.chunks)
        self.chunks, self.size, self.need = [], 0, 0  # an app process answers one request at a time
        head_len = FRAME.unpack_from(frame)[0]
        status, headers, hold, route, match_id = orjson.loads(frame[8:8 + head_len])
        done, self.done = self.done, None
        self.pool.free(self)  # the next request first, so that the process is busy again at once
        if done is not None:
            done((status, headers, frame[8 + head_len:], hold, route, match_id))

    def connection_lost(self, exc) -> None:
        done, self.done = self.done, None
        self.pool.left(self)
        if done is not None:
            log.error("an app process died while it answered a request")
            done(None)


class Pool:
    """The front's side: app processes connect to its Unix socket; requests wait in one queue, first come
    first served, and each goes to the first process that is free.  With no app process connected for
    ``patience`` seconds (at start, or all of them restarting) a waiting request is given up (``None``).

    A process that holds one request longer than ``deadline`` seconds is stuck (a loop that never ends, a
    call that never returns): its request is answered ``TIMED_OUT`` and the process is killed; its supervisor
    (``ApiProcesses.replace_dead``) starts another, which connects here like the first."""

    def __init__(self, path: str, patience: float = 10.0, deadline: float = 30.0) -> None:
        self.path, self.patience, self.deadline = path, patience, deadline
        self.links: list[Link] = []
        self.idle: list[Link] = []  # a stack: the process that freed up last is the warmest
        self.queue: collections.deque[tuple[bytes, Done, float]] = collections.deque()
        self.server: asyncio.AbstractServer | None = None
        self.watch: asyncio.Task | None = None

    async def start(self) -> None:
        with _umask(0o077):  # only this user's processes may connect (they are handed the seats' tokens)
            self.server = await asyncio.get_running_loop().create_unix_server(lambda: Link(self), self.path)
        self.watch = asyncio.ensure_future(self._give_up())

    def submit(self, frame: bytes, done: Done) -> None:
        if self.idle:
            self.idle.pop().send(frame, done)
        else:
            self.queue.append((frame, done, time.monotonic()))

    def call(self, frame: bytes) -> asyncio.Future:
        """``submit``, awaitable: the answer, or None."""
        future = asyncio.get_running_loop().create_future()
        self.submit(frame, lambda answer: future.done() or future.set_result(answer))
        return future

    def joined(self, link: Link) -> None:
        self.links.append(link)
        self.free(link)

    def free(self, link: Link) -> None:
        if self.queue:
            frame, done, _ = self.queue.popleft()
            link.send(frame, done)
        else:
            self.idle.append(link)

    def left(self, link: Link) -> None:
        for group in (self.links, self.idle):
            if link in group:
                group.remove(link)

    async def drained(self, timeout: float) -> None:
        """Wait (at most ``timeout`` seconds) until every request queued or handed to an app process has its answer."""
        deadline = time.monotonic() + timeout
        while (self.queue or len(self.idle) < len(self.links)) and time.monotonic() < deadline:
            await asyncio.sleep(0.02)

    async def _give_up(self) -> None:
        while True:
            await asyncio.sleep(min(0.5, self.deadline / 4))
            now = time.monotonic()
            for link in [link for link in self.links if link.done is not None and now - link.since > self.deadline]:
                self._stuck(link, now - link.since)
            if self.links:
                continue
            old = time.monotonic() - self.patience
            while self.queue and self.queue[0][2] < old:
                self.queue.popleft()[1](None)


    def _stuck(self, link: Link, held: float) -> None:
        done, link.done = link.done, None
        log.error("app process %s held a request %.1f s (REFEREE_APP_TIMEOUT %.0f s): answered 504, replacing it",
                  link.pid, held, self.deadline)
        self.left(link)
        link.transport.abort()
        if link.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(link.pid, signal.SIGKILL)
        done(TIMED_OUT)


class _umask:
    def __init__(self, mask: int) -> None:
        self.mask = mask

    def __enter__(self) -> None:
        self.old = os.umask(self.mask)

    def __exit__(self, *exc) -> None:
        os.umask(self.old)


# -- an app process ------------------------------------------------------------------------------------
def environ(head: list, body: bytes) -> dict:
    """The WSGI environ of a request frame (the path is already percent-decoded, as WSGI has it)."""
    method, path, query, version, client, server, headers, cut = head
    host, _, port = server.rpartition(":")
    remote, _, remote_port = client.rpartition(":")
    env = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": host or "localhost",
        "SERVER_PORT": port or "80",
        "SERVER_PROTOCOL": f"HTTP/{version}",
        "REMOTE_ADDR": remote,
        "REMOTE_PORT": remote_port,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.input_terminated": True,  # the body is whole (werkzeug reads a chunked one only then)
    }
    for name, value in headers:
        key = name.upper().replace("-", "_")
        if key not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            key = "HTTP_" + key
        env[key] = f"{env[key]},{value}" if key in env else value
    if cut and "CONTENT_LENGTH" not in env:  # a chunked body past the limit: Flask refuses it by its length
        env.pop("HTTP_TRANSFER_ENCODING", None)
        env["CONTENT_LENGTH"] = str(len(body))
    return env


def call_wsgi(app, env: dict) -> tuple[int, list, bytes]:
    started: list = []
    result = app(env, lambda status, headers, exc_info=None: started.extend((status, headers)))
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    status, headers = started[-2:]
    return int(status[:3]), headers, body


def take_hold(headers: list) -> dict | None:
    """The route's ``Referee-Hold`` header, taken out of the answer's headers (it is for the front alone)."""
    for i, (name, value) in enumerate(headers):
        if name == HOLD_HEADER:
            del headers[i]
            return orjson.loads(value)
    return None


def answer(app, head: list, body: bytes) -> bytes:
    env = environ(head, body)
    try:
        status, headers, out = call_wsgi(app, env)
    except Exception:  # Flask answers its own errors; this is a defect outside it: logged, answered 500
        log.exception("%s %s failed", head[0], head[1])
        from service.api import INTERNAL
        from service.problems import Problem

        problem = Problem("internal", INTERNAL)
        return answer_frame(500, [["Content-Type", "application/problem+json"]], orjson.dumps(problem.as_dict()))
    return answer_frame(status, headers, out, take_hold(headers), env.get(ROUTE_KEY), env.get(MATCH_KEY))


def connect_to_front(path: str, timeout: float = 30.0) -> socket.socket:
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def serve(app, path: str, again: bool = True) -> None:
    """Answer the front's requests, one at a time, until the front goes; then connect ``again`` (a front that
    was restarted comes back on the same path)."""
    while True:
        sock = connect_to_front(path)
        buf = b""
        try:
            while True:
                while len(buf) < 8 or len(buf) < 8 + sum(FRAME.unpack_from(buf)):
                    chunk = sock.recv(1 << 16)
                    if not chunk:  # the front stopped (or died: its supervisor says so)
                        raise EOFError
                    buf += chunk
                head_len, body_len = FRAME.unpack_from(buf)
                end = 8 + head_len + body_len
                head, body, buf = orjson.loads(buf[8:8 + head_len]), buf[8 + head_len:end], buf[end:]
                sock.sendall(answer(app, head, body))
        except (OSError, EOFError) as exc:
            sock.close()
            if not again:
                return
            if isinstance(exc, OSError):
                log.warning("link to the front lost (%s); connecting again", exc)


def main(path: str, parent: int, name: str = "referee-app") -> None:
    """An app process, as ``referee serve`` and ``referee api`` fork it."""
    from service.app import create_app
    from service.config import Settings
    from service.processes import die_with_parent, name_process

    die_with_parent(parent)
    name_process(name)
    os.nice(NICE)
    from service import logs

    logs.setup()
    app = create_app(Settings.from_env())
    # what is made at start (Flask, the schemas, the games: ~95,000 objects) lives as long as the process: out of
    # the collector's reach, a full collection no longer walks it while a request waits
    gc.collect()
    gc.freeze()
    serve(app, path)
