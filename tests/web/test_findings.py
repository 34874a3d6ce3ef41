"""Issue #34's findings, each in a real browser: a person who knows the rules understands the table at a glance."""

from __future__ import annotations

import random
import re

from clients.client import Referee
from service.games.base import is_span
from tests.web.test_table import open_table, play_others


def test_super_blatt_column_headings_show_and_the_log_counts_columns_as_they_do(web, context):
    """The "Column N" headings are not hidden under the first card; the log names the column the page shows,
    once: no second, machine-like line ("played take (column 0)") for one's own move."""
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"bot": "greedy"}], options={"first_seat": 0}, seed=2)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    for i in range(4):
        heading = page.locator(".sb-column h3").nth(i)
        assert heading.inner_text() == f"Column {i + 1}"
        box = heading.bounding_box()
        # what is drawn at the heading's centre is the heading itself, not a card over it
        assert page.evaluate(f"document.elementFromPoint({box['x'] + box['width'] / 2}, {box['y'] + box['height'] / 2})"
                             ".closest('h3') !== null")
    version = page.evaluate("document.body.dataset.version")
    page.locator(".sb-column").nth(2).locator("[data-move]").click()
    page.wait_for_function(f"document.body.dataset.version !== '{version}'")
    page.wait_for_function("document.querySelector('#log').innerText.includes('(you) took')")
    log = page.locator("#log").inner_text()
    assert "from column 3" in log and "column 0" not in log.lower() and "played" not in log


def test_two_bots_of_one_kind_are_told_apart(web, context):
    ref = Referee(web.url)
    m = ref.create_match("dice_party", 3, [{"name": "Ann"}, {"bot": "random"}, {"bot": "random"}], seed=4)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    seats = page.locator("#seats li").all_inner_texts()
    assert any("random bot 1" in s for s in seats) and any("random bot 2" in s for s in seats)


def dice_party_at(ref, phase: str, seed_from: int = 0):
    """A 2-player Dice Party whose seat 0 owes ``phase``'s decision (played on through the API with growth only)."""
    for seed in range(seed_from, seed_from + 60):
        m = ref.create_match("dice_party", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=seed)
        seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
        for _ in range(60):
            snap = seats[0].match()
            if snap["status"] != "active":
                break
            if snap["to_act"] == [0] and snap["view"]["phase"] == phase:
                return m, seats
            turn = snap["to_act"][0]
            move = seats[turn].legal_moves()["moves"][0]
            seats[turn].move({k: 0 if is_span(v) else v for k, v in move.items()})
    raise AssertionError(f"no {phase} decision reached")


def test_dice_party_offers_skip_for_robbing_and_provoking_and_reads_its_result(web, context):
    ref = Referee(web.url)
    for phase, words in (("steal", "Skip: rob no wallet"), ("provoke", "Skip: provoke nobody")):
        m, seats = dice_party_at(ref, phase)
        page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
        skip = page.locator(f"[data-skip={phase}]")
        assert skip.inner_text() == words
        version = page.evaluate("document.body.dataset.version")
        skip.click()
        page.wait_for_function(f"document.body.dataset.version !== '{version}'")
        move = [e for e in seats[0].events()["events"] if e["type"] == "moved"][-1]["data"]["move"]
        assert move == {"type": phase, "count": 0}
        assert not page.locator(".problem").count() and not page.js_errors
        page.close()
    # the end: words, not "won yes; condition –"
    m = ref.create_match("dice_party", 2, [{"name": "Ann"}, {"name": "Bob"}], seed=3)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    play_others(seats, random.Random(3), until_mine=False, limit=3000)
    page = open_table(context, web.url, m["id"], None)
    page.wait_for_selector("table.result")
    text = page.locator("table.result").inner_text()
    assert "won the round:" in text and "did not win the round" in text
    assert not re.search(r"\byes\b|\bno\b|–|_", text), text
