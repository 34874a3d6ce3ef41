"""axe-core on the lobby and on every game's table in the phases the tests reach: no serious or critical
violation.  axe-core is the pinned npm package in tests/web/axe (``.ci/run`` installs it with ``npm ci``);
in CI a missing copy fails these tests, elsewhere it skips them."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from clients.client import Referee
from tests.web.test_table import click_a_move, open_table, play_others, wait_for_turn_or_end

AXE = Path(__file__).resolve().parent / "axe" / "node_modules" / "axe-core" / "axe.min.js"
PLAYERS = {"super_blatt": 2, "paparazzo": 3, "big_shot": 2, "dice_party": 3, "picture_perfect": 2}


@pytest.fixture(scope="module")
def axe() -> str:
    if not AXE.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"axe-core is missing in CI: run (cd tests/web/axe && npm ci); looked for {AXE}")
        pytest.skip("axe-core is not installed: (cd tests/web/axe && npm ci)")
    return AXE.read_text()


def violations(page, axe: str) -> list[str]:
    """The serious and critical violations axe-core finds on the page as it is now."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(content=axe)
    found = page.evaluate("""async () => (await axe.run(document, { resultTypes: ['violations'] })).violations
        .filter(v => ['serious', 'critical'].includes(v.impact))
        .map(v => `${v.id} (${v.impact}): ${v.nodes.length} × `
          + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | '))""")
    return found


def test_the_lobby_has_no_serious_violation(web, context, axe):
    page = context.new_page()
    page.goto(web.url + "/")
    page.locator("select[name=game]").wait_for()
    assert violations(page, axe) == []


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_table_has_no_serious_violation_at_start_mid_game_and_end(web, context, axe, game):
    ref = Referee(web.url)
    n = PLAYERS[game]
    m = ref.create_match(game, n, [{"name": f"P{i}"} for i in range(n)], options={"first_seat": 0}, seed=11)
    seats = [ref.seat(m["id"], s["token"]) for s in m["seats"]]
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    found = {"start": violations(page, axe)}
    rng = random.Random(11)
    seen_phases = set()
    for _ in range(25):  # on through the game: the page's seat clicks, the others move through the API
        snap = play_others(seats, rng)
        if snap["status"] != "active":
            break
        page.wait_for_function(f"document.body.dataset.version === '{snap['version']}'")
        if not wait_for_turn_or_end(page):
            break
        phase = snap["view"].get("phase")
        if phase not in seen_phases:  # each phase the page reaches, with its controls on show
            seen_phases.add(phase)
            found[f"phase {phase}"] = violations(page, axe)
        click_a_move(page, rng)
    play_others(seats, rng, until_mine=False, limit=5000)
    end = open_table(context, web.url, m["id"], None)
    end.wait_for_selector("table.result")
    found["end"] = violations(end, axe)
    assert {k: v for k, v in found.items() if v} == {}, found.keys()
    if game == "big_shot":
        assert "phase place" in found  # 26 of 27 serious violations were there

