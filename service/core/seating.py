"""Who sits where, from a match's creation to its rematch: create (seats, bots, clock, webhook), join,
a seat's name, away and back, abort, rematch.

Apart from the move's path because these commits change the seats and the match's life, never the game's
state; they are the only part that makes new matches (``_new_match``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from service.core import clock
from service.core.base import HOST, new_token, to_act, token_hash
from service.core.capacity import Capacity
from service.core.hooks import Hooks
from service.core.record import match_rng
from service.core.store import Match, Status
from service.core.turns import tick
from service.games import BOT_KINDS, GAMES, Game, GameError
from service.infra.problems import Problem


class Seating(Capacity, Hooks):
    """The commits of a match's seats and life; each answers with what its caller now holds."""

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
            webhook = self._checked_hook(webhook)
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
            out["webhook"] = self._new_hook(match.id, webhook)
            match.meta["webhook"] = True
        self.store.create(match, self.admitted(match), listed)
        out_seats = [{"seat": i, "name": s["name"], "bot": s["bot"], "token": tokens.get(i)}
                     for i, s in enumerate(match.meta["seats"])]
        return {"id": match.id, "game": game.name, "status": match.status, "host_token": host_token,
                "seats": out_seats, **out}

    def _new_match(self, game: Game, options: dict, seats: list[dict], seed: Any, clocked: dict, host_hash: str,
                   tokens: dict[int, str], match_id: str | None = None) -> Match:
        """A match at version 1, dealt, started when every seat is taken (not yet stored)."""
        players = len(seats)
        auth = {host_hash: HOST}
        meta_seats = []
        for i, s in enumerate(seats):
            entry = {"name": s.get("name"), "bot": s.get("bot")}
            if s.get("account"):  # a bot account's seat: its turns go to its event stream (competition/bots.py)
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
        relayed = any("account" in e for e in meta_seats)  # issue 35: each commit runs service.competition.bots.relay
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

    def _maybe_start(self, match: Match) -> None:
        if all(s["joined"] for s in match.meta["seats"]):
            match.status = Status.ACTIVE
            match.emit([{"type": "match_started", "data": {"to_act": to_act(match)}, "to": "all"}])
            tick(match)

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

    def rename(self, match_id: str, token: str | None, seat: int, name: str) -> dict:
        """Name the caller's own seat: an invited person's seat was named by whoever created the match
        ("Player 2"), so its holder gives the name it plays under; an event tells the other seats."""
        def decide(match: Match) -> dict:
            if self._player_seat(match, token) != seat:
                raise Problem("not_your_seat", f"This token is not seat {seat}'s; a person names only their own seat.")
            if match.status.over:
                raise Problem("match_over", f"The match is {match.status}; its seats' names are final.")
            entry = match.meta["seats"][seat]
            before = entry["name"]
            if name != before:
                entry["name"] = name
                match.meta_changed = True
                match.emit([{"type": "seat_named", "data": {"seat": seat, "name": name, "before": before},
                             "to": "all"}])
            return {"seat": seat, "name": name}

        match, out = self._commit(match_id, decide)
        return {"id": match_id, "version": match.version, **out}

    def abort(self, match_id: str, token: str | None) -> dict:
        def decide(match: Match) -> None:
            self._host(match, token, "abort a match")
            if match.status.over:
                raise Problem("match_over", f"The match is already {match.status}.")
            match.status = Status.ABORTED
            match.emit([{"type": "match_aborted", "data": {}, "to": "all"}])
            tick(match)

        match, _ = self._commit(match_id, decide)
        return {"id": match_id, "status": match.status, "version": match.version}

    def away(self, match_id: str, token: str | None, bot: str | None) -> dict:
        """Hand the caller's seat to a bot until it comes back (``back``, or a move of its own)."""
        kind = bot or "random"

        def change(seat: int, entry: dict) -> dict:
            kinds = sorted(BOT_KINDS)
            if kind not in kinds:
                raise Problem("unknown_bot", f"The bots of this game are {kinds}, not {kind!r}.")
            if entry.get("away"):
                raise Problem("already_away", f"Seat {seat} is already played by the {entry['away']} bot.")
            entry["away"] = kind
            return {"type": "away", "data": {"seat": seat, "bot": kind}, "to": "all"}

        return self._change_own_seat(match_id, token, change)

    def back(self, match_id: str, token: str | None) -> dict:
        """Take the caller's seat back from the bot that played it while away."""
        def change(seat: int, entry: dict) -> dict:
            if not entry.get("away"):
                raise Problem("not_away", f"Seat {seat} is not away.")
            del entry["away"]
            return {"type": "back", "data": {"seat": seat}, "to": "all"}

        return self._change_own_seat(match_id, token, change)

    def _change_own_seat(self, match_id: str, token: str | None, change: Callable[[int, dict], dict]) -> dict:
        """Commit ``change`` (away, back) of the caller's seat of an active match, a seat that forfeited staying
        out; ``change`` checks and changes the seat's entry and returns the event that says so."""
        def decide(match: Match) -> dict:
            seat = self._player_seat(match, token)
            if match.status == Status.WAITING:
                raise Problem("match_not_started", "The match is still waiting for players.")
            if match.status != Status.ACTIVE:
                raise Problem("match_over", f"The match is {match.status}.")
            entry = match.meta["seats"][seat]
            if entry.get("out"):
                raise Problem("seat_out", f"Seat {seat} forfeited the match.")
            event = change(seat, entry)
            match.meta_changed = True
            match.emit([event])
            tick(match)
            return {"seat": seat, "away": entry.get("away")}

        match, out = self._commit(match_id, decide)
        return {"id": match_id, "version": match.version, **out}

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
            # a bot account keeps its seat (service/competition/bots.py ``Bots.seat_rematch`` tells it of its new one)
            seats = [{k: people[(j - 1) % n].get(k) for k in ("name", "bot", "account")} for j in range(n)]
            tokens = {p["seat"]: p["token"] for p in plan["seats"].values() if p["token"]}
            clocked = clock.new_clock(old.meta["clock"], n) if "clock" in old.meta else {}
            host = next(h for h, s in old.auth.items() if s == HOST)  # the old host token hosts the rematch
            match = self._new_match(GAMES[old.game], old.meta["options"], seats, plan["seed"], clocked, host, tokens,
                                    plan["id"])
            self.store.create(match, self.admitted(match))
        return {"id": plan["id"], **plan["seats"][str(asked["seat"])]}
