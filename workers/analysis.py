"""A finished match's analysis: where each seat won and lost it, judged from what that seat knew.

Lichess's analysis board, adapted honestly to hidden information.  Every decision of a record with more
than one distinct legal move is judged from the acting seat's view just before it -- never the true state:
the engine is handed the view and the legal moves, and deals determinizations from the view with the
game's ``sample_state``, as the search bot does (workers/bots/search.py).  Each legal move (ranges at a
few values, the move played and the game's greedy or lead move among them) is played on the same deals
with the same dice (common random numbers) and played out with the game's playout policy; the outcome of
each playout is recorded as the seat's win share (1/k of a k-way shared win) and its rank (1 + the seats
strictly ahead).  A move's ``win`` is its mean win share, its ``rank`` its mean rank.

How a playout ends.  A playout runs to the end of the match, so its win share is a real result.  Where a
game gives the search an evaluation (``Hooks.evaluate``: in every built-in game that has one it is each
seat's chance to win, a softmax fitted to or shaped like the outcomes), a playout that has made
``HORIZON`` moves stops where the evaluation can judge it, and the evaluation (``Hooks.chances`` where the
game gives one calibrated as chances) is taken as the win shares (the ranks follow its order); a long match
(Big Shot's 250 moves) would cost too much played to the end.
Where the game says its deals cannot judge a decision (``Hooks.lead_stands`` where it has an evaluation: a
search evaluates those at once; Picture Perfect's final placement, whose other photos are hidden and dealt
empty, so that every seat would look sure to win its own deals), the decision is not judged: it keeps the
seat's chance from its last judged decision (1/players before any), no best moves and no loss.

Noise.  The root runs the search's race (``Race`` in workers/bots/search.py): rounds of one deal each, a
move that trails the best by ``DROP`` standard errors of the paired differences leaving it (never the move
played).  A move counts as better than the one played only if it beats it by ``SIGNIFICANCE`` standard
errors of the paired differences over the same deals; otherwise the move played heads the list of best
moves and its loss is 0 (a few noisy playouts must not call a sound move a mistake).  A move played that no
deal allowed (a sampled state out of step with the view) is not judged: it takes the best move's figures.

Labels (``THRESHOLDS``): a decision's loss is the win chance given away against the best move, labelled
like Lichess's (which labels by the loss in win chance too: 10, 20, 30 points there).  Ours are smaller,
0.05 / 0.10 / 0.20: with three to six seats a seat's chance is smaller to start with, a loss of 0.20 is
the whole of an even 5-player seat's chance.

Deterministic for an iteration budget: each decision's deals come from the record's seed and the move's
version, so a decision's analysis depends on nothing else, and decisions may be judged in parallel
(``processes``) with the same result.
"""

from __future__ import annotations

import dataclasses
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson

from service.core.record import FORMAT_VERSION, ReplayError, match_rng, play, start
from service.games import GAMES, Game
from service.games.base import copy_json
from workers.bots import GREEDY, SEARCH, Bot, make_bot
from workers.bots.search import Arm, Budget, Race, average, candidates, key, paired, play_out

