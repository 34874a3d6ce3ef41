"""A game's state declared once: its keys and their types (a TypedDict), and how the seats see each key.

A rules module keeps its state a plain JSON dict (the referee stores JSON).  Its ``Shape`` names every
key of its TypedDict exactly once, with one of a few kinds saying where the key shows in a view and how
it is read back from one, so that ``Game.view`` and ``Game.sample_state`` are built from the declaration
rather than written out by hand, and a test can check any state against the declared types:

- ``Public``: everyone sees it, at a view path (dotted when nested), through ``show``; ``read`` reads it back;
- ``Column``: one field of a list of records in the view (``Rows``), one record per index of the key's list;
- ``Own``: a per-seat list of which a seat sees only its own entry;
- ``Hidden``: nobody sees it before the match is over (the view may show its size);
- ``Custom``: the escape hatch for the rare presentation none of these describes.

What a seat cannot see (``Own`` entries of others, ``Hidden`` keys, a ``Custom`` without ``take``) the
game's ``deal`` hook fills into a sample; what a view derives from the state for presentation only
(totals, points tables) the game's ``present`` hook adds.  The declaration is compiled into plain lists
per kind when the module loads: a view or a sample does no introspection.  Pure: no I/O.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

Encode = Callable[[Any], Any]


@dataclass(frozen=True)
class Public:
    """Everyone sees the key at ``at`` (default its name; ``"auction.high_bid"`` nests), as ``show(value)``;
    ``read`` turns that back into the state's value.  Either left out means the value as it is."""

    at: str | None = None
    show: Encode | None = None
    read: Encode | None = None
    #: the type of what the view shows, when ``show`` changes it (the wire schema is derived from it)
    shown: Any = None


@dataclass(frozen=True, eq=False)
class Rows:
    """A list of records at view path ``at``, one per index of the per-index state lists declared as its
    ``Column``s: ``labels[i]`` are index i's fixed fields (names and values from the rulebook),
    ``select(state)`` the indices shown (default all, in order), ``index(record)`` an index back from its
    record (default its place in the list, so needed with ``select``)."""

    at: str
    labels: Sequence[Mapping[str, Any]]
    select: Callable[[Mapping[str, Any]], Sequence[int]] | None = None
    index: Callable[[Mapping[str, Any]], int] | None = None


@dataclass(frozen=True)
class Column:
    """Everyone sees entry i of the key's list as field ``field`` of the record of index i in ``rows``.
    ``show`` maps the whole list to the fields' values and ``read`` those back (index by index, one call
    per view); ``absent`` is the field's value for an index that has no record."""

    rows: Rows
    field: str
    show: Encode | None = None
    read: Encode | None = None
    absent: Any = None
    #: the type of one record's field, when ``show`` changes it
    shown: Any = None


@dataclass(frozen=True)
class Own:
    """A per-seat list: a seat sees only its own entry, at ``at`` (a spectator sees None); ``count``, if
    given, shows every entry's size, and ``reveal`` every entry once the match is over.  A sample holds the
    seat's own entry; the game's ``deal`` hook fills the others (one entry per seat, the state's ``players``)."""

    at: str
    show: Encode | None = None
    read: Encode | None = None
    count: str | None = None
    reveal: str | None = None
    #: the type of what the view shows of one entry, when ``show`` changes it
    shown: Any = None


@dataclass(frozen=True)
class Hidden:
    """Nobody sees the key before the match is over: the view shows its size at ``count`` and, at the end,
    ``show(value)`` at ``reveal`` (each if given).  The game's ``deal`` hook deals it anew in a sample."""

    count: str | None = None
    reveal: str | None = None
    show: Encode | None = None
    #: the type of what the view reveals at the end, when ``show`` changes it
    shown: Any = None


@dataclass(frozen=True)
class Custom:
    """A presentation no other kind describes: ``put(view, state, seat)`` writes the key into a view (after
    the other kinds, so it may add to their records; left out, the view shows it only through other keys),
    ``take(view, seat)`` reads the state's value back (left out, the game's ``deal`` hook fills it)."""

    put: Callable[[dict, Mapping[str, Any], int | None], None] | None = None
    take: Callable[[Mapping[str, Any], int], Any] | None = None
    #: the view keys ``put`` writes and their types (``NotRequired[...]``: not always written)
    shows: Mapping[str, Any] | None = None


Kind = Public | Column | Own | Hidden | Custom


class Constraint(tuple):
    """JSON Schema keywords for a value, in ``Annotated[T, Constraint(pattern=...)]`` (a string there
    describes the value): the wire schema, derived from the annotations, carries them."""

    def __new__(cls, **keywords: Any) -> Constraint:
        return super().__new__(cls, tuple(sorted(keywords.items())))


