"""The front: every connection of a host in one process; Flask's work in app processes, first come first served.

``referee serve`` and ``referee api`` run one front (this module's ``main``) and ``--processes`` app
processes (service/pool.py).  The front speaks HTTP/1.1 (service/http1.py) on an event loop and does three
things:

- every request Flask must answer goes into the one queue of service/pool.py and, in arrival order, to the
  first app process that is free, and its answer back to the client;
- a long-poll, ``GET /matches/{id}?since=V&wait=S`` with S > 0, is asked of Flask once (validation, tokens,
  errors: the same code as any request); while the match stays at or below ``since`` that answer stays true,
  so the front holds the request on the event loop, not in an app process, until the match's next commit,
  and asks Flask again once it moved;
- an event stream, ``GET /matches/{id}/events`` with ``Accept: text/event-stream``, is opened by Flask
  (tickets, leases, limits) and then held here: catch-up pages read on this loop's Redis client, a
  heartbeat from one task for all streams, and the next page at every commit of its match.

Every commit publishes on ``ref:{m:<id>}:notify``; the front's one :class:`Hub` connection wakes the waiters
of that match.  So a waiting person holds no process, thread or Redis connection, and thousands can wait
while the app processes referee.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import heapq
import itertools
import logging
import math
import multiprocessing as mp
import os
import random
import re
import shutil
import signal
import tempfile
import time
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import orjson
import redis.asyncio as aioredis
from redis.exceptions import RedisError

from service import logs, metrics, multiproc, requestid
from service import pool as apps
from service.api import problem_answer, sse
from service.config import Settings
from service.http1 import Exchange, Request, Server
from service.problems import Problem
from service.processes import die_with_parent, fork, name_process, stop_processes
from service.referee import Stream
from service.store import PAGE, match_key, notify_channel, streams_key

log = logging.getLogger("referee.front")

LONG_POLL = re.compile(r"^/matches/([^/]+)$")
EVENTS = re.compile(r"^/matches/([^/]+)/events$")
CHANNEL = re.compile(rb"^ref:\{m:(.*)\}:notify$")
FULL_COLLECTION_EVERY = 100  # collections of the middle generation per full one (CPython's default: 10)
LONG_POLL_ROUTE, EVENTS_ROUTE = "/matches/{match_id}", "/matches/{match_id}/events"
HUB_CHANNEL = "ref:hub"  # nothing is published here; it keeps the pub/sub link subscribed
Headers = list[tuple[str, str]]


@dataclass(eq=False)
class Waiter:
    """One held request: woken when its match passes the version it has seen."""

    seen: float
    event: asyncio.Event = field(default_factory=asyncio.Event)
    gone: bool = False  # the client hung up

    def wake(self, version: float) -> None:
        if version > self.seen:
            self.event.set()


@dataclass(eq=False, slots=True)
class Beat:
    """An open stream as the front's :class:`Beats` see it; the stream drops its exchange when it ends."""

    exchange: Exchange | None
    waiter: Waiter
    stream: Stream


