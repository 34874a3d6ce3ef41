"""The front that ``referee serve`` runs under granian: waiting requests wait on an event loop, the rest is Flask.

Flask stays the application: every route, schema, error, header (CORS included) and the OpenAPI
document live there.  This front recognises the two waiting variants of its routes,

- a long-poll, ``GET /matches/{id}?since=V&wait=S`` with S > 0, and
- an event stream, ``GET /matches/{id}/events`` with ``Accept: text/event-stream``,

asks Flask once for them (validation, tokens, tickets, errors: the same code as any request),
then holds them on the event loop, not on a thread, until the match's next commit: every commit
publishes on ``ref:{m:<id>}:notify`` and the process's one :class:`Hub` connection wakes the
waiters of that match.  Every other request runs Flask right in the event loop.

Why RSGI (granian's own interface) and Flask in the loop: a request's Redis round trips are
sub-millisecond, and handing each request to a thread pool and back cost more CPU (GIL handoffs,
wake-ups) than those round trips stall the loop; RSGI answers with one call where ASGI needs a
receive and two sends, each waking granian's runtime.  Measured figures are in the README.  Other
servers serve the plain Flask app (``service.app:create_app``), where a wait holds a thread.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import heapq
import io
import itertools
import logging
import math
import random
import re
import sys
from collections.abc import Coroutine
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import orjson
import redis.asyncio as aioredis
from flask import Flask
from granian.rsgi import ProtocolClosed
from redis.exceptions import RedisError

from service.api import HELD, PROBLEM_JSON, STREAM, sse
from service.app import create_app as create_flask_app
from service.config import Settings
from service.problems import Problem
from service.referee import Stream
from service.store import PAGE, match_key, notify_channel

log = logging.getLogger("referee.front")

LONG_POLL = re.compile(r"^/matches/([^/]+)$")
EVENTS = re.compile(r"^/matches/([^/]+)/events$")
CHANNEL = re.compile(rb"^ref:\{m:(.*)\}:notify$")
FULL_COLLECTION_EVERY = 100  # collections of the middle generation per full one (CPython's default: 10)
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
    """An open stream as its process's :class:`Beats` see it.  The stream drops its transport when it ends:
    granian ends a streamed answer only once nothing holds its transport."""

    transport: object | None
    waiter: Waiter
    stream: Stream


class Beats:
    """A process's heartbeats: one task sends every open stream its comment line each heartbeat, and renews
    the leases of the seats' streams among them in one pipeline.

    A stream's own task then only waits for commits.  When each stream armed a timer of its own every
    heartbeat, 10,000 idle streams cost the four API processes about 9 % of a core, and their timers,
    young when the collector looked, made its passes walk them while requests waited.
    """

    def __init__(self, heartbeat: float, redis) -> None:
        self.heartbeat = heartbeat
        # a heartbeat may come this much late; short ticks send few at a time (10,000 streams: ~70 per tick
        # per process), so requests between them do not wait behind a burst
        self.tick = min(0.1, heartbeat / 10)
        self.redis = redis
        self.due: list[tuple[float, int, Beat]] = []  # a heap: (when, order, beat)
        self.order = itertools.count()
        self.task: asyncio.Task | None = None

    def add(self, transport, waiter: Waiter, stream: Stream) -> Beat:
        """Beat for a stream until it drops its transport (or a heartbeat fails).  The first beat falls at a
        random point of the interval: streams opened together (a crowd arriving, every client reconnecting
        after a restart) then beat at spread times, not in one burst."""
        beat = Beat(transport, waiter, stream)
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
                if beat.transport is not None:
                    beating.append(beat)
            for beat in beating:
                try:  # not awaited in turn: a client that stopped reading holds up only its own heartbeat
                    sent = asyncio.ensure_future(beat.transport.send_bytes(sse.HEARTBEAT))
                except Exception:  # refused at once (closed under it): that stream ends, the others beat on
                    self._end(beat.waiter)
                    continue
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
    """A process's watch on commits: one pub/sub connection, SUBSCRIBEd to the matches that have waiters.

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

    @asynccontextmanager
    async def watch(self, match_id: str, seen: float):
        waiter = Waiter(seen)
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
        (and the requests it runs) while Redis answers."""
        async with self.reads:
            return await self.page_script(keys=keys, args=args)

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


def wsgi_environ(scope, body: bytes) -> dict:
    """The WSGI environ of an RSGI request (``scope.path`` is already percent-decoded)."""
    host, _, port = scope.server.rpartition(":")
    remote, _, remote_port = scope.client.rpartition(":")
    env = {
        "REQUEST_METHOD": scope.method,
        "SCRIPT_NAME": "",
        "PATH_INFO": scope.path.encode().decode("latin-1"),
        "QUERY_STRING": scope.query_string,
        "SERVER_NAME": host or "localhost",
        "SERVER_PORT": port or "80",
        "SERVER_PROTOCOL": f"HTTP/{scope.http_version}",
        "REMOTE_ADDR": remote,
        "REMOTE_PORT": remote_port,
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.scheme,
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    for raw_name, value in scope.headers.items():
        name = raw_name.upper().replace("-", "_")
        if name not in ("CONTENT_TYPE", "CONTENT_LENGTH"):
            name = "HTTP_" + name
        env[name] = f"{env[name]},{value}" if name in env else value
    env["wsgi.input_terminated"] = True  # the body is read whole (werkzeug reads a chunked one only then)
    return env


def call_wsgi(app: Flask, env: dict) -> tuple[int, Headers, bytes]:
    started: list = []
    result = app(env, lambda status, headers, exc_info=None: started.extend((status, headers)))
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    status, headers = started[-2:]
    return int(status[:3]), headers, body


def cors_headers(headers: Headers) -> Headers:
    return [(k, v) for k, v in headers if k.lower().startswith("access-control-") or k.lower() == "vary"]


class Front:
    """The RSGI application (see the module's docstring)."""

    def __init__(self, app: Flask, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.referee = app.extensions["referee"]
        self.hub: Hub | None = None  # made on the event loop, at the first wait

    async def __rsgi__(self, scope, proto) -> None:
        if scope.proto != "http":
            return
        try:
            held = await self._http(scope, proto)
            if held is not None:  # awaited here, so that nothing of _http's stays alive while it waits
                await held
        except Exception:
            # a defect of the front itself: logged with its traceback, answered as the API's own 500
            # (granian refuses a second answer when one has started: that error is ignored)
            log.exception("%s %s failed", scope.method, scope.path)
            problem = Problem("internal", "Internal error; it has been logged.")
            with suppress(Exception):
                proto.response_bytes(problem.status, [("content-type", PROBLEM_JSON)],
                                     orjson.dumps(problem.as_dict()))

    async def _http(self, scope, proto) -> Coroutine | None:
        """Answer the request, or return the coroutine that holds it (a long-poll, an event stream)."""
        body = await self._body(scope, proto)
        env = wsgi_environ(scope, body)
        if len(body) > self.settings.max_body:  # cut short (a chunked one has no length): Flask refuses it, 413
            env.pop("HTTP_TRANSFER_ENCODING", None)
            env["CONTENT_LENGTH"] = str(len(body))
        if scope.method == "GET":
            if EVENTS.match(scope.path) and "text/event-stream" in env.get("HTTP_ACCEPT", ""):
                return self._stream(env, proto)
            if (found := LONG_POLL.match(scope.path)) and (poll := self._long_poll_args(env)):
                return self._long_poll(env, proto, found.group(1), *poll)
        proto.response_bytes(*call_wsgi(self.app, env))
        return None

    async def _body(self, scope, proto) -> bytes:
        """The request body, read whole in one call when its length is declared and accepted; a longer one is
        not read (Flask answers 413 from its length); a chunked one is read up to just past the limit."""
        length, limit = scope.headers.get("content-length"), self.settings.max_body
        if length is not None and length.isdigit():
            return await proto() if 0 < int(length) <= limit else b""
        if "transfer-encoding" not in scope.headers:
            return b""
        chunks, size = [], 0
        async for chunk in proto:
            size += len(chunk)
            chunks.append(chunk)
            if size > limit:
                break
        return b"".join(chunks)

    def _hub(self) -> Hub:
        if self.hub is None:
            s = self.settings
            self.hub = Hub(s.redis_url, s.heartbeat, s.redis_timeout, s.redis_cluster)
        return self.hub

    @staticmethod
    def _unavailable(proto, headers: Headers) -> None:
        problem = Problem("redis_unavailable", "The store is unreachable; retry shortly.", retry_after=1)
        proto.response_bytes(problem.status, [("content-type", PROBLEM_JSON), ("retry-after", "1"),
                                              *cors_headers(headers)], orjson.dumps(problem.as_dict()))

    # -- long-poll --------------------------------------------------------------------------
    @staticmethod
    def _long_poll_args(env: dict) -> tuple[int, float] | None:
        """(since, wait) of a long-poll that must wait; None for anything Flask answers at once (or refuses)."""
        query = parse_qs(env["QUERY_STRING"])
        try:
            since, wait = int(query["since"][-1]), float(query["wait"][-1])
        except (KeyError, ValueError):
            return None
        return (since, wait) if wait > 0 else None

    async def _long_poll(self, env: dict, proto, match_id: str, since: int, wait: float) -> None:
        """Flask answers once; while the match stays at or below ``since`` that answer stays true, so
        the re-checks only read the version (no view is built) and Flask answers again once it moved."""
        env[HELD] = True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(wait, self.settings.max_wait)  # Flask refuses a wait out of range
        answer = call_wsgi(self.app, env)
        if answer[0] == 200 and orjson.loads(answer[2])["version"] <= since:
            try:
                hub = self._hub()
                async with hub.watch(match_id, since) as waiter:  # subscribed, then re-check
                    while True:
                        waiter.event.clear()  # before the re-check: a commit during the read sets it again
                        if await hub.version(match_id) > since:
                            env["wsgi.input"].seek(0)
                            answer = call_wsgi(self.app, env)
                            break
                        left = deadline - loop.time()
                        if left <= 0:
                            break
                        with suppress(TimeoutError):
                            async with asyncio.timeout(left):
                                await waiter.event.wait()
            except (RedisError, OSError, TimeoutError) as exc:
                log.warning("long-poll answered 503: %r", exc)
                return self._unavailable(proto, answer[1])
        proto.response_bytes(*answer)

    # -- event stream -----------------------------------------------------------------------
    async def _stream(self, env: dict, proto) -> None:
        front: dict = {}
        env[STREAM] = front
        status, headers, body = call_wsgi(self.app, env)
        if status != 200 or "stream" not in front:
            return proto.response_bytes(status, headers, body)
        # a stream may be held for hours, 10,000 at a time: it keeps its CORS headers, not the WSGI environ and
        # Flask's answer (fewer objects for every full pass of the collector to walk)
        del env, body
        headers = cors_headers(headers)
        stream, after = front["stream"], front["after"]
        deadline = asyncio.get_running_loop().time() + front["seconds"]
        transport = hang_up = beat = None
        hub = self._hub()
        try:
            async with hub.watch(stream.match_id, -1) as waiter:
                transport = proto.response_stream(200, [
                    ("content-type", "text/event-stream; charset=utf-8"), *sse.HEADERS.items(), *headers])
                hang_up = asyncio.ensure_future(self._hang_up(proto, waiter))
                await transport.send_bytes(sse.RETRY)
                beat = hub.beats.add(transport, waiter, stream)
                try:
                    async with asyncio.timeout_at(deadline) as lifetime:  # one timer for the stream's life
                        while not waiter.gone:  # a commit, a hang-up (or a failed heartbeat) wakes it
                            waiter.event.clear()
                            frames, after, waiter.seen, over = await sse.catch_up_async(hub.page, stream, after)
                            if frames:
                                await transport.send_bytes(frames)
                            if over:
                                return
                            await waiter.event.wait()
                except TimeoutError:
                    if not lifetime.expired():
                        raise
        except (RedisError, OSError, TimeoutError) as exc:
            if transport is None:  # nothing sent yet: answer 503
                log.warning("event stream answered 503: %r", exc)
                return self._unavailable(proto, headers)
            log.warning("event stream ended early (the client resumes): %s", exc)
        except ProtocolClosed:  # the client hung up while a frame or heartbeat was on its way: the usual end
            log.debug("event stream of %s closed by its client", stream.match_id)
        except Exception as exc:  # the match expired while the stream was open
            if transport is None:
                raise
            log.warning("event stream ended: %r", exc, exc_info=True)
        finally:
            if hang_up is not None:
                hang_up.cancel()
            if beat is not None:
                beat.transport = None  # no more heartbeats, and granian may end the answer
            with suppress(Exception):
                stream.close()

    @staticmethod
    async def _hang_up(proto, waiter: Waiter) -> None:
        await proto.client_disconnect()
        waiter.gone = True
        waiter.event.set()


def create_app() -> Front:
    """The RSGI application (``granian --interface rsgi --factory service.front:create_app``)."""
    settings = Settings.from_env()
    front = Front(create_flask_app(settings), settings)
    # what is made at start (Flask, the schemas, the games: ~95,000 objects) lives as long as the process:
    # out of the collector's reach, a full collection no longer walks it while requests wait (45-50 ms
    # each before, every 10-20 s under load)
    gc.collect()
    gc.freeze()
    # a full collection walks every held request (10,000 streams: ~130,000 objects per process, 65-190 ms with
    # the loop stopped) and finds next to nothing to free (6-180 objects, logged under load): it waits for 100
    # collections of the middle generation instead of 10 (README, "Thousands of watchers")
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    return front
