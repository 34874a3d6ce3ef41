"""The game contract every rules module implements.

A game is pure: plain JSON-compatible state in, events out, no Flask, no Redis, no I/O.
All randomness comes from the ``rng`` the referee passes in, so a match replays exactly
from (seed, options, moves).  Modelled on OpenSpiel's game/state split and python-chess's
small value objects and precise errors.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from marshmallow import Schema, ValidationError, fields, validate

from .shape import Shape

State = dict[str, Any]
Move = dict[str, Any]
Seat = int
ALL = "all"


class GameError(Exception):
    """Base of the errors a game raises; ``code`` is stable, the message is for people."""

    code: ClassVar[str] = "game_error"

    def __init__(self, message: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason or self.code


class InvalidMove(GameError):
    """The move is not a move of this game at all (unknown type, missing or wrong field)."""

    code = "invalid_move"


class IllegalMove(GameError):
    """The move is well formed but the rules forbid it now."""

    code = "illegal_move"


class InvalidOptions(GameError):
    """The options (or the player count) do not describe a playable match."""

    code = "invalid_options"


def event(type_: str, data: Mapping[str, Any] | None = None, to: str | Sequence[Seat] = ALL) -> dict:
    """An event as the referee stores it; ``to`` is ``"all"`` or the list of seats that may see it."""
    return {"type": type_, "data": dict(data or {}), "to": to if to == ALL else sorted(to)}


def span(lo: int, hi: int, step: int = 1) -> dict:
    """A numeric choice in a legal move, given once instead of listing every number."""
    return {"min": lo, "max": hi, "step": step}


def in_span(value: Any, rng_: Mapping[str, int]) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and rng_["min"] <= value <= rng_["max"]
        and (value - rng_["min"]) % rng_["step"] == 0
    )


def is_span(value: Any) -> bool:
    return isinstance(value, dict) and value.keys() == {"min", "max", "step"}


def concretize(move: Move, rng: random.Random) -> Move:
    """Pick a concrete move from a legal-move template (ranges become one random number)."""
    out = {}
    for k, v in move.items():
        if is_span(v):
            steps = (v["max"] - v["min"]) // v["step"]
            out[k] = v["min"] + v["step"] * rng.randint(0, steps)
        else:
            out[k] = v
    return out


def matches(move: Move, template: Move) -> bool:
    """Whether a concrete move is one that a legal-move template allows."""
    if move.keys() != template.keys():
        return False
    for k, v in template.items():
        if is_span(v):
            if not in_span(move[k], v):
                return False
        elif move[k] != v:
            return False
    return True


def rank_by_score(scores: Sequence[float]) -> list[list[Seat]]:
    """Ranking as a list of places, each place the seats sharing it (best first)."""
    order = sorted(set(scores), reverse=True)
    return [[s for s, v in enumerate(scores) if v == value] for value in order]


@dataclass
class Outcome:
    """The end of a match: scores, places (ties share a place), winners, and how scores arose."""

    scores: list[float]
    ranking: list[list[Seat]]
    winners: list[Seat]
    breakdown: list[dict] = field(default_factory=list)

    @classmethod
    def by_score(cls, scores: Sequence[float], breakdown: Sequence[dict] = ()) -> Outcome:
        ranking = rank_by_score(scores)
        return cls(list(scores), ranking, list(ranking[0]) if ranking else [], list(breakdown))

    def as_dict(self) -> dict:
        return {
            "scores": self.scores,
            "ranking": self.ranking,
            "winners": self.winners,
            "breakdown": self.breakdown,
        }


#: the one reason for a move the current phase does not allow
NOT_NOW = "not_now"


@dataclass(frozen=True)
class Phase:
    """What one phase of a game allows, as data: each move type and the method that applies it
    (``method(state, seat, move, rng) -> events``), and ``hint``, what is due instead.  The method is
    named (a method of the game) or given (e.g. bound to the part of a game that owns the phase)."""

    moves: Mapping[str, str | Callable[[State, Seat, Move, random.Random], list[dict]]]
    hint: str


class BaseOptions(Schema):
    """Options every game accepts (docs/games/index.md, "The first player": random unless named)."""

    first_seat = fields.Integer(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=0, max=5),
        metadata={"description": "Seat that starts; random from the match seed when omitted."},
    )


class Game:
    """One game's rules. Subclasses set the class attributes and implement the methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: ClassVar[type[Schema]] = BaseOptions
    #: one marshmallow schema per move ``type`` (the ``type`` field itself is implied)
    moves: ClassVar[Mapping[str, type[Schema]]]
    #: option sets the conformance tests and benchmarks play (every variant of the book)
    variants: ClassVar[Sequence[Mapping[str, Any]]] = ({},)
    #: each phase (named by ``phase(state)``) and the move types it allows
    phases: ClassVar[Mapping[str, Phase]]
    #: the state's keys, types and visibility, declared once; ``view`` and ``sample_state`` are built from it
    shape: ClassVar[Shape]
    #: what ``present`` adds to a view: view path -> type, as ``shape.Custom.shows`` (the view's wire schema is
    #: derived from the shape and this)
    presents: ClassVar[Mapping[str, Any]] = {}

    # -- the contract -------------------------------------------------------------------
    def setup(self, players: int, options: Mapping[str, Any], rng: random.Random) -> State:
        raise NotImplementedError

    def opening(self, players: int, options: Mapping[str, Any], rng: random.Random) -> tuple[State, list[dict]]:
        """``setup`` and the events it gives rise to (a start roll, a first look into envelopes).

        The referee calls this one, so seats learn of the deal as of any move; games whose setup
        shows nothing need not override it.
        """
        return self.setup(players, options, rng), []

    def to_act(self, state: State) -> list[Seat]:
        raise NotImplementedError

    def legal_moves(self, state: State, seat: Seat) -> list[Move]:
        raise NotImplementedError

    def phase(self, state: State) -> str:
        """The name of the phase the match is in (a key of ``phases``)."""
        return state["phase"]

    def apply(self, state: State, seat: Seat, move: Move, rng: random.Random) -> list[dict]:
        """Validate and apply in place; on ``GameError`` the state is untouched.

        The match being over, a seat that owes no decision and a move type the phase does not
        allow are refused here, once for every game; the phase's method checks the rest.
        """
        if seat not in self.to_act(state):  # nobody is to act once the match is over (the conformance suite)
            if self.is_over(state):
                raise IllegalMove("The match is over.", "match_over")
            raise IllegalMove("It is not your turn.", "not_your_turn")
        name = self.phase(state)
        method = self._dispatch[name].get(move["type"])
        if method is None:
            raise IllegalMove(f"Not now: {self.phases[name].hint}", NOT_NOW)
        return method(state, seat, move, rng)

    @functools.cached_property
    def _dispatch(self) -> dict[str, dict[str, Callable[[State, Seat, Move, random.Random], list[dict]]]]:
        """Each phase's moves with their methods bound, resolved once rather than on every move."""
        return {name: {kind: getattr(self, method) if isinstance(method, str) else method
                       for kind, method in phase.moves.items()}
                for name, phase in self.phases.items()}

    def view(self, state: State, seat: Seat | None) -> dict:
        """What ``seat`` (None: a spectator) may see: the declared shape's view and what ``present`` adds."""
        view = self.shape.view(state, seat, self.is_over(state))
        self.present(view, state, seat)
        return view

    def present(self, view: dict, state: State, seat: Seat | None) -> None:
        """Add to a view what it derives from the state for presentation only (never read back)."""

    def is_over(self, state: State) -> bool:
        raise NotImplementedError

    def final_result(self, state: State) -> Outcome:
        raise NotImplementedError

    def sample_state(self, view: dict, seat: Seat, rng: random.Random) -> State:
        """A full state consistent with ``seat``'s view (for search): what the view shows read back by the
        declared shape, the rest dealt by ``deal``."""
        state = self.shape.read(view, seat)
        self.deal(state, view, seat, rng)
        return state

    def deal(self, state: State, view: dict, seat: Seat, rng: random.Random) -> None:
        """Fill into a sample what ``seat`` cannot see: the keys the shape declares hidden, others' own entries."""

    # -- shared helpers -----------------------------------------------------------------
    def load_options(self, players: int, options: Mapping[str, Any] | None) -> dict:
        """Options with defaults filled in; raises InvalidOptions with a readable reason."""
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                f"{self.title} takes {self.min_players} to {self.max_players} players, not {players}."
            )
        try:
            loaded = self.Options().load(dict(options or {}))
        except ValidationError as exc:
            raise InvalidOptions(f"Invalid options: {exc.messages}") from None
        where = coerced(dict(options or {}), loaded)
        if where is not None:
            raise InvalidOptions(f"Invalid options: {{{where!r}: ['Not a valid {where_type(loaded, where)}.']}}")
        first = loaded.get("first_seat")
        if first is not None and first >= players:
            raise InvalidOptions(f"first_seat must be below the number of players ({players}).")
        return loaded

    def first_seat(self, players: int, options: Mapping[str, Any], rng: random.Random) -> Seat:
        first = options.get("first_seat")
        return rng.randrange(players) if first is None else first

    def parse_move(self, move: Any) -> Move:
        """Check a move's shape against its schema; the rules check comes in ``apply``."""
        if not isinstance(move, dict):
            raise InvalidMove("A move is a JSON object with a 'type'.")
        kind = move.get("type")
        schema = self._move_schema(kind) if isinstance(kind, str) else None
        if schema is None:
            raise InvalidMove(f"Unknown move type {kind!r}; {self.title} has {sorted(self.moves)}.")
        body = {k: v for k, v in move.items() if k != "type"}
        try:
            loaded = schema.load(body)
        except ValidationError as exc:
            raise InvalidMove(f"Invalid {kind!r} move: {exc.messages}") from None
        where = coerced(body, loaded)
        if where is not None:
            raise InvalidMove(f"Invalid {kind!r} move: {{{where!r}: ['Not a valid {where_type(loaded, where)}.']}}")
        return {"type": kind, **loaded}

    def _move_schema(self, kind: str) -> Schema | None:
        """One schema instance per move type, built once (building one costs more than loading)."""
        cache = self.__dict__.setdefault("_move_schemas", {})
        if kind not in cache:
            cls = self.moves.get(kind)
            cache[kind] = cls() if cls is not None else None
        return cache[kind]


