"""The typed contract: every game's moves, legal moves, events, views and results as OpenAPI schemas.

Answers that depend on the match's game are one schema per game, chosen by the answer's ``game``
(``ByGame``, documented as a ``oneOf`` with a discriminator); inside them, moves and events are unions
chosen by their ``type`` (``Tagged``).  Each schema is built here once from the game's own ``Options``
and ``moves``, its ``Wire`` (on its Plugin) and the view schema derived from its ``Shape``
(``service/games/wire.py``), so the document, the generated clients and the dump check under ``app.testing``
all read the same declarations.

To declare a new event or field: a game's event goes in its Wire, a view field in its Shape; an event of the
referee's own goes in ``_referee_events`` below; a field of an answer goes on its schema in the blueprint.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from apispec import APISpec
from marshmallow import Schema, ValidationError, fields, validate

from service.games import GAMES, PLUGINS, Game
from service.games.wire import AnyBreakdown, Span, Wire, view_schema


def camel(name: str) -> str:
    return "".join(part.title() for part in name.split("_"))


def ref(name: str) -> str:
    return f"#/components/schemas/{name}"


def const(value: str) -> fields.String:
    """A field that always holds ``value`` (the tag of a union member)."""
    return fields.String(required=True, validate=validate.OneOf([value]))


class Seed(fields.Raw):
    """An integer or a string."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool) or not isinstance(value, (int, str)) or len(str(value)) > 100:
            raise ValidationError("A seed is an integer or a string of at most 100 characters.")
        return value


def seed_field(**kwargs) -> Seed:
    choices = [{"type": "integer", "minimum": -(2**63), "maximum": 2**64 - 1}, {"type": "string", "maxLength": 100}]
    return Seed(metadata={"oneOf": choices, **kwargs.pop("metadata", {})}, **kwargs)


class Tagged(fields.Field):
    """One of several schemas, chosen by the value's ``key`` field: a discriminated union.

    Dumping goes through the chosen schema, so an undeclared key or an unknown tag is caught by
    the dump check; the document shows a ``oneOf`` with a discriminator, named ``name``.
    """

    def __init__(self, name: str, key: str, choices: Mapping[str, type[Schema]], **kwargs) -> None:
        super().__init__(**kwargs)
        self.name, self.key, self.choices = name, key, dict(choices)
        self._instances: dict[str, Schema] = {}

    def _serialize(self, value, attr, obj, **kwargs):
        if value is None:
            return None
        tag = value.get(self.key) if isinstance(value, Mapping) else None
        if tag not in self.choices:
            raise ValueError(f"{self.name}: no schema for {self.key}={tag!r}")
        schema = self._instances.get(tag)
        if schema is None:
            schema = self._instances[tag] = self.choices[tag]()
        return schema.dump(value)

    def document(self, spec: APISpec, resolve: Callable[[type[Schema]], dict]) -> dict:
        if self.name not in spec.components.schemas:
            refs = {tag: resolve(schema)["$ref"] for tag, schema in self.choices.items()}
            spec.components.schema(self.name, component={
                "oneOf": [{"$ref": r} for r in dict.fromkeys(refs.values())],
                "discriminator": {"propertyName": self.key, "mapping": refs},
            })
        return {"$ref": ref(self.name)}


def tagged_property(self, field: fields.Field, **kwargs: Any) -> dict:
    """apispec attribute function (bound to its OpenAPIConverter): document a Tagged field."""
    if isinstance(field, Tagged):
        return field.document(self.spec, self.resolve_nested_schema)
    return {}


class ByGame:
    """An answer (or body) that is one schema per game, chosen by its ``key`` field (the game's name)."""

    def __init__(self, schemas: Mapping[str, type[Schema]], key: str = "game") -> None:
        self.schemas, self.key = dict(schemas), key
        self._instances = {game: schema() for game, schema in self.schemas.items()}

    def doc(self) -> dict:
        return {"oneOf": list(self.schemas.values()),
                "discriminator": {"propertyName": self.key,
                                  "mapping": {g: ref(s.__name__) for g, s in self.schemas.items()}}}

    def dumper(self, answer: Mapping) -> Schema:
        return self._instances[answer[self.key]]


def by_game(base: type[Schema], build: Callable[[Game, Wire], dict[str, fields.Field]], key: str = "game") -> ByGame:
    """``base`` specialised for each game: ``<Game><Base>`` with ``key`` fixed to the game's name and the fields
    ``build`` types."""
    return ByGame({
        name: type(f"{camel(name)}{base.__name__.removesuffix('Schema')}", (base,),
                   {key: const(name), **build(game, PLUGINS[name].wire)})
        for name, game in GAMES.items()}, key)


# -- moves ------------------------------------------------------------------------------------------
def _moves(game: Game) -> dict[str, type[Schema]]:
    """``<Game><Kind>Move``: the game's schema for each move type, with its ``type`` fixed."""
    return {kind: type(f"{camel(game.name)}{camel(kind)}Move", (schema,), {"type": const(kind)})
            for kind, schema in sorted(game.moves.items())}


def _legal_moves(game: Game, wire: Wire) -> dict[str, type[Schema]]:
    """``<Game><Kind>LegalMove`` where a field is given as a Span; otherwise the move itself."""
    out = {}
    for kind, move in MOVE_TYPES[game.name].items():
        ranged = wire.ranges.get(kind, ())
        if not ranged:
            out[kind] = move
            continue
        declared = move().fields
        spans = {f: fields.Nested(Span, required=declared[f].required) for f in ranged}
        out[kind] = type(f"{camel(game.name)}{camel(kind)}LegalMove", (move,), spans)
    return out


