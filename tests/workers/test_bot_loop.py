"""A bot-turn job plays its match's consecutive bot turns (each its own compare-and-set) for a slice of
time, yields to people, leaves no RQ key behind, and a worker killed mid-loop loses and repeats nothing."""

from __future__ import annotations

import multiprocessing as mp
import os
import random
import signal
import uuid

import pytest
import redis
from rq import SimpleWorker
from rq.serializers import JSONSerializer

from service.core.base import Actor
from service.core.record import replay
from service.core.referee import Referee
from service.games import GAMES
from service.games.base import concretize
from service.infra.config import Settings
from tests import outbox
from workers import jobs
from workers.jobs import sweep


@pytest.fixture()
def make_ref(redis_url, monkeypatch):
    """Referees on queues of their own (no live worker takes their jobs), with a given bot slice."""
    made: list[Referee] = []

    def make(slice_ms: int = 50) -> tuple[Referee, redis.Redis]:
        monkeypatch.setenv("REFEREE_QUEUE", f"test-{uuid.uuid4().hex[:8]}")
        monkeypatch.setenv("REFEREE_BOT_SLICE_MS", str(slice_ms))
        monkeypatch.setattr(jobs, "_referees", {})  # the jobs' referee reads these settings afresh
        client = redis.Redis.from_url(redis_url)
        ref = Referee(client, Settings.from_env())
        made.append(ref)
        return ref, client

    yield make
    for ref in made:
        for queue in (*ref.bot_queues, ref.search_queue):
            queue.delete(delete_jobs=True)


class CountingWorker(SimpleWorker):
    ran = 0

    def execute_job(self, job, queue):
        self.ran += 1
        return super().execute_job(job, queue)


def burst(ref: Referee, client) -> int:
    """Dispatch and run the bot queues' jobs until none is left; how many jobs ran."""
    return outbox.burst(ref, client, CountingWorker)


def moves_of(ref: Referee, match_id: str) -> list[dict]:
    return [e for e in ref.store.events(match_id, 0) if e["type"] == "moved"]


def test_one_job_plays_a_whole_all_bot_match_and_scores_it(make_ref):
    ref, client = make_ref(slice_ms=60_000)
    m = ref.create_match("super_blatt", 2, {}, 31, [{"bot": "greedy"}, {"bot": "random"}])
    outbox.dispatch(ref)
    assert len(ref.queue) == 1 and len(ref.people_queue) == 0  # an all-bot match: the main queue
    assert burst(ref, client) == 1, "one job played every move and the scoring"
    match = ref.store.load(m["id"])
    assert match.status == "finished" and match.result["winners"]
    played = moves_of(ref, m["id"])
    assert len(played) > 20
    assert [e["v"] for e in played] == list(range(2, 2 + len(played))), "each move its own commit"


def test_a_slice_ends_with_the_job_of_the_next_turn(make_ref):
    """A slice of 0 ms plays one move per job: each job hands the next turn on, the last one the scoring."""
    ref, client = make_ref(slice_ms=0)
    m = ref.create_match("super_blatt", 2, {}, 32, [{"bot": "greedy"}, {"bot": "random"}])
    ran = burst(ref, client)
    assert ref.store.load(m["id"]).status == "finished"
    assert ran == len(moves_of(ref, m["id"])) + 1


def test_the_loop_yields_to_a_person_and_their_move_calls_it_back(make_ref):
    ref, client = make_ref(slice_ms=60_000)
    m = ref.create_match("big_shot", 4, {}, 33, [{"name": "ann"}, {"bot": "greedy"}, {"bot": "random"},
                                                 {"bot": "greedy"}])
    ann = m["seats"][0]["token"]
    game = GAMES["big_shot"]
    for _ in range(3):
        burst(ref, client)
        match = ref.store.load(m["id"])
        if match.status != "active":
            break
        assert 0 in game.to_act(match.state), "the bots play until ann is to act"
        assert len(ref.people_queue) == len(ref.queue) == 0, "nothing is owed while ann thinks"
        ref.apply_move(m["id"], Actor.of(ann), concretize(game.legal_moves(match.state, 0)[0], random.Random(1)))
        outbox.dispatch(ref)
        assert len(ref.people_queue) == (1 if ref.owed_bots(ref.store.load(m["id"])) else 0), \
            "a match with a person: its bot turns go to the people's queue"


def test_no_rq_key_is_left_behind(make_ref, redis_client):
    ref, client = make_ref()
    m = ref.create_match("super_blatt", 2, {}, 34, [{"bot": "greedy"}, {"bot": "random"}])
    burst(ref, client)
    assert ref.store.load(m["id"]).status == "finished"
    assert redis_client.keys(f"rq:*{m['id']}*") == []
    assert redis_client.keys(f"rq:results:*{m['id']}*") == []


def _play_and_die(redis_url: str, queue: str, after: int) -> None:
    """A worker that SIGKILLs itself when its bot is asked for its ``after``-th decision (mid-loop)."""
    os.environ["REFEREE_QUEUE"] = queue
    os.environ["REFEREE_BOT_SLICE_MS"] = "60000"
    jobs._referees.clear()
    asked = [0]
    real = jobs.bot_move

    def dying(match, seat):
        asked[0] += 1
        if asked[0] == after:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(match, seat)

    jobs.bot_move = dying
    client = redis.Redis.from_url(redis_url)
    ref = Referee(client, Settings.from_env())
    SimpleWorker(ref.bot_queues, connection=client, serializer=JSONSerializer).work(burst=True,
                                                                                      logging_level="ERROR")


def test_a_worker_killed_mid_loop_loses_nothing_and_plays_nothing_twice(make_ref, redis_url):
    ref, client = make_ref()
    m = ref.create_match("super_blatt", 2, {}, 35, [{"bot": "greedy"}, {"bot": "random"}])
    outbox.dispatch(ref)
    child = mp.get_context("fork").Process(target=_play_and_die, args=(redis_url, ref.settings.queue, 12))
    child.start()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    match = ref.store.load(m["id"])
    assert match.status == "active" and match.version == 12, "11 moves played, the 12th died with the worker"
    assert len(ref.queue) == 0, "the turn the loop held for itself was in no queue"
    assert sweep(ref, older_than=0) == 1
    burst(ref, client)
    match = ref.store.load(m["id"])
    assert match.status == "finished"
    played = moves_of(ref, m["id"])
    assert [e["v"] for e in played] == list(range(2, 2 + len(played))), "no version played twice"
    assert replay(ref.record(m["id"], m["host_token"])) == match.result


def test_a_failing_bot_hands_its_turn_back_to_the_queue(make_ref, monkeypatch):
    """A move that raises after the loop held the turn for itself: the turn is enqueued again at once."""
    ref, client = make_ref(slice_ms=60_000)
    m = ref.create_match("super_blatt", 2, {}, 36, [{"bot": "greedy"}, {"bot": "random"}])
    real, asked = jobs.bot_move, [0]

    def flaky(match, seat):
        asked[0] += 1
        if asked[0] == 5:
            raise RuntimeError("a bot's bug")
        return real(match, seat)

    monkeypatch.setattr(jobs, "bot_move", flaky)
    burst(ref, client)
    assert ref.store.load(m["id"]).status == "finished"
