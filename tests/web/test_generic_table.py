"""The generic table: a game without a renderer of its own (examples/liars_dice) is played in a browser from
its view and legal moves alone -- every field shown, every legal move a control, a range a number field --
and, with the words its package gives the table (Plugin.words), it reads like a built-in game in English and
German: names, seats counted from 1, no JSON, no field names (issue #47, 1)."""

from __future__ import annotations

import json
import random
import re

import pytest

from clients.client import Referee
from tests.plugin import PLUGIN_GAME, needs_plugin
from tests.web.conftest import SHOTS, shot
from tests.web.test_table import MOVES, click_a_move, open_table, wait_for_turn_or_end

pytestmark = needs_plugin()

PHONE = {"viewport": {"width": 375, "height": 667}, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}}
# what a machine dump shows: JSON, the code's field names, 0-based seats
MACHINE = re.compile(r'[{}\[\]"]|\b(?:seat|turn|to act|loser|winner) \d|\b(?:cup_sizes|ones_wild|dice_left|to_act|'
                     r'cup sizes|ones wild|dice left:|null|true|false)\b', re.I)
# the English of Liar's Dice's words, as it would leak onto a German page
ENGLISH = re.compile(r"\b(?:bid|bids|challenged?|dice|round|standing|cups?|wins|left|nobody|none|your|every|"
                     r"lifted|counted?|loses?)\b", re.I)


def shown_fields(page) -> set[str]:
    return set(page.evaluate("[...document.querySelectorAll('#board [data-field]')].map(e => e.dataset.field)"))


def table_text(page) -> str:
    """What a person reads of the table: the title, status, seats, board, log, result and preview."""
    return page.evaluate("""() => ['title', 'status', 'seats', 'board', 'log', 'result', 'preview', 'help']
        .map(id => document.getElementById(id)?.innerText || '').join('\\n')""")


def test_a_person_plays_liars_dice_in_the_generic_table(web, context):
    ref = Referee(web.url)
    m = ref.create_match(PLUGIN_GAME, 3, [{"name": "Ann"}, {"bot": "greedy"}, {"bot": "search"}],
                         options={"first_seat": 0, "dice": 2})
    token = m["seats"][0]["token"]
    page = open_table(context, web.url, m["id"], token)
    assert page.locator("#title").inner_text() == "Liar's Dice"
    assert page.locator("[data-generic]").count() == 1

    # every field the game words is shown, every legal move is a control, the quantity a number field
    wait_for_turn_or_end(page)
    assert shown_fields(page) >= {"round", "cup", "cup_sizes", "bid", "bids", "out", "ones_wild"}
    assert page.locator(MOVES).count() == len(ref.legal_moves(m["id"], token)["moves"])
    quantity = page.locator("#board form[data-move] input[type=number][name=quantity]")
    assert quantity.count() >= 1 and quantity.first.get_attribute("min") == "1"
    assert page.locator("#help details").count() == 1, "the rules help comes from the game's words"

    rng = random.Random(4)
    types = set()
    while wait_for_turn_or_end(page):
        types.add(click_a_move(page, rng, prefer=("bid",) if rng.random() < 0.6 else ("challenge",))["type"])
    page.wait_for_selector("table.result")
    assert types >= {"bid"}
    assert page.locator("table.result tbody tr").count() == 3
    log = page.locator("#log").inner_text()
    assert "challenged the bid" in log and "Your dice in round 1:" in log, "the game's own events in its words"
    assert "cups" in shown_fields(page), "every cup shows at the end"
    assert not page.locator(".problem").count() and not page.js_errors
    shot(page, "liars_dice_generic")


def play_to_the_end(page, rng: random.Random, texts: list[str]) -> None:
    """Play Ann's seat to the end, keeping what the table says at each turn and each move's preview."""
    while wait_for_turn_or_end(page):
        for i in range(page.locator(MOVES).count()):
            control = page.locator(MOVES).nth(i)
            (control.locator("input").first if control.evaluate("e => e.tagName") == "FORM" else control).focus()
            texts.append(page.locator("#preview").inner_text())
        texts.append(table_text(page))
        click_a_move(page, rng, prefer=("bid",) if rng.random() < 0.7 else ("challenge",))
    page.wait_for_selector("table.result")
    texts.append(table_text(page))


