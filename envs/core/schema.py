"""Declarative schemas for untrusted JSON (saved states, records): types, ranges and sizes.

A game declares the schema of its saved state once (``Game.state_schema(num_players)``), built
from the small vocabulary below; :meth:`Game.state_from_dict` checks a dict against it *before*
anything is built from it, so a damaged or hostile dict is refused with a :class:`StateError`
that names the field (``state field 'loc[3]': expected an int in 0..57, got 99``) instead of a raw
``KeyError``/``IndexError`` later. Sizes are checked before items, so a size bomb costs nothing.

    Dict({"turn": Int(0, 99), "hand": List(Int(0, 51), max_len=52), "phase": Str(("bid", "race"))})

Every check is exact: unknown keys are refused, ``bool`` is not an ``int``, ``1.0`` is not an
``int``. Consistency between fields (counts, positions, seats) is the game's ``check_invariants``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import StateError


def _show(value: Any) -> str:
    if isinstance(value, (list, dict, str)) and len(value) > 20:  # never repr a size bomb
        return f"<{type(value).__name__} of {len(value)} items>"
    r = repr(value)
    return r if len(r) <= 60 else r[:57] + "..."


class Spec:
    """One node of a schema; ``check(value, path)`` raises StateError or returns None."""

    def check(self, value: Any, path: str) -> None:  # pragma: no cover - interface
        raise NotImplementedError

    def fail(self, path: str, want: str, value: Any) -> StateError:
        return StateError(f"state field {path!r}: expected {want}, got {_show(value)}")


class Int(Spec):
    """An int (never a bool or float) in ``lo..hi`` inclusive."""

    def __init__(self, lo: int, hi: int):
        self.lo, self.hi = int(lo), int(hi)

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not int or not self.lo <= value <= self.hi:
            raise self.fail(path, f"an int in {self.lo}..{self.hi}", value)


class Bool(Spec):
    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not bool:
            raise self.fail(path, "true or false", value)


class Float(Spec):
    """A finite number (int or float, never a bool) in ``lo..hi``."""

    def __init__(self, lo: float, hi: float):
        self.lo, self.hi = lo, hi

    def check(self, value: Any, path: str) -> None:
        if value.__class__ not in (int, float) or not self.lo <= value <= self.hi:
            raise self.fail(path, f"a number in {self.lo}..{self.hi}", value)


class Str(Spec):
    """A string, one of ``choices`` when given (else at most ``max_len`` characters)."""

    def __init__(self, choices: Iterable[str] | None = None, max_len: int = 200):
        self.choices = tuple(choices) if choices is not None else None
        self.max_len = max_len

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not str:
            raise self.fail(path, "a string", value)
        if self.choices is not None and value not in self.choices:
            raise self.fail(path, f"one of {list(self.choices)}", value)
        if len(value) > self.max_len:
            raise self.fail(path, f"at most {self.max_len} characters", value)


class Const(Spec):
    """Exactly ``value`` (same type)."""

    def __init__(self, value: Any):
        self.value = value

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not self.value.__class__ or value != self.value:
            raise self.fail(path, _show(self.value), value)


class Nullable(Spec):
    """``None`` or ``inner``."""

    def __init__(self, inner: Spec):
        self.inner = inner

    def check(self, value: Any, path: str) -> None:
        if value is not None:
            self.inner.check(value, path)


class OneOf(Spec):
    """The first of ``options`` that accepts the value (for fields that hold one of a few shapes)."""

    def __init__(self, *options: Spec):
        self.options = options

    def check(self, value: Any, path: str) -> None:
        errors = []
        for o in self.options:
            try:
                o.check(value, path)
                return
            except StateError as e:
                errors.append(str(e).split(": expected ", 1)[-1])
        raise StateError(f"state field {path!r}: expected one of: " + "; or ".join(errors))


class List(Spec):
    """A JSON list of ``item``; its length is checked first (``length`` exact, else
    ``min_len..max_len``). ``unique`` refuses repeated items (for sets saved as lists)."""

    def __init__(
        self,
        item: Spec,
        max_len: int | None = None,
        min_len: int = 0,
        length: int | None = None,
        unique: bool = False,
        sorted_: bool = False,
    ):
        if length is not None:
            min_len = max_len = length
        if max_len is None:
            raise ValueError("List needs max_len or length: sizes are always bounded")
        self.item, self.min_len, self.max_len = item, int(min_len), int(max_len)
        self.unique, self.sorted = unique, sorted_

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not list:
            raise self.fail(path, "a list", value)
        n = len(value)
        if not self.min_len <= n <= self.max_len:
            want = f"{self.min_len}" if self.min_len == self.max_len else f"{self.min_len}..{self.max_len}"
            raise StateError(f"state field {path!r}: expected a list of {want} items, got {n}")
        item = self.item
        for i, v in enumerate(value):
            item.check(v, f"{path}[{i}]")
        if self.unique and len(set(map(_key, value))) != n:
            raise StateError(f"state field {path!r}: items must be distinct")
        if self.sorted and any(value[i] > value[i + 1] for i in range(n - 1)):
            raise StateError(f"state field {path!r}: items must be in ascending order")


def _key(v: Any) -> Any:
    return tuple(map(_key, v)) if isinstance(v, list) else v


class Tuple(Spec):
    """A JSON list of fixed length whose items have their own specs."""

    def __init__(self, *items: Spec):
        self.items = items

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not list or len(value) != len(self.items):
            raise self.fail(path, f"a list of {len(self.items)} items", value)
        for i, (spec, v) in enumerate(zip(self.items, value)):
            spec.check(v, f"{path}[{i}]")


class Dict(Spec):
    """A JSON object with exactly the keys of ``fields`` (those in ``optional`` may be absent)."""

    def __init__(self, fields: Mapping[str, Spec], optional: Iterable[str] = ()):
        self.fields = dict(fields)
        self.optional = frozenset(optional)

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not dict:
            raise self.fail(path, "an object", value)
        unknown = [k for k in value if k not in self.fields]
        if unknown:
            raise StateError(f"state field {path!r}: unknown key(s) {sorted(map(str, unknown))[:5]}")
        for k, spec in self.fields.items():
            sub = f"{path}.{k}" if path else k
            if k not in value:
                if k in self.optional:
                    continue
                raise StateError(f"state field {sub!r} is missing")
            spec.check(value[k], sub)


class Map(Spec):
    """A JSON object with string keys (``keys`` spec) and values of one spec; size bounded."""

    def __init__(self, keys: Spec, values: Spec, max_len: int):
        self.keys, self.values, self.max_len = keys, values, max_len

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not dict:
            raise self.fail(path, "an object", value)
        if len(value) > self.max_len:
            raise StateError(f"state field {path!r}: expected at most {self.max_len} entries, got {len(value)}")
        for k, v in value.items():
            self.keys.check(k, f"{path}<key>")
            self.values.check(v, f"{path}.{k}")


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Path of the first place where two JSON values differ (None when equal)."""
    if a.__class__ is not b.__class__:
        return path or "<root>"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}" if path else str(k)
            d = first_difference(a[k], b[k], f"{path}.{k}" if path else str(k))
            if d is not None:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return path
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d is not None:
                return d
        return None
    return None if a == b else (path or "<root>")
