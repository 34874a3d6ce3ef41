"""EventSource in a real browser (Debian's chromium driven by Playwright): a seat's private stream by ticket."""

from __future__ import annotations

import time

from clients.client import Referee

# Opens the stream and writes every event it gets into the page (named SSE events need a listener each).
FOLLOW = """([url, types]) => new Promise((resolve, reject) => {
  window.got = [];
  const es = new EventSource(url);
  for (const type of types) {
    es.addEventListener(type, (msg) => {
      window.got.push({id: msg.lastEventId, ...JSON.parse(msg.data)});
      const line = document.createElement('div');
      line.textContent = msg.lastEventId + ' ' + type + ' ' + msg.data;
      document.body.appendChild(line);
    });
  }
  es.onopen = () => resolve(true);
  es.onerror = () => reject(new Error('the stream failed'));
})"""


def test_event_source_gets_its_seat_private_events_and_not_the_other_seat(browser, ref: Referee, tmp_path):
    m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"name": "bob"}], seed=21)
    mid, tokens = m["id"], [s["token"] for s in m["seats"]]
    pages = []
    for seat in (0, 1):
        page = browser.new_context().new_page()
        page.goto(ref.url + "/")  # the server's own origin: no CORS involved
        ticket = ref.stream_ticket(mid, tokens[seat])["ticket"]
        assert page.evaluate(FOLLOW, [f"/matches/{mid}/events?ticket={ticket}", ["moved", "took", "match_started"]])
        pages.append(page)
    for _ in range(8):
        seat = ref.match(mid, tokens[0])["to_act"][0]
        legal = ref.legal_moves(mid, tokens[seat])
        ref.move(mid, tokens[seat], legal["moves"][0], expected_version=legal["version"])
    for seat, page in enumerate(pages):
        expected = [e for e in ref.events(mid, tokens[seat])["events"] if e["type"] in ("moved", "took",
                                                                                        "match_started")]
        deadline = time.monotonic() + 20
        while len(page.evaluate("window.got")) < len(expected):
            assert time.monotonic() < deadline, "the browser did not get every event"
            time.sleep(0.1)
        got = page.evaluate("window.got")
        assert [int(e["id"]) for e in got] == [e["seq"] for e in expected]
        moved = [e["data"]["seat"] for e in got if e["type"] == "moved"]
        assert moved and set(moved) == {seat}, "its own moves, never the other seat's"
        page.screenshot(path=str(tmp_path / f"seat{seat}.png"))
