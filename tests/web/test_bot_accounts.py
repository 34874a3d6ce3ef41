"""Bot accounts in the browser (issue 35): the lobby offers the online bots as seats, and a tournament's page
shows its standings and rounds, live."""

from __future__ import annotations

import threading
import uuid

import requests

from tests.web.conftest import shot


def hold_stream(url: str, token: str) -> requests.Response:
    """A bot online: its event stream held open (read on a thread, so the heartbeats are taken)."""
    response = requests.get(f"{url}/bots/me/events", stream=True, timeout=(5, 60),
                            headers={"Authorization": f"Bearer {token}", "Accept": "text/event-stream"})
    assert response.status_code == 200

    def drain() -> None:
        try:
            for _ in response.iter_content(chunk_size=None):
                pass
        except (requests.RequestException, OSError, AttributeError):
            pass

    threading.Thread(target=drain, daemon=True).start()
    return response


def test_the_lobby_seats_an_online_bot_and_a_tournament_page_shows_the_standings(web, context):
    name = f"lobby-{uuid.uuid4().hex[:6]}"
    token = requests.post(f"{web.url}/bots", json={"name": name, "games": ["super_blatt"]}, timeout=10).json()["token"]
    stream = hold_stream(web.url, token)
    try:
        page = context.new_page()
        page.goto(web.url + "/")
        page.fill("#my-name", "Ann")
        page.select_option("select[name=game]", "super_blatt")
        page.locator(f"select[name=seat-1] option[value='account:{name}']").wait_for(state="attached")
        assert f"Online bot {name}" in page.locator("select[name=seat-1]").inner_text()
        page.select_option("select[name=game]", "paparazzo")  # the bot plays Super-Blatt only
        assert not page.locator(f"option[value='account:{name}']").count()
        page.select_option("select[name=game]", "super_blatt")
        page.select_option("select[name=seat-1]", f"account:{name}")
        page.click("text=Create the match")
        page.wait_for_url(f"{web.url}/matches/*/table#token=*")
        match_id = page.url.split("/matches/")[1].split("/")[0]
        seats = requests.get(f"{web.url}/matches/{match_id}", timeout=5).json()["seats"]
        assert seats[1]["name"] == name and seats[0]["name"] == "Ann"
        events = requests.get(f"{web.url}/bots/me/events", headers={"Authorization": f"Bearer {token}"},
                              timeout=5).json()["events"]
        assert any(e["type"] == "match.started" and e["data"]["match_id"] == match_id for e in events)

        tour = requests.post(f"{web.url}/tournaments", timeout=10, json={
            "game": "super_blatt", "players_per_match": 2, "format": "round_robin",
            "participants": ["builtin:random", "builtin:greedy"]}).json()
        page.goto(f"{web.url}/tournaments/{tour['id']}/page")
        page.wait_for_function("document.querySelectorAll('#standings tbody tr').length === 2")
        assert "greedy bot" in page.locator("#standings").inner_text()  # builtin:greedy, in the page's words
        page.wait_for_function("document.querySelector('#status').textContent.startsWith('Finished')", timeout=60000)
        assert page.locator("#rounds article").count() == 1
        assert "random bot vs greedy bot" in page.locator("#rounds").inner_text()
        shot(page, "tournament")
    finally:
        stream.close()
