"""The ladder: a host rates its finished (or forfeited) match once; GET /ladder shows the ratings."""

from __future__ import annotations

import uuid

from service.core.base import Actor
from service.games import GAMES


def finished_match(app, seed: int, players: int = 3) -> dict:
    """A Super-Blatt match played to the end through the referee (first legal move), then scored."""
    ref = app.extensions["referee"]
    game = GAMES["super_blatt"]
    m = ref.create_match("super_blatt", players, {}, seed, [{"name": f"p{s}"} for s in range(players)])
    match = ref.store.load(m["id"])
    while match.status == "active":
        seat = game.to_act(match.state)[0]
        ref.apply_move(m["id"], Actor.playing(seat), game.legal_moves(match.state, seat)[0])
        match = ref.store.load(m["id"])
    ref.score(m["id"])
    return {**m, "result": ref.store.load(m["id"]).result}


def rate(http, m: dict, entrants: list[str], forfeits=(), token=None):
    return http.post("/ladder", json={"match_id": m["id"], "entrants": entrants, "forfeits": list(forfeits)},
                     headers={"Authorization": f"Bearer {token or m['host_token']}"})


def ladder(http, game="super_blatt") -> dict:
    (only,) = http.get(f"/ladder?game={game}").get_json()["games"]
    return {e["name"]: e for e in only["entrants"]}


def test_a_rated_match_moves_its_entrants_once(app, http):
    tag = uuid.uuid4().hex[:6]
    names = [f"a-{tag}", f"b-{tag}", f"c-{tag}"]
    m = finished_match(app, 41)
    r = rate(http, m, names)
    assert r.status_code == 201, r.get_json()
    after = ladder(http)
    winners = m["result"]["winners"]
    for seat, name in enumerate(names):
        e = after[name]
        assert e["matches"] == 1 and e["wins"] == (seat in winners) and e["sigma"] < 25 / 3
        assert abs(e["ordinal"] - (e["mu"] - 3 * e["sigma"])) < 1e-9
    best = after[names[m["result"]["ranking"][0][0]]]
    worst = after[names[m["result"]["ranking"][-1][0]]]
    assert best["mu"] > 25 > worst["mu"]
    again = rate(http, m, names)
    assert again.status_code == 409 and again.get_json()["code"] == "already_rated"
    assert ladder(http)[names[0]]["matches"] == 1


def test_a_forfeit_ranks_its_seat_last(app, http):
    ref = app.extensions["referee"]
    tag = uuid.uuid4().hex[:6]
    m = ref.create_match("super_blatt", 2, {}, 42, [{"name": "x"}, {"name": "y"}])
    assert rate(http, m, [f"ok-{tag}", f"bad-{tag}"], forfeits=[1]).get_json()["code"] == "not_over"
    ref.abort(m["id"], m["host_token"])
    assert rate(http, m, [f"ok-{tag}", f"bad-{tag}"]).get_json()["code"] == "not_over"  # no forfeit named
    assert rate(http, m, [f"ok-{tag}", f"bad-{tag}"], forfeits=[1]).status_code == 201
    after = ladder(http)
    assert after[f"bad-{tag}"]["forfeits"] == 1 and after[f"ok-{tag}"]["wins"] == 1
    assert after[f"ok-{tag}"]["mu"] > after[f"bad-{tag}"]["mu"]


def test_only_the_host_rates_and_bad_reports_change_nothing(app, http):
    m = finished_match(app, 43, players=2)
    seat_token = m["seats"][0]["token"]
    assert rate(http, m, ["p", "q"], token=seat_token).get_json()["code"] == "not_host"
    assert rate(http, m, ["p", "q"], token="nope").get_json()["code"] == "bad_token"
    assert rate(http, m, ["p"]).get_json()["code"] == "invalid_body"  # one entrant per seat
    assert rate(http, m, ["p", "q"], forfeits=[7]).get_json()["code"] == "invalid_body"
    assert rate(http, {**m, "id": "nosuchmatch"}, ["p", "q"]).get_json()["code"] == "unknown_match"
    assert http.post("/ladder", json={"match_id": m["id"]}).get_json()["code"] == "bad_token"  # no token: 401 first
    no_entrants = http.post("/ladder", json={"match_id": m["id"]}, headers={"Authorization": f"Bearer {seat_token}"})
    assert (no_entrants.status_code, no_entrants.get_json()["code"]) == (422, "invalid_body")
    assert http.get("/ladder?game=chess").status_code == 422
    assert rate(http, m, ["p", "q"]).status_code == 201  # nothing above used up the match


def test_every_game_has_a_ladder(http):
    games = http.get("/ladder").get_json()["games"]
    assert [g["game"] for g in games] == list(GAMES)
