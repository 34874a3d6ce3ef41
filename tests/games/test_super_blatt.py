"""Das Super-Blatt rules, each test citing its passage: the rulebook ("book": Ken Tidwell's English translation,
section titles as printed) and the rulings of service/games/super_blatt/rules.md (by their titles)."""

from __future__ import annotations

import copy
import json
import random

import pytest

from service.games.base import IllegalMove
from service.games.super_blatt.rules import CARDS, CATEGORIES, DECK_SIZE, GAME, TRENDS, place_category

RNG = random.Random(0)


def cards(category: str, special: str | None = None, arrows: int = 0) -> list[int]:
    return [c["id"] for c in CARDS if c["category"] == category and c["special"] == special and c["arrows"] == arrows]


def fresh(players: int = 3, seed: int = 1, first: int = 0) -> dict:
    return GAME.setup(players, GAME.load_options(players, {"first_seat": first}), random.Random(seed))


def rig(state: dict, columns: list[list[int]], hands: list[list[int]] | None = None) -> dict:
    """Put chosen cards in the tableau (top = last) and hands; the rest stays in the deck."""
    used = {c for col in columns for c in col} | {c for h in hands or [] for c in h}
    state["columns"] = [list(col) for col in columns]
    if hands is not None:
        state["hands"] = [list(h) for h in hands]
    pool = [c for c in range(DECK_SIZE) if c not in used]
    state["deck"] = pool[: len(state["deck"])]
    return state


def test_components():
    """service/games/super_blatt/rules.md, "Cards and specials": 54 cards, Sex 15, Crime 14, Sport 13, Big Business 12;
    the specials table."""
    assert len(CARDS) == 54
    by_cat = {cat: [c for c in CARDS if c["category"] == cat] for cat in CATEGORIES}
    assert [len(by_cat[c]) for c in CATEGORIES] == [15, 14, 13, 12]
    assert sum(c["special"] == "extra" for c in CARDS) == 8
    assert sorted(c["arrows"] for c in by_cat["sex"] if c["special"] == "arrow") == [1, 2, 3, 4]
    assert sorted(c["arrows"] for c in by_cat["business"] if c["special"] == "arrow") == [1, 2, 3]
    # every trend card gives each category one tier (a Latin square)
    for cat in CATEGORIES:
        assert sorted(t[cat] for t in TRENDS) == [(4, 2), (6, 3), (8, 4), (10, 5)]


def test_preparation_tableau_and_trend():
    """book, Preperations: 18 cards in columns of 6, 5, 4, 3; the top trend card turned up."""
    s = fresh(4)
    assert [len(c) for c in s["columns"]] == [6, 5, 4, 3]
    assert len(s["deck"]) == 36 and len(s["trends"]) == 1 and len(s["trend_deck"]) == 3
    assert s["turn"] == 0 and s["round"] == 1


def test_first_player_random_unless_named():
    """docs/games/index.md, "The first player": random from the seed unless first_seat is given."""
    starts = {GAME.setup(4, GAME.load_options(4, {}), random.Random(i))["turn"] for i in range(40)}
    assert starts == {0, 1, 2, 3}
    assert fresh(4, first=2)["turn"] == 2


def test_take_top_card_only_and_turn_passes_clockwise():
    """book, Gameplay: take the top card of one of the four columns; play proceeds clockwise."""
    s = fresh(3)
    plain = cards("crime")
    rig(s, [[plain[0], plain[1]], [plain[2]], [plain[3]], [plain[4]]], [[], [], []])
    events = GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["hands"][0] == [plain[1]] and s["columns"][0] == [plain[0]]
    assert s["turn"] == 1 and events[0]["type"] == "took"
    assert GAME.legal_moves(s, 0) == [] and GAME.to_act(s) == [1]


