"""Picture Perfect rules, the computed photo, invariants, hidden information, SVG and bots.

Passages cited are in shared/rules/picture_perfect_photography_guide.txt (section titles as
printed, e.g. "EXCHANGES, DANCE") and the "Picture Perfect" section of shared/rules/RULINGS.md.
"""

from __future__ import annotations

import copy
import json
import random
import re
import xml.etree.ElementTree as ET

import pytest

from service.games.base import IllegalMove, InvalidOptions, concretize, matches
from service.games.picture_perfect import GAME, photo_svg
from service.games.picture_perfect.data import CARDS, GUESTS
from service.games.picture_perfect.photo import Layout, score_photo
from service.games.picture_perfect.rules import held, middle
from workers.bots import random_bot
from workers.bots.picture_perfect import greedy

# -- the book and RULINGS.md as the test reads them (independent of the module's tables) -------
WOMEN = {"yellow_dress", "lady_in_red", "bride", "diva", "grandmother", "little_girl"}
MEN = {"elderly_gentleman", "waiter", "rock_star", "magician", "little_boy", "wheelchair_gentleman"}
T_HEIGHT = {g: 3 for g in GUESTS} | {"little_girl": 2, "little_boy": 2, "wheelchair_gentleman": 2, "corgi": 1}
TABLE = {(2, 2), (2, 3)}
SPACES = {(r, c) for r in range(1, 5) for c in range(1, 5)} - TABLE
T_AREAS = {
    "row_1": {(1, c) for c in range(1, 5)},
    "row_2": {(2, 1), (2, 4)},
    "row_3": {(3, c) for c in range(1, 5)},
    "row_4": {(4, c) for c in range(1, 5)},
    "left_column": {(r, 1) for r in range(1, 5)},
    "right_column": {(r, 4) for r in range(1, 5)},
    "at_the_table": {(1, 2), (1, 3), (3, 2), (3, 3), (2, 1), (2, 4)},
    "corners": {(1, 1), (1, 4), (4, 1), (4, 4)},
    "back_centre": {(3, 2), (3, 3), (4, 2), (4, 3)},
}
T_POINTS = {0: -3, 1: 1, 2: 3, 3: 6}
ENVELOPES = {2: (5, 4), 3: (4, 2), 4: (3, 2), 5: (2, 4), 6: (2, 2)}


def card_of(kind: str, **arg) -> int:
    """The id of a deck card of that kind (and argument)."""
    return next(c["id"] for c in CARDS if c["kind"] == kind and all(c.get(k) == v for k, v in arg.items()))


def t_front(pl: dict, g: str) -> list[str]:
    r, c = pl[g]
    return [h for h, (rr, cc) in pl.items() if cc == c and rr < r]


def t_adjacent(pl: dict, g: str) -> list[str]:
    r, c = pl[g]
    return [h for h, (rr, cc) in pl.items() if abs(rr - r) + abs(cc - c) == 1]


def t_covered(pl: dict, decor: list[int], g: str) -> bool:
    if g == "potted_palm":
        return True
    r, c = pl[g]
    if any(T_HEIGHT[h] >= T_HEIGHT[g] for h in t_front(pl, g)):
        return True
    return T_HEIGHT[g] <= 2 and c in decor and r >= 3


def t_hides(pl: dict, g: str, x: str) -> bool:
    return x in pl and x != "potted_palm" and g in t_front(pl, x) and T_HEIGHT[g] >= T_HEIGHT[x]


def t_ok(card: dict, g: str, pl: dict, decor: list[int]) -> bool:
    """RULINGS.md, Picture Perfect: the photo, written out again from the text."""
    kind = card["kind"]
    if kind == "area":
        return tuple(pl[g]) in T_AREAS[card["area"]]
    if kind == "next_to":
        return card["guest"] == g or (card["guest"] in pl and card["guest"] in t_adjacent(pl, g))
    if kind == "not_next_to":
        group = MEN if card["gender"] == "man" else WOMEN
        return not any(h in group for h in t_adjacent(pl, g))
    if kind == "nobody_in_front":
        return not t_front(pl, g)
    if kind == "face_hidden":
        return t_covered(pl, decor, g)
    if card["guest"] == g:
        return any(t_hides(pl, g, x) for x in pl if x != g)
    return t_hides(pl, g, card["guest"])


