"""Picture Perfect component data: the floor mat, the guests, the preference deck, the exchanges.

Everything here marked "chosen" in service/games/picture_perfect/rules.md was not found
published; it lives in this one table so it can be corrected in one place.
"""

from __future__ import annotations

from typing import Literal

# -- the floor mat (service/games/picture_perfect/rules.md, "The floor mat": 4 x 4, table on row 2) --
ROWS = 4
COLS = 4
TABLE_SQUARES = ((2, 2), (2, 3))
TABLE_COLUMNS = (2, 3)


def square(row: int, col: int) -> int:
    """Square index 0..15 of (row, col), both counted from 1."""
    return (row - 1) * COLS + (col - 1)


def row_col(sq: int) -> tuple[int, int]:
    return sq // COLS + 1, sq % COLS + 1


TABLE_SQ = frozenset(square(r, c) for r, c in TABLE_SQUARES)
GUEST_SQUARES = tuple(s for s in range(ROWS * COLS) if s not in TABLE_SQ)


def _adjacent(sq: int) -> tuple[int, ...]:
    r, c = row_col(sq)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 1 <= rr <= ROWS and 1 <= cc <= COLS:
            out.append(square(rr, cc))
    return tuple(out)


#: squares sharing an edge (service/games/picture_perfect/rules.md, "The floor mat": "next to")
ADJACENT = tuple(_adjacent(s) for s in range(ROWS * COLS))
#: squares in the same column nearer the camera (service/games/picture_perfect/rules.md, "The photo")
IN_FRONT = tuple(tuple(square(rr, row_col(s)[1]) for rr in range(1, row_col(s)[0])) for s in range(ROWS * COLS))

# -- guests (service/games/picture_perfect/rules.md, "The guests": chosen names) ---------------------
TALL, SHORT, LOW = 3, 2, 1
HEIGHT_NAMES = {TALL: "tall", SHORT: "short", LOW: "low"}

GUEST_TABLE = (
    # id, name, gender, height
    ("yellow_dress", "Yellow Dress", "woman", TALL),
    ("lady_in_red", "Lady in Red", "woman", TALL),
    ("bride", "Bride", "woman", TALL),
    ("diva", "Diva", "woman", TALL),
    ("grandmother", "Grandmother", "woman", TALL),
    ("little_girl", "Little Girl", "woman", SHORT),
    ("elderly_gentleman", "Elderly Gentleman", "man", TALL),
    ("waiter", "Waiter", "man", TALL),
    ("rock_star", "Rock Star", "man", TALL),
    ("magician", "Magician", "man", TALL),
    ("little_boy", "Little Boy", "man", SHORT),
    ("wheelchair_gentleman", "Wheelchair Gentleman", "man", SHORT),
    ("corgi", "Corgi", None, LOW),
    ("potted_palm", "Potted Palm", None, TALL),
)
GUESTS = tuple(g[0] for g in GUEST_TABLE)
GUEST_INDEX = {g: i for i, g in enumerate(GUESTS)}
GUEST_NAME = {g[0]: g[1] for g in GUEST_TABLE}
GENDER = tuple(g[2] for g in GUEST_TABLE)
HEIGHT = tuple(g[3] for g in GUEST_TABLE)
NO_FACE = frozenset({GUEST_INDEX["potted_palm"]})  # service/games/picture_perfect/rules.md, "The Potted Palm"
#: a guest's id, as the state's declared types name it (shape.py checks states against them)
Guest = Literal[GUESTS]

# -- areas ("I want to stand in this area"; service/games/picture_perfect/rules.md, "The preference deck") --
_ALL = [s for s in GUEST_SQUARES]
AREA_TABLE = (
    ("row_1", "in the 1st row", [s for s in _ALL if row_col(s)[0] == 1]),
    ("row_2", "in the 2nd row", [s for s in _ALL if row_col(s)[0] == 2]),
    ("row_3", "in the 3rd row", [s for s in _ALL if row_col(s)[0] == 3]),
    ("row_4", "in the 4th row", [s for s in _ALL if row_col(s)[0] == 4]),
    ("left_column", "in the left column", [s for s in _ALL if row_col(s)[1] == 1]),
    ("right_column", "in the right column", [s for s in _ALL if row_col(s)[1] == COLS]),
    ("at_the_table", "at the table", [s for s in _ALL if any(a in TABLE_SQ for a in ADJACENT[s])]),
    ("corners", "in a corner", [square(1, 1), square(1, 4), square(4, 1), square(4, 4)]),
    ("back_centre", "in the back centre", [s for s in _ALL if row_col(s)[0] >= 3 and row_col(s)[1] in (2, 3)]),
)
AREAS = {a[0]: frozenset(a[2]) for a in AREA_TABLE}
AREA_TEXT = {a[0]: a[1] for a in AREA_TABLE}

