"""The move's path: load, authorise, apply the rules, commit (with the jobs the match then owes), answer;
and the scoring that follows the last move.

Every move takes it, whether a player's over HTTP or one the referee plays for a seat (a bot, an away or
forfeited seat): ``apply_move`` is the hot path, one compare-and-set on the match's version
(``Store.write``), started again on the fresh match when another commit wins.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from service.core.base import Actor, public_event, visible
from service.core.clocks import Clocks
from service.core.keys import idem_key
from service.core.record import rank_forfeits
from service.core.store import COMMIT_RETRIES, AlreadyAnswered, Match, Status, dumps
from service.core.turns import play_move
from service.games import GAMES, GameError
from service.infra.problems import Problem
from service.integrations.metrics import counted_move

#: the refusals of a move by the game's rules (on_illegal forfeit turns them into a forfeit at the seat's turn)
REFUSED = ("invalid_move", "illegal_move")


def request_digest(move: Any, expected_version: int | None) -> str:
    """What an Idempotency-Key stands for: the move and expected_version, whatever their key order."""
    canonical = json.dumps([move, expected_version], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


class Play(Clocks):
    """Moves (with their Idempotency-Keys) and the scoring of a match whose rules say it is over."""

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
        play_move(match, game, seat, parsed)
        to_act = game.to_act(match.state) if match.status == Status.ACTIVE else []
        return {
            "game": match.game, "version": match.version + 1, "status": match.status, "to_act": to_act,
            "events": [public_event(e) for e in match.new_events if visible(e, seat)],
            # a compound turn goes on in small moves: save the mover a request for its next one
            "legal_moves": game.legal_moves(match.state, seat) if seat in to_act else [],
        }

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
            _, done = self.store.commit(match_id, decide, self._owed_next)
        except LookupError:
            return False
        return done
