"""Issue #34's findings, each in a real browser: a person who knows the rules understands the table at a glance."""

from __future__ import annotations

import random
import re

from clients.client import Referee
from service.games.base import is_span
from tests.conftest import Server
from tests.web.test_table import open_table, play_others


def test_super_blatt_column_headings_show_and_the_log_counts_columns_as_they_do(web, context):
    """The "Column N" headings are not hidden under the first card; the log names the column the page shows,
    once: no second, machine-like line ("played take (column 0)") for one's own move."""
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"bot": "greedy"}], options={"first_seat": 0}, seed=2)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    # what is drawn at each heading's centre is the heading itself, not a card over it (measured in one go)
    seen = page.evaluate("""() => [...document.querySelectorAll('.sb-column h3')].map(h => {
        const r = h.getBoundingClientRect();
        return [h.innerText, document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)?.closest('h3') === h];
    })""")
    assert seen == [[f"Column {i + 1}", True] for i in range(4)]
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


GUEST_IDS = ("yellow_dress", "lady_in_red", "elderly_gentleman", "wheelchair_gentleman", "little_boy", "little_girl",
             "rock_star", "potted_palm")


def picture_perfect_at_placement(ref, seed: int = 6):
    m = ref.create_match("picture_perfect", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=seed)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    rng = random.Random(seed)
    for _ in range(2000):
        snap = seats[0].match()
        if snap["view"]["phase"] == "placement":
            return m, seats
        for s in snap["to_act"]:
            moves = [mv for mv in seats[s].legal_moves()["moves"]]
            if moves:
                move = rng.choice(moves)
                seats[s].move({k: v["min"] if is_span(v) else v for k, v in move.items()})
    raise AssertionError("never reached the final placement")


def test_picture_perfect_traits_confirmation_photo_and_names(web, context):
    """Guests' traits (man/woman, tall/short/low, face or not) show; "Done" with nobody placed asks first;
    the photo opens large; the log names guests, never by raw id."""
    ref = Referee(web.url)
    m, seats = picture_perfect_at_placement(ref)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    view = seats[0].match()["view"]
    guests = {g["id"]: g for g in view["guests"]}
    held = view["held"][0]
    assert held
    for gid in held:
        g = guests[gid]
        text = page.locator(f"[data-traits='{gid}']").first.inner_text()
        assert (g["gender"] or "neither man nor woman") in text
        assert g["height"] in text and ("face shown" if g["face"] else "no face") in text
    # "Done" with nobody in the photo: asked, and nothing is sent when the person says no
    page.accept_dialogs = False
    version = page.evaluate("document.body.dataset.version")
    page.locator("[data-move='{\"type\":\"done\"}']").click()
    page.wait_for_timeout(500)
    assert page.dialogs and "Nobody stands in your photo" in page.dialogs[-1]
    assert page.evaluate("document.body.dataset.version") == version
    assert seats[0].match()["view"]["placement_done"][0] is False
    # yes: set
    page.accept_dialogs = True
    page.locator("[data-move='{\"type\":\"done\"}']").click()
    page.wait_for_function(f"document.body.dataset.version !== '{version}'")
    assert seats[0].match()["view"]["placement_done"][0] is True
    # Bob finishes; the photos open large, and the log speaks of guests by name
    rng = random.Random(1)
    while seats[1].match()["status"] == "active":
        move = rng.choice([mv for mv in seats[1].legal_moves()["moves"] if mv["type"] != "done"] or [{"type": "done"}])
        seats[1].move(move)
    page.wait_for_selector("[data-enlarge='0']")
    page.wait_for_function("[...document.querySelectorAll('.photos img')].every(i => i.complete && i.naturalWidth > 0)")
    page.locator("[data-enlarge='0']").click()
    large = page.locator("dialog.photo-large[open] img")
    large.wait_for()
    assert large.bounding_box()["width"] > 900
    page.keyboard.press("Escape")
    log = page.locator("#log").inner_text()
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", log), log
    assert not page.js_errors


PHONE_390 = {"width": 390, "height": 844}
PLAYERS = {"super_blatt": 2, "paparazzo": 3, "big_shot": 2, "dice_party": 3, "picture_perfect": 2}


