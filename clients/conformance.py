"""The conformance kit: one suite for any installed game (``referee conformance GAME``), the same one the
repository's tests run on its own games (tests/games/test_conformance.py); OpenSpiel's random_sim_test.

docs/architecture.md, "The game contract"; docs/writing-a-game.md.  Seeded random play to the end for
every player count and variant, where every ``every`` moves (the game's Plugin says how often):

- hidden information: a state that differs from the true one only where one observer cannot see (the
  game's ``scrambles`` hook, else the generic ones: the observer's ``sample_state`` and the Shape's hidden
  lists shuffled, each kept only when the observer's view stays the same) gives that observer the same
  legal moves and the same refusal (code, reason and message) of every move of its own that the rules
  refuse: an error reveals nothing hidden;
- ``view(sample_state(view)) == view`` for every seat, and the sample's legal moves are the seat's;
- legal moves and ``apply`` agree both ways: every listed move (each end of a range) applies on a copy;
  fuzzed unlisted moves and moves by seats not to act are refused and change nothing (a seat not to act
  with the one reason ``not_your_turn``, a move type the phase does not allow with ``not_now``);
- every bot kind chooses a legal move from the seat's view;
and after every move the state survives JSON and conforms to the game's declared shape, and the game's
own invariants hold (its ``Invariants`` hook, if any).  At the end the match is replayed from (seed,
options, moves) with the referee's per-version randomness and must give every seat's view and the result.

A game's conformance hooks (a module its Plugin names, each optional): ``scrambles(state, observer,
actor, rng)`` yields ``(changed_state, redact)`` pairs (``redact`` normalises the observer's events of the
next move, or returns None when that move reveals by design; ``redact`` None: events not compared),
``Invariants(state)`` with ``step(state, events)`` and ``end(state, result)``, and ``fuzz(state, seat,
rng)``: well-formed moves likely to be illegal now.
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from service.core.base import visible
from service.core.record import match_rng
from service.games import BOT_KINDS, GAMES, PLUGINS, Game, Plugin
from service.games.base import NOT_NOW, GameError, InvalidMove, concretize, is_span, matches
from service.games.shape import Hidden, Own
from workers.bots import Budget, make_bot

#: the search bot's budget here: iterations, so a check is quick and reproducible
SEARCH_BUDGET = Budget(iterations=1)


class Nonconformity(AssertionError):
    """A rule of the game contract that a game breaks."""


def ensure(ok: Any, message: str) -> None:
    if not ok:
        raise Nonconformity(message)


def dump(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True)


def views_digest(game: Game, state: dict, players: int) -> str:
    return hashlib.sha256(dump([game.view(state, s) for s in [None, *range(players)]]).encode()).hexdigest()


def ends(template: dict) -> list[dict]:
    """The concrete moves at both ends of every range of a legal-move template."""
    lo = {k: v["min"] if is_span(v) else v for k, v in template.items()}
    hi = {k: v["max"] if is_span(v) else v for k, v in template.items()}
    return [lo] if lo == hi else [lo, hi]


def beyond(template: dict) -> list[dict]:
    """Just outside each range of a template: one step below the minimum, one above the maximum."""
    out = []
    for k, v in template.items():
        if is_span(v):
            out += [{**ends(template)[0], k: v["min"] - v["step"]}, {**ends(template)[0], k: v["max"] + v["step"]}]
    return out


def refusal(game: Game, state: dict, seat: int, move: dict) -> tuple[str, str, str]:
    """The refusal of a move the rules must refuse (code, reason, message); the state is left as it was."""
    before = dump(state)
    try:
        game.apply(state, seat, game.parse_move(move), random.Random(0))
    except GameError as error:
        ensure(dump(state) == before, f"a refused {move} changed the state")
        return error.code, error.reason, error.message
    raise Nonconformity(f"seat {seat}: {move} is not a legal move, yet apply() took it")


def refused(game: Game, state: dict, seat: int, move: dict) -> tuple[str, str, str]:
    answer = refusal(game, state, seat, move)
    if answer[0] != InvalidMove.code:  # a malformed move is refused before the rules look at the turn
        if seat not in game.to_act(state):
            ensure(answer[1] == "not_your_turn", f"{move} by seat {seat}, which owes no decision, is refused with "
                                                 f"{answer[1]!r}, not the one reason 'not_your_turn'")
        elif move["type"] not in game.phases[game.phase(state)].moves:
            ensure(answer[1] == NOT_NOW, f"{move}, a move the phase does not allow, is refused with {answer[1]!r}, "
                                         "not the one reason 'not_now'")
    return answer


def check_legal_and_apply_agree(game: Game, hooks: Any, state: dict, players: int, to_act: list[int],
                                pool: list[dict], rng: random.Random) -> dict[int, list[tuple[dict, tuple]]]:
    """Returns each seat's refused moves with their refusals (the hidden-information check replays them)."""
    refusals: dict[int, list[tuple[dict, tuple]]] = {}
    for seat in range(players):
        legal = game.legal_moves(state, seat)
        mine = refusals[seat] = []
        if seat not in to_act:
            ensure(legal == [], f"seat {seat} owes no decision but has legal moves {legal[:3]}")
            for move in pool[-3:]:
                mine.append((move, refused(game, state, seat, move)))
            continue
        for template in legal if len(legal) <= 40 else rng.sample(legal, 40):
            for move in ends(template):
                ensure(game.parse_move(move) == move, f"the legal move {move} does not parse as itself")
                try:
                    game.apply(copy.deepcopy(state), seat, move, random.Random(1))
                except GameError as error:
                    raise Nonconformity(f"seat {seat}: the legal move {move} is refused: {error.message}") from None
        fuzz = [m for t in legal for m in beyond(t)] + rng.sample(pool, min(len(pool), 12))
        fuzz += hooks.fuzz(state, seat, rng) if hasattr(hooks, "fuzz") else []
        for move in fuzz:
            if not any(matches(move, t) for t in legal):
                mine.append((move, refused(game, state, seat, move)))
    return refusals


