"""Every game at its start, mid-game and end, in English and German, on a desktop and on a phone: the
screenshots of docs/web-table.md (regenerate them with REFEREE_DOC_SCREENSHOTS=docs/screenshots).  Each
page shot is also checked: no script error and, where axe-core is installed, no serious or critical
accessibility violation (German and the phone included)."""

from __future__ import annotations

import random

import pytest

from clients.client import Referee
from service.games import GAMES
from tests.plugin import PLUGIN_GAME
from tests.web.conftest import DOC_SHOTS
from tests.web.test_accessibility import AXE, violations
from tests.web.test_table import open_table, play_others

PLAYERS = {"super_blatt": 2, "paparazzo": 3, "big_shot": 2, "dice_party": 3, "picture_perfect": 2}
MID_ROUNDS = {"super_blatt": 8, "paparazzo": 12, "big_shot": 14, "dice_party": 10, "picture_perfect": 3}
if PLUGIN_GAME in GAMES:  # the example plugin game, on the generic table in its own words
    PLAYERS[PLUGIN_GAME], MID_ROUNDS[PLUGIN_GAME] = 3, 4
SCREENS = {"desktop": {"viewport": {"width": 1280, "height": 800}},
           "phone": {"viewport": {"width": 375, "height": 667}, "has_touch": True, "is_mobile": True}}
LOCALES = {"en": "en-GB", "de": "de-DE"}


def snap(page, name: str) -> list[str]:
    """The page as it is now (its first screen, to keep the files small), and what axe-core finds there."""
    DOC_SHOTS.mkdir(parents=True, exist_ok=True)
    page.wait_for_timeout(150)
    page.screenshot(path=str(DOC_SHOTS / f"{name}.png"), full_page=False, animations="disabled")
    return violations(page, AXE.read_text()) if AXE.exists() else []


@pytest.fixture()
def pages(browser):
    made = []

    def make(lang: str, screen: str):
        ctx = browser.new_context(**SCREENS[screen], locale=LOCALES[lang], bypass_csp=True)
        ctx.set_default_timeout(15000)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


@pytest.mark.parametrize("lang", sorted(LOCALES))
def test_the_lobby_in_pictures(web, pages, lang):
    found = {}
    for screen in SCREENS:
        page = pages(lang, screen).new_page()
        page.goto(web.url + "/")
        page.locator("select[name=game]").wait_for()
        assert page.evaluate("document.documentElement.lang") == lang
        found[screen] = snap(page, f"lobby-{lang}-{screen}")
    assert {k: v for k, v in found.items() if v} == {}


@pytest.mark.parametrize("lang", sorted(LOCALES))
@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_game_in_pictures_at_start_mid_game_and_end(web, pages, game, lang):
    ref = Referee(web.url)
    n = PLAYERS[game]
    names = ["Ann", "Bob", "Cy"][:n]
    m = ref.create_match(game, n, [{"name": x} for x in names], options={"first_seat": 0}, seed=21)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    shown = {screen: open_table(pages(lang, screen), web.url, m["id"], m["seats"][0]["token"]) for screen in SCREENS}
    rng = random.Random(21)
    found = {}

    def stage(name: str, snapshot: dict) -> None:
        for screen, page in shown.items():
            page.wait_for_function(f"document.body.dataset.version === '{snapshot['version']}'")
            if snapshot["status"] == "finished":
                page.wait_for_selector("table.result")
                if game == "picture_perfect":
                    page.wait_for_function("[...document.querySelectorAll('.photos img')]"
                                           ".every(i => i.complete && i.naturalWidth > 0)")
                    # the legend in the page's language (drawn again from the catalogue), under each picture
                    page.wait_for_function("[...document.querySelectorAll('.photos img')]"
                                           ".every(i => i.src.startsWith('data:'))")
                page.evaluate("document.getElementById('result').scrollIntoView()")  # the end: the result first
            elif name == "mid":  # a move focused: the preview line says what it does
                page.evaluate("""() => { const el = document.querySelector('#board [data-move], #actions [data-move]');
                    (el?.matches('form') ? el.querySelector('input') : el)?.focus({preventScroll: true}); }""")
            found[f"{name} {screen}"] = snap(page, f"{game}-{name}-{lang}-{screen}")
            assert not page.js_errors

    stage("start", seats[0].match())
    for _ in range(MID_ROUNDS[game]):
        play_others(seats, rng, until_mine=False, limit=1)
    stage("mid", play_others(seats, rng))  # mid-game, the seat's own move to make
    play_others(seats, rng, until_mine=False, limit=5000)
    for page in shown.values():
        page.wait_for_selector("table.result")
    stage("end", seats[0].match())
    assert {k: v for k, v in found.items() if v} == {}
