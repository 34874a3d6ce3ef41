"""Issue #34's findings, each in a real browser: a person who knows the rules understands the table at a glance."""

from __future__ import annotations

from clients.client import Referee
from tests.web.test_table import open_table


def test_super_blatt_column_headings_show_and_the_log_counts_columns_as_they_do(web, context):
    """The "Column N" headings are not hidden under the first card; the log names the column the page shows,
    once: no second, machine-like line ("played take (column 0)") for one's own move."""
    ref = Referee(web.url)
    m = ref.create_match("super_blatt", 2, [{"name": "Ann"}, {"bot": "greedy"}], options={"first_seat": 0}, seed=2)
    page = open_table(context, web.url, m["id"], m["seats"][0]["token"])
    for i in range(4):
        heading = page.locator(".sb-column h3").nth(i)
        assert heading.inner_text() == f"Column {i + 1}"
        box = heading.bounding_box()
        # what is drawn at the heading's centre is the heading itself, not a card over it
        assert page.evaluate(f"document.elementFromPoint({box['x'] + box['width'] / 2}, {box['y'] + box['height'] / 2})"
                             ".closest('h3') !== null")
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
