"""Dice Party: throw your party, steal wallets, provoke VIPs into Mobs, grow, and do not escalate.

Rules: the book (Dice Party, German, with its FAQ, which settles most questions) and the rulings
in service/games/dice_party/rules.md.  Every roll is the referee's: the start roll ("Das
Vorglühen") and each turn's roll ("Party schmeißen") happen automatically and are reported in
events (``round_started``, ``rolled``), the first ones by ``opening``; the view shows them too
(``start_rolls``, ``roll``).  A turn's decisions are small moves, in the book's order:

- ``steal``     ("Brieftaschen klauen"): how many Party-People showing 6 to rob (0 declines);
- ``provoke``   ("Gäste provozieren"): how many VIPs showing 4+ to provoke, highest first;
- ``send_mobs`` one opponent at a time: the first gets as many Mobs as VIPs were provoked,
  each next one one fewer;
- ``grow``      ("Die Party wächst"): option ``a`` (a VIP per 6 Party-People pips) or ``b``
  (a Party-People per 6 VIP pips).

A decision without a real choice is made by the referee (no 6s to rob, no VIP at 4+, a single
opponent left for the Mobs, both growth options bringing nobody: event ``no_growth``).  Everything at this table is
public: the view shows every party, supply, wallet counter and the current roll.  The state
never holds a future roll, so nothing can leak.

Decisions the books leave open (made here, tested in tests/games/test_dice_party.py):

- The wallet counter can pass 6 when several wallets are stolen at once; 6 or more wins.
- Dice removed from a party (stolen, provoked, or removed for a Mob shortage) go back to the
  owner's supply, so each seat's 60 dice stay in supply + party + the counter die.
- Mobs go only to opponents still in the round (not escalated, not out of the full game); a
  party with no guests at all can receive them.
- A party with no guests at all skips its turns (FAQ); Mobs are the only guests that can
  arrive there, so its next turn escalates by the ordinary rule, exactly as the FAQ says.
- If every party still in the round is empty, nobody can ever act again: the round ends with
  those players sharing the win (service/games/dice_party/rules.md, "Empty parties").  In the full game such
  a round credits no condition and the next round starts.
- The option ``first_seat`` replaces the start roll of the first round; later rounds of the
  full game always roll for the starter among the players still in it.
- Full game ("Der Partylöwe"): every round starts afresh (start parties, full supplies, no
  wallets, a new start roll).  A round won because all other parties escalated counts as the
  "escalation" condition.  When a third escalation leaves a single player in the match, that
  player wins the match.  A repeated millionaire neither wins nor counts as a condition.
- Results: a single round scores 1 for the winner(s) and 0 otherwise; the ranking puts those
  still partying above those who escalated (later escalations above earlier).  The full game
  scores the number of distinct conditions won; the crowned player ranks first, then players
  still in the match, by conditions and then round wins.
"""

from __future__ import annotations

import random
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from marshmallow import Schema, fields, validate

from ..base import BaseOptions, Game, IllegalMove, Outcome, Phase, copy_json, event, safe_default, span
from ..shape import Constraint, Public, Shape

PARTY_PEOPLE, VIPS, MOBS = "party_people", "vips", "mobs"
KINDS = (PARTY_PEOPLE, VIPS, MOBS)
SET_SIZE = 20  # dice of each colour per player ("Würfel-Set" of 60)
START_PARTY = {PARTY_PEOPLE: 2, VIPS: 2, MOBS: 0}  # "Der Abend beginnt"
WALLETS_TO_WIN = 6
PROVOKE_MIN = 4  # VIPs showing 4+ can be provoked
STEAL_FACE = 6  # Party-People showing 6 can be robbed
GROWTH_PIPS = 6  # one newcomer per full 6 pips
ESCALATIONS_OUT = 3  # full game: the third escalation puts a player out
CONDITIONS = ("escalation", "millionaire", "wallets")
FACES = (1, 2, 3, 4, 5, 6)
STEPS = ("steal", "provoke", "send_mobs", "grow")
STEP_HINT = {
    "steal": "decide how many Party-People showing 6 to rob ('steal')",
    "provoke": "decide how many VIPs showing 4 or more to provoke ('provoke')",
    "send_mobs": "name the next opponent who receives Mobs ('send_mobs')",
    "grow": "choose growth option a or b ('grow')",
}
Guests = Literal["party_people", "vips", "mobs"]


