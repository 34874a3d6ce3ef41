"""The front's one queue of requests for the app processes (service/pool.py).

The app processes here are threads running the real app-process loop (``serve``) around a stub WSGI app
that sleeps as long as its path says; the pool runs on an event loop of its own, as in the front.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
import time

import orjson

from service import pool as apps
from tests.conftest import run_async


def stub_app(env, start_response):
    """``/sleep/<seconds>/<label>``: answers the label and the thread that served it, after that long."""
    _, _, seconds, label = env["PATH_INFO"].split("/")
    if label == "die":  # the process dies with the request: its link to the front closes
        raise SystemExit
    time.sleep(float(seconds))
    start_response("200 OK", [("Content-Type", "application/json")])
    return [orjson.dumps({"label": label, "by": threading.current_thread().name})]


def frame(path: str) -> bytes:
    return apps.request_frame(apps.Request("GET", path, "", "1.1", [], b"", "127.0.0.1:1", "127.0.0.1:80"))


def start_apps(path: str, count: int) -> None:
    def run(i: int) -> None:
        try:
            apps.serve(stub_app, path, again=False)
        except SystemExit:
            pass  # ``die``: the thread ends, its socket closes

    for i in range(count):
        threading.Thread(target=run, args=(i,), name=f"app{i}", daemon=True).start()


async def started(path: str, count: int) -> apps.Pool:
    """A pool with ``count`` app processes (threads here) connected."""
    pool = apps.Pool(path)
    await pool.start()
    start_apps(path, count)
    while len(pool.links) < count:
        await asyncio.sleep(0.01)
    return pool


def test_requests_wait_in_one_queue_and_go_to_the_first_free_app_process():
    """A long request holds one app process; the short ones behind it all go to the other, in their order,
    none waiting behind the long one (with a queue per process, half of them would)."""
    path = os.path.join(tempfile.mkdtemp(), "apps.sock")

    async def main():
        pool = await started(path, 2)
        done: list[tuple[str, str, float]] = []
        t0 = time.monotonic()

        async def call(p: str) -> None:
            status, _, body = (await pool.call(frame(p)))[:3]
            answer = orjson.loads(body)
            done.append((answer["label"], answer["by"], time.monotonic() - t0))

        long = asyncio.ensure_future(call("/sleep/1.0/long"))
        await asyncio.sleep(0.05)
        await asyncio.gather(long, *(call(f"/sleep/0.05/short{i}") for i in range(6)))
        pool.server.close()
        return done

    done = run_async(main())
    order = [label for label, _, _ in done]
    assert order == [f"short{i}" for i in range(6)] + ["long"]
    long_by = done[-1][1]
    assert all(by != long_by for _, by, _ in done[:-1]) and done[5][2] < 0.9


def test_an_app_process_that_dies_with_a_request_answers_none_and_the_others_go_on():
    path = os.path.join(tempfile.mkdtemp(), "apps.sock")

    async def main():
        pool = await started(path, 2)
        died = await pool.call(frame("/sleep/0/die"))
        await asyncio.sleep(0.1)
        after = [await pool.call(frame(f"/sleep/0/after{i}")) for i in range(3)]
        pool.server.close()
        return died, after, len(pool.links)

    died, after, links = run_async(main())
    assert died is None and links == 1
    assert [orjson.loads(a[2])["label"] for a in after] == ["after0", "after1", "after2"]


def test_with_no_app_process_a_request_is_given_up_after_the_pools_patience():
    path = os.path.join(tempfile.mkdtemp(), "apps.sock")

    async def main():
        pool = apps.Pool(path, patience=0.5)
        await pool.start()
        t0 = time.monotonic()
        answer = await pool.call(frame("/sleep/0/x"))
        pool.server.close()
        return answer, time.monotonic() - t0

    answer, waited = run_async(main())
    assert answer is None and 0.5 <= waited < 2.5


def test_the_front_answers_a_lost_request_500_and_an_unserved_one_503():
    from service.config import Settings
    from service.front import Front

    class Pool:
        links: list = []

    front = Front(Settings.from_env(), Pool())
    status, headers, body = front._lost()
    assert status == 503 and orjson.loads(body)["code"] == "unavailable" and ("Retry-After", "1") in headers
    Pool.links = [object()]
    status, _, body = front._lost()
    assert status == 500 and orjson.loads(body)["code"] == "internal"
