"""The front: every connection of a host in one process; Flask's work in app processes, first come first served.

``referee serve`` and ``referee api`` run one front (this module's ``main``) and ``--processes`` app
processes (service/pool.py).  The wire is granian's (hyper's HTTP/1.1, in Rust, maintained and hardened by
others: parsing, framing, keep-alive, limits and deadlines, flow control), embedded on the front's event loop;
it calls :class:`Front`, an ASGI application, for every request.  The front does three things:

- every request Flask must answer goes into the one queue of service/pool.py and, in arrival order, to the
  first app process that is free, and its answer back to the client;
- a long-poll, ``GET /matches/{id}?since=V&wait=S`` with S > 0, is asked of Flask once (validation, tokens,
  errors: the same code as any request); while the match stays at or below ``since`` that answer stays true,
  so the front holds the request on the event loop, not in an app process, until the match's next commit,
  and asks Flask again once it moved;
- an event stream, ``GET /matches/{id}/events`` with ``Accept: text/event-stream``, is opened by Flask
  (tickets, leases, limits) and then held here: catch-up pages read on this loop's Redis client, a
  heartbeat from one task for all streams, and the next page at every commit of its match.

Every commit publishes on ``ref:{m:<id>}:notify``; the front's one pub/sub connection (service/hub.py) wakes the
waiters of that match.  So a waiting person holds no process, thread or Redis connection, and thousands can wait
while the app processes referee.  The limits of our own, above the wire's: requests under way per client
address, a body's deadline, and (service/pool.py) an app process's deadline per request.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import os
import resource
import signal
import time
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import orjson
from redis.exceptions import RedisError

from service import logs, metrics, requestid
from service import pool as apps
from service.api import problem_answer, sse
from service.config import Settings
from service.hub import Beats, Hub, Waiter
from service.problems import Problem
from service.processes import die_with_parent, name_process
from service.referee import Stream

log = logging.getLogger("referee.front")

FULL_COLLECTION_EVERY = 100  # collections of the middle generation per full one (CPython's default: 10)
Headers = list[tuple[str, str]]

def request_id(headers: Headers) -> str:
    """The request's id: the client's ``X-Request-Id`` when it is usable, else a new one, which replaces it in
    the headers the app process gets."""
    given = None
    for name, value in headers:
        if name == requestid.HEADER:
            given = value if given is None else f"{given},{value}"
    if given is not None and requestid.valid(given):
        return given
    made = requestid.make()
    if given is not None:
        headers[:] = [(k, v) for k, v in headers if k != requestid.HEADER]
    headers.append((requestid.HEADER, made))
    return made


class AccessLog:
    """The front's line per request (service/logs.py), and its counting in the metrics.  Lines go out together
    every ``EVERY`` seconds (one system call for all, not one a request), and at stop."""

    EVERY = 0.05

    def __init__(self) -> None:
        self.text = logs.text_format()
        self.lines: list[bytes] = []
        self.requests = metrics.Requests()
        self.counting = False  # a flush of the counts is due

    def done(self, method: str, path: str, request_id: str, started: float, status: int, route: str | None,
             match_id: str | None, held: bool = False) -> None:
        seconds = time.perf_counter() - started
        route = route or metrics.UNMATCHED
        self.requests.count(route, method, status, None if held else seconds)
        if not self.lines:
            asyncio.get_running_loop().call_later(self.EVERY, self.flush)
        if not self.counting:
            self.counting = True
            asyncio.get_running_loop().call_later(self.requests.FLUSH, self.flush_counts)
        fields = {"ts": logs.iso(time.time()), "level": "info", "event": "request", "request_id": request_id,
                  "method": method, "route": route, "path": path, "status": status,
                  "duration_ms": round(seconds * 1000, 3)}
        if match_id is not None:
            fields["match_id"] = match_id
        self.lines.append(logs.line(fields, True) if self.text else orjson.dumps(fields) + b"\n")

    def flush(self) -> None:
        lines, self.lines = self.lines, []
        if lines:
            logs.write(b"".join(lines))

    def flush_counts(self) -> None:
        self.counting = False
        self.requests.flush()


def cors_headers(headers: Headers) -> Headers:
    return [(k, v) for k, v in headers if k.lower().startswith("access-control-") or k.lower() == "vary"]


def problem(code: str, detail: str, headers: Headers = (),
            retry_after: int | None = None) -> tuple[int, Headers, bytes]:
    """A problem answer of the front's own (CORS headers kept from Flask's answer, when there was one)."""
    status, more, body = problem_answer(Problem(code, detail, retry_after=retry_after))
    return status, [*more, *cors_headers(list(headers))], body


class Gone(Exception):
    """The client hung up."""


class Outlet:
    """One request's way back to its client (the server's ASGI ``send``), and the watch for its hang-up.

    The server reads a request's body and then reports ``http.disconnect`` once the client goes; a held request
    (a long-poll, a stream) watches for it, so that its wait ends then and its work stops.  A stream's writes
    wait while the client does not read (the server keeps a few chunks per connection, no more), and a
    heartbeat is skipped while the previous write still waits: a client that stops reading holds one write."""

    __slots__ = ("send", "receive", "gone", "on_gone", "watch", "writing", "started")

    def __init__(self, send, receive) -> None:
        self.send, self.receive = send, receive
        self.gone = False
        self.on_gone: list = []
        self.watch: asyncio.Task | None = None
        self.writing: asyncio.Future | None = None
        self.started = False  # the answer's head went out

    def watch_hang_up(self) -> None:
        if self.watch is None:
            self.watch = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        with suppress(Exception):
            while (await self.receive())["type"] != "http.disconnect":
                pass
        self.hang_up()

    def hang_up(self) -> None:
        if not self.gone:
            self.gone = True
            for callback in self.on_gone:
                callback()
            if self.writing is not None:
                self.writing.cancel()

    def stop_watching(self) -> None:
        if self.watch is not None:
            self.watch.cancel()

    async def respond(self, status: int, headers: Headers, body: bytes) -> None:
        """A whole answer."""
        self.started = True
        await self.send({"type": "http.response.start", "status": status,
                         "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]})
        await self.send({"type": "http.response.body", "body": body})

    async def start(self, status: int, headers: Headers) -> None:
        self.started = True
        await self.send({"type": "http.response.start", "status": status,
                         "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers]})

    async def write(self, data: bytes) -> None:
        """A part of a streamed answer; raises ``Gone`` once the client hung up."""
        if self.gone:
            raise Gone
        self.writing = asyncio.ensure_future(self.send({"type": "http.response.body", "body": data,
                                                        "more_body": True}))
        try:
            await self.writing
        except asyncio.CancelledError:
            if self.gone:
                raise Gone from None
            raise
        finally:
            self.writing = None

    async def end(self) -> None:
        if not self.gone:
            with suppress(Exception):
                await self.send({"type": "http.response.body", "body": b""})


class Front:
    """The ASGI application the wire server calls for every request (see the module's docstring)."""

    def __init__(self, settings: Settings, pool: apps.Pool) -> None:
        self.settings = settings
        self.pool = pool
        self.hub: Hub | None = None  # made at the first wait
        self.held: set[asyncio.Task] = set()  # the tasks of held requests (for drain)
        self.clients: dict[str, int] = {}  # requests under way per client address
        self.log = AccessLog()

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] != "http":  # no lifespan (the server runs without it) nor WebSocket (off)
            return
        started = time.perf_counter()
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        rid = request_id(headers)
        outlet = Outlet(send, receive)
        address = (scope.get("client") or ("", 0))[0]
        under_way = self.clients.get(address, 0)
        if under_way >= self.settings.max_per_client:
            return await self._refuse(outlet, scope, rid, started, problem(
                "client_limit", f"At most {self.settings.max_per_client} requests may be under way from one address.",
                retry_after=self.settings.retry_after))
        self.clients[address] = under_way + 1
        try:
            await self._serve(scope, headers, outlet, rid, started)
        except Exception:  # a defect of ours: logged, answered as Flask answers its own (problem+json, 500)
            log.exception("%s %s failed in the front", scope["method"], scope["path"])
            if not outlet.started:
                with suppress(Exception):
                    await self._refuse(outlet, scope, rid, started,
                                       problem("internal", "The server failed on this request; it was logged."))
        finally:
            left = self.clients[address] - 1
            if left:
                self.clients[address] = left
            else:
                del self.clients[address]

    async def _serve(self, scope: dict, headers: Headers, outlet: Outlet, rid: str, started: float) -> None:
        request = await self._read(scope, headers, outlet)
        if isinstance(request, tuple):
            return await self._refuse(outlet, scope, rid, started, request)
        frame = apps.request_frame(request)
        answer = await self._ask(frame)
        hold = answer[3]
        if hold is not None and "poll" in hold:
            return await self._held(self._long_poll(request, frame, answer, outlet, rid, started, **hold["poll"]))
        if hold is not None and "stream" in hold:
            return await self._held(self._stream(request, answer, outlet, rid, started, hold["stream"]))
        status, headers, body = answer[:3]
        headers.append((requestid.HEADER, rid))
        if request.cut:  # the rest of its body was never read
            headers.append(("Connection", "close"))
        await outlet.respond(status, headers, body)
        self.log.done(request.method, request.path, rid, started, status, answer[4], answer[5])

    async def _read(self, scope: dict, headers: Headers, outlet: Outlet) -> apps.Request | tuple:
        """The request, whole, or a refusal (status, headers, body) for one that may not go on.

        RFC 9112 section 3.2: an HTTP/1.1 request has exactly one ``Host`` (HTTP/2 carries the authority in a
        field of its own)."""
        version = scope["http_version"]
        hosts = [v for k, v in headers if k == "host"]
        # the server adds an empty Host where none came, so an empty one counts as none
        if len(hosts) > 1 or (version == "1.1" and not (hosts and hosts[0])):
            return problem("malformed_request", "A request needs exactly one Host header.")
        client, server = scope.get("client") or ("", 0), scope.get("server") or ("", 0)
        raw = scope.get("raw_path")
        path = unquote_to_bytes(raw).decode("latin-1") if raw else scope["path"].encode().decode("latin-1")
        request = apps.Request(scope["method"], path, scope["query_string"].decode("latin-1"), version, headers, b"",
                               f"{client[0]}:{client[1]}", f"{server[0]}:{server[1]}")
        length = request.header("content-length")
        if length is None and request.header("transfer-encoding") is None:
            return request  # no body (a GET, say): nothing to read
        if length is not None and length.isdigit() and int(length) > self.settings.max_body:
            request.cut = True  # the app process answers 413 from the declared length; the body is never read
            return request
        chunks, size = [], 0
        try:
            async with asyncio.timeout(self.settings.body_timeout):
                while True:
                    message = await receive_body(outlet)
                    if message is None:  # the client went, or its body's framing broke: the server cannot say
                        status, more, body = problem("malformed_request", "The request's body could not be read.")
                        return status, [*more, ("Connection", "close")], body
                    chunks.append(message[0])
                    size += len(message[0])
                    if size > self.settings.max_body:
                        request.cut = True
                        break
                    if not message[1]:
                        break
        except TimeoutError:
            status, more, body = problem("body_timeout", f"The body must arrive within "
                                                          f"{self.settings.body_timeout:g} seconds of the head.")
            return status, [*more, ("Connection", "close")], body
        request.body = b"".join(chunks)
        return request

    async def _refuse(self, outlet: Outlet, scope: dict, rid: str, started: float,
                      answer: tuple[int, Headers, bytes]) -> None:
        status, headers, body = answer
        await outlet.respond(status, [*headers, (requestid.HEADER, rid)], body)
        self.log.done(scope["method"], scope["path"], rid, started, status, None, None)

    def _answer(self, answer) -> tuple[int, Headers, bytes]:
        """An app process's answer; the front's own when there was none (``Pool``'s ``None`` and ``TIMED_OUT``)."""
        if isinstance(answer, tuple):
            return answer[:3]
        if answer == apps.TIMED_OUT:
            return problem("app_timeout", f"The request took longer than {self.settings.app_timeout:g} seconds; "
                                          "it was stopped.")
        return self._lost()

    def _lost(self) -> tuple[int, Headers, bytes]:
        """No answer: the app process died with the request, or none came up in time."""
        if self.pool.links:
            return problem("internal", "The server failed on this request; it was logged.")
        return problem("unavailable", "The server is starting or restarting; retry shortly.",
                       retry_after=self.settings.retry_after)

    async def _held(self, coro) -> None:
        """A held request runs as a task of its own, so that a stopping front can wait for it (``drain``)."""
        task = asyncio.ensure_future(coro)
        self.held.add(task)
        try:
            await task
        finally:
            self.held.discard(task)

    async def drain(self, timeout: float) -> None:
        """Stopping: let go of the held requests (``Hub.release``) and wait, at most ``timeout`` seconds, until
        they and the requests handed to app processes are answered."""
        deadline = asyncio.get_running_loop().time() + timeout
        if self.hub is not None:
            self.hub.release()
        if self.held:
            await asyncio.wait(set(self.held), timeout=timeout)
        await self.pool.drained(max(0.0, deadline - asyncio.get_running_loop().time()))

    def _hub(self) -> Hub:
        if self.hub is None:
            s = self.settings
            self.hub = Hub(s.redis_url, s.heartbeat, s.redis_timeout, s.redis_cluster)
        return self.hub

    async def _ask(self, frame: bytes) -> tuple:
        """An app process's answer to the request (``Answer``), or the front's own when none came."""
        answer = await self.pool.call(frame)
        return answer if isinstance(answer, tuple) else (*self._answer(answer), None, None, None)

    # -- long-poll --------------------------------------------------------------------------
    async def _long_poll(self, request: apps.Request, frame: bytes, answer: tuple, outlet: Outlet, rid: str,
                         started: float, since: int, wait: float) -> None:
        """Flask answered, with nothing newer than ``since`` yet; that answer stays true while the match stays at
        or below ``since``, so the re-checks only read the version (no view is built) and Flask answers again
        once it moved."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        match_id = answer[5]
        metrics.HELD_LONG_POLLS.inc()
        try:
            hub = self._hub()
            async with hub.watch(match_id, since) as waiter:  # subscribed, then re-check
                outlet.on_gone.append(waiter.event.set)  # a hang-up ends the wait
                outlet.watch_hang_up()
                while not outlet.gone and not waiter.gone:  # waiter.gone: the front is stopping
                    waiter.event.clear()  # before the re-check: a commit during the read sets it again
                    if await hub.version(match_id) > since:
                        answer = await self._ask(frame)
                        if answer[3] is None:  # it moved (or is gone): Flask's answer says so
                            break
                    left = deadline - loop.time()
                    if left <= 0:
                        break
                    with suppress(TimeoutError):
                        async with asyncio.timeout(left):
                            await waiter.event.wait()
        except (RedisError, OSError, TimeoutError) as exc:
            log.warning("long-poll answered 503: %r", exc)
            answer = (*self._unavailable(answer[1]), None, answer[4], match_id)
        finally:
            metrics.HELD_LONG_POLLS.dec()
            outlet.stop_watching()
        status, headers, body = answer[:3]
        headers.append((requestid.HEADER, rid))
        if not outlet.gone:
            with suppress(Exception):
                await outlet.respond(status, headers, body)
        self.log.done(request.method, request.path, rid, started, status, answer[4], match_id, True)

    def _unavailable(self, headers: Headers) -> tuple[int, Headers, bytes]:
        return problem("redis_unavailable", "The store is unreachable; retry shortly.", headers, retry_after=1)

    # -- event stream -----------------------------------------------------------------------
    async def _stream(self, request: apps.Request, answer: tuple, outlet: Outlet, rid: str, started: float,
                      hold: dict) -> None:
        """Flask opened the streams (tickets, leases, limits): one match's, or several on one connection (GET
        /events); hold them here until every followed match has ended, the time is up, the client leaves or the
        front stops.  One heartbeat for the connection; a commit re-reads only the streams of its match."""
        status, headers, route, match_id = answer[0], answer[1], answer[4], answer[5]
        # a stream may be held for hours, 10,000 at a time: it keeps its CORS headers (and its request id), not
        # the request and Flask's answer (fewer objects for every full pass of the collector to walk)
        path = request.path
        del request, answer
        headers = [*cors_headers(headers), (requestid.HEADER, rid)]
        follows = [Follow(Stream(store=None, **{k: v for k, v in held.items() if k not in ("after", "tag")}),
                          held["after"], held["tag"]) for held in hold["streams"]]
        streams = [f.stream for f in follows]
        deadline = asyncio.get_running_loop().time() + hold["seconds"]
        opened = beat = None
        hub = self._hub()
        woken = asyncio.Event()  # any followed match moved, a hang-up, a failed heartbeat, the front stopping
        connection = Waiter(-1, woken)
        try:
            async with AsyncExitStack() as watching:
                for f in follows:
                    f.waiter = await watching.enter_async_context(hub.watch(f.stream.match_id, -1, woken))
                    f.waiter.moved = True  # read it once at the start
                outlet.on_gone.append(functools.partial(Beats._end, connection))  # a hang-up wakes it
                outlet.watch_hang_up()
                await outlet.start(200, [("content-type", "text/event-stream; charset=utf-8"),
                                         *sse.HEADERS.items(), *headers])
                opened = True
                metrics.HELD_STREAMS.inc()
                await outlet.write(sse.RETRY + b"".join(sse.refused_frame(tag, why) for tag, why in hold["refused"]))
                beat = hub.beats.add(outlet, connection, streams)
                try:
                    async with asyncio.timeout_at(deadline) as lifetime:  # one timer for the stream's life
                        while follows and not connection.gone and not any(f.waiter.gone for f in follows):
                            woken.clear()
                            due = [f for f in follows if f.waiter.moved] or list(follows)  # none moved: re-read all
                            out = []
                            for f in due:
                                f.waiter.moved = False
                                frames, f.after, f.waiter.seen, over = await sse.catch_up_async(
                                    hub.page, f.stream, f.after, f.tag)
                                out.append(frames)
                                if over:  # this match ended: the others go on
                                    follows.remove(f)
                            if any(out):
                                await outlet.write(b"".join(out))
                            if follows:
                                await woken.wait()
                except TimeoutError:
                    if not lifetime.expired():
                        raise
        except Gone:
            pass
        except (RedisError, OSError, TimeoutError) as exc:
            if not opened:  # nothing sent yet: answer 503
                log.warning("event stream answered 503: %r", exc)
                status, more, body = self._unavailable(headers)
                await outlet.respond(status, [*more, (requestid.HEADER, rid)], body)
                return
            if not outlet.gone:
                log.warning("event stream ended early (the client resumes): %s", exc)
        except Exception as exc:  # a match expired while the stream was open
            if not opened:
                raise
            log.warning("event stream ended: %r", exc, exc_info=True)
        finally:
            if beat is not None:
                beat.outlet = None  # no more heartbeats
            outlet.stop_watching()
            if opened:
                metrics.HELD_STREAMS.dec()
                await outlet.end()
            self.log.done("GET", path, rid, started, status, route, match_id, held=True)
            for stream in streams:
                with suppress(RedisError, OSError):
                    await hub.close_stream(stream)


@dataclass(eq=False, slots=True)
class Follow:
    """One match a stream follows: its lease, how far it has been sent, its tag on a stream of several."""

    stream: Stream
    after: int
    tag: int | None
    waiter: Waiter | None = None


async def receive_body(outlet: Outlet) -> tuple[bytes, bool] | None:
    """The next part of a request's body and whether more follows; None once the client hung up."""
    message = await outlet.receive()
    if message["type"] == "http.disconnect":
        outlet.hang_up()
        return None
    return message.get("body", b""), message.get("more_body", False)