def generic_scrambles(game: Game, state: dict, observer: int | None, rng: random.Random) -> Iterator[dict]:
    """States that may differ from ``state`` only where ``observer`` cannot see: its own sample of the state
    (a seat's), and the shape's hidden lists and the other seats' own lists shuffled among themselves."""
    if observer is not None:
        yield json.loads(dump(game.sample_state(game.view(state, observer), observer, rng)))
    other = json.loads(dump(state))
    for key, kind in game.shape.keys.items():
        value = other[key]
        if isinstance(kind, Hidden) and isinstance(value, list):
            rng.shuffle(value)
        elif isinstance(kind, Own) and all(isinstance(e, list) for e in value):
            seats = [s for s in range(len(value)) if s != observer]
            pooled = [x for s in seats for x in value[s]]
            rng.shuffle(pooled)
            for s in seats:
                value[s], pooled = pooled[:len(value[s])], pooled[len(value[s]):]
    yield other


def check_hidden_information(game: Game, hooks: Any, state: dict, players: int, actor: int, move: dict,
                             refusals: dict[int, list[tuple[dict, tuple]]], rng: random.Random,
                             step: int) -> set[int]:
    """Returns the seats from which the game's hook finds nothing hidden (it changes nothing for them)."""
    open_to = set()
    for observer in [None, *range(players)]:
        hidden = False
        if hasattr(hooks, "scrambles"):
            changed = list(hooks.scrambles(state, observer, actor, rng))
        else:  # the generic ones: kept only where they leave the observer's view as it is
            mine = dump(game.view(state, observer))
            changed = [(s, None) for s in generic_scrambles(game, state, observer, rng)
                       if dump(game.view(s, observer)) == mine]
        for other, redact in changed:
            hidden = True
            ensure(dump(game.view(other, observer)) == dump(game.view(state, observer)),
                   f"seat {observer}'s view changes with what it cannot see")
            if observer is not None:
                ensure(game.legal_moves(other, observer) == game.legal_moves(state, observer),
                       f"seat {observer}'s legal moves change with what it cannot see")
                for mine, answer in refusals[observer]:
                    ensure(refusal(game, other, observer, mine) == answer,
                           f"the refusal of {mine} tells seat {observer} something it cannot see")
            if redact is None:
                continue
            mine, theirs = ([e for e in game.apply(s, actor, move, random.Random(step)) if visible(e, observer)]
                            for s in (copy.deepcopy(state), other))
            mine, theirs = redact(mine), redact(theirs)
            if mine is not None:
                ensure(mine == theirs, f"seat {observer}'s events of {move} change with what it cannot see")
        if observer is not None and not hidden:
            open_to.add(observer)
    return open_to


