"""Records replay exactly through the game modules; every game's default move is legal and ends
the match when every seat plays it (the zombie seat of on_timeout "forfeit")."""

from __future__ import annotations

import random

import pytest

from service.core.record import FORMAT_VERSION, ReplayError, match_rng, rank_forfeits, replay
from service.games import GAMES, PLUGINS
from service.games.base import concretize, matches

MATCHES = 100  # per game and player count, cycling through the variants


def configs(name: str) -> list[tuple[int, dict]]:
    game = GAMES[name]
    return [(n, dict(v)) for n in range(game.min_players, game.max_players + 1) for v in game.variants]


def random_record(name: str, players: int, options: dict, k: int, policy=None) -> dict:
    """A random match played the referee's way (rng per version), written as a record."""
    game = GAMES[name]
    seed = f"replay-{k}"
    loaded = game.load_options(players, options)
    state, _ = game.opening(players, loaded, match_rng(seed, "setup"))
    rng, moves, version = random.Random(k), [], 1
    while not game.is_over(state):
        seat = rng.choice(game.to_act(state))
        move = policy(state, seat) if policy else concretize(rng.choice(game.legal_moves(state, seat)), rng)
        game.apply(state, seat, move, match_rng(seed, version))
        moves.append({"version": version + 1, "seat": seat, "move": move, "at": None})  # the version it made
        version += 1
    result = game.final_result(state).as_dict()
    result["seed"] = seed
    return {"format_version": FORMAT_VERSION, "game": name, "players": players, "options": loaded, "seed": seed,
            "clock": None, "seats": [{"seat": s, "name": f"p{s}", "bot": None, "forfeited": False}
                                     for s in range(players)],
            "moves": moves, "result": rank_forfeits(result, [])}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_random_matches_replay_to_the_recorded_result(name):
    game = GAMES[name]
    for players in range(game.min_players, game.max_players + 1):
        variants = game.variants
        for k in range(MATCHES):
            record = random_record(name, players, dict(variants[k % len(variants)]), k)
            assert replay(record) == record["result"], (name, players, k)


def test_a_changed_record_does_not_replay_to_its_result():
    record = random_record("super_blatt", 2, {}, 1)
    record["seed"] = "another seed"  # another deal: the moves are refused or the result differs
    try:
        assert replay(record) != record["result"]
    except ReplayError:
        pass
    record = random_record("super_blatt", 2, {}, 1)
    record["moves"] = record["moves"][:-1]
    with pytest.raises(ReplayError, match="not over"):
        replay(record)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_default_moves_are_legal_and_a_table_of_default_moves_ends(name):
    """Every seat playing only its default move (all seats out, or all timed out under "default")."""
    for players, options in configs(name):
        for k in range(3):
            def policy(state, seat):
                move = PLUGINS[name].default(state, seat)
                assert any(matches(move, m) for m in GAMES[name].legal_moves(state, seat)), move
                return move

            record = random_record(name, players, options, k, policy)
            assert replay(record) == record["result"]


def test_forfeited_seats_rank_last_and_win_nothing():
    outcome = {"scores": [5, 9, 7], "ranking": [[1], [2], [0]], "winners": [1], "breakdown": []}
    assert rank_forfeits(outcome, [1]) == {"scores": [5, 9, 7], "ranking": [[2], [0], [1]], "winners": [2],
                                           "breakdown": [], "forfeited": [1]}
    tie = {"scores": [4, 4, 1], "ranking": [[0, 1], [2]], "winners": [0, 1], "breakdown": []}
    assert rank_forfeits(tie, [0, 2])["ranking"] == [[1], [0], [2]]
    assert rank_forfeits(tie, [0, 2])["winners"] == [1]


def test_records_of_format_1_replay_still():
    """Format 1 recorded the version a move was applied at; format 2 the version it made (as its events and its
    webhook `move` say): both replay to their result."""
    record = random_record("big_shot", 3, {}, 2)
    old = {**record, "format_version": 1, "moves": [{**m, "version": m["version"] - 1} for m in record["moves"]]}
    assert replay(old) == replay(record) == record["result"]
    with pytest.raises(ReplayError, match="Unknown record format"):
        replay({**record, "format_version": 3})
