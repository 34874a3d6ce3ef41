"""The ``search`` bot: single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012,
as in OpenSpiel's ``ISMCTSBot``), the same code for every game.

Each iteration deals one determinization with the game's ``sample_state(view, seat, rng)`` --
the bot never sees the true state -- and walks one tree keyed by moves, choosing among the moves
legal in that determinization by UCB with availability counts, then plays the deal out (random
moves by default; a game may name a better playout policy).
Every node keeps each seat's reward, and the seat to act at a node picks by its own reward
(max^n), so the same search serves 2 to 6 players.  Simultaneous decisions are walked one seat
at a time in ``to_act`` order (our seat first at the root).

A numeric range in a legal move is searched at a few evenly spaced values.  The root also
considers the greedy bot's move, and that move stands unless another beats it by a standard
error: playouts are noisy, and a few of them should not overrule a good heuristic.

The budget is iterations, milliseconds, or both (whichever ends first).  With iterations only,
a decision is a function of (view, moves, seed): reproducible.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import orjson

from service.games import Game, GameError
from service.games.base import concretize, is_span

#: exploration constant of UCB1 (rewards lie in [0, 1])
EXPLORATION = 0.7
#: values tried for one numeric range in a move
RANGE_POINTS = 5
#: standard errors by which a move must beat the greedy bot's before the search plays it instead
CONFIDENCE = 1.0
#: share of the reward that a winning share carries; the rest ranks by score among the rest
WIN_WEIGHT = 0.8


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: ``iterations`` and/or ``ms``, whichever ends first."""

    iterations: int | None = None
    ms: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.ms is None:
            raise ValueError("a budget needs iterations or milliseconds")


DEFAULT_BUDGET = Budget(ms=1000)


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
            picks = sorted({lo + step * round(n * i / (RANGE_POINTS - 1)) for i in range(RANGE_POINTS)})
            variants = [{**v, k: p} for v in variants for p in picks]
        out.extend(variants)
    return out


def _key(move: dict) -> bytes:
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


Policy = Callable[[Game, dict, int, list[dict], random.Random], dict]


def random_policy(game: Game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    return concretize(rng.choice(moves), rng)


def bot_policy(bot: Callable) -> Policy:
    """A playout policy that asks a bot, showing it only the view of the seat to act."""

    def policy(game: Game, state: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
        return bot(game.view(state, seat), moves, seat, rng)

    return policy


def _descend(game: Game, state: dict, node: Node, actor: int, legal: list[dict],
             rng: random.Random) -> list[Node] | None:
    """Walk the tree on one determinization by UCB until a new node is added or the game ends;
    the nodes passed, or None when the sampled deal refuses a root move or strands the seat to act
    (the iteration is dropped)."""
    path = []
    while True:
        if not legal:  # the sampled deal left the seat to act stuck: it cannot be the true state
            return None
        untried = []
        best, best_ucb = None, -math.inf
        for m in legal:
            k = _key(m)
            child = node.children.get(k)
            if child is None:
                untried.append((k, m))
                continue
            child.avail += 1
            u = child.ucb()
            if u > best_ucb:
                best, best_ucb = child, u
        if untried:
            k, m = untried[rng.randrange(len(untried))]
            best = Node(actor, m)
        try:
            game.apply(state, actor, best.move, rng)
        except GameError:
            return None
        if untried:
            node.children[k] = best
        path.append(best)
        node = best
        if untried or game.is_over(state):
            return path
        actor = game.to_act(state)[0]
        legal = candidates(game.legal_moves(state, actor))


def search(game: Game, view: dict, moves: list[dict], seat: int, rng: random.Random, budget: Budget,
           extra: dict | None = None, playout: Policy = random_policy) -> tuple[dict, int]:
    """The move to play and how many iterations chose it.

    ``extra`` is one more root candidate (the greedy bot's choice); ``playout`` plays each
    determinization to the end once it leaves the tree.
    """
    root_moves = candidates(moves)
    if extra is not None and all(_key(extra) != _key(m) for m in root_moves):
        root_moves.append(extra)
    if len(root_moves) == 1:
        return root_moves[0], 0
    deadline = time.perf_counter() + budget.ms / 1000 if budget.ms is not None else math.inf
    limit = budget.iterations if budget.iterations is not None else math.inf
    root = Node(seat, None)
    frozen = orjson.dumps(view)  # a fresh copy per deal: a sampled state may share lists with the view
    done = 0
    while done < limit and (done == 0 or time.perf_counter() < deadline):
        done += 1
        state = game.sample_state(orjson.loads(frozen), seat, rng)
        path = _descend(game, state, root, seat, root_moves, rng)
        if path is None:
            continue
        if not _play_out(game, state, playout, rng):
            continue
        reward = rewards(game, state)
        for child in path:
            child.visits += 1
            if not child.totals:
                child.totals = [0.0] * len(reward)
            for p, r in enumerate(reward):
                child.totals[p] += r
    if not root.children:  # no sampled deal allowed any of our moves (a sample_state out of step with the view)
        return (extra or root_moves[0]), done
    best = max(root.children.values(), key=lambda c: (c.visits, c.mean(seat)))
    default = root.children.get(_key(extra)) if extra is not None else None
    if default is not None and default is not best and not _clearly_better(best, default, seat):
        best = default
    return best.move, done


def _play_out(game: Game, state: dict, playout: Policy, rng: random.Random) -> bool:
    """Play the determinization to its end; False if it strands a seat with no legal move."""
    while not game.is_over(state):
        actor = game.to_act(state)[0]
        moves = game.legal_moves(state, actor)
        if not moves:
            return False
        game.apply(state, actor, playout(game, state, actor, moves, rng), rng)
    return True


def _clearly_better(a: Node, b: Node, seat: int) -> bool:
    """Whether ``a``'s mean reward beats ``b``'s by more than ``CONFIDENCE`` standard errors.

    Playouts are noisy (dice, random play): the greedy bot's move stands unless the search has
    seen enough to overrule it.  Rewards lie in [0, 1], so each has a variance of at most 1/4.
    """
    if not a.visits or not b.visits:
        return bool(a.visits)
    margin = CONFIDENCE * math.sqrt(0.25 / a.visits + 0.25 / b.visits)
    return a.mean(seat) - b.mean(seat) > margin


def bot(game: Game, greedy: Callable | None, budget: Budget = DEFAULT_BUDGET,
        playout: Policy = random_policy) -> Callable:
    """A ``choose(view, moves, seat, rng)`` for this game and budget."""

    def choose(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
        extra = greedy(view, moves, seat, random.Random(rng.random())) if greedy is not None else None
        return search(game, view, moves, seat, rng, budget, extra, playout)[0]

    return choose
