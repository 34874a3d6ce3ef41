"""A Python client for the Referee REST API, on requests.

    from clients.client import Referee
    ref = Referee("http://127.0.0.1:8000")
    m = ref.create_match("super_blatt", 2, seats=[{"name": "ann"}, {"bot": "greedy"}])
    me = ref.seat(m["id"], m["seats"][0]["token"])
    while me.match(wait=10)["status"] == "active":
        if me.seat_no in me.last["to_act"]:
            me.move(me.legal_moves()["moves"][0])
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import requests


class RefereeError(Exception):
    """An error answer (problem+json); ``code`` is the stable code, ``problem`` the whole body."""

    def __init__(self, status: int, problem: dict) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.code = problem.get("code")
        self.problem = problem


class Referee:
    def __init__(self, url: str = "http://127.0.0.1:8000", session: requests.Session | None = None,
                 timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.http = session or requests.Session()
        self.timeout = timeout

    def request(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Any:
        headers = kwargs.pop("headers", {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        timeout = kwargs.pop("timeout", self.timeout)
        resp = self.http.request(method, self.url + path, headers=headers, timeout=timeout, **kwargs)
        if resp.status_code >= 400:
            try:
                problem = resp.json()
            except ValueError:
                problem = {"code": "http_error", "detail": resp.text[:200]}
            raise RefereeError(resp.status_code, problem)
        if resp.headers.get("Content-Type", "").startswith("application/json"):
            return resp.json()
        return resp.text

    # -- games and matches ---------------------------------------------------------------------
    def games(self) -> list[dict]:
        return self.request("GET", "/games")["games"]

    def game(self, name: str) -> dict:
        return self.request("GET", f"/games/{name}")

    def create_match(self, game: str, players: int, seats: list[dict] | None = None,
                     options: dict | None = None, seed: int | str | None = None) -> dict:
        body: dict[str, Any] = {"game": game, "players": players}
        for key, value in (("seats", seats), ("options", options), ("seed", seed)):
            if value is not None:
                body[key] = value
        return self.request("POST", "/matches", json=body)

    def join(self, match_id: str, name: str, seat: int | None = None) -> dict:
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        return self.request("POST", f"/matches/{match_id}/join", json=body)

    def match(self, match_id: str, token: str | None = None, since: int | None = None, wait: float = 0) -> dict:
        params: dict[str, Any] = {}
        if since is not None:
            params.update(since=since, wait=wait)
        return self.request("GET", f"/matches/{match_id}", token, params=params, timeout=self.timeout + wait)

    def legal_moves(self, match_id: str, token: str) -> dict:
        return self.request("GET", f"/matches/{match_id}/legal-moves", token)

    def move(self, match_id: str, token: str, move: dict, expected_version: int | None = None,
             idempotency_key: str | None = None) -> dict:
        body: dict[str, Any] = {"move": move}
        if expected_version is not None:
            body["expected_version"] = expected_version
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        return self.request("POST", f"/matches/{match_id}/moves", token, json=body, headers=headers)

    def events(self, match_id: str, token: str | None = None, after: int = 0) -> dict:
        return self.request("GET", f"/matches/{match_id}/events", token, params={"after": after})

    def stream(self, match_id: str, token: str | None = None, after: int = 0, wait: float = 300) -> Iterator[dict]:
        """Follow the match's events as Server-Sent Events until it ends or ``wait`` passes."""
        headers = {"Accept": "text/event-stream"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        with self.http.get(f"{self.url}/matches/{match_id}/events", params={"after": after, "wait": wait},
                           headers=headers, stream=True, timeout=wait + self.timeout) as resp:
            if resp.status_code >= 400:
                raise RefereeError(resp.status_code, resp.json())
            for line in resp.iter_lines(decode_unicode=True):
                if line and line.startswith("data: "):
                    yield json.loads(line[6:])

    def result(self, match_id: str, token: str | None = None) -> dict:
        return self.request("GET", f"/matches/{match_id}/result", token)

    def abort(self, match_id: str, host_token: str) -> dict:
        return self.request("DELETE", f"/matches/{match_id}", host_token)

    def photo(self, match_id: str, seat: int, token: str | None = None) -> str:
        return self.request("GET", f"/matches/{match_id}/photos/{seat}", token)

    def seat(self, match_id: str, token: str) -> SeatClient:
        return SeatClient(self, match_id, token)


class SeatClient:
    """One seat of one match: remembers the token and the last snapshot it saw."""

    def __init__(self, ref: Referee, match_id: str, token: str) -> None:
        self.ref, self.match_id, self.token = ref, match_id, token
        self.last: dict = {}

    @property
    def seat_no(self) -> int | None:
        return self.last.get("seat")

    def match(self, wait: float = 0) -> dict:
        since = self.last.get("version") if wait and self.last else None
        self.last = self.ref.match(self.match_id, self.token, since, wait)
        return self.last

    def legal_moves(self) -> dict:
        return self.ref.legal_moves(self.match_id, self.token)

    def move(self, move: dict, **kwargs: Any) -> dict:
        return self.ref.move(self.match_id, self.token, move, **kwargs)

    def events(self, after: int = 0) -> dict:
        return self.ref.events(self.match_id, self.token, after)