def conforms(game: Game, state: dict) -> None:
    """The state has the keys and JSON types its game declares (service/games/shape.py)."""
    try:
        game.shape.check(state)
    except ValueError as error:
        raise Nonconformity(f"the state does not conform to its shape: {error}") from None


def check_samples(game: Game, state: dict, players: int, step: int, open_to: set[int]) -> None:
    for seat in range(players):
        view = game.view(state, seat)
        sample = game.sample_state(view, seat, random.Random(step))
        conforms(game, sample)
        sample = json.loads(dump(sample))
        if seat in open_to:
            ensure(dump(sample) == dump(state), f"nothing is hidden from seat {seat}: its sample is the state")
        ensure(dump(game.view(sample, seat)) == dump(view), f"view(sample_state(view)) != view for seat {seat}")
        ensure(game.legal_moves(sample, seat) == game.legal_moves(state, seat),
               f"seat {seat}'s legal moves differ in its sample")
        ensure(game.to_act(sample) == game.to_act(state), f"to_act differs in seat {seat}'s sample")


def searched(check: int) -> bool:
    """Whether the search bot is asked at the ``check``-th check of a game: at the 1st, 2nd, 4th, 8th...
    (early and late positions alike, a bounded number per game: a search plays whole games out)."""
    return check & (check - 1) == 0


def check_bots(game: Game, state: dict, seat: int, step: int, search: bool) -> None:
    view, legal = game.view(state, seat), game.legal_moves(state, seat)
    for kind in BOT_KINDS if search else [k for k in BOT_KINDS if k != "search"]:
        bot = make_bot(game.name, kind, SEARCH_BUDGET if kind == "search" else None)
        move = bot(copy.deepcopy(view), copy.deepcopy(legal), seat, random.Random(step))
        ensure(any(matches(move, t) for t in legal), f"the {kind} bot chose {move}, not a legal move")


def check_phases(game: Game) -> None:
    """Each phase names the move types it allows, each with its method; together they are the game's moves."""
    allowed = set()
    for name, phase in game.phases.items():
        for kind, method in phase.moves.items():
            ensure(kind in game.moves, f"phase {name} allows {kind!r}, not a move type of the game")
            ensure(callable(getattr(game, method) if isinstance(method, str) else method),
                   f"phase {name}: {kind!r} has no method")
            allowed.add(kind)
        ensure(phase.hint, f"phase {name} has no hint")
    ensure(allowed == set(game.moves), f"move types no phase allows: {sorted(set(game.moves) - allowed)}")


