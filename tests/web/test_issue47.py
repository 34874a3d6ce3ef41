"""Issue #47's findings, each in a real browser (Debian's chromium): on a desktop (1280x800) and on a phone
(375x667, touch), in English and German where it applies.  The generic table's words are in
test_generic_table.py."""

from __future__ import annotations

import random
import re
import time

import pytest
import requests

from clients.client import Referee
from service.games.base import is_span
from tests.web.conftest import SHOTS, shot
from tests.web.test_table import open_table, play_others

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 375, "height": 667}, "has_touch": True, "is_mobile": True}
SCREENS = {"desktop": DESKTOP, "phone": PHONE}
LOCALES = {"en": "en-US", "de": "de-DE"}
PLAYERS = {"super_blatt": 2, "paparazzo": 3, "big_shot": 2, "dice_party": 3, "picture_perfect": 2}


@pytest.fixture()
def make(browser):
    """A browser context per screen and language (closed after the test)."""
    made = []

    def new(screen: str, lang: str):
        ctx = browser.new_context(locale=LOCALES[lang], bypass_csp=True, **SCREENS[screen])
        ctx.set_default_timeout(15000)
        made.append(ctx)
        return ctx

    yield new
    for ctx in made:
        ctx.close()


def play_alone(seat, rng: random.Random, limit: int = 3000) -> None:
    """Random legal moves through the API for one person's seat until the bots and it have finished the match."""
    for _ in range(limit):
        snap = seat.match()
        if snap["status"] in ("finished", "aborted"):
            return
        if snap["seat"] in snap["to_act"] and (moves := seat.legal_moves()["moves"]):
            move = rng.choice(moves)
            seat.move({k: v["min"] if is_span(v) else v for k, v in move.items()})
        else:
            time.sleep(0.05)
    raise AssertionError("the match did not end")


def say(page, key: str, **blanks) -> str:
    """The page's own catalogue text (its i18n module, with the game's words loaded) for ``key``."""
    return page.evaluate("async ([key, blanks]) => (await import('/static/web/js/i18n.js')).t(key, blanks)",
                         [key, blanks])


