"""An API process: the ASGI application granian's worker calls for every connection that process accepted.

``referee serve`` and ``referee api`` run granian (hyper's HTTP/1.1 and HTTP/2, in Rust, maintained and
hardened by others: parsing, framing, keep-alive, limits and deadlines, flow control) with ``--processes``
worker processes (service/serving/server.py); granian spawns, respawns and stops them.  Each worker calls
:class:`Front` for each request on its connections, and answers it in the same process:

- a request Flask must answer runs Flask right here, on this process's event loop (service/serving/wsgi.py),
  taking its turn by client address (:class:`Turns`): a burst from one address waits in that address's line
  and never before another address's request;
- a long-poll, ``GET /matches/{id}?since=V&wait=S`` with S > 0, is asked of Flask once (validation, tokens,
  errors: the same code as any request); while the match stays at or below ``since`` that answer stays true,
  so the request is held on the event loop, not in Flask, until the match's next commit, and Flask is asked
  again once it moved;
- an event stream, ``GET /matches/{id}/events`` with ``Accept: text/event-stream``, is opened by Flask
  (tickets, leases, limits) and then held here: catch-up pages read on this loop's Redis client, a heartbeat
  from one task for all streams, and the next page at every commit of its match.

Every commit publishes on ``ref:{m:<id>}:notify``; the process's one pub/sub connection (service/serving/hub.py)
wakes the waiters of that match.  So a waiting person holds no thread or Redis connection of their own.
The limits of our own, above the wire's: requests under way per client address (held ones included), requests
waiting for Flask per address, the head's size, a body's deadline, and Flask's deadline per request (a stuck
request is answered 504 and its process replaced).
"""

from __future__ import annotations

import asyncio
import collections
import functools
import gc
import gzip
import hashlib
import logging
import os
import signal
import time
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

import orjson
from redis.exceptions import RedisError

from service.api import problem_answer, sse
from service.core.views import Stream
from service.infra.config import Settings
from service.infra.problems import Problem
from service.integrations import logs, metrics, multiproc, requestid
from service.serving import shared, wsgi
from service.serving.hub import Beats, Hub, Waiter
from service.serving.outlet import Gone, Headers, Outlet

log = logging.getLogger("referee.front")

FULL_COLLECTION_EVERY = 100  # collections of the middle generation per full one (CPython's default: 10)


def request_id(headers: Headers) -> str:
    """The request's id: the client's ``X-Request-Id`` when it is usable, else a new one, which replaces it in
    the headers Flask gets."""
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
    """The process's line per request (integrations/logs.py), and its counting in the metrics.  Lines go out together
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


class Stuck(BaseException):
    """Flask held one request past ``REFEREE_APP_TIMEOUT`` (raised by SIGALRM into the stuck code).

    A BaseException: Flask's error handling (``except Exception``) must not answer it as its own 500."""


class Turns:
    """Flask's work in this process, taken in turn by client address.

    Flask runs on the event loop, one request at a time.  A request of an address with nothing else under
    way, while nobody waits, runs at once (the common case: no cost).  Otherwise it waits in its address's
    line, and the lines are served round robin: a burst of a thousand requests from one address delays
    another address's request by at most one of them.  A line holds at most ``bound`` requests (then 503
    ``client_limit``), and a request whose client hangs up while it waits leaves its line without running.
    """

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.pending: dict[str, int] = {}  # requests per address waiting for or in Flask
        self.lines: dict[str, collections.deque[asyncio.Future]] = {}
        self.order: collections.deque[str] = collections.deque()  # addresses with a line, in turn
        self.granted: asyncio.Future | None = None  # woken, not yet run
        self.scheduled = False

    def full(self, address: str) -> bool:
        return self.pending.get(address, 0) >= self.bound

    def enter(self, address: str) -> asyncio.Future | None:
        """None: run now.  A future: wait for it (cancel it to leave the line)."""
        count = self.pending.get(address, 0)
        self.pending[address] = count + 1
        if not count and not self.order and self.granted is None:
            return None
        future = asyncio.get_running_loop().create_future()
        line = self.lines.get(address)
        if line is None:
            line = self.lines[address] = collections.deque()
            self.order.append(address)
        line.append(future)
        self._schedule()
        return future

    def leave(self, address: str, future: asyncio.Future | None = None) -> None:
        """The request ran (or gave up waiting): the next one may go."""
        left = self.pending[address] - 1
        if left:
            self.pending[address] = left
        else:
            del self.pending[address]
        if future is not None and future is self.granted:
            self.granted = None
        self._schedule()

    def _schedule(self) -> None:
        if self.order and not self.scheduled and self.granted is None:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self._grant)

    def _grant(self) -> None:
        self.scheduled = False
        while self.order and self.granted is None:
            address = self.order.popleft()
            line = self.lines[address]
            future = line.popleft()
            if line:
                self.order.append(address)  # its next request waits for the others' turns
            else:
                del self.lines[address]
            if not future.done():  # a cancelled one (its client left) is passed over
                future.set_result(None)
                self.granted = future


