"""Dice Party greedy bot: plans the rest of its turn, then weighs the race it leaves behind.

Within a turn everything after the roll is certain (the roll is on the table), so the bot
enumerates its whole plan -- how many wallets to steal, how many VIPs to provoke, who gets the
Mobs, growth option a or b -- and scores the parties each plan leaves.  A party's prospects
are exact next-roll probabilities from its composition: escalation (Mob pips beating the
guests'), a millionaire (4 or 5 equal VIPs), and reaching six wallets.  These per-turn hazards
feed a race between all parties still in the round: the plan that gives this seat the best
chance to be the one left standing or the first to win is chosen.  Mobs go first to the
opponent they hurt most, which is usually the leader.
"""

from __future__ import annotations

import random
from functools import cache
from math import comb

from service.games.dice_party import MOBS, PARTY_PEOPLE, PROVOKE_MIN, STEAL_FACE, VIPS, WALLETS_TO_WIN, growth

HORIZON = 40  # turns of each party the race looks ahead


# -- exact next-roll probabilities ------------------------------------------------------------
@cache
def _sum_dist(k: int) -> tuple[float, ...]:
    """Distribution of the pip total of k dice (index = total)."""
    dist = [1.0]
    for _ in range(k):
        new = [0.0] * (len(dist) + 6)
        for s, p in enumerate(dist):
            if p:
                for f in range(1, 7):
                    new[s + f] += p / 6
        dist = new
    return tuple(dist)


@cache
def p_escalate(mobs: int, guests: int) -> float:
    """P(Mob pips > guest pips) on one roll (Eskalation?)."""
    if mobs == 0:
        return 0.0
    dm, dg = _sum_dist(mobs), _sum_dist(guests)
    below, total = 0.0, 0.0
    cdf = []  # cdf[s] = P(guest total < s)
    for s in range(len(dm)):
        cdf.append(below)
        if s < len(dg):
            below += dg[s]
    for s, p in enumerate(dm):
        total += p * cdf[s]
    return total


def _egf(limit: int) -> list[float]:
    coeffs = [1.0]
    for k in range(1, limit + 1):
        coeffs.append(coeffs[-1] / k)
    return coeffs


