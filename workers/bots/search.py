"""The ``search`` bot: single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012,
as in OpenSpiel's ``ISMCTSBot``), the same code for every game.

Each iteration deals one determinization with the game's ``sample_state(view, seat, rng)`` --
the bot never sees the true state -- and walks one tree keyed by moves, choosing among the moves
legal in that determinization by UCB with availability counts, then plays the deal out with the
game's playout policy, for at most the game's horizon of moves, and scores where it stopped with
the game's evaluation (or the result, if the match ended).  Every node keeps each seat's reward,
and the seat to act at a node picks by its own reward (max^n), so the same search serves 2 to 6
players.  Simultaneous decisions are walked one seat at a time in ``to_act`` order (our seat
first at the root).

What a game adds is one ``Hooks`` value, ``SEARCH`` in its bot module (a built-in game's ``bots.py``):
the playout policy (random moves unless it names one; usually a cheap form of its greedy bot),
the evaluation of an unfinished deal and the horizon.  Below the root a node grows by
progressive widening, the playout policy's move first, so that a few iterations follow the
policy's line instead of trying every reply once.

The root is walked in rounds (``Race``, shared with the analysis): each round deals one
determinization and tries every root candidate still in the race on it, with the same seed for the
playout's chance, so two candidates are compared on the same cards and dice (common random
numbers); after each round a candidate that trails the best by ``DROP`` standard errors of the
paired differences leaves the race.  A numeric range in a legal move is searched at a few values:
evenly spaced in a short range, else its lowest, 1, 2, 4... steps above and its highest.  The root
also considers the greedy bot's move (or the game's ``lead``, a deeper planner), and that move
stands unless another beats it by ``CONFIDENCE`` standard errors of the paired differences: a few
noisy playouts should not overrule a good heuristic.  Where the game says its deals cannot judge a
decision (``lead_stands``), the lead is played without a search.

The budget is iterations (playouts), milliseconds, or both (whichever ends first).  With
iterations only, a decision is a function of (view, moves, seed): reproducible.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import orjson

from service.games import Game, GameError
from service.games.base import is_span
from service.games.plugin import Hooks, Policy

#: exploration constant of UCB1 (rewards lie in [0, 1])
EXPLORATION = 0.7
#: values tried for one numeric range in a move (a long range: its lowest, 1, 2, 4... steps up, its highest)
RANGE_POINTS = 5
#: standard errors by which a move must beat the greedy bot's before the search plays it instead
CONFIDENCE = 1.0
#: standard errors by which a root candidate trails the best before it leaves the race
DROP = 3.0
#: rounds before a root candidate may leave the race
MIN_ROUNDS = 4
#: share of the reward that a winning share carries; the rest ranks by score among the rest
WIN_WEIGHT = 0.8
#: below the root a node has at most ``WIDEN * visits ** 0.5`` children (at least one)
WIDEN = 0.5


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: ``iterations`` and/or ``ms``, whichever ends first."""

    iterations: int | None = None
    ms: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.ms is None:
            raise ValueError("a budget needs iterations or milliseconds")

    @classmethod
    def parse(cls, text: str) -> Budget:
        """A budget as people write it: ``300`` (iterations), ``200ms``, or both, ``300/200ms``."""
        iterations = ms = None
        for part in text.strip().split("/"):
            try:
                if part.endswith("ms"):
                    ms = float(part[:-2])
                else:
                    iterations = int(part)
            except ValueError:
                raise ValueError(f"a budget is N (iterations), Nms or N/Nms, not {text!r}") from None
        if (iterations is not None and iterations < 1) or (ms is not None and ms <= 0):
            raise ValueError(f"a budget is positive, not {text!r}")
        return cls(iterations, ms)

    def __str__(self) -> str:
        ms = None if self.ms is None else f"{self.ms:g}ms"
        return "/".join(str(p) for p in (self.iterations, ms) if p is not None)


DEFAULT_BUDGET = Budget(ms=1000)

