"""One conformance suite for every game x player count x variant (OpenSpiel's random_sim_test).

docs/architecture.md, "The game contract".  Seeded random play to the end, where every few moves:
- hidden information: a per-game hook changes only what one observer cannot see; that
  observer's view, legal moves and share of the next move's events stay the same, and so does the
  refusal (code, reason and message) of every move of its own that the rules refuse: an error
  reveals nothing hidden;
- ``view(sample_state(view)) == view`` for every seat, and the sample's legal moves are the seat's;
  where the hook finds nothing hidden from a seat, its sample is the state itself;
- legal moves and ``apply`` agree both ways: every listed move (each end of a range) applies on
  a copy; fuzzed unlisted moves and moves by seats not to act are refused and change nothing (a
  seat not to act with the one reason ``not_your_turn``);
- every bot kind (service.games.BOT_KINDS) chooses a legal move from the seat's view;
- a move type the phase does not allow is refused with the one reason ``not_now``;
and after every move the state survives JSON, conforms to the game's declared shape (the keys of its
TypedDict, each of its JSON type; samples too) and the game's own invariants hold (a per-game hook,
which also recomputes the final scores independently).  At the end the match is
replayed from (seed, options, moves) with the referee's per-version randomness and must give
every seat's view and the result again.

The hooks live next to each game's rules tests: ``scrambles(state, observer, actor, rng)``
yields ``(changed_state, redact)`` pairs (``redact`` normalises the observer's events of the next
move, or returns None when that move reveals by design; ``redact`` None: events not compared),
``Invariants(state)`` with ``step(state, events)`` and ``end(state, result)``, and optionally
``fuzz(state, seat, rng)``: well-formed moves likely to be illegal now (the suite keeps those that
no legal-move template matches).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random

import pytest

from service.games import BOT_KINDS, GAMES
from service.games.base import NOT_NOW, GameError, InvalidMove, concretize, is_span, matches
from service.referee import match_rng, visible
from tests.games import test_big_shot, test_dice_party, test_paparazzo, test_picture_perfect, test_super_blatt
from workers.bots import Budget, make_bot

HOOKS = {m.GAME.name: m for m in (test_super_blatt, test_big_shot, test_paparazzo, test_dice_party,
                                  test_picture_perfect)}
#: seeds per configuration, and how often (in moves) the expensive checks run; chosen for suite time
SEEDS = {"super_blatt": 3, "big_shot": 2, "paparazzo": 1, "dice_party": 3, "picture_perfect": 1}
EVERY = {"super_blatt": 2, "big_shot": 9, "paparazzo": 29, "dice_party": 3, "picture_perfect": 9}

CASES = [(name, players, variant)
         for name, game in GAMES.items()
         for players in range(game.min_players, game.max_players + 1)
         for variant in game.variants]


def dump(obj) -> str:
    return json.dumps(obj, sort_keys=True)


def views_digest(game, state: dict, players: int) -> str:
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


def refusal(game, state: dict, seat: int, move: dict) -> tuple[str, str, str]:
    """The refusal of a move the rules must refuse (code, reason, message); the state is left as it was."""
    before = dump(state)
    with pytest.raises(GameError) as info:
        game.apply(state, seat, game.parse_move(move), random.Random(0))
    assert dump(state) == before, f"a refused {move} changed the state"
    return info.value.code, info.value.reason, info.value.message


def refused(game, state: dict, seat: int, move: dict) -> tuple[str, str, str]:
    answer = refusal(game, state, seat, move)
    if answer[0] != InvalidMove.code:  # a malformed move is refused before the rules look at the turn
        if seat not in game.to_act(state):
            assert answer[1] == "not_your_turn", "one reason for a move by a seat that owes no decision"
        elif move["type"] not in game.phases[game.phase(state)].moves:
            assert answer[1] == NOT_NOW, "one reason for a move the phase does not allow"
    return answer


def check_legal_and_apply_agree(game, hooks, state: dict, players: int, to_act: list[int], pool: list[dict],
                                rng: random.Random) -> dict[int, list[tuple[dict, tuple]]]:
    """Returns each seat's refused moves with their refusals (the hidden-information check replays them)."""
    refusals: dict[int, list[tuple[dict, tuple]]] = {}
    for seat in range(players):
        legal = game.legal_moves(state, seat)
        mine = refusals[seat] = []
        if seat not in to_act:
            assert legal == []
            for move in pool[-3:]:
                mine.append((move, refused(game, state, seat, move)))
            continue
        for template in legal if len(legal) <= 40 else rng.sample(legal, 40):
            for move in ends(template):
                assert game.parse_move(move) == move
                game.apply(copy.deepcopy(state), seat, move, random.Random(1))
        fuzz = [m for t in legal for m in beyond(t)] + rng.sample(pool, min(len(pool), 12))
        fuzz += hooks.fuzz(state, seat, rng) if hasattr(hooks, "fuzz") else []
        for move in fuzz:
            if not any(matches(move, t) for t in legal):
                mine.append((move, refused(game, state, seat, move)))
    return refusals


