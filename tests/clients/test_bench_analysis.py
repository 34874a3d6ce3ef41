"""``referee bench analysis``: a study split across runs (``--first/--add``) scores exactly as one run would, its
figures per bot are kept and merged, and the docs' table and diagram are the figures its results file holds."""

import json
import random
from pathlib import Path

import pytest

from clients.bench_analysis import KINDS, Point, caption, merge, scores, svg
from service.games import GAMES


def points(rng: random.Random, count: int) -> list[Point]:
    """Decisions as the bench keeps them: (stage, estimate, actual win share, players, the seat's bot); some
    estimates sit exactly on a bin's edge."""
    out = []
    for _ in range(count):
        players = rng.choice((2, 3, 4))
        win = rng.choice((0.0, 0.1, 0.3, 0.7, 1.0, rng.random()))
        out.append((rng.randrange(3), win, rng.choice((0.0, 1.0, 1 / players)), players, rng.choice(KINDS)))
    return out


def run(pts: list, first: int, count: int) -> dict:
    return {**scores(pts), "matches": count,
            "run": {"budget": "16", "iterations": 8, "seed": 1, "ranges": [[first, first + count]]}}


def test_two_runs_over_other_matches_merge_into_the_figures_of_one():
    rng = random.Random(5)
    a, b = points(rng, 700), points(rng, 300)
    merged = merge(run(a, 0, 20), run(b, 20, 9))
    whole = scores(a + b)
    assert merged["matches"] == 29 and merged["run"]["ranges"] == [[0, 20], [20, 29]]
    assert merged["all"] == pytest.approx(list(whole["all"]))
    for got, want in zip(merged["stages"], whole["stages"], strict=True):
        assert got == pytest.approx(list(want))
    assert len(merged["bins"]) == len(whole["bins"])
    for got, want in zip(merged["bins"], whole["bins"], strict=True):
        assert got == pytest.approx(want)
    assert merged["kinds"].keys() == whole["kinds"].keys() == set(KINDS)
    for kind, want in whole["kinds"].items():
        assert merged["kinds"][kind] == pytest.approx(list(want))


def test_the_figures_per_bot_say_who_won_what_the_estimates_could_not_see():
    """A seat's bot is not in its view: the per-bot figures hold each kind's mean estimate against its results."""
    pts = [(0, 0.4, 1.0, 3, "search"), (1, 0.2, 1.0, 3, "search"), (2, 0.5, 0.0, 3, "random")]
    assert scores(pts)["kinds"] == {"search": (pytest.approx(0.3), 1.0, 2), "random": (0.5, 0.0, 1)}


def test_figures_rebuilt_without_the_per_bot_figures_merge_without_them():
    rng = random.Random(7)
    held = run(points(rng, 40), 0, 10)
    del held["kinds"]
    assert "kinds" not in merge(held, run(points(rng, 40), 10, 10))


def test_overlapping_matches_or_another_budget_are_refused():
    rng = random.Random(6)
    held = run(points(rng, 50), 0, 20)
    with pytest.raises(SystemExit, match="overlap"):
        merge(held, run(points(rng, 50), 10, 20))
    other = run(points(rng, 50), 20, 5)
    other["run"]["budget"] = "96"
    with pytest.raises(SystemExit, match="run with"):
        merge(held, other)


def test_the_docs_table_and_diagram_are_the_figures_the_study_file_holds():
    """docs/analysis.md's table and its diagram say what docs/analysis-study.json holds, to the printed digit."""
    docs = Path(__file__).resolve().parents[2] / "docs"
    held = json.loads((docs / "analysis-study.json").read_text())
    page = (docs / "analysis.md").read_text()
    titles = {name: GAMES[name].title for name in held}
    rows = {}
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in [*titles.values(), *(f"{t} (example)" for t in titles.values())]:
            rows[cells[0].removesuffix(" (example)")] = cells[1:]
    assert set(rows) == set(titles.values()), "a game of the study file has no row in the table, or one too many"
    for name, r in held.items():
        figures = [f"{e:.3f} / {b:.3f}" for e, b, _ in [r["all"], *r["stages"]]]
        assert rows[titles[name]] == [str(r["matches"]), f"{r['all'][2]:,}", *figures], name
    budgets = {(r["run"]["budget"], r["run"]["iterations"]) for r in held.values()}
    assert len(budgets) == 1, "the games were studied at different budgets"
    assert (docs / "analysis-reliability.svg").read_text() == svg(held, caption(*budgets.pop()))
