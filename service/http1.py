"""HTTP/1.1 for the front: a small server on httptools (llhttp, the parser of Node.js) and asyncio.

The front (service/front.py) holds every connection of a host in one process and hands each request,
in the order requests arrive, to the first idle app process; this module is the protocol part of that.
Why a server of our own rather than granian or uvicorn: the front's own work per request is a parse, one
write to an app process and one write back, and either server costs several times that (granian crosses
from its Rust threads to the event loop's thread and back on every request; uvicorn's ASGI cycle makes a
task and several calls per request).  Figures in
docs/benchmarks.md#one-queue-the-front-and-its-app-processes-2026-11-27.

What it does, and nothing more:

- keep-alive and pipelining: answers go out in the order of the requests; with ``PIPELINE`` requests
  waiting, or the client not reading its answers, the connection is not read until that eases;
- bodies by ``Content-Length`` or chunked, read whole up to a limit; past it the request goes on at once,
  cut (``Request.cut``: the application answers 413 from its length), and the connection closes after
  the answer, since the rest of the body is never read;
- ``Expect: 100-continue``, HTTP/1.0 (keep-alive only when asked for), ``HEAD`` (no body is sent);
- answers whole (``Content-Length``) or streamed (chunked); a stream waits while its client does not read
  (flow control), so a slow reader holds up only its own stream;
- a malformed request: 400 and the connection closes; an oversized head 431, target 414; an upgrade
  (WebSocket, h2c) is answered as a plain request and the connection then closes;
- a connection with nothing under way is closed after ``idle`` seconds without a byte from its client
  (a held long-poll or stream is under way, so it is never idle).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
import uuid
from collections.abc import Callable
from http import HTTPStatus
from urllib.parse import unquote_to_bytes

import httptools

log = logging.getLogger("referee.http")

PIPELINE = 16  # requests of one connection under way before it stops being read
MAX_TARGET = 8 * 1024
MAX_HEAD = 64 * 1024  # the header lines together
MAX_HEADERS = 100
STATUS_LINES = {s.value: f"HTTP/1.1 {s.value} {s.phrase}\r\n".encode() for s in HTTPStatus}
SET_HERE = {"content-length", "transfer-encoding", "connection"}  # framing is this module's, not the app's


def status_line(status: int) -> bytes:
    return STATUS_LINES.get(status) or b"HTTP/1.1 %d Status\r\n" % status


def head(status: int, headers: list[tuple[str, str]], framing: bytes, keep_alive: bool) -> bytes:
    lines = [status_line(status)]
    for name, value in headers:
        if name.lower() not in SET_HERE:
            lines.append(f"{name}: {value}\r\n".encode("latin-1"))
    lines.append(framing)
    lines.append(b"\r\n" if keep_alive else b"connection: close\r\n\r\n")
    return b"".join(lines)


class Request:
    """One request as read: the method, the percent-decoded path (latin-1, as WSGI has it), the raw query
    string, ``headers`` with lower-case names in their order, and the whole body (``cut`` when it went
    past the limit: then only its start, or nothing when its declared length was too long)."""

    __slots__ = ("method", "path", "query", "version", "headers", "body", "client", "server", "keep_alive",
                 "cut")

    def __init__(self, method: str, path: str, query: str, version: str, headers: list[tuple[str, str]],
                 body: bytes, client: str, server: str, keep_alive: bool, cut: bool) -> None:
        self.method, self.path, self.query, self.version = method, path, query, version
        self.headers, self.body, self.client, self.server = headers, body, client, server
        self.keep_alive, self.cut = keep_alive, cut

    def header(self, name: str) -> str | None:
        """A header's value (lower-case name); a repeated one joined with commas."""
        found = [v for k, v in self.headers if k == name]
        return ",".join(found) if found else None


