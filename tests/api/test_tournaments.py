"""The tournaments' rulings (service/competition/tournaments.py, docs/tournaments.md): points by place, Buchholz and
Sonneborn-Berger, round robin schedules, Swiss pairings with byes and no avoidable rematch, fair seats; and
POST /tournaments' refusals.  Pure functions, and the app in process: no server."""

from __future__ import annotations

import itertools
import random
import uuid
from collections import Counter

import pytest

from service.competition.tournaments import place_points, round_robin, seat_order, standings, swiss_round


def test_points_by_place_share_ties_and_are_the_chess_ones_for_two():
    assert place_points([[0], [1]], 2) == [1.0, 0.0]
    assert place_points([[0, 1]], 2) == [0.5, 0.5]
    assert place_points([[2], [0], [1]], 3) == [0.5, 0.0, 1.0]
    assert place_points([[1], [0, 3], [2]], 4) == pytest.approx([0.5, 1.0, 0.0, 0.5])


def test_buchholz_and_sonneborn_berger_break_ties_as_stated():
    # a beat b, b beat c, c beat a: all on 1 point; then d, who lost to everyone
    played = [{"seats": [0, 1], "points": [1.0, 0.0], "forfeits": []},
              {"seats": [1, 2], "points": [1.0, 0.0], "forfeits": []},
              {"seats": [2, 0], "points": [1.0, 0.0], "forfeits": []},
              {"seats": [0, 3], "points": [0.5, 0.5], "forfeits": []}]
    table = {row["participant"]: row for row in standings(["a", "b", "c", "d"], played, [], 0.0)}
    assert table["a"]["points"] == 1.5 and table["d"]["points"] == 0.5
    assert table["a"]["buchholz"] == 1.0 + 1.0 + 0.5  # b, c and d's final points
    assert table["a"]["sonneborn_berger"] == 1.0 * 1.0 + 0.5 * 0.5  # beat b (1), drew d (0.5)
    assert table["b"]["buchholz"] == 1.5 + 1.0 and table["b"]["sonneborn_berger"] == 1.0
    assert [r["participant"] for r in standings(["a", "b", "c", "d"], played, [], 0.0)][:1] == ["a"]
    tied = standings(["x", "y"], [{"seats": [0, 1], "points": [0.5, 0.5], "forfeits": [1]}], [[1]], 1.0)
    assert [r["participant"] for r in tied] == ["y", "x"] and tied[0]["byes"] == 1 and tied[1]["forfeits"] == 0
    assert tied[0]["forfeits"] == 1 and tied[0]["buchholz"] == 0.5  # a bye adds points, nothing to Buchholz


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_a_two_seat_round_robin_pairs_everyone_once_nobody_twice_a_round(n):
    rounds = round_robin(n, 2)
    assert len(rounds) == (n if n % 2 else n - 1)
    pairs = [frozenset(g) for r in rounds for g in r]
    assert Counter(pairs) == Counter(frozenset(p) for p in itertools.combinations(range(n), 2))
    for r in rounds:
        busy = [p for g in r for p in g]
        assert len(busy) == len(set(busy))


def test_a_round_robin_of_three_seat_matches_plays_every_group_once():
    rounds = round_robin(5, 3)
    groups = [tuple(sorted(g)) for r in rounds for g in r]
    assert sorted(groups) == list(itertools.combinations(range(5), 3))
    for r in rounds:
        busy = [p for g in r for p in g]
        assert len(busy) == len(set(busy))


def play_swiss(n: int, size: int, rounds: int, seed: int) -> tuple[list, Counter, Counter]:
    """Swiss rounds with random results, as the tournament pairs them."""
    rng = random.Random(seed)
    points, met, byes = Counter(), Counter(), Counter()
    history = []
    for _ in range(rounds):
        order = sorted(range(n), key=lambda p: (-points[p], p))
        groups, bye = swiss_round(order, size, met, byes)
        assert sorted([p for g in groups for p in g] + bye) == list(range(n))
        assert all(len(g) == size for g in groups) and len(bye) == n % size
        for g in groups:
            for pair in itertools.combinations(sorted(g), 2):
                met[pair] += 1
            points[rng.choice(g)] += 1
        for p in bye:
            byes[p] += 1
            points[p] += 1
        history.append((groups, bye))
    return history, met, byes


