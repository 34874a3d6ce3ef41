"""The match store: one Redis hash and one event stream per match, committed by compare-and-set.

Keys carry the hash tag ``{m:<id>}`` so a match lives in one Redis Cluster slot:

- ``ref:{m:<id>}``        hash: game, status, version, state, meta, auth, to_act, seq, result
- ``ref:{m:<id>}:events`` stream; entry ``0-<seq>`` holds one event (``to``, ``type``, ``data``, ``v``)
- ``ref:{m:<id>}:idem:<seat>:<key>`` the first answer to a move sent with an Idempotency-Key, and a
  digest of that request
- ``ref:listing`` and ``ref:listing:<game>`` zsets of the listed matches, scored by creation time (µs);
  global keys written with single-key commands outside any match's transaction (Redis Cluster
  puts them in slots of their own), so the listing is eventually consistent: a reader re-checks
  each match and drops the ones that expired
- ``ref:{m:<id>}:ticket:<ticket>`` a stream ticket: the seat it opens, until it expires
- ``ref:{m:<id>}:streams:<seat>`` zset of the seat's open event streams, scored by lease end
- channel ``ref:{m:<id>}:notify``: every commit publishes the new version there (waiters wake)

A commit reads the hash, decides, then writes the hash, the events and the expiry only if the
version is still the one it read: a Lua compare-and-set, or WATCH/MULTI/EXEC when an RQ job
must commit in the same transaction.  A concurrent commit makes it fail and the caller re-decides.
Nothing about a match is kept in process memory between requests.

When RQ's queue lives on another server (always so when the store is a Redis Cluster), no
transaction spans both: a commit that owes a job first notes the match in the queue server's
pending set, then compare-and-sets, then enqueues.  A crash between the last two leaves the
note, and the sweeper enqueues the job it finds missing.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import orjson
import redis
from hiredis import pack_command
from redis.client import Pipeline
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import NoScriptError

log = logging.getLogger("referee.store")
FIELDS = (b"game", b"status", b"version", b"state", b"meta", b"auth", b"seq", b"result")


def pending_key(queue: str) -> str:
    """zset of the matches that owe a job (bot turn or scoring) on ``queue``, scored by time."""
    return f"ref:pending:{queue}"


def finished_key(queue: str) -> str:
    """zset of the finished matches kept, scored by the time they finished (``referee export --finished``)."""
    return f"ref:finished:{queue}"


def match_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}"


def events_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:events"


def idem_key(match_id: str, seat: str, key: str) -> str:
    return f"ref:{{m:{match_id}}}:idem:{seat}:{key}"


def listing_key(game: str | None = None) -> str:
    return "ref:listing" if game is None else f"ref:listing:{game}"


def notify_channel(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:notify"


def ticket_key(match_id: str, ticket: str) -> str:
    return f"ref:{{m:{match_id}}}:ticket:{ticket}"


def streams_key(match_id: str, seat: int) -> str:
    return f"ref:{{m:{match_id}}}:streams:{seat}"


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

    @classmethod
    def from_raw(cls, match_id: str, raw: list) -> Match:
        game, status, version, state, meta, auth, seq, result = raw
        return cls(
            id=match_id,
            game=game.decode(),
            status=STATUS_OF[status],
            version=int(version),
            state=orjson.loads(state),
            meta=orjson.loads(meta),
            auth=orjson.loads(auth),
            seq=int(seq),
            result=orjson.loads(result) if result else None,
        )

    def emit(self, events: list[dict]) -> None:
        for e in events:
            self.seq += 1
            self.new_events.append({"seq": self.seq, "v": self.version + 1, **e})


class Conflict(Exception):
    """The match changed under a commit more often than the retry budget allows."""


class AlreadyAnswered(Exception):
    """The commit's idempotency key was used by an earlier commit: nothing new is applied."""


# The compare-and-set of a commit that owes no job: KEYS hash, events[, idempotency key];
# ARGV version read, ttl, idempotent answer, field count, fields..., (event id, event)...
CAS = """
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then return 2 end
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
local n = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + 2 * n))
for i = 5 + 2 * n, #ARGV, 2 do redis.call('XADD', KEYS[2], ARGV[i], 'e', ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
if KEYS[3] then redis.call('SET', KEYS[3], ARGV[3], 'EX', %d) end
redis.call('PUBLISH', KEYS[1] .. ':notify', ARGV[1] + 1)
return 1
"""
# Open one event stream of a seat if it holds fewer than the limit: KEYS streams zset;
# ARGV now, limit, lease end, stream id, key ttl.  A lease not renewed (a crashed process) lapses.
OPEN_STREAM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return 1
"""
# A page of a match's events with its head, in one round trip: KEYS hash, events; ARGV first event
# id, count, "state" to add the game and the state (for a seat's stream that lists its legal moves).
PAGE = """
local fields = ARGV[3] == 'state' and {'status', 'version', 'game', 'state'} or {'status', 'version'}
local head = redis.call('HMGET', KEYS[1], unpack(fields))
if not head[1] then return false end
local out = {}
for i, entry in ipairs(redis.call('XRANGE', KEYS[2], ARGV[1], '+', 'COUNT', ARGV[2])) do out[i] = entry[2][2] end
return {head, out}
"""
IDEM_TTL = 24 * 3600


def page_call(match_id: str, after: int, count: int, state: bool = False) -> tuple[list[str], list[Any]]:
    """The PAGE script's keys and arguments (the front runs it on its asyncio client)."""
    return [match_key(match_id), events_key(match_id)], [f"0-{after + 1}", count, "state" if state else ""]


