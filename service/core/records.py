"""A finished match kept for good: its record (seed, options, seats, every move) and its replay, step by step,
played again through the game's rules.

Apart from the views because it reads a match's whole log and plays it again rather than showing its state.
"""

from __future__ import annotations

from service.core.base import RefereeBase
from service.core.record import FORMAT_VERSION, applied_at, match_rng
from service.core.store import Status
from service.games import GAMES
from service.infra.problems import Problem


class Records(RefereeBase):
    """Records and replays of finished matches (the record's format: service/core/record.py)."""

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
        _, _, analysis = self.store.analysis(match_id)  # its analysis, once done (service/core/analyses.py)
        return {"format_version": FORMAT_VERSION, "id": match.id, "game": match.game, "players": meta["players"],
                "options": meta["options"], "seed": meta["seed"], "clock": meta.get("clock"),
                "seats": [{"seat": i, "name": s["name"], "bot": s["bot"], "forfeited": bool(s.get("out"))}
                          for i, s in enumerate(meta["seats"])],
                "moves": moves, "result": match.result, **({"analysis": analysis} if analysis is not None else {})}

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
