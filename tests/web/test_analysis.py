"""The analysis on the replay (service/static/web/js/analysis.js) in a real browser against a real `referee serve`:
asked for with its button, its progress, then the chart (one line per seat, a point per decision, mistakes and
blunders marked), the marks in the log, the table of the same figures, a click on a point stepping the replay;
on a desktop and a phone, in English and German."""

from __future__ import annotations

import uuid

import pytest
import requests

from clients.client import Referee
from tests.conftest import Server, wait_for
from tests.web.conftest import DOC_SHOTS, shot
from tests.web.test_accessibility import axe, violations  # noqa: F401 - axe: the fixture
from tests.web.test_issue47 import make  # noqa: F401 - the fixture: a browser context per screen and language
from tests.web.test_table import open_table

SEATS = [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}]


@pytest.fixture(scope="module")
def analysing(redis_url):
    """`referee serve` on a queue of its own (its search worker alone takes the analyses), at a small budget."""
    srv = Server(redis_url, env={"REFEREE_QUEUE": f"web-{uuid.uuid4().hex[:8]}", "REFEREE_ANALYSIS_BUDGET": "40"})
    yield srv
    srv.stop()


def finished_match(url: str, seed: int) -> str:
    ref = Referee(url)
    match_id = ref.create_match("super_blatt", 4, SEATS, seed=seed)["id"]
    wait_for(lambda: ref.match(match_id)["status"] == "finished", timeout=60)
    return match_id


@pytest.mark.parametrize(("screen", "lang"), [("desktop", "en"), ("phone", "de"), ("phone", "en"), ("desktop", "de")])
def test_the_analysis_is_asked_for_drawn_and_steps_the_replay(analysing, make, axe, screen, lang):  # noqa: F811
    url = analysing.url
    match_id = finished_match(url, seed=31)
    page = open_table(make(screen, lang), url, match_id, None)
    page.wait_for_selector("[data-analysis=ask]")
    assert page.locator("#analysis h2").inner_text() == {"en": "Analysis", "de": "Analyse"}[lang]
    page.locator("[data-analysis=ask]").click()
    page.wait_for_function("['queued', 'running', 'done'].includes(document.body.dataset.analysis)")
    page.wait_for_function("document.body.dataset.analysis === 'done'", timeout=90_000)
    analysis = requests.get(f"{url}/matches/{match_id}/analysis", timeout=10).json()["analysis"]
    decisions = analysis["decisions"]

    # one line per seat, one point per decision, each mistake and blunder signed on the chart
    assert page.locator("svg.chart polyline.line").count() == 4
    assert page.locator("svg.chart .point").count() == len(decisions)
    marked = [d for d in decisions if d["label"] in ("mistake", "blunder")]
    assert page.locator("svg.chart .point .sign").count() == len(marked)
    for d in marked[:3]:
        sign = page.locator(f"svg.chart .point[data-version='{d['version']}'] .sign").text_content()
        assert sign == {"mistake": "?", "blunder": "??"}[d["label"]]
    if (screen, lang) == ("desktop", "en"):  # the docs' picture (docs/web-table.md), the table still closed
        DOC_SHOTS.mkdir(parents=True, exist_ok=True)
        page.locator("#analysis").screenshot(path=str(DOC_SHOTS / "analysis-chart-en-desktop.png"))
    # the same figures in a table, and the words of the page's language
    page.locator(".analysis-figures summary").click()
    assert page.locator(".figures tbody tr").count() == len(decisions)
    words = {"en": ("good", "Turning points"), "de": ("gut", "Wendepunkte")}[lang]
    table = page.locator(".figures").inner_text()
    assert words[0] in table
    if any(s["decisive"] for s in analysis["summary"]):
        assert words[1] in page.locator(".analysis-summary").inner_text()
    # the log marks the mistakes and blunders, once each
    assert page.locator("#log .mark").count() <= len(marked)
    if marked:
        assert page.locator("#log .mark").count() > 0

    # a click on a point steps the replay to that move, and the chart shows where the replay stands
    target = marked[0] if marked else decisions[len(decisions) // 2]
    page.locator(f"svg.chart .point[data-version='{target['version']}'] .hit").click(force=True)
    page.wait_for_function(f"document.body.dataset.replayStep === '{target['index'] + 1}'")
    assert page.locator("svg.chart line.now").get_attribute("visibility") == "visible"
    page.locator("[data-replay=next]").click()
    page.wait_for_function(f"document.body.dataset.replayStep === '{target['index'] + 2}'")

    # no serious accessibility violation, no sideways scroll at any width, and no script error
    assert violations(page, axe) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    assert not page.js_errors, page.js_errors
    page.locator("#analysis").scroll_into_view_if_needed()
    shot(page, f"analysis-{screen}-{lang}")


def test_a_second_page_finds_the_analysis_done_and_draws_it_at_once(analysing, make):  # noqa: F811
    url = analysing.url
    match_id = finished_match(url, seed=32)
    assert requests.post(f"{url}/matches/{match_id}/analysis", timeout=10).status_code == 202
    wait_for(lambda: requests.get(f"{url}/matches/{match_id}/analysis", timeout=10).json()["status"] == "done",
             timeout=90)
    page = open_table(make("phone", "en"), url, match_id, None)
    page.wait_for_selector("svg.chart")
    assert page.locator("[data-analysis=ask]").count() == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
