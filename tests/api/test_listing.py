"""GET /matches: newest first, filters re-checked against each match, cursor pages, no secrets."""

from __future__ import annotations

from service.core.keys import listing_key, match_key
from tests.api.test_errors import auth, problem


def create(http, game="super_blatt", seats=None, **extra) -> dict:
    body = {"game": game, "players": 2, "seats": seats or [{"name": "ann"}, {}], **extra}
    r = http.post("/matches", json=body)
    assert r.status_code == 201, r.json
    return r.json


def listing(http, **query) -> dict:
    r = http.get("/matches", query_string=query)
    assert r.status_code == 200, r.json
    return r.json


def ids(page: dict) -> list[str]:
    return [m["id"] for m in page["matches"]]


def test_newest_first_in_cursor_pages(http):
    made = [create(http)["id"] for _ in range(6)]
    seen, cursor = [], None
    for _ in range(3):
        assert cursor or not seen
        page = listing(http, limit=2, **({"cursor": cursor} if cursor else {}))
        seen += ids(page)
        cursor = page["next_cursor"]
    assert seen == made[::-1]  # the newest six, none twice


def test_filters_follow_each_match_as_it_is_now(http):
    waiting = create(http)
    active = create(http, seats=[{"name": "ann"}, {"name": "bob"}])
    dice = create(http, game="dice_party")
    open_ = ids(listing(http, open="true", limit=100))
    assert waiting["id"] in open_ and dice["id"] in open_ and active["id"] not in open_
    assert ids(listing(http, open="false", limit=3))[0] == active["id"]
    page = listing(http, status="active", limit=100)
    assert active["id"] in ids(page) and all(m["status"] == "active" for m in page["matches"])
    page = listing(http, game="dice_party", limit=100)
    assert ids(page)[0] == dice["id"] and all(m["game"] == "dice_party" for m in page["matches"])

    assert http.post(f"/matches/{waiting['id']}/join", json={"name": "cy"}).status_code == 201
    assert waiting["id"] not in ids(listing(http, open="true", limit=100))
    entry = next(m for m in listing(http, status="active", limit=100)["matches"] if m["id"] == waiting["id"])
    assert entry["open_seats"] == 0
    assert [s["name"] for s in entry["seats"]] == ["ann", "cy"]

    assert http.delete(f"/matches/{active['id']}", headers=auth(active["host_token"])).status_code == 200
    assert active["id"] not in ids(listing(http, status="active", limit=100))
    assert ids(listing(http, status="aborted", limit=1)) == [active["id"]]


def test_unlisted_matches_stay_out_but_can_be_joined(http):
    hidden = create(http, listed=False)
    shown = create(http)
    assert ids(listing(http, limit=1)) == [shown["id"]]
    assert hidden["id"] not in ids(listing(http, limit=100))
    assert http.post(f"/matches/{hidden['id']}/join", json={"name": "cy"}).status_code == 201


def test_a_listing_shows_no_secret(http):
    m = create(http, seed="secret-seed-42")
    entry = listing(http, limit=1)["matches"][0]
    assert entry["id"] == m["id"] and entry["open_seats"] == 1 and entry["title"] == "Das Super-Blatt"
    text = http.get("/matches", query_string={"limit": 5}).get_data(as_text=True)
    assert "secret-seed-42" not in text and m["host_token"] not in text and m["seats"][0]["token"] not in text
    assert "seed" not in entry and "token" not in str(entry)


def test_expired_matches_drop_out_of_the_index(http, redis_client):
    gone = create(http)
    kept = create(http)
    redis_client.delete(match_key(gone["id"]))  # what the TTL does
    assert ids(listing(http, limit=1)) == [kept["id"]]
    assert gone["id"] not in ids(listing(http, limit=100))
    for key in (listing_key(), listing_key("super_blatt")):
        assert redis_client.zscore(key, gone["id"]) is None


def test_bad_listing_queries(http):
    problem(http.get("/matches?cursor=not-a-cursor"), 422, "invalid_cursor")
    problem(http.get("/matches?limit=0"), 422, "invalid_body")
    problem(http.get("/matches?limit=101"), 422, "invalid_body")
    problem(http.get("/matches?status=sleeping"), 422, "invalid_body")
    problem(http.get("/matches?open=maybe"), 422, "invalid_body")
    problem(http.get("/matches?game=chess"), 404, "unknown_game")