class Beats:
    """The front's heartbeats: one task sends every open stream its comment line each heartbeat, and renews
    the leases of the seats' streams among them in one pipeline.

    A stream's own task then only waits for commits.  When each stream armed a timer of its own every
    heartbeat, 10,000 idle streams cost the API about 9 % of a core, and their timers, young when the
    collector looked, made its passes walk them while requests waited.
    """

    def __init__(self, heartbeat: float, redis) -> None:
        self.heartbeat = heartbeat
        # a heartbeat may come this much late; short ticks send few at a time (10,000 streams: ~70 per tick
        # here), so requests between them do not wait behind a burst
        self.tick = min(0.1, heartbeat / 10)
        self.redis = redis
        self.due: list[tuple[float, int, Beat]] = []  # a heap: (when, order, beat)
        self.order = itertools.count()
        self.task: asyncio.Task | None = None

    def add(self, exchange: Exchange, waiter: Waiter, stream: Stream) -> Beat:
        """Beat for a stream until it drops its exchange (or a heartbeat fails).  The first beat falls at a
        random point of the interval: streams opened together (a crowd arriving, every client reconnecting
        after a restart) then beat at spread times, not in one burst."""
        beat = Beat(exchange, waiter, stream)
        first = asyncio.get_running_loop().time() + self.heartbeat * random.uniform(0.1, 1.0)
        heapq.heappush(self.due, (first, next(self.order), beat))
        if self.task is None:
            self.task = asyncio.ensure_future(self._run())
        return beat

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.tick)
            now, beating = loop.time(), []
            while self.due and self.due[0][0] <= now:
                beat = heapq.heappop(self.due)[2]
                if beat.exchange is not None:
                    beating.append(beat)
            for beat in beating:
                # not awaited in turn: a client that stopped reading holds up only its own heartbeat
                sent = asyncio.ensure_future(beat.exchange.send(sse.HEARTBEAT))
                sent.add_done_callback(functools.partial(self._sent, beat.waiter))
                heapq.heappush(self.due, (now + self.heartbeat, next(self.order), beat))
            seats = [beat.stream for beat in beating if beat.stream.holder is not None]
            if seats:
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for stream in seats:
                            stream.renew_on(pipe)
                        await pipe.execute()
                except (RedisError, OSError) as exc:
                    log.warning("stream leases not renewed: %s", exc)

    @classmethod
    def _sent(cls, waiter: Waiter, sent: asyncio.Future) -> None:
        if sent.cancelled() or sent.exception() is not None:  # the client hung up
            cls._end(waiter)

    @staticmethod
    def _end(waiter: Waiter) -> None:
        """A failed heartbeat ends its stream: the stream's task wakes and finds its waiter gone."""
        waiter.gone = True
        waiter.event.set()


