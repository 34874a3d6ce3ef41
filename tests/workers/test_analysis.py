"""The analysis engine (workers/analysis.py) and ``referee analyse``: its shape, its determinism and size, a
planted blunder found in the games, judgement from a seat's view alone."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from clients.cli import main
from service.core.record import play, replay, start
from service.games import GAMES
from service.games.base import copy_json
from service.games.plugin import Policy
from workers.analysis import (
    LABELS,
    THRESHOLDS,
    Decision,
    analyse,
    decisions,
    judge_decision,
    label,
    play_record,
    size,
    unjudged,
)
from workers.bots import GREEDY, SEARCH
from workers.bots.search import Budget, bot_policy, candidates

SMALL = Budget(iterations=6)


def record_of(name: str, seed: int = 1, kinds: str = "random") -> dict:
    players = GAMES[name].min_players
    return play_record(name, players, [kinds] * players, seed)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_random_match_is_analysed_to_the_contract_reproducibly_and_within_its_records_size(name):
    record = record_of(name)
    seen = []
    result = analyse(record, SMALL, lambda done, total: seen.append((done, total)))
    assert result["format"] == 1 and result["game"] == name and result["players"] == record["players"]
    assert result["budget"] == "6" and result["thresholds"] == THRESHOLDS
    judged = result["decisions"]
    assert judged and seen[-1] == (len(judged), len(judged)) and len(seen) == len(judged)
    for d in judged:
        move = record["moves"][d["index"]]
        assert (d["version"], d["seat"]) == (move["version"], move["seat"])
        assert 0 <= d["win"] <= 1 and 1 <= d["rank"] <= record["players"] and len(d["best"]) <= 3
        assert d["label"] == label(d["loss"]) and d["loss"] >= 0
        if d["best"]:
            assert d["loss"] == pytest.approx(max(0.0, d["best"][0]["win"] - d["win"]), abs=0.0015)
    assert [d["index"] for d in judged] == sorted({d["index"] for d in judged})
    for s in result["summary"]:
        mine = [d for d in judged if d["seat"] == s["seat"]]
        assert s["decisions"] == len(mine) == sum(s["labels"].values()) and set(s["labels"]) == set(LABELS)
        assert all(judged[i]["seat"] == s["seat"] and judged[i]["loss"] >= THRESHOLDS["mistake"]
                   for i in s["decisive"]) and len(s["decisive"]) <= 3
    assert analyse(record, SMALL) == result  # an iteration budget: the same analysis
    assert size(result) <= size(record)


def test_forced_moves_are_not_analysed():
    record = record_of("super_blatt")
    game, state = start(record)
    forced = []
    for i, m in enumerate(record["moves"]):
        if len(candidates(game.legal_moves(state, m["seat"]))) == 1:
            forced.append(i)
        play(record, game, state, i)
    assert forced  # a steal from the only opponent, a lone column left...
    assert not {d.index for d in decisions(record)} & set(forced)


def _finish(game, state: dict, seat: int, k: int, policy: Policy) -> float:
    rng = random.Random(k)
    while not game.is_over(state):
        s = game.to_act(state)[0]
        game.apply(state, s, policy(game, state, s, game.legal_moves(state, s), rng), rng)
    outcome = game.final_result(state)
    return 1 / len(outcome.winners) if seat in outcome.winners else 0.0


def planted(name: str, players: int | None = None, gap: float = 1.0, tries: int = 6, last: int = 8,
            deals: int = 6, options: dict | None = None, policy: Policy | None = None) -> tuple[dict, int]:
    """A greedy bots' match edited at one of its last judged decisions so that the seat plays a move after which it
    wins the match, played on from the true state by ``policy`` (greedy bots by default) ``deals`` times with other
    draws, ``gap`` less often than after another legal move (at the default 1.0: it loses every time where the other
    move wins every time); the rest of the match is played on by greedy bots after the planted move, so the record
    replays.  Its index."""
    game = GAMES[name]
    players = players or game.min_players
    policy = policy or bot_policy(GREEDY[name])
    for seed in range(tries):
        record = play_record(name, players, ["greedy"] * players, seed, options)
        for d in reversed([d for d in decisions(record) if not unjudged(name, d.view)][-last:]):
            _, state = start(record)
            for i in range(d.index):
                play(record, game, state, i)
            shares = {}
            for move in candidates(d.moves):
                trials = [copy_json(state) for _ in range(deals)]
                for k, trial in enumerate(trials):
                    game.apply(trial, d.seat, move, random.Random(1000 + k))
                wins = sum(_finish(game, t, d.seat, k, policy) for k, t in enumerate(trials))
                shares[json.dumps(move)] = wins / deals
            if max(shares.values()) - min(shares.values()) >= gap:
                lose = json.loads(min(shares, key=shares.get))
                opening = [{"seat": m["seat"], "move": m["move"]} for m in record["moves"][:d.index]]
                edited = play_record(name, players, ["greedy"] * players, seed, options,
                                     opening=[*opening, {"seat": d.seat, "move": lose}])
                return edited, d.index
    raise AssertionError(f"no decisive last decision in {tries} matches of {name}")


def judged(record: dict, index: int, iterations: int = 64) -> dict:
    """The analysis's entry for the record's move ``index`` at a budget of ``iterations`` playouts."""
    return next(judge_decision((record["game"], str(record["seed"]), Budget(iterations=iterations), d))
                for d in decisions(record) if d.index == index)


@pytest.mark.parametrize("name", ["super_blatt", "big_shot", "paparazzo"])
def test_a_planted_blunder_is_labelled_a_blunder(name):
    """The rulebooks' "the player with the highest point total wins" (Super-Blatt "Game End", Big Shot "End of the
    game", Paparazzo "End of the game"): at a decision late in the match, the seat plays a move after which it
    lost every continuation by greedy bots although another move won every one (``planted``).  The analysis, from
    the seat's view, calls it a blunder."""
    record, index = planted(name)
    replay(record)  # the edited record is a legal match
    entry = judged(record, index)
    assert entry["label"] == "blunder", entry
    assert entry["best"][0]["move"] != record["moves"][index]["move"]


