"""The front's watch on commits: every held long-poll and event stream waits here for its match's next commit.

Every commit publishes on ``ref:{m:<id>}:notify``; the :class:`Hub`'s one pub/sub connection wakes the
:class:`Waiter` of each held request of that match, and :class:`Beats` sends every open stream its heartbeat and
renews the leases of the seats' streams.  So a waiting person holds no process, thread or Redis connection.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import heapq
import itertools
import logging
import math
import random
import re
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from service.api import sse
from service.core.keys import match_key, notify_channel, streams_key
from service.core.scripts import PAGE
from service.core.views import Stream

if TYPE_CHECKING:
    from service.serving.outlet import Outlet

log = logging.getLogger("referee.front")

CHANNEL = re.compile(rb"^ref:\{m:(.*)\}:notify$")
HUB_CHANNEL = "ref:hub"  # nothing is published here; it keeps the pub/sub link subscribed


@dataclass(eq=False, slots=True)
class Notice:
    """One commit as its notice told it (service/core/store.py ``CAS``): its version, the match's status after it, the
    seats to act (",0,2,"), its game, its state (kept for the newest notice of a match only) and its events as
    stored."""

    version: int
    status: bytes
    to_act: bytes
    game: bytes
    state: bytes | None
    events: list[bytes]


def read_notice(data: bytes) -> tuple[int, Notice | None]:
    """The version of a notice, and the notice itself when it carries the commit (a plain version does not)."""
    parts = data.split(b"\n")
    version = int(parts[0])
    if len(parts) < 5:
        return version, None
    return version, Notice(version, parts[1], parts[2], parts[3], parts[4], parts[5:])


@dataclass(eq=False)
class Waiter:
    """One held request: woken when its match passes the version it has seen."""

    seen: float
    event: asyncio.Event = field(default_factory=asyncio.Event)  # shared by the waiters of one stream of several
    gone: bool = False  # the client hung up
    moved: bool = False  # its match passed ``seen`` since it was last read

    def wake(self, version: float) -> None:
        if version > self.seen:
            self.moved = True
            self.event.set()


@dataclass(eq=False, slots=True)
class Beat:
    """An open stream (one connection, one match's events or several) as the front's :class:`Beats` see it; the
    stream drops its outlet when it ends."""

    outlet: Outlet | None
    waiter: Waiter
    streams: list[Stream]


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

    def add(self, outlet: Outlet, waiter: Waiter, streams: list[Stream]) -> Beat:
        """Beat for a stream until it drops its outlet (or a heartbeat fails).  The first beat falls at a
        random point of the interval: streams opened together (a crowd arriving, every client reconnecting
        after a restart) then beat at spread times, not in one burst."""
        beat = Beat(outlet, waiter, streams)
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
                if beat.outlet is not None:
                    beating.append(beat)
            for beat in beating:
                # not awaited in turn: a client that stopped reading holds up only its own heartbeat, and
                # gets no other while that one waits
                if beat.outlet.writing is None:
                    sent = asyncio.ensure_future(beat.outlet.write(sse.HEARTBEAT))
                    sent.add_done_callback(functools.partial(self._sent, beat.waiter))
                heapq.heappush(self.due, (now + self.heartbeat, next(self.order), beat))
            seats = [stream for beat in beating for stream in beat.streams if stream.holder is not None]
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
        #: the last notices of each watched match, oldest first: a stream that missed none of them since it last
        #: read sends from them (``since``)
        self.recent: dict[str, collections.deque[Notice]] = {}
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
    async def watch(self, match_id: str, seen: float, event: asyncio.Event | None = None):
        waiter = Waiter(seen, event or asyncio.Event(), gone=self.released)
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

    KEPT = 32  # notices kept per watched match

    def since(self, match_id: str, version: int, after: int) -> list[Notice] | None:
        """The notices of the commits after ``version`` when none is missing and their events start right after
        event ``after``; None when a read must tell (a notice lost, or older than those kept)."""
        recent = self.recent.get(match_id)
        if not recent or recent[-1].version <= version:
            return None
        out = [n for n in recent if n.version > version]
        if out[0].version != version + 1 or any(b.version != a.version + 1 for a, b in zip(out, out[1:])):
            return None
        return out

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
                self.recent.clear()  # notices may have been lost: every stream reads again
                await asyncio.sleep(min(1.0, self.heartbeat))
                continue
            if msg is None:
                continue
            if msg["type"] == "message":
                found = CHANNEL.match(msg["channel"])
                if found:
                    match_id = found.group(1).decode()
                    version, notice = read_notice(msg["data"])
                    if notice is not None and match_id in self.waiters:
                        recent = self.recent.get(match_id)
                        if recent is None:
                            recent = self.recent[match_id] = collections.deque(maxlen=self.KEPT)
                        if recent:
                            recent[-1].state = None  # only the newest state is of use: a match's memory stays small
                        recent.append(notice)
                    self._wake(match_id, version)
            elif msg["type"] == "subscribe" and msg["channel"] in self.subscribed:
                self.subscribed[msg["channel"]].set()

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            try:
                idle = [c for c in self.subscribed if CHANNEL.match(c).group(1).decode() not in self.waiters]
                for channel in idle:
                    del self.subscribed[channel]
                    self.recent.pop(CHANNEL.match(channel).group(1).decode(), None)
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
