"""The match store: one Redis hash and one event stream per match, committed by compare-and-set.

Its keys are named in service/core/keys.py, its Lua scripts are service/core/scripts.py.

Every write of a match is one Lua compare-and-set (``CAS``): it reads the version, and only if it is
still the one the commit read, writes the hash, the events, the expiry and the ops the commit owes
(jobs, deadlines, notes) into the match's outbox, in the match's slot.  A concurrent commit makes it
fail and the caller re-decides.  No transaction spans the store and RQ's server: the dispatcher moves
the outbox on (service/core/outbox.py).  When both are one server (not a cluster), the script writes the
deadlines, their voiding and the notes itself, where the dispatcher would have put them, and only the
jobs to enqueue now wait in the outbox.  Nothing about a match is kept in process memory between requests.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson
import redis
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import NoScriptError

from service import games
from service.adapters import redispy
from service.core.keys import (
    events_key,
    finished_key,
    idem_key,
    listing_key,
    match_key,
    reserve_key,
    state_key,
    streams_key,
    ticket_key,
)
from service.core.outbox import (
    RESERVE_REM,
    TOTAL,
    channel,
    due_jobs_key,
    due_key,
    encode,
    index_key,
    outbox_key,
    writes,
)
from service.core.scripts import (
    ASK_ANALYSIS,
    CAS,
    CONTINUE_ANALYSIS,
    IDEM_TTL,
    OPEN_STREAM,
    PAGE,
    TAKEN,
    WRITE_ANALYSIS,
    decode_page,
    page_call,
)

FIELDS = (b"game", b"status", b"version", b"state", b"meta", b"auth", b"seq", b"result", b"log")


#: matches of people or searching bots run longer than random bots' (and a table is a mean): the margin
GROWTH_MARGIN = 1.5
#: KiB kept for a game (or a player count) the table does not know
GROWTH_UNKNOWN_KIB = 64.0
#: KiB more for a match with a webhook: its delivery log (up to 200 attempts) and its notes
WEBHOOK_KIB = 32.0


def growth(game: str, players: int, webhook: bool = False) -> int:
    """Bytes the store keeps for a match admitted until it is over: what the game's package measured
    (``Plugin.store_kib``), by ``GROWTH_MARGIN``."""
    plugin = games.PLUGINS.get(game)  # looked up now: the registry loads on first use
    measured = plugin.store_kib if plugin is not None else {}
    kib = measured.get(players)
    if kib is None:  # a player count not measured: the game's largest; a game not measured: a default
        kib = max(measured.values(), default=GROWTH_UNKNOWN_KIB)
    return int((kib * GROWTH_MARGIN + (WEBHOOK_KIB if webhook else 0)) * 1024)


def compaction_log(events: list[dict], result: dict | None) -> bytes:
    """A compacted match's log as stored: its kept events and its result, compressed together (they repeat
    their keys, and the result its own words)."""
    return zlib.compress(dumps({"events": events, "result": result}), 9)


def read_log(raw: bytes) -> tuple[list[dict], dict | None]:
    log = orjson.loads(zlib.decompress(raw))
    return log["events"], log["result"]


def renew_stream_on(pipe, match_id: str, seat: int, stream_id: str, lease: float) -> None:
    """Queue on a pipeline (redis-py's or its asyncio one) the extension of a stream's lease, and of its
    key's life with it (else a stream held longer than one lease would stop counting against its
    token's limit when the key expired)."""
    key = streams_key(match_id, seat)
    pipe.zadd(key, {stream_id: time.time() + lease}, xx=True)
    pipe.expire(key, int(lease) + 1)


def dumps(value: Any) -> bytes:
    """Compact JSON; like json.dumps, a non-string key (a seat number) becomes a string."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


class Status(StrEnum):
    """A match's life: waiting for players, active, scoring (a worker computes the result), then
    finished, or aborted by its host or its clock."""

    WAITING = "waiting"
    ACTIVE = "active"
    SCORING = "scoring"
    FINISHED = "finished"
    ABORTED = "aborted"

    @property
    def over(self) -> bool:
        """Nothing will change any more: the match only waits to expire."""
        return self in (Status.FINISHED, Status.ABORTED)


#: a status as stored, to its member (a dict lookup: ``Status(...)`` costs a call on every read)
STATUS_OF = {s.value.encode(): s for s in Status}


@dataclass
class Match:
    """One match as read inside a transaction; the caller mutates it and lists new events."""

    id: str
    game: str
    status: Status
    version: int
    state: dict
    meta: dict
    auth: dict
    seq: int
    result: dict | None
    new_events: list[dict] = field(default_factory=list)
    meta_changed: bool = False
    #: ids of scheduled jobs this commit makes pointless (the timeouts of stopped turn clocks)
    void_jobs: list[str] = field(default_factory=list)
    #: a compacted match's log (service/core/compaction.py); None while its state and events are stored
    log: list[dict] | None = None

    @classmethod
    def from_raw(cls, match_id: str, raw: list) -> Match:
        game, status, version, state, meta, auth, seq, result, log = raw
        if log is not None:  # compacted: the result is kept in the log
            log, kept = read_log(log)
            result = dumps(kept) if kept is not None else None
        return cls(
            id=match_id,
            game=game.decode(),
            status=STATUS_OF[status],
            version=int(version),
            state=orjson.loads(state) if state is not None else {},
            meta=orjson.loads(meta),
            auth=orjson.loads(auth),
            seq=int(seq),
            result=orjson.loads(result) if result else None,
            log=log,
        )

    def emit(self, events: list[dict]) -> None:
        for e in events:
            self.seq += 1
            self.new_events.append({"seq": self.seq, "v": self.version + 1, **e})


class Conflict(Exception):
    """The match changed under a commit more often than the retry budget allows."""


class AlreadyAnswered(Exception):
    """The commit's idempotency key was used by an earlier commit: nothing new is applied."""


#: how often a commit re-decides on a fresh match after losing its compare-and-set, before answering busy
COMMIT_RETRIES = 50


class Store:
    def __init__(self, client: redis.Redis | RedisCluster, finished_ttl: int, abandoned_ttl: int,
                 queue: redis.Redis, pending: str, finished: str = finished_key("referee"),
                 outbox: str = "referee", rebuild: Callable[[Match], tuple[dict, list[dict]]] | None = None,
                 cache_ttl: int = 300) -> None:
        """``queue``: the server of RQ's queues and of the ``pending`` and ``finished`` sets (``client`` itself
        when shared); ``outbox``: the name of the dispatcher's index and channel (service/core/outbox.py);
        ``rebuild``: a compacted match's state and events, played again from its log (service/core/compaction.py),
        kept for reading ``cache_ttl`` seconds."""
        self.client = client
        self.queue = queue
        #: the seats to act of a match (the referee's, from its game), kept beside its state for the PAGE script
        self.to_act: Callable[[Match], list[int]] | None = None
        self.pending = pending
        self.finished = finished
        self.finished_ttl = finished_ttl
        self.abandoned_ttl = abandoned_ttl
        self.rebuild = rebuild
        self.cache_ttl = cache_ttl
        self._cas_script = client.register_script(CAS % IDEM_TTL)
        self._taken_script = client.register_script(TAKEN)
        self._open_stream_script = client.register_script(OPEN_STREAM)
        self._page_script = client.register_script(PAGE)
        self._ask_analysis_script = client.register_script(ASK_ANALYSIS)
        self._write_analysis_script = client.register_script(WRITE_ANALYSIS)
        self._continue_analysis_script = client.register_script(CONTINUE_ANALYSIS)
        self._local = threading.local()
        # once: RedisCluster is a Protocol, and isinstance against one costs microseconds on every command
        self.cluster = isinstance(client, RedisCluster)
        self.outbox = outbox
        self.channel = channel(outbox)
        self.index = None if self.cluster else index_key(outbox)
        # one server for the matches and RQ: the ops that only write global sorted sets (deadlines, their
        # voiding, notes) are written by the commit itself, and only jobs to enqueue now go through the outbox
        self.direct = not self.cluster and queue is client
        self.due, self.due_jobs = due_key(outbox), due_jobs_key(outbox)
        self.reserve = reserve_key(outbox)

    @property
    def redis(self) -> redis.Redis | RedisCluster:
        """This thread's client, holding one connection of the shared pool for the thread's life: the one
        rule for the store's commands (matches, tickets, streams, listing, ladder), whoever makes them.
        RQ's jobs go through the referee's queues (their own connection when the queue lives apart), and
        the front's waiters through its hub's asyncio clients.

        A pooled call checks a connection out and back in (with metrics) on every command, which
        costs as much CPU as the command itself; a move makes two or three.  A forked child makes
        its own (a connection must not be shared across processes).  A cluster client has a pool
        per node and is shared as it is.
        """
        if self.cluster:
            return self.client
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.client = redis.Redis(connection_pool=self.client.connection_pool, single_connection_client=True)
            local.pid = os.getpid()
        return local.client

    def call(self, *args: Any) -> Any:
        """One command of a move's path (HMGET, EVALSHA) straight on this thread's connection: these commands
        need none of redis-py's per-command machinery, which costs more than packing and parsing
        (service/adapters/redispy.py).  A failed connection falls back to the client's own command."""
        return redispy.call(self.redis, *args)

    def run(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """A registered Lua script through ``call``; the server loads it again when it has forgotten it."""
        try:
            return self.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            return script(keys=keys, args=args, client=self.redis)

    # -- reading --------------------------------------------------------------------------
    def load(self, match_id: str, replayed: bool = False) -> Match | None:
        """The match as stored; a compacted one has an empty state unless ``replayed`` (what a route that shows
        it asks for: its state and events are then played again, or read from their cache)."""
        raw = self.call("HMGET", match_key(match_id), *FIELDS)
        if raw[0] is None:
            return None
        match = Match.from_raw(match_id, raw)
        if replayed and match.log is not None:
            match.state = self._rebuilt(match)
        return match

    def _rebuilt(self, match: Match) -> dict:
        """A compacted match's state, from its cache or played again (its events cached with it)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.get(state_key(match.id))
        pipe.exists(events_key(match.id))
        cached, has_events = pipe.execute()
        if cached is not None and has_events:
            return orjson.loads(cached)
        return self.refill(match)

    def refill(self, match: Match) -> dict:
        """Play a compacted match again from its log and keep its state and events for ``cache_ttl``: the
        routes then read them as those of any match.  Written whole in one transaction, so two requests
        refilling at once write the same thing."""
        if self.rebuild is None:
            raise RuntimeError("this store cannot play compacted matches again")
        state, events = self.rebuild(match)
        pipe = self.redis.pipeline(transaction=True)
        pipe.delete(events_key(match.id))
        for e in events:
            pipe.xadd(events_key(match.id), {"e": dumps(e)}, id=f"0-{e['seq']}")
        pipe.expire(events_key(match.id), self.cache_ttl)
        pipe.set(state_key(match.id), dumps(state), ex=self.cache_ttl)
        pipe.execute()
        return state

    def _ensure_events(self, match_id: str) -> None:
        """Refill a compacted match's events for reading if they are not kept."""
        match = self.load(match_id)
        if match is not None and match.log is not None and not self.redis.exists(events_key(match_id)):
            self.refill(match)

    def events(self, match_id: str, after: int, count: int = 1000) -> list[dict]:
        entries = self.redis.xrange(events_key(match_id), f"0-{after + 1}", "+", count=count)
        if not entries and self.redis.hexists(match_key(match_id), "log"):
            self._ensure_events(match_id)
            entries = self.redis.xrange(events_key(match_id), f"0-{after + 1}", "+", count=count)
        return [orjson.loads(fields[b"e"]) for _, fields in entries]

    def page(self, match_id: str, after: int, count: int,
             state: bool | int = False) -> tuple[list, list[dict]] | None:
        """([status, version] or, with ``state``, [status, version, game, state] as stored (for a seat as
        ``state``, [status, version, game] while it is not to act), the events past ``after``), read together;
        None for an unknown match.  The head is read before the events,
        so a waiter that has seen this version misses nothing.  A compacted match's events are played
        again first when they are not kept."""
        found = self.run(self._page_script, *page_call(match_id, after, count, state))
        if found is not None and len(found) > 2:
            self._ensure_events(match_id)
            found = self.run(self._page_script, *page_call(match_id, after, count, state))
        return decode_page(found)

    # -- stream tickets and open streams -------------------------------------------------------
    def issue_ticket(self, match_id: str, seat: int, ttl: int) -> str:
        ticket = secrets.token_urlsafe(24)
        self.redis.set(ticket_key(match_id, ticket), seat, ex=ttl)
        return ticket

    def ticket_seat(self, match_id: str, ticket: str) -> int | None:
        seat = self.redis.get(ticket_key(match_id, ticket))
        return None if seat is None else int(seat)

    def open_stream(self, match_id: str, seat: int, stream_id: str, limit: int, lease: float) -> bool:
        now = time.time()
        return bool(self._open_stream_script(keys=[streams_key(match_id, seat)],
                                             args=[now, limit, now + lease, stream_id, int(lease) + 1],
                                             client=self.redis))

    def renew_stream(self, match_id: str, seat: int, stream_id: str, lease: float) -> None:
        pipe = self.redis.pipeline(transaction=False)
        renew_stream_on(pipe, match_id, seat, stream_id, lease)
        pipe.execute()

    def close_stream(self, match_id: str, seat: int, stream_id: str) -> None:
        self.redis.zrem(streams_key(match_id, seat), stream_id)

    def listing_page(self, game: str | None, before: tuple[int, str] | None, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` listed (id, created) newest first, strictly after the cursor ``before``.

        Ties on the creation time are ordered by id, as ZREVRANGE orders them.
        """
        key = listing_key(game)
        if before is None:
            raw = self.redis.zrevrange(key, 0, count - 1, withscores=True)
        else:
            score, last = before
            ties = [(m, s) for m, s in self.redis.zrangebyscore(key, score, score, withscores=True)
                    if m.decode() < last]
            ties.sort(reverse=True)
            raw = ties[:count] + self.redis.zrevrangebyscore(key, f"({score}", "-inf", start=0,
                                                              num=max(count - len(ties), 0), withscores=True)
        return [(m.decode(), int(s)) for m, s in raw][:count]

    def summaries(self, match_ids: list[str]) -> list[dict | None]:
        """Game, status, version and metadata of each match (None for one that expired), in one round trip."""
        pipe = self.redis.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hmget(match_key(match_id), (b"game", b"status", b"version", b"meta"))
        out: list[dict | None] = []
        for game, status, version, meta in pipe.execute():
            out.append(None if game is None else {"game": game.decode(), "status": status.decode(),
                                                  "version": int(version), "meta": orjson.loads(meta)})
        return out

    def unlist(self, match_ids: list[str], games: list[str]) -> None:
        if not match_ids:
            return
        pipe = self.redis.pipeline(transaction=False)
        for key in [listing_key()] + [listing_key(g) for g in games]:
            pipe.zrem(key, *match_ids)
        pipe.execute()

    def memory(self) -> tuple[int, int]:
        """(used, maxmemory) in bytes of the fullest server of the store (by share of its bound); a
        maxmemory of 0 is a server without a bound."""
        if self.cluster:
            nodes = list(self.client.info("memory", target_nodes=RedisCluster.PRIMARIES).values())
        else:
            nodes = [self.redis.info("memory")]
        return max(((n["used_memory"], n["maxmemory"]) for n in nodes),
                   key=lambda used_max: used_max[0] / used_max[1] if used_max[1] else 0.0)

    def reserved(self) -> int:
        """Bytes kept for the admitted matches not yet over: the reserve's total, kept with each change of it
        (``outbox.RESERVE_ADD``, ``RESERVE_REM``)."""
        return max(0, int(self.queue.zscore(self.reserve, TOTAL) or 0))

    def drop_replay_caches(self, count: int = 1000) -> int:
        """Delete up to ``count`` of the caches that readings of compacted matches left (their state and events
        played again, service/core/compaction.py): the sweeper's valve while the store is full, since that cache is
        not in the reserve.  A reading after it plays the match again.  Returns how many were dropped."""
        if self.cluster:
            keys = self.client.scan_iter(match="ref:{m:*}:state", count=count, target_nodes=RedisCluster.PRIMARIES)
        else:
            keys = self.redis.scan_iter(match="ref:{m:*}:state", count=count)
        dropped = 0
        for key in itertools.islice(keys, count):
            match_id = key.decode()[len("ref:{m:"):-len("}:state")]
            if self.redis.hexists(match_key(match_id), "log"):  # (a match's own events go only with its compaction)
                self.redis.delete(state_key(match_id), events_key(match_id))  # (one slot: the match's)
                dropped += 1
        return dropped

    def prune_reserve(self, count: int = 500) -> int:
        """Release the room of the matches that expired before they were over (an abandoned match's keys go
        with its TTL, and no commit says it is over): a scan of ``count`` members a call, from a cursor kept
        here.  Returns how many."""
        cursor = getattr(self, "_prune_cursor", 0)
        cursor, found = self.queue.zscan(self.reserve, cursor, count=count)
        self._prune_cursor = cursor
        ids = [member.decode() for member, _ in found if member != TOTAL.encode()]
        if not ids:
            return 0
        read = self.redis.pipeline(transaction=False)
        for match_id in ids:
            read.exists(match_key(match_id))
        gone = [m for m, alive in zip(ids, read.execute(), strict=True) if not alive]
        for match_id in gone:
            self.queue.eval(RESERVE_REM, 1, self.reserve, match_id)
        return len(gone)

    def finished_since(self, since: float, offset: int = 0, count: int = 500) -> list[tuple[str, float]]:
        """(id, finished at) of the kept finished matches from ``since`` on, oldest first, from ``offset``."""
        raw = self.queue.zrangebyscore(self.finished, since, "+inf", withscores=True, start=offset, num=count)
        return [(m.decode(), score) for m, score in raw]

    def idempotent_answer(self, match_id: str, seat: str, key: str) -> dict | None:
        raw = self.redis.get(idem_key(match_id, seat, key))
        return orjson.loads(raw) if raw else None

    # -- a finished match's analysis (service/core/analyses.py) ----------------------------------
    def ask_analysis(self, match_id: str, progress: dict, ops: dict[str, dict],
                     lost: dict | None = None) -> tuple[int, Any]:
        """Note a finished match's analysis as asked for, with the ops its job owes, unless it was asked before
        and is not ``lost`` (the progress of one whose job is gone: ``ASK_ANALYSIS``): (0, None) unknown match,
        (1, status) not finished, (2, progress kept), (3, progress)."""
        keys = [match_key(match_id), outbox_key(match_id, self.outbox)] + ([self.index] if self.index else [])
        found = self.run(self._ask_analysis_script, keys,
                         [dumps(progress), time.time(), self.channel, match_id, dumps(lost) if lost else "",
                          *encode(ops)])
        code = int(found[0])
        if code == 1:
            return code, found[1].decode()
        return code, orjson.loads(found[1]) if code else None

    def write_analysis(self, match_id: str, progress: dict, result: dict | None = None) -> bool:
        """An analysis's progress, and its result once done (compressed: it repeats its keys); False when the
        match has expired meanwhile (nothing is written)."""
        blob = zlib.compress(dumps(result), 9) if result is not None else b""
        return bool(self.run(self._write_analysis_script, [match_key(match_id)], [dumps(progress), blob]))

    def continue_analysis(self, match_id: str, progress: dict, judged: list[dict], ops: dict[str, dict]) -> bool:
        """Keep an analysis's decisions judged so far with its progress, and owe the job that goes on from there
        (``CONTINUE_ANALYSIS``); False when the match has expired meanwhile."""
        keys = [match_key(match_id), outbox_key(match_id, self.outbox)] + ([self.index] if self.index else [])
        return bool(self.run(self._continue_analysis_script, keys,
                             [dumps(progress), zlib.compress(dumps(judged), 9), time.time(), self.channel, match_id,
                              *encode(ops)]))

    def analysis_judged(self, match_id: str) -> list[dict]:
        """The decisions an analysis has judged so far, kept when its job gave its worker up (none otherwise)."""
        blob = self.call("HGET", match_key(match_id), "analysing")
        return orjson.loads(zlib.decompress(blob)) if blob else []

    def analysis(self, match_id: str) -> tuple[Status | None, dict | None, dict | None]:
        """(the match's status, the progress of its analysis, its result): None where there is none."""
        status, progress, blob = self.call("HMGET", match_key(match_id), "status", "analysis", "analysed")
        return (STATUS_OF.get(status), orjson.loads(progress) if progress else None,
                orjson.loads(zlib.decompress(blob)) if blob else None)

    # -- writing --------------------------------------------------------------------------
    def create(self, match: Match, ops: dict[str, dict] | None = None, listed: bool = True) -> None:
        """Write a new match (with what it owes); a listed one then joins the listing (outside the match's
        slot: global keys, eventually consistent)."""
        if not self._cas(match, ops or {}, None, new=True):
            raise Conflict(match.id)
        if listed:
            created = {match.id: int(match.meta["created"] * 1_000_000)}
            pipe = self.redis.pipeline(transaction=False)
            pipe.zadd(listing_key(), created)
            pipe.zadd(listing_key(match.game), created)
            pipe.execute()

    def commit(
        self,
        match_id: str,
        decide: Callable[[Match], Any],
        owed: Callable[[Match], dict[str, dict]] | None = None,
        retries: int = COMMIT_RETRIES,
    ) -> tuple[Match, Any]:
        """Run ``decide`` on the current match and ``write`` its changes; on a concurrent change run it
        again on the fresh match.  ``decide`` mutates the match and emits events (raising, or emitting
        nothing, writes nothing); ``owed`` gives, for the changed match, the outbox ops it owes.
        Returns (match, decide's value).  A move has its own loop of the same shape (``Referee.apply_move``).
        """
        for _ in range(retries):
            match = self.load(match_id)
            if match is None:
                raise LookupError(match_id)
            outcome = decide(match)
            if not match.new_events:  # every change writes an event: none means no change
                return match, outcome
            if self.write(match, owed(match) if owed else None):
                return match, outcome
        raise Conflict(match_id)

    def write(self, match: Match, ops: dict[str, dict] | None = None, idem: tuple[str, str] | None = None) -> bool:
        """Write a changed match as one compare-and-set on the version it was read at, with the outbox ops it
        owes and an idempotency (key, answer) to keep; False when another commit came first (nothing
        written).  Raises ``AlreadyAnswered`` when the key is already kept.  On success the match's version is
        the new one."""
        done = self._cas(match, ops or {}, idem)
        if done:
            match.version += 1
        return done

    def compact(self, match: Match, log: bytes) -> bool:
        """Keep of a finished match only what cannot be recomputed (service/core/compaction.py): the events and
        the state go, the log of what the referee decided stays.  The version stays (nothing happened)."""
        return self._cas(match, {}, None, fields={"log": log}, deleted=["state", "result"], flags="Dk")

    def _cas(self, match: Match, ops: dict[str, dict], idem: tuple[str, str] | None, new: bool = False,
             fields: dict | None = None, deleted: list[str] | None = None, flags: str = "") -> bool:
        if fields is None:
            fields = self._fields(match, full=new or match.meta_changed, version=match.version + (not new))
        deleted = deleted or []
        direct: list[Any] = []
        if self.direct and ops:
            ops, direct = self.direct_ops(ops)
        keys = [match_key(match.id), events_key(match.id), outbox_key(match.id, self.outbox)]
        if idem:
            keys.append(idem[0])
            flags += "i"
        if self.index is not None and ops:
            keys.append(self.index)
            flags += "x"
        keys += sorted({direct[k] for k in range(1, len(direct), 4)})  # declared, as a script's keys should be
        if match.log is not None:
            flags += "c"
        # the notice of the commit carries its status, seats to act and events: a held stream of a seat that is
        # not to act sends its frames from it, without reading the match again (service/serving/hub.py)
        notice = b""
        if "status" in fields and "to_act" in fields:  # the game and the state: the legal moves of a seat to act
            notice = b"%s\n%s\n%s\n%s" % (fields["status"].encode(), fields["to_act"].encode(), match.game.encode(),
                                           fields["state"])
        args: list[Any] = ["" if new else match.version, self._ttl(match), flags, idem[1] if idem else "",
                           time.time(), self.channel, match.id, notice, len(fields)]
        for k, v in fields.items():
            args += [k, v]
        args += [len(deleted), *deleted, len(match.new_events)]
        for e in match.new_events:
            args += [f"0-{e['seq']}", dumps(e)]
        args.append(len(ops))
        args += encode(ops)
        args.append(len(direct) // 4)
        args += direct
        done = self.run(self._cas_script, keys, args)
        if done == 2:
            raise AlreadyAnswered(idem[0] if idem else "")
        return bool(done)

    def direct_ops(self, ops: dict[str, dict]) -> tuple[dict[str, dict], list[Any]]:
        """Split a commit's ops into those for the outbox (jobs to enqueue now: RQ's enqueuing is the
        dispatcher's) and the script's own commands for the rest (command, key, a, b each: ``outbox.writes``,
        what the dispatcher would write: a deadline into the due set, a voided one out of it, a note)."""
        kept: dict[str, dict] = {}
        direct: list[Any] = []
        for op_id, op in ops.items():
            found = writes(op, self.due, self.due_jobs)
            if found is None:
                kept[op_id] = op
            for command in found or ():
                direct += command
        return kept, direct

    def taken(self, match_id: str, op_ids: list[bytes], pipe=None) -> None:
        """Delete the ops of a match's outbox that were dispatched (``TAKEN``), on ``pipe`` when given (the
        dispatcher's transaction on a shared server)."""
        keys = [outbox_key(match_id, self.outbox)] + ([self.index] if self.index is not None else [])
        if pipe is None:
            self.run(self._taken_script, keys, [match_id, *op_ids])
        else:
            self._taken_script(keys=keys, args=[match_id, *op_ids], client=pipe)

    def _fields(self, match: Match, full: bool, version: int) -> dict:
        fields: dict[str, Any] = {"status": match.status, "version": version, "seq": match.seq}
        if match.log is None:
            fields["state"] = dumps(match.state)
            if self.to_act is not None:  # for the PAGE script: ",0,2," (the seats to act), "," (none)
                fields["to_act"] = "," + "".join(f"{s}," for s in self.to_act(match))
            if match.result is not None:
                fields["result"] = dumps(match.result)
        else:  # a compacted match (a rematch after it): its log grows by what the referee decided now
            fields["log"] = compaction_log(match.log + match.new_events, match.result)
        if full:
            fields.update(game=match.game, meta=dumps(match.meta), auth=dumps(match.auth))
        return fields

    def _ttl(self, match: Match) -> int:
        return self.finished_ttl if match.status.over else self.abandoned_ttl