def play(plugin: Plugin, players: int, variant: dict, seed: int) -> int:
    """One seeded match to the end with every check; returns the number of moves."""
    game, hooks = plugin.game, plugin.hooks()
    every = plugin.every
    options = game.load_options(players, dict(variant))
    state, opening = game.opening(players, options, match_rng(seed, 0))
    ensure(dump(state) == dump(game.setup(players, options, match_rng(seed, 0))), "opening() deals as setup()")
    conforms(game, state)
    invariants = hooks.Invariants(state) if hasattr(hooks, "Invariants") else None
    if invariants:
        invariants.step(state, opening)
    choose = random.Random(seed)
    record, digests, pool = [], [views_digest(game, state, players)], []
    while not game.is_over(state):
        step = len(record)
        ensure(step < 20_000, "the game does not end")
        to_act = game.to_act(state)
        ensure(to_act, "a live match owes someone a decision")
        seat = choose.choice(to_act)
        legal = game.legal_moves(state, seat)
        ensure(legal, f"seat {seat} is to act but has no legal move")
        pool += [concretize(t, choose) for t in legal[:4]]
        del pool[:-200]
        move = concretize(choose.choice(legal), choose)
        if step % every == 0:
            refusals = check_legal_and_apply_agree(game, hooks, state, players, to_act, pool, choose)
            open_to = check_hidden_information(game, hooks, state, players, seat, move, refusals, choose, step)
            check_samples(game, state, players, step, open_to)
            check_bots(game, state, seat, step, searched(step // every + 1))
        events = game.apply(state, seat, game.parse_move(move), match_rng(seed, step + 1))
        for e in events:
            ensure(set(e) == {"type", "data", "to"} and (e["to"] == "all" or isinstance(e["to"], list)),
                   f"an event is not {{type, data, to}}: {e}")
        conforms(game, state)  # so JSON gives it back as it is
        state = json.loads(dump(state))  # the referee stores JSON
        if invariants:
            invariants.step(state, events)
        record.append((seat, move))
        digests.append(views_digest(game, state, players))
    ensure(game.to_act(state) == [], "nobody is to act once the match is over")
    result = game.final_result(state).as_dict()
    ensure(len(result["scores"]) == players, "one score per seat")
    ensure(sorted(s for place in result["ranking"] for s in place) == list(range(players)),
           "the ranking places every seat once")
    ensure(set(result["winners"]) <= set(range(players)), "the winners are seats")
    if invariants:
        invariants.end(state, game.final_result(state))
    again, _ = game.opening(players, game.load_options(players, dict(variant)), match_rng(seed, 0))
    ensure(views_digest(game, again, players) == digests[0], "replay: the opening differs")
    for step, (seat, move) in enumerate(record):
        game.apply(again, seat, game.parse_move(move), match_rng(seed, step + 1))
        ensure(views_digest(game, again, players) == digests[step + 1], f"replay differs after move {step}")
    ensure(dump(game.final_result(again).as_dict()) == dump(result), "replay: the result differs")
    return len(record)


@dataclass(frozen=True)
class Case:
    """One configuration of a game: a player count, a variant (options) and a seed."""

    game: str
    players: int
    variant: dict
    seed: int

    def command(self) -> str:
        return (f"referee conformance {self.game} --players {self.players} "
                f"--variant '{json.dumps(self.variant, sort_keys=True)}' --seed {self.seed}")


def cases(plugin: Plugin, seeds: int | None = None) -> list[Case]:
    """Every player count x every variant x the game's number of seeds."""
    game = plugin.game
    return [Case(game.name, players, dict(variant), seed)
            for players in range(game.min_players, game.max_players + 1)
            for variant in game.variants
            for seed in range(plugin.seeds if seeds is None else seeds)]


def resolve(name: str) -> list[Plugin]:
    """A game's name, or the distribution (package) that installs one or more games."""
    if name in PLUGINS:
        return [PLUGINS[name]]
    from importlib.metadata import entry_points

    mine = [ep.name for ep in entry_points(group="referee.games")
            if ep.dist is not None and ep.dist.name.replace("-", "_").lower() == name.replace("-", "_").lower()
            or ep.value.split(":")[0].split(".")[0] == name]
    if not mine:
        raise LookupError(f"{name!r} is neither an installed game ({', '.join(GAMES)}) nor a package that installs one")
    return [PLUGINS[n] for n in mine if n in PLUGINS]


def run(names: list[str], players: int | None = None, variant: dict | None = None, seed: int | None = None,
        seeds: int | None = None, out: Any = None) -> int:
    """The kit from the command line: every case, what fails with the command that reproduces it; the
    number of failures."""
    out = out or sys.stdout
    failures = 0
    for plugin in [p for name in names for p in resolve(name)]:
        started = time.perf_counter()
        try:
            check_phases(plugin.game)
        except Nonconformity as error:
            failures += 1
            print(f"FAIL {plugin.name}: phases: {error}", file=out)
        chosen = [c for c in cases(plugin, seeds)
                  if (players is None or c.players == players) and (variant is None or c.variant == variant)
                  and (seed is None or c.seed == seed)]
        if seed is not None and not any(c.seed == seed for c in chosen):
            chosen = [Case(c.game, c.players, c.variant, seed) for c in cases(plugin, 1)
                      if (players is None or c.players == players) and (variant is None or c.variant == variant)]
        moves = 0
        for case in chosen:
            try:
                moves += play(plugin, case.players, case.variant, case.seed)
            except Exception as error:  # a game's own exception is a failure to report, as a broken rule
                failures += 1
                where = traceback.extract_tb(error.__traceback__)[-1]
                print(f"FAIL {case.game} {case.players} players, variant {json.dumps(case.variant)}, seed "
                      f"{case.seed}: {type(error).__name__}: {error}\n     at {where.filename}:{where.lineno}\n"
                      f"     reproduce: {case.command()}", file=out)
        took = time.perf_counter() - started
        print(f"{plugin.name}: {len(chosen)} matches, {moves} moves, {took:.1f} s", file=out)
    print("conformance: " + (f"{failures} failure(s)" if failures else "every check passed"), file=out)
    return failures