def _poly_mul(a: list[float], b: list[float], cap: int) -> list[float]:
    out = [0.0] * min(len(a) + len(b) - 1, cap + 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                if i + j > cap:
                    break
                out[i + j] += x * y
    return out


@cache
def _surjections(m: int, j: int) -> int:
    return sum((-1) ** i * comb(j, i) * (j - i) ** m for i in range(j + 1))


@cache
def p_millionaire(vips: int, mobs: int) -> float:
    """P(5+ VIPs share a face, or 4+ share a face no Mob shows) on one roll (Millionär eingetroffen?).

    Counted exactly: given the set of faces the Mobs show (size j), the VIP rolls without a
    millionaire are v! [x^v] A4(x)^j A3(x)^(6-j), Ai the exponential series truncated at i.
    """
    if vips < 4:
        return 0.0
    a4, a3 = _egf(4), _egf(3)
    fact = 1.0
    for k in range(2, vips + 1):
        fact *= k
    none = 0.0
    for j in range(0, min(6, mobs) + 1):
        p_set = 1.0 if mobs == 0 else comb(6, j) * _surjections(mobs, j) / 6 ** mobs
        if mobs == 0 and j:
            continue
        if not p_set:
            continue
        poly = [1.0]
        for _ in range(j):
            poly = _poly_mul(poly, a4, vips)
        for _ in range(6 - j):
            poly = _poly_mul(poly, a3, vips)
        ways = poly[vips] * fact if vips < len(poly) else 0.0
        none += p_set * ways / 6 ** vips
    return max(0.0, 1.0 - none)


@cache
def p_wallets(party_people: int, need: int) -> float:
    """P(at least ``need`` Party-People show 6) on one roll."""
    if need <= 0:
        return 1.0
    return sum(comb(party_people, k) * (1 / 6) ** k * (5 / 6) ** (party_people - k)
               for k in range(need, party_people + 1))


# -- the race -------------------------------------------------------------------------------------
def hazards(party: dict[str, int], wallets: int, millionaire_counts: bool, incoming: int) -> tuple[float, float]:
    """(win, escalate) chances of a party's next turn; ``incoming`` Mobs it may receive first."""
    g = party[PARTY_PEOPLE] + party[VIPS]
    m = party[MOBS]
    if g + m == 0:
        return 0.0, 0.0
    e = 0.5 * p_escalate(m, g) + 0.5 * p_escalate(m + incoming, g)
    w = 0.0
    if millionaire_counts:
        w = p_millionaire(party[VIPS], m)
    w = 1 - (1 - w) * (1 - p_wallets(party[PARTY_PEOPLE], WALLETS_TO_WIN - wallets))
    return (1 - e) * w, e


def race(me: tuple[float, float], others: list[tuple[float, float]]) -> float:
    """P(I win) if every party keeps its per-turn hazards; the others move before my next turn."""
    w_me, e_me = me
    alive_me = 1.0
    total = 0.0
    q_prev = 0.0
    for k in range(1, HORIZON + 1):
        n_k, q_k = 1.0, 1.0
        for w, e in others:
            r = w + e
            done = 1 - (1 - r) ** k if r else 0.0
            n_k *= 1 - (w / r) * done if r else 1.0
            q_k *= (e / r) * done if r else 0.0
        total += alive_me * ((q_k - q_prev) + w_me * (n_k - q_k))
        alive_me *= 1 - w_me - e_me
        q_prev = q_k
        if alive_me < 1e-4 or n_k - q_k < 1e-4:
            break
    return total


def _value(view: dict, seat: int, parties: list[dict], wallets: int) -> float:
    alive = [s for s in range(view["players"]) if view["in_round"][s]]
    full = view["full_game"]

    def rates(s: int) -> tuple[float, float]:
        counts = not (full and "millionaire" in view["standings"][s]["conditions"])
        incoming = sum(parties[o][VIPS] for o in alive if o != s) // (3 * max(1, len(alive) - 1))
        return hazards(parties[s], wallets if s == seat else view["wallets"][s], counts, incoming + 1)

    me = rates(seat)
    others = [rates(s) for s in alive if s != seat]
    # Bigger parties weather future Mobs better: a small nudge toward growth breaks early ties.
    guests = parties[seat][PARTY_PEOPLE] + parties[seat][VIPS]
    return race(me, others) + 0.002 * guests - 0.003 * parties[seat][MOBS]


# -- planning the rest of the turn ----------------------------------------------------------------
def _add_mobs(party: dict[str, int], supply: dict[str, int], amount: int) -> None:
    taken = min(amount, supply[MOBS])
    supply[MOBS] -= taken
    party[MOBS] += taken
    for _ in range(amount - taken):
        for kind in (VIPS, PARTY_PEOPLE):
            if party[kind]:
                party[kind] -= 1
                supply[kind] += 1
                break


def _finish(view: dict, seat: int, parties: list[dict], supplies: list[dict], roll: dict,
            mobs_left: int, received: list[int], wallets: int) -> tuple[float, list[int], str]:
    """Best value from the Mob distribution on: the order of recipients and the growth option."""
    order: list[int] = []
    if mobs_left > 0:
        targets = [s for s in range(view["players"])
                   if s != seat and view["in_round"][s] and s not in received]
        # Leader first: the opponent for whom the largest batch raises my chances most.
        gains = []
        for t in targets:
            trial = [dict(p) for p in parties]
            trial_sup = [dict(x) for x in supplies]
            _add_mobs(trial[t], trial_sup[t], mobs_left)
            gains.append((_value(view, seat, trial, wallets), t))
        gains.sort(reverse=True)
        parties = [dict(p) for p in parties]
        supplies = [dict(x) for x in supplies]
        amount = mobs_left
        for _, t in gains:
            if amount <= 0:
                break
            _add_mobs(parties[t], supplies[t], amount)
            order.append(t)
            amount -= 1
    best = (float("-inf"), order, "a")
    for option in ("a", "b"):
        g = growth(roll, supplies[seat], option)
        trial = [dict(p) for p in parties]
        sup = dict(supplies[seat])
        trial[seat][g["kind"]] += g["joined"]
        sup[g["kind"]] -= g["joined"]
        _add_mobs(trial[seat], sup, g["mobs"])
        value = _value(view, seat, trial, wallets)
        if value > best[0]:
            best = (value, order, option)
    return best


def greedy(view: dict, moves: list[dict], seat: int, rng: random.Random) -> dict:
    """Enumerate this turn's remaining plan and make its first move."""
    phase = view["phase"]
    roll = view["roll"]
    parties = [dict(p) for p in view["parties"]]
    supplies = [dict(s) for s in view["supplies"]]
    wallets = view["wallets"][seat]
    if phase == "grow":
        _, _, option = _finish(view, seat, parties, supplies, roll, 0, [], wallets)
        return {"type": "grow", "option": option}
    if phase == "send_mobs":
        # Try each possible next recipient, then the best order for the rest.
        best, choice = float("-inf"), moves[0]
        for move in moves:
            t = move["opponent"]
            trial, sup = [dict(p) for p in parties], [dict(s) for s in supplies]
            _add_mobs(trial[t], sup[t], view["mobs_to_send"])
            value = _finish(view, seat, trial, sup, roll, view["mobs_to_send"] - 1,
                            view["received"] + [t], wallets)[0] + rng.random() * 1e-6
            if value > best:
                best, choice = value, move
        return choice
    steal_range = range(roll[PARTY_PEOPLE].count(STEAL_FACE) + 1) if phase == "steal" else range(1)
    best, choice = float("-inf"), moves[0]
    for stolen in steal_range:
        if wallets + stolen >= WALLETS_TO_WIN:
            return {"type": "steal", "count": stolen}  # six wallets: the round is won
        after = [dict(p) for p in parties]
        sup = [dict(s) for s in supplies]
        pp_roll = roll[PARTY_PEOPLE][stolen:]
        after[seat][PARTY_PEOPLE] -= stolen
        sup[seat][PARTY_PEOPLE] += stolen - (1 if stolen and not wallets else 0)  # the counter die
        provocable = sum(1 for v in roll[VIPS] if v >= PROVOKE_MIN)
        for provoked in range(provocable + 1):
            trial = [dict(p) for p in after]
            trial_sup = [dict(s) for s in sup]
            trial[seat][VIPS] -= provoked
            trial_sup[seat][VIPS] += provoked
            trial_roll = {PARTY_PEOPLE: pp_roll, VIPS: roll[VIPS][provoked:], MOBS: roll[MOBS]}
            value = _finish(view, seat, trial, trial_sup, trial_roll, provoked, [], wallets + stolen)[0]
            value += rng.random() * 1e-6
            if value > best:
                best = value
                choice = {"type": "steal", "count": stolen} if phase == "steal" else \
                    {"type": "provoke", "count": provoked}
    return choice
