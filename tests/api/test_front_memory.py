"""The API's memory does not grow with the requests it has answered.

Under granian 2.8.7's own task implementation (``--task-impl rust``, before the front was our own) every
request coroutine that had suspended stayed alive, each POST about 900 bytes, until a restart: this test
keeps any such leak of the front or the app processes out.
"""

import requests

from clients.watchers import api_rss
from tests.conftest import Server


def test_answered_posts_leave_no_memory_behind(redis_url):
    srv = Server(redis_url, workers=1)
    try:
        http = requests.Session()
        mid = http.post(srv.url + "/matches", json={"game": "super_blatt", "players": 2}).json()["id"]

        def posts(n: int) -> None:
            for _ in range(n):  # refused (no such token), after the body was read: nothing is stored
                r = http.post(f"{srv.url}/matches/{mid}/moves", json={"move": {"kind": "play"}},
                              headers={"Authorization": "Bearer not-a-token"})
                assert r.status_code == 401

        posts(2_000)  # the allocator's arenas and the processes' caches settle
        before = api_rss(srv.proc.pid)
        posts(10_000)
        grown = api_rss(srv.proc.pid) - before
        assert grown < 3 * 2**20, f"{grown / 10_000:.0f} bytes per request kept"
    finally:
        srv.stop()