def t_score(state: dict, seat: int) -> int:
    pl = {g: tuple(rc) for g, rc in state["placements"][seat]["guests"].items()}
    decor = state["placements"][seat]["decor"]
    total = 0
    for g in pl:
        n = sum(t_ok(CARDS[c], g, pl, decor) for c in state["cards"][g])
        vips = sum(1 for v in state["vip_at"] if v == g)
        total += T_POINTS[n] * (1 + vips)
    if state["auctions"]:
        total += state["decorations"][seat] // 2
    return total


# -- helpers ------------------------------------------------------------------------------------
def new(players: int = 3, seed: int = 1, **options) -> dict:
    options.setdefault("first_seat", 0)
    return GAME.setup(players, GAME.load_options(players, options), random.Random(seed))


def act(state: dict, seat: int, move: dict, rng: random.Random | None = None) -> list[dict]:
    return GAME.apply(state, seat, GAME.parse_move(move), rng or random.Random(0))


def rejects(state: dict, seat: int, move: dict, reason: str | None = None) -> IllegalMove:
    before = json.dumps(state, sort_keys=True)
    with pytest.raises(IllegalMove) as info:
        act(state, seat, move)
    assert json.dumps(state, sort_keys=True) == before
    if reason:
        assert info.value.reason == reason, info.value.message
    return info.value


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def seen_by(events: list[dict], seat: int) -> list[dict]:
    return [e for e in events if e["to"] == "all" or seat in e["to"]]


def deal(state: dict, holdings: dict[int, list[str]]) -> None:
    """Hand out envelopes by hand; every envelope not named goes to the middle."""
    for g in GUESTS:
        state["holder"][g] = -1
    for s, gs in holdings.items():
        for g in gs:
            state["holder"][g] = s
    state["pending"] = {"kind": "look", "waiting": [s for s in range(state["players"]) if held(state, s)]}


def to_exchange(state: dict, card: str) -> list[dict]:
    """Finish step 1 (every seat 'ready') with ``card`` on top of the exchange deck."""
    if card in state["deck"]:
        state["deck"].remove(card)
    state["deck"].append(card)
    events: list[dict] = []
    if not state["pending"]["waiting"]:
        return GAME._reveal_card(state, random.Random(0))
    for s in list(state["pending"]["waiting"]):
        events += act(state, s, {"type": "ready"})
    return events


def place(state: dict, seat: int, guests: dict[str, tuple[int, int]], decor: tuple[int, ...] = ()) -> None:
    for g, (r, c) in guests.items():
        act(state, seat, {"type": "place", "guest": g, "row": r, "col": c})
    for c in decor:
        act(state, seat, {"type": "decorate", "column": c})


def at_placement(state: dict) -> dict:
    """Jump to the final placement (round 6 over)."""
    state["round"] = 6
    state["deck"] = []
    GAME._start_placement(state)
    return state


def layout(guests: dict[str, tuple[int, int]], decor: tuple[int, ...] = ()) -> Layout:
    return Layout.from_placement({"guests": {g: list(rc) for g, rc in guests.items()}, "decor": list(decor)})


def ok(guests: dict, who: str, card: int, decor: tuple[int, ...] = ()) -> bool:
    lay = layout(guests, decor)
    return lay.card_ok(card, GUESTS.index(who))


# == component data ================================================================================
def test_preference_deck_composition():
    """RULINGS.md, Picture Perfect: the 42-card preference deck (areas 14, next to X 14, not next to
    a man 2 / a woman 2, nobody in front 3, nobody sees my face 3, hide the face of X 4)."""
    assert len(CARDS) == 42
    kinds: dict[str, int] = {}
    for c in CARDS:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    assert kinds == {"area": 14, "next_to": 14, "not_next_to": 4, "nobody_in_front": 3, "face_hidden": 3,
                     "hide_face": 4}
    areas = [c["area"] for c in CARDS if c["kind"] == "area"]
    assert {a: areas.count(a) for a in set(areas)} == {
        "row_1": 2, "row_2": 1, "row_3": 2, "row_4": 3, "left_column": 1, "right_column": 1,
        "at_the_table": 2, "corners": 1, "back_centre": 1}
    assert sorted(c["guest"] for c in CARDS if c["kind"] == "next_to") == sorted(GUESTS)
    assert sorted(c["guest"] for c in CARDS if c["kind"] == "hide_face") == sorted(["rock_star", "diva", "magician",
                                                                                    "bride"])
    assert [c["gender"] for c in CARDS if c["kind"] == "not_next_to"].count("man") == 2


