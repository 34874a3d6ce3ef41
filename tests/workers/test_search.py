"""The search bot: legal, reproducible with an iteration budget, bounded by a time budget."""

from __future__ import annotations

import dataclasses
import random
import threading
import time

import pytest

from service.games import GAMES
from service.games.base import concretize, matches
from workers.bots import GREEDY, SEARCH, make_bot
from workers.bots.search import Budget, candidates, search
from workers.bots.search import bot as search_bot


def positions(name: str, count: int, seed: int):
    """Positions along random games at the smallest table: (state, seat to act)."""
    game = GAMES[name]
    rng = random.Random(seed)
    players = game.min_players
    state = game.setup(players, game.load_options(players, {}), rng)
    out = []
    while not game.is_over(state) and len(out) < count:
        seat = game.to_act(state)[0]
        if rng.random() < 0.3:
            out.append((game.view(state, seat), game.legal_moves(state, seat), seat))
        game.apply(state, seat, concretize(rng.choice(game.legal_moves(state, seat)), rng), rng)
    return out


@pytest.mark.parametrize("name", sorted(GAMES))
def test_search_plays_legal_moves_reproducibly_for_a_seed(name):
    bot = make_bot(name, "search", Budget(iterations=12))
    for view, moves, seat in positions(name, 4, seed=5):
        first = bot(view, moves, seat, random.Random(9))
        assert any(matches(first, m) for m in moves), first
        assert bot(view, moves, seat, random.Random(9)) == first  # same seed, same budget: same move


def test_time_budget_bounds_a_decision():
    view, moves, seat = positions("super_blatt", 1, seed=3)[0]
    start = time.perf_counter()
    _, iterations = search(GAMES["super_blatt"], view, moves, seat, random.Random(1), Budget(ms=60))
    elapsed = time.perf_counter() - start
    assert iterations >= 1 and elapsed < 0.6


def test_iteration_budget_is_counted():
    view, moves, seat = positions("dice_party", 1, seed=4)[0]
    moves = moves if len(candidates(moves)) > 1 else [{"type": "steal", "count": {"min": 0, "max": 3, "step": 1}}]
    _, iterations = search(GAMES["dice_party"], view, moves, seat, random.Random(2), Budget(iterations=17))
    assert iterations == 17


def test_ranges_are_searched_at_a_few_values_ends_included():
    got = candidates([{"type": "bid", "amount": {"min": 2, "max": 20, "step": 2}}, {"type": "pass"}])
    amounts = [m["amount"] for m in got if m["type"] == "bid"]
    assert amounts[0] == 2 and amounts[-1] == 20 and len(amounts) == 5 and all(a % 2 == 0 for a in amounts)
    assert {"type": "pass"} in got


def test_the_greedy_move_is_a_root_candidate():
    """With a single iteration the search has looked at one move; the greedy bot's is among those it may pick."""
    name = "super_blatt"
    view, moves, seat = positions(name, 1, seed=6)[0]
    greedy = GREEDY[name](view, moves, seat, random.Random(0))
    move, _ = search(GAMES[name], view, [], seat, random.Random(0), Budget(iterations=5), extra=greedy)
    assert move == greedy  # the only candidate


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_games_playout_policy_plays_legal_moves_and_its_evaluation_is_a_reward_per_seat(name):
    """SEARCH in each game's bot module: its playout policy, on states sampled from a seat's view,
    only makes legal moves; its evaluation gives every seat a reward in [0, 1]."""
    game, hooks = GAMES[name], SEARCH[name]
    rng = random.Random(11)
    for view, _moves, seat in positions(name, 6, seed=8):
        state = game.sample_state(view, seat, rng)
        for _ in range(30):
            if game.is_over(state):
                break
            actor = game.to_act(state)[0]
            legal = game.legal_moves(state, actor)
            move = hooks.playout(game, state, actor, legal, rng)
            assert any(matches(move, m) for m in legal), move
            game.apply(state, actor, move, rng)
            if hooks.evaluate is not None and not game.is_over(state):
                reward = hooks.evaluate(state)
                assert reward is None or (len(reward) == state["players"] and all(0 <= r <= 1 for r in reward))


