"""The front's HTTP/1.1 (service/http1.py), spoken on a bare socket: framing, order, limits and refusals.

The server here answers with a stub handler (no app processes): each request's method, path, query and body
come back as JSON, after ``delay`` seconds when the query asks for one, so that answers can be made to come
back out of order.
"""

from __future__ import annotations

import asyncio
import socket
import time

import orjson
import pytest

from service.front import refusal
from service.http1 import MAX_TARGET, Server
from tests.conftest import run_async

LIMIT = 1000


def stub(request, exchange) -> None:
    answer = orjson.dumps({"method": request.method, "path": request.path, "query": request.query,
                           "body": request.body.decode("latin-1"), "cut": request.cut,
                           "headers": dict(request.headers)})
    delay = float(request.query.removeprefix("delay=") or 0) if request.query.startswith("delay=") else 0
    if request.path == "/stream":
        async def stream():
            await exchange.turn()
            exchange.start(200, [("content-type", "text/plain")])
            for part in (b"one", b"two"):
                await exchange.send(part)
            exchange.end()
        asyncio.ensure_future(stream())
    elif delay:
        asyncio.get_running_loop().call_later(delay, exchange.respond, 200, [("content-type", "application/json")],
                                              answer)
    else:
        exchange.respond(200, [("content-type", "application/json")], answer)


async def with_server(test, idle: float = 30.0):
    server = Server(stub, LIMIT, idle, refusal)
    listening = await server.listen("127.0.0.1", 0)
    port = listening.sockets[0].getsockname()[1]
    try:
        return await test(port)
    finally:
        listening.close()
        server.sweeper.cancel()


async def exchange_raw(port: int, data: bytes, until_closed: bool = True, timeout: float = 5.0) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    out = b""
    async with asyncio.timeout(timeout):
        if until_closed:
            out = await reader.read(-1)
        else:
            while b"\r\n\r\n" not in out:
                out += await reader.read(65536)
    writer.close()
    return out


def answers(raw: bytes) -> list[tuple[int, dict, bytes]]:
    """The answers in a byte string of responses with Content-Length."""
    out = []
    while raw:
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower().decode(): v.strip().decode() for k, v in (ln.split(b":", 1) for ln in lines[1:])}
        n = int(headers.get("content-length", 0))
        out.append((status, headers, rest[:n]))
        raw = rest[n:]
    return out


