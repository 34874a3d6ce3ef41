"""Errors as RFC 9457 problem details with a stable ``code`` that clients switch on."""

from __future__ import annotations

from typing import Any

#: every code the API can answer with, its HTTP status and title (documented in openapi.yaml)
CODES: dict[str, tuple[int, str]] = {
    "invalid_body": (400, "The request body is not valid JSON or not the expected shape"),
    "malformed_request": (400, "The request is not valid HTTP"),
    "unknown_game": (404, "No such game"),
    "unknown_match": (404, "No such match"),
    "not_found": (404, "No such resource"),
    "method_not_allowed": (405, "Method not allowed"),
    "bad_token": (401, "Missing or wrong seat token"),
    "bad_ticket": (401, "Unknown or expired stream ticket"),
    "not_host": (403, "Only the host may do this"),
    "not_a_seat": (403, "This needs a seat token"),
    "not_your_seat": (403, "A seat token changes only its own seat"),
    "invalid_cursor": (422, "The listing cursor is not valid"),
    "invalid_options": (422, "The options or player count do not describe a playable match"),
    "unknown_bot": (422, "No such bot for this game"),
    "invalid_clock": (422, "The clock settings are not usable"),
    "invalid_move": (422, "Not a move of this game"),
    "illegal_move": (422, "The rules forbid this move now"),
    "idempotency_mismatch": (422, "This Idempotency-Key was used for another request"),
    "not_your_turn": (409, "It is not this seat's turn"),
    "stale_version": (409, "The match has moved on since the expected version"),
    "match_not_started": (409, "The match is still waiting for players"),
    "match_over": (409, "The match is over"),
    "not_waiting": (409, "The match no longer takes players"),
    "seat_taken": (409, "That seat is not open"),
    "no_open_seat": (409, "Every seat is taken"),
    "result_not_ready": (409, "The match has no result yet"),
    "already_rated": (409, "This match is already on the ladder"),
    "not_over": (409, "Only available once the match is over"),
    "match_not_over": (409, "The match is not finished yet"),
    "no_analysis": (404, "Nobody has asked for this match's analysis"),
    "already_away": (409, "The seat is already played by a bot"),
    "not_away": (409, "The seat is not away"),
    "seat_out": (409, "The seat forfeited the match"),
    "body_too_large": (413, "The request body is too large"),
    "unsupported_media_type": (415, "The request body is not JSON"),
    "body_timeout": (408, "The request's body did not arrive in time"),
    "too_many_streams": (429, "Too many open event streams for this token"),
    "unknown_bot_account": (404, "No such bot account"),
    "bot_exists": (409, "A bot of that name exists"),
    "not_your_bot": (403, "This token is another bot's"),
    "bot_offline": (409, "The bot is not online"),
    "game_not_played": (422, "The bot does not play this game"),
    "unknown_challenge": (404, "No such challenge"),
    "challenge_closed": (409, "The challenge was answered already or lapsed"),
    "unknown_tournament": (404, "No such tournament"),
    "invalid_tournament": (422, "The tournament cannot be played as asked"),
    "internal": (500, "The server failed on this request"),
    "busy": (503, "The match is too busy; retry"),
    "redis_unavailable": (503, "The store is unreachable; retry"),
    "webhook_refused": (422, "The webhook's target is refused"),
    "store_full": (503, "The store is nearly full; no new match for now"),
    "head_too_large": (431, "The request's head is too large"),
    "client_limit": (503, "Too many requests under way from this address; retry"),
    "app_timeout": (504, "The server took too long over this request"),
}


class Problem(Exception):
    """An error answer; raise it anywhere below a route."""

    def __init__(self, code: str, detail: str, retry_after: int | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.status, self.title = CODES[code]
        self.detail = detail
        self.retry_after = retry_after  # sent as the Retry-After header
        self.extra = extra

    def as_dict(self) -> dict:
        return {
            "type": f"urn:referee:problem:{self.code}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
            **self.extra,
        }


def wrong_shape(detail: str) -> Problem:
    """``invalid_body`` for a JSON body of the wrong shape: 422, like every shape the schemas refuse (a 400 is
    for a body that is not JSON, or a malformed header)."""
    problem = Problem("invalid_body", detail)
    problem.status = 422
    return problem
