"""Component data of the template game: validated on load, cached once per file (the one caching
idiom: ``functools.cache`` on loaders; per-option-set tables are built in ``Game.setup``)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..core.data import load_json, resolve_data
from ..core.game import ConfigError

COMPONENTS_SCHEMA = {"hand_size": {"2": int, "3": int, "4": int}, "comment?": str}
DECK_SCHEMA = {"name": str, "values": [int]}


@cache
def components() -> dict:
    """data/components.json (TT-R1)."""
    return load_json(__file__, "data/components.json", COMPONENTS_SCHEMA)


@cache
def _deck_file(path: Path, stamp: tuple[int, int]) -> tuple[int, ...]:
    data = load_json(path.parent, path.name, DECK_SCHEMA)
    values = tuple(data["values"])
    if not 4 <= len(values) <= 60 or min(values) < 0 or max(values) > 99:
        raise ConfigError(f"{path.name}: a deck holds 4..60 cards valued 0..99")
    return values


def deck(name_or_path: str) -> tuple[int, ...]:
    """The card values of a bundled deck (``data/decks/<name>.json``) or of a deck file (TT-V1);
    cached per file version (a user's file that changes is read again)."""
    path = resolve_data(__file__, "decks", name_or_path, option="deck")
    st = path.stat()
    return _deck_file(path, (st.st_mtime_ns, st.st_size))