Condition = Literal["escalation", "millionaire", "wallets"]


class Dice(TypedDict):
    """Dice of each type (a party, a supply)."""

    vips: int
    party_people: int
    mobs: int


class Roll(TypedDict):
    """The pips rolled, by die type."""

    vips: list[int]
    party_people: list[int]
    mobs: list[int]


class RoundWon(TypedDict):
    """A round's end: its winners and the condition they won by (None: a stalemate)."""

    round: int
    winners: list[int]
    condition: Annotated[Condition | None, "null when the round ended in a stalemate."]


class GrowthOption(TypedDict):
    kind: Literal["vips", "party_people"]
    wanted: int
    joined: int
    mobs: int


class Growth(TypedDict):
    a: GrowthOption
    b: GrowthOption


class Standing(TypedDict):
    conditions: list[Condition]
    escalations: int
    round_wins: int


#: per seat (as a string key): its start roll
SeatRolls = Annotated[dict[Annotated[str, Constraint(pattern="^[0-9]+$")], list[int]],
                      "Per seat (as a string key): its start roll."]




class DicePartyState(TypedDict):
    """A match.  Nothing at this table is hidden and no future roll is stored."""

    players: int
    full_game: bool
    round: int
    starter: int | None  # None until the opening's start roll
    start_rolls: list[SeatRolls]  # this round's start roll attempts: seat (a string) -> dice
    turn: int | None  # None until the opening's start roll
    phase: Literal["steal", "provoke", "send_mobs", "grow"] | None  # the decision owed; None: none
    roll: Roll | None  # this turn's roll, highest first; None: the turn was skipped
    mobs_to_send: int
    received: list[int]  # the opponents this provocation's Mobs went to so far
    parties: list[Dice]
    supplies: list[Dice]
    wallets: list[int]
    in_round: list[bool]
    escalated: list[int]  # this round's, in order
    escalations: list[int]
    out: list[bool]
    results: list[RoundWon]
    over: bool
    winners: list[int]


#: everything at this table is public: the view is a copy of the state (plus what ``present`` derives),
#: and a sample reads the state back from it exactly
FLAT, NESTED = Public(show=list, read=list), Public(show=copy_json, read=copy_json)
SHAPE = Shape(
    DicePartyState,
    players=Public(), full_game=Public(), round=Public(), starter=Public(), start_rolls=NESTED, turn=Public(),
    phase=Public(), roll=NESTED, mobs_to_send=Public(), received=FLAT, parties=NESTED, supplies=NESTED,
    wallets=FLAT, in_round=FLAT, escalated=FLAT, escalations=FLAT, out=FLAT, results=NESTED, over=Public(),
    winners=FLAT,
)


class Options(BaseOptions):
    full_game = fields.Boolean(
        load_default=False,
        metadata={"description": "Der Partylöwe: play rounds until a player has won once by each of the "
                                 "three conditions or all others are out after three escalations."},
    )


class StealMove(Schema):
    count = fields.Integer(required=True, validate=validate.Range(min=0, max=SET_SIZE),
                           metadata={"description": "Party-People showing 6 to rob (0 declines)."})


class ProvokeMove(Schema):
    count = fields.Integer(required=True, validate=validate.Range(min=0, max=SET_SIZE),
                           metadata={"description": "VIPs showing 4 or more to provoke, highest first (0 declines)."})


class SendMobsMove(Schema):
    opponent = fields.Integer(required=True, validate=validate.Range(min=0, max=5),
                              metadata={"description": "The opponent who receives the next batch of Mobs."})


class GrowMove(Schema):
    option = fields.String(required=True, validate=validate.OneOf(["a", "b"]),
                           metadata={"description": "a: a VIP per 6 Party-People pips; "
                                                    "b: a Party-People per 6 VIP pips."})


