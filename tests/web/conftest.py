"""A real browser (Playwright driving Debian's chromium) against a real `referee serve`.

The browser is tests/conftest.py's (in CI a browser that cannot start fails the tests).  Screenshots
go to $REFEREE_SCREENSHOTS when it is set (docs/clients.md, "The web table", regenerates the
committed ones in tests/web/screenshots/ that way), else to a folder in the system's temp dir, so that
running the suite leaves the checkout unchanged; the docs' set (tests/web/test_screenshots.py) goes to
$REFEREE_DOC_SCREENSHOTS (docs/screenshots/ when regenerated) the same way.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from tests.conftest import Server

SHOTS = Path(os.environ.get("REFEREE_SCREENSHOTS") or Path(tempfile.gettempdir()) / "referee-screenshots")
# every game at start, mid-game and end, in English and German, on a desktop and a phone (docs/web-table.md);
# regenerated into the docs with REFEREE_DOC_SCREENSHOTS=docs/screenshots
DOC_SHOTS = Path(os.environ.get("REFEREE_DOC_SCREENSHOTS") or SHOTS / "docs")
DESKTOP = {"width": 1200, "height": 900}
PHONE = {"width": 375, "height": 800}


@pytest.fixture(scope="session")
def web(redis_url):
    """`referee serve` with a short SSE heartbeat, so an idle page is exercised in bounded time."""
    srv = Server(redis_url, env={"REFEREE_HEARTBEAT": "5"})
    yield srv
    srv.stop()


@pytest.fixture()
def context(browser):
    ctx = browser.new_context(viewport=DESKTOP, bypass_csp=True)  # lets the tests evaluate their own waits
    ctx.set_default_timeout(15000)
    yield ctx
    ctx.close()


def shot(page, name: str) -> None:
    """Save a full-page screenshot (to look at: a test passing says nothing of how the page looks)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
