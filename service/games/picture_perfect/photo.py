"""The photo the referee takes: who stands next to whom, who is in front, whose face is covered.

service/games/picture_perfect/rules.md, "The photo": the figures in front of a guest are those in the same column in
rows nearer the camera; a face is covered when something in front is at least as tall (tall
covers all, short covers short and low, low covers low); decorations on a table square cover
like a short figure for the guests behind that table square.  The functions work on guest
indices and square indices (see data.py) so the greedy bot can call them thousands of times.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from .data import (
    ADJACENT,
    AREAS,
    CARDS,
    COLS,
    GENDER,
    GUEST_INDEX,
    GUESTS,
    HEIGHT,
    IN_FRONT,
    NO_FACE,
    POINTS,
    ROWS,
    SHORT,
    TABLE_COLUMNS,
    row_col,
    square,
)

#: squares in the same column farther from the camera
BEHIND = tuple(tuple(square(rr, row_col(s)[1]) for rr in range(row_col(s)[0] + 1, ROWS + 1))
               for s in range(ROWS * COLS))
_DECOR_COVERS = tuple(row_col(s)[1] if row_col(s)[0] >= 3 and row_col(s)[1] in TABLE_COLUMNS else 0
                      for s in range(ROWS * COLS))

# cards compiled to (code, argument) for speed
AREA, NEXT_TO, NOT_NEXT_TO, NOBODY_IN_FRONT, FACE_HIDDEN, HIDE_FACE = range(6)


def _compile(card: dict) -> tuple[int, object]:
    kind = card["kind"]
    if kind == "area":
        return AREA, AREAS[card["area"]]
    if kind == "next_to":
        return NEXT_TO, GUEST_INDEX[card["guest"]]
    if kind == "not_next_to":
        return NOT_NEXT_TO, card["gender"]
    if kind == "nobody_in_front":
        return NOBODY_IN_FRONT, None
    if kind == "face_hidden":
        return FACE_HIDDEN, None
    return HIDE_FACE, GUEST_INDEX[card["guest"]]


COMPILED = tuple(_compile(c) for c in CARDS)


class Layout:
    """One player's final placement: ``pos[guest] = square or -1``, ``at[square] = guest or -1``."""

    __slots__ = ("pos", "at", "decor")

    def __init__(self, pos: Sequence[int], decor: Iterable[int] = ()) -> None:
        self.pos = list(pos)
        self.at = [-1] * (ROWS * COLS)
        for g, s in enumerate(self.pos):
            if s >= 0:
                self.at[s] = g
        self.decor = frozenset(decor)

    @classmethod
    def from_placement(cls, placement: Mapping) -> Layout:
        """From the state's ``{"guests": {name: [row, col]}, "decor": [columns]}``."""
        pos = [-1] * len(GUESTS)
        for name, (r, c) in placement.get("guests", {}).items():
            pos[GUEST_INDEX[name]] = square(r, c)
        return cls(pos, placement.get("decor", ()))

    # -- what the camera sees ---------------------------------------------------------------
    def in_front(self, g: int) -> list[int]:
        return [self.at[f] for f in IN_FRONT[self.pos[g]] if self.at[f] >= 0]

    def neighbours(self, g: int) -> list[int]:
        return [self.at[a] for a in ADJACENT[self.pos[g]] if self.at[a] >= 0]

    def face_covered(self, g: int) -> bool:
        """Something in front at least as tall, or decorations in front of a short or low guest."""
        if g in NO_FACE:
            return True
        s, h, at = self.pos[g], HEIGHT[g], self.at
        for f in IN_FRONT[s]:
            o = at[f]
            if o >= 0 and HEIGHT[o] >= h:
                return True
        return h <= SHORT and _DECOR_COVERS[s] in self.decor

    def hides(self, g: int, x: int) -> bool:
        """Guest g hides the face of x: x is placed, g stands in front and is as tall.

        service/games/picture_perfect/rules.md, "Hiding a face" and "The Potted Palm": this covers x's face; the
        Potted Palm's face always counts as hidden, and a
        tall guest in front of it hides it too.
        """
        px = self.pos[x]
        return px >= 0 and self.pos[g] in IN_FRONT[px] and HEIGHT[g] >= HEIGHT[x]

    def card_ok(self, card_id: int, g: int) -> bool:
        """Whether guest g (placed) fulfils preference card ``card_id`` in this photo."""
        code, arg = COMPILED[card_id]
        s = self.pos[g]
        at = self.at
        if code == AREA:
            return s in arg
        if code == NEXT_TO:
            if arg == g:  # about itself: "I am in the photo"
                return True
            px = self.pos[arg]
            return px >= 0 and px in ADJACENT[s]
        if code == NOT_NEXT_TO:
            return all(at[a] < 0 or GENDER[at[a]] != arg for a in ADJACENT[s])
        if code == NOBODY_IN_FRONT:
            return all(at[f] < 0 for f in IN_FRONT[s])
        if code == FACE_HIDDEN:
            return self.face_covered(g)
        if arg == g:  # about itself: "hide someone's face"
            return any(at[b] >= 0 and self.hides(g, at[b]) for b in BEHIND[s])
        return self.hides(g, arg)

    def fulfilled(self, g: int, cards: Sequence[int]) -> list[bool]:
        return [self.card_ok(c, g) for c in cards]

    def guest_points(self, g: int, cards: Sequence[int], vips: int = 0) -> int:
        """Book, Scoring: -3/1/3/6 by fulfilled cards, once more per VIP card; 0 if not placed."""
        if self.pos[g] < 0:
            return 0
        n = 0
        for c in cards:
            if self.card_ok(c, g):
                n += 1
        return POINTS[min(n, 3)] * (1 + vips)


def score_photo(placement: Mapping, cards: Mapping[str, Sequence[int]], vips: Mapping[str, int]) -> dict:
    """The per-guest scoring of one player's photo, as the breakdown and the SVG show it."""
    lay = Layout.from_placement(placement)
    guests = {}
    total = 0
    for g, name in enumerate(GUESTS):
        s = lay.pos[g]
        if s < 0:
            continue
        ok = lay.fulfilled(g, cards[name])
        pts = lay.guest_points(g, cards[name], vips.get(name, 0))
        total += pts
        r, c = row_col(s)
        guests[name] = {"row": r, "col": c, "fulfilled": ok, "vips": vips.get(name, 0), "points": pts,
                        "face_covered": lay.face_covered(g), "nobody_in_front": not lay.in_front(g)}
    return {"guests": guests, "guest_points": total, "placed": len(guests)}
