"""Faults injected into a real `referee serve` on loopback, bounded in time: the embedded Valkey
SIGKILLed mid-match, workers SIGKILLed during bot matches, the front and the app processes SIGKILLed
mid-match, the whole service SIGKILLed and started again on its data.  Nothing acknowledged is lost,
every match finishes, and no answer is a 5xx other than 503 ``redis_unavailable`` (and, for a request
whose app process was killed under it, 500 ``internal``).  Also: a taken port is refused, the embedded server asks for
a password kept in a private file and listens on loopback only."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
import redis
import requests

from service.infra.embedded import free_port
from tests.clients.test_serve import alive, descendants
from tests.conftest import ROOT, wait_for

ENV = {"REFEREE_SWEEP_AFTER": "1", "REFEREE_JOB_TIMEOUT": "3"}


def sigkill(pid: int) -> bool:
    """SIGKILL a process listed a moment ago; False if it has exited since (an RQ job's child, or one that
    died with its parent killed just before)."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def serve(data: Path, port: int, workers: int = 2, wait: bool = True, processes: int = 1) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"} | ENV | {"PYTHONPATH": str(ROOT)}
    # the log to a file: it has a line per request and per job, and a pipe nobody reads would fill up and stall
    # whichever process writes next (a worker printing its traceback as it dies, holding the data folder's lock)
    log = tempfile.NamedTemporaryFile(prefix=f"referee-faults-{port}-", suffix=".log", delete=False)
    proc = subprocess.Popen([sys.executable, "-m", "clients.cli", "serve", "--port", str(port), "--workers",
                             str(workers), "--processes", str(processes), "--data", str(data)],
                            env=env, stdout=subprocess.DEVNULL, stderr=log)
    log.close()
    proc.log_path = Path(log.name)
    if wait:
        wait_for(lambda: proc.poll() is not None or _ready(port), timeout=30)
        assert proc.poll() is None, Path(log.name).read_text()
    return proc


def _ready(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200
    except requests.RequestException:
        return False


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def valkey_pid(proc: subprocess.Popen) -> int:
    return next(p for p in descendants(proc.pid) if "valkey-server" in cmdline(p))


def named(proc: subprocess.Popen, prefix: str) -> list[int]:
    """`referee serve`'s processes of that name (``referee-api``, its workers ``referee-app``...)."""
    return [p for p in descendants(proc.pid) if comm(p).startswith(prefix)]


def worker_pids(proc: subprocess.Popen) -> list[int]:
    """The forked workers and sweeper (named so by `referee serve`; the front and app processes are not)."""
    kids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in kids if comm(int(p)).startswith(("referee-worker", "referee-search", "referee-sweeper"))]


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def shutdown(proc: subprocess.Popen) -> None:
    tree = descendants(proc.pid)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 10
    while any(alive(p) for p in tree) and time.monotonic() < deadline:
        time.sleep(0.1)