@pytest.mark.parametrize("name", sorted(GAMES))
def test_one_iteration_plays_the_greedy_move(name):
    """The greedy bot's move is tried first and stands until another beats it: a single playout
    cannot overrule it."""
    for view, moves, seat in positions(name, 3, seed=12):
        greedy = GREEDY[name](view, moves, seat, random.Random(4))
        move, _ = search(GAMES[name], view, moves, seat, random.Random(4), Budget(iterations=1), extra=greedy,
                         hooks=SEARCH[name])
        assert move == greedy


def test_a_games_lead_is_the_move_to_beat():
    """A game's ``lead`` (a deeper planner than its greedy bot) takes the greedy move's place at the root."""
    name = "super_blatt"
    view, moves, seat = positions(name, 1, seed=6)[0]
    pick = concretize(moves[-1], random.Random(0))
    hooks = dataclasses.replace(SEARCH[name], lead=lambda view, moves, seat, rng: pick)
    bot = search_bot(GAMES[name], GREEDY[name], Budget(iterations=1), hooks)
    assert bot(view, moves, seat, random.Random(3)) == pick


def greedy_until(name: str, rng: random.Random, reached) -> dict:
    """A 3-player match of the game, its greedy bots playing until ``reached(state)``."""
    game = GAMES[name]
    state = game.setup(3, game.load_options(3, {}), rng)
    while not reached(state):
        seat = game.to_act(state)[0]
        game.apply(state, seat, GREEDY[name](game.view(state, seat), game.legal_moves(state, seat), seat, rng), rng)
    return state


def test_picture_perfects_final_placement_is_the_anneals():
    """At the final placement the search plays the photo its lead anneals, guest by guest: a sampled deal
    shows the photos of the seats done before it as empty, and a search there used to end its own photo
    early (``done``: a false win in the fewest moves)."""
    name = "picture_perfect"
    game, hooks = GAMES[name], SEARCH[name]
    rng = random.Random(7)
    state = greedy_until(name, rng, lambda s: game.phase(s) == "placement" and game.to_act(s)[0] == 2)
    bot = search_bot(game, GREEDY[name], Budget(iterations=100), hooks)
    placed = 0
    while game.to_act(state) == [2]:  # the last seat to place, whose "done" ends the match in a sample
        view, moves = game.view(state, 2), game.legal_moves(state, 2)
        seed = random.Random(placed).random()
        lead = hooks.lead(view, moves, 2, random.Random(seed))
        move = bot(view, moves, 2, random.Random(placed))
        assert move == lead
        placed += move["type"] == "place"
        game.apply(state, 2, move, rng)
    assert placed >= 5


def test_picture_perfects_playout_photos_of_two_threads_do_not_mix():
    """A playout poses the photo it built, one step per call, kept between calls; a playout in another thread
    (clients/botrun.py plays seats in threads) between two of its steps must not make it build another."""
    name = "picture_perfect"
    game, hooks = GAMES[name], SEARCH[name]

    def at_placement(seed: int) -> dict:
        return greedy_until(name, random.Random(seed), lambda s: game.phase(s) == "placement")

    def pose(state: dict, rng: random.Random, between=None) -> list[dict]:
        seat, got = game.to_act(state)[0], []
        while seat in game.to_act(state) and (not got or got[-1]["type"] != "done"):
            move = hooks.playout(game, state, seat, game.legal_moves(state, seat), rng)
            got.append(move)
            game.apply(state, seat, move, rng)
            if between is not None:
                between()
        return got

    alone = pose(at_placement(1), random.Random(5))

    def other_thread() -> None:
        worker = threading.Thread(target=pose, args=(at_placement(2), random.Random(6)))
        worker.start()
        worker.join()

    assert len(alone) >= 3
    assert pose(at_placement(1), random.Random(5), between=other_thread) == alone
