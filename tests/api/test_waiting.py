"""Human pace against a real `referee serve`: long waits, idle streams, many watchers, tickets, CORS."""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import threading
import time
import types

import orjson
import pytest
import requests

from clients.client import Referee, RefereeError
from service.infra.config import Settings
from service.infra.embedded import free_port
from tests.conftest import Server, run_async, wait_for

ORIGIN = "http://table.example"
SSE = {"Accept": "text/event-stream"}


async def open_stream(host: str, port: int, path: str) -> asyncio.StreamReader:
    """An event stream on a bare socket, its headers read; the caller reads (or ignores) the events."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n".encode())
    status = await reader.readline()
    assert b" 200 " in status, status
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    reader.writer = writer  # kept for closing
    return reader


@pytest.fixture(scope="module")
def tuned(redis_url):
    """A server with short timeouts: streams end after 1 s, tickets expire after 2 s, 2 streams per token."""
    srv = Server(redis_url, workers=1, env={"REFEREE_STREAM_MAX_AGE": "1", "REFEREE_TICKET_TTL": "2",
                                            "REFEREE_MAX_STREAMS": "2", "REFEREE_CORS_ORIGINS": ORIGIN,
                                            "REFEREE_HEARTBEAT": "1"})
    yield srv
    srv.stop()


def two_humans(ref: Referee, seed=1) -> tuple[str, list[str]]:
    m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], seed=seed)
    return m["id"], [s["token"] for s in m["seats"]]


def play_one(ref: Referee, mid: str, tokens: list[str]) -> dict:
    seat = ref.match(mid, tokens[0])["to_act"][0]
    legal = ref.legal_moves(mid, tokens[seat])
    return ref.move(mid, tokens[seat], legal["moves"][0], expected_version=legal["version"])


def sse_lines(resp, until: float):
    """The lines of an open stream, as they arrive, until a time."""
    buf = b""
    for chunk in resp.iter_content(chunk_size=None):
        buf += chunk
        *lines, buf = buf.split(b"\n")
        yield from (line.decode() for line in lines)
        if time.monotonic() > until:
            return


def test_long_poll_held_20_s_and_a_stream_idle_40_s_with_default_settings(ref):
    """The issue's reproduction: waits past redis-py's 5 s socket timeout gave 500 and closed streams."""
    mid, tokens = two_humans(ref)
    version = ref.match(mid, tokens[0])["version"]
    polled = {}

    def poll():
        t0 = time.monotonic()
        polled["snap"] = ref.match(mid, tokens[1], since=version, wait=20)
        polled["took"] = time.monotonic() - t0

    poller = threading.Thread(target=poll)
    poller.start()
    with requests.get(f"{ref.url}/matches/{mid}/events", headers={**SSE, "Authorization": f"Bearer {tokens[0]}"},
                      stream=True, timeout=(5, 60)) as resp:
        assert resp.status_code == 200 and resp.headers["Content-Type"].startswith("text/event-stream")
        t0 = time.monotonic()
        lines = sse_lines(resp, until=t0 + 3600)
        beats, ids = [], []
        for line in lines:
            if line.startswith(":"):
                beats.append(time.monotonic() - t0)
            if line.startswith("id: "):
                ids.append(int(line[4:]))
            if time.monotonic() - t0 > 40:
                break
        gaps = [b - a for a, b in zip([0.0, *beats], beats)]
        assert len(beats) >= 2 and max(gaps) < 17, f"a comment heartbeat every 15 s while idle: {beats}"
        poller.join()
        assert polled["snap"]["version"] == version and 19 < polled["took"] < 30
        answer = play_one(ref, mid, tokens)  # the stream is still alive after 40 s of silence
        for line in lines:
            if line.startswith("id: "):
                ids.append(int(line[4:]))
                if ids[-1] >= max(e["seq"] for e in answer["events"]):
                    break
        assert ids == sorted(set(ids)) and ids[-1] > 2


def test_a_long_poll_brings_the_seat_its_legal_moves_of_the_same_version(ref):
    """?legal_moves=true: the answer that says a seat's turn has come also says what it may play (one
    request instead of two, and of one version); another seat and a spectator get an empty list."""
    mid, tokens = two_humans(ref, seed=4)
    first = ref.match(mid, tokens[0], legal_moves=True)
    mover = first["to_act"][0]
    assert "legal_moves" not in ref.match(mid, tokens[0])
    assert first["legal_moves"] == (ref.legal_moves(mid, tokens[0])["moves"] if mover == 0 else [])
    assert ref.match(mid, None, legal_moves=True)["legal_moves"] == []
    other = 1 - mover
    threading.Timer(1.0, lambda: ref.move(mid, tokens[mover], ref.legal_moves(mid, tokens[mover])["moves"][0])).start()
    woke = ref.match(mid, tokens[other], since=first["version"], wait=10, legal_moves=True)
    assert woke["version"] == first["version"] + 1
    now = ref.legal_moves(mid, tokens[other])
    assert now["version"] == woke["version"]
    assert woke["legal_moves"] == (now["moves"] if other in woke["to_act"] else [])


def test_a_stream_with_legal_moves_follows_each_turn_of_its_seat_with_its_moves(ref):
    """?legal_moves=true on a seat's stream: whenever that seat is to act, its legal moves (of that
    version) follow the events of that version; another seat's moves never appear."""
    m = ref.create_match("super_blatt", 2, [{"name": "a"}, {"name": "b"}], seed=9)
    mid, tokens = m["id"], [s["token"] for s in m["seats"]]
    snap = ref.match(mid, tokens[0])
    to_act = {snap["version"]: snap["to_act"]}
    moves_at: dict[int, list] = {}
    items: list[dict] = []
    stream = ref.stream(mid, tokens[0], wait=30, legal_moves=True)
    reader = threading.Thread(target=lambda: [items.append(i) for i in stream])
    reader.start()
    wait_for(lambda: items, timeout=10)  # open (its first catch-up sent) before the first move
    for _ in range(8):
        seat = to_act[max(to_act)][0]
        legal = ref.legal_moves(mid, tokens[seat])
        if seat == 0:
            moves_at[legal["version"]] = legal["moves"]
        answer = ref.move(mid, tokens[seat], legal["moves"][0], expected_version=legal["version"])
        to_act[answer["version"]] = answer["to_act"]
    last = max(to_act)
    if 0 in to_act[last]:
        moves_at[last] = ref.legal_moves(mid, tokens[0])["moves"]
    wait_for(lambda: any(i.get("version", -1) >= last for i in items), timeout=10)
    ref.abort(mid, m["host_token"])
    reader.join(10)
    assert stream.end and stream.end["status"] == "aborted"
    offered = [i for i in items if i["type"] == "legal_moves"]
    assert {o["version"]: o["moves"] for o in offered} == moves_at  # every turn of seat 0, once, and only those
    for o in offered:
        before = items[:items.index(o)]
        assert any(e["type"] != "legal_moves" and e["version"] == o["version"] for e in before), o
    plain = ref.stream(mid, tokens[1], wait=1)
    assert not any(i["type"] == "legal_moves" for i in plain)


