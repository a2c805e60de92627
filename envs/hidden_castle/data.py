"""Component data of Escape from the Hidden Castle: ``data/components.json`` (both board sides, the
die, guests per player), validated on load and cached once (``functools.cache``). The precomputed
move tables of a side are built in ``HiddenCastleGame.setup`` (rules.py), from these data.

The bounds below are fixed by the action layout (PLACE 0..39, MOVE targets 1..11, 6 guest slots)
and the observation layout; a data file outside them is refused.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..core.data import load_json
from ..core.game import ConfigError

_ROOM = {"door": int, "name": str, "kind": str, "points": int, "exact": bool}
SCHEMA = {
    "about?": str,
    "die": [int],
    "die_note?": str,
    "guests_per_player": {str(n): int for n in range(2, 9)},
    "hugo_side": {
        "gallery_size": int,
        "steps": [int],
        "limited_steps": int,
        "overflow_step": int,
        "hugo_path": int,
        "start_trail": int,
        "end_trail": int,
        "clock": [{"label": str, "speed": int}],
        "rooms": [_ROOM],
    },
    "midnight_side": {
        "gallery_size": int,
        "steps": [int],
        "limited_steps": int,
        "overflow_step": int,
        "hugo_path": int,
        "rounds": int,
        "hugo_speed": {str(n): int for n in range(2, 9)},
        "rooms": [_ROOM],
    },
}

GALLERY = 40  # fixed by the action layout (PLACE 0..39)
MAX_GUESTS = 6  # guest slots per player (HC-R1)
MAX_ROOMS = 11  # room ids 1..11 in MOVE targets
MAX_STEPS = 9  # cellar steps on either side
MAX_PLAYERS = 8
MAX_ROLL = 5
DIE_FACES = 6
KINDS = ("plain", "armory", "green")


def _fail(msg: str) -> None:
    raise ConfigError(f"hidden_castle components.json: {msg}")


@cache
def components() -> dict[str, Any]:
    """``data/components.json``, validated (schema plus the semantic checks below); loaded once.
    The result is shared: read it, never modify it."""
    data = load_json(__file__, "data/components.json", SCHEMA)
    die = data["die"]
    if len(die) != DIE_FACES or any(not 0 <= f <= MAX_ROLL for f in die) or 0 not in die:
        _fail(f"die must have six faces in 0..5 with at least one Hugo face (0), got {die}")
    for n, k in data["guests_per_player"].items():
        if not 1 <= k <= MAX_GUESTS:
            _fail(f"guests_per_player[{n}]={k} is outside 1..{MAX_GUESTS}")
        if int(n) * k > 48:
            _fail(f"guests_per_player[{n}] places more guests than gallery spaces")
    for side in ("hugo_side", "midnight_side"):
        s = data[side]
        if s["gallery_size"] != GALLERY:
            _fail(f"{side}.gallery_size must be {GALLERY} (the PLACE actions cover 40 spaces)")
        if not 1 <= len(s["steps"]) <= MAX_STEPS:
            _fail(f"{side}.steps must have 1..{MAX_STEPS} steps")
        if not 1 <= s["limited_steps"] <= len(s["steps"]):
            _fail(f"{side}.limited_steps out of range")
        if not 0 <= s["overflow_step"] < len(s["steps"]):
            _fail(f"{side}.overflow_step out of range")
        if not 1 <= s["hugo_path"] <= 20:
            _fail(f"{side}.hugo_path out of range")
        rooms = s["rooms"]
        if not 1 <= len(rooms) <= MAX_ROOMS:
            _fail(f"{side}.rooms must list 1..{MAX_ROOMS} rooms")
        doors = [r["door"] for r in rooms]
        if len(set(doors)) != len(doors) or any(not 0 <= d < GALLERY for d in doors):
            _fail(f"{side}.rooms doors must be distinct gallery spaces, got {doors}")
        for i, r in enumerate(rooms):
            if r["kind"] not in KINDS:
                _fail(f"{side}.rooms[{i}].kind={r['kind']!r} is not one of {KINDS}")
    clock = data["hugo_side"]["clock"]
    if len(clock) < 2 or clock[-1]["speed"] != 0 or any(c["speed"] <= 0 for c in clock[:-1]):
        _fail("hugo_side.clock must end with a speed-0 (game ends) position after positive speeds")
    if data["midnight_side"]["rounds"] < 1:
        _fail("midnight_side.rounds must be >= 1")
    return data
