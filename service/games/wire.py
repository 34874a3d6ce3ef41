"""Each game on the wire: the typed shapes of its view, its events' data and its result breakdown.

The rules modules build plain JSON; these marshmallow schemas say what that JSON is, for integrators
(the OpenAPI document types every view, legal move, event and result from them) and for the tests
(under ``app.testing`` every answer is dumped through them and must come out unchanged, so a key a
game adds without declaring it fails the suite).  The view's schema is not written again: ``view_schema``
derives it from the game's ``Shape`` (the state's TypedDict and each key's kind) and what its ``present``
hook adds (``Game.presents``).  A game's ``Wire`` sits on its ``Plugin`` (service/games/plugin.py).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, NotRequired, Required, Union, get_args, get_origin, get_type_hints

from marshmallow import Schema, fields, validate

from .shape import Column, Constraint, Custom, Hidden, Own, Public

if typing.TYPE_CHECKING:
    from .base import Game


class Span(Schema):
    """A numeric choice in a legal move, given once: every ``min + k*step`` up to ``max``."""

    min = fields.Integer(required=True)
    max = fields.Integer(required=True)
    step = fields.Integer(required=True)


class AnyBreakdown(Schema):
    """A seat's breakdown of a game that does not type it."""

    class Meta:
        unknown = "include"


@dataclass(frozen=True)
class Wire:
    """One game's wire types (its ``Options`` and ``moves`` schemas live on the game itself)."""

    #: event type -> the schema of that event's ``data`` (the referee's own events are typed in service/api)
    events: Mapping[str, type[Schema]] = field(default_factory=dict)
    #: one seat's entry in the result's ``breakdown``
    breakdown: type[Schema] | None = None
    #: move type -> the fields that its legal moves give as a Span instead of a number
    ranges: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: how a score is written (Dice Party scores rounds and tie-breaks as fractions)
    score: type[fields.Field] = fields.Integer


# -- the view, derived from the Shape ------------------------------------------------------------------
ONLY_AT_END = "Only once the match is over."


def camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


#: the schemas derived so far, one per (game, TypedDict or record): a wire module's event that holds a card
#: and the view that shows one share one ``<Game>Card`` (``schema_of``)
_DERIVED: dict[tuple[str, Any], type[Schema]] = {}


class _Deriver:
    """Builds marshmallow fields from JSON type annotations, one named schema per TypedDict;
    ``Annotated[T, "text"]`` describes a field, ``Annotated[T, Constraint(...)]`` constrains it."""

    def __init__(self, game_name: str) -> None:
        self.game = game_name
        self.prefix = camel(game_name)

    def name(self, base: str) -> str:
        return base if base.startswith(self.prefix) else f"{self.prefix}{base}"

    def field(self, tp: Any, required: bool = True, description: str | None = None,
              hint: str = "Record") -> fields.Field:
        kw: dict[str, Any] = {"required": True} if required else {}
        if description:
            kw["metadata"] = {"description": description}
        origin, args = get_origin(tp), get_args(tp)
        if origin is Annotated:  # a string describes the field, a Constraint adds to its JSON Schema
            docs = [a for a in args[1:] if isinstance(a, str)]
            made = self.field(args[0], required, docs[0] if docs else description, hint)
            for extra in args[1:]:
                if isinstance(extra, Constraint):
                    made.metadata = {**made.metadata, **dict(extra)}
            return made
        if origin in (NotRequired, Required):
            return self.field(args[0], required, description, hint)
        if origin in (Union, types.UnionType) and type(None) in args:
            rest = [a for a in args if a is not type(None)]
            inner = rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007
            made = self.field(inner, required, description, hint)
            made.allow_none = True
            return made
        if isinstance(tp, type) and issubclass(tp, Schema):  # a record no TypedDict of the state describes
            return fields.Nested(tp, **kw)
        if tp in _SCALARS:
            return _SCALARS[tp](**kw)
        if origin is Literal:
            kind = fields.Integer if all(type(a) is int for a in args) else fields.String
            return kind(validate=validate.OneOf(list(args)), **kw)
        if origin is list:
            return fields.List(self.field(args[0], hint=hint), **kw)
        if origin is dict:
            return fields.Dict(keys=self.field(args[0], False), values=self.field(args[1], hint=hint), **kw)
        if typing.is_typeddict(tp):
            return fields.Nested(self.typeddict(tp), **kw)
        return fields.Raw(**kw)

    def typeddict(self, td: type) -> type[Schema]:
        key = (self.game, td)
        if key not in _DERIVED:
            hints = get_type_hints(td, include_extras=True)
            optional = {k for k, t in hints.items() if get_origin(t) is NotRequired
                        or (not td.__total__ and get_origin(t) is not Required)}
            attrs: dict[str, Any] = {k: self.field(t, k not in optional, hint=camel(k)) for k, t in hints.items()}
            doc = td.__doc__ if td.__doc__ and not td.__doc__.startswith(f"{td.__name__}(") else None
            _DERIVED[key] = type(self.name(td.__name__), (Schema,), {**attrs, "__doc__": doc})
        return _DERIVED[key]


