"""What every part of the referee shares: the store and queues it holds, who a token is, who plays a seat.

The parts of ``Referee`` (service/core/referee.py) each build on ``RefereeBase``; the names here are the ones
more than one part needs, so that no part imports another sideways or referee.py back.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

import redis
from redis.cluster import RedisCluster
from rq.serializers import JSONSerializer

from service.core import compaction, outbox
from service.core.keys import finished_key, pending_key
from service.core.store import Match, Status, Store
from service.games import GAMES, Game
from service.infra.config import Settings
from service.infra.problems import Problem
from service.integrations.requestid import Queue  # RQ's, with the request id in each job's meta

HOST = -1  # the host token's entry in the auth table


def new_token() -> str:
    """A bearer token (192 random bits) that never starts with '-', so `referee ... --token T` never reads it
    as an option."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def player_of(seat: dict) -> str | None:
    """Who plays a seat for its owner: its bot kind, the bot it handed itself to (away, or timed
    out under on_timeout "bot"), "default" once it is out (forfeit); None for its human."""
    return seat.get("bot") or seat.get("away") or ("default" if seat.get("out") else None)


def to_act(match: Match) -> list[int]:
    """The seats whose decision the match waits for: none unless it is active."""
    return GAMES[match.game].to_act(match.state) if match.status == Status.ACTIVE else []


def visible(event: dict, seat: int | None) -> bool:
    to = event["to"]
    return to == "all" or (seat is not None and seat in to)


def public_event(event: dict) -> dict:
    return {"seq": event["seq"], "version": event["v"], "type": event["type"], "data": event["data"]}


def unknown_match(match_id: str) -> Problem:
    """The refusal of a match id the store does not hold (never made, or expired)."""
    return Problem("unknown_match", f"There is no match {match_id!r} (it may have expired).")


@dataclass(frozen=True)
class Actor:
    """Who makes a move: a player, by its token, or the referee playing ``seat`` (a bot, a clock's
    default move, an away seat), only while the match is still at ``at_version``, the version that owed it."""

    token: str | None = None
    seat: int | None = None
    at_version: int | None = None

    @classmethod
    def of(cls, token: str | None) -> Actor:
        return cls(token=token)

    @classmethod
    def playing(cls, seat: int, at_version: int | None = None) -> Actor:
        return cls(seat=seat, at_version=at_version)

    @property
    def player(self) -> bool:
        return self.seat is None


class RefereeBase:
    """The state the referee's parts share (the match store, RQ's queues and the outbox's sender) and the
    look-ups each of them starts with: a game by name, a match by id, the seat a token holds."""

    def __init__(self, client: redis.Redis | RedisCluster, settings: Settings,
                 queue: redis.Redis | None = None) -> None:
        """``client``: the match store; ``queue``: RQ's server (default: the store's own, one transaction)."""
        self.settings = settings
        queue = client if queue is None else queue
        self.queue = Queue(settings.queue, connection=queue, serializer=JSONSerializer)
        self.search_queue = Queue(settings.search_queue, connection=queue, serializer=JSONSerializer)
        self.people_queue = Queue(settings.people_queue, connection=queue, serializer=JSONSerializer)
        # a turn clock runs for a person: its timeouts go to the people's queue, never behind all-bot matches
        self.store = Store(client, settings.finished_ttl, settings.abandoned_ttl, queue, pending_key(settings.queue),
                           finished_key(settings.queue), settings.queue, compaction.rebuild, settings.replay_cache_ttl)
        self.store.compacting = f"ref:compacting:{settings.queue}"
        self.store.to_act = to_act
        self.sender = outbox.Sender(queue, settings.queue,
                                    {q.name: q for q in (self.queue, self.search_queue, self.people_queue)})

    @staticmethod
    def game(name: str) -> Game:
        try:
            return GAMES[name]
        except KeyError:
            raise Problem("unknown_game", f"There is no game {name!r}; see GET /games.") from None

    def _load(self, match_id: str) -> Match:
        """The match for a route: a compacted one played again (or read from its cache) to be shown."""
        match = self.store.load(match_id, replayed=True)
        if match is None:
            raise unknown_match(match_id)
        return match

    @staticmethod
    def seat_of(match: Match, token: str | None, required: bool = False) -> int | None:
        """The seat a token belongs to (``HOST`` for the host token, None for no token)."""
        if token is None:
            if required:
                raise Problem("bad_token", "Send your seat token as 'Authorization: Bearer <token>'.")
            return None
        seat = match.auth.get(token_hash(token))
        if seat is None:
            raise Problem("bad_token", "That token belongs to no seat of this match.")
        return seat

    def _player_seat(self, match: Match, token: str | None) -> int:
        seat = self.seat_of(match, token, required=True)
        if seat == HOST:
            raise Problem("not_a_seat", "The host token has no seat; use a seat token.")
        return seat

    def _host(self, match: Match, token: str | None, what: str) -> None:
        if self.seat_of(match, token, required=True) != HOST:
            raise Problem("not_host", f"Only the host token can {what}.")