# -- pure rules helpers (also used by the bot) ------------------------------------------------
def roll_dice(rng: random.Random, n: int) -> list[int]:
    """n dice, highest first (the order a player sorts them on the table)."""
    return sorted(rng.choices(FACES, k=n), reverse=True)


def escalates(roll: dict[str, list[int]]) -> bool:
    """Eskalation?: the Mobs' total pips exceed Party-People plus VIPs (only with Mobs present)."""
    return bool(roll[MOBS]) and sum(roll[MOBS]) > sum(roll[PARTY_PEOPLE]) + sum(roll[VIPS])


def millionaire(roll: dict[str, list[int]]) -> int | None:
    """Millionär eingetroffen?: the value shown by 5+ VIPs, or by 4+ VIPs and no Mob; else None."""
    vips = roll[VIPS]
    if len(vips) < 4:
        return None
    mobs = set(roll[MOBS])
    for face in (6, 5, 4, 3, 2, 1):
        n = vips.count(face)
        if n >= 5 or (n >= 4 and face not in mobs):
            return face
    return None


def growth(roll: dict[str, list[int]], supply: dict[str, int], option: str) -> dict[str, Any]:
    """Die Party wächst: who joins under option a or b, capped by the supply (FAQ 3), and the extra Mobs."""
    if option == "a":
        kind, wanted = VIPS, sum(roll[PARTY_PEOPLE]) // GROWTH_PIPS
    else:
        kind, wanted = PARTY_PEOPLE, sum(roll[VIPS]) // GROWTH_PIPS
    joined = min(wanted, supply[kind])
    mobs = (joined + 1) // 2 if joined >= 2 else 0
    return {"kind": kind, "wanted": wanted, "joined": joined, "mobs": mobs}


def party_size(party: dict[str, int]) -> int:
    return party[PARTY_PEOPLE] + party[VIPS] + party[MOBS]