@pytest.mark.parametrize("screen", ["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_liars_dice_reads_like_a_built_in_game(web, browser, lang, screen):
    """Names, seats from 1, sentences in the page's language: no JSON, no field names (issue #47, 1)."""
    ref = Referee(web.url)
    m = ref.create_match(PLUGIN_GAME, 3, [{"name": "Ann"}, {"bot": "greedy"}, {"bot": "random"}],
                         options={"first_seat": 0, "dice": 2})
    ctx = browser.new_context(locale="de-DE" if lang == "de" else "en-US", bypass_csp=True,
                              **(PHONE if screen == "phone" else DESKTOP))
    ctx.set_default_timeout(15000)
    try:
        page = open_table(ctx, web.url, m["id"], m["seats"][0]["token"])
        texts: list[str] = []
        play_to_the_end(page, random.Random(7), texts)
        text = "\n".join(texts)
        (SHOTS / f"liars_dice-{lang}-{screen}.txt").write_text(text)
        assert not MACHINE.findall(text), MACHINE.findall(text)[:10]
        you = "Ann (du)" if lang == "de" else "Ann (you)"
        bot = "gieriger Bot" if lang == "de" else "greedy bot"
        assert you in text and bot in text
        if lang == "de":
            assert "Gebote dieser Runde" in text and "bot" in page.locator("#log").inner_text()
            english = ENGLISH.findall(text.replace("Liar's Dice", ""))
            assert not english, sorted(set(english))
            assert re.search(r"\d Würfel übrig", page.locator("table.result").inner_text())
        else:
            assert "Bids this round" in text
            assert re.search(r"\b1 die left|\d dice left", page.locator("table.result").inner_text())
        # every log line begins with a capital, whichever name comes first ("Gieriger Bot bot 2 × 5.")
        lines = page.locator("#log li").all_inner_texts()
        assert lines and all(line[0].isupper() or line[0].isdigit() for line in lines), lines
        assert not page.js_errors
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        shot(page, f"liars_dice-end-{lang}-{screen}")
    finally:
        ctx.close()


def test_the_lobby_offers_the_installed_game_in_its_own_words(web, browser):
    for locale, summary, option in [("en-US", "call the last bid a lie", "ones are wild"),
                                    ("de-DE", "nennt das letzte Gebot gelogen", "Einsen sind wild")]:
        ctx = browser.new_context(locale=locale, bypass_csp=True)
        try:
            page = ctx.new_page()
            page.goto(web.url + "/")
            page.wait_for_selector(".game-card")
            games = page.locator("#games").inner_text()
            assert "Liar's Dice" in games and summary in games and option in games
            assert page.locator(f"select[name=game] option[value={PLUGIN_GAME}]").inner_text() == "Liar's Dice"
        finally:
            ctx.close()


def test_a_games_words_are_served_per_language(http):
    info = http.get(f"/games/{PLUGIN_GAME}").get_json()
    assert info["words"] == ["de", "en"]
    words = http.get(f"/games/{PLUGIN_GAME}/words/de")
    assert words.status_code == 200 and json.loads(words.data)["game.liars_dice"] == "Liar's Dice"
    missing = http.get(f"/games/{PLUGIN_GAME}/words/fr")
    assert missing.status_code == 404 and missing.get_json()["code"] == "not_found"
    assert http.get("/games/super_blatt").get_json()["words"] == ["de", "en"], "the built-in games give theirs alike"


def test_both_catalogues_of_the_game_have_the_same_keys_and_blanks():
    from service.games import PLUGINS
    files = PLUGINS[PLUGIN_GAME].words_files()
    en, de = (json.loads(files[lang].read_text()) for lang in ("en", "de"))
    assert set(en) == set(de)
    blanks = lambda v: set(re.findall(r"\{([\w.|]+)\}", " ".join(v.values() if isinstance(v, dict) else [v])))  # noqa: E731
    for key in en:
        assert blanks(en[key]) == blanks(de[key]) or isinstance(en[key], dict), key
        assert PLUGIN_GAME in key.split("."), key
