"""The search bot over HTTP: a seat asks for it with a budget; search bots play a match to the end."""

from __future__ import annotations

from tests.conftest import wait_for


def test_a_match_of_search_bots_ends_over_http(ref):
    seats = [{"bot": "search", "iterations": 10}, {"bot": "search", "budget_ms": 20}]
    m = ref.create_match("super_blatt", 2, seats, seed=31)
    assert [s["bot"] for s in m["seats"]] == ["search", "search"]
    result = wait_for(lambda: ref.match(m["id"]).get("result"), timeout=120, interval=0.2)
    assert result["winners"] and len(result["scores"]) == 2


def test_search_is_listed_for_every_game(http):
    for game in http.get("/games").get_json()["games"]:
        assert "search" in game["bots"]


def test_a_budget_is_for_a_search_seat_only(http):
    for seat in ({"bot": "greedy", "budget_ms": 300}, {"name": "ann", "iterations": 5},
                 {"bot": "search", "budget_ms": 0}, {"bot": "search", "iterations": 10**9}):
        r = http.post("/matches", json={"game": "super_blatt", "players": 2, "seats": [seat, {"bot": "random"}]})
        assert r.status_code == 422 and r.get_json()["code"] == "invalid_body", seat