def test_big_shot_shows_each_standing_the_rules_make_public_and_hides_it_where_cash_is_hidden(web, context):
    ref = Referee(web.url)
    for variant, shown in (({}, True), ({"hidden_money": True}, False)):
        m = ref.create_match("big_shot", 2, [{"name": "Ann"}, {"name": "Bob"}], options=variant, seed=5)
        page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
        balances = ref.match(m["id"], m["seats"][0]["token"])["view"]["balances"]
        for seat in (0, 1):
            text = page.locator(f"[data-standing='{seat}']").first.inner_text()
            if shown or seat == 0:
                assert f"standing: {balances[seat]:,} million" in text
            else:
                assert balances[seat] is None and "hidden" in text
        page.close()


def test_on_a_phone_your_seat_and_controls_come_first_without_sideways_scrolling(web, browser):
    ref = Referee(web.url)
    ctx = browser.new_context(viewport=PHONE_390, bypass_csp=True)
    ctx.set_default_timeout(15000)
    for game, n in PLAYERS.items():
        m = ref.create_match(game, n, [{"name": f"P{i}"} for i in range(n)], options={"first_seat": 0}, seed=1)
        page = open_table(ctx, web.url, m["id"], m["seats"][0]["token"])
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, game
        # measured in one go: a redraw (the stream opening) may replace the elements between two calls
        top, control = page.evaluate("""() => [document.querySelector('#board .you'),
            document.querySelector('#board [data-move]')].map(el => el && el.getBoundingClientRect().top + scrollY)""")
        assert top is not None and top < 844, (game, top)  # on the first screen
        assert control is None or control < 2 * 844, (game, control)
        page.close()
    ctx.close()


def test_an_outage_is_shown_moves_pause_and_the_page_resyncs_when_the_server_is_back(redis_url, context):
    srv = Server(redis_url, env={"REFEREE_HEARTBEAT": "5"})
    try:
        ref = Referee(srv.url)
        m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=3)
        page = open_table(context, srv.url, m["id"], m["seats"][0]["token"])
        assert "Your turn" in page.locator("#status").inner_text()
        srv.stop()
        page.locator("#outage").wait_for(state="visible", timeout=20000)
        assert "cannot be reached" in page.locator("#outage").inner_text()
        assert "Connection lost" in page.locator("#status").inner_text()
        moves = page.locator("#board [data-move]")
        assert moves.count() and all(moves.nth(i).is_disabled() for i in range(moves.count()))
        page.wait_for_timeout(3000)
        srv = Server(redis_url, env={"REFEREE_HEARTBEAT": "5"}, port=srv.port)
        page.locator("#outage").wait_for(state="hidden", timeout=30000)
        assert not page.locator(".problem").count()
        assert "Your turn" in page.locator("#status").inner_text()
        # live again: Ann moves, Bob's answer through the API shows up by itself
        version = page.evaluate("document.body.dataset.version")
        page.locator("#board [data-move]").first.click()
        page.wait_for_function(f"document.body.dataset.version !== '{version}'")
        bob = ref.seat(m["id"], m["seats"][1]["token"])
        while 1 not in bob.match()["to_act"]:
            page.locator("#board [data-move]").first.click()
            page.wait_for_timeout(300)
        bob.move(bob.legal_moves()["moves"][0])
        page.wait_for_function(f"document.body.dataset.version === '{bob.match()['version']}'", timeout=10000)
        assert "Bob took" in page.locator("#log").inner_text()
        assert not page.js_errors
    finally:
        srv.stop()


def test_your_turn_is_noticed_and_what_changed_is_highlighted(web, browser):
    """The tab's title says it is your turn, a sound if switched on, a browser notification when the page is
    hidden and the person allowed them; what the other seat's move changed is marked."""
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 1}, seed=4)
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, bypass_csp=True)
    ctx.grant_permissions(["notifications"], origin=web.url)
    # the page is in a background tab; notifications are recorded instead of shown
    ctx.add_init_script("""Object.defineProperty(document, 'hidden', { get: () => true });
        window.shown = []; window.Notification = class { constructor(title, o) { window.shown.push([title, o.body]); }
        static get permission() { return 'granted'; }
        static requestPermission() { return Promise.resolve('granted'); } };""")
    page = open_table(ctx, web.url, m["id"], m["seats"][0]["token"])
    assert not page.title().startswith("▶")
    sound = page.locator("#prefs button[aria-pressed]")
    sound.click()
    assert sound.get_attribute("aria-pressed") == "true" or page.locator("#prefs button[aria-pressed=true]").count()
    bob = ref.seat(m["id"], m["seats"][1]["token"])
    while 1 in bob.match()["to_act"]:
        bob.move(bob.legal_moves()["moves"][0])
    page.wait_for_function(f"document.body.dataset.version === '{bob.match()['version']}'")
    assert page.title().startswith("▶ Your turn")
    assert page.evaluate("document.body.dataset.turnNoticed") == "1"
    assert page.evaluate("window.shown.length") == 1 and page.evaluate("window.shown[0][0]") == "Your turn"
    changed = page.locator("#board .changed")
    assert changed.count() >= 2  # the column Bob took from and his holdings
    assert any("Bob" in changed.nth(i).inner_text() or "Column" in changed.nth(i).inner_text()
               for i in range(changed.count()))
    # the log's lines come with the events, which may follow the read that drew the board
    page.wait_for_function("document.querySelectorAll('#log li.new').length >= 1", timeout=10_000)
    ctx.close()