def test_empty_column_and_out_of_turn_rejected_unchanged():
    """book, Gameplay: only a top card of the tableau; only the player whose turn it is."""
    s = fresh(3)
    plain = cards("crime")
    rig(s, [[], [plain[2]], [plain[3]], [plain[4]]], [[], [], []])
    before = json.dumps(s)
    with pytest.raises(IllegalMove) as exc:
        GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert exc.value.reason == "column_empty"
    with pytest.raises(IllegalMove) as exc:
        GAME.apply(s, 1, {"type": "take", "column": 1}, RNG)
    assert exc.value.reason == "not_your_turn"
    assert json.dumps(s) == before


def test_extra_takes_optional_same_category_card_as_plain():
    """book, Special Scoop Cards / EXTRA: another top card of the same category may be taken;
    a special taken as the additional card is treated as a normal card (no steal)."""
    s = fresh(3)
    extra = cards("sex", "extra")[0]
    sex_arrow = cards("sex", "arrow", 2)[0]
    crime = cards("crime")
    rig(s, [[crime[0], extra], [sex_arrow], [crime[1]], [crime[2]]], [[], [cards("sex")[0]], []])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["pending"] == {"kind": "extra", "category": "sex"} and s["turn"] == 0
    legal = GAME.legal_moves(s, 0)
    assert {"type": "take", "column": 1} in legal and {"type": "pass"} in legal
    assert {"type": "take", "column": 0} not in legal  # crime is not the EXTRA's category
    with pytest.raises(IllegalMove):
        GAME.apply(copy.deepcopy(s), 0, {"type": "take", "column": 2}, RNG)
    GAME.apply(s, 0, {"type": "take", "column": 1}, RNG)
    assert s["hands"][0] == [extra, sex_arrow]
    assert s["hands"][1] == [cards("sex")[0]]  # the arrow card taken as extra steals nothing
    assert s["turn"] == 1 and s["pending"] is None


def test_extra_may_be_declined_and_has_no_choice_without_a_match():
    """book, EXTRA: the player may (not must) take it; taking EXTRA with nothing to add is allowed."""
    s = fresh(2)
    extra = cards("crime", "extra")[0]
    sex = cards("sex")
    rig(s, [[sex[0], extra], [sex[1]], [sex[2]], [sex[3]]], [[], []])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["pending"] is None and s["turn"] == 1  # no crime on top: the turn simply ends
    s = fresh(2)
    rig(s, [[sex[0], extra], [cards("crime")[0]], [sex[2]], [sex[3]]], [[], []])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    GAME.apply(s, 0, {"type": "pass"}, RNG)
    assert s["turn"] == 1 and s["hands"][0] == [extra]


def test_arrows_steal_from_one_named_opponent_as_many_as_they_have():
    """book, Scoop Cards Marked with Arrows: one card of the same category per arrow, all from a
    single player; if the chosen player has fewer, only those are taken."""
    s = fresh(3)
    arrow3 = cards("crime", "arrow", 3)[0]
    crime = cards("crime")
    sex = cards("sex")
    rig(s, [[sex[0], arrow3], [sex[1]], [sex[2]], [sex[3]]],
        [[], [crime[0], crime[1], crime[2], crime[3], sex[4]], [crime[4], crime[5]]])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["pending"]["kind"] == "steal"
    assert GAME.legal_moves(s, 0) == [{"type": "steal", "victim": 1}, {"type": "steal", "victim": 2}]
    GAME.apply(s, 0, {"type": "steal", "victim": 2}, RNG)
    assert sorted(s["hands"][0]) == sorted([arrow3, crime[4], crime[5]])  # 3 arrows, only 2 held
    assert s["hands"][2] == [] and len(s["hands"][1]) == 5