class Shape:
    """One game's state: the TypedDict ``of`` and each of its keys' ``Kind``, compiled into a view builder,
    a view reader and a type check."""

    def __init__(self, of: type, **keys: Kind) -> None:
        expected = of.__required_keys__ | of.__optional_keys__
        if keys.keys() != expected:
            raise TypeError(f"{of.__name__}: declare every key once; missing {sorted(expected - keys.keys())}, "
                            f"unknown {sorted(keys.keys() - expected)}")
        self.of = of
        #: the declaration as given (the wire schema of the view is derived from it)
        self.keys: dict[str, Kind] = dict(keys)
        #: Public keys: shown as they are, encoded, or at a nested path; read the same ways
        self._same: list[tuple[str, str]] = []
        self._shown: list[tuple[str, str, Encode]] = []
        self._nested: list[tuple[str, tuple[str, ...], Encode | None]] = []
        self._taken_same: list[tuple[str, str]] = []
        self._taken_read: list[tuple[str, str, Encode]] = []
        self._taken_nested: list[tuple[str, tuple[str, ...], Encode | None]] = []
        #: per Rows: its path, all indices, and its Columns (key, field, show, read, absent)
        self._tables: list[tuple[Rows, tuple[str, ...], range, list[tuple[str, str, Encode | None, Encode | None,
                                                                             Any]]]] = []
        self._own: list[tuple[str, str, Encode | None, Encode | None, str | None, str | None]] = []
        self._hidden: list[tuple[str, str | None, str | None, Encode | None]] = []
        self._puts: list[Callable[[dict, Mapping[str, Any], int | None], None]] = []
        self._takes: list[tuple[str, Callable[[Mapping[str, Any], int], Any]]] = []
        for key, kind in keys.items():
            if isinstance(kind, Public):
                path = tuple((kind.at or key).split("."))
                if len(path) > 1:
                    self._nested.append((key, path, kind.show))
                    self._taken_nested.append((key, path, kind.read))
                    continue
                if kind.show is None:
                    self._same.append((key, path[0]))
                else:
                    self._shown.append((key, path[0], kind.show))
                if kind.read is None:
                    self._taken_same.append((key, path[0]))
                else:
                    self._taken_read.append((key, path[0], kind.read))
            elif isinstance(kind, Column):
                table = next((t for t in self._tables if t[0] is kind.rows), None)
                if table is None:
                    rows = kind.rows
                    table = (rows, tuple(rows.at.split(".")), range(len(rows.labels)), [])
                    self._tables.append(table)
                table[3].append((key, kind.field, kind.show, kind.read, kind.absent))
            elif isinstance(kind, Own):
                self._own.append((key, kind.at, kind.show, kind.read, kind.count, kind.reveal))
            elif isinstance(kind, Hidden):
                self._hidden.append((key, kind.count, kind.reveal, kind.show))
            elif isinstance(kind, Custom):
                if kind.put is not None:
                    self._puts.append(kind.put)
                if kind.take is not None:
                    self._takes.append((key, kind.take))
            else:
                raise TypeError(f"{of.__name__}.{key}: {kind!r} is not a kind of shape.Kind")
        self._check: Callable[[Any], str | None] | None = None

    # -- the view --------------------------------------------------------------------------------
    def view(self, state: Mapping[str, Any], seat: int | None, over: bool) -> dict:
        """What ``seat`` (None: a spectator) sees of ``state``, everything once the match is ``over``."""
        v: dict[str, Any] = {"you": seat}
        for key, at in self._same:
            v[at] = state[key]
        for key, at, show in self._shown:
            v[at] = show(state[key])
        for key, path, show in self._nested:
            _put(v, path, state[key] if show is None else show(state[key]))
        for rows, path, every, columns in self._tables:
            shown = every if rows.select is None else rows.select(state)
            records = [dict(rows.labels[i]) for i in shown]
            for key, field, show, _, _ in columns:
                values = state[key] if show is None else show(state[key])
                for record, i in zip(records, shown):
                    record[field] = values[i]
            _put(v, path, records)
        for key, at, show, _, count, reveal in self._own:
            entries = state[key]
            v[at] = None if seat is None else entries[seat] if show is None else show(entries[seat])
            if count is not None:
                v[count] = [len(e) for e in entries]
            if over and reveal is not None:
                v[reveal] = list(entries) if show is None else [show(e) for e in entries]
        for key, count, reveal, show in self._hidden:
            if count is not None:
                v[count] = len(state[key])
            if over and reveal is not None:
                v[reveal] = state[key] if show is None else show(state[key])
        for put in self._puts:
            put(v, state, seat)
        return v

    # -- reading a view back -----------------------------------------------------------------------
    def read(self, view: Mapping[str, Any], seat: int) -> dict:
        """The part of a state that ``seat``'s view determines; the game's ``deal`` hook adds the rest."""
        state: dict[str, Any] = {key: view[at] for key, at in self._taken_same}
        for key, at, read in self._taken_read:
            state[key] = read(view[at])
        for key, path, read in self._taken_nested:
            state[key] = _get(view, path) if read is None else read(_get(view, path))
        for rows, path, every, columns in self._tables:
            records = _get(view, path)
            if rows.index is None:
                for key, field, _, read, _ in columns:
                    values = [r[field] for r in records]
                    state[key] = values if read is None else read(values)
                continue
            placed = [(key, field, read, [absent] * len(every)) for key, field, _, read, absent in columns]
            for record in records:
                i = rows.index(record)
                for _, field, _, values in placed:
                    values[i] = record[field]
            for key, _, read, values in placed:
                state[key] = values if read is None else read(values)
        for key, take in self._takes:
            state[key] = take(view, seat)
        for key, at, _, read, _, _ in self._own:
            entries = [None] * state["players"]
            entries[seat] = view[at] if read is None else read(view[at])
            state[key] = entries
        return state

    # -- the declared types --------------------------------------------------------------------------
    def check(self, state: Any) -> None:
        """Raise ValueError unless ``state`` has exactly the declared keys, each of its declared JSON type."""
        if self._check is None:
            self._check = _checker(self.of)
        problem = self._check(state)
        if problem is not None:
            raise ValueError(f"{self.of.__name__}{problem}")


