"""Turn clocks: a deadline per decision (``move_seconds``) or a Fischer clock per seat
(``initial_seconds`` + ``increment_seconds``), kept in the match's meta, never in the game state.

- ``meta["clock"]``  the settings: ``move_seconds`` or ``initial_seconds``/``increment_seconds``,
  ``on_timeout`` ("bot", "default" or "forfeit"), ``bot`` (the kind for "bot") and ``on_illegal``
  ("refuse", or "forfeit": a seat that sends a move the rules refuse at its turn is out, as a tournament wants).
- ``meta["timers"]`` the running timers, one per human seat that owes a decision:
  ``{seat: {"since", "deadline", "set_at"}}``; ``set_at`` is the version whose commit started it,
  which names its timeout job, so a timer fires at most once and a new timer is a new job.
- ``meta["banks"]``  Fischer only: each seat's seconds left while its timer is stopped.

A timer starts when a human seat begins to owe a decision and stops when that seat moves or no
longer owes one; a seat played by a bot, away or out has none.  A seat that moved and still owes
(a compound turn split in small moves) gets a new timer for its next decision.  Everything here is
pure (time is an argument), so the referee updates the timers in the same commit as the move.
"""

from __future__ import annotations

from typing import Any

ON_TIMEOUT = ("bot", "default", "forfeit")
ON_ILLEGAL = ("refuse", "forfeit")
MAX_SECONDS = 24 * 3600


def check_clock(clock: dict[str, Any], bot_kinds: list[str]) -> str | None:
    """Why a clock request is unusable (a sentence), or None when it is fine."""
    per_move, initial = clock.get("move_seconds"), clock.get("initial_seconds")
    increment = clock.get("increment_seconds")
    if (per_move is None) == (initial is None):
        return "A clock has either 'move_seconds' or 'initial_seconds' (with an optional 'increment_seconds')."
    if per_move is not None and increment is not None:
        return "'increment_seconds' goes with 'initial_seconds', not with 'move_seconds'."
    for name in ("move_seconds", "initial_seconds", "increment_seconds"):
        value = clock.get(name)
        if value is not None and not 0 < value <= MAX_SECONDS:
            return f"'{name}' must be above 0 and at most {MAX_SECONDS} seconds (a day), not {value}."
    if clock.get("on_timeout") not in ON_TIMEOUT:
        return f"'on_timeout' is one of {list(ON_TIMEOUT)}, not {clock.get('on_timeout')!r}."
    if clock.get("on_illegal", "refuse") not in ON_ILLEGAL:
        return f"'on_illegal' is one of {list(ON_ILLEGAL)}, not {clock.get('on_illegal')!r}."
    bot = clock.get("bot")
    if bot is not None and (clock["on_timeout"] != "bot" or bot not in bot_kinds):
        return f"'bot' names the bot that plays a timed-out seat with on_timeout 'bot': one of {bot_kinds}."
    return None


def new_clock(clock: dict[str, Any], players: int) -> dict[str, Any]:
    """The clock part of a new match's meta."""
    settings = {k: clock.get(k) for k in ("move_seconds", "initial_seconds", "increment_seconds", "on_timeout")}
    if clock["on_timeout"] == "bot":
        settings["bot"] = clock.get("bot") or "random"
    settings["on_illegal"] = clock.get("on_illegal") or "refuse"
    out: dict[str, Any] = {"clock": settings, "timers": {}}
    if settings["initial_seconds"] is not None:
        out["banks"] = [float(settings["initial_seconds"])] * players
    return out


def update_timers(meta: dict, owing: list[int], now: float, version: int,
                  mover: int | None = None) -> list[tuple[int, int]]:
    """Stop the timers of seats that moved or no longer owe, start one for each human seat in
    ``owing`` without one (``version`` is the version the commit creates).  Returns the stopped
    timers as (seat, set_at): their timeout jobs are void."""
    clock, timers, banks = meta["clock"], meta["timers"], meta.get("banks")
    stopped = []
    for key in list(timers):
        seat = int(key)
        if seat == mover or seat not in owing:
            timer = timers.pop(key)
            stopped.append((seat, timer["set_at"]))
            if banks is not None:
                banks[seat] = max(0.0, banks[seat] - (now - timer["since"]))
                if seat == mover:
                    banks[seat] += clock["increment_seconds"] or 0
    for seat in owing:
        if str(seat) not in timers:
            if banks is None:
                allowance = clock["move_seconds"]
            else:  # a seat whose time ran out plays on its increment
                allowance = banks[seat] or clock["increment_seconds"] or 0
            timers[str(seat)] = {"since": now, "deadline": now + allowance, "set_at": version}
    return stopped


def expire(meta: dict, seat: int) -> None:
    """A timer that ran out: it stops, and a Fischer bank is empty."""
    meta["timers"].pop(str(seat), None)
    if meta.get("banks") is not None:
        meta["banks"][seat] = 0.0


def started(meta: dict, version: int) -> list[tuple[int, float]]:
    """(seat, deadline) of the timers the commit creating ``version`` started: their timeout jobs."""
    return [(int(k), t["deadline"]) for k, t in meta.get("timers", {}).items() if t["set_at"] == version]


def clock_view(meta: dict, now: float) -> dict[str, Any]:
    """Deadlines and remaining time per seat, with the server's time, so a client can count down."""
    timers, banks = meta["timers"], meta.get("banks")
    seats = []
    for seat in range(meta["players"]):
        timer = timers.get(str(seat))
        if timer is not None:
            remaining: float | None = max(0.0, timer["deadline"] - now)
        else:
            remaining = banks[seat] if banks is not None else None
        seats.append({"seat": seat, "deadline": timer["deadline"] if timer else None, "remaining": remaining})
    return {"now": now, **meta["clock"], "seats": seats}
