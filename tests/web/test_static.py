"""The web table's files: every event has words, nothing comes from elsewhere, the page stays small."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service.api.web import PAGES
from service.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
JS = PAGES / "js"
TABLE_PAGE_BUDGET = 100_000  # bytes of HTML, CSS and JS for one game's table page


def sentence_keys(path: Path, block: str) -> set[str]:
    text = path.read_text()
    body = text[text.index(f"export const {block} = {{"):]
    body = body[:body.index("\n};")]
    return set(re.findall(r"^  (\w+): \(", body, re.M))


def emitted(game: str) -> set[str]:
    folder = ROOT / "service" / "games"
    sources = [folder / f"{game}.py"] if (folder / f"{game}.py").exists() else list((folder / game).glob("*.py"))
    return {t for src in sources for t in re.findall(r'event\("(\w+)"', src.read_text())}


def test_the_referees_own_events_have_words():
    made = set(re.findall(r'"type": "(\w+)"', (ROOT / "service" / "referee.py").read_text()))
    assert made <= sentence_keys(JS / "log.js", "COMMON")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_event_a_game_emits_has_a_sentence(game):
    """The live stream names each event by its type, and the page listens to the types it knows."""
    assert emitted(game) and emitted(game) <= sentence_keys(JS / "games" / f"{game}.js", "SENTENCES")


def test_the_pages_load_nothing_from_elsewhere_and_stay_small(http):
    files = [p for p in PAGES.rglob("*") if p.is_file()]
    for path in files:
        assert not re.search(r"https?://", path.read_text()), path
    page = http.get("/matches/abc/table")
    assert page.status_code == 200 and page.headers["Content-Security-Policy"].startswith("default-src 'self'")
    shared = ["table.html", "css/referee.css", "js/table.js", "js/api.js", "js/dom.js", "js/live.js", "js/log.js",
              "js/moves.js"]
    for game in GAMES:
        paths = shared + [f"js/games/{game}.js"]
        sizes = [len(http.get(f"/static/web/{p}").data) for p in paths]
        assert all(sizes) and sum(sizes) < TABLE_PAGE_BUDGET, (game, sum(sizes))