def test_a_finished_match_replays_in_the_table_forward_and_back(web, context):
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"name": "Bob"}], options={"first_seat": 0}, seed=9)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    play_others(seats, random.Random(9), until_mine=False, limit=2000)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    page.wait_for_selector("table.result")  # the referee has counted: finished
    record = ref.record(m["id"])
    page.locator("[data-replay=start]").click()
    page.wait_for_function("document.body.dataset.replayStep === '0'")
    cards = page.locator(".sb-column .card")
    assert cards.count() == 18  # the opening tableau: columns of 6, 5, 4 and 3
    assert not page.locator("table.result").count() and not page.locator("#board [data-move]").count()
    page.locator("[data-replay=next]").click()
    page.wait_for_function("document.body.dataset.replayStep === '1'")
    assert cards.count() == 17
    step = page.locator(".replay-step").inner_text()
    assert "Move 1 of" in step and "took" in step and "from column" in step
    assert f"from column {record['moves'][0]['move']['column'] + 1}" in step
    page.locator("[data-replay=back]").click()
    page.wait_for_function("document.body.dataset.replayStep === '0'")
    assert cards.count() == 18
    page.locator("[data-replay=last]").click()
    page.wait_for_function("document.body.dataset.replayStep !== '0'")
    page.wait_for_selector("table.result")
    page.locator("[data-replay=leave]").click()
    page.wait_for_selector("[data-replay=start]")
    assert not page.js_errors


def test_the_page_speaks_the_browsers_language_and_switches_on_request(web, browser):
    """A German browser gets German (<html lang="de">), Dice Party in its rulebook's terms; the switch on the
    page changes the language (remembered) for the lobby and the table."""
    ref = Referee(web.url)
    m = ref.create_match("dice_party", 3, [{"name": "Ann"}, {"name": "Bob"}, {"bot": "random"}], seed=2)
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, locale="de-DE", bypass_csp=True)
    ctx.set_default_timeout(15000)
    page = open_table(ctx, web.url, m["id"], m["seats"][0]["token"])
    assert page.evaluate("document.documentElement.lang") == "de"
    board = page.locator("#board").inner_text()
    assert "Party-People" in board and "Vorrat" in board
    assert "Was geschah" in page.locator(".log-box h2").inner_text()
    assert "(du)" in page.locator("#seats").inner_text()
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en' && document.body.dataset.version")
    assert "What happened" in page.locator(".log-box h2").inner_text()
    lobby = ctx.new_page()
    lobby.goto(web.url + "/")
    lobby.locator("select[name=game]").wait_for()
    assert lobby.evaluate("document.documentElement.lang") == "en"  # remembered
    lobby.select_option("#lang", "de")
    lobby.wait_for_function("document.documentElement.lang === 'de'")
    lobby.locator("select[name=game]").wait_for()
    assert "Partie anlegen" in lobby.locator("#create").inner_text()
    assert "Partylöwe" in lobby.locator("#games").inner_text()
    assert not page.js_errors
    ctx.close()


def test_no_request_of_the_lobby_or_the_table_fails_not_even_the_favicon(web, context):
    ref = Referee(web.url)
    m = ref.create_match("big_shot", 2, [{"name": "Ann"}, {"bot": "greedy"}], seed=1)
    failed = []
    context.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page = context.new_page()
    page.goto(web.url + "/")
    page.locator("select[name=game]").wait_for()
    page.wait_for_timeout(500)  # the browser asks for the icon after the page
    table = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    table.wait_for_timeout(500)
    for p in (page, table):
        assert p.locator("link[rel=icon]").get_attribute("href") == "/static/web/favicon.svg"
    assert failed == []