_SCALARS: dict[Any, type[fields.Field]] = {bool: fields.Boolean, int: fields.Integer, float: fields.Float,
                                           str: fields.String, Any: fields.Raw}


def schema_of(td: type, game: str) -> type[Schema]:
    """``<Game><Name>``: the schema of a TypedDict of ``game``'s, the same one its view uses."""
    return _Deriver(game).typeddict(td)


def _element(tp: Any) -> Any:
    """The type of one entry of a list type (through ``| None`` and ``Annotated``)."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _element(args[0])
    if origin is list:
        return args[0]
    raise TypeError(f"{tp} is not a list type: declare what the view shows with shown=")


def _singular(name: str) -> str:
    """A table's record is named after one of its rows: ``Celebrities`` -> ``Celebrity``."""
    return name[:-3] + "y" if name.endswith("ies") else name.removesuffix("s")


def _label_type(values: list[Any]) -> Any:
    """A fixed field of a table's records: one of its names (strings), else its type."""
    named = [v for v in values if v is not None]
    if named and all(type(v) is str for v in named):
        choices = Literal[tuple(dict.fromkeys(named))]
        return choices | None if None in values else choices
    kinds = {type(v) for v in values}
    return kinds.pop() if len(kinds) == 1 else Any


def view_schema(game: Game) -> type[Schema]:
    """``<Game>View``: the schema of a seat's view, from the game's Shape (and ``Game.presents``).

    A key is typed as the state declares it unless its kind says what the view ``shown`` instead; a per-seat
    ``Own`` entry may be null (a spectator's view); what only the end reveals is optional."""
    d = _Deriver(game.name)
    shape = game.shape
    hints = get_type_hints(shape.of, include_extras=True)
    tree: dict[str, Any] = {}

    def put(path: str, made: fields.Field) -> None:
        parts = path.split(".")
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = made

    tables: dict[int, tuple[Any, dict[str, fields.Field]]] = {}
    row_fields: dict[str, dict[str, fields.Field]] = {}

    def shows(declared: Mapping[str, Any]) -> None:
        """What a Custom kind or ``present`` writes: view paths ("auction.passed", "accounts[].cash": a field
        of each record of a table) and their types (``NotRequired[...]``: not always written)."""
        for at, tp in declared.items():
            made = d.field(tp, get_origin(tp) is not NotRequired, hint=camel(at.split(".")[-1]))
            if "[]." in at:
                at, name = at.split("[].")
                row_fields.setdefault(at, {})[name] = made
            else:
                put(at, made)

    for key, kind in shape.keys.items():
        tp = hints[key]
        if isinstance(kind, Public):
            put(kind.at or key, d.field(kind.shown if kind.shown is not None else tp, hint=camel(key)))
        elif isinstance(kind, Column):
            rows = kind.rows
            if id(rows) not in tables:
                labels = {name: d.field(_label_type([lab[name] for lab in rows.labels]))
                          for name in (rows.labels[0] if rows.labels else {})}
                tables[id(rows)] = (rows, labels)
            tables[id(rows)][1][kind.field] = d.field(kind.shown if kind.shown is not None else _element(tp),
                                                      hint=camel(kind.field))
        elif isinstance(kind, Own):
            entry = kind.shown if kind.shown is not None else _element(tp)
            made = d.field(entry, hint=camel(key))
            made.allow_none = True
            put(kind.at, made)
            if kind.count is not None:
                put(kind.count, fields.List(fields.Integer(), required=True))
            if kind.reveal is not None:
                put(kind.reveal, fields.List(d.field(entry, hint=camel(key)), metadata={"description": ONLY_AT_END}))
        elif isinstance(kind, Hidden):
            if kind.count is not None:
                put(kind.count, fields.Integer(required=True))
            if kind.reveal is not None:
                put(kind.reveal, d.field(kind.shown if kind.shown is not None else tp, False, ONLY_AT_END, camel(key)))
        elif isinstance(kind, Custom):
            shows(kind.shows or {})
    shows(getattr(game, "presents", None) or {})
    for rows, columns in tables.values():
        columns.update(row_fields.get(rows.at, {}))
        record = type(d.name(_singular(camel(rows.at.split(".")[-1]))), (Schema,), columns)
        put(rows.at, fields.List(fields.Nested(record), required=True))
    put("you", fields.Integer(required=True, allow_none=True))

    def build(name: str, node: dict[str, Any]) -> type[Schema]:
        attrs = {k: fields.Nested(build(camel(k), v), required=True) if isinstance(v, dict) else v
                 for k, v in node.items()}
        return type(d.name(name), (Schema,), attrs)

    return build("View", tree)


__all__ = ["AnyBreakdown", "Span", "Wire", "schema_of", "view_schema"]
