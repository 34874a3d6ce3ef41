"""The referee: load, authorize, apply the rules, commit (with the jobs the match then owes), answer.

Every change to a match is one compare-and-set on its version (``Store.write``): a move, whether
a player's over HTTP or one the referee plays for a seat (bot, clock, away), in ``apply_move``;
joins, scoring, aborts and the rest through ``Store.commit``, the same loop around a ``decide``.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import redis
from redis.cluster import RedisCluster
from rq.serializers import JSONSerializer

from service import clock, compaction, outbox, requestid
from service.config import Settings
from service.games import BOT_KINDS, GAMES, PLUGINS, Game, GameError
from service.metrics import clock_fired, counted_move
from service.problems import Problem
from service.record import FORMAT_VERSION, applied_at, match_rng, rank_forfeits
from service.requestid import Queue  # RQ's, with the request id in each job's meta
from service.store import (
    COMMIT_RETRIES,
    AlreadyAnswered,
    Conflict,
    Match,
    Status,
    Store,
    compaction_log,
    dumps,
    finished_key,
    growth,
    idem_key,
    pending_key,
    renew_stream_on,
)
from service.webhooks import EVENT_TYPES, Allowed, TargetRefused, check_target, due_key, hook_key, log_key, new_secret
from service.webhooks import job_timeout as webhook_job_timeout

HOST = -1  # the host token's entry in the auth table
SEARCH_CAP_S = 10  # longest a search decision may take, whatever its budget says (seconds)
#: the refusals of a move by the game's rules (on_illegal forfeit turns them into a forfeit at the seat's turn)
REFUSED = ("invalid_move", "illegal_move")
STORE_FULL_RETRY = 60  # seconds a refused creator is told to wait (finished matches expire meanwhile)


def new_token() -> str:
    """A bearer token (192 random bits) that never starts with '-', so `referee ... --token T` never reads it
    as an option."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def timeout_job_id(match_id: str, seat: int, version: int) -> str:
    """The timeout of the timer ``seat`` started at ``version``: fires at most once."""
    return f"timeout_{match_id}_{seat}_{version}"


def player_of(seat: dict) -> str | None:
    """Who plays a seat for its owner: its bot kind, the bot it handed itself to (away, or timed
    out under on_timeout "bot"), "default" once it is out (forfeit); None for its human."""
    return seat.get("bot") or seat.get("away") or ("default" if seat.get("out") else None)


