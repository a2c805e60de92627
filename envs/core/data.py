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
import re
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


_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")


def bundled(anchor: str | Path, kind: str) -> list[str]:
    """Names of the bundled component files of ``kind`` (``<game>/data/<kind>/<name>.json``)."""
    base = Path(anchor)
    if base.is_file():
        base = base.parent
    folder = base / "data" / kind
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def resolve_data(anchor: str | Path, kind: str, name_or_path: str, option: str | None = None) -> Path:
    """The one resolver for "a bundled name or a path" options (a track, a map, a deck).

    A bare name (lower-case letters, digits, ``_``) is a bundled file:
    ``<folder of anchor>/data/<kind>/<name>.json``. Anything else is a path to the user's own JSON
    file; a relative path is relative to the current working directory (as on a command line).

    Raises:
        ConfigError: naming the option, what was looked for and the bundled names.
    """
    what = option or kind
    if not isinstance(name_or_path, str) or not name_or_path:
        raise ConfigError(f"option {what}={name_or_path!r} must be a bundled name or a path to a .json file")
    if _NAME.match(name_or_path):
        base = Path(anchor)
        if base.is_file():
            base = base.parent
        path = base / "data" / kind / f"{name_or_path}.json"
        if not path.is_file():
            raise ConfigError(
                f"option {what}={name_or_path!r}: no bundled {kind} of that name; bundled: "
                f"{bundled(anchor, kind)} (or give a path to a .json file)"
            )
        return path
    path = Path(name_or_path).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    if not path.is_file():
        raise ConfigError(f"option {what}={name_or_path!r}: file not found ({path}); bundled: {bundled(anchor, kind)}")
    return path