# -- the preference deck (service/games/picture_perfect/rules.md, "The preference deck": chosen, 42 cards) --
_AREA_COUNTS = (("row_1", 2), ("row_2", 1), ("row_3", 2), ("row_4", 3), ("left_column", 1),
                ("right_column", 1), ("at_the_table", 2), ("corners", 1), ("back_centre", 1))
HIDE_FACE_TARGETS = ("rock_star", "diva", "magician", "bride")


def _build_deck() -> tuple[dict, ...]:
    cards: list[dict] = []
    for area, n in _AREA_COUNTS:
        cards += [{"kind": "area", "area": area}] * n
    cards += [{"kind": "next_to", "guest": g} for g in GUESTS]
    cards += [{"kind": "not_next_to", "gender": "man"}] * 2
    cards += [{"kind": "not_next_to", "gender": "woman"}] * 2
    cards += [{"kind": "nobody_in_front"}] * 3
    cards += [{"kind": "face_hidden"}] * 3
    cards += [{"kind": "hide_face", "guest": g} for g in HIDE_FACE_TARGETS]
    return tuple({"id": i, **c} for i, c in enumerate(cards))


CARDS = _build_deck()
DECK_SIZE = len(CARDS)  # 42
CARDS_PER_ENVELOPE = 3


def card_text(card: dict) -> str:
    """The card as a person reads it (self-referring cards read differently, see photo.py)."""
    kind = card["kind"]
    if kind == "area":
        return f"I want to stand {AREA_TEXT[card['area']]}."
    if kind == "next_to":
        return f"I want to stand next to the {GUEST_NAME[card['guest']]} (if that is me: just put me in the photo)."
    if kind == "not_next_to":
        return f"I don't want to stand next to a {card['gender']}."
    if kind == "nobody_in_front":
        return "I don't want anyone in front of me."
    if kind == "face_hidden":
        return "I don't want anyone to see my face."
    return (f"I want to make sure no one sees the face of the {GUEST_NAME[card['guest']]} "
            "(if that is me: hide someone's face).")


CARD_INFO = tuple({**c, "text": card_text(c)} for c in CARDS)

# -- scoring (book: Scoring) --------------------------------------------------------------
POINTS = (-3, 1, 3, 6)  # by fulfilled preference cards 0..3; unplaced guests score 0
DECORATIONS_PER_POINT = 2  # auction variant: +1 point per 2 decorations

# -- envelopes (book: Envelopes per player): players -> (per player, in the middle) ----------
ENVELOPES = {2: (5, 4), 3: (4, 2), 4: (3, 2), 5: (2, 4), 6: (2, 2)}
DECORATIONS_EACH = 10
SUPPLY_2P_AUCTION = 12
ROUNDS = 6

# -- exchange cards -----------------------------------------------------------------------
NORMAL = ("dance", "gifts", "revelations", "rumors", "partner", "theft")
AUCTION = ("single", "secret", "unfair_secret", "shared", "fixed_price", "open")
#: an exchange card's name, and an auction card's, as the state's declared types name them
ExchangeCard = Literal[NORMAL + AUCTION]
AuctionCard = Literal[AUCTION]
EXCHANGE_TITLE = {
    "dance": "Dance", "gifts": "Gifts", "revelations": "Revelations", "rumors": "Rumors",
    "partner": "Choose Your Partner", "theft": "Theft", "single": "Single Round Auction",
    "secret": "Secret Auction", "unfair_secret": "Unfair Secret Auction", "shared": "Shared Auction",
    "fixed_price": "Fixed Price Auction", "open": "Open Auction",
}
AUCTION_NORMAL_CARDS = 3
AUCTION_AUCTION_CARDS = 3
