"""The match store: one Redis hash and one event stream per match, committed by compare-and-set.

Keys carry the hash tag ``{m:<id>}`` so a match lives in one Redis Cluster slot:

- ``ref:{m:<id>}``        hash: game, status, version, state, meta, auth, to_act, seq, result
- ``ref:{m:<id>}:events`` stream; entry ``0-<seq>`` holds one event (``to``, ``type``, ``data``, ``v``)
- ``ref:{m:<id>}:idem:<seat>:<key>`` the first answer to a move sent with an Idempotency-Key

A commit reads the hash, decides, then writes the hash, the events and the expiry only if the
version is still the one it read: a Lua compare-and-set, or WATCH/MULTI/EXEC when an RQ job
must commit in the same transaction.  A concurrent commit makes it fail and the caller re-decides.
Nothing about a match is kept in process memory between requests.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis
from redis.client import Pipeline

FIELDS = (b"game", b"status", b"version", b"state", b"meta", b"auth", b"seq", b"result")


def pending_key(queue: str) -> str:
    """zset of the matches that owe a job (bot turn or scoring) on ``queue``, scored by time."""
    return f"ref:pending:{queue}"


def match_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}"


def events_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:events"


def idem_key(match_id: str, seat: str, key: str) -> str:
    return f"ref:{{m:{match_id}}}:idem:{seat}:{key}"


def dumps(value: Any) -> bytes:
    """Compact JSON; like json.dumps, a non-string key (a seat number) becomes a string."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


@dataclass
class Match:
    """One match as read inside a transaction; the caller mutates it and lists new events."""

    id: str
    game: str
    status: str
    version: int
    state: dict
    meta: dict
    auth: dict
    seq: int
    result: dict | None
    new_events: list[dict] = field(default_factory=list)
    meta_changed: bool = False

    @classmethod
    def from_raw(cls, match_id: str, raw: list) -> Match:
        game, status, version, state, meta, auth, seq, result = raw
        return cls(
            id=match_id,
            game=game.decode(),
            status=status.decode(),
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
return 1
"""
IDEM_TTL = 24 * 3600


class Store:
    def __init__(self, client: redis.Redis, finished_ttl: int, abandoned_ttl: int) -> None:
        self.client = client
        self.finished_ttl = finished_ttl
        self.abandoned_ttl = abandoned_ttl
        self._cas_script = client.register_script(CAS % IDEM_TTL)
        self._local = threading.local()

    @property
    def redis(self) -> redis.Redis:
        """This thread's client, holding one connection of the shared pool for the thread's life.

        A pooled call checks a connection out and back in (with metrics) on every command, which
        costs as much CPU as the command itself; a move makes two or three.  A forked child makes
        its own (a connection must not be shared across processes).
        """
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            local.client = redis.Redis(connection_pool=self.client.connection_pool, single_connection_client=True)
            local.pid = os.getpid()
        return local.client

    # -- reading --------------------------------------------------------------------------
    def load(self, match_id: str) -> Match | None:
        raw = self.redis.hmget(match_key(match_id), FIELDS)
        return None if raw[0] is None else Match.from_raw(match_id, raw)

    def events(self, match_id: str, after: int, count: int = 1000) -> list[dict]:
        entries = self.redis.xrange(events_key(match_id), f"0-{after + 1}", "+", count=count)
        return [orjson.loads(fields[b"e"]) for _, fields in entries]

    def wait_for_events(self, match_id: str, after: int, timeout_ms: int) -> bool:
        """Block until an event past ``after`` exists (every commit writes one) or time runs out."""
        got = self.redis.xread({events_key(match_id): f"0-{after}"}, count=1, block=max(timeout_ms, 1))
        return bool(got)

    def idempotent_answer(self, match_id: str, seat: str, key: str) -> dict | None:
        raw = self.redis.get(idem_key(match_id, seat, key))
        return orjson.loads(raw) if raw else None

    # -- writing --------------------------------------------------------------------------
    def create(self, match: Match, jobs: Callable[[Pipeline], None] | None = None) -> None:
        pipe = self.redis.pipeline()
        pipe.multi()
        self._write(pipe, match, match.version, full=True)
        if jobs is not None:
            jobs(pipe)
        pipe.execute()

    def commit(
        self,
        match_id: str,
        decide: Callable[[Match], Any],
        jobs: Callable[[Match], Callable[[Pipeline], None] | None] | None = None,
        idempotent: Callable[[Match, Any], tuple[str, str] | None] | None = None,
        retries: int = 50,
    ) -> tuple[Match, Any]:
        """Run ``decide`` on the current match and write its changes as one compare-and-set.

        ``decide`` mutates the match and emits events (raising, or emitting nothing, writes
        nothing).  ``jobs`` gives, for the changed match, a writer of the RQ jobs it owes (None
        when it owes none); ``idempotent`` names a (key, answer) to store with the commit.  A
        commit that owes no job is one read and one Lua compare-and-set on the version; one that
        owes a job uses WATCH/MULTI so the job and the state commit together.  On a concurrent
        change ``decide`` runs again on the fresh match.  Returns (match, decide's value).
        """
        key = match_key(match_id)
        for _ in range(retries):
            raw = self.redis.hmget(key, FIELDS)
            if raw[0] is None:
                raise LookupError(match_id)
            match = Match.from_raw(match_id, raw)
            outcome = decide(match)
            if not match.new_events:  # every change writes an event: none means no change
                return match, outcome
            idem = idempotent(match, outcome) if idempotent else None
            writer = jobs(match) if jobs else None
            done = self._cas(match, idem) if writer is None else self._watch_commit(match, idem, writer)
            if done:
                match.version += 1
                return match, outcome
        raise Conflict(match_id)

    def _cas(self, match: Match, idem: tuple[str, str] | None) -> bool:
        fields = self._fields(match, full=match.meta_changed, version=match.version + 1)
        args: list[Any] = [match.version, self._ttl(match), idem[1] if idem else "", len(fields)]
        for k, v in fields.items():
            args += [k, v]
        for e in match.new_events:
            args += [f"0-{e['seq']}", dumps(e)]
        keys = [match_key(match.id), events_key(match.id)] + ([idem[0]] if idem else [])
        done = self._cas_script(keys=keys, args=args, client=self.redis)
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
                jobs(pipe)
                pipe.execute()
                return True
            except redis.WatchError:
                return False

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
        return self.finished_ttl if match.status in ("finished", "aborted") else self.abandoned_ttl