@pytest.mark.parametrize("n,rounds", [(16, 5), (7, 3), (3, 3), (10, 4)])
def test_swiss_never_rematches_where_avoidable_and_gives_byes_to_the_lowest_without_one(n, rounds):
    for seed in range(5):
        history, met, byes = play_swiss(n, 2, rounds, seed)
        assert max(met.values()) == 1, (seed, met.most_common(3))
        assert max(byes.values(), default=0) <= 1
    groups, bye = swiss_round(list(range(7)), 2, Counter(), Counter())
    assert bye == [6] and groups[0] == [0, 1]  # top down: the best meet the nearest ranked
    _, bye = swiss_round(list(range(7)), 2, Counter(), Counter({6: 1}))
    assert bye == [5]


def test_swiss_of_four_seat_matches_spreads_its_groups():
    history, met, _ = play_swiss(16, 4, 3, 1)
    assert max(met.values()) == 1  # 16 players, 3 rounds of four: nobody meets anyone twice


def test_swiss_with_no_way_out_repeats_the_fewest_pairs():
    met = Counter({(0, 1): 1})
    groups, bye = swiss_round([0, 1], 2, met, Counter())
    assert groups == [[0, 1]] and bye == []


def test_seats_rotate_fairly():
    assert seat_order([3, 1], {}) == [1, 3]
    assert seat_order([1, 3], {1: Counter({0: 1}), 3: Counter({1: 1})}) == [3, 1]  # 3 sat second: it sits first
    seated: dict[int, Counter] = {}
    for _ in range(6):
        for seat, p in enumerate(seat_order([0, 1, 2], seated)):
            seated.setdefault(p, Counter())[seat] += 1
    assert all(seated[p] == Counter({0: 2, 1: 2, 2: 2}) for p in range(3))  # every seat twice each


def test_a_tournament_that_cannot_be_played_is_refused(http):
    def create(**body):
        base = {"game": "super_blatt", "players_per_match": 2, "format": "swiss",
                "participants": ["builtin:random", "builtin:greedy"]}
        return http.post("/tournaments", json={**base, **body})

    assert create(participants=["builtin:random#a", "builtin:random#a"]).get_json()["code"] == "invalid_tournament"
    name = f"twice-{uuid.uuid4().hex[:6]}"
    assert http.post("/bots", json={"name": name, "games": ["super_blatt"]}).status_code == 201
    assert create(participants=[name, name]).get_json()["code"] == "invalid_tournament"  # an account plays one seat
    for budget in ("builtin:greedy@2", "builtin:random@300ms", "builtin:search@5ms", "builtin:search@10001ms",
                   "builtin:search@0", "builtin:search@100001"):  # greedy and random take no budget
        refused = create(participants=[budget, "builtin:greedy"])
        assert (refused.status_code, refused.get_json()["code"]) == (422, "invalid_tournament"), budget
    assert create(participants=["builtin:search@2s", "builtin:greedy"]).get_json()["code"] == "invalid_body"
    assert create(players_per_match=9).get_json()["code"] == "invalid_tournament"
    assert create(participants=[f"nobody-{uuid.uuid4().hex[:6]}", "builtin:greedy"]).get_json()["code"] == \
        "unknown_bot_account"
    assert create(participants=["builtin:nosuch", "builtin:greedy"]).get_json()["code"] == "unknown_bot"
    assert create(format="knockout").get_json()["code"] == "invalid_body"
    assert create(format="round_robin", rounds=2).get_json()["code"] == "invalid_body"
    assert create(clock={"move_seconds": 5, "initial_seconds": 5}).get_json()["code"] == "invalid_clock"
    assert create(game="chess").get_json()["code"] == "unknown_game"
    assert http.get("/tournaments/nope").get_json()["code"] == "unknown_tournament"


