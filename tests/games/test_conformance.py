"""Every registered game passes the same random-simulation conformance test (OpenSpiel style).

design.md, the game contract: for every game, player count and variant, random play reaches the
end; the state survives a JSON round trip after every move; every legal move parses and applies;
a seat that is not to act is refused without any change; views are JSON for every seat and the
spectator; the result names every seat.
"""

from __future__ import annotations

import json
import random

import pytest

from service.games import GAMES
from service.games.base import GameError, concretize

CASES = [(name, players, variant)
         for name, game in GAMES.items()
         for players in range(game.min_players, game.max_players + 1)
         for variant in game.variants]


@pytest.mark.parametrize("name,players,variant", CASES, ids=[f"{n}-{p}p-{json.dumps(v)}" for n, p, v in CASES])
def test_random_play_to_the_end(name, players, variant):
    game = GAMES[name]
    for seed in range(2):
        options = game.load_options(players, dict(variant))
        opened, opening = game.opening(players, options, random.Random(seed))
        for e in opening:
            assert set(e) == {"type", "data", "to"} and (e["to"] == "all" or isinstance(e["to"], list))
        rng = random.Random(seed)
        state = game.setup(players, options, rng)
        assert json.dumps(state) == json.dumps(opened), "opening() deals exactly as setup() does"
        steps = 0
        while not game.is_over(state):
            to_act = game.to_act(state)
            assert to_act, "a live match owes someone a decision"
            if seed == 0 or steps % 10 == 0:  # every seat's view and legal moves (the long games: sampled)
                for seat in range(players):
                    json.dumps(game.view(state, seat))
                    if seat not in to_act:
                        assert game.legal_moves(state, seat) == []
                json.dumps(game.view(state, None))
            seat = rng.choice(to_act)
            legal = game.legal_moves(state, seat)
            assert legal, f"seat {seat} is to act but has no legal move"
            move = concretize(rng.choice(legal), rng)
            assert game.parse_move(move) == move
            others = [s for s in range(players) if s not in to_act]
            if others:
                before = json.dumps(state)
                with pytest.raises(GameError):
                    game.apply(state, others[0], move, rng)
                assert json.dumps(state) == before
            events = game.apply(state, seat, move, rng)
            for e in events:
                assert set(e) == {"type", "data", "to"} and (e["to"] == "all" or isinstance(e["to"], list))
            json.dumps(events)
            state = json.loads(json.dumps(state))
            steps += 1
            assert steps < 20000, "the game does not end"
        assert game.to_act(state) == []
        result = game.final_result(state).as_dict()
        assert len(result["scores"]) == players
        assert sorted(s for place in result["ranking"] for s in place) == list(range(players))
        assert set(result["winners"]) <= set(range(players))
        json.dumps(result)
