"""A clean stop, whichever processes get the signal: a terminal's Ctrl-C and ``kill -TERM -PGID`` signal
the whole process group at once, not only `referee serve` (docs/stopping.md).

Each test runs the command in a session of its own, as a terminal would, signals the group while bot
matches play and a long-poll and an event stream are held, and then checks what a person sees: one
line saying it stopped, no traceback, exit status 0 within ``STOP_BOUND`` seconds, no process of it
left; and, started again on the same data, every match goes on to its end.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest
import redis
import requests
from rq import Queue
from rq.serializers import JSONSerializer

from clients.client import Referee
from service.config import Settings
from service.core.referee import Referee as Engine
from service.embedded import free_port
from tests.conftest import ROOT, wait_for

STOP_BOUND = 20.0  # seconds: the front's drain (5) plus a worker's current job, with room for a loaded machine
BOTS = [{"bot": "greedy"}, {"bot": "random"}, {"bot": "random"}, {"bot": "search", "budget_ms": 300}]


def session_processes(sid: int) -> list[str]:
    """The live (not zombie) processes of session ``sid``: `pid comm` each."""
    out = subprocess.run(["ps", "-eo", "sid=,pid=,stat=,comm="], capture_output=True, text=True).stdout
    return [f"{pid} {comm}" for s, pid, stat, comm in (line.split(None, 3) for line in out.splitlines())
            if int(s) == sid and not stat.startswith("Z")]


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=1).status_code == 200
    except requests.RequestException:
        return False


class Serve:
    """`referee serve` in a session of its own, its output kept for the checks."""

    def __init__(self, data, port: int) -> None:
        self.port, self.url = port, f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
        self.log = open(data.parent / f"serve-{port}-{time.monotonic_ns()}.log", "w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "serve", "--port", str(port),
                                      "--workers", "2", "--processes", "2", "--data", str(data)],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        wait_for(lambda: _answers(self.url + "/readyz"), timeout=30)

    def signal_group(self, sig: int) -> None:
        os.killpg(self.proc.pid, sig)

    def stopped(self) -> tuple[int, float, str]:
        """Exit status, seconds taken, and everything it printed."""
        start = time.monotonic()
        status = self.proc.wait(STOP_BOUND + 10)
        took = time.monotonic() - start
        self.log.seek(0)
        return status, took, self.log.read()

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _hold(url: str, match: dict, held: dict) -> list[threading.Thread]:
    """A long-poll for a version that will not come and a seat's event stream, each in a thread."""
    token, auth = match["seats"][0]["token"], {"Authorization": f"Bearer {match['seats'][0]['token']}"}

    def poll():
        try:
            held["poll"] = requests.get(f"{url}/matches/{match['id']}?since=999&wait=50", headers=auth,
                                        timeout=60).status_code
        except requests.RequestException as exc:
            held["poll"] = repr(exc)

    def stream():
        try:
            with requests.get(f"{url}/matches/{match['id']}/events", stream=True, timeout=60,
                              headers={**auth, "Accept": "text/event-stream"}) as answer:
                held["stream"] = answer.status_code
                for _ in answer.iter_content(None):
                    pass
            held["stream_end"] = "ended"
        except requests.RequestException as exc:
            held["stream_end"] = repr(exc)

    assert token
    threads = [threading.Thread(target=poll, daemon=True), threading.Thread(target=stream, daemon=True)]
    for thread in threads:
        thread.start()
    return threads


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_whole_group_signalled_stops_in_order_and_every_match_goes_on(tmp_path, sig):
    data, port = tmp_path / "data", free_port()
    serve = Serve(data, port)
    try:
        ref = Referee(serve.url)
        bots = [ref.create_match("super_blatt", 4, BOTS, seed=i)["id"] for i in range(4)]
        person = ref.create_match("super_blatt", 2, [{"name": "ann"}, {"bot": "greedy"}], {"first_seat": 0}, 9)
        held: dict = {}
        threads = _hold(serve.url, person, held)
        wait_for(lambda: "stream" in held, timeout=10)
        time.sleep(0.5)  # the long-poll is held by now; the bots are playing
        serve.signal_group(sig)
        status, took, out = serve.stopped()
        assert status == 0, out
        assert "Traceback" not in out, out
        assert out.strip().splitlines()[-1] == "Referee stopped.", out
        assert took < STOP_BOUND, out
        assert session_processes(serve.proc.pid) == []
        for thread in threads:
            thread.join(10)
        assert held["poll"] == 200, held  # answered as it stood, not cut off
        assert held["stream"] == 200 and held["stream_end"] == "ended", held  # ended cleanly: the client resumes
    finally:
        serve.kill()

    started = time.monotonic()
    again = Serve(data, port)  # on the same data, at once: nothing of the first one holds the folder or the port
    try:
        assert time.monotonic() - started < 15
        for match_id in bots:
            wait_for(lambda m=match_id: ref.match(m)["status"] == "finished", timeout=120)
        token = person["seats"][0]["token"]
        assert ref.match(person["id"], token)["status"] == "active"
        again.signal_group(signal.SIGINT)
        status, _, out = again.stopped()
        assert status == 0 and "Traceback" not in out, out
    finally:
        again.kill()


