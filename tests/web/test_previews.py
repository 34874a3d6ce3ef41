"""What each legal move does, before it is chosen: focusing or pointing at a move control writes, in a
visible region that screen readers hear (aria-live polite), what the move does in the rules' words.
Every game, in a real browser, at each of the seat's turns through a match; German in test_german.py."""

from __future__ import annotations

import random
import re

import pytest

from clients.client import Referee
from tests.web.test_german import previews
from tests.web.test_table import open_table, play_others

PLAYERS = {"super_blatt": 2, "paparazzo": 3, "big_shot": 2, "dice_party": 3, "picture_perfect": 2}
# per game and move type (or a card to choose: "choose"), what the preview says
SAYS = {
    "super_blatt": {
        "take": r"Take the top card of column \d, .+ You would hold \d+ .+ trend card pays",
        "pass": r"Take no extra card: your turn ends",
        "steal": r"Steal \d+ .+ cards? from .+ \(left with \d+\)",
    },
    "big_shot": {
        "loan": r"Loan on \w+: \d+ million now \(\w+'s cash \d+ → \d+\), and debit card no\. \d+ "
                r".+10 million owed at the end",
        "decline": r"No more loans this round",
        "bid": r"Bid \d+ million for .+ you pay \d+ from one of your colours",
        "pass": r"Pass: final for this auction",
        "pay": r"Pay the \d+ million from \w+: its cash -?\d+ → -?\d+",
        "place": r"Put a \w+ cube on \w+ \(.+\): it then holds .+ \(\d of 7\)",
    },
    "dice_party": {
        "steal": r"Rob (\d+ wallets?: .+ your wallets: \d|no wallet)",
        "provoke": r"Provoke (\d+ VIPs? \(the highest showing\).+Mobs?|nobody)",
        "grow": r"Option [ab]: your .+ pips \(\d+\) bring one .+ per 6",
        "send_mobs": r"Send \d+ Mobs? to .+: their party then has \d+ Mobs",
    },
    "paparazzo": {
        "select": r"Offer the photo of [A-H] from slot \d: .+ at least [\d,]+",
        "sell_to_stunk": r"Sell one of your photos of [A-H] to Stunk for [\d,]+",
        "offer": r"Offer [\d,]+ for the photo of [A-H]: you become the highest offerer",
        "pass": r"Pass: no offer from you",
        "buy": r"Buy the photo of [A-H] for [\d,]+: you pay it to the bank",
        "decline": r"Decline: .+ must buy at [\d,]+",
        "place": r"Put your photo of [A-H] in slot \d: .+ face-up photos go from \d to \d",
        "show": r"Show .+ to your neighbour",
        "choose": r"Choose [A-H] as (one of the \d cards|the card) you show",
    },
    "picture_perfect": {
        "ready": r"Done looking", "vip": r"Put your VIP card in the .+'s envelope", "keep": r"Keep the ",
        "gift": r"Give the .+ to ", "peek": r"Look into the .+'s envelope", "take": r"Take the .+ from the middle",
        "return": r"Return the .+ to the middle", "steal": r"Steal the .+ from .+ the player on your left",
        "deposit": r"in the middle for the shared auction", "offer": r"(up for auction|a look into)",
        "pay": r"Pay \S+ decorations", "sell": r"Sell the ", "buy": r"Buy the ", "bid": r"Bid \d+ decorations",
        "pass": r"(Pass|Look into no envelope)", "place": r"Put the .+ on row \d, column \d",
        "decorate": r"Put a decoration on the table square", "done": r"Set your photo for good",
        "choose": r"Choose the .+: the free squares",
    },
}
# reached within the test's turns (seed and order fixed): each must have been previewed
REACHED = {"super_blatt": {"take"}, "paparazzo": {"select", "offer", "pass", "place", "choose"},
           "big_shot": {"loan", "decline", "bid", "pass", "pay", "place"}, "dice_party": {"provoke", "grow"},
           "picture_perfect": {"ready", "vip", "choose", "place", "done"}}


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_move_says_what_it_does_before_it_is_chosen(web, context, game):
    ref = Referee(web.url)
    n = PLAYERS[game]
    m = ref.create_match(game, n, [{"name": "Ann"}] + [{"name": f"P{i}"} for i in range(1, n)],
                         options={"first_seat": 0}, seed=41)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    box = page.locator("#preview")
    assert box.get_attribute("aria-live") == "polite"
    rng = random.Random(41)
    seen: dict[str, str] = {}
    for _ in range(60):
        snap = play_others(seats, rng)
        if snap["status"] != "active":
            break
        page.wait_for_function(f"document.body.dataset.version === '{snap['version']}'")
        assert box.is_visible() and "Point at a move" in box.inner_text()  # the region is there before any choice
        for move, text in previews(page):
            kind = move["type"] if isinstance(move, dict) else "choose"
            assert text.startswith("What it does: "), (move, text)
            assert re.search(SAYS[game][kind], text), (move, text)
            seen.setdefault(kind, text)
        if game == "picture_perfect" and snap["view"]["phase"] == "placement" and "place" not in seen:
            page.locator("#board [data-pick]").first.click()  # a guest chosen: its squares say what placing does
            page.locator("#board .pp-square [data-move]").first.focus()
            assert re.search(SAYS[game]["place"], box.inner_text())
            seen["place"] = box.inner_text()
        legal = seats[0].legal_moves()["moves"]
        if legal:  # Ann moves through the API too: the page follows
            move = rng.choice(legal)
            seats[0].move({k: v["min"] if isinstance(v, dict) and "min" in v else v for k, v in move.items()})
            after = seats[0].match()
            page.wait_for_function(f"document.body.dataset.version === '{after['version']}'")
            if 0 not in after["to_act"]:  # not this seat's turn: no preview line (it comes back with the turn)
                assert not box.is_visible()
        if REACHED[game] <= set(seen):
            break
    assert REACHED[game] <= set(seen), sorted(REACHED[game] - set(seen))
    assert not page.js_errors


def test_the_preview_follows_the_pointer_and_the_number_typed(web, context):
    """Pointing (not only focusing) shows it; a stepper's preview follows the number being typed; the line
    stays in sight at the bottom of the window while the board scrolls (Big Shot, the tallest table)."""
    ref = Referee(web.url)
    m = ref.create_match("big_shot", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=3)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    rng = random.Random(3)
    while not any(mv["type"] == "bid" for mv in seats[0].legal_moves()["moves"]):
        play_others(seats, rng, until_mine=False, limit=1)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    box = page.locator("#preview")
    page.locator("#board [data-move='{\"type\":\"pass\"}']").hover()
    assert box.inner_text().startswith("What it does: Pass: final for this auction")
    field = page.locator("form[data-move*='\"bid\"'] input")
    field.fill("4")
    assert "Bid 4 million for" in box.inner_text()
    field.fill("7")
    assert "Bid 7 million for" in box.inner_text()
    page.mouse.move(1, 1)  # away from the board: the focused stepper still says what it does
    page.locator("#board").hover(position={"x": 2, "y": 2})
    page.mouse.move(1, 1)
    assert "Bid 7 million" in box.inner_text()
    page.evaluate("window.scrollTo(0, 0)")
    top = box.evaluate("el => el.getBoundingClientRect().bottom")
    assert top <= page.viewport_size["height"] + 1  # sticky at the window's bottom, never out of sight
    assert not page.js_errors