class Hub:
    """The front's watch on commits: one pub/sub connection, SUBSCRIBEd to the matches that have waiters.

    A waiter subscribes (confirmed by the server) before it re-checks its match, so no commit
    after that re-check goes unnoticed.  Pub/sub delivers at most once, so every heartbeat the
    hub also reads the version of each watched match (one pipeline) and wakes those that moved;
    after a dropped connection (redis-py reconnects and re-subscribes) it wakes every waiter.

    Timeouts: the pub/sub connection has no socket timeout (it is idle between commits by
    design); health-check PINGs every heartbeat find a dead link instead.  Ordinary commands
    (the version reads) keep the short REFEREE_REDIS_TIMEOUT.
    """

    def __init__(self, url: str, heartbeat: float, timeout: float, cluster: bool = False) -> None:
        self.heartbeat = heartbeat
        self.timeout = timeout
        # on a cluster, PUBLISH reaches the subscribers of every node: the pub/sub link may use any node
        kind = aioredis.RedisCluster if cluster else aioredis.Redis
        self.redis = kind.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.pubsub = aioredis.Redis.from_url(url, socket_timeout=None, socket_connect_timeout=timeout,
                                              health_check_interval=heartbeat).pubsub()
        self.waiters: dict[str, set[Waiter]] = {}
        self.subscribed: dict[bytes, asyncio.Event] = {}  # channel -> set once the server confirmed
        self.tasks: list[asyncio.Task] = []
        self.lock = asyncio.Lock()
        self.reads = asyncio.Semaphore(16)  # the waiters' reads share a few connections
        self.page_script = self.redis.register_script(PAGE)
        self.beats = Beats(heartbeat, self.redis)
        self.released = False

    def release(self) -> None:
        """The front is stopping: every held long-poll is answered as it stands, every stream ends (their
        clients ask again, of the next front), and so does any wait that starts from now on."""
        self.released = True
        for group in self.waiters.values():
            for waiter in group:
                Beats._end(waiter)

    @asynccontextmanager
    async def watch(self, match_id: str, seen: float):
        waiter = Waiter(seen, gone=self.released)
        group = self.waiters.setdefault(match_id, set())
        group.add(waiter)
        try:
            channel = notify_channel(match_id).encode()
            ready = self.subscribed.get(channel)
            if ready is None:
                ready = self.subscribed[channel] = asyncio.Event()
                try:
                    async with self.lock:  # one (re)connect at a time: concurrent ones would open two links
                        # the link stays subscribed to HUB_CHANNEL: redis-py health-checks an unsubscribed
                        # pub/sub link by reading a PONG, which would race the reader task's own read
                        await self.pubsub.subscribe(channel, *(() if self.tasks else (HUB_CHANNEL,)))
                except BaseException:
                    del self.subscribed[channel]
                    raise
                if not self.tasks:
                    self.tasks = [asyncio.ensure_future(self._read()), asyncio.ensure_future(self._tick())]
            with suppress(TimeoutError):  # a loop swamped by thousands of new streams confirms late: go on,
                async with asyncio.timeout(self.timeout):  # the heartbeat's re-check of versions still wakes it
                    await ready.wait()
            yield waiter
        finally:
            group.discard(waiter)
            if not group and self.waiters.get(match_id) is group:
                del self.waiters[match_id]  # unsubscribed at the next tick unless a waiter comes back

    async def version(self, match_id: str) -> float:
        """The match's version (infinity once it is gone: the waiter then asks Flask, which says so)."""
        async with self.reads:
            version = await self.redis.hget(match_key(match_id), "version")
        return math.inf if version is None else int(version)

    async def page(self, keys: list[str], args: list) -> list | None:
        """``Store.page``'s read on this loop's client: a stream catching up does not block the loop
        (and the requests it hands on) while Redis answers."""
        async with self.reads:
            return await self.page_script(keys=keys, args=args)

    async def close_stream(self, stream: Stream) -> None:
        """``Stream.close`` on this loop's client: the stream no longer counts against its token's limit."""
        if stream.holder is not None:
            await self.redis.zrem(streams_key(stream.match_id, stream.holder), stream.id)

    def _wake(self, match_id: str, version: float) -> None:
        for waiter in self.waiters.get(match_id, ()):
            waiter.wake(version)

    def _wake_all(self) -> None:
        for group in self.waiters.values():
            for waiter in group:
                waiter.event.set()

    async def _read(self) -> None:
        while True:
            try:
                msg = await self.pubsub.get_message(timeout=self.heartbeat)
            except (RedisError, OSError) as exc:  # the next call reconnects and re-subscribes
                log.warning("pub/sub connection lost (%s); waking every waiter", exc)
                self._wake_all()
                await asyncio.sleep(min(1.0, self.heartbeat))
                continue
            if msg is None:
                continue
            if msg["type"] == "message":
                found = CHANNEL.match(msg["channel"])
                if found:
                    self._wake(found.group(1).decode(), int(msg["data"]))
            elif msg["type"] == "subscribe" and msg["channel"] in self.subscribed:
                self.subscribed[msg["channel"]].set()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                idle = [c for c in self.subscribed if CHANNEL.match(c).group(1).decode() not in self.waiters]
                for channel in idle:
                    del self.subscribed[channel]
                if idle:
                    async with self.lock:
                        await self.pubsub.unsubscribe(*idle)
                ids = list(self.waiters)
                if not ids:
                    continue
                async with self.redis.pipeline(transaction=False) as pipe:
                    for match_id in ids:
                        pipe.hget(match_key(match_id), "version")
                    versions = await pipe.execute()
                for match_id, version in zip(ids, versions):
                    self._wake(match_id, math.inf if version is None else int(version))  # gone: let it find out
            except (RedisError, OSError) as exc:
                log.warning("re-check of watched matches failed: %s", exc)