# -- 2: plurals, possessives, German without declension, sentence case ---------------------------------------
@pytest.mark.parametrize("lang", ["en", "de"])
def test_counts_agree_with_their_nouns_and_names_need_no_declension(web, make, lang):
    """Every sentence the issue found wrong, said again by the page's own catalogue and Intl.PluralRules."""
    ref = Referee(web.url)
    wanted = {
        "en": [("sb.deck", {"deck": 12, "trends": 1}, "12 cards in the deck, 1 trend card unturned"),
               ("dp.grow", {"option": "a", "n": 1, "who": "1 VIP"}, "Grow, option a: 1 VIP joins"),
               ("dp.count.vips", {"n": 1}, "1 VIP"), ("dp.count.mobs", {"n": 1}, "1 Mob"),
               ("dp.grow", {"option": "b", "n": 0}, "Grow, option b: nobody joins"),
               ("dp.log.grew", {"name": "Ann (you)", "n": 2, "who": "2 VIPs"}, "Your party grew: 2 VIPs joined."),
               ("dp.log.grew", {"name": "greedy bot", "n": 1, "who": "1 VIP"},
                "Greedy bot's party grew: 1 VIP joined."),
               ("dp.bd.party", {"p": 4, "v": 1, "m": 1}, "party: 4 Party People, 1 VIP, 1 Mob"),
               ("bs.log.lot_sold_seat", {"lot": "E10", "color": "yellow", "name": "Ann (you)"},
                "E10 goes to yellow, owned by Ann (you)."),
               ("pp.svg.total", {"name": "Ann (you)", "total": 1}, "Ann (you): 1 point"),
               ("pp.svg.placed", {"placed": 1, "envelopes": 1}, "1 guest placed, 1 envelope held")],
        "de": [("sb.deck", {"deck": 1, "trends": 1}, "1 Karte im Stapel, 1 Trendkarte verdeckt"),
               ("dp.grow", {"option": "a", "n": 1, "who": "1 VIP"}, "Wachsen, Option a: 1 VIP kommt dazu"),
               ("dp.count.mobs", {"n": 1}, "1 Mob"),
               ("dp.log.grew_mobs", {"name": "gieriger Bot", "n": 2, "who": "2 VIPs", "mobs": 1},
                "Gieriger Bot: Die Party wächst, 2 VIPs kommen dazu; im Schlepptau: 1 Mob."),
               ("pp.svg.total", {"name": "Ann (du)", "total": 1}, "Ann (du): 1 Punkt"),
               ("pp.svg.placed", {"placed": 1, "envelopes": 2}, "1 Gast platziert, 2 Umschläge gehalten"),
               ("pz.tableOf", {"name": "gieriger Bot"}, "Auslage: gieriger Bot"),
               ("pz.log.price_set", {"price": "6.000", "name": "gieriger Bot"},
                "Der Preis ist 6.000; geboten hat gieriger Bot.")],
    }[lang]
    for game in ("super_blatt", "dice_party", "big_shot", "picture_perfect", "paparazzo"):
        m = ref.create_match(game, PLAYERS[game], [{"name": "Ann"}] + [{"bot": "greedy"}] * (PLAYERS[game] - 1))
        page = open_table(make("desktop", lang), web.url, m["id"], m["seats"][0]["token"])
        prefix = {"super_blatt": "sb.", "dice_party": "dp.", "big_shot": "bs.", "picture_perfect": "pp.",
                  "paparazzo": "pz."}[game]
        for key, blanks, text in wanted:
            if key.startswith(prefix):
                assert say(page, key, **blanks) == text, (key, say(page, key, **blanks))
        page.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_whole_dice_party_reads_grammatically(web, make, lang):
    """A match played to the end, its log read in the table: no "1 VIPs", "0 Party People joined",
    "(you)'s", "1 Mobs", no German preposition before a bot's name, every line begins with a capital."""
    ref = Referee(web.url)
    m = ref.create_match("dice_party", 3, [{"name": "Ann"}, {"bot": "greedy"}, {"bot": "random"}],
                         options={"first_seat": 0}, seed=11)
    play_alone(ref.seat(m["id"], m["seats"][0]["token"]), random.Random(3))
    page = open_table(make("desktop", lang), web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_selector("table.result")
    page.wait_for_function("document.querySelectorAll('#log li').length > 10")
    lines = page.locator("#log li").all_inner_texts()
    text = "\n".join(lines) + page.locator("table.result").inner_text()
    bad = re.findall(r"\b1 (?:VIPs|Mobs|Punkte|Gäste|cards|points)\b|\b0 [\w -]+ (?:joined|kommen dazu)|\(you\)'s|"
                     r"\(du\)s|\b(?:von|an|zu|bei|mit) (?:gieriger|Zufalls)", text)
    assert not bad, bad
    assert all(line[0].isupper() or line[0].isdigit() for line in lines), [x for x in lines if x[0].islower()]
    shot(page, f"dice_party-log-{lang}")


# -- 4: the preview on a phone, nothing sideways -------------------------------------------------------------
@pytest.mark.parametrize("lang", ["en", "de"])
def test_on_a_phone_the_preview_is_one_line_until_opened_and_covers_no_control(web, make, lang):
    """Big Shot at its start (the bid button the issue found half covered), on a touch phone."""
    ref = Referee(web.url)
    m = ref.create_match("big_shot", 2, [{"name": "Ann"}, {"bot": "greedy"}], options={"first_seat": 0}, seed=5)
    page = open_table(make("phone", lang), web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_selector("#preview:not([hidden])")
    box = page.locator("#preview")

    def lines() -> float:
        return page.evaluate("""() => { const b = document.querySelector('#preview .preview-text');
            return b.getBoundingClientRect().height / parseFloat(getComputedStyle(b).lineHeight); }""")

    hint = box.inner_text()
    assert lines() < 1.5, hint
    assert "Tab" not in hint and "Point" not in hint and "Zeige" not in hint, "a touch screen has no pointing"

    def covered() -> list[str]:
        """The move controls in sight whose middle the preview line hides."""
        return page.evaluate("""() => [...document.querySelectorAll('#board [data-move], #actions [data-move]')]
            .filter(el => { const r = el.getBoundingClientRect();
                return r.height && r.top >= 0 && r.bottom <= innerHeight; })
            .filter(el => { const r = el.getBoundingClientRect();
                const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                return hit && document.getElementById('preview').contains(hit); })
            .map(el => el.dataset.move)""")

    assert covered() == []
    # a move control focused (as a tapped number field is): its move's preview, still one line, and a "more"
    page.evaluate("""() => { const c = document.querySelector('#board [data-move], #actions [data-move]');
        (c.matches('form') ? c.querySelector('input') : c).focus(); }""")
    page.wait_for_function("document.getElementById('preview').dataset.shown === 'move'")
    assert lines() < 1.5 and covered() == []
    page.locator("#preview .preview-more").tap()
    assert lines() >= 2, "opened, the whole preview shows"
    assert page.locator("#preview .preview-more").get_attribute("aria-expanded") == "true"
    # scrolled to any place, the controls stay clear of the line (the page leaves room for it)
    height = page.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height, 200):
        page.evaluate(f"scrollTo(0, {y})")
        assert covered() == [], y
    shot(page, f"big_shot-preview-{lang}-phone")


@pytest.mark.parametrize("lang", ["en", "de"])
def test_no_page_scrolls_sideways_at_375(web, make, lang):
    """The lobby, the tournament page (9 columns of standings) and every table at its start."""
    ctx = make("phone", lang)
    wide = lambda page: page.evaluate("document.documentElement.scrollWidth")  # noqa: E731
    page = ctx.new_page()
    page.goto(web.url + "/")
    page.wait_for_selector(".game-card")
    assert wide(page) <= 375
    tour = requests.post(f"{web.url}/tournaments", timeout=10, json={
        "game": "super_blatt", "players_per_match": 2, "format": "swiss", "rounds": 1,
        "participants": ["builtin:random", "builtin:greedy", "builtin:search"]}).json()
    page.goto(f"{web.url}/tournaments/{tour['id']}/page")
    page.wait_for_selector("table.standings tbody tr")
    assert page.locator("table.standings th").count() == 9 and wide(page) <= 375
    shot(page, f"tournament-{lang}-phone")
    ref = Referee(web.url)
    for game, n in PLAYERS.items():
        m = ref.create_match(game, n, [{"name": "Ann"}] + [{"bot": "greedy"}] * (n - 1), options={"first_seat": 0})
        table = open_table(ctx, web.url, m["id"], m["seats"][0]["token"])
        assert wide(table) <= 375, game
        # a bot seat says its kind once: no "greedy bot (greedy bot)" pushing the board down
        assert not re.search(r"(\w[\w -]*) \(\1\)", table.locator("#seats").inner_text()), game
        table.close()


# -- 5, 7, 8: replay, German words, the icon, the lobby ------------------------------------------------------
@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_the_replay_log_follows_the_step_and_its_arrows_are_in_every_font(web, make, screen):
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"bot": "random"}], options={"first_seat": 0}, seed=9)
    play_alone(ref.seat(m["id"], m["seats"][0]["token"]), random.Random(9))
    page = open_table(make(screen, "en"), web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_selector("table.result")
    page.wait_for_function("document.querySelector('#log').innerText.includes('is over')"
                           " || document.querySelector('#log').innerText.includes('won')")
    took = lambda: sum("took" in line for line in page.locator("#log li").all_inner_texts())  # noqa: E731
    at_end = took()
    page.locator("[data-replay=start]").click()
    page.wait_for_function("document.body.dataset.replayStep === '0'")
    assert took() == 0, "at the opening the log holds no move yet"
    for _ in range(6):
        step = page.evaluate("document.body.dataset.replayStep")
        page.locator("[data-replay=next]").click()
        page.wait_for_function(f"document.body.dataset.replayStep !== '{step}'")
    assert 6 <= took() < at_end, "at move 6 the log shows the moves so far, not the end"
    line = page.locator(".replay-step").inner_text()
    assert "Move 6 of" in line and not re.search(r"(\w[\w ]*\w): \1", line), line
    buttons = "".join(page.locator("[data-replay]").all_inner_texts())
    assert not set(buttons) & {"⏮", "⏭"}, buttons
    # each arrow is drawn by a font the page has: its glyphs are as wide as in a known font's rendering
    widths = page.evaluate("[...document.querySelectorAll('[data-replay] .icon')]"
                           ".map(i => i.getBoundingClientRect().width)")
    assert len(widths) == 4 and all(w > 4 for w in widths)
    page.locator("[data-replay=last]").click()
    page.wait_for_selector("table.result")
    assert took() == at_end
    shot(page, f"replay-{screen}")


def test_german_pages_say_their_titles_status_and_citations_in_german(web, make):
    ref = Referee(web.url)
    lobby = make("desktop", "de").new_page()
    lobby.goto(web.url + "/")
    lobby.wait_for_selector(".game-card")
    assert "Lobby" not in lobby.title() and lobby.title().startswith("Referee")
    games = lobby.locator(".game-card").count()
    assert games >= 5 and lobby.locator("#lead").inner_text().startswith(f"{games} Brettspiele")
    for game, section in (("paparazzo", "Setting the Sale Price"), ("big_shot", "Auction and entering cubes")):
        m = ref.create_match(game, PLAYERS[game], [{"name": "Ann"}] + [{"bot": "greedy"}] * (PLAYERS[game] - 1),
                             options={"first_seat": 0})
        page = open_table(make("desktop", "de"), web.url, m["id"], m["seats"][0]["token"])
        page.wait_for_function("document.getElementById('live').textContent.trim() !== ''")
        page.locator("#help summary").click()
        help_text = page.locator("#help").inner_text()
        assert section not in help_text and "Rules" not in help_text, help_text
        assert "live" not in page.locator("#live").inner_text()
        page.close()


def test_the_lobby_counts_its_games_and_keeps_developer_links_off_a_phones_first_screen(web, make):
    page = make("phone", "en").new_page()
    page.goto(web.url + "/")
    page.wait_for_selector(".game-card")
    games = page.locator(".game-card").count()
    assert page.locator("#lead").inner_text().startswith(f"{games} tabletop games")
    assert page.locator("#api-docs").bounding_box()["y"] > 667, "developer links wait at the foot of the page"
    assert page.locator("header.bar").bounding_box()["height"] < 667 / 6


def test_the_favicon_is_where_browsers_ask(web):
    """Asked of the served process (as a browser asks), so that REFEREE_TEST_TREE checks an older server too."""
    icon = requests.get(f"{web.url}/favicon.ico", timeout=10)
    assert icon.status_code == 200 and icon.headers["Content-Type"].startswith("image/svg+xml")
    assert b"<svg" in icon.content


# -- 4: Picture Perfect's end photos -----------------------------------------------------------------------
@pytest.mark.parametrize("screen", ["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en", "de"])
def test_picture_perfects_photos_name_the_seats_and_their_legend_is_readable(web, make, lang, screen):
    """No "Seat 0: 0 points": each photo's legend names its seat, is written in the page's type (not a few
    pixels inside a shrunken drawing), and the numbers over the back row stay inside the picture."""
    ref = Referee(web.url)
    m = ref.create_match("picture_perfect", 2, [{"name": "Ann"}, {"name": "Bob"}], seed=8)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    play_others(seats, random.Random(8), until_mine=False, limit=2000)
    page = open_table(make(screen, lang), web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_selector(".photo-legend li")
    page.wait_for_function("document.querySelectorAll('.photo-legend li').length > 4")
    firsts = page.locator(".photo-legend li.total").all_inner_texts()
    points = "Punkt" if lang == "de" else "point"
    you = "Ann (du)" if lang == "de" else "Ann (you)"
    assert firsts[0].startswith(f"{you}: ") and firsts[1].startswith("Bob: ") and all(points in f for f in firsts)
    text = page.locator(".photos").inner_text()
    assert "Seat 0" not in text and "Seat 1" not in text
    sizes = page.evaluate("[...document.querySelectorAll('.photo-legend li')]"
                          ".map(l => parseFloat(getComputedStyle(l).fontSize))")
    assert min(sizes) >= 12, sizes
    # every number badge lies inside the drawing (the picture is the scene alone: its legend is the list)
    inside = page.evaluate("""async () => {
        const img = document.querySelector('.photos img');
        const svg = new DOMParser().parseFromString(decodeURIComponent(img.src.split(',')[1]), 'image/svg+xml');
        const height = Number(svg.documentElement.getAttribute('height'));
        return [...svg.querySelectorAll('.badge circle')].every(c => Number(c.getAttribute('cy')) - 11 >= 0
            && Number(c.getAttribute('cy')) + 11 <= height);
    }""")
    assert inside
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    page.locator(".photos").scroll_into_view_if_needed()
    shot(page, f"picture_perfect-photos-{lang}-{screen}")


# -- 8: the smaller findings ---------------------------------------------------------------------------------
def test_a_refused_number_stays_in_its_field_and_a_new_one_clears_the_refusal(web, make):
    ref = Referee(web.url)
    m = ref.create_match("big_shot", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=3)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    rng = random.Random(3)
    while not any(mv["type"] == "bid" for mv in seats[0].legal_moves()["moves"]):
        play_others(seats, rng, until_mine=False, limit=1)
    page = open_table(make("desktop", "en"), web.url, m["id"], m["seats"][0]["token"])
    stepper = page.locator("form[data-move*='\"bid\"']")
    stepper.locator("input").fill("999")  # more than Ann has: refused by the server
    stepper.locator("button[type=submit]").click()
    page.locator("form[data-move*='\"bid\"'] + .problem").wait_for()
    assert stepper.locator("input").input_value() == "999", "the refused number stays where it was typed"
    assert "–" in stepper.locator(".hint").inner_text()
    stepper.locator("input").fill("2")
    assert page.locator(".with-problem .problem").count() == 0, "a new number: the old refusal goes"


def test_after_a_move_keyboard_focus_stays_at_the_table(web, make):
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=2)
    page = open_table(make("desktop", "en"), web.url, m["id"], m["seats"][0]["token"])
    version = page.evaluate("document.body.dataset.version")
    page.locator("#board [data-move]").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.body.dataset.version !== '{version}'")
    page.wait_for_timeout(300)
    assert page.evaluate("document.activeElement !== document.body && document.activeElement.isConnected")
    assert page.evaluate("!!document.activeElement.closest('main')")


def test_paparazzo_lets_you_choose_only_as_many_cards_as_you_show(web, make):
    ref = Referee(web.url)
    m = ref.create_match("paparazzo", 3, [{"name": f"P{i}"} for i in range(3)], options={"first_seat": 0}, seed=4)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    rng = random.Random(4)
    for _ in range(400):
        if any(mv["type"] == "show" for mv in seats[0].legal_moves()["moves"]):
            break
        play_others(seats, rng, until_mine=False, limit=1)
    else:
        pytest.fail("no show-cards decision reached")
    need = len(next(mv for mv in seats[0].legal_moves()["moves"] if mv["type"] == "show")["cards"])
    page = open_table(make("desktop", "en"), web.url, m["id"], m["seats"][0]["token"])
    cards = page.locator("#board [data-card]")
    assert cards.count() > need
    for i in range(cards.count()):
        cards.nth(i).click()
    assert page.locator("#board [data-card][aria-pressed=true]").count() == need


def test_big_shot_explains_the_ghost_and_its_end_keeps_no_stale_auction(web, make):
    ref = Referee(web.url)
    m = ref.create_match("big_shot", 3, [{"name": f"P{i}"} for i in range(3)], options={"first_seat": 0}, seed=2)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    page = open_table(make("desktop", "en"), web.url, m["id"], m["seats"][0]["token"])
    assert "nobody owns it" in page.locator("#board").inner_text()
    play_others(seats, random.Random(2), until_mine=False, limit=3000)
    page.wait_for_selector("table.result")
    board = page.locator("#board").inner_text()
    assert "On auction" not in board and "high bid" not in board
    assert "Notify" not in page.locator("#prefs").inner_text(), "nothing to be told of after the end"


def test_super_blatts_cards_keep_their_words_on_a_phone(web, make):
    """Each card's category name shows whole: no card covers another's words on a narrow screen."""
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"bot": "greedy"}], options={"first_seat": 0}, seed=2)
    page = open_table(make("phone", "en"), web.url, m["id"], m["seats"][0]["token"])
    hidden = page.evaluate("""() => [...document.querySelectorAll('.sb-column .card')].filter(card => {
        const words = card.querySelector('strong') || card;
        const r = words.getBoundingClientRect();
        const next = card.nextElementSibling;
        return next && next.getBoundingClientRect().top < r.bottom - 1;
    }).map(card => card.innerText)""")
    assert hidden == []


