"""The table as the rules read it: who holds which envelope, what is in one, looking into it, the seats
clockwise; shared by the round flow (rules.py) and the exchange cards (exchanges.py)."""

from __future__ import annotations

from ..base import IllegalMove, State, event
from .data import CARD_INFO, GUESTS

#: ``holder[guest]`` of an envelope in the middle of the table
MIDDLE = -1


def illegal(message: str, reason: str = "illegal_move") -> IllegalMove:
    return IllegalMove(message, reason)


def held(state: State, seat: int) -> list[str]:
    holder = state["holder"]
    return [g for g in GUESTS if holder[g] == seat]


def middle(state: State) -> list[str]:
    holder = state["holder"]
    return [g for g in GUESTS if holder[g] == MIDDLE]


def openable(state: State, seat: int) -> list[str]:
    """Held envelopes not won in this round's auctions (book: Auctions, IMPORTANT)."""
    fresh = state["fresh"]
    return [g for g in held(state, seat) if g not in fresh]


def vip_count(state: State, guest: str) -> int:
    return sum(1 for a in state["vip_at"] if a == guest)


def contents(state: State, guest: str) -> dict:
    return {"guest": guest, "cards": [CARD_INFO[c] for c in state["cards"][guest]], "vips": vip_count(state, guest)}


def others_from(seat: int, n: int) -> list[int]:
    """The other players clockwise, starting on the seat's left."""
    return [(seat + i) % n for i in range(1, n)]


def look(state: State, seat: int, guests: list[str], reason: str) -> dict:
    """Every look into an envelope is a private event to that seat (service/games/picture_perfect/rules.md,
    "Looking"), and its memory."""
    for g in guests:
        state["known"][seat][g] = vip_count(state, g)
    return event("looked", {"reason": reason, "envelopes": [contents(state, g) for g in guests]}, [seat])