def test_a_planted_provocation_is_labelled_a_blunder_in_dice_party():
    """Dice Party's dice decide too much for a move after which every continuation is lost where another's are all
    won, so the planted move is one whose continuations by greedy bots won at least 0.45 less often than another's
    (48 each, late in a 3-player round): the host provokes only some of its VIPs showing 4 or more (found: 4 of 8,
    where all 8 win about 0.82 of the continuations and 4 about 0.35).  The rulebook's "Gäste provozieren" (the first
    opponent gets as many Mobs as VIPs were provoked, each next one one fewer), "Eskalation?" (Mob pips above the
    guests' end a party) and its first "Siegbedingung" ("Alle Partys bis auf eine sind eskaliert").  The analysis,
    from the seat's view, calls it a blunder at 128 playouts (at 64 the paired difference falls short of
    significance on about one analysis seed in ten: docs/analysis.md)."""
    record, index = planted("dice_party", players=3, gap=0.45, last=4, deals=48)
    replay(record)
    assert record["moves"][index]["move"]["type"] == "provoke"
    entry = judged(record, index, iterations=128)
    assert entry["label"] == "blunder", entry
    assert entry["best"][0]["move"] != record["moves"][index]["move"]


def test_a_planted_picture_perfect_auction_blunder_is_labelled_a_blunder():
    """Picture Perfect's auction variant (Guide, AUCTIONS: the highest bidder pays the active player; SCORING: 1
    point per 2 decorations held): late in a 2-player match the seat bids so much for an envelope that it lost every
    continuation, where another bid (or a pass) won every one.  The continuations are the search's playout policy,
    whose photos are built without a clock (the greedy bot's is a timed local search), so that they are the same
    on any machine; the final placement is not judged (docs/analysis.md), so the blunder is an auction's."""
    name = "picture_perfect"
    record, index = planted(name, players=2, tries=2, last=24, options={"auctions": True}, policy=SEARCH[name].playout)
    replay(record)
    assert record["moves"][index]["move"]["type"] in ("bid", "pay", "buy")
    entry = judged(record, index)
    assert entry["label"] == "blunder", entry
    assert entry["best"][0]["move"] != record["moves"][index]["move"]


def test_a_games_calibrated_chances_judge_where_its_search_evaluation_would(monkeypatch):
    """``Hooks.chances``: where a game gives chances calibrated for the analysis (Picture Perfect's fitted softmax),
    the analysis's playouts end on them; the search's evaluation, which orders the bot's moves, is not asked."""
    name = "picture_perfect"
    hooks = SEARCH[name]
    asked = []

    def chances(state: dict) -> list[float] | None:
        got = hooks.chances(state)
        asked.extend([got] if got is not None else [])
        return got

    def evaluate(state: dict) -> list[float] | None:
        raise AssertionError("the analysis asked the search's evaluation")

    monkeypatch.setitem(SEARCH, name, dataclasses.replace(hooks, evaluate=evaluate, chances=chances))
    record = play_record(name, 3, ["greedy"] * 3, 1)
    early = decisions(record)[0]  # its playouts reach the placement after the horizon
    entry = judge_decision((name, str(record["seed"]), Budget(iterations=8), early))
    assert asked and 0 <= entry["win"] <= 1


def test_a_decision_is_judged_from_the_seats_view_alone():
    """Two true states that differ only where the seat cannot see (the deck's order: the next rounds' cards) but share
    its view: the same judgement."""
    name = "super_blatt"
    record = record_of(name, seed=3, kinds="greedy")
    game = GAMES[name]
    d = decisions(record)[len(decisions(record)) // 3]
    _, state = start(record)
    for i in range(d.index):
        play(record, game, state, i)
    other = copy_json(state)
    random.Random(99).shuffle(other["deck"])  # the rulebook's face-down stock (Super-Blatt, "Preperations")
    other["trend_deck"].reverse()
    assert other["deck"] != state["deck"]
    assert game.view(other, d.seat) == game.view(state, d.seat)
    twin = Decision(d.index, d.version, d.seat, d.players, game.view(other, d.seat), game.legal_moves(other, d.seat),
                    d.played)
    job = (name, str(record["seed"]), Budget(iterations=24))
    assert judge_decision((*job, twin)) == judge_decision((*job, d))


def test_budgets_are_read_as_a_bots():
    assert Budget.parse("300") == Budget(iterations=300)
    assert Budget.parse("200ms") == Budget(ms=200)
    assert Budget.parse("300/200ms") == Budget(300, 200)
    assert str(Budget(300, 200)) == "300/200ms"
    with pytest.raises(ValueError):
        Budget.parse("fast")


def test_the_cli_reports_the_turning_points_and_prints_the_json(tmp_path, capsys):
    record = record_of("super_blatt", seed=2)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["analyse", str(path), "--budget", "8"]) == 0
    out, err = capsys.readouterr()
    assert "seat 0" in out and "seat 1" in out and "average loss" in out and "analysed" in err
    assert ("Decisive moments:" in out) or ("No decisive moments" in out)
    full = analyse(record, Budget(iterations=8), fit=False)  # the report names every better move
    assert "(not kept)" not in out
    for s in full["summary"]:
        for i in s["decisive"]:
            assert f"move {full['decisions'][i]['index'] + 1} " in out
    assert main(["analyse", str(path), "--budget", "8", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == analyse(record, Budget(iterations=8))  # as the API serves it

