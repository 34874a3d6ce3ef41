"""A finished match keeps only what cannot be recomputed, and answers every route exactly as before.

Every game and player count: a match of random seats played to the end through the referee, a
digest of everything its routes answer (each seat's, the host's and a spectator's view, legal moves,
events, record, replay steps, result, photos), then compacted: the hash holds its log instead of its
state and events, and the same digest comes back, from the played-again cache and once that expired.
"""

from __future__ import annotations

import hashlib
import random
import time

import orjson
import pytest

from service.core.base import Actor
from service.core.keys import events_key, match_key, state_key
from service.games import GAMES
from service.games.base import concretize
from service.infra.problems import Problem
from tests import outbox
from tests.workers.test_jobs import isolated  # noqa: F401 - a referee on a queue of its own

CASES = [(name, players) for name, game in sorted(GAMES.items())
         for players in range(game.min_players, game.max_players + 1)]


def answers(ref, match_id: str, tokens: dict[int, str], host: str) -> bytes:
    """Everything the routes answer for the match, for each viewer, as one digest."""
    out = []

    def call(fn, *args):
        try:
            value = fn(*args)
        except Problem as exc:
            value = {"problem": exc.code, "detail": str(exc)}
        out.append(orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS))

    viewers = [None, host, *tokens.values()]
    for token in viewers:
        call(lambda t: {k: v for k, v in ref.snapshot(match_id, t, legal_moves=True).items()
                        if k != "clock"}, token)
        call(ref.events, match_id, token, 0, 10_000)
        call(ref.events, match_id, token, 3, 7)
        call(ref.result, match_id, token)
    for token in tokens.values():
        call(ref.legal_moves, match_id, token)
    record = ref.record(match_id, host)
    call(lambda: record)
    for step in sorted({0, 1, len(record["moves"]) // 2, len(record["moves"])}):
        call(ref.replay_step, match_id, None, step)
    for seat in tokens:
        call(ref.photo, match_id, None, seat)
    return hashlib.sha256(b"\n".join(out)).digest()


@pytest.mark.parametrize(("game", "players"), CASES)
def test_a_compacted_match_answers_every_route_as_before(isolated, game, players):  # noqa: F811
    ref, client = isolated
    rules = GAMES[game]
    m = ref.create_match(game, players, {}, 100 + players, [{"name": f"p{s}"} for s in range(players)])
    tokens = {s["seat"]: s["token"] for s in m["seats"]}
    rng = random.Random(players)
    match = ref.store.load(m["id"])
    while match.status == "active":
        seat = rules.to_act(match.state)[0]
        ref.apply_move(m["id"], Actor.of(tokens[seat]), concretize(rng.choice(rules.legal_moves(match.state, seat)),
                                                                     rng))
        match = ref.store.load(m["id"])
    outbox.burst(ref, client)  # the scoring job
    assert ref.store.load(m["id"]).status == "finished"
    before = answers(ref, m["id"], tokens, m["host_token"])
    whole = client.memory_usage(match_key(m["id"])) + client.memory_usage(events_key(m["id"]))

    assert ref.compact(m["id"]) == "compacted"
    assert not client.hexists(match_key(m["id"]), "state") and not client.exists(events_key(m["id"]))
    assert client.memory_usage(match_key(m["id"])) < whole / 3
    assert answers(ref, m["id"], tokens, m["host_token"]) == before, "played again from its log"
    assert client.exists(events_key(m["id"]), state_key(m["id"])) == 2  # kept a while for reading
    client.delete(events_key(m["id"]), state_key(m["id"]))  # as when that cache expires
    assert answers(ref, m["id"], tokens, m["host_token"]) == before
    assert ref.compact(m["id"]) == "compacted already"


def test_a_match_is_compacted_when_due_and_a_rematch_still_commits(isolated):  # noqa: F811
    """Finished, it stays whole for REFEREE_COMPACT_AFTER (its players read it), then the sweeper compacts it;
    a rematch afterwards commits on the compacted match and its event joins the log."""
    ref, client = isolated
    m = ref.create_match("super_blatt", 2, {}, 7, [{"name": "ann"}, {"bot": "random"}])
    ann = m["seats"][0]["token"]
    rng = random.Random(7)
    while (match := ref.store.load(m["id"])).status in ("active", "scoring"):
        if 0 in GAMES["super_blatt"].to_act(match.state) and match.status == "active":
            ref.apply_move(m["id"], Actor.of(ann), concretize(rng.choice(ref.legal_moves(m["id"], ann)["moves"]), rng))
        outbox.burst(ref, client)
    assert client.hexists(match_key(m["id"]), "state"), "kept whole for now"
    due = client.zscore(ref.store.compacting, m["id"])
    assert due == pytest.approx(time.time() + ref.settings.compact_after, abs=60)
    assert ref.compact_due(time.time()) == 0, "not yet"
    assert ref.compact_due(due) == 1  # its time has come: the sweeper's round compacts it
    assert client.zscore(ref.store.compacting, m["id"]) is None
    assert client.hexists(match_key(m["id"]), "log") and not client.hexists(match_key(m["id"]), "state")
    events = ref.events(m["id"], ann, 0, 10_000)["events"]
    rematch = ref.rematch(m["id"], ann)
    assert ref.store.load(rematch["id"]) is not None
    after = ref.events(m["id"], ann, 0, 10_000)["events"]
    assert after[:-1] == events and after[-1]["type"] == "rematch"
    client.delete(events_key(m["id"]), state_key(m["id"]))
    assert ref.events(m["id"], ann, 0, 10_000)["events"] == after, "the rematch event is in the log"
    assert ref.rematch(m["id"], ann)["id"] == rematch["id"]
