"""What a seat, the host or a spectator may read of a match: its view, legal moves, event pages and
streams, photo, result, and the listing of matches.

Apart because it only reads: nothing here commits, and the front (service/serving/) serves pages and streams
with the module's functions (``page_of``, ``Stream``) without a ``Referee``.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

import orjson

from service.core import clock
from service.core.base import HOST, RefereeBase, public_event, to_act, unknown_match, visible
from service.core.store import Match, Status, renew_stream_on
from service.games import GAMES
from service.infra.problems import Problem


@dataclass
class Stream:
    """One open event stream: whose events it shows, and its lease among its token's open streams.

    The lease is renewed at every heartbeat, so the streams of a process that died stop counting.
    """

    match_id: str
    viewer: int | None
    holder: int | None
    id: str
    lease: float
    legal: bool = False  # send the viewer's legal moves whenever its seat is to act
    legal_seen: int = -1  # the last version whose legal moves were looked up

    def renew_on(self, pipe) -> None:
        """Renew the stream's lease, queued on a pipeline (the front renews a heartbeat's streams in one)."""
        if self.holder is not None:
            renew_stream_on(pipe, self.match_id, self.holder, self.id, self.lease)


def moves_of(match: Match, seat: int) -> list:
    """The seat's legal moves: empty unless the match is active (and the game has the seat to act)."""
    return seat_moves(match.game, match.status, match.state, seat)


def seat_moves(game: str, status: Status, state: dict, seat: int) -> list:
    return GAMES[game].legal_moves(state, seat) if status == Status.ACTIVE else []


def page_of(match_id: str, found: tuple[list, list[dict]] | None, viewer: int | None, after: int,
            limit: int) -> dict:
    """``Referee.page`` from the store's read of the head and events (``Store.page``; the front's own)."""
    if found is None:
        raise unknown_match(match_id)
    head, raw = found
    status, version = Status(head[0].decode()), int(head[1])
    page = {"events": [public_event(e) for e in raw if visible(e, viewer)],
            "last_seq": raw[-1]["seq"] if raw else after, "more": len(raw) == limit,
            "version": version, "status": status}
    if len(head) > 2:  # a seat's stream: its legal moves (none unless it is to act: then no state came)
        state = head[3] if len(head) > 3 else None
        page["moves"] = [] if state is None else seat_moves(head[2].decode(), status, orjson.loads(state), viewer)
    return page


def parse_cursor(cursor: str | None) -> tuple[int, str] | None:
    """A listing cursor is ``<created µs>.<match id>`` of the last match a page showed."""
    if cursor is None:
        return None
    created, _, match_id = cursor.partition(".")
    if not (created.isdigit() and match_id.isalnum() and len(match_id) <= 32):
        raise Problem("invalid_cursor", "That cursor is not one a listing gave; start again without it.")
    return int(created), match_id


def public_seats(meta: dict) -> list[dict]:
    """What anyone may know of the seats: who sits where, bots, who is away or out; never a token."""
    return [{"seat": i, "name": s["name"], "bot": s["bot"], "joined": s["joined"], "away": s.get("away"),
             "out": bool(s.get("out"))} for i, s in enumerate(meta["seats"])]


def listing_item(match_id: str, summary: dict) -> dict:
    """What anyone may know of a listed match: never its seed or tokens."""
    seats = public_seats(summary["meta"])
    waiting = summary["status"] == Status.WAITING
    return {"id": match_id, "game": summary["game"], "title": GAMES[summary["game"]].title,
            "status": summary["status"], "version": summary["version"], "players": len(seats),
            "seats": seats, "open_seats": sum(1 for s in seats if not s["joined"]) if waiting else 0,
            "options": summary["meta"]["options"], "created": summary["meta"]["created"]}