class Fixed:
    """An answer a route marked fixed (service/api ``FIXED``): kept for the process's life, with its ETag, and
    compressed once when that helps.  A client that has it gets 304; one that accepts gzip gets it compressed."""

    __slots__ = ("status", "headers", "body", "etag", "packed", "route")

    #: what is worth compressing (a few hundred bytes are not)
    SMALLEST = 1024
    KINDS = ("text/", "application/json", "application/javascript", "image/svg")

    def __init__(self, status: int, headers: Headers, body: bytes, route: str | None) -> None:
        drop = {"content-length", "content-encoding", "etag", "vary"}
        self.headers = [(k, v) for k, v in headers if k.lower() not in drop]
        etag = next((v for k, v in headers if k.lower() == "etag"), None)
        self.etag = etag or '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'
        self.status, self.body, self.route = status, body, route
        kind = next((v for k, v in headers if k.lower() == "content-type"), "")
        self.packed = None
        if len(body) >= self.SMALLEST and kind.startswith(self.KINDS):
            packed = gzip.compress(body, 6, mtime=0)
            if len(packed) < len(body):
                self.packed = packed
        self.headers += [("ETag", self.etag), ("Vary", "Accept-Encoding")]

    def answer(self, request_headers: Headers) -> tuple[int, Headers, bytes]:
        matches = gzip_ok = False
        for name, value in request_headers:
            if name == "if-none-match":
                matches = matches or any(tag.strip().removeprefix("W/") in (self.etag, "*")
                                         for tag in value.split(","))
            elif name == "accept-encoding" and self.packed is not None:
                gzip_ok = gzip_ok or accepts_gzip(value)
        if matches:
            return 304, [(k, v) for k, v in self.headers if k.lower() != "content-type"], b""
        if gzip_ok:
            return self.status, [*self.headers, ("Content-Encoding", "gzip")], self.packed
        return self.status, list(self.headers), self.body


def accepts_gzip(value: str) -> bool:
    """Whether an ``Accept-Encoding`` takes gzip (RFC 9110 section 12.5.3: a q of 0 refuses it)."""
    for part in value.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() in ("gzip", "x-gzip", "*"):
            q = params.strip().lower()
            return not (q.startswith("q=") and q[2:].strip() in ("0", "0.0", "0.00", "0.000"))
    return False