def coerced(raw: Any, loaded: Any, path: str = "") -> str | None:
    """Where marshmallow's lenient fields turned a value of another JSON type into a boolean or a number (``0`` or
    ``"yes"`` into a Boolean, ``"3"`` or ``0.5`` into an Integer, ``"1.5"`` into a Float): the path of the first,
    else None.  The document says ``boolean``, ``integer``, ``number``, and a client generated from it is refused
    anything else, alike in a move, in options and in the referee's own fields.  (A JSON number whose fraction
    is zero is an integer already: the API's parser reads ``2.0`` as 2, as JSON Schema does.)"""
    if isinstance(loaded, bool):
        return None if isinstance(raw, bool) else path or "value"
    if isinstance(loaded, (int, float)):
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or (isinstance(loaded, int) and raw != loaded):
            return path or "value"
        return None
    if isinstance(raw, dict) and isinstance(loaded, dict):
        found = (coerced(raw[k], loaded[k], f"{path}.{k}" if path else k) for k in raw.keys() & loaded.keys())
        return next((w for w in found if w is not None), None)
    if isinstance(raw, list) and isinstance(loaded, list):
        found = (coerced(a, b, f"{path}[{i}]") for i, (a, b) in enumerate(zip(raw, loaded)))
        return next((w for w in found if w is not None), None)
    return None


def where_type(loaded: Any, path: str) -> str:
    """The JSON type the value at ``path`` (as ``coerced`` names it) should have had."""
    for part in path.replace("[", ".[").split("."):
        if part.startswith("["):
            loaded = loaded[int(part[1:-1])]
        elif isinstance(loaded, dict) and part in loaded:
            loaded = loaded[part]
    return "boolean" if isinstance(loaded, bool) else "integer" if isinstance(loaded, int) else "number"


def safe_default(moves: Sequence[Move], prefer: Sequence[str] = ()) -> Move:
    """The move a seat makes when its clock runs out or it has left the table: the first legal move
    of the first type in ``prefer`` (a pass, a decline: giving nothing away), else the first legal
    move; a numeric choice takes its smallest value."""
    for kind in prefer:
        for move in moves:
            if move["type"] == kind:
                return {k: v["min"] if is_span(v) else v for k, v in move.items()}
    return {k: v["min"] if is_span(v) else v for k, v in moves[0].items()}


def copy_json(value: Any) -> Any:
    """A deep copy of plain JSON data, much faster than ``copy.deepcopy`` (a view must not share lists with the
    state a search then plays on)."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value