def test_guests_and_mat():
    """RULINGS.md, Picture Perfect: 4x4 mat, table on row 2 columns 2-3, 14 guest spaces; 6 women,
    6 men, a dog and a plant with their height classes."""
    view = GAME.view(new(), 0)
    assert len(view["mat"]["guest_squares"]) == 14
    assert sorted(map(tuple, view["mat"]["table"])) == sorted(TABLE)
    guests = {g["id"]: g for g in view["guests"]}
    assert {g for g, x in guests.items() if x["gender"] == "woman"} == WOMEN
    assert {g for g, x in guests.items() if x["gender"] == "man"} == MEN
    assert guests["corgi"]["gender"] is None and guests["potted_palm"]["gender"] is None
    assert {g: x["height"] for g, x in guests.items()} == {
        g: {3: "tall", 2: "short", 1: "low"}[T_HEIGHT[g]] for g in GUESTS}
    assert guests["potted_palm"]["face"] is False


@pytest.mark.parametrize("players", range(2, 7))
def test_setup_envelopes_cards_and_decorations(players):
    """Guide, AUCTION GAME SETUP / ENVELOPES PER PLAYER: 3 cards per envelope; 5/4/3/2/2 envelopes per
    player with 4/2/2/4/2 in the middle; 10 decorations each; 12 more in a supply only with 2 players
    and auctions; the exchange deck is 6 cards (3 normal + 3 auction in the variant)."""
    for auctions in (False, True):
        state = new(players, seed=players, auctions=auctions)
        each, mid = ENVELOPES[players]
        assert [len(held(state, s)) for s in range(players)] == [each] * players
        assert len(middle(state)) == mid
        assert sorted(c for cs in state["cards"].values() for c in cs) == list(range(42))
        assert all(len(cs) == 3 for cs in state["cards"].values())
        assert state["decorations"] == [10] * players
        assert state["supply"] == (12 if auctions and players == 2 else 0)
        deck = state["deck"] + ([state["card"]] if state["card"] else [])
        if auctions:
            assert len(deck) == 6 and len(set(deck)) == 6
            assert len([c for c in deck if c in ("dance", "gifts", "revelations", "rumors", "partner", "theft")]) == 3
        else:
            assert sorted(deck) == sorted(["dance", "gifts", "revelations", "rumors", "partner", "theft"])


def test_options_validation():
    """RULINGS.md conventions: 2 to 6 players; first_seat must be a seat."""
    with pytest.raises(InvalidOptions):
        GAME.load_options(7, {})
    with pytest.raises(InvalidOptions):
        GAME.load_options(3, {"first_seat": 3})
    with pytest.raises(InvalidOptions):
        GAME.load_options(3, {"auctions": "maybe"})


# == the photo ===================================================================================
def test_area_cards():
    """Guide, PREFERENCE CARDS, I want to stand "in this area"; RULINGS.md: the areas of the deck."""
    for area, squares in T_AREAS.items():
        card = card_of("area", area=area)
        for sq in SPACES:
            assert ok({"bride": sq}, "bride", card) == (sq in squares), (area, sq)


def test_next_to_is_an_edge_and_self_means_placed():
    """Guide, I want to stand next to "this guest": shares an edge, not diagonal; if the guest themselves
    is pictured it counts as fulfilled as long as the guest is placed."""
    card = card_of("next_to", guest="diva")
    assert ok({"bride": (3, 1), "diva": (4, 1)}, "bride", card)
    assert ok({"bride": (3, 1), "diva": (3, 2)}, "bride", card)
    assert not ok({"bride": (3, 1), "diva": (4, 2)}, "bride", card)  # diagonal
    assert not ok({"bride": (1, 1), "diva": (1, 3)}, "bride", card)
    assert not ok({"bride": (1, 1)}, "bride", card)  # the Diva is not in the photo
    assert ok({"bride": (2, 1), "diva": (1, 1)}, "bride", card)
    assert not ok({"bride": (1, 1), "diva": (1, 4)}, "bride", card)
    assert ok({"diva": (4, 4)}, "diva", card)  # about itself


