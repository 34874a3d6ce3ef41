"""The lobby in a real browser: it lists, creates, joins and spectates."""

from __future__ import annotations

import requests

from clients.client import Referee
from tests.web.conftest import PHONE, shot


def test_the_lobby_lists_creates_joins_and_spectates(web, browser):
    ref = Referee(web.url)
    waiting = ref.create_match("dice_party", 3, [{"name": "Ann"}, {}, {"bot": "random"}])
    ann = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)  # lets the test wait on JS
    page = ann.new_page()
    page.goto(web.url + "/")
    # lists: the open match and the five games
    page.locator(f"[data-join='{waiting['id']}']").wait_for()
    installed = requests.get(f"{web.url}/", headers={"Accept": "application/json"}, timeout=5).json()["games"]
    assert page.locator(".game-card").count() == len(installed) >= 5  # the five, and any game installed as a plugin
    # creates: Super-Blatt, Ann in seat 0 and an open seat 1
    page.fill("#my-name", "Ann")
    page.select_option("select[name=game]", "super_blatt")
    page.select_option("select[name=seat-1]", "open")
    shot(page, "lobby")
    page.click("text=Create the match")
    # creating a match with a seat for you takes you to your table
    page.wait_for_url(f"{web.url}/matches/*/table#token=*")
    page.wait_for_selector("body[data-version]")
    match_id = page.url.split("/matches/")[1].split("/")[0]
    assert "Waiting for 1 more player" in page.locator("#status").inner_text()

    # joins: Bob, in another browser, on a phone, finds it in the lobby and takes the open seat
    bob = browser.new_context(viewport=PHONE, bypass_csp=True)
    other = bob.new_page()
    # Bob types his name while the page's script is still loading (its catalogue held back): it stays
    held = []
    other.route("**/static/web/i18n/*.json", lambda route: held.append(route))
    other.goto(web.url + "/")
    other.fill("#my-name", "Bob")
    while not held:
        other.wait_for_timeout(20)
    held[0].continue_()
    other.unroute("**/static/web/i18n/*.json")
    other.locator(f"[data-join='{match_id}']").click()
    other.wait_for_selector("body[data-version]")
    assert "Bob (you)" in other.locator("#seats").inner_text()
    snap = requests.get(f"{web.url}/matches/{match_id}", timeout=5).json()
    assert snap["status"] == "active" and snap["seats"][1]["name"] == "Bob"
    # Ann's page hears of it live
    page.wait_for_function(f"document.body.dataset.version === '{snap['version']}'")
    assert "Bob took seat 2" in page.locator("#log").inner_text()
    shot(other, "super_blatt_phone")

    # spectates: a third visitor watches the live match from the lobby
    other.goto(web.url + "/")
    other.locator(f"[data-watch='{match_id}']").click()
    other.wait_for_selector("body[data-version]")
    assert "You are watching" in other.locator("#notice").inner_text()
    assert not other.locator("[data-move]").count()
    ann.close()
    bob.close()


def test_the_name_comes_before_the_create_form_and_is_asked_for(web, context):
    """The lobby's name field is the first thing to fill in; creating a match for yourself without a name
    asks for one (it made you "Me" before)."""
    page = context.new_page()
    page.goto(web.url + "/")
    page.locator("select[name=game]").wait_for()
    name_y = page.locator("#my-name").bounding_box()["y"]
    assert name_y < page.locator("#create").bounding_box()["y"]
    page.click("text=Create the match")
    assert "Enter your name first" in page.locator("#created [role=alert]").inner_text()
    assert page.evaluate("document.activeElement.id") == "my-name"
    assert page.url == web.url + "/"


def test_the_front_door_answers_json_to_programs_and_html_to_browsers(web):
    index = requests.get(web.url + "/", headers={"Accept": "application/json"}, timeout=5)
    assert index.headers["Content-Type"].startswith("application/json")
    body = index.json()
    assert [g["name"] for g in body["games"]][:5] == ["super_blatt", "big_shot", "paparazzo", "dice_party",
                                                       "picture_perfect"]  # then any installed as a plugin
    assert body["links"]["matches"] == "/matches"
    page = requests.get(web.url + "/", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}, timeout=5)
    assert page.headers["Content-Type"].startswith("text/html") and "lobby.js" in page.text
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