def test_a_stream_the_server_ends_is_resumed_without_a_lost_or_repeated_event(tuned):
    """REFEREE_STREAM_MAX_AGE=1: the server ends every stream after a second; the client resumes."""
    ref = Referee(tuned.url)
    mid, tokens = two_humans(ref, seed=7)
    got: list[dict] = []
    stream = ref.stream(mid, tokens[0])
    follower = threading.Thread(target=lambda: got.extend(stream))
    follower.start()
    while ref.match(mid, tokens[0])["status"] == "active":
        play_one(ref, mid, tokens)
        time.sleep(0.08)
    follower.join(60)
    assert stream.end is not None and stream.end["status"] == "finished"
    assert stream.reconnects >= 1
    assert got == ref.events(mid, tokens[0])["events"], "every event once, in order"
    assert {e["data"]["seat"] for e in got if e["type"] == "moved"} == {0}, "only this seat's own moves"


def test_500_idle_streams_while_a_move_answers_within_a_second(ref, server):
    mid, tokens = two_humans(ref, seed=3)
    port = int(server.url.rsplit(":", 1)[1])

    async def crowd():
        readers = await asyncio.gather(*(open_stream("127.0.0.1", port, f"/matches/{mid}/events")
                                         for _ in range(500)))
        t0 = time.monotonic()
        answer = await asyncio.to_thread(play_one, ref, mid, tokens)
        took = time.monotonic() - t0
        seq = max(e["seq"] for e in answer["events"])

        async def sees_the_move(reader):
            buf = b""
            while f"id: {seq}\n".encode() not in buf:
                buf += await reader.read(65536)
            reader.writer.close()

        async with asyncio.timeout(30):
            await asyncio.gather(*(sees_the_move(r) for r in readers))
        return took

    assert run_async(crowd()) < 1.0