@pytest.mark.parametrize("screen,lang", [("desktop", "en"), ("phone", "de")])
def test_an_invited_person_gives_a_name_and_every_table_shows_it(web, make, screen, lang):
    """The lobby names an invited seat "Player 2"; its table asks for the person's name, prefilled from the
    lobby's (localStorage), and the inviter's table shows the new name without a reload."""
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"name": "Player 2"}], options={"first_seat": 0}, seed=3)
    host_ctx, guest_ctx = make(screen, lang), make(screen, lang)
    host_ctx.add_init_script("localStorage.setItem('referee.name', 'Ann')")  # who created it in the lobby
    guest_ctx.add_init_script("localStorage.getItem('referee.name') || localStorage.setItem('referee.name', 'Bea')")
    host = open_table(host_ctx, web.url, m["id"], m["seats"][0]["token"])
    guest = open_table(guest_ctx, web.url, m["id"], m["seats"][1]["token"] + "&invite=1")  # the lobby's link
    assert not host.locator("[data-naming]").count()  # Ann's own link, and her own name
    form = guest.locator("[data-naming]")
    assert "Player 2" in form.inner_text() and guest.locator("#seat-name").input_value() == "Bea"
    box, width = form.bounding_box(), guest.evaluate("document.documentElement.clientWidth")
    assert box["x"] >= 0 and box["x"] + box["width"] <= width  # on a phone too
    shot(guest, f"issue47-name-asked-{screen}-{lang}")
    guest.locator("#seat-name").fill("Beatrix")
    guest.get_by_role("button", name=say(guest, "table.nameGive")).click()
    guest.wait_for_selector("[data-naming]", state="detached")
    for page in (host, guest):
        page.wait_for_function("document.querySelector('#seats').innerText.includes('Beatrix')")
        assert "Player 2" not in page.locator("#seats").inner_text()
    host.wait_for_function("document.querySelector('#log').innerText.includes('Beatrix')")
    assert say(host, "log.seat_named", before="Player 2", name="Beatrix") in host.locator("#log").inner_text()
    assert guest.evaluate("localStorage.getItem('referee.name')") == "Beatrix"
    guest.reload()
    guest.wait_for_selector("body[data-version]")
    assert not guest.locator("[data-naming]").count()  # named, it is not asked again
    shot(guest, f"issue47-named-{screen}-{lang}")