def test_arrow_with_no_victim_does_nothing_and_single_victim_is_forced():
    """service/games/super_blatt/rules.md, "Arrows": if no opponent holds any, nothing happens."""
    s = fresh(3)
    arrow = cards("sport", "arrow", 1)[0]
    sex = cards("sex")
    rig(s, [[sex[0], arrow], [sex[1]], [sex[2]], [sex[3]]], [[], [sex[4]], []])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["turn"] == 1 and s["hands"][0] == [arrow]
    s = fresh(3)
    sport = cards("sport")
    rig(s, [[sex[0], arrow], [sex[1]], [sex[2]], [sex[3]]], [[], [sport[0]], []])
    events = GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["hands"][0] == [arrow, sport[0]] and any(e["type"] == "stole" for e in events)


def test_stealing_from_a_player_without_cards_is_illegal():
    """book, Arrows: cards are stolen from another player's hand of that category."""
    s = fresh(3)
    arrow = cards("sport", "arrow", 2)[0]
    sex, sport = cards("sex"), cards("sport")
    rig(s, [[sex[0], arrow], [sex[1]], [sex[2]], [sex[3]]], [[], [sport[0]], [sport[1]]])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    for bad in (0, 3):
        with pytest.raises(IllegalMove):
            GAME.apply(s, 0, {"type": "steal", "victim": bad}, RNG)
    s["hands"][2] = []
    s["hands"][1].append(sport[1])
    s["pending"] = {"kind": "steal", "category": "sport", "arrows": 2}
    with pytest.raises(IllegalMove) as exc:
        GAME.apply(s, 0, {"type": "steal", "victim": 2}, RNG)
    assert exc.value.reason == "nothing_to_steal"


def test_fred_wilma_barney_betty():
    """book, Scoring: Fred and Wilma hold three sports each, Barney two, Betty one: Fred and Wilma
    are eliminated; Barney gets first place points and Betty second place points."""
    assert place_category([3, 3, 2, 1], (10, 5)) == [0, 0, 10, 5]


def test_tie_elimination_rulings_examples():
    """service/games/super_blatt/rules.md, "Scoring a category": 3,3,2,1 -> 2 first, 1 second; 3,2,2,1 -> 3 first,
    1 second; only players holding at least one card compete."""
    assert place_category([3, 2, 2, 1], (8, 4)) == [8, 0, 0, 4]
    assert place_category([2, 0, 0], (8, 4)) == [8, 0, 0]
    assert place_category([0, 0], (8, 4)) == [0, 0]
    assert place_category([2, 2], (8, 4)) == [0, 0]
    assert place_category([1, 2, 2, 2], (8, 4)) == [8, 0, 0, 0]


def play_out_round(s: dict) -> list[dict]:
    events = []
    while s["round"] == 1 and not s["over"]:
        seat = GAME.to_act(s)[0]
        events += GAME.apply(s, seat, GAME.legal_moves(s, seat)[0], RNG)
    return events


def test_round_end_scores_with_trend_and_next_starter_is_left_of_last():
    """book, Scoring and 2nd and 3rd Rounds: the round ends when the tableau is empty, points from
    the trend card carry over, and the next round starts with the player left of the last starter."""
    s = fresh(3, first=1)
    sex = cards("sex")
    rig(s, [[sex[0]], [], [], []], [[], [sex[1]], []])
    trend = TRENDS[s["trends"][-1]]
    events = GAME.apply(s, 1, {"type": "take", "column": 0}, RNG)
    assert [e["type"] for e in events][:2] == ["took", "round_scored"]
    assert s["scores"] == [0, trend["sex"][0], 0]
    assert s["round"] == 2 and s["starter"] == 2 and s["turn"] == 2
    assert [len(c) for c in s["columns"]] == [6, 5, 4, 3] and len(s["trends"]) == 2
    assert len(s["hands"][1]) == 2  # cards carry over


def test_extra_taken_last_gives_no_extra_and_starts_next_round():
    """book, Scoring: if an EXTRA is taken last the player takes no additional card but plays first
    in the next round."""
    s = fresh(3, first=0)
    extra = cards("crime", "extra")[0]
    rig(s, [[], [], [extra], []], [[], [], []])
    s["turn"] = 2
    GAME.apply(s, 2, {"type": "take", "column": 2}, RNG)
    assert s["round"] == 2 and s["starter"] == 2 and s["turn"] == 2 and s["pending"] is None