class DiceParty(Game):
    name = "dice_party"
    title = "Dice Party"
    min_players = 2
    max_players = 6
    Options = Options
    moves = {"steal": StealMove, "provoke": ProvokeMove, "send_mobs": SendMobsMove, "grow": GrowMove}
    variants = ({}, {"full_game": True})
    shape = SHAPE
    presents = {"to_act": list[int], "standings": list[Standing],
                "growth": NotRequired[Annotated[Growth, "While the seat to act chooses how to grow."]]}
    #: each step of a turn (book: Spielablauf) is decided by the move of the same name
    phases = {step: Phase({step: f"_on_{step}"}, f"first {STEP_HINT[step]}.") for step in STEPS}

    # -- setting up ------------------------------------------------------------------------
    def setup(self, players: int, options: dict[str, Any], rng: random.Random) -> DicePartyState:
        return self.opening(players, options, rng)[0]

    def opening(self, players: int, options: dict[str, Any], rng: random.Random) -> tuple[DicePartyState, list[dict]]:
        """The start parties, the start roll and the first player's roll, as events for everyone."""
        state = DicePartyState(
            players=players,
            full_game=bool(options.get("full_game", False)),
            round=0,
            starter=None,
            start_rolls=[],
            turn=None,
            phase=None,
            roll=None,
            mobs_to_send=0,
            received=[],
            parties=[dict(START_PARTY) for _ in range(players)],
            supplies=[{k: SET_SIZE for k in KINDS} for _ in range(players)],
            wallets=[0] * players,
            in_round=[True] * players,
            escalated=[],
            escalations=[0] * players,
            out=[False] * players,
            results=[],
            over=False,
            winners=[],
        )
        events = self._new_round(state, rng, options.get("first_seat"))
        events += self._run(state, rng, "turn")
        return state, events

    def _new_round(self, state: DicePartyState, rng: random.Random, first: int | None = None) -> list[dict]:
        """Der Abend beginnt / Das Vorglühen: fresh start parties, then the start roll."""
        n = state["players"]
        state["round"] += 1
        seats = [s for s in range(n) if not state["out"][s]]
        for s in range(n):
            state["parties"][s] = dict(START_PARTY) if s in seats else {k: 0 for k in KINDS}
            state["supplies"][s] = {k: SET_SIZE - START_PARTY[k] if s in seats else SET_SIZE for k in KINDS}
            state["wallets"][s] = 0
            state["in_round"][s] = s in seats
        state["escalated"] = []
        state["roll"] = None
        state["phase"] = None
        state["start_rolls"] = []
        if first is None:
            # Bei Gleichstand müssen alle Spieler erneut schmeißen.
            while True:
                attempt = {str(s): roll_dice(rng, START_PARTY[PARTY_PEOPLE] + START_PARTY[VIPS]) for s in seats}
                state["start_rolls"].append(attempt)
                totals = {s: sum(attempt[str(s)]) for s in seats}
                best = max(totals.values())
                leaders = [s for s in seats if totals[s] == best]
                if len(leaders) == 1:
                    first = leaders[0]
                    break
        state["starter"] = state["turn"] = first
        return [event("round_started", {"round": state["round"], "starter": first,
                                        "start_rolls": [dict(a) for a in state["start_rolls"]], "seats": seats})]

    # -- whose decision ---------------------------------------------------------------------
    def to_act(self, state: DicePartyState) -> list[int]:
        return [] if state["over"] or state["phase"] is None else [state["turn"]]

    def legal_moves(self, state: DicePartyState, seat: int) -> list[dict]:
        if seat not in self.to_act(state):
            return []
        phase, roll = state["phase"], state["roll"]
        if phase == "steal":
            return [{"type": "steal", "count": span(0, roll[PARTY_PEOPLE].count(STEAL_FACE))}]
        if phase == "provoke":
            return [{"type": "provoke", "count": span(0, self._provocable(roll))}]
        if phase == "send_mobs":
            return [{"type": "send_mobs", "opponent": o} for o in self._mob_targets(state)]
        return [{"type": "grow", "option": "a"}, {"type": "grow", "option": "b"}]

    @staticmethod
    def _provocable(roll: dict[str, list[int]]) -> int:
        count = 0
        for v in roll[VIPS]:  # highest first
            if v < PROVOKE_MIN:
                break
            count += 1
        return count

    @staticmethod
    def _mob_targets(state: DicePartyState) -> list[int]:
        """Opponents still in the round that have not received Mobs from this provocation."""
        turn, received = state["turn"], state["received"]
        return [s for s in range(state["players"]) if s != turn and state["in_round"][s] and s not in received]

    # -- applying -----------------------------------------------------------------------------
    def _on_steal(self, state: DicePartyState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        sixes = state["roll"][PARTY_PEOPLE].count(STEAL_FACE)
        if not 0 <= move["count"] <= sixes:
            raise IllegalMove(f"You can rob 0 to {sixes} Party-People showing 6.", "bad_count")
        events, step = self._steal(state, rng, seat, move["count"])
        return events + self._run(state, rng, step)

    def _on_provoke(self, state: DicePartyState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        able = self._provocable(state["roll"])
        if not 0 <= move["count"] <= able:
            raise IllegalMove(f"You can provoke 0 to {able} VIPs showing 4 or more.", "bad_count")
        events, step = self._provoke(state, seat, move["count"])
        return events + self._run(state, rng, step)

    def _on_send_mobs(self, state: DicePartyState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        targets = self._mob_targets(state)
        if move["opponent"] not in targets:
            raise IllegalMove(f"The next Mobs go to one of the opponents {targets}.", "bad_opponent")
        events, step = self._send_mobs(state, seat, move["opponent"])
        return events + self._run(state, rng, step)

    def _on_grow(self, state: DicePartyState, seat: int, move: dict, rng: random.Random) -> list[dict]:
        events, step = self._grow(state, seat, move["option"])
        return events + self._run(state, rng, step)

    def _run(self, state: DicePartyState, rng: random.Random, step: str | None) -> list[dict]:
        """Carry the match on until a seat owes a real decision or the match ends."""
        events: list[dict] = []
        while step is not None and not state["over"]:
            state["phase"] = None
            if step == "turn":
                step = self._start_turn(state, rng, events)
            elif step == "next":
                step = self._next_turn(state, rng, events)
            elif step == "steal":
                step = "steal_wait" if state["roll"][PARTY_PEOPLE].count(STEAL_FACE) else "provoke"
            elif step == "provoke":
                step = "provoke_wait" if self._provocable(state["roll"]) else "grow"
            elif step == "send_mobs":
                targets = self._mob_targets(state)
                if state["mobs_to_send"] <= 0 or not targets:
                    state["mobs_to_send"], state["received"] = 0, []
                    step = "grow"
                elif len(targets) == 1:  # the order is forced
                    more, step = self._send_mobs(state, state["turn"], targets[0])
                    events += more
                else:
                    step = "send_mobs_wait"
            elif step == "grow":
                roll, supply = state["roll"], state["supplies"][state["turn"]]
                pips = {PARTY_PEOPLE: sum(roll[PARTY_PEOPLE]), VIPS: sum(roll[VIPS])}
                if (pips[PARTY_PEOPLE] >= GROWTH_PIPS and supply[VIPS]) or \
                        (pips[VIPS] >= GROWTH_PIPS and supply[PARTY_PEOPLE]):
                    step = "grow_wait"
                else:  # both options bring nobody (too few pips or an empty supply): nothing to choose
                    events.append(event("no_growth", {"seat": state["turn"], "pips": pips}))
                    step = "next"
            if step is not None and step.endswith("_wait"):
                state["phase"] = step[:-5]
                break
        return events

    def _start_turn(self, state: DicePartyState, rng: random.Random, events: list[dict]) -> str | None:
        """Steps 1 to 3: throw the party, check escalation, check for a millionaire."""
        seat = state["turn"]
        party = state["parties"][seat]
        if party_size(party) == 0:
            # FAQ: a player without guests plays on but can do nothing in their turn.
            events.append(event("turn_skipped", {"seat": seat, "reason": "empty_party"}))
            state["roll"] = None
            return "next"
        roll = {k: roll_dice(rng, party[k]) if party[k] else [] for k in KINDS}
        state["roll"] = roll
        events.append(event("rolled", {"seat": seat, "roll": {k: list(v) for k, v in roll.items()}}))
        if escalates(roll):
            return self._escalate(state, rng, seat, roll, events)
        face = millionaire(roll)
        if face is not None:
            if state["full_game"] and "millionaire" in self._conditions(state, seat):
                # Partylöwe: a second millionaire does not win and ends the turn at once.
                events.append(event("millionaire_again", {"seat": seat, "face": face}))
                return "next"
            events.append(event("millionaire", {"seat": seat, "face": face}))
            return self._round_won(state, rng, [seat], "millionaire", events)
        return "steal"

    def _escalate(self, state: DicePartyState, rng: random.Random, seat: int, roll: dict,
                  events: list[dict]) -> str | None:
        state["in_round"][seat] = False
        state["escalated"].append(seat)
        state["escalations"][seat] += 1
        events.append(event("escalated", {"seat": seat, "mob_pips": sum(roll[MOBS]),
                                          "guest_pips": sum(roll[PARTY_PEOPLE]) + sum(roll[VIPS]),
                                          "escalations": state["escalations"][seat]}))
        if state["full_game"] and state["escalations"][seat] >= ESCALATIONS_OUT:
            state["out"][seat] = True
            events.append(event("player_out", {"seat": seat, "escalations": state["escalations"][seat]}))
        left = [s for s in range(state["players"]) if state["in_round"][s]]
        if len(left) == 1:  # Alle Partys bis auf eine sind eskaliert.
            return self._round_won(state, rng, left, "escalation", events)
        return "next"

    def _steal(self, state: DicePartyState, rng: random.Random, seat: int, count: int) -> tuple[list[dict], str | None]:
        """Brieftaschen klauen: the robbed guests go back to the supply; the first theft takes the counter die."""
        if count == 0:
            return [event("stole", {"seat": seat, "count": 0, "wallets": state["wallets"][seat]})], "provoke"
        roll, supply = state["roll"], state["supplies"][seat]
        del roll[PARTY_PEOPLE][:count]  # sorted highest first, so these are the 6s
        state["parties"][seat][PARTY_PEOPLE] -= count
        supply[PARTY_PEOPLE] += count
        if state["wallets"][seat] == 0:
            supply[PARTY_PEOPLE] -= 1  # the yellow counter die leaves the supply for good
        state["wallets"][seat] += count
        events = [event("stole", {"seat": seat, "count": count, "wallets": state["wallets"][seat]})]
        if state["wallets"][seat] >= WALLETS_TO_WIN:
            return events, self._round_won(state, rng, [seat], "wallets", events)
        return events, "provoke"

    def _provoke(self, state: DicePartyState, seat: int, count: int) -> tuple[list[dict], str | None]:
        """Gäste provozieren: always the highest VIPs first; they return to the supply and become Mobs."""
        roll = state["roll"]
        values = roll[VIPS][:count]
        del roll[VIPS][:count]
        state["parties"][seat][VIPS] -= count
        state["supplies"][seat][VIPS] += count
        state["mobs_to_send"], state["received"] = count, []
        return [event("provoked", {"seat": seat, "count": count, "values": values})], "send_mobs"

    def _send_mobs(self, state: DicePartyState, seat: int, opponent: int) -> tuple[list[dict], str]:
        amount = state["mobs_to_send"]
        info = self._add_mobs(state, opponent, amount)
        state["received"].append(opponent)
        state["mobs_to_send"] = amount - 1
        return [event("mobs_sent", {"seat": seat, "opponent": opponent, "count": amount, **info})], "send_mobs"

    @staticmethod
    def _add_mobs(state: DicePartyState, seat: int, amount: int) -> dict[str, Any]:
        """FAQ 3: take the Mobs the supply still has; each missing one removes a VIP, else a Party-People."""
        party, supply = state["parties"][seat], state["supplies"][seat]
        taken = min(amount, supply[MOBS])
        supply[MOBS] -= taken
        party[MOBS] += taken
        removed = {VIPS: 0, PARTY_PEOPLE: 0}
        for _ in range(amount - taken):
            for kind in (VIPS, PARTY_PEOPLE):
                if party[kind]:
                    party[kind] -= 1
                    supply[kind] += 1
                    removed[kind] += 1
                    break
        return {"taken": taken, "removed": removed}

    def _grow(self, state: DicePartyState, seat: int, option: str) -> tuple[list[dict], str]:
        g = growth(state["roll"], state["supplies"][seat], option)
        party, supply = state["parties"][seat], state["supplies"][seat]
        party[g["kind"]] += g["joined"]
        supply[g["kind"]] -= g["joined"]
        info = self._add_mobs(state, seat, g["mobs"])
        return [event("grew", {"seat": seat, "option": option, **g, **info})], "next"

    def _next_turn(self, state: DicePartyState, rng: random.Random, events: list[dict]) -> str | None:
        n = state["players"]
        left = [s for s in range(n) if state["in_round"][s]]
        if not party_size(state["parties"][state["turn"]]) and all(
                party_size(state["parties"][s]) == 0 for s in left):
            # Nobody still in the round can ever act again (see the module docstring).
            events.append(event("stalemate", {"seats": left}))
            return self._round_won(state, rng, left, None, events)
        seat = state["turn"]
        for step in range(1, n + 1):
            if state["in_round"][(seat + step) % n]:
                state["turn"] = (seat + step) % n
                break
        state["mobs_to_send"], state["received"] = 0, []
        return "turn"

    def _round_won(self, state: DicePartyState, rng: random.Random, winners: list[int], condition: str | None,
                   events: list[dict]) -> str | None:
        """A round ends; in the full game the match goes on until someone is crowned."""
        state["phase"] = None
        state["results"].append({"round": state["round"], "winners": list(winners), "condition": condition})
        events.append(event("round_won", {"round": state["round"], "winners": list(winners),
                                          "condition": condition}))
        if not state["full_game"]:
            return self._game_over(state, winners, "round", events)
        remaining = [s for s in range(state["players"]) if not state["out"][s]]
        if len(remaining) == 1:  # all others out by three escalations
            return self._game_over(state, remaining, "survivor", events)
        crowned = [s for s in winners if len(self._conditions(state, s)) == len(CONDITIONS)]
        if crowned:
            return self._game_over(state, crowned, "crowned", events)
        events += self._new_round(state, rng)
        return "turn"

    def _game_over(self, state: DicePartyState, winners: list[int], how: str, events: list[dict]) -> None:
        state["over"] = True
        state["phase"] = None
        state["winners"] = list(winners)
        events.append(event("game_over", {"winners": list(winners), "how": how}))
        return None

    @staticmethod
    def _conditions(state: DicePartyState, seat: int) -> set[str]:
        return {r["condition"] for r in state["results"] if r["condition"] and r["winners"] == [seat]}

    # -- what a seat sees -----------------------------------------------------------------------
    def present(self, view: dict, state: DicePartyState, seat: int | None) -> None:
        """Whose decision, each seat's standing in the match and, when growing, what each option brings."""
        view["to_act"] = self.to_act(state)
        view["standings"] = [{"round_wins": sum(1 for r in state["results"] if s in r["winners"]),
                              "conditions": sorted(self._conditions(state, s)),
                              "escalations": state["escalations"][s]} for s in range(state["players"])]
        if state["phase"] == "grow":
            seat_ = state["turn"]
            view["growth"] = {o: growth(state["roll"], state["supplies"][seat_], o) for o in ("a", "b")}

    def is_over(self, state: DicePartyState) -> bool:
        return state["over"]

    def final_result(self, state: DicePartyState) -> Outcome:
        n, winners = state["players"], list(state["winners"])
        if not state["full_game"]:
            scores = [1 if s in winners else 0 for s in range(n)]
            rest = [s for s in range(n) if s not in winners and s not in state["escalated"]]
            ranking = [winners] + ([rest] if rest else [])
            ranking += [[s] for s in reversed(state["escalated"])]
            cond = state["results"][-1]["condition"] if state["results"] else None
            breakdown = [{"won": s in winners, "condition": cond if s in winners else None,
                          "escalated": s in state["escalated"], "wallets": state["wallets"][s],
                          "party": dict(state["parties"][s])} for s in range(n)]
            return Outcome([float(x) for x in scores], ranking, winners, breakdown)
        conds = [sorted(self._conditions(state, s)) for s in range(n)]
        wins = [sum(1 for r in state["results"] if s in r["winners"]) for s in range(n)]
        scores = [float(len(c)) for c in conds]
        keys = {s: (not state["out"][s], len(conds[s]), wins[s]) for s in range(n) if s not in winners}
        ranking = [winners] + [[s for s in keys if keys[s] == k] for k in sorted(set(keys.values()), reverse=True)]
        breakdown = [{"conditions": conds[s], "round_wins": wins[s], "escalations": state["escalations"][s],
                      "out": state["out"][s], "crowned": s in winners} for s in range(n)]
        return Outcome(scores, ranking, winners, breakdown)


GAME = DiceParty()


def default_move(state: DicePartyState, seat: int) -> dict:
    """On a timeout or for a seat that is out: rob every 6 and provoke every VIP it may, grow by the
    option that brings more guests, send the mobs to the first opponent listed.  A party that never
    robs, provokes or grows could go on forever (the full game needs an escalation to end), so
    the default keeps the round moving toward one of its ends."""
    moves = GAME.legal_moves(state, seat)
    if moves[0]["type"] in ("steal", "provoke"):
        return {"type": moves[0]["type"], "count": moves[0]["count"]["max"]}
    if moves[0]["type"] == "grow":
        supply = state["supplies"][seat]
        return max(moves, key=lambda m: growth(state["roll"], supply, m["option"])["joined"])
    return safe_default(moves)