def test_not_next_to_a_man_or_woman_dog_and_plant_neutral():
    """Guide, I don't want to stand next to a man/woman: no man/woman on an edge-sharing space, diagonal
    allowed; the dog and the plant are neither."""
    man, woman = card_of("not_next_to", gender="man"), card_of("not_next_to", gender="woman")
    assert ok({"bride": (3, 3), "corgi": (3, 4), "potted_palm": (4, 3)}, "bride", man)
    assert ok({"bride": (3, 3), "corgi": (3, 4), "potted_palm": (4, 3)}, "bride", woman)
    assert not ok({"bride": (3, 3), "waiter": (3, 2)}, "bride", man)
    assert ok({"bride": (3, 3), "waiter": (4, 4)}, "bride", man)  # diagonal
    assert not ok({"waiter": (1, 1), "little_girl": (1, 2)}, "waiter", woman)
    assert ok({"waiter": (1, 1), "little_boy": (1, 2)}, "waiter", woman)
    assert ok({"waiter": (1, 1), "little_boy": (1, 2)}, "little_boy", woman)  # itself is no neighbour


def test_nobody_in_front_ignores_table_and_decorations():
    """Guide, I don't want anyone in front of me: it still scores if covered only by the table or
    decorations; RULINGS.md: in front = same column, rows nearer the camera."""
    card = card_of("nobody_in_front")
    assert ok({"bride": (3, 2)}, "bride", card, decor=(2,))  # table and decorations only
    assert not ok({"bride": (4, 2), "corgi": (1, 2)}, "bride", card)  # even a low dog counts
    assert ok({"bride": (4, 2), "corgi": (1, 3)}, "bride", card)
    assert ok({"bride": (1, 1), "waiter": (2, 1)}, "bride", card)  # behind is not in front


def test_face_hidden_by_height_class_decorations_and_the_plant():
    """Guide, I don't want anyone to see my face; RULINGS.md: tall covers all, short covers short and
    low, low covers low; decorations cover like a short figure behind their table square; the Potted
    Palm has no face and always counts as hidden."""
    card = card_of("face_hidden")
    assert ok({"bride": (3, 1), "waiter": (1, 1)}, "bride", card)  # tall covers tall
    assert not ok({"bride": (3, 1), "little_boy": (1, 1)}, "bride", card)  # short does not cover tall
    assert ok({"little_girl": (3, 1), "little_boy": (2, 1)}, "little_girl", card)  # short covers short
    assert not ok({"little_girl": (3, 1), "corgi": (2, 1)}, "little_girl", card)  # low does not cover short
    assert ok({"corgi": (4, 4), "little_boy": (1, 4)}, "corgi", card)  # short covers low
    assert not ok({"bride": (1, 1)}, "bride", card)
    assert ok({"little_girl": (4, 2)}, "little_girl", card, decor=(2,))  # decorations cover short
    assert ok({"corgi": (3, 3)}, "corgi", card, decor=(3,))  # and low
    assert not ok({"bride": (4, 2)}, "bride", card, decor=(2,))  # but not tall
    assert not ok({"little_girl": (4, 2)}, "little_girl", card, decor=(3,))  # only behind their square
    assert not ok({"little_girl": (1, 2)}, "little_girl", card, decor=(2,))  # in front of the table
    assert ok({"potted_palm": (1, 1)}, "potted_palm", card)


def test_hide_the_face_of_someone_and_the_self_case():
    """Guide, I want to make sure no one sees the face of "this guest": this figure covers that face
    (the guest placed, this one in front and at least as tall, RULINGS.md); about itself the card
    reads "hide someone's face"; the Potted Palm has no face to hide."""
    diva = card_of("hide_face", guest="diva")
    assert ok({"waiter": (1, 2), "diva": (3, 2)}, "waiter", diva)
    assert not ok({"waiter": (1, 2), "diva": (3, 3)}, "waiter", diva)  # other column
    assert not ok({"waiter": (3, 2), "diva": (1, 2)}, "waiter", diva)  # behind her
    assert not ok({"little_boy": (1, 2), "diva": (3, 2)}, "little_boy", diva)  # too short
    assert not ok({"waiter": (1, 2)}, "waiter", diva)  # not placed
    # the face must be covered, and at least partly by this figure: another covering one is fine
    assert ok({"waiter": (1, 2), "bride": (2, 1), "diva": (4, 2), "magician": (3, 2)}, "waiter", diva)
    rock = card_of("hide_face", guest="rock_star")
    assert ok({"rock_star": (1, 3), "little_girl": (3, 3)}, "rock_star", rock)  # self: hides someone's face
    assert not ok({"rock_star": (1, 3), "little_girl": (3, 2)}, "rock_star", rock)
    assert not ok({"rock_star": (1, 3), "potted_palm": (3, 3)}, "rock_star", rock)  # the palm has no face
    assert not ok({"rock_star": (3, 3), "little_girl": (1, 3)}, "rock_star", rock)
    assert ok({"corgi": (1, 1), "rock_star": (4, 4)}, "corgi", card_of("next_to", guest="corgi"))


