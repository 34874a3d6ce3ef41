"""Shared fixtures: an isolated Redis-compatible server, the app, and a real `referee serve`.

Tests use REDIS_URL when it is set (and then never flush it: every key they make is a fresh
match id); otherwise they start their own embedded server in a temporary folder.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import orjson
import pytest
import redis
import requests

from clients.client import Referee, RefereeError
from service.infra.config import Settings
from service.infra.embedded import EmbeddedRedis, free_port

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), persist=False)
    url = server.start()
    yield url
    server.close()


@pytest.fixture(scope="session")
def redis_client(redis_url):
    return redis.Redis.from_url(redis_url)


@pytest.fixture(scope="session")
def app(redis_client):
    from service.api.app import create_app

    app = create_app(Settings.from_env(), client=redis_client)
    app.testing = True  # answers are checked against their response schemas
    return app


@pytest.fixture()
def http(app):
    """Flask's test client: the real app and Redis, no network (fast)."""
    return app.test_client()


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium driven by Playwright, one per test process (Playwright's sync API allows one at a
    time in a thread).  In CI (``CI=true``) a browser that cannot start fails the tests; elsewhere they are
    skipped with the reason."""
    try:
        from playwright.sync_api import sync_playwright

        manager = sync_playwright().start()
        chromium = manager.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    except Exception as exc:  # noqa: BLE001 - any failure to start is reported the same way
        if os.environ.get("CI") == "true":
            pytest.fail(f"the browser cannot start in CI: {exc}")
        pytest.skip(f"no browser here ({exc}); install chromium (apt-get install -y chromium)")
    yield chromium
    chromium.close()
    manager.stop()


class Server:
    """`referee serve` in a subprocess, as a user runs it."""

    def __init__(self, redis_url: str, workers: int = 2, env: dict | None = None, port: int | None = None) -> None:
        self.port = port or free_port()  # a port given: the same server started again (an outage ends)
        scheme = "https" if (env or {}).get("REFEREE_TLS_CERT") else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        full_env = {**os.environ, "REDIS_URL": redis_url, "REFEREE_JOB_TIMEOUT": "5", "REFEREE_SWEEP_AFTER": "2",
                    **(env or {})}
        # the server's log goes to a file (a pipe nobody reads would fill up and stall the server)
        self.log = tempfile.NamedTemporaryFile(prefix=f"referee-serve-{self.port}-", suffix=".log", delete=False)
        # REFEREE_TEST_TREE: another checkout (with a .venv of its own) serves instead, so that today's tests can
        # be run against an older server (docs/web-table.md, "Tests": does a new test fail on the code before its fix?)
        tree = Path(os.environ.get("REFEREE_TEST_TREE") or ROOT)
        python = tree / ".venv/bin/python" if tree != ROOT else Path(sys.executable)
        self.proc = subprocess.Popen(
            [str(python), "-m", "clients.cli", "serve", "--port", str(self.port), "--workers", str(workers),
             "--processes", "2"],
            cwd=tree, env=full_env, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(self.url + "/readyz", timeout=1, verify=False).status_code == 200:
                    break
            except requests.RequestException:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("referee serve did not become ready")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        if not os.environ.get("REFEREE_KEEP_LOGS"):
            Path(self.log.name).unlink(missing_ok=True)


@pytest.fixture(scope="session")
def server(redis_url):
    srv = Server(redis_url)
    yield srv
    srv.stop()


class RecordingReferee(Referee):
    """The HTTP client, noting every match it creates so that each finished one is replayed."""

    def __init__(self, url: str, created: list[str]) -> None:
        super().__init__(url)
        self.created = created

    def create_match(self, *args, **kwargs) -> dict:
        out = super().create_match(*args, **kwargs)
        self.created.append(out["id"])
        return out

    def rematch(self, match_id: str, token: str) -> dict:
        out = super().rematch(match_id, token)
        self.created.append(out["id"])
        return out


@pytest.fixture()
def ref(server) -> Referee:
    """The HTTP client; after the test, every match it created that is finished replays, from its
    record alone, to its recorded result."""
    from service.core.record import replay

    client = RecordingReferee(server.url, [])
    yield client
    for match_id in dict.fromkeys(client.created):
        try:
            record = client.record(match_id)
        except RefereeError as exc:  # not finished (aborted, left open, still scoring) or expired
            assert exc.problem["code"] in ("not_over", "unknown_match"), exc.problem
            continue
        assert replay(record) == record["result"], match_id


def run_async(coro):
    """``asyncio.run`` on a thread of its own: the session's Playwright (sync API) keeps an event loop
    running on the test's thread, where ``asyncio.run`` refuses to start."""
    out: dict = {}

    def main() -> None:
        try:
            out["value"] = asyncio.run(coro)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the test's thread
            out["error"] = exc

    thread = threading.Thread(target=main)
    thread.start()
    thread.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        time.sleep(interval)


def json_lines(path: str) -> list[dict]:
    """Every line of a process's log, each of which must be JSON (stderr is a file: not a terminal)."""
    with open(path, "rb") as fh:
        raw = fh.read().splitlines()
    bad = [line for line in raw if not line.startswith(b"{")]
    assert not bad, f"{len(bad)} of {len(raw)} lines are not JSON, e.g. {bad[:3]}"
    return [orjson.loads(line) for line in raw]


def stop_group(proc: subprocess.Popen, timeout: float = 20) -> None:
    """SIGTERM a process started with ``start_new_session`` and all it started; SIGKILL what is left after
    ``timeout`` seconds."""
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