def test_a_second_ctrl_c_stops_at_once_still_cleanly(tmp_path):
    data, port = tmp_path / "data", free_port()
    serve = Serve(data, port)
    try:
        ref = Referee(serve.url)
        for i in range(4):
            ref.create_match("super_blatt", 4, BOTS, seed=i)
        time.sleep(0.5)
        serve.signal_group(signal.SIGINT)
        time.sleep(0.2)
        serve.signal_group(signal.SIGINT)
        status, took, out = serve.stopped()
        assert status == 0, out
        assert "Traceback" not in out, out
        assert out.strip().splitlines()[-1] == "Referee stopped.", out
        assert took < 10, out
        assert session_processes(serve.proc.pid) == []
    finally:
        serve.kill()


def test_referee_api_stops_cleanly_on_a_group_signal(redis_url):
    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url)
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "api", "--port", str(port), "--processes", "2"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        wait_for(lambda: _answers(f"http://127.0.0.1:{port}/healthz"), timeout=30)
        os.killpg(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=STOP_BOUND)
        assert proc.returncode == 0 and "Traceback" not in out, out
        assert out.strip().splitlines()[-1] == "Referee API stopped.", out
        assert session_processes(proc.pid) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_referee_worker_stopped_mid_job_finishes_it_and_loses_nothing(redis_url):
    """SIGTERM to the group of `referee worker` while a search turn thinks: the worker finishes that job
    (the move is made once), exits 0 without a traceback, and the match goes on with the next workers."""
    queue = f"test-stop-{uuid.uuid4().hex[:8]}"
    env = dict(os.environ, REDIS_URL=redis_url, REFEREE_QUEUE=queue)
    os.environ["REFEREE_QUEUE"] = queue
    try:
        engine = Engine(redis.Redis.from_url(redis_url), Settings.from_env())
    finally:
        del os.environ["REFEREE_QUEUE"]

    def workers() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "clients.cli", "worker", "--workers", "1",
                                 "--search-workers", "1"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)

    proc = workers()
    try:
        m = engine.create_match("super_blatt", 2, {"first_seat": 1}, 31,
                                [{"name": "ann"}, {"bot": "search", "budget_ms": 1500}])
        wait_for(lambda: engine.search_queue.started_job_registry.count == 1, timeout=20)
        os.killpg(proc.pid, signal.SIGTERM)  # mid-job
        out, _ = proc.communicate(timeout=STOP_BOUND)
        assert proc.returncode == 0 and "Traceback" not in out, out
        assert out.strip().splitlines()[-1] == "Referee workers stopped.", out
        assert session_processes(proc.pid) == []
        moved = [e for e in engine.store.events(m["id"], 0) if e["type"] == "moved"]
        assert [e["data"]["seat"] for e in moved] == [1], moved  # the job it held was finished, once
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for q in (engine.queue, engine.search_queue):
            q.delete(delete_jobs=True)
        Queue(queue, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer).delete(delete_jobs=True)
