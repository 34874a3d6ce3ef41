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
import time
from collections.abc import Iterator
from typing import Any

import requests

#: a connection that failed, timed out, or broke in the middle of an answer (the server went away): try again
#: where the command line finds the service unless told (``--url``, ``$REFEREE_URL``)
DEFAULT_URL = "http://127.0.0.1:8000"
TRANSIENT = (requests.ConnectionError, requests.Timeout, requests.exceptions.ChunkedEncodingError)
RETRY_S = 1.0  # pause before resuming a dropped wait (the server's retry: hint replaces it for streams)


def sse_frames(resp: requests.Response) -> Iterator[dict[str, str]]:
    """The frames of a Server-Sent Events answer as it arrives, each as its fields (a heartbeat comment is a
    frame too, with the field ``""``: a reader may look up between frames)."""
    fields: dict[str, str] = {}
    buf = b""
    for chunk in resp.iter_content(chunk_size=None):
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r").decode()
            if line:
                name, _, value = line.partition(":")
                fields[name] = value[1:] if value.startswith(" ") else value
                continue
            frame, fields = fields, {}
            yield frame


class RefereeError(Exception):
    """An error answer (problem+json); ``code`` is the stable code, ``problem`` the whole body."""

    def __init__(self, status: int, problem: dict, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {problem.get('code')}: {problem.get('detail')}")
        self.status = status
        self.code = problem.get("code")
        self.problem = problem
        self.retry_after = retry_after  # seconds, from a 429's or 503's Retry-After

    @property
    def transient(self) -> bool:
        """Worth trying again after ``retry_after``: Redis briefly away (503), too many streams (429)."""
        return self.status in (429, 503)

    @classmethod
    def of(cls, resp: requests.Response) -> RefereeError:
        try:
            problem = resp.json()
        except ValueError:
            problem = {"code": "http_error", "detail": resp.text[:200]}
        retry = resp.headers.get("Retry-After", "")
        return cls(resp.status_code, problem, float(retry) if retry.isdigit() else None)


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
            raise RefereeError.of(resp)
        if resp.headers.get("Content-Type", "").startswith("application/json"):
            return resp.json()
        return resp.text

    # -- games and matches ---------------------------------------------------------------------
    def games(self) -> list[dict]:
        return self.request("GET", "/games")["games"]

    def game(self, name: str) -> dict:
        return self.request("GET", f"/games/{name}")

    def create_match(self, game: str, players: int, seats: list[dict] | None = None,
                     options: dict | None = None, seed: int | str | None = None, clock: dict | None = None,
                     webhook: dict | None = None) -> dict:
        """``webhook``: ``{"url", "events"?}``; the answer's ``webhook.secret`` verifies its deliveries."""
        body: dict[str, Any] = {"game": game, "players": players}
        for key, value in (("seats", seats), ("options", options), ("seed", seed), ("clock", clock),
                           ("webhook", webhook)):
            if value is not None:
                body[key] = value
        return self.request("POST", "/matches", json=body)

    def join(self, match_id: str, name: str, seat: int | None = None) -> dict:
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        return self.request("POST", f"/matches/{match_id}/join", json=body)

    def name_seat(self, match_id: str, seat: int, token: str, name: str) -> dict:
        """Give one's own seat (``token``'s) the name its holder plays under."""
        return self.request("PATCH", f"/matches/{match_id}/seats/{seat}", token, json={"name": name})

    def match(self, match_id: str, token: str | None = None, since: int | None = None, wait: float = 0,
              legal_moves: bool = False) -> dict:
        """The match as the token's seat sees it; with ``since``, held until the version passes it or
        ``wait`` seconds pass (a dropped connection is retried until then); with ``legal_moves``, the
        seat's legal moves at that version come in the same answer."""
        params: dict[str, Any] = {"legal_moves": "true"} if legal_moves else {}
        if since is None:
            return self.request("GET", f"/matches/{match_id}", token, params=params)
        params.update(since=since, wait=wait)
        deadline = time.monotonic() + wait + self.timeout
        while True:
            try:
                return self.request("GET", f"/matches/{match_id}", token, params=params, timeout=self.timeout + wait)
            except (*TRANSIENT, RefereeError) as exc:
                if isinstance(exc, RefereeError) and not exc.transient or time.monotonic() > deadline:
                    raise
                pause = getattr(exc, "retry_after", None) or RETRY_S
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))

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

    def stream_ticket(self, match_id: str, token: str) -> dict:
        return self.request("POST", f"/matches/{match_id}/stream-ticket", token)

    def stream(self, match_id: str, token: str | None = None, after: int = 0, wait: float | None = None,
               ticket: str | None = None, legal_moves: bool = False) -> EventStream:
        """Follow the match's events as Server-Sent Events until it ends (or ``wait`` seconds pass).

        Iterate it for the events; a dropped connection, or a stream the server ends early, is
        resumed from the last event id, so no event is lost or repeated.  ``.end`` is the server's
        last word once the match is over (None if the stream stopped first).  With ``legal_moves``,
        whenever the seat is to act a ``{"type": "legal_moves", "version", "moves"}`` item follows
        the events of that version (again after a reconnect, if still owed).
        """
        return EventStream(self, match_id, token, after, wait, ticket, legal_moves)

    def result(self, match_id: str, token: str | None = None) -> dict:
        return self.request("GET", f"/matches/{match_id}/result", token)

    def abort(self, match_id: str, host_token: str) -> dict:
        return self.request("DELETE", f"/matches/{match_id}", host_token)

    def photo(self, match_id: str, seat: int, token: str | None = None) -> str:
        return self.request("GET", f"/matches/{match_id}/photos/{seat}", token)

    def away(self, match_id: str, token: str, bot: str | None = None) -> dict:
        return self.request("POST", f"/matches/{match_id}/away", token, json={"bot": bot} if bot else {})

    def back(self, match_id: str, token: str) -> dict:
        return self.request("POST", f"/matches/{match_id}/back", token)

    def record(self, match_id: str, token: str | None = None) -> dict:
        return self.request("GET", f"/matches/{match_id}/record", token)

    def rematch(self, match_id: str, token: str) -> dict:
        return self.request("POST", f"/matches/{match_id}/rematch", token)

    def analyse(self, match_id: str) -> dict:
        """Ask for a finished match's analysis (anyone may; asking again answers the same one): its progress."""
        return self.request("POST", f"/matches/{match_id}/analysis")

    def analysis(self, match_id: str, wait: float = 0, poll: float = 0.5) -> dict:
        """The analysis's progress, and the analysis once done; ``wait``: up to that many seconds for it to be done."""
        deadline = time.monotonic() + wait
        while True:
            state = self.request("GET", f"/matches/{match_id}/analysis")
            if state["status"] in ("done", "failed") or time.monotonic() >= deadline:
                return state
            time.sleep(poll)

    def ladder(self, game: str | None = None) -> list[dict]:
        """Per-game ratings, best first: ``[{game, entrants: [{name, mu, sigma, ordinal, matches, ...}]}]``."""
        return self.request("GET", "/ladder", params={"game": game} if game else None)["games"]

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

    def match(self, wait: float = 0, legal_moves: bool = False) -> dict:
        since = self.last.get("version") if wait and self.last else None
        self.last = self.ref.match(self.match_id, self.token, since, wait, legal_moves)
        return self.last

    def legal_moves(self) -> dict:
        return self.ref.legal_moves(self.match_id, self.token)

    def move(self, move: dict, **kwargs: Any) -> dict:
        return self.ref.move(self.match_id, self.token, move, **kwargs)

    def events(self, after: int = 0) -> dict:
        return self.ref.events(self.match_id, self.token, after)