class Exchange:
    """The answer to one request: ``respond`` (whole), or ``start``, ``send``... and ``end`` (streamed).

    Answers leave in request order: a whole answer ready before its turn waits here; a streamed one starts
    only once it is its connection's current exchange (``await turn()``).  ``gone`` is set when the client
    hangs up, and the ``on_gone`` callbacks run then.
    """

    __slots__ = ("conn", "request", "done", "gone", "on_gone", "ready", "_turn")

    def __init__(self, conn: Connection, request: Request) -> None:
        self.conn, self.request = conn, request
        self.done = self.gone = False
        self.on_gone: list[Callable[[], None]] = []
        self.ready: bytes | None = None  # a whole answer waiting for the ones before it
        self._turn: asyncio.Event | None = None

    def respond(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        if self.done:
            return
        self.done = True
        if self.gone:
            return
        request = self.request
        data = head(status, headers, b"content-length: %d\r\n" % len(body), request.keep_alive)
        if request.method != "HEAD":
            data += body
        if self.conn.current is self:
            self.conn.write(data)
            self.conn.finished(self)
        else:
            self.ready = data

    async def turn(self) -> None:
        """Wait until the answers before this one are out."""
        if self.conn.current is not self and not self.gone:
            self._turn = self._turn or asyncio.Event()
            await self._turn.wait()

    def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        """Begin a streamed (chunked) answer (after ``turn``)."""
        self.conn.write(head(status, headers, b"transfer-encoding: chunked\r\n", self.request.keep_alive))

    async def send(self, data: bytes) -> None:
        """One chunk of a streamed answer; waits while the client's socket is full.  Raises
        ``ConnectionError`` once the client has gone."""
        if self.gone:
            raise ConnectionResetError("the client hung up")
        if data:
            self.conn.write(b"%x\r\n%s\r\n" % (len(data), data))
        await self.conn.drained()
        if self.gone:
            raise ConnectionResetError("the client hung up")

    def end(self) -> None:
        """End a streamed answer; the connection then serves its next request."""
        if self.done:
            return
        self.done = True
        if not self.gone:
            self.conn.write(b"0\r\n\r\n")
            self.conn.finished(self)

    def hang_up(self) -> None:
        if not self.gone:
            self.gone = True
            if self._turn is not None:
                self._turn.set()
            for callback in self.on_gone:
                callback()


class _Refused(Exception):
    """Raised in a parser callback: the request cannot be read (status and why)."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class _Stop(Exception):
    """Raised in a parser callback: nothing more of this connection is read."""


class Connection(asyncio.Protocol):
    """One client connection: parses requests, hands each to the server's handler as soon as it is whole,
    and writes the answers in order."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpRequestParser(self)
        self.exchanges: collections.deque[Exchange] = collections.deque()  # under way, oldest first
        self.last_read = time.monotonic()
        self.paused = set()  # why reading is paused: "pipeline", "writing"
        self.writable: asyncio.Event | None = None  # made when writing first pauses
        self.closing = False
        self.stopped = False  # a request went on cut: nothing after it is read
        self.client = self.local = ""
        self._reset()

    def _reset(self) -> None:
        self.url = b""
        self.head_size = 0
        self.headers: list[tuple[str, str]] = []
        self.body: list[bytes] = []
        self.body_size = 0
        self.cut = False

    # -- asyncio ------------------------------------------------------------------------------------
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.server.connections.add(self)
        peer, local = transport.get_extra_info("peername"), transport.get_extra_info("sockname")
        self.client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else ""
        self.local = f"{local[0]}:{local[1]}" if isinstance(local, tuple) else ""

    def connection_lost(self, exc) -> None:
        self.closing = True
        self.server.connections.discard(self)
        if self.writable is not None:
            self.writable.set()
        exchanges, self.exchanges = self.exchanges, collections.deque()
        for exchange in exchanges:
            exchange.hang_up()

    def pause_writing(self) -> None:
        """The client does not read its answers: stop reading its requests until it does."""
        if self.writable is None:
            self.writable = asyncio.Event()
        self.writable.clear()
        self._pause("writing")

    def resume_writing(self) -> None:
        if self.writable is not None:
            self.writable.set()
        self._resume("writing")

    async def drained(self) -> None:
        if self.writable is not None and not self.writable.is_set() and not self.closing:
            await self.writable.wait()

    def _pause(self, why: str) -> None:
        if not self.paused and self.transport is not None and not self.closing:
            self.transport.pause_reading()
        self.paused.add(why)

    def _resume(self, why: str) -> None:
        if why in self.paused:
            self.paused.discard(why)
            if not self.paused and self.transport is not None and not self.closing:
                self.transport.resume_reading()

    def data_received(self, data: bytes) -> None:
        self.last_read = time.monotonic()
        if self.stopped:
            return
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:  # the upgrade's request was handed on; nothing after it is read
            self.stopped = True
            self._last_answer()
        except httptools.HttpParserCallbackError as exc:
            cause = exc.__context__
            if isinstance(cause, _Refused):
                self.refuse(cause.status, cause.detail)
            elif not isinstance(cause, _Stop):  # the handler failed: a defect, logged; the connection closes
                log.error("request handling failed", exc_info=cause)
                self.close()
        except httptools.HttpParserError as exc:
            self.refuse(400, f"Malformed request ({exc}).")

    def eof_received(self) -> bool:
        """A client that half-closes after its requests still gets their answers, then the connection closes."""
        self.stopped = True
        return self._last_answer()

    def _last_answer(self) -> bool:
        """Close once the answers under way are out (now, if there are none); True if some are."""
        if not self.exchanges:
            self.close()
            return False
        self.exchanges[-1].request.keep_alive = False
        return True

    # -- httptools' callbacks -------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        if self.stopped:
            raise _Stop
        self._reset()

    def on_url(self, url: bytes) -> None:
        self.url += url
        if len(self.url) > MAX_TARGET:
            raise _Refused(414, "The request target is too long.")

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_size += len(name) + len(value) + 4
        if self.head_size > MAX_HEAD or len(self.headers) >= MAX_HEADERS:
            raise _Refused(431, "The request's headers are too large.")
        self.headers.append((name.decode("latin-1").lower(), value.decode("latin-1")))

    def on_headers_complete(self) -> None:
        length = next((v for k, v in self.headers if k == "content-length"), "")
        if length.isdigit() and int(length) > self.server.max_body:
            self._complete(cut=True)  # refused by its length: handed on now, the body is never read
            raise _Stop
        expect = next((v for k, v in self.headers if k == "expect"), "")
        if expect.lower() == "100-continue":
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n")

    def on_body(self, body: bytes) -> None:
        self.body.append(body)
        self.body_size += len(body)
        if self.body_size > self.server.max_body:  # a chunked body past the limit: handed on with what came
            self._complete(cut=True)
            raise _Stop

    def on_message_complete(self) -> None:
        self._complete(cut=False)

    # -- requests and answers ---------------------------------------------------------------------------
    def _complete(self, cut: bool) -> None:
        parser = self.parser
        try:
            parsed = httptools.parse_url(self.url)
        except httptools.HttpParserInvalidURLError:
            raise _Refused(400, "The request target is malformed.") from None
        if cut:
            self.stopped = True
        request = Request(parser.get_method().decode("ascii"),
                          unquote_to_bytes(parsed.path or b"/").decode("latin-1"),
                          (parsed.query or b"").decode("latin-1"), parser.get_http_version(), self.headers,
                          b"".join(self.body), self.client, self.local, parser.should_keep_alive() and not cut, cut)
        exchange = Exchange(self, request)
        self.exchanges.append(exchange)
        if len(self.exchanges) >= PIPELINE:
            self._pause("pipeline")
        self.server.handler(request, exchange)

    @property
    def current(self) -> Exchange | None:
        return self.exchanges[0] if self.exchanges else None

    def write(self, data: bytes) -> None:
        if not self.closing and self.transport is not None:
            self.transport.write(data)

    def finished(self, exchange: Exchange) -> None:
        """The current exchange is answered: close if it asked to, else send the answers ready after it."""
        while True:
            if self.exchanges and self.exchanges[0] is exchange:
                self.exchanges.popleft()
            if not exchange.request.keep_alive:
                self.close()
                return
            exchange = self.current
            if exchange is None:
                break
            if exchange._turn is not None:
                exchange._turn.set()
            if exchange.ready is None:
                break
            self.write(exchange.ready)
            exchange.ready = None
        if len(self.exchanges) < PIPELINE // 2:
            self._resume("pipeline")

    def refuse(self, status: int, detail: str) -> None:
        """A request that cannot be read: answered (when nothing before it is under way), then closed."""
        log.debug("refused %s from %s: %s", status, self.client, detail)
        if not self.exchanges:
            body = self.server.refusal(status, detail)
            self.write(head(status, [("content-type", "application/problem+json"), ("x-request-id", uuid.uuid4().hex)],
                            b"content-length: %d\r\n" % len(body), keep_alive=False) + body)
        self.close()

    def close(self) -> None:
        if not self.closing and self.transport is not None:
            self.closing = True
            self.transport.close()


Handler = Callable[[Request, Exchange], None]


class Server:
    """The listening side: a :class:`Connection` per client, idle ones closed after ``idle`` seconds.

    ``refusal(status, detail)`` makes the body of a refused request (a problem+json document)."""

    def __init__(self, handler: Handler, max_body: int, idle: float, refusal: Callable[[int, str], bytes]) -> None:
        self.handler, self.max_body, self.idle, self.refusal = handler, max_body, idle, refusal
        self.connections: set[Connection] = set()
        self.sweeper: asyncio.Task | None = None

    async def listen(self, host: str, port: int, backlog: int = 4096) -> asyncio.AbstractServer:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: Connection(self), host, port, backlog=backlog, reuse_address=True)
        self.sweeper = asyncio.ensure_future(self._sweep())
        return server

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(max(0.25, min(5.0, self.idle / 4)))
            old = time.monotonic() - self.idle
            for conn in [c for c in self.connections if not c.exchanges and c.last_read < old]:
                conn.close()