class Table:
    """Humans at one match who play the first legal move, each move under an Idempotency-Key and
    retried until answered; every status is counted and every acknowledged move kept."""

    def __init__(self, url: str, game: str = "super_blatt", players: int = 4,
                 tolerated: tuple[str, ...] = ("redis_unavailable",)) -> None:
        self.url, self.tolerated = url, tolerated
        body = {"game": game, "players": players, "seed": 5, "seats": [{"name": f"p{i}"} for i in range(players)]}
        m = requests.post(f"{url}/matches", json=body, timeout=10).json()
        self.id, self.tokens = m["id"], [s["token"] for s in m["seats"]]
        self.statuses: Counter = Counter()
        self.acked: list[dict] = []

    def _call(self, method: str, path: str, token: str | None = None, **kw) -> requests.Response | None:
        headers = kw.pop("headers", {}) | ({"Authorization": f"Bearer {token}"} if token else {})
        try:
            r = requests.request(method, f"{self.url}{path}", headers=headers, timeout=10, **kw)
        except requests.ConnectionError:
            self.statuses["no connection"] += 1
            return None
        self.statuses[r.status_code] += 1
        if r.status_code >= 500:
            assert r.status_code in (500, 503) and r.json()["code"] in self.tolerated, r.text
            assert r.status_code == 500 or int(r.headers["Retry-After"]) >= 1
        return r if r.status_code < 500 else None

    def move(self, deadline: float = 30.0) -> float:
        """Play one move; returns when it was acknowledged."""
        end = time.monotonic() + deadline
        while time.monotonic() < end:
            snap = self._call("GET", f"/matches/{self.id}")
            if snap is None:
                time.sleep(0.05)
                continue
            snap = snap.json()
            assert snap["status"] == "active", snap["status"]
            seat = snap["to_act"][0]
            legal = self._call("GET", f"/matches/{self.id}/legal-moves", self.tokens[seat])
            if legal is None or legal.json()["version"] != snap["version"]:
                continue
            move = legal.json()["moves"][0]
            r = self._call("POST", f"/matches/{self.id}/moves", self.tokens[seat], json={"move": move},
                           headers={"Idempotency-Key": f"v{snap['version']}"})
            if r is not None and r.status_code == 200:
                self.acked.append({"seat": seat, "move": move, "version": r.json()["version"]})
                return time.monotonic()
            if r is not None:
                assert r.status_code == 409, r.text  # the answer to a landed move was lost: go on from there
        raise AssertionError(f"no move acknowledged within {deadline} s: {self.statuses}")

    def check_nothing_lost(self) -> None:
        """Every acknowledged move is in the match, at the version it was acknowledged with."""
        for seat, token in enumerate(self.tokens):
            events = requests.get(f"{self.url}/matches/{self.id}/events", headers={"Authorization": f"Bearer {token}"},
                                  params={"limit": 1000}, timeout=10).json()["events"]
            moved = {e["version"]: e["data"]["move"] for e in events if e["type"] == "moved"}
            for a in self.acked:
                if a["seat"] == seat:
                    assert moved.get(a["version"]) == a["move"], (a, moved.get(a["version"]))


def test_valkey_killed_mid_match_recovers_by_itself_and_loses_nothing(tmp_path):
    data, port = tmp_path / "data", free_port()
    proc = serve(data, port)
    url = f"http://127.0.0.1:{port}"
    try:
        # the embedded server: a password in private files, loopback only, nothing for anyone without it
        assert stat.S_IMODE(data.stat().st_mode) == 0o700
        for name in ("password", "server.conf"):
            assert stat.S_IMODE((data / name).stat().st_mode) == 0o600
        password = (data / "password").read_text()
        assert len(password) >= 32 and password not in cmdline(valkey_pid(proc))
        conf = (data / "server.conf").read_text().splitlines()
        vport = int(next(line.split()[1] for line in conf if line.startswith("port ")))
        with pytest.raises(redis.AuthenticationError):
            redis.Redis(port=vport).get("anything")
        assert redis.Redis(port=vport, password=password).config_get("bind") == {"bind": "127.0.0.1"}

        # a second server on the same port refuses to start; so does one on a port something else listens on
        second = serve(tmp_path / "other", port, wait=False)
        assert second.wait(30) != 0 and "taken" in second.log_path.read_text()
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            third = serve(tmp_path / "third", taken.getsockname()[1], wait=False)
            assert third.wait(30) != 0 and "not free" in third.log_path.read_text()
        assert requests.get(f"{url}/healthz", timeout=5).status_code == 200  # the first one is untouched

        table = Table(url)
        recoveries = []
        for _ in range(2):
            for _ in range(5):
                table.move()
            os.kill(valkey_pid(proc), signal.SIGKILL)
            killed = time.monotonic()
            recoveries.append(table.move() - killed)
            for _ in range(3):
                table.move()
        assert max(recoveries) < 10, recoveries
        assert set(table.statuses) <= {200, 409, 503}, table.statuses
        table.check_nothing_lost()
        assert wait_for(lambda: _ready(port), timeout=10)
        print(f"valkey SIGKILLed 2 times; recovered after {[round(r, 2) for r in recoveries]} s; "
              f"answers {dict(table.statuses)}; {len(table.acked)} moves acknowledged, none lost")
    finally:
        shutdown(proc)


