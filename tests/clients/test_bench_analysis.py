"""``referee bench analysis --first/--add``: a study split across runs scores exactly as one run would."""

import random

import pytest

from clients.bench_analysis import merge, scores


def points(rng: random.Random, count: int) -> list[tuple[int, float, float, int]]:
    """Decisions as the bench keeps them: (stage, estimate, actual win share, players); some estimates sit exactly
    on a bin's edge."""
    out = []
    for _ in range(count):
        players = rng.choice((2, 3, 4))
        win = rng.choice((0.0, 0.1, 0.3, 0.7, 1.0, rng.random()))
        out.append((rng.randrange(3), win, rng.choice((0.0, 1.0, 1 / players)), players))
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


def test_overlapping_matches_or_another_budget_are_refused():
    rng = random.Random(6)
    held = run(points(rng, 50), 0, 20)
    with pytest.raises(SystemExit, match="overlap"):
        merge(held, run(points(rng, 50), 10, 20))
    other = run(points(rng, 50), 20, 5)
    other["run"]["budget"] = "96"
    with pytest.raises(SystemExit, match="run with"):
        merge(held, other)
