"""Component data of Downforce (deck, tracks, tables, powers), loaded from JSON and validated.

Every "Project decision" component of the spec lives in a data file under ``data/``:
``data/deck.json`` (DF 2.1), ``data/tracks/<name>.json`` (DF 2.2, the ``track`` option, DF-V6) and
``data/components.json`` (cars, hand sizes, prize/bet/odds tables, the twelve powers).

The ``track`` option is a bundled name (``default``, ``sprint``) or a path to the user's own track
file, resolved by core ``resolve_data`` (a relative path against the working directory). Loaders
are cached with ``functools.cache`` (a user's track per file version).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from ..core.data import bundled, load_json, resolve_data, validate
from ..core.game import ConfigError

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

NUM_CARS = 6
NUM_CARDS = 48
NUM_REGULAR = 42
MAX_LANES = 3
POWER_NAMES = (
    "Aggressive",
    "Cunning",
    "Determined",
    "Strategic",
    "Tricky",
    "Unpredictable",
    "Ambitious",
    "Experienced",
    "Tough",
    "Bold",
    "Defensive",
    "Reckless",
)

DECK_SCHEMA = {
    "note?": str,
    "templates": [{"t": int, "speeds": [int], "wild": [bool], "stride": int}],
    "regular_cards": int,
    "cards": [{"id": int, "lines": [{"car": int, "speed": int}]}],
}
TRACK_SCHEMA = {
    "id": str,
    "name": str,
    "rows": [{"kind": str, "spaces": [{"lane": int, "rectangular": bool, "narrow": bool, "rumble": bool}]}],
    "betting_lines": [int],
    "grid": [[int]],
}
COMPONENTS_SCHEMA = {
    "cars": [str],
    "car_colors": [[int]],
    "hand_sizes": {"2": int, "3": int, "4": int, "5": int, "6": int},
    "prizes": [int],
    "bets": [[int]],
    "odds": [[int]],
    "powers": [{"name": str, "set": str, "rule": str, "text": str}],
}


def _fail(where: str, msg: str) -> None:
    raise ConfigError(f"{where}: {msg}")


Deck = tuple[tuple[tuple[int, int], ...], ...]
"""The 48 cards, each a tuple of (car, speed) lines (car -1 = wild)."""


@cache
def load_deck() -> Deck:
    """The 48 cards as a tuple of tuples of (car, speed) lines (car -1 = wild), validated."""
    d = load_json(DATA, "deck.json", DECK_SCHEMA)
    cards = d["cards"]
    if d["regular_cards"] != NUM_REGULAR or len(cards) != NUM_CARDS:
        _fail("deck.json", f"needs {NUM_REGULAR} regular + 6 speed-8 cards, got {len(cards)}")
    out = []
    for i, c in enumerate(cards):
        if c["id"] != i:
            _fail("deck.json", f"cards[{i}].id must be {i}")
        lines = c["lines"]
        if not 1 <= len(lines) <= 6:
            _fail("deck.json", f"card {i} has {len(lines)} lines (1..6 allowed)")
        seen = set()
        for ln in lines:
            if not -1 <= ln["car"] < NUM_CARS or not 1 <= ln["speed"] <= 8:
                _fail("deck.json", f"card {i} has a bad line {ln}")
            if ln["car"] >= 0:
                if ln["car"] in seen:
                    _fail("deck.json", f"card {i} names car {ln['car']} twice")
                seen.add(ln["car"])
        if i >= NUM_REGULAR and (len(lines) != 1 or lines[0] != {"car": i - NUM_REGULAR, "speed": 8}):
            _fail("deck.json", f"card {i} must be the speed-8 card of car {i - NUM_REGULAR}")
        out.append(tuple((ln["car"], ln["speed"]) for ln in lines))
    return tuple(out)


def track_path(name_or_path: str) -> Path:
    """The track file of option ``track``: ``sprint`` -> ``data/tracks/sprint.json``; anything that
    is not a bare name is a path (relative to the working directory)."""
    return resolve_data(HERE, "tracks", name_or_path, option="track")


def track_ids() -> list[str]:
    """The bundled tracks' names."""
    return bundled(HERE, "tracks")


def load_track(name_or_path: str) -> dict[str, Any]:
    """A track data file (DF-V6), validated: lanes, row links, betting lines and grid. A bundled
    track's ``id`` must be its name."""
    path = track_path(name_or_path)
    st = path.stat()
    return _track_file(path, (st.st_mtime_ns, st.st_size), path.parent == DATA / "tracks")


@cache
def _track_file(path: Path, stamp: tuple[int, int], is_bundled: bool) -> dict[str, Any]:
    name = f"tracks/{path.name}" if is_bundled else str(path)
    t = load_json(path.parent, path.name, TRACK_SCHEMA)
    if is_bundled and t["id"] != path.stem:
        _fail(name, f"id is {t['id']!r}, expected {path.stem!r}")
    return validate_track(t, name)


def validate_track(t: dict[str, Any], name: str = "track") -> dict[str, Any]:
    """Check a track's geometry (lanes, forward links between rows, betting lines, grid)."""
    validate(t, TRACK_SCHEMA, name)
    rows = t["rows"]
    if len(rows) < 8:
        _fail(name, "a track needs at least 8 rows")
    prev = None
    for r, row in enumerate(rows):
        lanes = [s["lane"] for s in row["spaces"]]
        if not lanes or lanes != sorted(set(lanes)) or lanes[0] < 0 or lanes[-1] >= MAX_LANES:
            _fail(name, f"rows[{r}] lanes {lanes} must be distinct, sorted, within 0..2")
        if prev is not None and not all(any(abs(a - b) <= 1 for b in lanes) for a in prev):
            _fail(name, f"rows[{r - 1}] has a lane with no forward step into rows[{r}]")
        prev = lanes
    bl = t["betting_lines"]
    if len(bl) != 3 or bl != sorted(set(bl)) or bl[0] < 0 or bl[-1] >= len(rows):
        _fail(name, f"betting_lines {bl} must be 3 ascending rows (a line lies after its row)")
    grid = t["grid"]
    if len(grid) != NUM_CARS or len({tuple(g) for g in grid}) != NUM_CARS:
        _fail(name, "grid needs 6 distinct positions")
    for g in grid:
        if len(g) != 2 or not 0 <= g[0] < len(rows) or g[1] not in [s["lane"] for s in rows[g[0]]["spaces"]]:
            _fail(name, f"grid position {g} is not a space of the track")
    return t


@cache
def load_components() -> dict[str, Any]:
    """Cars, colours, hand sizes, the prize/bet/odds tables and the twelve powers, validated."""
    c = load_json(DATA, "components.json", COMPONENTS_SCHEMA)
    if len(c["cars"]) != NUM_CARS or len(c["car_colors"]) != NUM_CARS:
        _fail("components.json", "needs 6 cars and 6 car colours")
    if len(c["prizes"]) != NUM_CARS:
        _fail("components.json", "prizes needs 6 entries")
    for key in ("bets", "odds"):
        if len(c[key]) != 3 or any(len(r) != 3 for r in c[key]):
            _fail("components.json", f"{key} must be a 3x3 table (bet 1..3 x place 1..3)")
    names = tuple(p["name"] for p in c["powers"])
    if names != POWER_NAMES:
        _fail("components.json", f"powers must be {list(POWER_NAMES)} in this order, got {list(names)}")
    for n, h in c["hand_sizes"].items():
        if int(n) * h > NUM_REGULAR or NUM_REGULAR - int(n) * h not in (0, 2):
            _fail("components.json", f"hand_sizes[{n}]={h} does not deal the 42 cards evenly")
    return c