def test_three_copies_of_fourth_row_score_six():
    """Guide, PREFERENCE CARDS: three copies of "I want to be in the 4th row", placed in the 4th row,
    fulfil all 3 cards and score 6 points."""
    row4 = [c["id"] for c in CARDS if c.get("area") == "row_4"]
    assert len(row4) == 3
    scored = score_photo({"guests": {"bride": [4, 1]}, "decor": []}, {g: [] for g in GUESTS} | {"bride": row4}, {})
    assert scored["guests"]["bride"]["points"] == 6
    scored = score_photo({"guests": {"bride": [3, 1]}, "decor": []}, {g: [] for g in GUESTS} | {"bride": row4}, {})
    assert scored["guests"]["bride"]["points"] == -3


def test_scoring_table_unplaced_and_vip_repeats():
    """Guide, SCORING: 0/1/2/3 fulfilled cards score -3/1/3/6, unplaced guests 0; a guest is scored again
    for each VIP card (double with 1, triple with 2)."""
    row1, row4 = card_of("area", area="row_1"), card_of("area", area="row_4")
    front = card_of("nobody_in_front")
    cards = {g: [row4, row4, row4] for g in GUESTS}
    cards["bride"] = [row1, front, row4]  # at (1, 1): row 1 and nobody in front -> 2 cards
    cards["diva"] = [row1, row4, row4]  # at (1, 2): 1 card
    cards["waiter"] = [row4, row4, row4]  # at (1, 3): none
    placement = {"guests": {"bride": [1, 1], "diva": [1, 2], "waiter": [1, 3]}, "decor": []}
    scored = score_photo(placement, cards, {})
    assert {g: x["points"] for g, x in scored["guests"].items()} == {"bride": 3, "diva": 1, "waiter": -3}
    assert scored["guest_points"] == 1 and scored["placed"] == 3
    doubled = score_photo(placement, cards, {"bride": 1, "waiter": 1, "magician": 1})
    assert {g: x["points"] for g, x in doubled["guests"].items()} == {"bride": 6, "diva": 1, "waiter": -6}
    tripled = score_photo(placement, cards, {"bride": 2})
    assert tripled["guests"]["bride"]["points"] == 9


def test_final_scores_ties_and_decoration_points():
    """Guide, SCORING (CONT.): most points wins; ties by most placed guests, then most envelopes held;
    RULINGS.md: then a shared win.  Auction variant, SCORING: +1 point per 2 decorations."""
    state = at_placement(new(3, auctions=True))
    row1 = card_of("area", area="row_1")
    for g in GUESTS:
        state["cards"][g] = [row1, row1, row1]
    deal(state, {0: ["bride"], 1: ["diva", "waiter"], 2: ["magician", "corgi"]})
    state["pending"] = {"kind": "placement", "waiting": [0, 1, 2]}
    state["decorations"] = [10, 11, 9]  # 5, 5 and 4 points
    place(state, 0, {"bride": (1, 1), "diva": (1, 2)})  # 12 + 5 = 17
    place(state, 1, {"bride": (1, 1), "waiter": (1, 3)})  # 12 + 5 = 17
    place(state, 2, {"bride": (1, 1), "diva": (1, 2), "corgi": (3, 1)})  # 6 + 6 - 3 + 4 = 13
    for s in range(3):
        act(state, s, {"type": "done"})
    result = GAME.final_result(state)
    assert result.scores == [17, 17, 13]
    # 0 and 1: 17 points and 2 placed each; seat 1 holds 2 envelopes, seat 0 one
    assert result.ranking == [[1], [0], [2]] and result.winners == [1]
    assert [t_score(state, s) for s in range(3)] == result.scores
    state["holder"]["magician"] = 0  # now 2 envelopes each: a shared win
    assert GAME.final_result(state).winners == [0, 1]