def test_last_arrow_still_steals_before_scoring():
    """book, Scoring: the player may steal as an arrow card indicates before the round is over."""
    s = fresh(3, first=0)
    arrow = cards("business", "arrow", 2)[0]
    biz = cards("business")
    rig(s, [[arrow], [], [], []], [[], [biz[0], biz[1]], [biz[2]]])
    GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert s["round"] == 1 and s["pending"]["kind"] == "steal"
    GAME.apply(s, 0, {"type": "steal", "victim": 1}, RNG)
    trend = TRENDS[s["trends"][0]]
    assert s["round_points"][0][0]["business"] == trend["business"][0]  # 3 business: first place
    assert s["round_points"][0][2]["business"] == trend["business"][1]


def test_three_rounds_then_game_over_with_one_trend_unused():
    """book, Game End: three rounds; one of the four trend cards is never turned over."""
    s = fresh(4, seed=3)
    while not GAME.is_over(s):
        seat = GAME.to_act(s)[0]
        GAME.apply(s, seat, GAME.legal_moves(s, seat)[-1], RNG)
    assert s["round"] == 3 and len(s["trends"]) == 3 and len(s["trend_deck"]) == 1 and s["deck"] == []
    assert sum(len(h) for h in s["hands"]) == 54
    result = GAME.final_result(s)
    assert result.winners == [p for p in range(4) if s["scores"][p] == max(s["scores"])]
    with pytest.raises(IllegalMove) as exc:
        GAME.apply(s, 0, {"type": "take", "column": 0}, RNG)
    assert exc.value.reason == "match_over"


def recompute_scores(s: dict) -> list[int]:
    """Independent scoring: replay hands per round from the event log would need history, so use the
    round_points' per-category awards recomputed from the placings rule."""
    return [sum(sum(r[p].values()) for r in s["round_points"]) for p in range(s["players"])]


# -- hooks of the conformance suite (tests/games/test_conformance.py) -----------------------------
def scrambles(state: dict, observer: int | None, actor: int, rng: random.Random):
    """service/games/super_blatt/rules.md, "What is hidden": the rest of the deck and the unturned trend cards are
    hidden from everyone; a new round deals from the deck in the open, so events are compared only within a round."""
    other = copy.deepcopy(state)
    rng.shuffle(other["deck"])
    rng.shuffle(other["trend_deck"])
    yield other, lambda events: None if any(e["type"] == "round_scored" for e in events) else events


class Invariants:
    """book, Materials and Scoring: 54 cards conserved across deck, tableau and holdings;
    each round's points recomputed independently from the holdings; scores are the rounds' sum."""

    def __init__(self, state: dict) -> None:
        self.players = state["players"]

    def step(self, state: dict, events: list[dict]) -> None:
        every = [c for col in state["columns"] for c in col] + state["deck"] + [c for h in state["hands"] for c in h]
        assert sorted(every) == list(range(54))
        for scored in (e for e in events if e["type"] == "round_scored"):
            trend = TRENDS[state["trends"][scored["data"]["round"] - 1]]
            held = [{cat: sum(CARDS[c]["category"] == cat for c in h) for cat in CATEGORIES} for h in state["hands"]]
            for cat in CATEGORIES:
                counts = [h[cat] for h in held]
                for p in range(self.players):
                    c = counts[p]
                    unique_higher = [v for v in set(counts) if v > c and counts.count(v) == 1]
                    if c == 0 or counts.count(c) > 1 or len(unique_higher) >= 2:
                        expected = 0
                    else:
                        expected = trend[cat][len(unique_higher)]
                    assert scored["data"]["points"][p][cat] == expected

    def end(self, state: dict, result) -> None:
        assert state["scores"] == recompute_scores(state) == result.scores
        assert sum(len(h) for h in state["hands"]) == 54
