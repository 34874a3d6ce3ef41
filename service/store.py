"""The match store: one Redis hash and one event stream per match, committed by compare-and-set.

Keys carry the hash tag ``{m:<id>}`` so a match lives in one Redis Cluster slot:

- ``ref:{m:<id>}``        hash: game, status, version, state, meta, auth, to_act, seq, result
- ``ref:{m:<id>}:events`` stream; entry ``0-<seq>`` holds one event (``to``, ``type``, ``data``, ``v``)
- ``ref:{m:<id>}:idem:<seat>:<key>`` the first answer to a move sent with an Idempotency-Key

A commit is WATCH on the hash, read, decide, then MULTI/EXEC writing the hash, the events, the
expiry and any RQ job together; a concurrent commit makes EXEC fail and the caller re-decides.
Nothing about a match is kept in process memory between requests.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.client import Pipeline

FIELDS = (b"game", b"status", b"version", b"state", b"meta", b"auth", b"seq", b"result")
PENDING = "ref:pending"  # zset: matches that owe a job (bot turn or scoring), scored by time
WORKERS_ALIVE = "ref:workers"  # zset: worker heartbeats


def match_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}"


def events_key(match_id: str) -> str:
    return f"ref:{{m:{match_id}}}:events"


def idem_key(match_id: str, seat: str, key: str) -> str:
    return f"ref:{{m:{match_id}}}:idem:{seat}:{key}"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


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
            state=json.loads(state),
            meta=json.loads(meta),
            auth=json.loads(auth),
            seq=int(seq),
            result=json.loads(result) if result else None,
        )

    def emit(self, events: list[dict]) -> None:
        for e in events:
            self.seq += 1
            self.new_events.append({"seq": self.seq, "v": self.version + 1, **e})


class Conflict(Exception):
    """The match changed under a commit more often than the retry budget allows."""


class Store:
    def __init__(self, client: redis.Redis, finished_ttl: int, abandoned_ttl: int) -> None:
        self.redis = client
        self.finished_ttl = finished_ttl
        self.abandoned_ttl = abandoned_ttl

    # -- reading --------------------------------------------------------------------------
    def load(self, match_id: str) -> Match | None:
        raw = self.redis.hmget(match_key(match_id), FIELDS)
        return None if raw[0] is None else Match.from_raw(match_id, raw)

    def events(self, match_id: str, after: int, count: int = 1000) -> list[dict]:
        entries = self.redis.xrange(events_key(match_id), f"0-{after + 1}", "+", count=count)
        return [json.loads(fields[b"e"]) for _, fields in entries]

    def wait_for_events(self, match_id: str, after: int, timeout_ms: int) -> bool:
        """Block until an event past ``after`` exists (every commit writes one) or time runs out."""
        got = self.redis.xread({events_key(match_id): f"0-{after}"}, count=1, block=max(timeout_ms, 1))
        return bool(got)

    def idempotent_answer(self, match_id: str, seat: str, key: str) -> dict | None:
        raw = self.redis.get(idem_key(match_id, seat, key))
        return json.loads(raw) if raw else None

    # -- writing --------------------------------------------------------------------------
    def create(self, match: Match, after: Callable[[Pipeline, Match], None] | None = None) -> None:
        pipe = self.redis.pipeline()
        pipe.multi()
        pipe.hset(match_key(match.id), mapping=self._fields(match, full=True, version=match.version))
        self._write_events(pipe, match)
        self._expire(pipe, match)
        if after is not None:
            after(pipe, match)
        pipe.execute()

    def commit(
        self,
        match_id: str,
        decide: Callable[[Match], Any],
        after: Callable[[Pipeline, Match, Any], None] | None = None,
        retries: int = 50,
    ) -> tuple[Match, Any]:
        """Run ``decide`` on the current match and write its changes atomically.

        ``decide`` mutates the match and emits events (raising, or emitting nothing, writes
        nothing); ``after`` adds
        more commands (RQ jobs, an idempotent answer) to the same MULTI.  On a concurrent
        change ``decide`` runs again on the fresh match.  Returns (match, decide's value).
        """
        key = match_key(match_id)
        with self.redis.pipeline() as pipe:
            for _ in range(retries):
                try:
                    pipe.watch(key)
                    raw = pipe.hmget(key, FIELDS)
                    if raw[0] is None:
                        pipe.unwatch()
                        raise LookupError(match_id)
                    match = Match.from_raw(match_id, raw)
                    outcome = decide(match)
                    if not match.new_events:  # every change writes an event: none means no change
                        pipe.unwatch()
                        return match, outcome
                    pipe.multi()
                    pipe.hset(key, mapping=self._fields(match, full=match.meta_changed, version=match.version + 1))
                    self._write_events(pipe, match)
                    self._expire(pipe, match)
                    if after is not None:
                        after(pipe, match, outcome)
                    pipe.execute()
                    match.version += 1
                    return match, outcome
                except redis.WatchError:
                    continue
                finally:
                    pipe.reset()
        raise Conflict(match_id)

    def _fields(self, match: Match, full: bool, version: int) -> dict:
        fields = {
            "status": match.status,
            "version": version,
            "state": dumps(match.state),
            "seq": match.seq,
            "updated": time.time(),
        }
        if full:
            fields.update(game=match.game, meta=dumps(match.meta), auth=dumps(match.auth))
        if match.result is not None:
            fields["result"] = dumps(match.result)
        return fields

    def _write_events(self, pipe: Pipeline, match: Match) -> None:
        key = events_key(match.id)
        for e in match.new_events:
            pipe.xadd(key, {"e": dumps(e)}, id=f"0-{e['seq']}")

    def _expire(self, pipe: Pipeline, match: Match) -> None:
        ttl = self.finished_ttl if match.status in ("finished", "aborted") else self.abandoned_ttl
        for key in (match_key(match.id), events_key(match.id)):
            pipe.expire(key, ttl)