def test_pipelined_requests_are_answered_in_their_order_even_when_ready_out_of_order():
    async def test(port):
        data = b"".join(f"GET /r{i}?delay={0.3 - 0.1 * i:.1f} HTTP/1.1\r\nHost: x\r\n\r\n".encode() for i in range(3))
        return await exchange_raw(port, data + b"GET /last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    got = answers(run_async(with_server(test)))
    assert [orjson.loads(b)["path"] for _, _, b in got] == ["/r0", "/r1", "/r2", "/last"]
    assert got[-1][1]["connection"] == "close"


def test_bodies_by_length_or_chunked_and_the_percent_decoded_path():
    async def test(port):
        return await exchange_raw(port, b"POST /a%20b/c?x=%20 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                                        b"POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                                        b"Connection: close\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")

    first, second = answers(run_async(with_server(test)))
    assert orjson.loads(first[2]) | {"headers": None} == {"method": "POST", "path": "/a b/c", "query": "x=%20",
                                                           "body": "hello", "cut": False, "headers": None}
    assert orjson.loads(second[2])["body"] == "abcde"


def test_a_body_past_the_limit_goes_on_cut_and_the_connection_closes_after_its_answer():
    """By its length: handed on at once with no body (the app answers 413 from the length); chunked: with what
    came, past the limit.  Either way the rest is never read, so the connection closes after the answer."""
    async def test(port):
        by_length = await exchange_raw(port, b"POST /big HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                                             % (LIMIT + 1) + b"x" * 10)
        chunk = b"x" * 600
        chunked = await exchange_raw(port, b"POST /big HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                                           + (b"%x\r\n%s\r\n" % (len(chunk), chunk)) * 3)
        return by_length, chunked

    by_length, chunked = run_async(with_server(test))
    (status, headers, body), = answers(by_length)
    assert headers["connection"] == "close" and orjson.loads(body)["cut"] and orjson.loads(body)["body"] == ""
    (status, headers, body), = answers(chunked)
    got = orjson.loads(body)
    assert headers["connection"] == "close" and got["cut"] and LIMIT < len(got["body"]) <= 2 * 600


def test_expect_100_continue_is_answered_before_the_body_is_sent():
    async def test(port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        async with asyncio.timeout(5):
            interim = await reader.readuntil(b"\r\n\r\n")
            writer.write(b"abc")
            final = await reader.readuntil(b"\r\n\r\n")
            body = await reader.readexactly(int(final.lower().split(b"content-length: ")[1].split(b"\r\n")[0]))
        writer.close()
        return interim, body

    interim, body = run_async(with_server(test))
    assert interim.startswith(b"HTTP/1.1 100 Continue") and orjson.loads(body)["body"] == "abc"


def test_http_1_0_closes_unless_asked_to_keep_alive_and_head_sends_no_body():
    async def test(port):
        plain = await exchange_raw(port, b"GET /old HTTP/1.0\r\n\r\n")
        kept = await exchange_raw(port, b"GET /k HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
                                        b"HEAD /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return plain, kept

    plain, kept = run_async(with_server(test))
    assert answers(plain)[0][1]["connection"] == "close"
    head = kept.split(b"\r\n\r\n")
    assert b"HTTP/1.1 200" in head[0] and b"HTTP/1.1 200" in head[1] and head[2] == b""  # HEAD: headers only
    assert b"content-length" in head[1].lower()


@pytest.mark.parametrize("request_bytes, status, code", [
    (b"GARBAGE\r\n\r\n", 400, "malformed_request"),
    (b"GET /x HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400, "malformed_request"),
    (b"GET /" + b"a" * (MAX_TARGET + 10) + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "target_too_long"),
    (b"GET /x HTTP/1.1\r\n" + b"".join(b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n", 431, "headers_too_large"),
])
def test_a_request_that_cannot_be_read_is_refused_with_a_problem_and_closed(request_bytes, status, code):
    raw = run_async(with_server(lambda port: exchange_raw(port, request_bytes)))
    (got, headers, body), = answers(raw)
    assert got == status and headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close" and orjson.loads(body)["code"] == code


def test_an_upgrade_is_answered_as_a_plain_request_and_the_connection_closes():
    raw = run_async(with_server(lambda port: exchange_raw(
        port, b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nframes...")))
    (status, headers, body), = answers(raw)  # and the server closed the connection: the read ended
    assert status == 200 and orjson.loads(body)["path"] == "/ws"


def test_a_streamed_answer_is_chunked_and_the_next_request_follows_it():
    raw = run_async(with_server(lambda port: exchange_raw(
        port, b"GET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")))
    head, _, rest = raw.partition(b"\r\n\r\n")
    assert b"transfer-encoding: chunked" in head.lower()
    assert rest.startswith(b"3\r\none\r\n3\r\ntwo\r\n0\r\n\r\n")
    assert orjson.loads(answers(rest[len(b"3\r\none\r\n3\r\ntwo\r\n0\r\n\r\n"):])[0][2])["path"] == "/after"


def test_a_client_that_half_closes_after_its_request_still_gets_the_answer():
    def half_close(port: int) -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"GET /h?delay=0.2 HTTP/1.1\r\nHost: x\r\n\r\n")
            sock.shutdown(socket.SHUT_WR)
            out = b""
            while chunk := sock.recv(65536):
                out += chunk
            return out

    async def test(port):
        return await asyncio.to_thread(half_close, port)

    (status, headers, body), = answers(run_async(with_server(test)))
    assert status == 200 and orjson.loads(body)["path"] == "/h"


def test_an_idle_connection_is_closed_and_a_busy_one_is_not():
    """``idle`` 1 s here (REFEREE_KEEP_ALIVE, 75 s by default): a connection silent for longer is closed; one
    whose request is still being answered (a held long-poll or stream) is never idle."""
    async def test(port):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        t0 = time.monotonic()
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server
        idle_for = time.monotonic() - t0
        busy = await exchange_raw(port, b"GET /slow?delay=2.5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        writer.close()
        return idle_for, busy

    idle_for, busy = run_async(with_server(test, idle=1.0))
    assert 1.0 <= idle_for < 3.0
    assert answers(busy)[0][0] == 200
