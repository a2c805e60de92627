"""Board data of Escape from the Hidden Castle: loaded from ``components.json``, validated, and
turned into the precomputed tables the rules use on the hot path.

Location codes (one int per guest, shared by rules, encoder and renderer):

* ``0 .. G-1``                 gallery space ``g`` (0 = the arrow space by the cellar door)
* ``G + k - 1``                room ``k`` (1-based room id, ``k <= MAX_ROOMS``)
* ``G + MAX_ROOMS + j``        cellar step ``j`` (index into the side's ``steps`` list)
* ``G + MAX_ROOMS + MAX_STEPS`` not yet placed (before setup placement)

Hugo's position is one int: ``-r`` while he is still on his cellar path with ``r`` steps left to
gallery space 0, ``0 .. G-1`` once he is on the gallery (HC-R20, HC-V4).
"""
from __future__ import annotations

from dataclasses import dataclass
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
        "gallery_size": int, "steps": [int], "limited_steps": int, "overflow_step": int,
        "hugo_path": int, "start_trail": int, "end_trail": int,
        "clock": [{"label": str, "speed": int}], "rooms": [_ROOM],
    },
    "midnight_side": {
        "gallery_size": int, "steps": [int], "limited_steps": int, "overflow_step": int,
        "hugo_path": int, "rounds": int, "hugo_speed": {str(n): int for n in range(2, 9)},
        "rooms": [_ROOM],
    },
}

GALLERY = 40        # fixed by the action layout (PLACE 0..39)
MAX_GUESTS = 6      # guest slots per player (HC-R1)
MAX_ROOMS = 11      # room ids 1..11 in MOVE targets
MAX_STEPS = 9       # cellar steps on either side
MAX_PLAYERS = 8
MAX_ROLL = 5
KINDS = ("plain", "armory", "green")


def _fail(msg: str) -> None:
    raise ConfigError(f"hidden_castle components.json: {msg}")


def load_components() -> dict[str, Any]:
    """Load and validate ``components.json`` (schema plus the semantic checks below)."""
    data = load_json(__file__, "components.json", SCHEMA)
    die = data["die"]
    if len(die) != 6 or any(f not in (0, 1, 2, 3, 4, 5) for f in die) or 0 not in die:
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


@dataclass
class Side:
    """One side of the board with precomputed move tables."""

    name: str
    G: int
    steps: list[int]
    limited: int
    overflow: int
    hugo_path: int
    rooms: list[dict]
    doors: list[int]          # doors[k] for room k (index 0 unused)
    room_points: list[int]    # per room id (index 0 unused)
    room_exact: list[bool]
    room_names: list[str]
    room_kinds: list[str]
    dest: list[list[int]]     # dest[loc][n]: gallery space reached by walking n steps
    reach: list[list[tuple]]  # reach[loc][n]: ((room, entry_step), ...) rooms reachable within n

    @property
    def num_rooms(self) -> int:
        return len(self.rooms)


ROOM0 = GALLERY
STEP0 = GALLERY + MAX_ROOMS
UNPLACED = GALLERY + MAX_ROOMS + MAX_STEPS
NUM_PLACES = UNPLACED + 1


def build_side(name: str, s: dict) -> Side:
    G = s["gallery_size"]
    rooms = s["rooms"]
    doors = [-1] + [r["door"] for r in rooms]
    door_room = {d: k for k, d in enumerate(doors) if k > 0}
    dest: list[list[int]] = [[-1] * (MAX_ROLL + 1) for _ in range(NUM_PLACES)]
    reach: list[list[tuple]] = [[()] * (MAX_ROLL + 1) for _ in range(NUM_PLACES)]
    for loc in range(NUM_PLACES):
        if loc < G:
            pos, min_s, left = loc, 0, 0          # a gallery guest may step in from its own door
        elif ROOM0 <= loc < ROOM0 + len(rooms):
            k = loc - ROOM0 + 1
            pos, min_s, left = doors[k] - 1, 1, k  # the door counts as the first step (HC-R11)
        elif STEP0 <= loc < STEP0 + len(s["steps"]):
            pos, min_s, left = -1, 1, 0           # the arrow space counts as the first step (HC-R10)
        else:
            continue
        for n in range(1, MAX_ROLL + 1):
            dest[loc][n] = (pos + n) % G
            out = []
            for step in range(min_s, n):          # reach the door after `step` steps, enter on step+1
                k = door_room.get((pos + step) % G)
                if k is not None and k != left:
                    out.append((k, step + 1))
            reach[loc][n] = tuple(out)
    return Side(
        name=name, G=G, steps=list(s["steps"]), limited=s["limited_steps"], overflow=s["overflow_step"],
        hugo_path=s["hugo_path"], rooms=rooms, doors=doors,
        room_points=[0] + [r["points"] for r in rooms], room_exact=[False] + [r["exact"] for r in rooms],
        room_names=[""] + [r["name"] for r in rooms], room_kinds=[""] + [r["kind"] for r in rooms],
        dest=dest, reach=reach)