def test_stream_tickets_open_only_their_seat_stream_and_expire(tuned):
    ref = Referee(tuned.url)
    mid, tokens = two_humans(ref, seed=11)
    other, _ = two_humans(ref, seed=12)
    mover = next(e["data"]["seat"] for e in play_one(ref, mid, tokens)["events"] if e["type"] == "moved")
    ticket = ref.stream_ticket(mid, tokens[mover])
    assert ticket["expires_in"] == 2
    streamed = list(ref.stream(mid, ticket=ticket["ticket"], wait=0.5))
    assert streamed == ref.events(mid, tokens[mover])["events"]
    assert any(e["type"] == "moved" for e in streamed), "the seat's private event"
    assert not any(e["type"] == "moved" for e in ref.events(mid, tokens[1 - mover])["events"])

    def refused(match_id, ticket_value):
        r = requests.get(f"{tuned.url}/matches/{match_id}/events", params={"ticket": ticket_value}, headers=SSE)
        assert r.headers["Content-Type"] == "application/problem+json"
        return r.status_code, r.json()["code"]

    assert refused(other, ticket["ticket"]) == (401, "bad_ticket")  # another match's ticket
    assert refused(mid, "not a ticket!") == (422, "invalid_body")
    assert refused(mid, "x" * 32) == (401, "bad_ticket")
    # a ticket is ignored by every other route: this is the spectator's view
    assert ref.request("GET", f"/matches/{mid}", params={"ticket": ticket["ticket"]})["seat"] is None
    with pytest.raises(RefereeError) as host:
        ref.stream_ticket(mid, ref.create_match("super_blatt", 2)["host_token"])
    assert host.value.code in ("bad_token", "not_a_seat")
    time.sleep(2.5)
    assert refused(mid, ticket["ticket"]) == (401, "bad_ticket")  # expired