def request_digest(move: Any, expected_version: int | None) -> str:
    """What an Idempotency-Key stands for: the move and expected_version, whatever their key order."""
    canonical = json.dumps([move, expected_version], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()



def visible(event: dict, seat: int | None) -> bool:
    to = event["to"]
    return to == "all" or (seat is not None and seat in to)


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


@dataclass
class Stream:
    """One open event stream: whose events it shows, and its lease among its token's open streams.

    The lease is renewed at every heartbeat, so the streams of a process that died stop counting.
    """

    store: Store
    match_id: str
    viewer: int | None
    holder: int | None
    id: str
    lease: float
    legal: bool = False  # send the viewer's legal moves whenever its seat is to act
    legal_seen: int = -1  # the last version whose legal moves were looked up

    def renew(self) -> None:
        if self.holder is not None:
            self.store.renew_stream(self.match_id, self.holder, self.id, self.lease)

    def renew_on(self, pipe) -> None:
        """``renew``, queued on a pipeline (the front renews a heartbeat's streams in one)."""
        if self.holder is not None:
            renew_stream_on(pipe, self.match_id, self.holder, self.id, self.lease)

    def close(self) -> None:
        if self.holder is not None:
            self.store.close_stream(self.match_id, self.holder, self.id)


def moves_of(match: Match, seat: int) -> list:
    """The seat's legal moves: empty unless the match is active (and the game has the seat to act)."""
    return seat_moves(match.game, match.status, match.state, seat)


def seat_moves(game: str, status: Status, state: dict, seat: int) -> list:
    return GAMES[game].legal_moves(state, seat) if status == Status.ACTIVE else []


def page_of(match_id: str, found: tuple[list, list[dict]] | None, viewer: int | None, after: int,
            limit: int) -> dict:
    """``Referee.page`` from the store's read of the head and events (``Store.page``; the front's own)."""
    if found is None:
        raise Problem("unknown_match", f"There is no match {match_id!r} (it may have expired).")
    head, raw = found
    status, version = Status(head[0].decode()), int(head[1])
    page = {"events": [public_event(e) for e in raw if visible(e, viewer)],
            "last_seq": raw[-1]["seq"] if raw else after, "more": len(raw) == limit,
            "version": version, "status": status}
    if len(head) > 2:  # a seat's stream: its legal moves (none unless it is to act: then no state came)
        state = head[3] if len(head) > 3 else None
        page["moves"] = [] if state is None else seat_moves(head[2].decode(), status, orjson.loads(state), viewer)
    return page


def public_event(event: dict) -> dict:
    return {"seq": event["seq"], "version": event["v"], "type": event["type"], "data": event["data"]}


def parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """A listing cursor is ``<created µs>.<match id>`` of the last match a page showed."""
    if cursor is None:
        return None
    created, _, match_id = cursor.partition(".")
    if not (created.isdigit() and match_id.isalnum() and len(match_id) <= 32):
        raise Problem("invalid_cursor", "That cursor is not one a listing gave; start again without it.")
    return int(created), match_id


def public_seats(meta: dict) -> list[dict]:
    """What anyone may know of the seats: who sits where, bots, who is away or out; never a token."""
    return [{"seat": i, "name": s["name"], "bot": s["bot"], "joined": s["joined"], "away": s.get("away"),
             "out": bool(s.get("out"))} for i, s in enumerate(meta["seats"])]


def listing_item(match_id: str, summary: dict) -> dict:
    """What anyone may know of a listed match: never its seed or tokens."""
    seats = public_seats(summary["meta"])
    waiting = summary["status"] == Status.WAITING
    return {"id": match_id, "game": summary["game"], "title": GAMES[summary["game"]].title,
            "status": summary["status"], "version": summary["version"], "players": len(seats),
            "seats": seats, "open_seats": sum(1 for s in seats if not s["joined"]) if waiting else 0,
            "options": summary["meta"]["options"], "created": summary["meta"]["created"]}


class Referee:
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
        self.store.to_act = lambda m: GAMES[m.game].to_act(m.state) if m.status == Status.ACTIVE else []
        self.sender = outbox.Sender(queue, settings.queue,
                                    {q.name: q for q in (self.queue, self.search_queue, self.people_queue)})

    # -- helpers ------------------------------------------------------------------------------
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
            raise Problem("unknown_match", f"There is no match {match_id!r} (it may have expired).")
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

    def _commit(self, match_id: str, decide) -> tuple[Match, Any]:
        try:
            return self.store.commit(match_id, decide, lambda m: self.owed(m, m.version + 1))
        except LookupError:
            raise Problem("unknown_match", f"There is no match {match_id!r} (it may have expired).") from None
        except Conflict:
            raise Problem("busy", "The match changed too often while this request was applied; retry.") from None

    @staticmethod
    def owed_bots(match: Match) -> list[int]:
        """The seats a worker plays (bots, away, out) that owe a decision now (none unless active)."""
        if match.status != Status.ACTIVE:
            return []
        seats = match.meta["seats"]
        return [s for s in GAMES[match.game].to_act(match.state) if player_of(seats[s])]

    @staticmethod
    def has_people(match: Match) -> bool:
        """Whether someone plays a seat over HTTP now (a person or a connected bot, not away): its bot
        turns are waited for."""
        return any(player_of(s) is None for s in match.meta["seats"])

    @staticmethod
    def plays_on(match: Match) -> bool:
        """Whether a bot-turn job that has just moved in this match may go on with what it owes next
        itself: every seat to act is one a worker plays at once (a bot, away or out, but no search bot,
        whose turns have a queue of their own), or the match is to be scored."""
        if match.status == Status.SCORING:
            return True
        if match.status != Status.ACTIVE:
            return False
        seats = match.meta["seats"]
        to_act = GAMES[match.game].to_act(match.state)
        return bool(to_act) and all(player_of(seats[s]) and seats[s].get("bot") != "search" for s in to_act)

    @staticmethod
    def _tick(match: Match, mover: int | None = None) -> None:
        """Bring a clocked match's timers up to date in the commit that changes whose decision it is."""
        if "clock" not in match.meta:
            return
        owing = []
        if match.status == Status.ACTIVE:
            seats = match.meta["seats"]
            owing = [s for s in GAMES[match.game].to_act(match.state) if not player_of(seats[s])]
        stopped = clock.update_timers(match.meta, owing, time.time(), match.version + 1, mover)
        match.void_jobs += [timeout_job_id(match.id, seat, set_at) for seat, set_at in stopped]
        match.meta_changed = True

    def owed(self, match: Match, version: int, held: bool = False) -> dict[str, dict]:
        """What the match owes at ``version`` (bot turns, its scoring, its turn clocks' deadlines, webhook
        messages, its note for compaction once finished), as outbox ops (service/outbox.py) its commit writes with it.

        ``held``: the bot-turn job making this commit plays the next bot turn (or the scoring) itself
        (``plays_on``), so no job is owed for it; the job noted the match as pending when it began,
        so the sweeper still finds the turn if the job dies.
        """
        ops: dict[str, dict] = {}
        if not held:
            for seat in self.owed_bots(match):
                ops.update([self.bot_turn_op(match, seat, version)])
            if match.status == Status.SCORING:
                ops.update([self.scoring_op(match.id, match)])
        if match.status == Status.ACTIVE:
            for seat, deadline in clock.started(match.meta, version):
                ops.update([self.timeout_op(match.id, seat, version, deadline)])
        for job_id in match.void_jobs:  # cheaper than running a timeout job that would find nothing owed
            ops.update([outbox.void(job_id)])
        if match.meta.get("webhook", False):  # its webhook's messages are sent by a worker, never on this path
            ops.update(self.webhook_ops(match.id, match.seq))
        if match.status in (Status.FINISHED, Status.ABORTED):  # over: the room kept for it is free (store_room)
            ops.update([outbox.note(self.store.reserve, match.id, 0, "release")])
        if match.status == Status.FINISHED and not match.log:
            now = time.time()  # kept for `referee export --finished` as long as the match itself
            ops.update([outbox.note(self.store.finished, match.id, now, "nx", now - self.settings.finished_ttl),
                        outbox.note(self.store.compacting, match.id, now + self.settings.compact_after, "nx")])
        if match.status in (Status.ACTIVE, Status.SCORING) and any(op["kind"] == "job" for op in ops.values()):
            # the sweeper's note: this match owes a job, now or at a deadline (the dispatcher adds it with the job)
            ops.update([outbox.note(self.store.pending, match.id, time.time())])
        return ops

    @property
    def bot_queues(self) -> list[Queue]:
        """The queues a worker takes bot turns and scorings from, in the order it looks at them."""
        return [self.people_queue, self.queue]

    def bot_queue(self, match: Match, seat: int) -> Queue:
        """Search turns take up to their budget: they have a queue (and workers) of their own, so a
        long search never holds up the quick turns of other matches.  The other bot turns of a match
        where someone plays over HTTP go to the people's queue, which workers take first: they never
        wait behind the slices of all-bot matches."""
        if match.meta["seats"][seat].get("bot") == "search":
            return self.search_queue
        return self.people_queue if self.has_people(match) else self.queue

    def _job(self, queue: Queue, func: str, args: tuple, job_id: str, timeout: int | None = None,
             at: float | None = None, reused: bool = False) -> tuple[str, dict]:
        return outbox.job(f"workers.jobs.{func}", list(args), job_id, queue.name, timeout or self.settings.job_timeout,
                          requestid.CURRENT.get(), at, reused)

    def bot_turn_op(self, match: Match, seat: int, version: int) -> tuple[str, dict]:
        """The job that plays the bot turn owed at ``version`` and the bot turns after it (workers.jobs)."""
        budget = match.meta["seats"][seat].get("budget") or {}
        timeout = self.settings.job_timeout + SEARCH_CAP_S * bool(budget)
        return self._job(self.bot_queue(match, seat), "play_bot_turn", (match.id, seat, version),
                         f"bot_{match.id}_{seat}_{version}", timeout)

    def webhook_ops(self, match_id: str, seq: int) -> list[tuple[str, dict]]:
        """Note that the match's webhook has messages up to event ``seq`` to send, and wake its delivery."""
        return [outbox.note(due_key(self.settings.queue), match_id, seq, "gt"),
                self._job(self.queue, "deliver_webhooks", (match_id,), f"hooks_{match_id}",
                          webhook_job_timeout(self.settings), reused=True)]

    def scoring_queue(self, match: Match | None) -> Queue:
        return self.people_queue if match is not None and self.has_people(match) else self.queue

    def scoring_op(self, match_id: str, match: Match | None = None) -> tuple[str, dict]:
        return self._job(self.scoring_queue(match), "score_match", (match_id,), f"score_{match_id}")

    def timeout_op(self, match_id: str, seat: int, version: int, deadline: float | None = None) -> tuple[str, dict]:
        """The timeout of the timer started at ``version``, due at ``deadline`` (now without one): the
        dispatcher keeps it in its due set, polled every ``REFEREE_DISPATCH_INTERVAL``."""
        return self._job(self.people_queue, "clock_timeout", (match_id, seat, version),
                         timeout_job_id(match_id, seat, version), at=deadline)

    def send(self, ops: list[tuple[str, dict]]) -> None:
        """Ops owed outside any commit (the sweeper's repairs), handed to RQ's server at once."""
        self.sender.send_now([op for _, op in ops])

    def enqueue_owed(self, match_id: str) -> None:
        """Enqueue whatever the match owes now (its bot turns, its scoring), outside any commit: what a
        bot-turn job that fails after a held commit (``owed``) hands on, so the turn waits no sweep."""
        match = self.store.load(match_id)
        if match is not None:
            self.send([(k, op) for k, op in self.owed(match, match.version).items() if op["kind"] == "job"])

    def compact(self, match_id: str) -> str:
        """Keep of a finished match only its log (service/compaction.py), if it plays again exactly."""
        match = self.store.load(match_id)
        if match is None or match.status != Status.FINISHED:
            return "not owed"
        if match.log is not None:
            return "compacted already"
        log = compaction.compact(match, self.store.events(match_id, 0, count=1_000_000))
        if log is None:
            return "kept whole (its play does not rebuild it)"
        return "compacted" if self.store.compact(match, compaction_log(log, match.result)) else "changed meanwhile"

    def compact_due(self, now: float, count: int = 200) -> int:
        """Compact the finished matches whose ``REFEREE_COMPACT_AFTER`` has passed (the sweeper's round): a batch
        in one process, not a job each (RQ's bookkeeping of a job would cost as much as the compaction).
        Each is dropped from the set once done, so a sweeper killed midway leaves the rest for the next."""
        due = [m.decode() for m in self.queue.connection.zrangebyscore(self.store.compacting, "-inf", now, start=0,
                                                                        num=count)]
        for match_id in due:
            self.compact(match_id)
            self.queue.connection.zrem(self.store.compacting, match_id)
        return len(due)

    # -- matches ------------------------------------------------------------------------------
    def admitted(self, match: Match) -> dict[str, dict]:
        """What a new match's creation owes: what any commit owes, and the room it may still take, kept for it in
        the reserve until it is over (``store_room``)."""
        ops = self.owed(match, match.version)
        ops.update([outbox.note(self.store.reserve, match.id,
                                growth(match.game, match.meta["players"], bool(match.meta.get("webhook"))),
                                "reserve")])
        return ops

    def store_room(self) -> dict:
        """The store's memory against its bound, the room kept for the admitted matches not yet over, and its
        state: ``room`` (new matches admitted); ``full`` (what is used and kept reaches ``store_full_at`` of the
        bound: new matches are refused, the admitted ones play on into the room kept for them); ``at_bound``
        (the server itself refuses writes: nothing can commit until memory is freed)."""
        used, bound = self.store.memory()
        reserved = self.store.reserved() if bound else 0
        state = "room"
        if bound and used >= bound:
            state = "at_bound"
        elif bound and used + reserved >= self.settings.store_full_at * bound:
            state = "full"
        return {"used_bytes": used, "max_bytes": bound, "reserved_bytes": reserved, "state": state,
                "full": state != "room"}

    def check_room(self) -> None:
        room = self.store_room()
        if room["full"]:
            raise Problem("store_full", f"The store holds {room['used_bytes'] / room['max_bytes']:.0%} of its bound "
                          f"and keeps {room['reserved_bytes'] / room['max_bytes']:.0%} for the matches in play; no "
                          "new match is created until they are over and compacted (their moves still commit).",
                          retry_after=STORE_FULL_RETRY)

    def create_match(self, game_name: str, players: int, options: dict | None, seed: Any,
                     seats: list[dict] | None, clock_request: dict | None = None, listed: bool = True,
                     webhook: dict | None = None, tags: dict | None = None) -> dict:
        game = self.game(game_name)
        try:
            loaded = game.load_options(players, options)
        except GameError as exc:
            raise Problem("invalid_options", exc.message) from None
        seats = seats if seats is not None else [{} for _ in range(players)]
        if len(seats) != players:
            raise Problem("invalid_options", f"'seats' lists {len(seats)} seats for {players} players.")
        kinds = sorted(BOT_KINDS)
        for s in seats:
            if s.get("bot") is not None and s["bot"] not in kinds:
                raise Problem("unknown_bot", f"{game.title} has the bots {kinds}, not {s['bot']!r}.")
        if clock_request is not None:
            clock_request = {"on_timeout": "default", **clock_request}
            why = clock.check_clock(clock_request, kinds)
            if why:
                raise Problem("invalid_clock", why)
        if webhook is not None:
            webhook = {"url": webhook["url"], "events": sorted(set(webhook.get("events") or EVENT_TYPES))}
            try:
                check_target(webhook["url"], Allowed.parse(self.settings.webhook_allow))
            except TargetRefused as exc:
                raise Problem("webhook_refused", str(exc)) from None
        self.check_room()
        host_token = new_token()
        tokens = {i: new_token() for i, s in enumerate(seats) if s.get("name") and not s.get("bot")}
        match = self._new_match(game, loaded, seats, secrets.randbits(64) if seed is None else seed,
                                clock.new_clock(clock_request, players) if clock_request else {},
                                token_hash(host_token), tokens)
        match.meta["listed"] = listed  # a rematch is listed as its match was
        if tags:  # issue 35: what a caller keeps with the match (its tournament), relayed after each commit
            match.meta.update(tags)
            match.meta["webhook"] = True
        out: dict = {}
        if webhook is not None:  # before the match: its first commit already owes messages
            webhook["secret"] = new_secret()
            self._hook(match.id, {**webhook, "events": orjson.dumps(webhook["events"]), "cursor": 0, "turn": 0})
            out["webhook"] = {"url": webhook["url"], "events": webhook["events"], "secret": webhook["secret"]}
            match.meta["webhook"] = True
        self.store.create(match, self.admitted(match), listed)
        out_seats = [{"seat": i, "name": s["name"], "bot": s["bot"], "token": tokens.get(i)}
                     for i, s in enumerate(match.meta["seats"])]
        return {"id": match.id, "game": game.name, "status": match.status, "host_token": host_token,
                "seats": out_seats, **out}

    def _hook(self, match_id: str, fields: dict) -> None:
        """Write fields of the match's webhook; its keys live as long as a match can."""
        pipe = self.store.redis.pipeline(transaction=False)
        pipe.hset(hook_key(match_id), mapping=fields)
        pipe.expire(hook_key(match_id), self.settings.abandoned_ttl + self.settings.finished_ttl)
        pipe.execute()

    def webhook(self, match_id: str, token: str | None) -> dict:
        """The match's webhook and its latest delivery attempts, newest first (host token)."""
        match = self._load(match_id)
        self._host(match, token, "see its webhook")
        hook = self.store.redis.hgetall(hook_key(match_id))
        if not hook:
            raise Problem("not_found", "This match has no webhook.")
        return {"url": hook[b"url"].decode(), "events": orjson.loads(hook[b"events"]),
                "deliveries": [orjson.loads(e) for e in self.store.redis.lrange(log_key(match_id), 0, -1)]}

    def rotate_webhook_secret(self, match_id: str, token: str | None) -> dict:
        """A new signing secret, used from the next delivery on; the one before it signs each delivery too for
        ``webhook_secret_grace`` seconds (a receiver switches at its own pace), then nothing more."""
        match = self._load(match_id)
        self._host(match, token, "rotate its webhook's secret")
        if not self.store.redis.exists(hook_key(match_id)):
            raise Problem("not_found", "This match has no webhook.")
        secret, old = new_secret(), self.store.redis.hget(hook_key(match_id), "secret")
        self._hook(match_id, {"secret": secret, "old_secret": old or b"",
                              "old_secret_until": time.time() + self.settings.webhook_secret_grace})
        return {"secret": secret}

    def _host(self, match: Match, token: str | None, what: str) -> None:
        if self.seat_of(match, token, required=True) != HOST:
            raise Problem("not_host", f"Only the host token can {what}.")

    def _new_match(self, game: Game, options: dict, seats: list[dict], seed: Any, clocked: dict, host_hash: str,
                   tokens: dict[int, str], match_id: str | None = None) -> Match:
        """A match at version 1, dealt, started when every seat is taken (not yet stored)."""
        players = len(seats)
        auth = {host_hash: HOST}
        meta_seats = []
        for i, s in enumerate(seats):
            entry = {"name": s.get("name"), "bot": s.get("bot")}
            if s.get("account"):  # issue 35: a bot account's seat; its turns go to its event stream (service/bots.py)
                entry["account"] = s["account"]
            if entry["bot"] == "search":
                # iterations alone make the play reproducible; the time cap then only guards the worker
                ms = s.get("budget_ms") or (None if s.get("iterations") else self.settings.search_ms)
                entry["budget"] = {"iterations": s.get("iterations"), "ms": ms}
            if entry["bot"]:
                entry["name"] = entry["name"] or f"{entry['bot']} bot"
            elif i in tokens:
                auth[token_hash(tokens[i])] = i
            entry["joined"] = bool(entry["bot"] or entry["name"])
            meta_seats.append(entry)
        state, opening = game.opening(players, options, match_rng(seed, "setup"))
        relayed = any("account" in e for e in meta_seats)  # issue 35: each commit runs service.bots.relay
        match = Match(id=match_id or secrets.token_hex(8), game=game.name, status=Status.WAITING, version=0,
                      state=state,
                      meta={"players": players, "options": options, "seed": seed, "seats": meta_seats,
                            "created": time.time(), **clocked, **({"webhook": True} if relayed else {})},
                      auth=auth, seq=0, result=None)
        match.emit([{"type": "match_created", "data": {"game": game.name, "players": players,
                                                       "options": options}, "to": "all"}] + opening)
        self._maybe_start(match)
        match.version = 1
        return match

    def list_matches(self, status: str | None, game: str | None, open_seats: bool | None, limit: int,
                     cursor: str | None) -> dict:
        """Listed matches, newest first, that pass the filters as they are now (the index may lag).

        Reads at most a bounded number of index entries per page, so a rare filter answers a short
        page with a ``next_cursor`` rather than scanning everything; expired matches leave the index.
        """
        if game is not None:
            self.game(game)
        position = parse_cursor(cursor)
        items: list[dict] = []
        budget = max(4 * limit, 200)
        exhausted = False
        while len(items) < limit and budget > 0 and not exhausted:
            batch = self.store.listing_page(game, position, min(budget, 100))
            exhausted = not batch
            gone = []
            for (match_id, created), summary in zip(batch, self.store.summaries([m for m, _ in batch])):
                budget -= 1
                position = (created, match_id)
                if summary is None:
                    gone.append(match_id)
                    continue
                item = listing_item(match_id, summary)
                if ((status is None or item["status"] == status)
                        and (open_seats is None or (item["open_seats"] > 0) == open_seats)):
                    items.append(item)
                    if len(items) == limit:
                        break
            self.store.unlist(gone, list(GAMES))
        more = not exhausted and bool(self.store.listing_page(game, position, 1))
        return {"matches": items, "next_cursor": f"{position[0]}.{position[1]}" if more and position else None}

    def _maybe_start(self, match: Match) -> None:
        if all(s["joined"] for s in match.meta["seats"]):
            match.status = Status.ACTIVE
            game = GAMES[match.game]
            match.emit([{"type": "match_started", "data": {"to_act": game.to_act(match.state)}, "to": "all"}])
            self._tick(match)

    def join(self, match_id: str, name: str, seat: int | None) -> dict:
        token = new_token()

        def decide(match: Match) -> int:
            if match.status != Status.WAITING:
                raise Problem("not_waiting", "This match is not waiting for players.")
            seats = match.meta["seats"]
            if seat is None:
                open_ = [i for i, s in enumerate(seats) if not s["joined"]]
                if not open_:
                    raise Problem("no_open_seat", "Every seat of this match is taken.")
                chosen = open_[0]
            else:
                if not 0 <= seat < len(seats):
                    raise Problem("seat_taken", f"This match has seats 0 to {len(seats) - 1}.")
                if seats[seat]["joined"]:
                    raise Problem("seat_taken", f"Seat {seat} is already taken.")
                chosen = seat
            seats[chosen].update(name=name, joined=True)
            match.auth[token_hash(token)] = chosen
            match.meta_changed = True
            match.emit([{"type": "seat_joined", "data": {"seat": chosen, "name": name}, "to": "all"}])
            self._maybe_start(match)
            return chosen

        match, chosen = self._commit(match_id, decide)
        return {"id": match_id, "seat": chosen, "name": name, "token": token, "status": match.status}

    def snapshot(self, match_id: str, token: str | None, legal_moves: bool = False) -> dict:
        """The match as ``token``'s seat sees it (a long-poll's wait is the front's: service/front.py)."""
        match = self._load(match_id)
        seat = self.seat_of(match, token)
        out = self._snapshot(match, seat)
        if legal_moves:  # read with the view, so both are of one version
            out["legal_moves"] = moves_of(match, seat) if seat is not None and seat >= 0 else []
        return out

    def _snapshot(self, match: Match, seat: int | None) -> dict:
        game = GAMES[match.game]
        viewer = seat if seat is not None and seat >= 0 else None
        out = {
            "id": match.id,
            "game": match.game,
            "status": match.status,
            "version": match.version,
            "seat": viewer,
            "to_act": [] if match.status != Status.ACTIVE else game.to_act(match.state),
            "seats": public_seats(match.meta),
            "options": match.meta["options"],
            "view": game.view(match.state, viewer),
        }
        if "clock" in match.meta:
            out["clock"] = clock.clock_view(match.meta, time.time())
        if match.result is not None:
            out["result"] = match.result
        rematch = match.meta.get("rematch")
        if rematch is not None:  # a seat's new token only to that seat
            mine = rematch["seats"].get(str(viewer)) if viewer is not None else None
            out["rematch"] = {"id": rematch["id"], **(mine or {})}
        if match.status in (Status.SCORING, Status.FINISHED):  # the game is over: nothing is hidden any more
            out["seed"] = match.meta["seed"]
        return out

    def legal_moves(self, match_id: str, token: str | None) -> dict:
        match = self._load(match_id)
        seat = self._player_seat(match, token)
        return {"game": match.game, "version": match.version, "seat": seat, "moves": moves_of(match, seat)}

    def _player_seat(self, match: Match, token: str | None) -> int:
        seat = self.seat_of(match, token, required=True)
        if seat == HOST:
            raise Problem("not_a_seat", "The host token has no seat; use a seat token.")
        return seat

    @counted_move
    def apply_move(self, match_id: str, actor: Actor, move: Any, expected_version: int | None = None,
                   idempotency_key: str | None = None, loaded: Match | None = None,
                   hold: Callable[[Match], bool] | None = None) -> dict:
        """The one path a move takes, from a player (HTTP) or from the referee playing a seat (a job):
        load, authorize, rules, commit, answer; a commit that loses its compare-and-set to another one
        starts again on the fresh match.

        The commit is one compare-and-set carrying the jobs the match then owes and the answer kept
        under ``idempotency_key`` (with a digest of the request, so the same key with another request
        is refused).  A key already answered is caught inside that compare-and-set, or, when the
        replay is refused on the new state, by looking up the earlier answer.

        A bot-turn job passes the match it has just read (``loaded``: tried first, and on success left
        as committed, at its new version) and ``hold``: whether, for the match after the move, it plays
        what the match owes next itself (``jobs``' ``held``).
        """
        digest = request_digest(move, expected_version) if idempotency_key is not None else ""
        for _ in range(COMMIT_RETRIES):
            match, loaded = loaded or self._load(match_id), None
            try:
                seat = self._authorize(match, actor, expected_version)
                answer = self._rules(match, seat, actor, move)
            except Problem as exc:
                if exc.code in REFUSED and self._forfeits(match, seat, actor):
                    self.forfeit(match_id, seat, match.version, exc.code)
                    raise Problem(exc.code, f"{exc.detail} Seat {seat} forfeits the match (on_illegal forfeit).",
                                  reason=exc.extra.get("reason"), forfeited=True) from None
                if idempotency_key is not None and actor.player and exc.code != "bad_token":
                    # the same key may have been answered while this request was refused: answer as then
                    earlier = self._earlier_answer(match_id, actor.token, idempotency_key, digest, required=False)
                    if earlier is not None:
                        return earlier
                raise
            kept = None
            if idempotency_key is not None:
                kept = idem_key(match.id, str(seat), idempotency_key), dumps({"request": digest, "answer": answer})
            try:
                held = hold is not None and hold(match)
                if self.store.write(match, self.owed(match, match.version + 1, held), kept):
                    return answer
            except AlreadyAnswered:
                return self._earlier_answer(match_id, actor.token, idempotency_key, digest)
        raise Problem("busy", "The match changed too often while this request was applied; retry.")

    def _authorize(self, match: Match, actor: Actor, expected_version: int | None) -> int:
        """The seat the actor moves for, if the match takes a move from it now at all."""
        seat = actor.seat if actor.seat is not None else self._player_seat(match, actor.token)
        if actor.at_version is not None and match.version != actor.at_version:
            raise Problem("stale_version", "The bot's turn has passed.")
        if match.status == Status.WAITING:
            raise Problem("match_not_started", "The match is still waiting for players.")
        if match.status != Status.ACTIVE:
            raise Problem("match_over", f"The match is {match.status}; no more moves.")
        if expected_version is not None and expected_version != match.version:
            raise Problem("stale_version",
                          f"Expected version {expected_version} but the match is at {match.version}.",
                          version=match.version)
        return seat

    @staticmethod
    def _forfeits(match: Match, seat: int, actor: Actor) -> bool:
        """Whether a move the rules refused costs its seat the match: the clock says so (on_illegal forfeit),
        a player sent it at its turn, and the seat is still in."""
        return (match.meta.get("clock", {}).get("on_illegal") == "forfeit" and actor.player
                and match.status == Status.ACTIVE and seat in GAMES[match.game].to_act(match.state)
                and not match.meta["seats"][seat].get("out"))

    def forfeit(self, match_id: str, seat: int, version: int, why: str) -> bool:
        """``seat`` sent a move the rules refuse at ``version`` (``why``: the refusal's code): it is out, as
        after on_timeout forfeit (default moves from then on, ranked last).  A no-op once the match moved on."""
        def decide(match: Match) -> bool:
            entry = match.meta["seats"][seat]
            if match.status != Status.ACTIVE or match.version != version or entry.get("out"):
                return False
            entry.pop("away", None)
            entry["out"] = True
            match.meta_changed = True
            match.emit([{"type": "forfeit", "data": {"seat": seat, "reason": why, "at": time.time()}, "to": "all"}])
            self._tick(match)
            return True

        return self.store.commit(match_id, decide, lambda m: self.owed(m, m.version + 1))[1]

    def _rules(self, match: Match, seat: int, actor: Actor, move: Any) -> dict:
        """Apply the move to the loaded match (or raise Problem) and build the mover's answer."""
        game = GAMES[match.game]
        try:
            parsed = game.parse_move(move)  # a malformed move is refused as such, whoever's turn it is
        except GameError as exc:
            raise Problem(exc.code, exc.message, reason=exc.reason) from None
        if seat not in game.to_act(match.state):
            raise Problem("not_your_turn", f"Seat {seat} is not to act now.")
        seat_meta = match.meta["seats"][seat]
        if actor.player and seat_meta.get("out"):
            raise Problem("seat_out", f"Seat {seat} forfeited the match; the referee plays its default moves.")
        if actor.player and seat_meta.get("away"):  # the owner acts again: back from the bot
            del seat_meta["away"]
            match.meta_changed = True
            match.emit([{"type": "back", "data": {"seat": seat}, "to": "all"}])
        self._play(match, game, seat, parsed)
        to_act = game.to_act(match.state) if match.status == Status.ACTIVE else []
        return {
            "game": match.game, "version": match.version + 1, "status": match.status, "to_act": to_act,
            "events": [public_event(e) for e in match.new_events if visible(e, seat)],
            # a compound turn goes on in small moves: save the mover a request for its next one
            "legal_moves": game.legal_moves(match.state, seat) if seat in to_act else [],
        }

    def _play(self, match: Match, game: Game, seat: int, move: dict) -> None:
        """Apply a parsed move of ``seat`` (or raise Problem), emit its events, move the clock."""
        try:
            events = game.apply(match.state, seat, move, match_rng(match.meta["seed"], match.version))
        except GameError as exc:
            raise Problem(exc.code, exc.message, reason=exc.reason) from None
        # the move itself only to its author: many moves are sealed (bids, cards shown, placements);
        # what others may learn of a move, each game says in events of its own.  ``at`` is for the record.
        events.insert(0, {"type": "moved", "data": {"seat": seat, "move": move}, "to": [seat], "at": time.time()})
        if game.is_over(match.state):
            match.status = Status.SCORING
            events.append({"type": "match_scoring", "data": {}, "to": "all"})
        match.emit(events)
        self._tick(match, mover=seat)

    def _earlier_answer(self, match_id: str, token: str | None, key: str | None, digest: str,
                        required: bool = True) -> dict | None:
        seat = self._player_seat(self._load(match_id), token)
        earlier = self.store.idempotent_answer(match_id, str(seat), key or "")
        if earlier is None:
            if required:
                raise Problem("busy", "This Idempotency-Key is being answered; retry.")
            return None
        if "request" not in earlier:  # stored before keys carried their request's digest: replay as then
            return earlier
        if earlier["request"] != digest:
            raise Problem("idempotency_mismatch", "This Idempotency-Key was used for another move or "
                                                  "expected_version; use a new key for a new request.")
        return earlier["answer"]

    def _viewer(self, match: Match, token: str | None, ticket: str | None) -> int | None:
        """The seat whose events a request may see: its token's, else its stream ticket's (None: a spectator)."""
        if token is None and ticket is not None:
            seat = self.store.ticket_seat(match.id, ticket)
            if seat is None:
                raise Problem("bad_ticket", "This stream ticket is unknown, expired or for another match; "
                                            "ask for a new one.")
            return seat
        seat = self.seat_of(match, token)
        return seat if seat is not None and seat >= 0 else None

    def events(self, match_id: str, token: str | None, after: int = 0, limit: int = 500,
               ticket: str | None = None) -> dict:
        match = self._load(match_id)
        page = self.page(match_id, self._viewer(match, token, ticket), after, limit)
        del page["more"]
        return {"game": match.game, **page}

    def page(self, match_id: str, viewer: int | None, after: int, limit: int = 500, legal: bool = False) -> dict:
        """The events past ``after`` that ``viewer`` may see, with the match's version and status, read in
        one round trip; with ``legal`` also the viewer's legal moves at that version (``moves``, empty unless
        its seat is to act), from the same read: a seat's stream learns its turn without another request.
        """
        return page_of(match_id, self.store.page(match_id, after, limit, viewer if legal else False),
                       viewer, after, limit)

    def stream_ticket(self, match_id: str, token: str | None) -> dict:
        """A short-lived ticket that opens this seat's event stream without the token in a URL."""
        seat = self._player_seat(self._load(match_id), token)
        ttl = self.settings.ticket_ttl
        return {"ticket": self.store.issue_ticket(match_id, seat, ttl), "expires_in": ttl}

    def open_stream(self, match_id: str, token: str | None, ticket: str | None, legal: bool = False) -> Stream:
        """Check an event stream's request and count it against its token's open streams."""
        match = self._load(match_id)
        viewer = self._viewer(match, token, ticket)
        holder = HOST if viewer is None and token is not None else viewer  # None: a spectator, not counted
        stream = Stream(self.store, match_id, viewer, holder, secrets.token_hex(8), 3 * self.settings.heartbeat,
                        legal and viewer is not None)
        limit = self.settings.max_streams
        if holder is not None and not self.store.open_stream(match_id, holder, stream.id, limit, stream.lease):
            raise Problem("too_many_streams", f"This token already holds {limit} open event streams; close one.",
                          retry_after=max(1, round(self.settings.heartbeat)))
        return stream

    def photo(self, match_id: str, token: str | None, seat: int) -> str:
        match = self._load(match_id)
        self.seat_of(match, token)
        game = GAMES[match.game]
        render = getattr(game, "photo_svg", None)
        if render is None:
            raise Problem("not_found", f"{game.title} has no photos.")
        if not 0 <= seat < match.meta["players"]:
            raise Problem("not_found", f"This match has seats 0 to {match.meta['players'] - 1}.")
        if not game.is_over(match.state):
            raise Problem("not_over", "The photo is taken at the end of the match.")
        return render(match.state, seat)

    def result(self, match_id: str, token: str | None) -> dict:
        match = self._load(match_id)
        self.seat_of(match, token)
        if match.result is None:
            raise Problem("result_not_ready", f"The match is {match.status}; the result comes when it is finished.")
        return {"id": match.id, "game": match.game, "status": match.status, **match.result}

    def abort(self, match_id: str, token: str | None) -> dict:
        def decide(match: Match) -> None:
            self._host(match, token, "abort a match")
            if match.status.over:
                raise Problem("match_over", f"The match is already {match.status}.")
            match.status = Status.ABORTED
            match.emit([{"type": "match_aborted", "data": {}, "to": "all"}])
            self._tick(match)

        match, _ = self._commit(match_id, decide)
        return {"id": match_id, "status": match.status, "version": match.version}

    # -- the life of a match: away and back, records, rematches --------------------------------------
    def away(self, match_id: str, token: str | None, bot: str | None) -> dict:
        """Hand the caller's seat to a bot until it comes back (``back``, or a move of its own)."""
        def decide(match: Match) -> dict:
            seat, entry = self._own_seat(match, token)
            kinds = sorted(BOT_KINDS)
            kind = bot or "random"
            if kind not in kinds:
                raise Problem("unknown_bot", f"The bots of this game are {kinds}, not {kind!r}.")
            if entry.get("away"):
                raise Problem("already_away", f"Seat {seat} is already played by the {entry['away']} bot.")
            entry["away"] = kind
            match.meta_changed = True
            match.emit([{"type": "away", "data": {"seat": seat, "bot": kind}, "to": "all"}])
            self._tick(match)
            return {"seat": seat, "away": kind}

        match, out = self._commit(match_id, decide)
        return {"id": match_id, "version": match.version, **out}

    def back(self, match_id: str, token: str | None) -> dict:
        def decide(match: Match) -> dict:
            seat, entry = self._own_seat(match, token)
            if not entry.get("away"):
                raise Problem("not_away", f"Seat {seat} is not away.")
            del entry["away"]
            match.meta_changed = True
            match.emit([{"type": "back", "data": {"seat": seat}, "to": "all"}])
            self._tick(match)
            return {"seat": seat, "away": None}

        match, out = self._commit(match_id, decide)
        return {"id": match_id, "version": match.version, **out}

    def _own_seat(self, match: Match, token: str | None) -> tuple[int, dict]:
        """The caller's seat of an active match, for away and back (a seat that forfeited stays out)."""
        seat = self._player_seat(match, token)
        if match.status == Status.WAITING:
            raise Problem("match_not_started", "The match is still waiting for players.")
        if match.status != Status.ACTIVE:
            raise Problem("match_over", f"The match is {match.status}.")
        entry = match.meta["seats"][seat]
        if entry.get("out"):
            raise Problem("seat_out", f"Seat {seat} forfeited the match.")
        return seat, entry

    def timeout(self, match_id: str, seat: int, version: int) -> str:
        """The timer ``seat`` started at ``version`` ran out: apply the match's ``on_timeout``.

        A no-op unless that very timer still runs (the seat has not moved since): the commit's
        compare-and-set decides between the timeout and a move landing at the same instant."""
        def decide(match: Match) -> str:
            timer = match.meta.get("timers", {}).get(str(seat))
            if match.status != Status.ACTIVE or timer is None or timer["set_at"] != version:
                return "not owed"
            if time.time() < timer["deadline"]:
                return "early"
            settings, entry = match.meta["clock"], match.meta["seats"][seat]
            action = settings["on_timeout"]
            clock.expire(match.meta, seat)
            match.meta_changed = True
            match.emit([{"type": "timeout", "data": {"seat": seat, "action": action, "deadline": timer["deadline"],
                                                     "at": time.time()}, "to": "all"}])
            game = GAMES[match.game]
            if action == "default":
                self._play(match, game, seat, game.parse_move(PLUGINS[match.game].default(match.state, seat)))
                return action
            if action == "bot":
                entry["away"] = settings["bot"]
                match.emit([{"type": "away", "data": {"seat": seat, "bot": settings["bot"]}, "to": "all"}])
            else:
                entry["out"] = True
            self._tick(match)
            return action

        try:
            match, done = self.store.commit(match_id, decide, lambda m: self.owed(m, m.version + 1))
        except LookupError:
            return "not owed"
        clock_fired(match.new_events)
        return done

    def record(self, match_id: str, token: str | None) -> dict:
        """Everything needed to replay a finished match: seed, options, seats, every move."""
        match = self._load(match_id)
        self.seat_of(match, token)
        if match.status != Status.FINISHED:
            raise Problem("not_over", f"The match is {match.status}; its record is kept once it is finished.")
        moves, after = [], 0
        while batch := self.store.events(match_id, after):
            after = batch[-1]["seq"]
            moves += [{"version": e["v"], "seat": e["data"]["seat"], "move": e["data"]["move"], "at": e.get("at")}
                      for e in batch if e["type"] == "moved"]
        meta = match.meta
        return {"format_version": FORMAT_VERSION, "id": match.id, "game": match.game, "players": meta["players"],
                "options": meta["options"], "seed": meta["seed"], "clock": meta.get("clock"),
                "seats": [{"seat": i, "name": s["name"], "bot": s["bot"], "forfeited": bool(s.get("out"))}
                          for i, s in enumerate(meta["seats"])],
                "moves": moves, "result": match.result}

    def replay_step(self, match_id: str, token: str | None, step: int) -> dict:
        """A finished match as a spectator saw it after its first ``step`` moves (the web table's replay):
        its record played again through the game module, the spectator's view, who was to act, the move
        that led there and that move's public events."""
        record = self.record(match_id, token)
        game = GAMES[record["game"]]
        seed, moves = record["seed"], record["moves"]
        step = max(0, min(step, len(moves)))
        state, _ = game.opening(record["players"], game.load_options(record["players"], record["options"]),
                                match_rng(seed, "setup"))
        events: list[dict] = []
        for m in moves[:step]:
            events = game.apply(state, m["seat"], game.parse_move(m["move"]), match_rng(seed, applied_at(record, m)))
        last = moves[step - 1] if step else None
        # the log up to here: the events of a version up to the one the next move was applied at (None at the
        # end: every event)
        return {"step": step, "steps": len(moves), "seat": last["seat"] if last else None,
                "version": applied_at(record, moves[step]) if step < len(moves) else None,
                "move": last["move"] if last else None, "to_act": [] if game.is_over(state) else game.to_act(state),
                "view": game.view(state, None),
                "events": [{"type": e["type"], "data": e["data"]} for e in events if e["to"] == "all"]}

    def rematch(self, match_id: str, token: str | None) -> dict:
        """A new match with the same game, options, clock and people, seats rotated by one, a new
        seed, bots kept; asking again returns the same rematch.

        The plan (id, seed, tokens) is committed on the old match first, so of two seats asking at
        once exactly one plan wins, and the request whose commit made it creates the match.  One
        that finds a plan without its match waits for it, then (its maker died) creates it."""
        asked: dict = {}

        def decide(match: Match) -> dict:
            asked.update(seat=self._player_seat(match, token), made=False)
            if match.status != Status.FINISHED:
                raise Problem("not_over", f"The match is {match.status}; a rematch follows a finished match.")
            plan = match.meta.get("rematch")
            if plan is None:
                self.check_room()
                asked["made"] = True
                n = match.meta["players"]
                plan = match.meta["rematch"] = {
                    "id": secrets.token_hex(8), "seed": secrets.randbits(64),
                    "seats": {str(i): {"seat": (i + 1) % n, "token": None if s["bot"] else new_token()}
                              for i, s in enumerate(match.meta["seats"])}}
                match.meta_changed = True
                match.emit([{"type": "rematch", "data": {"id": plan["id"]}, "to": "all"}])
            return plan

        old, plan = self._commit(match_id, decide)
        if not asked["made"]:
            until = time.monotonic() + 2
            while self.store.load(plan["id"]) is None and time.monotonic() < until:
                time.sleep(0.05)
        if asked["made"] or self.store.load(plan["id"]) is None:
            n = old.meta["players"]
            people = {int(i): old.meta["seats"][int(i)] for i in plan["seats"]}
            # a bot account keeps its seat (service/bots.py ``Bots.seat_rematch`` tells it of its new one)
            seats = [{k: people[(j - 1) % n].get(k) for k in ("name", "bot", "account")} for j in range(n)]
            tokens = {p["seat"]: p["token"] for p in plan["seats"].values() if p["token"]}
            clocked = clock.new_clock(old.meta["clock"], n) if "clock" in old.meta else {}
            host = next(h for h, s in old.auth.items() if s == HOST)  # the old host token hosts the rematch
            match = self._new_match(GAMES[old.game], old.meta["options"], seats, plan["seed"], clocked, host, tokens,
                                    plan["id"])
            self.store.create(match, self.admitted(match))
        return {"id": plan["id"], **plan["seats"][str(asked["seat"])]}

    # -- worker side ----------------------------------------------------------------------------
    def bot_view(self, match_id: str, seat: int, version: int) -> tuple[Match, dict, list] | None:
        """What a bot may see at its turn, or None when that turn is no longer owed."""
        match = self.store.load(match_id)
        if match is None or match.version != version or seat not in self.owed_bots(match):
            return None
        return self.seat_view(match, seat)

    @staticmethod
    def seat_view(match: Match, seat: int) -> tuple[Match, dict, list]:
        game = GAMES[match.game]
        return match, game.view(match.state, seat), game.legal_moves(match.state, seat)

    def score(self, match_id: str) -> bool:
        """Compute the final result and finish the match; False when there was nothing to do."""
        def decide(match: Match) -> bool:
            if match.status != Status.SCORING:
                return False
            outcome = GAMES[match.game].final_result(match.state).as_dict()
            outcome["seed"] = match.meta["seed"]
            rank_forfeits(outcome, [i for i, s in enumerate(match.meta["seats"]) if s.get("out")])
            match.result = outcome
            match.status = Status.FINISHED
            match.emit([{"type": "match_finished", "data": outcome, "to": "all"}])
            return True

        try:
            _, done = self.store.commit(match_id, decide, lambda m: self.owed(m, m.version + 1))
        except LookupError:
            return False
        return done