class EventStream:
    """A seat's (or a spectator's) event stream that resumes itself; see :meth:`Referee.stream`."""

    def __init__(self, ref: Referee, match_id: str, token: str | None, after: int, wait: float | None,
                 ticket: str | None, legal_moves: bool = False) -> None:
        self.ref, self.match_id, self.token, self.ticket = ref, match_id, token, ticket
        self.legal_moves = legal_moves
        self.last_id = after
        self.deadline = None if wait is None else time.monotonic() + wait
        self.end: dict | None = None
        self.retry = RETRY_S
        self.reconnects = 0

    def __iter__(self) -> Iterator[dict]:
        failing_since = None
        while self.end is None and (self.deadline is None or time.monotonic() < self.deadline):
            try:
                for event in self._connect():
                    failing_since = None
                    yield event
            except (*TRANSIENT, RefereeError) as exc:
                if isinstance(exc, RefereeError) and not exc.transient:
                    raise
                now = time.monotonic()
                failing_since = failing_since or now
                if now - failing_since > self.ref.timeout:
                    raise ConnectionError(f"the event stream of {self.match_id} stayed unreachable: {exc}") from exc
                pause = getattr(exc, "retry_after", None)
            else:
                pause = None
            if self.end is None:
                self.reconnects += 1
                time.sleep(pause or self.retry)

    def _connect(self) -> Iterator[dict]:
        headers = {"Accept": "text/event-stream", "Last-Event-ID": str(self.last_id)}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        params: dict[str, Any] = {"ticket": self.ticket} if self.ticket else {}
        if self.legal_moves:
            params["legal_moves"] = "true"
        if self.deadline is not None:
            params["wait"] = max(0.0, self.deadline - time.monotonic())
        # a heartbeat comes every 15 s by default: a silence much longer than that is a dead connection
        with self.ref.http.get(f"{self.ref.url}/matches/{self.match_id}/events", params=params, headers=headers,
                               stream=True, timeout=(self.ref.timeout, max(self.ref.timeout, 60))) as resp:
            if resp.status_code >= 400:
                raise RefereeError.of(resp)
            for event in sse_frames(resp):
                if "retry" in event and event["retry"].isdigit():
                    self.retry = int(event["retry"]) / 1000
                if "data" not in event:
                    continue  # a comment (heartbeat) or the retry hint
                if event.get("event") == "end":
                    self.end = json.loads(event["data"])
                    return
                self.last_id = int(event["id"])
                if event.get("event") == "legal_moves":
                    yield {"type": "legal_moves", **json.loads(event["data"])}
                else:
                    yield json.loads(event["data"])