def escalate_the_first(seats, first: int = 0) -> dict:
    """The other seats play hard at ``first`` (all they can steal and provoke, every Mob to it) until it has
    a decision or the match is over; returns the last snapshot."""
    for _ in range(500):
        snap = seats[first].match()
        if snap["status"] != "active" or first in snap["to_act"]:
            return snap
        seat = seats[snap["to_act"][0]]
        move = max(seat.legal_moves()["moves"], key=lambda m: (m.get("opponent") == first, m.get("option") == "b"))
        seat.move({k: v["max"] if is_span(v) else v for k, v in move.items()})
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("screen,lang", [("desktop", "en"), ("phone", "de")])
def test_a_dice_party_that_ends_before_your_first_move_says_why(web, make, screen, lang):
    """Seats 2 and 3 start (first_seat), send Ann their Mobs, and her first roll escalates her party (seed 2):
    she never chose anything, and the other two play the round out; the end explains the one-round game."""
    ref = Referee(web.url)
    m = ref.create_match("dice_party", 3, [{"name": n} for n in ("Ann", "Bo", "Cy")], options={"first_seat": 1},
                         seed=2)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    snap = escalate_the_first(seats)
    assert snap["status"] != "active" and not any(e["type"] == "moved" and e["data"]["seat"] == 0
                                                  for e in seats[0].events()["events"])
    page = open_table(make(screen, lang), web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_selector("table.result")
    note = page.locator("[data-no-move]")
    note.wait_for()  # once the page has the match's events (it tells who moved)
    assert note.is_visible()
    assert say(page, "result.noMove") in note.inner_text()
    assert say(page, "result.noMove.dice_party") in note.inner_text()
    shot(page, f"issue47-dice-party-no-move-{screen}-{lang}")


def fill_the_back_row(seats, rng: random.Random, row: int = 4) -> None:
    """Every seat places its guests in ``row`` while it can (random legal moves otherwise) to the end."""
    for _ in range(3000):
        snap = seats[0].match()
        if snap["status"] != "active":
            return
        for s in snap["to_act"]:
            moves = seats[s].legal_moves()["moves"]
            if moves:
                back = [m for m in moves if m.get("row") == row]
                move = rng.choice(back or moves)
                seats[s].move({k: v["min"] if is_span(v) else v for k, v in move.items()})
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_picture_perfects_back_row_numbers_are_not_clipped(web, make, screen):
    """A full back row (row 4, its tallest guests' numbers highest in the picture): each number badge's drawn
    box, measured in the page, lies inside the photo's drawing and inside the photo as the page shows it."""
    ref = Referee(web.url)
    m = ref.create_match("picture_perfect", 2, [{"name": "Ann"}, {"name": "Bob"}], seed=4)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    fill_the_back_row(seats, random.Random(4))
    photo = requests.get(f"{web.url}/matches/{m['id']}/photos/0", timeout=10).text
    assert {int(c) for c in re.findall(r"row 4, column (\d)", photo)} == {1, 2, 3, 4}, "the back row is not full"
    page = open_table(make(screen, "en"), web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_function("document.querySelector('.photos img')?.complete && "
                           "document.querySelector('.photos img').naturalWidth > 0")
    page.locator(".photos img").first.scroll_into_view_if_needed()
    # the picture drawn inline over the <img> at its size, so that each badge's box can be measured
    boxes = page.evaluate("""async () => {
        const img = document.querySelector('.photos img');
        const shown = img.getBoundingClientRect();
        const text = await (await fetch(img.src)).text(); // the picture the page shows (a data: URL or the server's)
        const svg = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
        const frame = document.createElement('div');
        frame.style.cssText = `position:fixed;left:${shown.left}px;top:${shown.top}px;width:${shown.width}px`;
        svg.setAttribute('width', '100%');
        svg.removeAttribute('height');
        frame.append(document.importNode(svg, true));
        document.body.append(frame);
        const drawn = frame.firstChild.getBoundingClientRect();
        const badges = [...frame.querySelectorAll('.badge')].map((b) => {
            const [circle, number] = b.querySelectorAll('circle, text');
            const box = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
            return { number: number.textContent, circle: box(circle), text: box(number) };
        });
        frame.remove();
        const clip = getComputedStyle(img.parentElement).overflow;
        return { shown: [shown.top, shown.bottom, shown.left, shown.right], drawn: [drawn.top, drawn.bottom,
                 drawn.left, drawn.right], natural: [img.naturalWidth, img.naturalHeight], clip, badges };
    }""")
    top, bottom, left, right = boxes["shown"]
    assert abs(boxes["drawn"][1] - bottom) < 2 and abs(boxes["drawn"][0] - top) < 1  # the same picture, same size
    width, height = boxes["natural"]
    assert abs((right - left) / (bottom - top) - width / height) < 0.02  # shown whole, not cropped
    assert len(boxes["badges"]) >= 4
    for badge in boxes["badges"]:
        for t_, b_, l_, r_ in (badge["circle"], badge["text"]):
            assert top <= t_ and b_ <= bottom and left <= l_ and r_ <= right, badge
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shot(page, f"issue47-picture-perfect-back-row-{screen}")
    # enlarged: the photo's top (the back row's numbers) is in sight in the dialog, not scrolled away
    page.locator("[data-enlarge='0']").click()
    page.wait_for_function("document.querySelector('dialog.photo-large img')?.complete && "
                           "document.querySelector('dialog.photo-large img').naturalWidth > 0")
    page.wait_for_timeout(200)
    seen = page.evaluate("""() => {
        const dialog = document.querySelector('dialog.photo-large'), img = dialog.querySelector('img');
        const d = dialog.getBoundingClientRect(), i = img.getBoundingClientRect();
        return { dialog: [d.top, d.bottom], img: [i.top, i.bottom], height: innerHeight };
    }""")
    page.screenshot(path=str(SHOTS / f"issue47-picture-perfect-enlarged-{screen}.png"))  # what is in sight
    assert seen["dialog"][0] >= 0 and seen["img"][0] >= seen["dialog"][0] - 1, seen