def decode_page(found: list | None) -> tuple[list, list[dict]] | None:
    """The PAGE script's answer: (head as stored, the events decoded), None for an unknown match."""
    return None if found is None else (found[0], [orjson.loads(e) for e in found[1]])


#: how often a commit re-decides on a fresh match after losing its compare-and-set, before answering busy
COMMIT_RETRIES = 50


class Store:
    def __init__(self, client: redis.Redis | RedisCluster, finished_ttl: int, abandoned_ttl: int,
                 queue: redis.Redis, pending: str, finished: str = finished_key("referee")) -> None:
        """``queue``: the server of RQ's queues and of the ``pending`` and ``finished`` sets (``client`` itself
        when shared)."""
        self.client = client
        self.queue = queue
        self.pending = pending
        self.finished = finished
        self.finished_ttl = finished_ttl
        self.abandoned_ttl = abandoned_ttl
        self._cas_script = client.register_script(CAS % IDEM_TTL)
        self._open_stream_script = client.register_script(OPEN_STREAM)
        self._page_script = client.register_script(PAGE)
        self._local = threading.local()
        # once: RedisCluster is a Protocol, and isinstance against one costs microseconds on every command
        self.cluster = isinstance(client, RedisCluster)

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
        """One command of a move's path (HMGET, EVALSHA) straight on this thread's connection.

        redis-py's per-command machinery (option parsing, retry wrapper, type checks of every
        argument, response callbacks) costs more instructions than packing and parsing; these
        commands need none of it.  A failed connection falls back to the client's own command,
        which reconnects and retries exactly as any other call does.
        """
        client = self.redis
        conn = getattr(client, "connection", None)  # a thread's single-connection client; not a cluster
        if conn is not None:
            try:
                conn.send_packed_command((pack_command(args),), check_health=False)
                return conn.read_response()
            except (redis.ConnectionError, redis.TimeoutError):
                conn.disconnect()  # the client's retry reconnects it
        return client.execute_command(*args)

    def run(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """A registered Lua script through ``call``; the server loads it again when it has forgotten it."""
        try:
            return self.call("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            return script(keys=keys, args=args, client=self.redis)

    # -- reading --------------------------------------------------------------------------
    def load(self, match_id: str) -> Match | None:
        raw = self.call("HMGET", match_key(match_id), *FIELDS)
        return None if raw[0] is None else Match.from_raw(match_id, raw)

    def events(self, match_id: str, after: int, count: int = 1000) -> list[dict]:
        entries = self.redis.xrange(events_key(match_id), f"0-{after + 1}", "+", count=count)
        return [orjson.loads(fields[b"e"]) for _, fields in entries]

    def page(self, match_id: str, after: int, count: int, state: bool = False) -> tuple[list, list[dict]] | None:
        """([status, version] or, with ``state``, [status, version, game, state] as stored, the events
        past ``after``), read together; None for an unknown match.  The head is read before the events,
        so a waiter that has seen this version misses nothing."""
        return decode_page(self.run(self._page_script, *page_call(match_id, after, count, state)))

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

    def finished_since(self, since: float, offset: int = 0, count: int = 500) -> list[tuple[str, float]]:
        """(id, finished at) of the kept finished matches from ``since`` on, oldest first, from ``offset``."""
        raw = self.queue.zrangebyscore(self.finished, since, "+inf", withscores=True, start=offset, num=count)
        return [(m.decode(), score) for m, score in raw]

    def idempotent_answer(self, match_id: str, seat: str, key: str) -> dict | None:
        raw = self.redis.get(idem_key(match_id, seat, key))
        return orjson.loads(raw) if raw else None

    # -- writing --------------------------------------------------------------------------
    def create(self, match: Match, jobs: Callable[[Pipeline], None] | None = None, listed: bool = True) -> None:
        """Write a new match; a listed one then joins the listing (outside the match's transaction)."""
        apart = jobs is not None and self.queue is not self.client
        if apart:
            self._note_pending(self.queue, match.id)
        pipe = self.redis.pipeline(transaction=True)
        pipe.multi()  # RQ's enqueue on this pipeline expects its transaction begun
        self._write(pipe, match, match.version, full=True)
        if jobs is not None and not apart:
            self._note_pending(pipe, match.id)
            jobs(pipe)
        pipe.execute()
        if apart:
            self._enqueue(match.id, jobs)
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
        jobs: Callable[[Match], Callable[[Pipeline], None] | None] | None = None,
        retries: int = COMMIT_RETRIES,
    ) -> tuple[Match, Any]:
        """Run ``decide`` on the current match and ``write`` its changes; on a concurrent change run it
        again on the fresh match.  ``decide`` mutates the match and emits events (raising, or emitting
        nothing, writes nothing); ``jobs`` gives, for the changed match, a writer of the RQ jobs it owes.
        Returns (match, decide's value).  A move has its own loop of the same shape (``Referee.apply_move``).
        """
        for _ in range(retries):
            match = self.load(match_id)
            if match is None:
                raise LookupError(match_id)
            outcome = decide(match)
            if not match.new_events:  # every change writes an event: none means no change
                return match, outcome
            if self.write(match, jobs(match) if jobs else None):
                return match, outcome
        raise Conflict(match_id)

    def write(self, match: Match, jobs: Callable[[Pipeline], None] | None = None,
              idem: tuple[str, str] | None = None) -> bool:
        """Write a changed match as one compare-and-set on the version it was read at, with the RQ jobs
        it owes (a writer of them, or None) and an idempotency (key, answer) to keep; False when another
        commit came first (nothing written).  Raises ``AlreadyAnswered`` when the key is already kept.

        Owing no job: one Lua compare-and-set.  Owing a job: WATCH/MULTI, so the job and the state
        commit together.  With the queue on another server the job is enqueued after the
        compare-and-set (see the module's docstring).  On success the match's version is the new one.
        """
        if jobs is None:
            done = self._cas(match, idem)
        elif self.queue is self.client:
            done = self._watch_commit(match, idem, jobs)
        else:
            done = self._cas_then_enqueue(match, idem, jobs)
        if done:
            match.version += 1
        return done

    def _cas(self, match: Match, idem: tuple[str, str] | None) -> bool:
        fields = self._fields(match, full=match.meta_changed, version=match.version + 1)
        args: list[Any] = [match.version, self._ttl(match), idem[1] if idem else "", len(fields)]
        for k, v in fields.items():
            args += [k, v]
        for e in match.new_events:
            args += [f"0-{e['seq']}", dumps(e)]
        keys = [match_key(match.id), events_key(match.id)] + ([idem[0]] if idem else [])
        done = self.run(self._cas_script, keys, args)
        if done == 2:
            raise AlreadyAnswered(idem[0] if idem else "")
        return bool(done)

    def _watch_commit(self, match: Match, idem: tuple[str, str] | None, jobs: Callable[[Pipeline], None]) -> bool:
        key = match_key(match.id)
        with self.redis.pipeline() as pipe:
            try:
                pipe.watch(key, *([idem[0]] if idem else []))
                if idem and pipe.exists(idem[0]):
                    raise AlreadyAnswered(idem[0])
                if int(pipe.hget(key, "version") or -1) != match.version:
                    return False
                pipe.multi()
                self._write(pipe, match, match.version + 1, full=match.meta_changed)
                if idem:
                    pipe.set(idem[0], idem[1], ex=IDEM_TTL)
                self._note_pending(pipe, match.id)
                jobs(pipe)
                pipe.publish(notify_channel(match.id), match.version + 1)
                pipe.execute()
                return True
            except redis.WatchError:
                return False

    def _cas_then_enqueue(self, match: Match, idem: tuple[str, str] | None,
                          jobs: Callable[[Pipeline], None]) -> bool:
        """The queue lives apart: note the match as owing a job, compare-and-set, then enqueue."""
        self._note_pending(self.queue, match.id)
        if not self._cas(match, idem):
            return False
        self._enqueue(match.id, jobs)
        return True

    def _note_pending(self, client: redis.Redis | Pipeline, match_id: str) -> None:
        """Mark the match as owing a job (its score: when), so the sweeper checks it later."""
        client.zadd(self.pending, {match_id: time.time()})

    def _enqueue(self, match_id: str, jobs: Callable[[Pipeline], None]) -> None:
        """The jobs of a commit already made.  The move stands if the queue fails now: the match is
        in the pending set, and the sweeper enqueues what is missing."""
        try:
            with self.queue.pipeline() as pipe:
                jobs(pipe)
                pipe.execute()
        except redis.RedisError as exc:
            log.warning("match %s: enqueue after commit failed (%s); the sweeper will repair it", match_id, exc)

    def _write(self, pipe: Pipeline, match: Match, version: int, full: bool) -> None:
        """The hash (``full``: with game, meta and auth), the new events and the expiry, on a transaction."""
        pipe.hset(match_key(match.id), mapping=self._fields(match, full=full, version=version))
        for e in match.new_events:
            pipe.xadd(events_key(match.id), {"e": dumps(e)}, id=f"0-{e['seq']}")
        for key in (match_key(match.id), events_key(match.id)):
            pipe.expire(key, self._ttl(match))

    def _fields(self, match: Match, full: bool, version: int) -> dict:
        fields = {
            "status": match.status,
            "version": version,
            "state": dumps(match.state),
            "seq": match.seq,
        }
        if full:
            fields.update(game=match.game, meta=dumps(match.meta), auth=dumps(match.auth))
        if match.result is not None:
            fields["result"] = dumps(match.result)
        return fields

    def _ttl(self, match: Match) -> int:
        return self.finished_ttl if match.status.over else self.abandoned_ttl