def wire_server(front: Front, host: str, port: int, settings: Settings):
    """The maintained HTTP server that speaks the wire (granian: hyper's HTTP/1.1 in Rust), on this process's event
    loop, calling ``front`` for each request.  Its limits are the settings': the head's size and deadline (which
    also closes a keep-alive connection left silent), the connections held at once; one request under way per
    connection (pipelined ones wait, unread), and a streamed answer's writes wait while its client does not read."""
    from pathlib import Path

    from granian.constants import HTTPModes, Interfaces, SSLProtocols
    from granian.http import HTTP1Settings, HTTP2Settings
    from granian.server.embed import Server as Granian

    # plain: HTTP/1.1 alone (its head deadline then runs from the connection's first instant; granian's
    # detection of HTTP/2 by the first bytes has no deadline of its own).  TLS: ALPN picks HTTP/2 or HTTP/1.1.
    tls = {"ssl_cert": Path(settings.tls_cert), "ssl_key": Path(settings.tls_key),
           "ssl_protocol_min": SSLProtocols.tls12} if settings.tls_cert else {}
    return Granian(
        front, address=host, port=port, interface=Interfaces.ASGINL, websockets=False,
        http=HTTPModes.auto if tls else HTTPModes.http1, backlog=WIRE_BACKLOG, backpressure=settings.max_connections,
        http1_settings=HTTP1Settings(header_read_timeout=int(settings.head_timeout * 1000), keep_alive=True,
                                     max_buffer_size=max(settings.max_head, WIRE_MIN_BUFFER)),
        http2_settings=HTTP2Settings(max_headers_size=max(settings.max_head, WIRE_MIN_BUFFER)),
        log_level="error", log_dictconfig={"loggers": {"_granian": {"level": "ERROR", "propagate": True}}}, **tls)