def check_hidden_information(game, hooks, state: dict, players: int, actor: int, move: dict,
                             refusals: dict[int, list[tuple[dict, tuple]]], rng: random.Random,
                             step: int) -> set[int]:
    """Returns the seats from which the hook finds nothing hidden (it changes nothing for them)."""
    open_to = set()
    for observer in [None, *range(players)]:
        hidden = False
        for other, redact in hooks.scrambles(state, observer, actor, rng):
            hidden = True
            assert dump(game.view(other, observer)) == dump(game.view(state, observer))
            if observer is not None:
                assert game.legal_moves(other, observer) == game.legal_moves(state, observer)
                for mine, answer in refusals[observer]:
                    assert refusal(game, other, observer, mine) == answer, \
                        f"the refusal of {mine} tells seat {observer} something it cannot see"
            if redact is None:
                continue
            mine, theirs = ([e for e in game.apply(s, actor, move, random.Random(step)) if visible(e, observer)]
                            for s in (copy.deepcopy(state), other))
            mine, theirs = redact(mine), redact(theirs)
            if mine is not None:
                assert mine == theirs
        if observer is not None and not hidden:
            open_to.add(observer)
    return open_to


def conforms(game, state: dict) -> None:
    """The state has the keys and JSON types its game declares (service/games/shape.py)."""
    game.shape.check(state)


def check_samples(game, state: dict, players: int, step: int, open_to: set[int]) -> None:
    for seat in range(players):
        view = game.view(state, seat)
        sample = game.sample_state(view, seat, random.Random(step))
        conforms(game, sample)
        sample = json.loads(dump(sample))
        if seat in open_to:
            assert dump(sample) == dump(state), f"nothing is hidden from seat {seat}: its sample is the state"
        assert dump(game.view(sample, seat)) == dump(view)
        assert game.legal_moves(sample, seat) == game.legal_moves(state, seat)
        assert game.to_act(sample) == game.to_act(state)


#: the search bot's budget here: iterations, so a check is quick and reproducible
SEARCH_BUDGET = Budget(iterations=1)


def searched(check: int) -> bool:
    """Whether the search bot is asked at the ``check``-th check of a game: at the 1st, 2nd, 4th, 8th...
    (early and late positions alike, a bounded number per game: a search plays whole games out)."""
    return check & (check - 1) == 0


def check_bots(game, state: dict, seat: int, step: int, search: bool) -> None:
    view, legal = game.view(state, seat), game.legal_moves(state, seat)
    for kind in BOT_KINDS if search else [k for k in BOT_KINDS if k != "search"]:
        bot = make_bot(game.name, kind, SEARCH_BUDGET if kind == "search" else None)
        move = bot(copy.deepcopy(view), copy.deepcopy(legal), seat, random.Random(step))
        assert any(matches(move, t) for t in legal), f"{kind} bot chose {move}, not legal"


def play(name: str, players: int, variant: dict, seed: int) -> None:
    game, hooks = GAMES[name], HOOKS[name]
    every = EVERY[name]
    options = game.load_options(players, dict(variant))
    state, opening = game.opening(players, options, match_rng(seed, 0))
    assert dump(state) == dump(game.setup(players, options, match_rng(seed, 0))), "opening() deals as setup()"
    conforms(game, state)
    invariants = hooks.Invariants(state)
    invariants.step(state, opening)
    choose = random.Random(seed)
    record, digests, pool = [], [views_digest(game, state, players)], []
    while not game.is_over(state):
        step = len(record)
        assert step < 20_000, "the game does not end"
        to_act = game.to_act(state)
        assert to_act, "a live match owes someone a decision"
        seat = choose.choice(to_act)
        legal = game.legal_moves(state, seat)
        assert legal, f"seat {seat} is to act but has no legal move"
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
            assert set(e) == {"type", "data", "to"} and (e["to"] == "all" or isinstance(e["to"], list))
        conforms(game, state)  # so JSON gives it back as it is
        state = json.loads(dump(state))  # the referee stores JSON
        invariants.step(state, events)
        record.append((seat, move))
        digests.append(views_digest(game, state, players))
    assert game.to_act(state) == []
    result = game.final_result(state).as_dict()
    assert len(result["scores"]) == players
    assert sorted(s for place in result["ranking"] for s in place) == list(range(players))
    assert set(result["winners"]) <= set(range(players))
    invariants.end(state, game.final_result(state))
    # replay from (seed, options, moves)
    again, _ = game.opening(players, game.load_options(players, dict(variant)), match_rng(seed, 0))
    assert views_digest(game, again, players) == digests[0]
    for step, (seat, move) in enumerate(record):
        game.apply(again, seat, game.parse_move(move), match_rng(seed, step + 1))
        assert views_digest(game, again, players) == digests[step + 1], f"replay differs after move {step}"
    assert dump(game.final_result(again).as_dict()) == dump(result)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_phases_are_declared_as_data(name):
    """Each phase names the move types it allows, each with its method (named, or given); together they are
    the game's moves."""
    game = GAMES[name]
    allowed = set()
    for phase in game.phases.values():
        for kind, method in phase.moves.items():
            assert kind in game.moves and callable(getattr(game, method) if isinstance(method, str) else method)
            allowed.add(kind)
        assert phase.hint
    assert allowed == set(game.moves)


@pytest.mark.parametrize("name,players,variant", CASES, ids=[f"{n}-{p}p-{json.dumps(v)}" for n, p, v in CASES])
def test_conformance(name, players, variant):
    for seed in range(SEEDS[name]):
        play(name, players, variant, seed)