def request_id(request: Request) -> str:
    """The request's id: the client's ``X-Request-Id`` when it is usable, else a new one, which replaces it in
    the headers the app process gets."""
    given = None
    for name, value in request.headers:
        if name == requestid.HEADER:
            given = value if given is None else f"{given},{value}"
    if given is not None and requestid.valid(given):
        return given
    made = requestid.make()
    if given is not None:
        request.headers = [(k, v) for k, v in request.headers if k != requestid.HEADER]
    request.headers.append((requestid.HEADER, made))
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


def refusal(status: int, detail: str) -> bytes:
    """The body of a request the HTTP layer could not read (service/http1.py)."""
    code = {400: "malformed_request", 414: "target_too_long", 431: "headers_too_large"}[status]
    return problem_answer(Problem(code, detail))[2]


class Front:
    """The handler of every request (see the module's docstring)."""

    def __init__(self, settings: Settings, pool: apps.Pool) -> None:
        self.settings = settings
        self.pool = pool
        self.hub: Hub | None = None  # made at the first wait
        self.held: set[asyncio.Task] = set()  # the tasks of held requests (the loop keeps only weak references)
        self.log = AccessLog()

    def handle(self, request: Request, exchange: Exchange) -> None:
        started = time.perf_counter()
        rid = request_id(request)
        if request.method == "GET":
            if (found := EVENTS.match(request.path)) and "text/event-stream" in (request.header("accept") or ""):
                return self._hold(self._stream(request, exchange, rid, started, found.group(1)))
            if (found := LONG_POLL.match(request.path)) and (poll := long_poll_args(request.query)):
                return self._hold(self._long_poll(request, exchange, found.group(1), *poll, rid, started))
        self.pool.submit(apps.request_frame(request), functools.partial(self._answer, exchange, request, rid, started))

    def _answer(self, exchange: Exchange, request: Request, rid: str, started: float,
                answer: apps.Answer | None) -> None:
        status, headers, body = answer[:3] if answer is not None else self._lost()
        headers.append((requestid.HEADER, rid))
        exchange.respond(status, headers, body)
        self.log.done(request.method, request.path, rid, started, status,
                      *(answer[4:6] if answer is not None else (None, None)))

    def _lost(self) -> tuple[int, Headers, bytes]:
        """No answer: the app process died with the request, or none came up in time."""
        if self.pool.links:
            return problem("internal", "The server failed on this request; it was logged.")
        return problem("unavailable", "The server is starting or restarting; retry shortly.",
                       retry_after=self.settings.retry_after)

    def _hold(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self.held.add(task)
        task.add_done_callback(self._held_done)

    async def drain(self, timeout: float) -> None:
        """Stopping: let go of the held requests (``Hub.release``) and wait, at most ``timeout`` seconds, until
        they and the requests handed to app processes are answered."""
        deadline = asyncio.get_running_loop().time() + timeout
        if self.hub is not None:
            self.hub.release()
        if self.held:
            await asyncio.wait(set(self.held), timeout=timeout)
        await self.pool.drained(max(0.0, deadline - asyncio.get_running_loop().time()))

    def _held_done(self, task: asyncio.Task) -> None:
        self.held.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a held request failed", exc_info=task.exception())

    def _hub(self) -> Hub:
        if self.hub is None:
            s = self.settings
            self.hub = Hub(s.redis_url, s.heartbeat, s.redis_timeout, s.redis_cluster)
        return self.hub

    async def _ask(self, request: Request, mode: int) -> apps.Answer | tuple[int, Headers, bytes, None]:
        answer = await self.pool.call(apps.request_frame(request, mode))
        return answer if answer is not None else (*self._lost(), None)

    # -- long-poll --------------------------------------------------------------------------
    async def _long_poll(self, request: Request, exchange: Exchange, match_id: str, since: int, wait: float,
                         rid: str, started: float) -> None:
        """Flask answers once; while the match stays at or below ``since`` that answer stays true, so
        the re-checks only read the version (no view is built) and Flask answers again once it moved."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(wait, self.settings.max_wait)  # Flask refuses a wait out of range
        answer = await self._ask(request, apps.HELD)
        held = False
        if answer[0] == 200 and orjson.loads(answer[2])["version"] <= since:
            held = True
            metrics.HELD_LONG_POLLS.inc()
            try:
                hub = self._hub()
                async with hub.watch(match_id, since) as waiter:  # subscribed, then re-check
                    exchange.on_gone.append(waiter.event.set)  # a hang-up ends the wait
                    while not exchange.gone and not waiter.gone:  # gone: the front is stopping
                        waiter.event.clear()  # before the re-check: a commit during the read sets it again
                        if await hub.version(match_id) > since:
                            answer = await self._ask(request, apps.HELD)
                            break
                        left = deadline - loop.time()
                        if left <= 0:
                            break
                        with suppress(TimeoutError):
                            async with asyncio.timeout(left):
                                await waiter.event.wait()
            except (RedisError, OSError, TimeoutError) as exc:
                log.warning("long-poll answered 503: %r", exc)
                answer = (*self._unavailable(answer[1]), None)
            finally:
                metrics.HELD_LONG_POLLS.dec()
        status, headers, body = answer[:3]
        headers.append((requestid.HEADER, rid))
        exchange.respond(status, headers, body)
        self.log.done(request.method, request.path, rid, started, status, LONG_POLL_ROUTE, match_id, held)

    def _unavailable(self, headers: Headers) -> tuple[int, Headers, bytes]:
        return problem("redis_unavailable", "The store is unreachable; retry shortly.", headers, retry_after=1)

    # -- event stream -----------------------------------------------------------------------
    async def _stream(self, request: Request, exchange: Exchange, rid: str, started: float, match_id: str) -> None:
        status, headers, body, held = (await self._ask(request, apps.STREAM))[:4]
        headers.append((requestid.HEADER, rid))
        if status != 200 or held is None:
            exchange.respond(status, headers, body)
            return self.log.done(request.method, request.path, rid, started, status, EVENTS_ROUTE, match_id)
        # a stream may be held for hours, 10,000 at a time: it keeps its CORS headers (and its request id), not
        # the request and Flask's answer (fewer objects for every full pass of the collector to walk)
        path = request.path
        del request, body
        headers = [*cors_headers(headers), (requestid.HEADER, rid)]
        after, seconds = held.pop("after"), held.pop("seconds")
        stream = Stream(store=None, **held)
        deadline = asyncio.get_running_loop().time() + seconds
        opened = beat = None
        hub = self._hub()
        try:
            async with hub.watch(stream.match_id, -1) as waiter:
                await exchange.turn()
                exchange.on_gone.append(functools.partial(Beats._end, waiter))  # a hang-up wakes it
                exchange.start(200, [("content-type", "text/event-stream; charset=utf-8"), *sse.HEADERS.items(),
                                     *headers])
                opened = True
                metrics.HELD_STREAMS.inc()
                await exchange.send(sse.RETRY)
                beat = hub.beats.add(exchange, waiter, stream)
                try:
                    async with asyncio.timeout_at(deadline) as lifetime:  # one timer for the stream's life
                        while not waiter.gone:  # a commit, a hang-up (or a failed heartbeat) wakes it
                            waiter.event.clear()
                            frames, after, waiter.seen, over = await sse.catch_up_async(hub.page, stream, after)
                            if frames:
                                await exchange.send(frames)
                            if over:
                                return
                            await waiter.event.wait()
                except TimeoutError:
                    if not lifetime.expired():
                        raise
        except (RedisError, OSError, TimeoutError) as exc:
            if not opened:  # nothing sent yet: answer 503
                log.warning("event stream answered 503: %r", exc)
                status, more, body = self._unavailable(headers)
                exchange.respond(status, [*more, (requestid.HEADER, rid)], body)
                return
            if not exchange.gone:
                log.warning("event stream ended early (the client resumes): %s", exc)
        except Exception as exc:  # the match expired while the stream was open
            if not opened:
                raise
            log.warning("event stream ended: %r", exc, exc_info=True)
        finally:
            if beat is not None:
                beat.exchange = None  # no more heartbeats
            if opened:
                metrics.HELD_STREAMS.dec()
                exchange.end()
            self.log.done("GET", path, rid, started, status, EVENTS_ROUTE, match_id, held=True)
            with suppress(RedisError, OSError):
                await hub.close_stream(stream)


def long_poll_args(query: str) -> tuple[int, float] | None:
    """(since, wait) of a long-poll that must wait; None for anything Flask answers at once (or refuses)."""
    found = parse_qs(query)
    try:
        since, wait = int(found["since"][-1]), float(found["wait"][-1])
    except (KeyError, ValueError):
        return None
    return (since, wait) if wait > 0 else None


async def run(host: str, port: int, path: str, settings: Settings) -> None:
    with suppress(FileNotFoundError):  # a front that died left its socket
        os.unlink(path)
    pool = apps.Pool(path)
    await pool.start()
    front = Front(settings, pool)
    server = Server(front.handle, settings.max_body, settings.keep_alive, refusal)
    listener = await server.listen(host, port)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    # the supervisor's turn for us: accept no more, answer what app processes are doing, then let go of the
    # held long-polls and streams (their clients resume against the next front)
    listener.close()
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


FRONT_TRIES = 3
FRONT_QUICK = 5.0  # seconds: a front that dies sooner after its start counts as one that cannot start


class ApiProcesses:
    """The front and its app processes, as ``referee serve`` and ``referee api`` run them: forked from the
    caller, each restarted when it dies (``replace_dead``, called from the caller's loop).  The app processes
    reach the front on a Unix socket in a folder only this user may enter."""

    def __init__(self, host: str, port: int, processes: int) -> None:
        self.host, self.port = host, port
        self.dir = tempfile.mkdtemp(prefix="referee-api-")  # mode 0700
        self.path = os.path.join(self.dir, "apps.sock")
        self.parent = os.getpid()
        self.front = self._spawn(main, (host, port, self.path, self.parent), "referee-front")
        self.front_started, self.front_failures = time.monotonic(), 0
        self.apps = [self._spawn(apps.main, (self.path, self.parent, f"referee-app-{i}"), f"referee-app-{i}")
                     for i in range(processes)]

    @staticmethod
    def _spawn(target, args: tuple, name: str) -> mp.Process:
        return fork(target, args, name)

    @property
    def processes(self) -> list[mp.Process]:
        return [self.front, *self.apps]

    def replace_dead(self) -> None:
        """Restart what died; raise RuntimeError when the front dies within ``FRONT_QUICK`` seconds of each
        of ``FRONT_TRIES`` starts in a row (it cannot bind its port, say): restarting it again would not help."""
        if not self.front.is_alive():
            quick = time.monotonic() - self.front_started < FRONT_QUICK
            self.front_failures = self.front_failures + 1 if quick else 0
            if self.front_failures >= FRONT_TRIES:
                raise RuntimeError(f"the front exited {FRONT_TRIES} times at start (status {self.front.exitcode}); "
                                   "see its log above")
            log.warning("the front exited (%s); restarting it", self.front.exitcode)
            multiproc.process_dead(self.front.pid)
            self.front = self._spawn(main, (self.host, self.port, self.path, self.parent), "referee-front")
            self.front_started = time.monotonic()
        for i, proc in enumerate(self.apps):
            if not proc.is_alive():
                log.warning("%s exited (%s); restarting it", proc.name, proc.exitcode)
                multiproc.process_dead(proc.pid)
                self.apps[i] = self._spawn(apps.main, (self.path, self.parent, proc.name), proc.name)

    def stop(self, timeout: float = 10.0) -> None:
        """The front first (it drains: see ``run``), then the app processes, idle by then."""
        stop_processes([self.front], Settings.from_env().drain + timeout)
        stop_processes(self.apps, timeout)
        shutil.rmtree(self.dir, ignore_errors=True)