FORMAT = 1
#: loss in win chance from which a decision is an inaccuracy, a mistake, a blunder
THRESHOLDS = {"inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.20}
LABELS = ("good", "inaccuracy", "mistake", "blunder")
#: the server's budget per decision (a bot budget's syntax: ``300``, ``200ms``, ``300/200ms``)
BUDGET_ENV = "REFEREE_ANALYSIS_BUDGET"
#: per decision when nobody says: 96 playouts, or 100 ms where they take longer (a long match: a 5-player
#: three-hand Paparazzo's 750 decisions in 45 s on two processes; a 4-player Super-Blatt's 60 in 3 s); reproducible
#: wherever the 96 playouts fit in the time
DEFAULT_BUDGET = Budget(iterations=96, ms=100)
#: moves a playout makes before the game's evaluation may end it (where the game has one)
HORIZON = 40
#: standard errors of the paired differences by which a move must beat the one played to count as better
SIGNIFICANCE = 2.0
#: best moves listed per decision, and decisive moments per seat
BEST = 3
DECISIVE = 3
#: deals every move a decision keeps is played on at least (more moves than the budget allows: a sample)
MIN_DEALS = 4


def budget_from_env() -> Budget:
    text = os.environ.get(BUDGET_ENV, "").strip()
    return Budget.parse(text) if text else DEFAULT_BUDGET


def label(loss: float) -> str:
    """The label of a loss in win chance (``THRESHOLDS``)."""
    for name in reversed(LABELS[1:]):
        if loss >= THRESHOLDS[name]:
            return name
    return "good"


def _final(game: Game, state: dict) -> tuple[list[float], list[float]]:
    """Each seat's win share and rank where a playout's match ended."""
    outcome = game.final_result(state)
    share = 1 / len(outcome.winners) if outcome.winners else 0.0
    ranks = [0.0] * len(outcome.scores)
    ahead = 0
    for place in outcome.ranking:
        for seat in place:
            ranks[seat] = ahead + 1
        ahead += len(place)
    return [share if p in outcome.winners else 0.0 for p in range(len(ranks))], ranks


def _judged(values: list[float]) -> tuple[list[float], list[float]]:
    """Each seat's win chance and rank where the game's evaluation ended a playout (ranks by its order)."""
    total = sum(values) or 1.0
    return [v / total for v in values], [1.0 + sum(w > v for w in values) for v in values]


@dataclass
class Judgement:
    """One legal move as the analysis judged it: mean win share and rank over the deals it was played on."""

    move: dict
    win: float
    rank: float
    deals: int

    def as_dict(self) -> dict:
        return {"move": self.move, "win": round(self.win, 3), "rank": round(self.rank, 3)}


class _Candidate(Arm):
    """A move in the race: the search's arm (its win share per round) and its rank per round."""

    __slots__ = ("ranks",)

    def __init__(self, move: dict, seat: int) -> None:
        super().__init__(key(move), move, seat)
        self.ranks: list[float | None] = []

    def open_round(self) -> None:
        super().open_round()
        self.ranks.append(None)

    def judgement(self) -> Judgement:
        ranks = [r for r in self.ranks if r is not None]
        if not ranks:
            return Judgement(self.node.move, 0.0, math.inf, 0)
        return Judgement(self.node.move, average(self), sum(ranks) / len(ranks), len(ranks))


def judge(game: Game, view: dict, moves: list[dict], seat: int, played: dict, budget: Budget,
          rng: random.Random, lead: Bot | None = None) -> tuple[Judgement, list[Judgement]]:
    """The move played and the best legal moves (best first, at most ``BEST``), judged from ``view`` alone.

    ``budget`` counts playouts (iterations) and/or milliseconds for this decision; ``lead`` is the game's
    move to beat (its greedy bot's or its planner's), judged too so that the best move is a sound one."""
    hooks = SEARCH[game.name]
    if hooks.chances is not None:  # the game's calibrated chances end a playout where its search's evaluation would
        hooks = dataclasses.replace(hooks, evaluate=hooks.chances)
    start_at = time.perf_counter()
    lead_stands = hooks.lead_stands is not None and hooks.lead_stands(view)
    found = {key(m): m for m in candidates(moves)}
    found.setdefault(key(played), played)
    suggested = None
    if lead is not None and not lead_stands:  # where the lead stands the evaluation judges every move alike
        suggested = lead(copy_json(view), moves, seat, random.Random(rng.random()))
        found.setdefault(key(suggested), suggested)
    limit = budget.iterations if budget.iterations is not None else math.inf
    arms = [_Candidate(m, seat) for m in found.values()]
    mine = next(a for a in arms if a.key == key(played))
    room = max(int(limit // MIN_DEALS), 2) if limit < math.inf else len(arms)
    if len(arms) > room:  # more moves than the budget can judge: the move played, the lead, a sample of the rest
        first = [a for a in arms if a is mine or (suggested is not None and a.key == key(suggested))]
        rest = [a for a in arms if a not in first]
        arms = first + rng.sample(rest, max(0, room - len(first)))
    horizon = (0 if lead_stands else HORIZON) if hooks.evaluate is not None else math.inf
    race = Race(game, view, seat, arms, mine, budget, rng, start_at)
    for arm, state, prng in race:
        got = play_out(game, state, hooks, horizon - 1, prng, final=_final, judged=_judged)
        if got is not None:
            arm.results[-1], arm.ranks[-1] = got[0][seat], got[1][seat]
    kept = [a for a in race.racing if a is not mine and any(r is not None for r in a.results)]
    better = sorted((a for a in kept if _beats(a, mine)), key=average, reverse=True)
    others = sorted((a for a in kept if a not in better), key=average, reverse=True)
    if not any(r is not None for r in mine.results):  # no deal allowed the move played: it is not judged
        best = [a.judgement() for a in others[:BEST]]
        return (Judgement(played, best[0].win, best[0].rank, 0) if best else mine.judgement()), best
    best = [a.judgement() for a in [*better, mine, *others][:BEST]]
    return mine.judgement(), best


def _beats(a: Arm, b: Arm) -> bool:
    diff, se, n = paired(a, b)
    return n >= 2 and diff > SIGNIFICANCE * se


@dataclass(frozen=True)
class Decision:
    """One decision of a record to judge: everything ``judge`` may read (the seat's view, not the state)."""

    index: int
    version: int
    seat: int
    players: int
    view: dict
    moves: list[dict]
    played: dict


def decisions(record: dict) -> list[Decision]:
    """The record's decisions with more than one distinct legal move, each with its seat's view before it."""
    game, state = start(record)
    out = []
    for i, m in enumerate(record["moves"]):
        seat = m["seat"]
        moves = game.legal_moves(state, seat) if seat in game.to_act(state) else []
        if len({key(c) for c in candidates(moves)}) > 1:
            out.append(Decision(i, m["version"], seat, record["players"], game.view(state, seat), moves,
                                game.parse_move(m["move"])))
        play(record, game, state, i)
    if not game.is_over(state):
        raise ReplayError(f"The match is not over after its {len(record['moves'])} moves.")
    return out


def unjudged(name: str, view: dict) -> bool:
    """Whether the game says its deals cannot judge this decision (see above)."""
    hooks = SEARCH[name]
    return hooks.evaluate is not None and hooks.lead_stands is not None and hooks.lead_stands(view)


def judge_decision(job: tuple[str, str, Budget, Decision]) -> dict:
    """One decision's entry of the analysis: ``(game, record seed, budget, decision)``; ``win`` and ``rank``
    None where the decision is not judged (``unjudged``: ``analyse`` carries the seat's last ones)."""
    name, seed, budget, d = job
    if unjudged(name, d.view):
        return {"index": d.index, "version": d.version, "seat": d.seat, "win": None, "rank": None, "best": [],
                "loss": 0.0, "label": "good"}
    game = GAMES[name]
    hooks = SEARCH[name]
    lead = hooks.lead if hooks.lead is not None else GREEDY[name]
    rng = random.Random(f"{seed}:analysis:{d.version}:{d.seat}")
    mine, best = judge(game, d.view, d.moves, d.seat, d.played, budget, rng, lead)
    if not mine.deals:  # no deal allowed any move (a sample_state out of step with the view): an even chance
        mine = Judgement(d.played, 1 / d.players, (d.players + 1) / 2, 0)
    loss = max(0.0, best[0].win - mine.win) if best else 0.0
    return {"index": d.index, "version": d.version, "seat": d.seat, "win": round(mine.win, 3),
            "rank": round(mine.rank, 3), "best": [b.as_dict() for b in best], "loss": round(loss, 3),
            "label": label(round(loss, 3))}


def summary(players: int, judged: list[dict]) -> list[dict]:
    """Per seat: decisions judged, average loss, count per label, its largest losses from a mistake up."""
    out = []
    for seat in range(players):
        mine = [i for i, d in enumerate(judged) if d["seat"] == seat]
        losses = [judged[i]["loss"] for i in mine]
        decisive = sorted((i for i in mine if judged[i]["loss"] >= THRESHOLDS["mistake"]),
                          key=lambda i: -judged[i]["loss"])[:DECISIVE]
        out.append({"seat": seat, "decisions": len(mine),
                    "average_loss": round(sum(losses) / len(losses), 3) if losses else 0.0,
                    "labels": {name: sum(judged[i]["label"] == name for i in mine) for name in LABELS},
                    "decisive": decisive})
    return out


def size(value: object) -> int:
    return len(orjson.dumps(value))


def compact(result: dict, limit: int) -> dict:
    """Fit the analysis into ``limit`` bytes (the record's own size), giving up the least telling part first:
    the move bodies of the alternatives after the best, then those alternatives, then the best move of a
    decision labelled good (its figures are the decision's own or nearly), then the best move's body of an
    inaccuracy, of a mistake, of a blunder (the figures stay: only which move it was is lost), then the
    figures' third decimal, last the best move of an inaccuracy, a mistake, a blunder (the loss stays).  A
    game whose every move is a small decision (Big Shot's bids) may not fit even then: docs/analysis.md."""
    def drop(d: dict, keep: str | None = None) -> None:
        if d["best"] and d["label"] == keep:
            d["best"] = [{**d["best"][0], "move": None}]

    steps: Sequence[Callable[[dict], None]] = (
        lambda d: d.update(best=d["best"][:1] + [{**b, "move": None} for b in d["best"][1:]]),
        lambda d: d.update(best=d["best"][:1]),
        lambda d: d.update(best=[]) if d["label"] == "good" else None,
        *(lambda d, name=name: drop(d, name) for name in LABELS[1:]),
        coarse,
        *(lambda d, name=name: d.update(best=[]) if d["label"] == name else None for name in LABELS[1:]),
    )
    for step in steps:
        if size(result) <= limit:
            break
        for d in result["decisions"]:
            step(d)
    return result


def coarse(d: dict) -> None:
    """A decision's figures to two decimals, whole ones as integers (its label as the loss now reads)."""
    for item in (d, *d["best"]):
        item.update(win=_short(item["win"]), rank=_short(item["rank"]))
    d["loss"] = _short(max(0.0, d["best"][0]["win"] - d["win"]) if d["best"] else d["loss"])
    d["label"] = label(d["loss"])


def _short(value: float) -> float | int:
    """Two decimals, a whole number without its ``.0``."""
    value = round(value, 2)
    return int(value) if value == int(value) else value


def analyse(record: dict, budget: Budget | str | None = None, progress: Callable[[int, int], None] | None = None,
            processes: int = 1, fit: bool = True) -> dict:
    """The analysis of a finished match's record (the contract: docs/analysis.md).

    ``budget`` per decision (a Budget or its text; default ``REFEREE_ANALYSIS_BUDGET``, else
    ``DEFAULT_BUDGET``); ``progress(done, total)`` after each decision judged; ``processes`` > 1 judges
    decisions in that many processes (forked), with the same result; ``fit``: within the record's size
    (``compact``), as it is kept and served."""
    if budget is None:
        budget = budget_from_env()
    elif isinstance(budget, str):
        budget = Budget.parse(budget)
    todo = decisions(record)
    jobs = [(record["game"], str(record["seed"]), budget, d) for d in todo]
    judged: list[dict] = []
    if processes > 1 and len(jobs) > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(processes) as pool:
            for d in pool.imap(judge_decision, jobs, chunksize=max(1, len(jobs) // (8 * processes))):
                judged.append(d)
                if progress is not None:
                    progress(len(judged), len(jobs))
    else:
        for job in jobs:
            judged.append(judge_decision(job))
            if progress is not None:
                progress(len(judged), len(jobs))
    return assemble(record, budget, judged, fit)



def assemble(record: dict, budget: Budget, judged: list[dict], fit: bool = True) -> dict:
    """The analysis from every decision judged, in order (``analyse`` and the service's job share it): a decision
    not judged keeps its seat's last chance; ``fit``: within the record's size (``compact``), as it is kept."""
    players = record["players"]
    last = {seat: (round(1 / players, 3), round((players + 1) / 2, 3)) for seat in range(players)}
    for d in judged:
        if d["win"] is None:
            d["win"], d["rank"] = last[d["seat"]]
        last[d["seat"]] = d["win"], d["rank"]
    result = {"format": FORMAT, "game": record["game"], "players": players, "budget": str(budget),
              "thresholds": dict(THRESHOLDS), "decisions": judged, "summary": summary(players, judged)}
    if fit:
        compact(result, size(record))
    result["summary"] = summary(players, judged)  # as the decisions now read
    return result

def play_record(name: str, players: int, kinds: Sequence[str], seed: int | str, options: dict | None = None,
                budget: Budget | None = None, opening: Sequence[dict] = ()) -> dict:
    """A match played in this process by built-in bots (``kinds[seat]``; the search bot at ``budget``) after the
    moves ``opening`` (``{"seat", "move"}`` each), recorded as the referee records one (service/core/record.py):
    for tests (a planted move, the rest played on) and the measurement; no server needed."""
    game = GAMES[name]
    options = game.load_options(players, options or {})
    bots = {k: make_bot(name, k, budget if k == "search" else None) for k in set(kinds)}
    state, _ = game.opening(players, options, match_rng(seed, "setup"))
    moves: list[dict] = []
    while not game.is_over(state):
        version = len(moves)
        if version < len(opening):
            seat, move = opening[version]["seat"], game.parse_move(opening[version]["move"])
        else:
            seat = game.to_act(state)[0]
            move = bots[kinds[seat]](game.view(state, seat), game.legal_moves(state, seat), seat,
                                     random.Random(f"{seed}:bot:{seat}:{version}"))
        game.apply(state, seat, move, match_rng(seed, version))
        moves.append({"version": version + 1, "seat": seat, "move": move, "at": time.time()})
    result = game.final_result(state).as_dict()
    result["seed"] = seed
    return {"format_version": FORMAT_VERSION, "id": f"local-{name}-{seed}", "game": name, "players": players,
            "options": {k: v for k, v in options.items() if v is not None}, "seed": seed, "clock": None,
            "seats": [{"seat": s, "name": kinds[s], "bot": kinds[s], "forfeited": False} for s in range(players)],
            "moves": moves, "result": result}