BOT_MATCHES = [("super_blatt", 4), ("dice_party", 3), ("super_blatt", 2), ("big_shot", 2)]


def start_bot_matches(url: str) -> list[str]:
    ids = []
    for i, (game, players) in enumerate(BOT_MATCHES):
        seats = [{"bot": "greedy" if s % 2 else "random"} for s in range(players)]
        r = requests.post(f"{url}/matches", json={"game": game, "players": players, "seed": i, "seats": seats},
                          timeout=10)
        ids.append(r.json()["id"])
    return ids


def all_finished(url: str, ids: list[str], timeout: float = 90) -> None:
    def done():
        statuses = [requests.get(f"{url}/matches/{i}", timeout=10).json()["status"] for i in ids]
        return all(s == "finished" for s in statuses)

    wait_for(done, timeout=timeout, interval=0.5)


def test_killed_workers_and_a_killed_service_leave_no_match_lost_or_stuck(tmp_path):
    data, port = tmp_path / "data", free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve(data, port)
    try:
        # workers (and the sweeper) SIGKILLed again and again while bots play
        ids = start_bot_matches(url)
        kills = 0
        for _ in range(8):
            time.sleep(0.3)
            for pid in worker_pids(proc)[:1]:
                kills += sigkill(pid)
        all_finished(url, ids)

        # the whole service SIGKILLed at once (API, workers, Valkey) with matches under way
        table = Table(url, players=2)
        for _ in range(3):
            table.move()
        ids2 = start_bot_matches(url)
        tree = {proc.pid, *descendants(proc.pid)}
        for pid in tree:
            sigkill(pid)
        proc.wait()
        wait_for(lambda: not any(alive(p) for p in tree), timeout=10)
        proc = serve(data, port)
        table.check_nothing_lost()
        for _ in range(2):  # the humans play on
            table.move()
        all_finished(url, ids + ids2)
        print(f"{kills} worker SIGKILLs and 1 SIGKILL of the whole service over {len(ids + ids2)} bot matches: "
              "all finished; the human match went on")
    finally:
        shutdown(proc)


def test_the_api_processes_killed_mid_match_come_back_and_lose_nothing(tmp_path):
    """An API process SIGKILLed (with a request under way, or idle) drops its connections and granian starts
    another; granian's server SIGKILLed takes its API processes with it, and the supervisor starts it again on
    the same port.  Clients only retry (same Idempotency-Key)."""
    data, port = tmp_path / "data", free_port()
    url = f"http://127.0.0.1:{port}"
    proc = serve(data, port, processes=2)
    try:
        table = Table(url, players=2, tolerated=("redis_unavailable", "internal"))
        recoveries = []
        for victim in ("referee-app", "referee-app", "referee-api", "referee-app", "referee-api"):
            for _ in range(3):
                table.move()
            before = set(named(proc, victim))
            assert before, victim
            pid = min(before)
            sigkill(pid)
            killed = time.monotonic()
            recoveries.append(table.move() - killed)
            # one look per try: the killed one reaped and its successor named (a new process is "python" at first)
            wait_for(lambda v=victim, b=before, p=pid: len(now := named(proc, v)) == len(b) and p not in now,
                     timeout=10)
        assert max(recoveries) < 10, recoveries
        assert set(table.statuses) <= {200, 409, 500, 503, "no connection"}, table.statuses
        table.check_nothing_lost()
        assert wait_for(lambda: _ready(port), timeout=10)
        print(f"API processes SIGKILLed 5 times; moves acknowledged again after "
              f"{[round(r, 2) for r in recoveries]} s; answers {dict(table.statuses)}")
    finally:
        shutdown(proc)