MOVE_TYPES = {name: _moves(game) for name, game in GAMES.items()}


def move_field(game: Game, **kwargs) -> Tagged:
    return Tagged(f"{camel(game.name)}Move", "type", MOVE_TYPES[game.name], **kwargs)


def legal_move_field(game: Game, wire: Wire, **kwargs) -> Tagged:
    return Tagged(f"{camel(game.name)}LegalMove", "type", _legal_moves(game, wire), **kwargs)


# -- results ----------------------------------------------------------------------------------------
class OutcomeSchema(Schema):
    scores = fields.List(fields.Integer(), required=True)
    ranking = fields.List(fields.List(fields.Integer()), required=True,
                          metadata={"description": "Places, best first; seats sharing a place tie."})
    winners = fields.List(fields.Integer(), required=True)
    forfeited = fields.List(fields.Integer(), required=True,
                            metadata={"description": "Seats that forfeited (timed out); they rank last."})
    breakdown = fields.List(fields.Dict(), required=True, metadata={"description": "Per seat: how the score arose."})
    seed = seed_field(required=True, metadata={"description": "The match seed, revealed at the end."})


def outcome_fields(game: Game, wire: Wire) -> dict[str, fields.Field]:
    return {"scores": fields.List(wire.score(), required=True),
            "breakdown": fields.List(fields.Nested(wire.breakdown or AnyBreakdown), required=True,
                                     metadata={"description": "Per seat: how the score arose."})}


OUTCOMES = {name: type(f"{camel(name)}Outcome", (OutcomeSchema,), outcome_fields(game, PLUGINS[name].wire))
            for name, game in GAMES.items()}


# -- events -----------------------------------------------------------------------------------------
class EventSchema(Schema):
    seq = fields.Integer(required=True, metadata={"description": "Position in the match's event log."})
    version = fields.Integer(required=True, metadata={"description": "The match version this event belongs to."})
    type = fields.String(required=True)
    data = fields.Dict(required=True)


class MovedData(Schema):
    seat = fields.Integer(required=True)


class MatchCreatedData(Schema):
    game = fields.String(required=True)
    players = fields.Integer(required=True)


class MatchStartedData(Schema):
    to_act = fields.List(fields.Integer(), required=True)


class SeatJoinedData(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)


class SeatNamedData(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, metadata={"description": "The name the seat's holder gave it."})
    before = fields.String(required=True, allow_none=True, metadata={"description": "The seat's name until then."})


class NoData(Schema):
    pass


class TimeoutData(Schema):
    seat = fields.Integer(required=True)
    action = fields.String(required=True, metadata={"enum": ["bot", "default", "forfeit"]})
    deadline = fields.Float(required=True, metadata={"description": "The deadline that passed (Unix seconds)."})
    at = fields.Float(required=True, metadata={"description": "When the timeout fired (Unix seconds)."})


class ForfeitData(Schema):
    seat = fields.Integer(required=True)
    reason = fields.String(required=True, metadata={
        "enum": ["invalid_move", "illegal_move"],
        "description": "The code the seat's move was refused with (the clock's on_illegal is forfeit)."})
    at = fields.Float(required=True, metadata={"description": "When the seat forfeited (Unix seconds)."})


class AwayData(Schema):
    seat = fields.Integer(required=True)
    bot = fields.String(required=True, metadata={"description": "The bot now playing the seat."})


class SeatData(Schema):
    seat = fields.Integer(required=True)


class RematchData(Schema):
    id = fields.String(required=True, metadata={"description": "The rematch's id."})


def _referee_events(game: Game) -> dict[str, type[Schema]]:
    """The referee's own events, typed for ``game`` where they carry its moves, options or result."""
    g = camel(game.name)
    return {
        "match_created": type(f"{g}MatchCreatedData", (MatchCreatedData,),
                              {"options": fields.Nested(game.Options, required=True)}),
        "seat_joined": SeatJoinedData,
        "seat_named": SeatNamedData,
        "match_started": MatchStartedData,
        "moved": type(f"{g}MovedData", (MovedData,), {"move": move_field(game, required=True)}),
        "match_scoring": NoData,
        "match_finished": OUTCOMES[game.name],
        "match_aborted": NoData,
        "timeout": TimeoutData,
        "forfeit": ForfeitData,
        "away": AwayData,
        "back": SeatData,
        "rematch": RematchData,
    }


def event_types(game: Game, wire: Wire) -> dict[str, type[Schema]]:
    """``<Game><Type>Event`` for every event a match of ``game`` can log: the referee's, then the game's."""
    own = _referee_events(game)
    clash = own.keys() & wire.events.keys()
    if clash:
        raise TypeError(f"{game.name} events {sorted(clash)} clash with the referee's own")
    return {kind: type(f"{camel(game.name)}{camel(kind)}Event", (EventSchema,),
                       {"type": const(kind), "data": fields.Nested(data, required=True)})
            for kind, data in {**own, **wire.events}.items()}


EVENT_TYPES = {name: event_types(game, PLUGINS[name].wire) for name, game in GAMES.items()}

#: ``<Game>View``: each game's view, derived from its Shape
VIEWS = {name: view_schema(game) for name, game in GAMES.items()}


def event_field(game: Game) -> Tagged:
    return Tagged(f"{camel(game.name)}Event", "type", EVENT_TYPES[game.name])
