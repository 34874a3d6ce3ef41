"""Bot turns through a real `referee serve`: all-bot matches play out in few jobs, and the bot of a match
with a person still answers at once while they run (a loose bound: the figures come from
`referee bench bots-http`, not from tests)."""

from __future__ import annotations

import random
import time

import redis

from service.games.base import concretize
from tests.conftest import wait_for


def test_a_person_is_answered_quickly_while_all_bot_matches_run(ref, redis_url):
    background = [ref.create_match("super_blatt", 4, [{"bot": "random"}] * 4, seed=100 + i)["id"]
                  for i in range(16)]
    m = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"bot": "greedy"}], {"first_seat": 0}, seed=7)
    ann = m["seats"][0]["token"]
    rng = random.Random(7)
    waits = []
    snap = ref.match(m["id"], ann)
    while snap["status"] == "active" and len(waits) < 10:
        if 0 not in snap["to_act"]:  # the bot is to act (the person's move did not end the turn)
            snap = ref.match(m["id"], ann, snap["version"], 5)
            continue
        legal = ref.legal_moves(m["id"], ann)
        answer = ref.move(m["id"], ann, concretize(rng.choice(legal["moves"]), rng))
        if 1 not in answer["to_act"]:
            snap = ref.match(m["id"], ann)
            continue
        start = time.monotonic()
        snap = ref.match(m["id"], ann, answer["version"], 5)  # wakes at the bot's move
        waits.append(time.monotonic() - start)
    assert waits and max(waits) < 1.0, waits
    for mid in background:
        assert wait_for(lambda mid=mid: ref.match(mid)["status"] == "finished", timeout=60)
    keys = redis.Redis.from_url(redis_url).keys("rq:results:bot_*")
    assert not [k for k in keys if any(mid.encode() in k for mid in background)]
