"""Play one match of each game with the Python client that openapi-python-client generates from openapi.yaml.

    openapi-python-client generate --path openapi.yaml --meta none --output-path GEN/referee_client
    PYTHONPATH=GEN python clients/generated_python_play.py http://127.0.0.1:8000 super_blatt big_shot ...

Seat 0 is this client; the other seats are the server's random bots, as few as the game allows (its
``min_players``, read from the server: no list of games here). The client only uses the generated
package: it reads its legal moves, picks one, resolves each numeric range to a number, and moves.
"""

from __future__ import annotations

import random
import sys

from referee_client import AuthenticatedClient, Client, models
from referee_client.api.games import get_game
from referee_client.api.matches import create_match, get_legal_moves, get_match, get_result, submit_move
from referee_client.models import MoveRequest, Problem, SeatSpec, Span
from referee_client.types import Unset


def concrete(legal: dict, rng: random.Random) -> dict:
    """A legal move with each range replaced by one of its numbers."""
    def pick(value):
        if isinstance(value, dict) and value.keys() == {"min", "max", "step"}:
            span = Span.from_dict(value)
            return span.min_ + span.step * rng.randint(0, (span.max_ - span.min_) // span.step)
        return value
    return {k: pick(v) for k, v in legal.items()}


def play(url: str, game: str, rng: random.Random) -> dict:
    public = Client(base_url=url, raise_on_unexpected_status=True)
    info = get_game.sync(game, client=public)
    assert not isinstance(info, Problem) and info is not None, info
    players = info.min_players
    body_type = getattr(models, "".join(p.title() for p in game.split("_")) + "CreateMatch")  # <Game>CreateMatch
    body = body_type.from_dict({"game": game, "players": players})
    body.seats = [SeatSpec(name="py")] + [SeatSpec(bot="random") for _ in range(players - 1)]
    created = create_match.sync(client=public, body=body)
    assert not isinstance(created, Problem) and created is not None, created
    token = created.seats[0].token
    me = AuthenticatedClient(base_url=url, token=token, raise_on_unexpected_status=True)
    version, moves = 0, 0
    while True:
        snap = get_match.sync(created.id, client=me, since=version, wait=5)
        assert not isinstance(snap, Problem) and snap is not None, snap
        version = snap.version
        assert snap.game.value == game and snap.view.you == 0
        if snap.status.value != "active":
            break
        if 0 not in snap.to_act:
            continue
        legal = get_legal_moves.sync(created.id, client=me)
        assert not isinstance(legal, Problem) and legal is not None, legal
        if not legal.moves:
            continue
        move = concrete(rng.choice(legal.moves).to_dict(), rng)
        answer = submit_move.sync(created.id, client=me, body=MoveRequest.from_dict({"move": move}))
        if isinstance(answer, Problem):  # a bot moved first in a simultaneous decision: read again
            assert answer.code in ("stale_version", "not_your_turn", "illegal_move"), answer
            continue
        moves += 1
    for _ in range(200):
        result = get_result.sync(created.id, client=public)
        if not isinstance(result, Problem):
            break
        snap = get_match.sync(created.id, client=public, since=version, wait=1)
    assert not isinstance(result, Problem) and not isinstance(result.scores, Unset)
    return {"game": game, "moves": moves, "scores": list(result.scores), "winners": list(result.winners)}


def main() -> None:
    url, games = sys.argv[1], sys.argv[2:]
    rng = random.Random(1)
    for game in games:
        print(play(url, game, rng), flush=True)


if __name__ == "__main__":
    main()
