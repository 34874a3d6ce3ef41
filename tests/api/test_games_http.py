"""Every game over HTTP: human and bot seats to the end on real workers; nothing sealed leaks."""

from __future__ import annotations

import random

import pytest

from clients.client import RefereeError
from service.games import GAMES
from service.games.base import concretize
from tests.conftest import wait_for

CASES = [(name, game.min_players if name != "big_shot" else 3) for name, game in GAMES.items()]


@pytest.mark.parametrize("name,players", CASES, ids=[c[0] for c in CASES])
def test_full_match_with_humans_and_bots(ref, name, players):
    """Seats 0 and 1 are people playing random legal moves over HTTP; the rest are greedy/random bots."""
    seats = [{"name": "ann"}, {"name": "bob"}] + [{"bot": ("greedy", "random")[i % 2]} for i in range(players - 2)]
    m = ref.create_match(name, players, seats, seed=7)
    tokens = {s["seat"]: s["token"] for s in m["seats"] if s["token"]}
    rng = random.Random(7)
    snap = ref.match(m["id"], tokens[0])
    steps = 0
    while snap["status"] == "active":
        mine = [s for s in snap["to_act"] if s in tokens]
        if not mine:
            snap = ref.match(m["id"], tokens[0], since=snap["version"], wait=10)
            continue
        seat = rng.choice(mine)
        legal = ref.legal_moves(m["id"], tokens[seat])
        try:
            ref.move(m["id"], tokens[seat], concretize(rng.choice(legal["moves"]), rng),
                     expected_version=legal["version"])
        except RefereeError as exc:
            assert exc.code == "stale_version"  # a bot moved in between (simultaneous decisions)
        snap = ref.match(m["id"], tokens[0])
        steps += 1
        assert steps < 5000
    final = wait_for(lambda: (s := ref.match(m["id"], tokens[0]))["status"] == "finished" and s, timeout=60)
    assert sorted(p for place in final["result"]["ranking"] for p in place) == list(range(players))

    # each seat's log holds its own moves only; the spectator's holds none
    for seat, token in tokens.items():
        for e in ref.events(m["id"], token)["events"]:
            if e["type"] == "moved":
                assert e["data"]["seat"] == seat
    assert not [e for e in ref.events(m["id"])["events"] if e["type"] == "moved"]

    if name == "picture_perfect":
        for seat in range(players):
            svg = ref.photo(m["id"], seat)
            assert svg.lstrip().startswith("<") and "</svg>" in svg
    else:
        with pytest.raises(RefereeError) as exc:
            ref.photo(m["id"], 0)
        assert exc.value.code == "not_found"


def test_opening_events_reach_the_log_privately_where_private(ref):
    """Picture Perfect's Guide, ROUND FLOW step 1 / service/games/picture_perfect/rules.md, "Looking": every look is a
    private event, the first round's included; Dice Party's start roll (Das Vorglühen) is public."""
    m = ref.create_match("picture_perfect", 3, [{"name": "a"}, {"name": "b"}, {"name": "c"}], seed=2)
    for seat in range(3):
        looks = [e for e in ref.events(m["id"], m["seats"][seat]["token"])["events"] if e["type"] == "looked"]
        assert looks and all(e["data"]["reason"] == "step_1" for e in looks)
    assert not [e for e in ref.events(m["id"])["events"] if e["type"] == "looked"]
    m = ref.create_match("dice_party", 2, [{"name": "a"}, {"name": "b"}], seed=2)
    started = [e for e in ref.events(m["id"])["events"] if e["type"] == "round_started"]
    assert started and started[0]["data"]["start_rolls"]


def test_photo_before_the_end_is_refused(ref):
    m = ref.create_match("picture_perfect", 2, [{"name": "a"}, {"name": "b"}])
    with pytest.raises(RefereeError) as exc:
        ref.photo(m["id"], 0)
    assert exc.value.code == "not_over" and exc.value.status == 409


@pytest.mark.parametrize("name", sorted(GAMES))
def test_each_token_gets_its_own_seat_and_only_its_own_moves_over_http(http, name):
    """Random play through the API: every token is served its own seat's view, a seat not to act has no
    legal moves, and a move's answer echoes no other seat's move (the game-level tests change hidden
    parts of states and compare views; this checks the referee adds no leak of its own)."""
    game = GAMES[name]
    players = game.min_players
    r = http.post("/matches", json={"game": name, "players": players, "seed": 3,
                                    "seats": [{"name": f"p{i}"} for i in range(players)]})
    tokens = [s["token"] for s in r.json["seats"]]
    mid = r.json["id"]
    rng = random.Random(3)
    for _ in range(60):
        snap = http.get(f"/matches/{mid}", headers={"Authorization": f"Bearer {tokens[0]}"}).json
        if snap["status"] != "active":
            break
        for seat in range(players):
            head = {"Authorization": f"Bearer {tokens[seat]}"}
            view = http.get(f"/matches/{mid}", headers=head).json
            assert view["seat"] == seat and view["view"].get("you", seat) == seat
            if seat not in snap["to_act"]:
                assert http.get(f"/matches/{mid}/legal-moves", headers=head).json["moves"] == []
        seat = rng.choice(snap["to_act"])
        head = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = http.get(f"/matches/{mid}/legal-moves", headers=head).json
        r = http.post(f"/matches/{mid}/moves", headers=head,
                      json={"move": concretize(rng.choice(legal["moves"]), rng)})
        assert r.status_code == 200, r.json
        for e in r.json["events"]:
            assert e["type"] != "moved" or e["data"]["seat"] == seat