def _put(view: dict, path: tuple[str, ...], value: Any) -> None:
    for name in path[:-1]:
        view = view.setdefault(name, {})
    view[path[-1]] = value


def _get(view: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    for name in path:
        view = view[name]
    return view


def _checker(tp: Any) -> Callable[[Any], str | None]:
    """A check of a value against a JSON type annotation: None when it conforms, else where and why not."""
    if get_origin(tp) is Annotated:  # a description for the wire schema: the type is the first argument
        return _checker(get_args(tp)[0])
    if tp is Any:
        return lambda v: None
    if tp is None or tp is type(None):
        return lambda v: None if v is None else f": expected null, got {v!r:.60}"
    if tp in (bool, int, str):  # exact types: True is no int here, as it is not in JSON Schema
        return lambda v: None if type(v) is tp else f": expected {tp.__name__}, got {v!r:.60}"
    if tp is float:
        return lambda v: None if type(v) in (int, float) else f": expected a number, got {v!r:.60}"
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return lambda v: None if v in args and type(v) in {type(a) for a in args} else f": expected one of {args}"
    if origin in (Union, types.UnionType):
        options = [_checker(a) for a in args]
        return lambda v: None if any(o(v) is None for o in options) else f": expected {tp}, got {v!r:.60}"
    if origin is list:
        item = _checker(args[0])

        def check_list(v: Any) -> str | None:
            if type(v) is not list:
                return f": expected a list, got {v!r:.60}"
            for i, x in enumerate(v):
                problem = item(x)
                if problem is not None:
                    return f"[{i}]{problem}"
            return None
        return check_list
    if origin is dict:
        key, value = _checker(args[0]), _checker(args[1])  # JSON keys are strings: str or a Literal of them

        def check_dict(v: Any) -> str | None:
            if type(v) is not dict:
                return f": expected an object, got {v!r:.60}"
            for k, x in v.items():
                problem = key(k) or value(x)
                if problem is not None:
                    return f"[{k!r}]{problem}"
            return None
        return check_dict
    if is_typeddict(tp):
        # read NotRequired from the hints: with postponed annotations, 3.11 counts every key as required
        hints = get_type_hints(tp, include_extras=True)
        optional = {k for k, t in hints.items() if get_origin(t) is NotRequired or (
            not tp.__total__ and get_origin(t) is not Required)}
        fields = {k: _checker(get_args(t)[0] if get_origin(t) in (NotRequired, Required) else t)
                  for k, t in hints.items()}
        required = hints.keys() - optional

        def check_typeddict(v: Any) -> str | None:
            if type(v) is not dict:
                return f": expected an object, got {v!r:.60}"
            if not required <= v.keys() <= fields.keys():
                return f": keys missing {sorted(required - v.keys())}, unknown {sorted(v.keys() - fields.keys())}"
            for k, x in v.items():
                problem = fields[k](x)
                if problem is not None:
                    return f".{k}{problem}"
            return None
        return check_typeddict
    raise TypeError(f"{tp} is not a JSON type")