class Views(RefereeBase):
    """The reads of a match by id and token (or stream ticket): each shows only what that reader may see."""

    def snapshot(self, match_id: str, token: str | None, legal_moves: bool = False) -> dict:
        """The match as ``token``'s seat sees it (a long-poll's wait is the front's: service/serving/front.py)."""
        match = self._load(match_id)
        seat = self.seat_of(match, token)
        out = self._snapshot(match, seat)
        if legal_moves:  # read with the view, so both are of one version
            out["legal_moves"] = moves_of(match, seat) if seat is not None and seat >= 0 else []
        return out

    def _snapshot(self, match: Match, seat: int | None) -> dict:
        game = GAMES[match.game]
        viewer = seat if seat is not None and seat >= 0 else None
        out = {
            "id": match.id,
            "game": match.game,
            "status": match.status,
            "version": match.version,
            "seat": viewer,
            "to_act": to_act(match),
            "seats": public_seats(match.meta),
            "options": match.meta["options"],
            "view": game.view(match.state, viewer),
        }
        if "clock" in match.meta:
            out["clock"] = clock.clock_view(match.meta, time.time())
        if match.result is not None:
            out["result"] = match.result
        rematch = match.meta.get("rematch")
        if rematch is not None:  # a seat's new token only to that seat
            mine = rematch["seats"].get(str(viewer)) if viewer is not None else None
            out["rematch"] = {"id": rematch["id"], **(mine or {})}
        if match.status in (Status.SCORING, Status.FINISHED):  # the game is over: nothing is hidden any more
            out["seed"] = match.meta["seed"]
        return out

    def legal_moves(self, match_id: str, token: str | None) -> dict:
        match = self._load(match_id)
        seat = self._player_seat(match, token)
        return {"game": match.game, "version": match.version, "seat": seat, "moves": moves_of(match, seat)}

    def _viewer(self, match: Match, token: str | None, ticket: str | None) -> int | None:
        """The seat whose events a request may see: its token's, else its stream ticket's (None: a spectator)."""
        if token is None and ticket is not None:
            seat = self.store.ticket_seat(match.id, ticket)
            if seat is None:
                raise Problem("bad_ticket", "This stream ticket is unknown, expired or for another match; "
                                            "ask for a new one.")
            return seat
        seat = self.seat_of(match, token)
        return seat if seat is not None and seat >= 0 else None

    def events(self, match_id: str, token: str | None, after: int = 0, limit: int = 500,
               ticket: str | None = None) -> dict:
        match = self._load(match_id)
        page = self.page(match_id, self._viewer(match, token, ticket), after, limit)
        del page["more"]
        return {"game": match.game, **page}

    def page(self, match_id: str, viewer: int | None, after: int, limit: int = 500, legal: bool = False) -> dict:
        """The events past ``after`` that ``viewer`` may see, with the match's version and status, read in
        one round trip; with ``legal`` also the viewer's legal moves at that version (``moves``, empty unless
        its seat is to act), from the same read: a seat's stream learns its turn without another request.
        """
        return page_of(match_id, self.store.page(match_id, after, limit, viewer if legal else False),
                       viewer, after, limit)

    def stream_ticket(self, match_id: str, token: str | None) -> dict:
        """A short-lived ticket that opens this seat's event stream without the token in a URL."""
        seat = self._player_seat(self._load(match_id), token)
        ttl = self.settings.ticket_ttl
        return {"ticket": self.store.issue_ticket(match_id, seat, ttl), "expires_in": ttl}

    def open_stream(self, match_id: str, token: str | None, ticket: str | None, legal: bool = False) -> Stream:
        """Check an event stream's request and count it against its token's open streams."""
        match = self._load(match_id)
        viewer = self._viewer(match, token, ticket)
        holder = HOST if viewer is None and token is not None else viewer  # None: a spectator, not counted
        stream = Stream(match_id, viewer, holder, secrets.token_hex(8), 3 * self.settings.heartbeat,
                        legal and viewer is not None)
        limit = self.settings.max_streams
        if holder is not None and not self.store.open_stream(match_id, holder, stream.id, limit, stream.lease):
            raise Problem("too_many_streams", f"This token already holds {limit} open event streams; close one.",
                          retry_after=max(1, round(self.settings.heartbeat)))
        return stream

    def photo(self, match_id: str, token: str | None, seat: int) -> str:
        match = self._load(match_id)
        self.seat_of(match, token)
        game = GAMES[match.game]
        render = getattr(game, "photo_svg", None)
        if render is None:
            raise Problem("not_found", f"{game.title} has no photos.")
        if not 0 <= seat < match.meta["players"]:
            raise Problem("not_found", f"This match has seats 0 to {match.meta['players'] - 1}.")
        if not game.is_over(match.state):
            raise Problem("not_over", "The photo is taken at the end of the match.")
        return render(match.state, seat)

    def result(self, match_id: str, token: str | None) -> dict:
        match = self._load(match_id)
        self.seat_of(match, token)
        if match.result is None:
            raise Problem("result_not_ready", f"The match is {match.status}; the result comes when it is finished.")
        return {"id": match.id, "game": match.game, "status": match.status, **match.result}

    def list_matches(self, status: str | None, game: str | None, open_seats: bool | None, limit: int,
                     cursor: str | None) -> dict:
        """Listed matches, newest first, that pass the filters as they are now (the index may lag).

        Reads at most a bounded number of index entries per page, so a rare filter answers a short
        page with a ``next_cursor`` rather than scanning everything; expired matches leave the index.
        """
        if game is not None:
            self.game(game)
        position = parse_cursor(cursor)
        items: list[dict] = []
        budget = max(4 * limit, 200)
        exhausted = False
        while len(items) < limit and budget > 0 and not exhausted:
            batch = self.store.listing_page(game, position, min(budget, 100))
            exhausted = not batch
            gone = []
            for (match_id, created), summary in zip(batch, self.store.summaries([m for m, _ in batch])):
                budget -= 1
                position = (created, match_id)
                if summary is None:
                    gone.append(match_id)
                    continue
                item = listing_item(match_id, summary)
                if ((status is None or item["status"] == status)
                        and (open_seats is None or (item["open_seats"] > 0) == open_seats)):
                    items.append(item)
                    if len(items) == limit:
                        break
            self.store.unlist(gone, list(GAMES))
        more = not exhausted and bool(self.store.listing_page(game, position, 1))
        return {"matches": items, "next_cursor": f"{position[0]}.{position[1]}" if more and position else None}

    @staticmethod
    def seat_view(match: Match, seat: int) -> tuple[Match, dict, list]:
        """What a bot sees at its turn (workers/jobs.py): the seat's view of the match and its legal moves."""
        game = GAMES[match.game]
        return match, game.view(match.state, seat), game.legal_moves(match.state, seat)
