"""Many tables in one browser: every table of a browser shares one event stream (a SharedWorker on GET /events).

A browser opens at most six HTTP/1.1 connections to an origin; with a stream per table, the seventh tab never
loaded.  These run in one browser context on plain HTTP/1.1, as a person with many tabs would.
"""

from __future__ import annotations

import random
import time

from clients.client import Referee
from tests.web.test_table import click_a_move, open_table, play_others, private_seqs

#: every message the shared worker sends this page, recorded (the page's own code is unchanged)
RECORD = """
window.__got = [];
const Real = window.SharedWorker;
window.SharedWorker = function (url, options) {
  const worker = new Real(url, options);
  worker.port.addEventListener("message", (m) => window.__got.push(m.data));
  return worker;
};
"""


def follow_state(page) -> dict:
    return page.evaluate("import('/static/web/js/live.js').then((m) => m.followState())")


def got_seqs(page) -> list[int]:
    return page.evaluate("window.__got.filter((m) => m.op === 'event').map((m) => m.event.seq)")


def against_the_bot(ref: Referee) -> tuple[dict, object]:
    """A Super-Blatt match: seat 0 a person who moves first, seat 1 the greedy bot."""
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"bot": "greedy"}], options={"first_seat": 0})
    return m, ref.seat(m["id"], m["seats"][0]["token"])


def move_and_wait_for_the_bot(seat) -> int:
    """Ann moves through the API (a compound turn to its end); the bot answers; the version once the bot has moved
    and it is Ann's turn again (or the match ended)."""
    bots_turn, deadline = False, time.monotonic() + 20
    while True:
        now = seat.match()
        if now["status"] != "active" or (bots_turn and 0 in now["to_act"]):
            return now["version"]
        if 0 in now["to_act"]:
            seat.move(seat.legal_moves()["moves"][0])
        else:
            bots_turn = True
            assert time.monotonic() < deadline, "the bot did not move"
            time.sleep(0.05)


def test_twelve_tables_stay_live_and_a_thirteenth_page_loads_at_once(web, context):
    ref = Referee(web.url)
    tables = [against_the_bot(ref) for _ in range(12)]
    pages = [open_table(context, web.url, m["id"], m["seats"][0]["token"]) for m, _ in tables]
    deadline = time.monotonic() + 20
    while follow_state(pages[-1])["follows"] < 12:
        assert time.monotonic() < deadline, follow_state(pages[-1])
        time.sleep(0.1)
    # each table shows its bot's answer to a move made elsewhere (the API), live
    for page, (_, seat) in zip(pages, tables):
        version = move_and_wait_for_the_bot(seat)
        page.wait_for_function(f"Number(document.body.dataset.version) >= {version}", timeout=10_000)
        assert "Greedy bot took" in page.locator("#log").inner_text()  # a sentence begins with a capital
    # a move from three of the tables, clicked, is answered
    rng = random.Random(3)
    for page in pages[:3]:
        page.wait_for_selector("#board [data-move], #actions [data-move]")
        click_a_move(page, rng)
        assert not page.locator(".problem").count()
    # one more page of the same origin loads at once: the tables hold one connection between them
    extra = context.new_page()
    t0 = time.monotonic()
    extra.goto(f"{web.url}/", wait_until="domcontentloaded")
    assert time.monotonic() - t0 < 1.0
    assert follow_state(pages[0])["follows"] == 12
    assert all(not page.js_errors for page in pages)


def test_closing_the_tab_that_opened_the_stream_loses_and_repeats_nothing(web, context):
    context.add_init_script(RECORD)
    ref = Referee(web.url)
    tables = [against_the_bot(ref) for _ in range(3)]
    pages = [open_table(context, web.url, m["id"], m["seats"][0]["token"]) for m, _ in tables]
    for page, (_, seat) in zip(pages, tables):
        page.wait_for_function(f"Number(document.body.dataset.version) >= {seat.match()['version']}")
    pages[0].close(run_before_unload=True)  # the tab whose page made the worker (and its stream) first
    for page, (_, seat) in zip(pages[1:], tables[1:]):
        for _ in range(3):
            version = move_and_wait_for_the_bot(seat)
        page.wait_for_function(f"Number(document.body.dataset.version) >= {version}", timeout=10_000)
        expected = [e["seq"] for e in seat.events()["events"]]
        deadline = time.monotonic() + 10
        while got_seqs(page) != expected:
            assert time.monotonic() < deadline, (got_seqs(page), expected)  # each event once, in order
            time.sleep(0.1)
    deadline = time.monotonic() + 10
    while follow_state(pages[1])["follows"] != 2:
        assert time.monotonic() < deadline, follow_state(pages[1])
        time.sleep(0.1)


def test_a_tab_whose_match_ends_stops_following_it(web, context):
    ref = Referee(web.url)
    (first, _), (second, _) = against_the_bot(ref), against_the_bot(ref)
    pages = [open_table(context, web.url, m["id"], m["seats"][0]["token"]) for m in (first, second)]
    deadline = time.monotonic() + 10
    while follow_state(pages[1])["follows"] != 2:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    ref.abort(first["id"], first["host_token"])
    pages[0].wait_for_function("document.body.dataset.status === 'aborted'", timeout=10_000)
    deadline = time.monotonic() + 10
    while follow_state(pages[1])["follows"] != 1:
        assert time.monotonic() < deadline, follow_state(pages[1])
        time.sleep(0.1)
    assert follow_state(pages[1])["matches"] == [second["id"]]


def test_two_seats_and_a_spectator_in_one_browser_each_get_their_own_events(web, context):
    """One browser, three tabs of one Paparazzo match: seat 0, seat 1 and a spectator.  Over the one shared
    stream each tab receives exactly the events its own viewer may see (a seat's dealt cards never reach the
    other seat's tab nor the spectator's)."""
    context.add_init_script(RECORD)
    ref = Referee(web.url)
    m = ref.create_match("paparazzo", 3, [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}],
                         options={"first_seat": 0}, seed=5)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    pages = [open_table(context, web.url, m["id"], m["seats"][i]["token"]) for i in (0, 1)]
    pages.append(open_table(context, web.url, m["id"], None))
    play_others(seats, random.Random(5), until_mine=False, limit=4)
    version = seats[0].match()["version"]
    for page in pages:
        page.wait_for_function(f"Number(document.body.dataset.version) >= {version}", timeout=10_000)
    expected = [[e["seq"] for e in seats[0].events()["events"]], [e["seq"] for e in seats[1].events()["events"]],
                [e["seq"] for e in ref.events(m["id"])["events"]]]
    for page, wanted in zip(pages, expected):
        deadline = time.monotonic() + 10
        while got_seqs(page) != wanted:
            assert time.monotonic() < deadline, (got_seqs(page), wanted)
            time.sleep(0.1)
    secret = private_seqs(seats[0], [seats[1]])
    assert secret, "seat 0 was dealt something seat 1 may not see"
    assert not secret & set(got_seqs(pages[1])) and not secret & set(got_seqs(pages[2]))
    assert follow_state(pages[0])["follows"] == 3
