"""The generic table: a game without a renderer of its own (examples/liars_dice) is played in a browser from
its view and legal moves alone -- every field shown, every legal move a control, a range a number field."""

from __future__ import annotations

import random

from clients.client import Referee
from tests.plugin import PLUGIN_GAME, needs_plugin
from tests.web.conftest import shot
from tests.web.test_table import MOVES, click_a_move, open_table, wait_for_turn_or_end

pytestmark = needs_plugin()


def shown_fields(page) -> set[str]:
    return set(page.evaluate("[...document.querySelectorAll('#board [data-field]')].map(e => e.dataset.field)"))


def test_a_person_plays_liars_dice_in_the_generic_table(web, context):
    ref = Referee(web.url)
    m = ref.create_match(PLUGIN_GAME, 3, [{"name": "Ann"}, {"bot": "greedy"}, {"bot": "search"}],
                         options={"first_seat": 0, "dice": 2})
    token = m["seats"][0]["token"]
    page = open_table(context, web.url, m["id"], token)
    assert page.locator("#title").inner_text() == "Liar's Dice"
    assert page.locator("[data-generic]").count() == 1

    # every field of the view is shown, every legal move is a control, the quantity a number field
    wait_for_turn_or_end(page)
    snap = ref.match(m["id"], token)
    assert shown_fields(page) == set(snap["view"]) - {"you"}
    assert page.locator(MOVES).count() == len(ref.legal_moves(m["id"], token)["moves"])
    quantity = page.locator("#board form[data-move] input[type=number][name=quantity]")
    assert quantity.count() >= 1 and quantity.first.get_attribute("min") == "1"
    assert page.locator("details.generic-help").count() == 1

    rng = random.Random(4)
    types = set()
    while wait_for_turn_or_end(page):
        types.add(click_a_move(page, rng, prefer=("bid",) if rng.random() < 0.6 else ("challenge",))["type"])
    page.wait_for_selector("table.result")
    assert types >= {"bid"}
    assert page.locator("table.result tbody tr").count() == 3
    log = page.locator("#log").inner_text()
    assert "challenged" in log and "rolled" in log, "the game's own events are logged, in plain words"
    assert "cups" in shown_fields(page), "every cup shows at the end"
    assert not page.locator(".problem").count() and not page.js_errors
    shot(page, "liars_dice_generic")


def test_the_lobby_offers_the_installed_game(web, context):
    page = context.new_page()
    page.goto(web.url + "/")
    page.wait_for_selector(".game-card")
    assert "Liar's Dice" in page.locator("#games").inner_text()
    assert page.locator(f"select[name=game] option[value={PLUGIN_GAME}]").inner_text() == "Liar's Dice"
