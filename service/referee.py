"""The referee: authenticate, load, apply the rules, commit, enqueue.

Every change to a match (join, move, bot move, scoring, abort) goes through ``Store.commit``,
so HTTP moves and bot moves share one path and one compare-and-set.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import redis
from redis.client import Pipeline
from rq import Queue, Retry
from rq.serializers import JSONSerializer

from service.config import Settings
from service.games import GAMES, Game, GameError
from service.problems import Problem
from service.store import AlreadyAnswered, Conflict, Match, Store, dumps, idem_key, pending_key
from workers.bots import bot_kinds

HOST = -1  # the host token's entry in the auth table
ACTIVE = "active"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def match_rng(seed: Any, step: int | str) -> random.Random:
    """All of a match's randomness: its secret seed and the version the move is applied at."""
    return random.Random(f"{seed}:{step}")


def visible(event: dict, seat: int | None) -> bool:
    to = event["to"]
    return to == "all" or (seat is not None and seat in to)


def public_event(event: dict) -> dict:
    return {"seq": event["seq"], "version": event["v"], "type": event["type"], "data": event["data"]}


class Referee:
    def __init__(self, client: redis.Redis, settings: Settings) -> None:
        self.settings = settings
        self.redis = client
        self.store = Store(client, settings.finished_ttl, settings.abandoned_ttl)
        self.queue = Queue(settings.queue, connection=client, serializer=JSONSerializer)
        self.pending = pending_key(settings.queue)

    # -- helpers ------------------------------------------------------------------------------
    @staticmethod
    def game(name: str) -> Game:
        try:
            return GAMES[name]
        except KeyError:
            raise Problem("unknown_game", f"There is no game {name!r}; see GET /games.") from None

    def _load(self, match_id: str) -> Match:
        match = self.store.load(match_id)
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

    def _commit(self, match_id: str, decide, idempotent=None) -> tuple[Match, Any]:
        try:
            return self.store.commit(match_id, decide, lambda m: self.jobs(m, m.version + 1), idempotent)
        except LookupError:
            raise Problem("unknown_match", f"There is no match {match_id!r} (it may have expired).") from None
        except Conflict:
            raise Problem("busy", "The match changed too often while this request was applied; retry.") from None

    @staticmethod
    def owed_bots(match: Match) -> list[int]:
        """The bot seats that owe a decision now (none unless the match is active)."""
        if match.status != ACTIVE:
            return []
        seats = match.meta["seats"]
        return [s for s in GAMES[match.game].to_act(match.state) if seats[s].get("bot")]

    def jobs(self, match: Match, version: int) -> Callable[[Pipeline], None] | None:
        """What the match owes at ``version`` (bot turns, or its scoring), as a writer of RQ jobs
        for the commit's own transaction; None when it owes nothing.

        A match that owes a job is noted in the queue's pending set for the sweeper, which drops it
        once it owes none.
        """
        bots = self.owed_bots(match)
        scoring = match.status == "scoring"
        if not bots and not scoring:
            return None

        def write(pipe: Pipeline) -> None:
            for seat in bots:
                self.enqueue_bot_turn(match.id, seat, version, pipe)
            if scoring:
                self.enqueue_scoring(match.id, pipe)
            pipe.zadd(self.pending, {match.id: time.time()})

        return write

    def enqueue_bot_turn(self, match_id: str, seat: int, version: int, pipe: Pipeline | None = None) -> None:
        self._enqueue("workers.jobs.play_bot_turn", (match_id, seat, version), f"bot_{match_id}_{seat}_{version}",
                      pipe)

    def enqueue_scoring(self, match_id: str, pipe: Pipeline | None = None) -> None:
        self._enqueue("workers.jobs.score_match", (match_id,), f"score_{match_id}", pipe)

    def _enqueue(self, func: str, args: tuple, job_id: str, pipe: Pipeline | None) -> None:
        """Short timeouts, retries with backoff; the id from (match, seat, version) collapses duplicates."""
        self.queue.enqueue_call(func, args=args, job_id=job_id, timeout=self.settings.job_timeout, result_ttl=60,
                                failure_ttl=24 * 3600, retry=Retry(max=3, interval=[1, 2, 4]), pipeline=pipe)

    # -- matches ------------------------------------------------------------------------------
    def create_match(self, game_name: str, players: int, options: dict | None, seed: Any,
                     seats: list[dict] | None) -> dict:
        game = self.game(game_name)
        try:
            loaded = game.load_options(players, options)
        except GameError as exc:
            raise Problem("invalid_options", exc.message) from None
        seats = seats if seats is not None else [{} for _ in range(players)]
        if len(seats) != players:
            raise Problem("invalid_options", f"'seats' lists {len(seats)} seats for {players} players.")
        kinds = bot_kinds(game.name)
        for s in seats:
            if s.get("bot") is not None and s["bot"] not in kinds:
                raise Problem("unknown_bot", f"{game.title} has the bots {kinds}, not {s['bot']!r}.")
        seed = secrets.randbits(64) if seed is None else seed
        match_id = secrets.token_hex(8)
        host_token = secrets.token_urlsafe(24)
        auth = {token_hash(host_token): HOST}
        meta_seats, out_seats = [], []
        for i, s in enumerate(seats):
            token = None
            entry = {"name": s.get("name"), "bot": s.get("bot")}
            if entry["bot"]:
                entry["name"] = entry["name"] or f"{entry['bot']} bot"
            elif entry["name"]:
                token = secrets.token_urlsafe(24)
                auth[token_hash(token)] = i
            entry["joined"] = bool(entry["bot"] or entry["name"])
            meta_seats.append(entry)
            out_seats.append({"seat": i, "name": entry["name"], "bot": entry["bot"], "token": token})
        state, opening = game.opening(players, loaded, match_rng(seed, "setup"))
        match = Match(id=match_id, game=game.name, status="waiting", version=0, state=state,
                      meta={"players": players, "options": loaded, "seed": seed, "seats": meta_seats,
                            "created": time.time()},
                      auth=auth, seq=0, result=None)
        match.emit([{"type": "match_created", "data": {"game": game.name, "players": players,
                                                       "options": loaded}, "to": "all"}] + opening)
        self._maybe_start(match)
        match.version = 1
        self.store.create(match, self.jobs(match, match.version))
        return {"id": match_id, "game": game.name, "status": match.status, "host_token": host_token,
                "seats": out_seats}

    def _maybe_start(self, match: Match) -> None:
        if all(s["joined"] for s in match.meta["seats"]):
            match.status = ACTIVE
            game = GAMES[match.game]
            match.emit([{"type": "match_started", "data": {"to_act": game.to_act(match.state)}, "to": "all"}])

    def join(self, match_id: str, name: str, seat: int | None) -> dict:
        token = secrets.token_urlsafe(24)

        def decide(match: Match) -> int:
            if match.status != "waiting":
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

    def snapshot(self, match_id: str, token: str | None, since: int | None = None, wait: float = 0) -> dict:
        match = self._load(match_id)
        seat = self.seat_of(match, token)
        if since is not None and wait > 0 and match.version <= since:
            deadline = time.monotonic() + min(wait, self.settings.max_wait)
            while match.version <= since:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self.store.wait_for_events(match_id, match.seq, int(left * 1000))
                match = self._load(match_id)
        return self._snapshot(match, seat)

    def _snapshot(self, match: Match, seat: int | None) -> dict:
        game = GAMES[match.game]
        viewer = seat if seat is not None and seat >= 0 else None
        out = {
            "id": match.id,
            "game": match.game,
            "status": match.status,
            "version": match.version,
            "seat": viewer,
            "to_act": [] if match.status != ACTIVE else game.to_act(match.state),
            "seats": [{"seat": i, "name": s["name"], "bot": s["bot"], "joined": s["joined"]}
                      for i, s in enumerate(match.meta["seats"])],
            "options": match.meta["options"],
            "view": game.view(match.state, viewer),
        }
        if match.result is not None:
            out["result"] = match.result
        if match.status in ("scoring", "finished"):  # the game is over: nothing is hidden any more
            out["seed"] = match.meta["seed"]
        return out

    def legal_moves(self, match_id: str, token: str | None) -> dict:
        match = self._load(match_id)
        seat = self._player_seat(match, token)
        moves = GAMES[match.game].legal_moves(match.state, seat) if match.status == ACTIVE else []
        return {"version": match.version, "seat": seat, "moves": moves}

    def _player_seat(self, match: Match, token: str | None) -> int:
        seat = self.seat_of(match, token, required=True)
        if seat == HOST:
            raise Problem("not_a_seat", "The host token has no seat; use a seat token.")
        return seat

    def apply_move(self, match_id: str, token: str | None, as_seat: int | None, move: Any,
                   expected_version: int | None = None, idempotency_key: str | None = None,
                   at_version: int | None = None) -> dict:
        """The one path a move takes, from HTTP (token) or from a bot job (``as_seat``).

        An ``idempotency_key`` already answered is caught inside the commit's compare-and-set, or,
        when the replay is refused on the new state, by looking up the earlier answer.
        """
        answer: dict = {}

        def decide(match: Match) -> int:
            seat = as_seat if as_seat is not None else self._player_seat(match, token)
            if at_version is not None and match.version != at_version:
                raise Problem("stale_version", "The bot's turn has passed.")
            if match.status == "waiting":
                raise Problem("match_not_started", "The match is still waiting for players.")
            if match.status != ACTIVE:
                raise Problem("match_over", f"The match is {match.status}; no more moves.")
            if expected_version is not None and expected_version != match.version:
                raise Problem("stale_version",
                              f"Expected version {expected_version} but the match is at {match.version}.",
                              version=match.version)
            game = GAMES[match.game]
            try:
                parsed = game.parse_move(move)  # a malformed move is refused as such, whoever's turn it is
            except GameError as exc:
                raise Problem(exc.code, exc.message, reason=exc.reason) from None
            if seat not in game.to_act(match.state):
                raise Problem("not_your_turn", f"Seat {seat} is not to act now.")
            try:
                events = game.apply(match.state, seat, parsed, match_rng(match.meta["seed"], match.version))
            except GameError as exc:
                raise Problem(exc.code, exc.message, reason=exc.reason) from None
            # the move itself only to its author: many moves are sealed (bids, cards shown, placements);
            # what others may learn of a move, each game says in events of its own
            events.insert(0, {"type": "moved", "data": {"seat": seat, "move": parsed}, "to": [seat]})
            if game.is_over(match.state):
                match.status = "scoring"
                events.append({"type": "match_scoring", "data": {}, "to": "all"})
            match.emit(events)
            to_act = game.to_act(match.state) if match.status == ACTIVE else []
            answer.update(
                version=match.version + 1, status=match.status, to_act=to_act,
                events=[public_event(e) for e in match.new_events if visible(e, seat)],
                # a compound turn goes on in small moves: save the mover a request for its next one
                legal_moves=game.legal_moves(match.state, seat) if seat in to_act else [])
            return seat

        def idempotent(match: Match, seat: int) -> tuple[str, str] | None:
            if idempotency_key is None:
                return None
            return idem_key(match.id, str(seat), idempotency_key), dumps(answer)

        try:
            self._commit(match_id, decide, idempotent)
        except AlreadyAnswered:
            return self._earlier_answer(match_id, token, idempotency_key)
        except Problem as exc:
            if idempotency_key is not None and token is not None and exc.code != "bad_token":
                # the same key may have been answered while this request was refused: answer as then
                earlier = self._earlier_answer(match_id, token, idempotency_key, required=False)
                if earlier is not None:
                    return earlier
            raise
        return answer

    def _earlier_answer(self, match_id: str, token: str | None, key: str | None, required: bool = True) -> dict | None:
        seat = self._player_seat(self._load(match_id), token)
        earlier = self.store.idempotent_answer(match_id, str(seat), key or "")
        if earlier is None and required:
            raise Problem("busy", "This Idempotency-Key is being answered; retry.")
        return earlier

    def events(self, match_id: str, token: str | None, after: int = 0, limit: int = 500) -> dict:
        match = self._load(match_id)
        seat = self.seat_of(match, token)
        viewer = seat if seat is not None and seat >= 0 else None
        raw = self.store.events(match_id, after, limit)
        last = raw[-1]["seq"] if raw else after
        return {"events": [public_event(e) for e in raw if visible(e, viewer)], "last_seq": last,
                "version": match.version, "status": match.status}

    def stream_events(self, match_id: str, token: str | None, after: int, timeout: float) -> Iterator[dict]:
        """Events for Server-Sent Events: what exists past ``after``, then new ones as they come.

        The match and token are checked now, so errors are answered before the stream starts.
        """
        match = self._load(match_id)
        seat = self.seat_of(match, token)
        viewer = seat if seat is not None and seat >= 0 else None
        deadline = time.monotonic() + timeout

        def generate(after: int) -> Iterator[dict]:
            while True:
                raw = self.store.events(match_id, after)
                for e in raw:
                    after = e["seq"]
                    if visible(e, viewer):
                        yield public_event(e)
                if raw and raw[-1]["type"] in ("match_finished", "match_aborted"):
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                self.store.wait_for_events(match_id, after, int(min(left, 15) * 1000))

        return generate(after)

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
            if self.seat_of(match, token, required=True) != HOST:
                raise Problem("not_host", "Only the host token can abort a match.")
            if match.status in ("finished", "aborted"):
                raise Problem("match_over", f"The match is already {match.status}.")
            match.status = "aborted"
            match.emit([{"type": "match_aborted", "data": {}, "to": "all"}])

        match, _ = self._commit(match_id, decide)
        return {"id": match_id, "status": match.status, "version": match.version}

    # -- worker side ----------------------------------------------------------------------------
    def bot_view(self, match_id: str, seat: int, version: int) -> tuple[Match, dict, list] | None:
        """What a bot may see at its turn, or None when that turn is no longer owed."""
        match = self.store.load(match_id)
        if match is None or match.version != version or seat not in self.owed_bots(match):
            return None
        game = GAMES[match.game]
        return match, game.view(match.state, seat), game.legal_moves(match.state, seat)

    def score(self, match_id: str) -> bool:
        """Compute the final result and finish the match; False when there was nothing to do."""
        def decide(match: Match) -> bool:
            if match.status != "scoring":
                return False
            outcome = GAMES[match.game].final_result(match.state).as_dict()
            outcome["seed"] = match.meta["seed"]
            match.result = outcome
            match.status = "finished"
            match.emit([{"type": "match_finished", "data": outcome, "to": "all"}])
            return True

        try:
            _, done = self.store.commit(match_id, decide, lambda m: self.jobs(m, m.version + 1))
        except LookupError:
            return False
        return done