def test_open_streams_per_token_are_limited_with_retry_after(tuned):
    ref = Referee(tuned.url)
    mid, tokens = two_humans(ref, seed=13)
    head = {**SSE, "Authorization": f"Bearer {tokens[0]}"}
    url = f"{tuned.url}/matches/{mid}/events"
    held = [requests.get(url, headers=head, params={"wait": 30}, stream=True, timeout=10) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    third = requests.get(url, headers=head, stream=True, timeout=10)
    assert third.status_code == 429 and third.json()["code"] == "too_many_streams"
    assert int(third.headers["Retry-After"]) >= 1
    assert requests.get(url, headers={**SSE, "Authorization": f"Bearer {tokens[1]}"}, params={"wait": 0.1},
                        timeout=10).status_code == 200, "another seat has its own count"
    held[0].close()  # the server sees the hang-up and frees the place
    deadline = time.monotonic() + 5
    while (r := requests.get(url, headers=head, params={"wait": 0.1}, timeout=10)).status_code == 429:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert r.status_code == 200
    held[1].close()


def test_cors_preflight_allowed_and_refused_and_on_streams(tuned, server):
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization,content-type"}
    ok = requests.options(f"{tuned.url}/matches/x/moves", headers={"Origin": ORIGIN, **preflight})
    assert ok.status_code == 200 and ok.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert "authorization" in ok.headers["Access-Control-Allow-Headers"].lower()
    no = requests.options(f"{tuned.url}/matches/x/moves", headers={"Origin": "http://evil.example", **preflight})
    assert "Access-Control-Allow-Origin" not in no.headers
    ref = Referee(tuned.url)
    mid, tokens = two_humans(ref, seed=14)
    stream = requests.get(f"{tuned.url}/matches/{mid}/events", headers={**SSE, "Origin": ORIGIN},
                          params={"wait": 0.2}, timeout=10)
    poll = requests.get(f"{tuned.url}/matches/{mid}", headers={"Origin": ORIGIN}, params={"since": 1, "wait": 0.2})
    for r in (stream, poll):  # the waiting routes, held by the front, carry the same headers
        assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == ORIGIN
    # CORS is off by default
    assert "Access-Control-Allow-Origin" not in requests.options(f"{server.url}/matches",
                                                                 headers={"Origin": ORIGIN, **preflight}).headers


def test_wait_and_since_out_of_range_are_422(ref):
    mid, tokens = two_humans(ref, seed=15)
    for params in ({"since": 1, "wait": 3601}, {"since": -1, "wait": 1}, {"since": 1, "wait": -1},
                   {"since": 2**60, "wait": 1}, {"since": 1, "wait": "soon"}, {"legal_moves": "maybe"},
                   {"since": 1, "wait": 1, "legal_moves": "2"}):
        r = requests.get(f"{ref.url}/matches/{mid}", params=params, timeout=10)
        assert r.status_code == 422 and r.json()["code"] == "invalid_body", params
    for params in ({"wait": -1}, {"legal_moves": "maybe"}):
        r = requests.get(f"{ref.url}/matches/{mid}/events", params=params, headers=SSE, timeout=10)
        assert r.status_code == 422 and r.json()["code"] == "invalid_body", params


def test_bodies_through_the_front_chunked_or_not_within_the_limit(server):
    """The front reads a body whole: a chunked one (no Content-Length) is accepted, and one past
    REFEREE_MAX_BODY is refused 413 whether it says its length or not."""
    create = b'{"game": "super_blatt", "players": 2}'
    chunked = requests.post(f"{server.url}/matches", data=iter([create[:10], create[10:]]),
                            headers={"Content-Type": "application/json"}, timeout=10)
    assert chunked.status_code == 201 and chunked.json()["game"] == "super_blatt"
    big = b" " * (Settings.from_env().max_body + 1) + create
    for data in (big, iter([big[:70_000], big[70_000:]])):
        refused = requests.post(f"{server.url}/matches", data=data, headers={"Content-Type": "application/json"},
                                timeout=10)
        assert refused.status_code == 413 and refused.json()["code"] == "body_too_large"


def test_docs_and_redoc_are_served_offline_and_linked_from_the_root(http):
    index = http.get("/").get_json()
    for page, asset in ((index["docs"], "swagger-ui-bundle.js"), (index["redoc"], "redoc.standalone.js")):
        html = http.get(page).get_data(as_text=True)
        assert asset in html and "https://" not in html and "http://" not in html
        src = html.split('src="')[-1].split('"')[0]
        served = http.get(src)
        assert served.status_code == 200 and len(served.data) > 100_000


def test_waits_are_the_fronts_flask_only_says_what_to_hold(http):
    """Flask never waits: a long-poll with nothing newer is answered at once with what the front must hold
    (``Referee-Hold``), one with something newer plainly; an event stream is opened (ticket, lease) and handed over.
    Over HTTP the header never reaches a client (test_a_stream_and_a_long_poll_end_the_same_over_http)."""
    created = http.post("/matches", json={"game": "super_blatt", "players": 2,
                                          "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    version = http.get(f"/matches/{created['id']}").get_json()["version"]
    t0 = time.monotonic()
    held = http.get(f"/matches/{created['id']}?since={version}&wait=30")
    assert time.monotonic() - t0 < 5 and held.status_code == 200 and held.get_json()["version"] == version
    assert orjson.loads(held.headers["Referee-Hold"]) == {"poll": {"since": version, "wait": 30}}
    assert "Referee-Hold" not in http.get(f"/matches/{created['id']}?since={version - 1}&wait=30").headers
    opened = http.get(f"/matches/{created['id']}/events", headers=SSE)
    hold = orjson.loads(opened.headers["Referee-Hold"])["stream"]
    assert opened.status_code == 200 and opened.data == b"" and hold["refused"] == []
    (stream,) = hold["streams"]
    assert stream["match_id"] == created["id"] and stream["viewer"] is None and stream["after"] == 0


def test_a_stream_and_a_long_poll_end_the_same_over_http(server):
    """Through the front: the stream sends retry, every event with its id, and ``end``; the long-poll answers the
    aborted match at once; neither carries the front's ``Referee-Hold``."""
    created = requests.post(f"{server.url}/matches", json={"game": "super_blatt", "players": 2,
                                                           "seats": [{"name": "a"}, {"name": "b"}]}).json()
    version = requests.get(f"{server.url}/matches/{created['id']}").json()["version"]
    requests.delete(f"{server.url}/matches/{created['id']}",
                    headers={"Authorization": f"Bearer {created['host_token']}"})
    answer = requests.get(f"{server.url}/matches/{created['id']}/events", headers=SSE, timeout=10)
    assert "Referee-Hold" not in answer.headers
    text = answer.text
    assert text.startswith("retry: ")
    frames = [f for f in text.split("\n\n") if f.startswith("id: ")]
    assert frames[-1].split("\n")[1] == "event: end" and '"status":"aborted"' in frames[-1]
    assert [int(f.split("\n")[0][4:]) for f in frames[:-1]] == [
        e["seq"] for e in requests.get(f"{server.url}/matches/{created['id']}/events").json()["events"]]
    polled = requests.get(f"{server.url}/matches/{created['id']}?since={version}&wait=30", timeout=10)
    assert polled.json()["status"] == "aborted" and "Referee-Hold" not in polled.headers


class Client:
    """An ASGI server's side of one request, as far as the front uses it: whole answers go to ``sent``, streamed
    parts to ``chunks``; ``hang_up`` is the client going away."""

    def __init__(self, sent: list) -> None:
        self.sent, self.chunks, self.left = sent, [], asyncio.Event()
        self.start = None

    async def receive(self):
        await self.left.wait()
        return {"type": "http.disconnect"}

    async def send(self, message):
        if message["type"] == "http.response.start":
            self.start = (message["status"], [(k.decode(), v.decode()) for k, v in message["headers"]])
        elif message.get("more_body"):
            self.chunks.append(message["body"])
        elif self.start is not None:
            self.sent.append((*self.start, message["body"]))
            self.start = None

    def hang_up(self) -> None:
        self.left.set()


def scope(path: str, query: str, headers: dict | None = None) -> dict:
    return {"type": "http", "http_version": "1.1", "method": "GET", "path": path, "raw_path": path.encode(),
            "query_string": query.encode(), "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 80),
            "headers": [(k.encode(), v.encode()) for k, v in {"host": "x", **(headers or {})}.items()]}


def test_an_unreachable_redis_answers_503_from_the_front(app):
    """The front's own Redis link (pub/sub) down: 503 redis_unavailable with Retry-After, not 500."""
    from service.serving.front import Front

    settings = dataclasses.replace(Settings.from_env(), redis_url=f"redis://127.0.0.1:{free_port()}/0",
                                   redis_timeout=0.5)
    mid = app.test_client().post("/matches", json={"game": "super_blatt", "players": 2}).get_json()["id"]
    sent = []

    async def call(path, query, headers=None):
        front = Front(settings, app)  # one per loop
        client = Client(sent)
        await front(scope(path, query, headers), client.receive, client.send)

    run_async(call(f"/matches/{mid}", "since=5&wait=1"))
    status, headers, body = sent[0]
    assert status == 503 and ("Retry-After", "1") in headers
    assert orjson.loads(body)["code"] == "redis_unavailable"
    sent.clear()
    run_async(call(f"/matches/{mid}/events", "", {"accept": "text/event-stream"}))
    assert sent[0][0] == 503


def test_a_commit_during_the_long_polls_re_check_wakes_it(app):
    """Regression: the wake-up of a commit that landed while the waiter re-read the version was
    cleared after that read, so the poll slept to its deadline (seen as a 10 s wait in the README's
    client loop).  Here the notification arrives during the first re-check."""
    from contextlib import asynccontextmanager

    from service.serving.front import Front
    from service.serving.hub import Waiter

    http = app.test_client()
    created = http.post("/matches", json={"game": "super_blatt", "players": 2, "options": {"first_seat": 0},
                                          "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    mid, token = created["id"], created["seats"][0]["token"]
    version = http.get(f"/matches/{mid}").get_json()["version"]

    class Hub:
        def __init__(self):
            self.reads = 0

        @asynccontextmanager
        async def watch(self, match_id, seen, event=None):
            self.waiter = Waiter(seen, event or asyncio.Event())
            yield self.waiter

        async def version(self, match_id):
            self.reads += 1
            if self.reads == 1:  # a commit lands while this read is under way; the read saw the version before it
                auth = {"Authorization": f"Bearer {token}"}
                move = http.get(f"/matches/{mid}/legal-moves", headers=auth).get_json()["moves"][0]
                http.post(f"/matches/{mid}/moves", headers=auth, json={"move": move, "expected_version": version})
                self.waiter.wake(version + 1)  # its notification
                return version
            return version + 1

    sent = []

    async def call():
        front = Front(Settings.from_env(), app)
        front.hub = Hub()
        client = Client(sent)
        await front(scope(f"/matches/{mid}", f"since={version}&wait=5"), client.receive, client.send)

    t0 = time.monotonic()
    run_async(call())
    assert sent[0][0] == 200 and time.monotonic() - t0 < 2, "woken at once, not at the deadline"


def test_streams_opened_together_beat_apart_and_a_hang_up_is_not_an_error(redis_url):
    """A heartbeat every second.  Thousands of streams opened in one burst (a crowd, or every client reconnecting
    after a restart) would otherwise send their heartbeats in bursts forever; and a client that hangs up
    is the usual end of a stream, not a failure to log with a traceback."""
    srv = Server(redis_url, workers=0, env={"REFEREE_HEARTBEAT": "1"})
    try:
        beats, logged = _beats_and_log(srv)
    finally:
        srv.stop()
    assert max(beats) < 1.5 and max(beats) - min(beats) > 0.3, f"first heartbeats not spread: {sorted(beats)}"
    assert b"Traceback" not in logged and b"event stream ended" not in logged, logged.decode()[-2000:]


def _beats_and_log(srv: Server) -> tuple[list[float], bytes]:
    ref = Referee(srv.url)
    mid, _ = two_humans(ref, seed=11)
    port = int(srv.url.rsplit(":", 1)[1])

    async def crowd() -> list[float]:
        readers = await asyncio.gather(*(open_stream("127.0.0.1", port, f"/matches/{mid}/events")
                                         for _ in range(40)))
        t0 = time.monotonic()

        async def first_beat(reader) -> float:
            buf = b""
            while b": keep-alive" not in buf:
                chunk = await reader.read(4096)
                assert chunk, "the stream ended"
                buf += chunk
            return time.monotonic() - t0

        async with asyncio.timeout(10):
            beats = await asyncio.gather(*(first_beat(r) for r in readers))
        for r in readers:  # hang up at once, heartbeats still due
            r.writer.transport.abort()
        await asyncio.sleep(2.5)
        return beats

    beats = run_async(crowd())
    return beats, open(srv.log.name, "rb").read()


def test_a_seat_stream_held_past_its_lease_through_the_front_still_counts(redis_url):
    """The front renews its streams' leases with their heartbeats (one pipeline per tick): a seat's stream
    held for twice its lease (3 heartbeats) and its key's first life still keeps its token at the limit."""
    srv = Server(redis_url, workers=0, env={"REFEREE_HEARTBEAT": "1", "REFEREE_MAX_STREAMS": "1"})
    try:
        mid, tokens = two_humans(Referee(srv.url), seed=17)
        url, head = f"{srv.url}/matches/{mid}/events", {**SSE, "Authorization": f"Bearer {tokens[0]}"}
        held = requests.get(url, headers=head, stream=True, timeout=10)
        assert held.status_code == 200
        chunks, got = held.iter_content(chunk_size=None), b""  # read, and kept open, for 6.5 s: past the lease
        until = time.monotonic() + 6.5  # (3 s) and the key's first life (4 s)
        while time.monotonic() < until:
            got += next(chunks)
        beats = got.count(b": keep-alive")
        refused = requests.get(url, headers=head, params={"wait": 0.1}, timeout=10)
        assert refused.status_code == 429, "the held stream stopped counting: its lease was not renewed"
        assert beats >= 5, f"{beats} heartbeats in 6.5 s"
        held.close()
    finally:
        srv.stop()


def test_a_stream_held_longer_than_its_first_lease_still_counts_against_the_limit(app):
    """Each heartbeat renews a stream's lease and the life of its seat's key: a stream open for hours
    keeps its place (the key used to expire one lease after the first stream opened)."""
    store = app.extensions["referee"].store
    mid = f"lease{time.monotonic_ns()}"
    assert store.open_stream(mid, 0, "a", limit=1, lease=1.0)
    for _ in range(6):  # 2.4 s: past the key's first life (lease + 1 s)
        time.sleep(0.4)
        store.renew_stream(mid, 0, "a", lease=1.0)
    assert not store.open_stream(mid, 0, "b", limit=1, lease=1.0), "the held stream still counts"
    store.close_stream(mid, 0, "a")
    assert store.open_stream(mid, 0, "b", limit=1, lease=1.0)


def test_one_stream_whose_transport_refuses_a_heartbeat_does_not_stop_the_others():
    """The front's heartbeat task serves every stream: a client whose heartbeat fails at once (closed under it)
    or later ends only its own stream, and the others keep their heartbeats."""
    from service.serving.hub import Beats, Waiter

    class Transport:  # a stream's outlet, as far as the heartbeats use it
        def __init__(self, refuse: str | None) -> None:
            self.refuse, self.sent, self.writing = refuse, 0, None

        async def write(self, data: bytes) -> None:
            if self.refuse == "at once":
                raise ConnectionResetError("closed")
            self.sent += 1
            await asyncio.sleep(0)
            if self.refuse == "later":
                raise ConnectionResetError("closed")

    async def main() -> tuple[list[Transport], list[Waiter]]:
        beats = Beats(0.05, redis=None)
        transports = [Transport("at once"), Transport("later"), Transport(None)]
        waiters = [Waiter(0) for _ in transports]
        for t, w in zip(transports, waiters):
            beats.add(t, w, [types.SimpleNamespace(holder=None)])
        await asyncio.sleep(0.5)
        beats.task.cancel()
        # the heartbeats under way end by themselves: the loop's teardown would cancel them, and a cancelled
        # heartbeat is taken for a hang-up (seen on a loaded machine, the healthy stream marked gone)
        await asyncio.sleep(0.05)
        return transports, waiters

    transports, waiters = run_async(main())
    assert [w.gone for w in waiters] == [True, True, False] and all(w.event.is_set() for w in waiters[:2])
    assert transports[2].sent >= 5, "the healthy stream's heartbeats stopped"


def test_a_long_poll_whose_client_hangs_up_is_let_go_at_once(app, redis_url):
    """A held long-poll whose client goes (a closed tab) ends then, not at its deadline: 10,000 watchers who
    leave do not stay held for their minute."""
    from service.serving.front import Front

    mid = app.test_client().post("/matches", json={"game": "super_blatt", "players": 2}).get_json()["id"]
    version = app.test_client().get(f"/matches/{mid}").get_json()["version"]

    async def call() -> float:
        front = Front(dataclasses.replace(Settings.from_env(), redis_url=redis_url), app)
        client = Client([])
        held = asyncio.ensure_future(front(scope(f"/matches/{mid}", f"since={version}&wait=30"), client.receive,
                                           client.send))
        await asyncio.sleep(0.5)  # held by now
        assert not held.done()
        t0 = time.monotonic()
        client.hang_up()
        await held
        return time.monotonic() - t0

    assert run_async(call()) < 2


def test_one_stream_follows_several_matches_each_by_its_own_ticket(server):
    """GET /events: frames tagged INDEX:SEQ; a seat's follow gets that seat's events, a spectator's the public
    ones; a follow that cannot be opened is refused in the stream and the others go on; the stream ends once every
    followed match has ended."""
    ref = Referee(server.url)
    a = ref.create_match("paparazzo", 3, [{"name": "A"}, {"name": "B"}, {"name": "C"}], seed=3)
    b = ref.create_match("super_blatt", 2, [{"name": "A"}, {"name": "B"}])
    seats = [ref.seat(a["id"], s["token"]) for s in a["seats"]]
    for _ in range(6):  # a few moves: cards change hands in private
        for s in seats[0].match()["to_act"]:
            move = seats[s].legal_moves()["moves"][0]
            seats[s].move({k: v["min"] if isinstance(v, dict) and "min" in v else v for k, v in move.items()})
    ticket = ref.stream_ticket(a["id"], a["seats"][0]["token"])["ticket"]
    for m in (a, b):
        ref.abort(m["id"], m["host_token"])
    follows = [f"{a['id']},0,{ticket}", f"{a['id']},0", "nosuchmatch,0", f"{b['id']},0"]
    answer = requests.get(f"{server.url}/events", params={"follow": follows}, headers=SSE, timeout=20)
    assert answer.status_code == 200 and "Referee-Hold" not in answer.headers
    frames = [dict(line.split(": ", 1) for line in f.split("\n")) for f in answer.text.split("\n\n")[1:] if f]
    by_tag: dict[int, list[dict]] = {}
    for frame in frames:
        tag, seq = frame["id"].split(":")
        by_tag.setdefault(int(tag), []).append({**frame, "seq": int(seq)})
    assert [f["event"] for f in by_tag[2]] == ["refused"] and '"unknown_match"' in by_tag[2][0]["data"]
    seat0 = [e["seq"] for e in ref.events(a["id"], a["seats"][0]["token"])["events"]]
    public = [e["seq"] for e in ref.events(a["id"])["events"]]
    assert set(seat0) - set(public)  # seat 0 saw something the spectator may not
    assert [f["seq"] for f in by_tag[0] if f["event"] != "end"] == seat0
    assert [f["seq"] for f in by_tag[1] if f["event"] != "end"] == public
    assert [f["event"] for f in by_tag[3]][-1] == "end" and by_tag[0][-1]["event"] == "end"


@pytest.mark.parametrize("params, headers", [
    ({"follow": "x"}, SSE), ({"follow": ["a,0"] * 65}, SSE), ({}, SSE), ({"follow": "a,0"}, {}),
    ({"follow": "a,99999999999999999"}, SSE)])
def test_a_shared_stream_that_cannot_be_read_is_refused(server, params, headers):
    answer = requests.get(f"{server.url}/events", params=params, headers=headers, timeout=10)
    assert answer.status_code in (400, 422) and answer.json()["code"] == "invalid_body"


def test_flasks_turns_go_round_the_addresses_so_a_burst_waits_behind_nobody_else():
    """service/serving/front.py ``Turns``: 50 requests of one address and then 1 of another are served in
    turn by address (the other's comes second, not 51st); a request past an address's bound is refused; one
    whose client left while it waited never runs."""
    from service.serving.front import Turns

    async def main() -> tuple[list[str], bool, bool]:
        turns, order = Turns(bound=60), []

        async def request(address: str, label: str) -> None:
            turn = turns.enter(address)
            if turn is not None:
                await turn
            order.append(label)  # Flask's work: synchronous, between the turn and leaving
            turns.leave(address, turn)

        first = turns.enter("a")  # a request of "a" under way: the next ones wait
        assert first is None
        tasks = [asyncio.ensure_future(request("a", f"a{i}")) for i in range(50)]
        tasks.append(asyncio.ensure_future(request("b", "b")))
        await asyncio.sleep(0)
        turns.leave("a")
        await asyncio.gather(*tasks)
        bounded = Turns(bound=2)
        bounded.enter("c")
        bounded.enter("c")
        left = Turns(bound=5)
        left.enter("d")
        gone = left.enter("d")
        gone.cancel()  # its client hung up while it waited
        left.leave("d", gone)
        left.leave("d")
        await asyncio.sleep(0)
        return order, bounded.full("c"), not left.pending and left.granted is None

    order, full, empty = run_async(main())
    assert order.index("b") <= 1, order[:5]
    assert sorted(order) == sorted([f"a{i}" for i in range(50)] + ["b"])
    assert full and empty


def test_a_stream_sends_from_the_notices_only_when_none_is_missing():
    """service/serving/hub.py ``Hub.since`` and service/api/sse.py ``from_notices``: the commits' notices make the
    frames a read would (the viewer's events only); a lost notice, events that do not follow on, or the viewer to
    act with its legal moves asked and no state in the newest notice: None, and the stream reads the match
    instead (tests/clients/test_cli.py plays every game's tables from their streams, legal moves included)."""
    from service.api.sse import from_notices
    from service.core.views import Stream
    from service.serving.hub import Hub, read_notice

    def event(seq: int, v: int, to) -> bytes:
        return orjson.dumps({"seq": seq, "v": v, "type": "took", "data": {"n": seq}, "to": to})

    hub = Hub.__new__(Hub)
    hub.recent = {"m": collections.deque(maxlen=Hub.KEPT)}
    for version, events, to_act in ((5, [event(10, 5, "all"), event(11, 5, [1])], b",1,"),
                                    (6, [event(12, 6, [0])], b",0,")):
        _, notice = read_notice(b"\n".join([b"%d" % version, b"active", to_act, b"super_blatt", b"{}", *events]))
        if hub.recent["m"]:
            hub.recent["m"][-1].state = None  # as Hub._read keeps it: the newest notice's state only
        hub.recent["m"].append(notice)
    assert read_notice(b"7") == (7, None)  # a plain version (a bot's inbox): no notice
    seat0 = Stream(match_id="m", viewer=0, holder=None, id="s", lease=1.0)
    frames, after, version, over = from_notices(seat0, hub.since("m", 4, 9), 9)
    assert (after, version, over) == (12, 6, False)
    assert b"id: 10\n" in frames and b"id: 11\n" not in frames and b"id: 12\n" in frames  # seat 1's event hidden
    assert hub.since("m", 3, 9) is None  # the notice of version 4 is missing
    assert from_notices(seat0, hub.since("m", 4, 8), 8) is None  # event 9 was never seen
    seat0.legal = True
    hub.recent["m"][-1].state = None
    assert from_notices(seat0, hub.since("m", 4, 9), 9) is None  # seat 0 to act, its state not kept: a read
    assert hub.since("m", 6, 12) is None  # nothing new