def test_every_tournament_match_forfeits_a_seat_for_a_refused_move_whatever_clock_was_asked(http):
    name = f"conduct-{uuid.uuid4().hex[:6]}"
    assert http.post("/bots", json={"name": name, "games": ["super_blatt"]}).status_code == 201
    for clock in (None, {"move_seconds": 20, "on_timeout": "forfeit", "on_illegal": "refuse"}):
        body = {"game": "super_blatt", "players_per_match": 2, "format": "round_robin",
                "participants": [name, "builtin:greedy"], **({"clock": clock} if clock else {})}
        created = http.post("/tournaments", json=body)
        assert created.status_code == 201, created.get_json()
        shown = http.get(f"/tournaments/{created.get_json()['id']}").get_json()["clock"]
        assert shown["on_illegal"] == "forfeit" and shown["on_timeout"] == "forfeit"


def test_built_in_bots_enter_more_than_once_and_with_a_budget_named_apart(server):
    """Two remote-free tournaments' worth in one: the same built-in twice, a search bot with an iteration budget
    and one with a time budget, played to the end by the server's workers; each named apart in the standings."""
    import requests

    from tests.conftest import wait_for

    given = ["builtin:greedy", "builtin:greedy", "builtin:search@20", "builtin:search@50ms", "builtin:random#r1"]
    created = requests.post(f"{server.url}/tournaments", json={
        "game": "super_blatt", "players_per_match": 2, "format": "swiss", "rounds": 2, "participants": given},
        timeout=30)
    assert created.status_code == 201, created.json()
    tour = created.json()
    names = ["builtin:greedy", "builtin:greedy#2", "builtin:search@20", "builtin:search@50ms", "builtin:random#r1"]
    assert tour["participants"] == names
    done = wait_for(lambda: (t := requests.get(f"{server.url}/tournaments/{tour['id']}", timeout=10).json())[
        "status"] == "finished" and t, timeout=240, interval=0.5)
    assert sorted(row["participant"] for row in done["standings"]) == sorted(names)
    assert sum(row["matches"] for row in done["standings"]) == 2 * len(done["matches"]) == 8
    seats = {}
    for m in done["matches"]:
        snap = requests.get(f"{server.url}/matches/{m['match_id']}", timeout=10).json()
        for seat in m["seats"]:
            seats[seat["participant"]] = snap["seats"][seat["seat"]]
    assert {p: s["bot"] for p, s in seats.items()} == {
        "builtin:greedy": "greedy", "builtin:greedy#2": "greedy", "builtin:search@20": "search",
        "builtin:search@50ms": "search", "builtin:random#r1": "random"}
    assert all(seats[p]["name"] == p for p in seats)  # the seat carries the participant's own name


def test_the_tournament_pages_examples_are_accepted_as_they_stand(http):
    """docs/tournaments.md's request bodies, as written (their bot accounts registered first): created, and the
    participants named as the page says."""
    import json
    import re

    from tests.api.test_readme import ROOT

    page = (ROOT / "docs" / "tournaments.md").read_text()
    bodies = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", page, re.S)]
    assert len(bodies) == 2
    # the page's accounts, alpha and beta, under names of this test's own (another test may hold those)
    own = {name: f"{name}-{uuid.uuid4().hex[:6]}" for name in ("alpha", "beta")}
    for name in own.values():
        assert http.post("/bots", json={"name": name, "games": ["super_blatt"]}).status_code == 201
    shown = []
    for body in bodies:
        participants = [own.get(p, p) for p in body["participants"]]
        created = http.post("/tournaments", json={**body, "participants": participants})
        assert created.status_code == 201, created.get_json()
        shown.append([{v: k for k, v in own.items()}.get(p, p) for p in created.get_json()["participants"]])
    assert shown == [["alpha", "beta", "builtin:greedy"],
                     ["alpha", "beta", "builtin:greedy", "builtin:greedy#2", "builtin:search@300ms", "builtin:random"]]
    assert all(f"`{n}`" in page for n in shown[1])  # the names the page says the standings show