T = TypeVar("T")

def bot_policy(bot: Callable) -> Policy:
    """A playout policy that asks a bot, showing it only the view of the seat to act."""

    def policy(game: Game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
        return bot(game.view(state, seat), moves, seat, rng)

    return policy


class Node:
    """The edge into this node: who moved, how often it was chosen and available, rewards per seat."""

    __slots__ = ("actor", "avail", "children", "move", "totals", "visits")

    def __init__(self, actor: int, move: dict | None) -> None:
        self.actor = actor
        self.move = move
        self.visits = 0
        self.avail = 1
        self.totals: list[float] = []  # per seat, sized by the first playout
        self.children: dict[bytes, Node] = {}

    def mean(self, seat: int) -> float:
        return self.totals[seat] / self.visits if self.visits else 0.0

    def ucb(self) -> float:
        if not self.visits:  # added by an iteration whose playout was dropped: try it first
            return math.inf
        return self.mean(self.actor) + EXPLORATION * math.sqrt(math.log(self.avail) / self.visits)

    def update(self, reward: list[float]) -> None:
        self.visits += 1
        if not self.totals:
            self.totals = [0.0] * len(reward)
        for p, r in enumerate(reward):
            self.totals[p] += r


def candidates(moves: list[dict]) -> list[dict]:
    """Concrete moves to search: each range at ``RANGE_POINTS`` evenly spaced values (ends included)."""
    out: list[dict] = []
    for move in moves:
        spans = [k for k, v in move.items() if is_span(v)]
        if not spans:
            out.append(move)
            continue
        variants = [dict(move)]
        for k in spans:
            lo, hi, step = move[k]["min"], move[k]["max"], move[k]["step"]
            n = (hi - lo) // step
            if n < 2 * RANGE_POINTS:  # a short range: evenly spaced, ends included
                offsets = {round(n * i / (RANGE_POINTS - 1)) for i in range(RANGE_POINTS)}
            else:  # a long one (a bid, an offer): near its low end, where a sound bid is, doubling
                offsets = {0} | {2 ** i for i in range(RANGE_POINTS - 2)} | {n}
            picks = sorted(lo + step * i for i in offsets)
            variants = [{**v, k: p} for v in variants for p in picks]
        out.extend(variants)
    return out


def key(move: dict) -> bytes:
    return orjson.dumps(move, option=orjson.OPT_SORT_KEYS)


def rewards(game: Game, state: dict) -> list[float]:
    """Each seat's reward in [0, 1]: its share of the win, plus a little for its score's standing."""
    outcome = game.final_result(state)
    scores = outcome.scores
    lo, hi = min(scores), max(scores)
    spread = (hi - lo) or 1
    share = 1 / len(outcome.winners) if outcome.winners else 0
    return [WIN_WEIGHT * (share if p in outcome.winners else 0) + (1 - WIN_WEIGHT) * (s - lo) / spread
            for p, s in enumerate(scores)]


def determinize(game: Game, frozen: bytes, seat: int, rng: random.Random) -> bytes:
    """One deal consistent with ``seat``'s view (given serialized: a sampled state may share lists with the
    view it was read from, so each deal starts from a fresh copy), serialized for each candidate to load."""
    return orjson.dumps(game.sample_state(orjson.loads(frozen), seat, rng))


def _descend(game: Game, state: dict, node: Node, hooks: Hooks, rng: random.Random) -> list[Node] | None:
    """Walk the tree below a root child on one determinization until a node is added or the game
    ends; the nodes passed, or None when the deal strands the seat to act (the iteration is dropped).

    A node may have ``WIDEN * sqrt(visits)`` children legal in this deal; while it may have more,
    the playout policy's move is added (or, if it is there already, a random untried one)."""
    path = []
    while not game.is_over(state):
        actor = game.to_act(state)[0]
        moves = game.legal_moves(state, actor)
        if not moves:  # the sampled deal left the seat to act stuck: it cannot be the true state
            return None
        legal, untried = [], []
        for m in candidates(moves):
            k = key(m)
            child = node.children.get(k)
            if child is None:
                untried.append((k, m))
            else:
                legal.append(child)
        best = None
        if not legal or (untried and len(legal) < WIDEN * math.sqrt(node.visits)):
            m = hooks.playout(game, state, actor, moves, rng)
            k = key(m)
            if k in node.children:
                k, m = untried[rng.randrange(len(untried))]
            best = Node(actor, m)
            node.children[k] = best
        else:
            for child in legal:
                child.avail += 1
            best = max(legal, key=Node.ucb)
        try:
            game.apply(state, actor, best.move, rng)
        except GameError:
            return None
        path.append(best)
        if not best.visits:
            return path
        node = best
    return path


def play_out(game: Game, state: dict, hooks: Hooks, moves_left: float, rng: random.Random,
             final: Callable[[Game, dict], T] = rewards,
             judged: Callable[[list[float]], T] = lambda values: values) -> T | None:
    """Play the determinization on with the playout policy; ``final(game, state)`` where the match ended,
    ``judged(evaluation)`` where the game's evaluation judged it past ``moves_left`` moves (the search: each
    seat's reward either way), None if it strands a seat with no legal move."""
    while not game.is_over(state):
        if moves_left <= 0 and hooks.evaluate is not None:
            values = hooks.evaluate(state)
            if values is not None:
                return judged(values)
        actor = game.to_act(state)[0]
        moves = game.legal_moves(state, actor)
        if not moves:
            return None
        game.apply(state, actor, hooks.playout(game, state, actor, moves, rng), rng)
        moves_left -= 1
    return final(game, state)


class Arm:
    """A root candidate: its subtree and its reward in each round (None where the deal refused it)."""

    __slots__ = ("key", "node", "results")

    def __init__(self, key: bytes, move: dict, seat: int) -> None:
        self.key = key
        self.node = Node(seat, move)
        self.results: list[float | None] = []

    def open_round(self) -> None:
        """A new round: no result yet (it stays None where the deal refused the move or stranded a seat)."""
        self.results.append(None)


def paired(a: Arm, b: Arm) -> tuple[float, float, int]:
    """Mean and standard error of ``a``'s reward minus ``b``'s over the rounds both were played."""
    diffs = [x - y for x, y in zip(a.results, b.results) if x is not None and y is not None]
    n = len(diffs)
    if n < 2:
        return (diffs[0] if diffs else 0.0), math.inf, n
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(max(var, 1e-4) / n), n


def average(arm: Arm) -> float:
    got = [r for r in arm.results if r is not None]
    return sum(got) / len(got) if got else -math.inf


class Race:
    """The root's race, the search's and the analysis's (workers/analysis.py): rounds of one deal each, on which
    every arm still racing makes its move with the same seed for the dice and shuffles after it (common random
    numbers), until ``budget`` (counted from ``since``) runs out; after each round from ``MIN_ROUNDS`` on, an arm
    that trails the best by ``DROP`` standard errors of the paired differences leaves ``racing`` (never ``keep``).

    Iterating yields ``(arm, state, rng)``: the deal after the arm's move, to play on with ``rng``; the caller
    records what the playout gave in ``arm.results[-1]`` (a search its reward, the analysis its win share).
    ``done`` counts the playouts begun, a deal that refused its move included."""

    def __init__(self, game: Game, view: dict, seat: int, arms: list[Arm], keep: Arm | None, budget: Budget,
                 rng: random.Random, since: float) -> None:
        self.game = game
        self.frozen = orjson.dumps(view)  # a fresh copy per deal: a sampled state may share lists with the view
        self.seat = seat
        self.arms = arms
        self.keep = keep
        self.rng = rng
        self.limit = budget.iterations if budget.iterations is not None else math.inf
        self.deadline = since + budget.ms / 1000 if budget.ms is not None else math.inf
        self.racing = list(arms)
        self.done = 0

    def _spent(self) -> bool:
        return self.done >= self.limit or (self.done > 0 and time.perf_counter() >= self.deadline)

    def __iter__(self) -> Iterator[tuple[Arm, dict, random.Random]]:
        rounds = 0
        while not self._spent():
            rounds += 1
            deal = determinize(self.game, self.frozen, self.seat, self.rng)
            chance = self.rng.getrandbits(64)
            for arm in self.arms:
                arm.open_round()
            for arm in self.racing:
                if self._spent():
                    break
                self.done += 1
                state = orjson.loads(deal)
                rng = random.Random(chance)  # the same dice and shuffles for every arm of this round
                try:
                    self.game.apply(state, self.seat, arm.node.move, rng)
                except GameError:  # this deal refuses the move: it cannot be the true state for it
                    continue
                yield arm, state, rng
            if rounds >= MIN_ROUNDS and len(self.racing) > 2:
                leader = max(self.racing, key=average)
                self.racing = [a for a in self.racing if a is leader or a is self.keep or not _trails(a, leader)]


def search(game: Game, view: dict, moves: list[dict], seat: int, rng: random.Random, budget: Budget,
           extra: dict | None = None, hooks: Hooks | None = None) -> tuple[dict, int]:
    """The move to play and how many iterations (playouts) chose it.

    ``extra`` is one more root candidate, the move to beat (the greedy bot's choice or the game's
    ``lead``); ``hooks`` the game's playout policy, evaluation and horizon.
    """
    hooks = hooks or Hooks()
    root_moves = candidates(moves)
    if extra is not None and all(key(extra) != key(m) for m in root_moves):
        root_moves.append(extra)
    if len(root_moves) == 1:
        return root_moves[0], 0
    since = time.perf_counter()
    arms = [Arm(key(m), m, seat) for m in root_moves]
    default = next((a for a in arms if extra is not None and a.key == key(extra)), None)
    if default is not None:  # played first in every round: the move to beat
        arms.remove(default)
        arms.insert(0, default)
    race = Race(game, view, seat, arms, default, budget, rng, since)
    horizon = hooks.horizon if hooks.horizon is not None else math.inf
    for arm, state, prng in race:
        path = _descend(game, state, arm.node, hooks, prng)
        if path is None:
            continue
        reward = play_out(game, state, hooks, horizon - len(path) - 1, prng)
        if reward is None:
            continue
        arm.node.update(reward)
        for node in path:
            node.update(reward)
        arm.results[-1] = reward[seat]
    played = [a for a in arms if a.node.visits]
    if not played:  # no sampled deal allowed any of our moves (a sample_state out of step with the view)
        return (extra or root_moves[0]), race.done
    best = max(played, key=average)
    if default is not None and not default.node.visits:
        best = default
    elif default is not None and default is not best:
        mean, se, _ = paired(best, default)
        if mean <= CONFIDENCE * se:
            best = default
    return best.node.move, race.done


def _trails(a: Arm, leader: Arm) -> bool:
    mean, se, n = paired(leader, a)
    return n >= MIN_ROUNDS and mean > DROP * se


def bot(game: Game, greedy: Callable | None, budget: Budget = DEFAULT_BUDGET, hooks: Hooks | None = None) -> Callable:
    """A ``choose(view, moves, seat, rng)`` for this game and budget."""

    lead = hooks.lead if hooks is not None and hooks.lead is not None else greedy

    def choose(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
        start = time.perf_counter()
        extra = lead(view, moves, seat, random.Random(rng.random())) if lead is not None else None
        if extra is not None and hooks is not None and hooks.lead_stands is not None and hooks.lead_stands(view):
            return extra
        left = budget
        if budget.ms is not None:  # the budget covers the whole decision, the move to beat included
            left = Budget(budget.iterations, budget.ms - (time.perf_counter() - start) * 1000)
        return search(game, view, moves, seat, rng, left, extra, hooks)[0]

    return choose