class Front:
    """The ASGI application granian's worker calls for every request (see the module's docstring)."""

    FIXED_MOST = 1024  # fixed answers kept (the static files, the games' pages and scripts: a few hundred)

    def __init__(self, settings: Settings, app=None) -> None:
        self.settings = settings
        self.app = app  # Flask's WSGI callable; made at the lifespan's start when not given
        self.hub: Hub | None = None  # made at the first wait
        self.held: set[asyncio.Task] = set()  # the tasks of held requests (for drain)
        #: requests under way per client address, held ones included: over every API process once ``start``
        #: found granian's shared table, else this process's own
        self.counts: shared.ClientCounts | shared.LocalCounts = shared.LocalCounts()
        self.turns = Turns(settings.max_waiting_per_client)
        self.fixed: dict[str, Fixed] = {}  # by path: the answers routes marked fixed (GET, no query string)
        self.log = AccessLog()
        self.calling = False  # Flask is running a request (the alarm may interrupt it)
        self.armed = False  # the alarm's handler is in place (``start``): Flask's deadline applies
        self.replacing = False

    # -- the process's life -------------------------------------------------------------------
    async def lifespan(self, receive, send) -> None:
        """granian's worker starts and stops here: Flask is made at the start; at SIGTERM (granian stopping or
        replacing this worker) the held requests are let go first, so that the worker stops at once."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    self.start()
                except Exception as exc:
                    log.exception("the API process could not start")
                    await send({"type": "lifespan.startup.failed", "message": repr(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.drain(self.settings.drain)
                self.log.flush()
                logs.drain()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def start(self) -> None:
        from service.infra.processes import die_with_parent, name_process

        name_process("referee-app")
        die_with_parent()
        logs.setup()
        if shared.COUNTS is not None:
            self.counts = shared.COUNTS
            self.counts.claim()
            self._beat()
        multiproc.sweep_dead()  # the held requests a replaced process counted no longer are
        if self.app is None:
            from service.api.app import create_app

            self.app = create_app(self.settings)
        signal.signal(signal.SIGALRM, self._alarm)
        self.armed = True
        loop = asyncio.get_running_loop()
        # granian's own SIGTERM handler stops the worker once its connections are done: ours first lets go of
        # the held long-polls and streams (their clients resume against another process), then hands on as
        # SIGINT, which granian's handler takes the same way
        loop.add_signal_handler(signal.SIGTERM, self._stopping)
        # what is made at start (Flask, the schemas, the games: ~95,000 objects) lives as long as the process:
        # out of the collector's reach, a full collection no longer walks it while requests wait
        gc.collect()
        gc.freeze()
        young, middle, _ = gc.get_threshold()
        gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)

    def _beat(self) -> None:
        """Every second, from the loop: granian's server process kills a process whose loop stops turning."""
        self.counts.beat()
        asyncio.get_running_loop().call_later(1.0, self._beat)

    def _stopping(self) -> None:
        if self.hub is not None:
            self.hub.release()
        os.kill(os.getpid(), signal.SIGINT)

    def _alarm(self, signum, frame) -> None:
        if self.calling:
            self.calling = False
            raise Stuck

    def replace(self) -> None:
        """This process held a request past its deadline: whatever it was stuck on (a half-read connection, a
        lock) is suspect.  It stops as granian stops a worker; granian starts another in its place."""
        if not self.replacing:
            self.replacing = True
            asyncio.get_running_loop().call_later(0.05, os.kill, os.getpid(), signal.SIGTERM)

    # -- a request ----------------------------------------------------------------------------
    async def __call__(self, scope: dict, receive, send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            return await self.lifespan(receive, send)
        if kind != "http":  # no WebSocket (off)
            return
        started = time.perf_counter()
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        rid = request_id(headers)
        outlet = Outlet(send, receive)
        address = (scope.get("client") or ("", 0))[0]
        counts = self.counts
        if counts.count(address) >= self.settings.max_per_client or self.turns.full(address):
            return await self._refuse(outlet, scope, rid, started, problem(
                "client_limit", "Too many requests from one address are under way; retry shortly.",
                retry_after=self.settings.retry_after))
        counts.add(address, 1)
        try:
            await self._serve(scope, headers, outlet, address, rid, started)
        except (Exception, Stuck):  # a defect of ours (or a deadline met at its very end): logged, answered 500
            log.exception("%s %s failed in the front", scope["method"], scope["path"])
            if not outlet.started:
                with suppress(Exception):
                    await self._refuse(outlet, scope, rid, started,
                                       problem("internal", "The server failed on this request; it was logged."))
        finally:
            counts.add(address, -1)

    async def _serve(self, scope: dict, headers: Headers, outlet: Outlet, address: str, rid: str,
                     started: float) -> None:
        if scope["method"] == "GET" and not scope["query_string"] and (fixed := self.fixed.get(scope["path"])):
            status, out, body = fixed.answer(headers)
            await outlet.respond(status, [*out, (requestid.HEADER, rid)], body)
            return self.log.done("GET", scope["path"], rid, started, status, fixed.route, None)
        request = await self._read(scope, headers, outlet)
        if isinstance(request, tuple):
            return await self._refuse(outlet, scope, rid, started, request)
        answer = await self._ask(request, address, outlet)
        if answer is None:  # the client left while it waited for its turn: nothing ran
            return self.log.done(request.method, request.path, rid, started, 499, None, None)
        hold = answer[3]
        if hold is not None and "poll" in hold:
            return await self._held(self._long_poll(request, address, answer, outlet, rid, started, **hold["poll"]))
        if hold is not None and "stream" in hold:
            return await self._held(self._stream(request, answer, outlet, rid, started, hold["stream"]))
        if hold is not None and "fixed" in hold and len(self.fixed) < self.FIXED_MOST:
            fixed = self.fixed[scope["path"]] = Fixed(*answer[:3], answer[4])
            status, headers, body = fixed.answer(request.headers)
            await outlet.respond(status, [*headers, (requestid.HEADER, rid)], body)
            return self.log.done(request.method, request.path, rid, started, status, answer[4], answer[5])
        status, headers, body = answer[:3]
        headers.append((requestid.HEADER, rid))
        if request.cut:  # the rest of its body was never read
            headers.append(("Connection", "close"))
        await outlet.respond(status, headers, body)
        self.log.done(request.method, request.path, rid, started, status, answer[4], answer[5])

    async def _read(self, scope: dict, headers: Headers, outlet: Outlet) -> wsgi.Request | tuple:
        """The request, whole, or a refusal (status, headers, body) for one that may not go on.

        RFC 9112 section 3.2: an HTTP/1.1 request has exactly one ``Host`` (HTTP/2 carries the authority in a
        field of its own).  The head's size is ``REFEREE_MAX_HEAD`` exactly (the wire's buffer is only a
        backstop a little above it)."""
        version = scope["http_version"]
        hosts = [v for k, v in headers if k == "host"]
        # the server adds an empty Host where none came, so an empty one counts as none
        if len(hosts) > 1 or (version == "1.1" and not (hosts and hosts[0])):
            return problem("malformed_request", "A request needs exactly one Host header.")
        raw = scope.get("raw_path")
        path = unquote_to_bytes(raw).decode("latin-1") if raw else scope["path"].encode().decode("latin-1")
        query = scope["query_string"].decode("latin-1")
        # the request line and every header line as they came: "NAME: VALUE\r\n"
        head = len(scope["method"]) + len(raw or path) + len(query) + 12 + sum(len(k) + len(v) + 4 for k, v in headers)
        if head > self.settings.max_head:
            status, more, body = problem("head_too_large", f"A request's head may have at most "
                                                           f"{self.settings.max_head} bytes.")
            return status, [*more, ("Connection", "close")], body
        client, server = scope.get("client") or ("", 0), scope.get("server") or ("", 0)
        request = wsgi.Request(scope["method"], path, query, version, headers, b"",
                               f"{client[0]}:{client[1]}", f"{server[0]}:{server[1]}")
        length = request.header("content-length")
        chunked = request.header("transfer-encoding") is not None
        if (length is None or length == "0") and not chunked:
            # no body (a GET, say; many clients send "Content-Length: 0" with one): nothing to read.  Asking the
            # server for an empty body costs a hand-off between its thread and this loop (~20 µs of CPU a request)
            return request
        if length is not None and length.isdigit() and int(length) > self.settings.max_body:
            request.cut = True  # Flask answers 413 from the declared length; the body is never read
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

    async def _ask(self, request: wsgi.Request, address: str, outlet: Outlet) -> wsgi.Answer | None:
        """Flask's answer to the request, in its address's turn; None when the client left meanwhile."""
        turn = self.turns.enter(address)
        if turn is not None:
            outlet.on_gone.append(turn.cancel)
            outlet.watch_hang_up()
            try:
                await turn
            except asyncio.CancelledError:
                if outlet.gone:
                    self.turns.leave(address, turn)
                    return None
                self.turns.leave(address, turn)
                raise
            finally:
                outlet.stop_watching()
        try:
            return self._call(request)
        finally:
            self.turns.leave(address, turn)

    def _call(self, request: wsgi.Request) -> wsgi.Answer:
        """Flask, under the deadline: a request it holds past ``REFEREE_APP_TIMEOUT`` is interrupted (SIGALRM),
        answered 504 ``app_timeout``, and this process is replaced."""
        timeout = self.settings.app_timeout
        if not self.armed:  # an application made without its lifespan (tests): no deadline
            return wsgi.answer(self.app, request)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        self.calling = True
        try:
            return wsgi.answer(self.app, request)
        except Stuck:
            log.error("a request held Flask %.1f s (REFEREE_APP_TIMEOUT): answered 504, replacing this process",
                      timeout)
            self.replace()
            return (*problem("app_timeout", f"The request took longer than {timeout:g} seconds; it was stopped."),
                    None, None, None)
        finally:
            self.calling = False
            signal.setitimer(signal.ITIMER_REAL, 0)

    async def _held(self, coro) -> None:
        """A held request runs as a task of its own, so that a stopping process can wait for it (``drain``)."""
        task = asyncio.ensure_future(coro)
        self.held.add(task)
        try:
            await task
        finally:
            self.held.discard(task)

    async def drain(self, timeout: float) -> None:
        """Stopping: let go of the held requests (``Hub.release``) and wait, at most ``timeout`` seconds, until
        they are answered."""
        if self.hub is not None:
            self.hub.release()
        if self.held:
            await asyncio.wait(set(self.held), timeout=timeout)

    def _hub(self) -> Hub:
        if self.hub is None:
            s = self.settings
            self.hub = Hub(s.redis_url, s.heartbeat, s.redis_timeout, s.redis_cluster)
            if self.replacing:
                self.hub.release()
        return self.hub

    # -- long-poll --------------------------------------------------------------------------
    async def _long_poll(self, request: wsgi.Request, address: str, answer: tuple, outlet: Outlet, rid: str,
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
                while not outlet.gone and not waiter.gone:  # waiter.gone: the process is stopping
                    waiter.event.clear()  # before the re-check: a commit during the read sets it again
                    if await hub.version(match_id) > since:
                        outlet.stop_watching()
                        again = await self._ask(request, address, outlet)
                        if again is None:
                            break
                        answer = again
                        if answer[3] is None:  # it moved (or is gone): Flask's answer says so
                            break
                        outlet.on_gone.append(waiter.event.set)
                        outlet.watch_hang_up()
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
    async def _stream(self, request: wsgi.Request, answer: tuple, outlet: Outlet, rid: str, started: float,
                      hold: dict) -> None:
        """Flask opened the streams (tickets, leases, limits): one match's, or several on one connection (GET
        /events); hold them here until every followed match has ended, the time is up, the client leaves or the
        process stops.  One heartbeat for the connection; a commit re-reads only the streams of its match."""
        status, headers, route, match_id = answer[0], answer[1], answer[4], answer[5]
        # a stream may be held for hours, 10,000 at a time: it keeps its CORS headers (and its request id), not
        # the request and Flask's answer (fewer objects for every full pass of the collector to walk)
        path = request.path
        del request, answer
        headers = [*cors_headers(headers), (requestid.HEADER, rid)]
        follows = [Follow(Stream(**{k: v for k, v in held.items() if k not in ("after", "tag")}),
                          held["after"], held["tag"]) for held in hold["streams"]]
        streams = [f.stream for f in follows]
        deadline = asyncio.get_running_loop().time() + hold["seconds"]
        opened = beat = None
        hub = self._hub()
        woken = asyncio.Event()  # any followed match moved, a hang-up, a failed heartbeat, the process stopping
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
                                seen = f.waiter.seen
                                pushed = sse.from_notices(f.stream, hub.since(f.stream.match_id, seen, f.after),
                                                          f.after, f.tag) if seen >= 0 else None
                                frames, f.after, f.waiter.seen, over = pushed or await sse.catch_up_async(
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


def make() -> Front:
    """The application of one API process (granian's ``factory``): Flask is made at the lifespan's start."""
    return Front(Settings.from_env())
