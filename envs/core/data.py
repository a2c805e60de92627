"""Component data (tracks, decks, boards, tables) as JSON files beside each game, validated on load.

A schema is a small dict-of-types description, so a data file that a published component list
replaces is checked the same way:

    SCHEMA = {"rows": [{"lanes": [int], "rumble": bool}], "prizes": [int]}
    data = load_json(__file__, "track.json", SCHEMA)

Types: ``int``, ``float``, ``str``, ``bool``, ``dict`` (free-form), a nested dict (exact keys;
a key ending in ``?`` is optional) or a one-element list (every item of that shape).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .game import ConfigError


def _check(value: Any, schema: Any, where: str) -> None:
    if schema is Any:
        return
    if isinstance(schema, list):
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list, got {type(value).__name__}")
        for i, item in enumerate(value):
            _check(item, schema[0], f"{where}[{i}]")
        return
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected an object, got {type(value).__name__}")
        required = {k for k in schema if not k.endswith("?")}
        allowed = {k.rstrip("?") for k in schema}
        missing = sorted(required - set(value))
        if missing:
            raise ConfigError(f"{where}: missing key(s) {missing}")
        extra = sorted(set(value) - allowed)
        if extra:
            raise ConfigError(f"{where}: unknown key(s) {extra}; allowed: {sorted(allowed)}")
        for k, sub in schema.items():
            key = k.rstrip("?")
            if key in value:
                _check(value[key], sub, f"{where}.{key}")
        return
    if schema is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    elif schema is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, schema)
    if not ok:
        raise ConfigError(f"{where}: expected {schema.__name__}, got {value!r}")


def validate(data: Any, schema: Any, name: str = "data") -> Any:
    """Check ``data`` against ``schema``; raise ConfigError naming the first bad entry."""
    _check(data, schema, name)
    return data


def load_json(anchor: str | Path, filename: str, schema: Any = Any) -> Any:
    """Load ``filename`` from the folder of ``anchor`` (a module's ``__file__`` or a folder)
    or from an absolute path, and validate it."""
    base = Path(anchor)
    if base.is_file():
        base = base.parent
    path = Path(filename) if Path(filename).is_absolute() else base / filename
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"component data file not found: {path}") from None
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path.name}: not valid JSON ({e})") from None
    return validate(data, schema, path.name)