WIRE_BACKLOG = 4096
WIRE_MIN_BUFFER = 8192  # hyper's least read buffer


def raise_descriptor_limit(wanted: int) -> None:
    """Let this process hold ``wanted`` connections (and some files more): the soft limit up to the hard one."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted + 256 if hard == resource.RLIM_INFINITY else min(hard, wanted + 256)
    if target > soft:
        with suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


async def run(host: str, port: int, path: str, settings: Settings) -> None:
    with suppress(FileNotFoundError):  # a front that died left its socket
        os.unlink(path)
    pool = apps.Pool(path, deadline=settings.app_timeout)
    await pool.start()
    front = Front(settings, pool)
    raise_descriptor_limit(settings.max_connections)
    server = wire_server(front, host, port, settings)
    serving = asyncio.ensure_future(server.serve())
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    done, _ = await asyncio.wait({serving, asyncio.ensure_future(stop.wait())}, return_when=asyncio.FIRST_COMPLETED)
    if serving in done:  # the server could not start (its port is taken, say): the supervisor says so
        serving.result()
        raise RuntimeError("the wire server stopped by itself")
    # the supervisor's turn for us: let go of the held long-polls and streams (their clients resume against the
    # next front), accept no more, and answer what app processes are doing
    if front.hub is not None:
        front.hub.release()
    server.stop()
    with suppress(TimeoutError):
        await asyncio.wait_for(serving, settings.drain)
    await front.drain(settings.drain)
    front.log.flush()
    logs.drain()


def main(host: str, port: int, path: str, parent: int) -> None:
    """The front, as ``referee serve`` and ``referee api`` fork it."""
    import uvloop

    die_with_parent(parent)
    name_process("referee-front")
    settings = Settings.from_env()
    # what is made at start lives as long as the process: out of the collector's reach.  A full collection
    # walks every held request (10,000 streams: ~130,000 objects, 65-190 ms with the loop stopped) and finds
    # next to nothing to free: it waits for 100 collections of the middle generation instead of 10
    # (docs/benchmarks.md, the paragraphs from "Thousands of watchers")
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    logs.setup()
    uvloop.run(run(host, port, path, settings))

