"""Metromania component data (``data/components.json``), validated on load and cached.

Every "Project decision" of the spec (board size, gate pattern, district templates, test-trip
pairings, point values, the end trigger) is data here; the rules read it, never hard-code it.
"""

from __future__ import annotations

from functools import cache

from ..core.data import load_json
from ..core.game import ConfigError

TYPES = ("R", "C", "E")
CELL = [int]
DISTRICT_SCHEMA = {
    "name": str,
    "blocked": str,
    "blocked_cells": [CELL],
    "R": [CELL],
    "C": [CELL],
    "E": [CELL],
}
COMPONENTS_SCHEMA = {
    "comment?": str,
    "board": {"side": int, "gate_pattern": [str], "comment?": str},
    "lines_per_player": int,
    "tunnels_per_line": int,
    "dig_tunnels": int,
    "stations": int,
    "markers": {"comment?": str, "letters": str, "left": [str], "right": [str]},
    "scoring": {
        "comment?": str,
        "ride_minutes": int,
        "change_minutes": int,
        "trip_points": int,
        "no_connection_penalty": int,
        "marker_in_hand_penalty": int,
        "unfinished_line_penalty": int,
    },
    "end_trigger_lines": {"2": int, "3": int, "4": int},
    "districts": [DISTRICT_SCHEMA],
}


def _fail(msg: str) -> ConfigError:
    return ConfigError(f"metromania components.json: {msg}")


@cache
def components() -> dict:
    """data/components.json, checked beyond its schema (MM spec section 2, Appendix A)."""
    d = load_json(__file__, "data/components.json", COMPONENTS_SCHEMA)
    n = d["board"]["side"]
    if n != 6:
        raise _fail("the district templates need a hexagon of side 6")
    pat = d["board"]["gate_pattern"]
    if len(pat) != 6 or any(len(p) != n - 1 or set(p) - {"W", "B"} for p in pat):
        raise _fail("gate_pattern: 6 strings of W/B, one letter per non-corner perimeter vertex")
    whites = sum(p.count("W") for p in pat)
    if whites != 15 or sum(p.count("B") for p in pat) != 15:
        raise _fail("gate_pattern: the action space holds 15 white and 15 black gates")
    if d["lines_per_player"] != 2 or d["dig_tunnels"] < 1 or d["tunnels_per_line"] < 2 or d["stations"] < 1:
        raise _fail("2 lines per player, a Dig of 1+ tunnels, 2+ tunnels per line, 1+ station")
    m = d["markers"]
    if len(m["letters"]) != 6 or len(m["left"]) != 6 or len(m["right"]) != 6:
        raise _fail("markers: 6 letters, 6 left and 6 right types")
    if set(m["left"] + m["right"]) - set(TYPES):
        raise _fail("markers: types are R, C or E")
    for t in TYPES:
        if (m["left"] + m["right"]).count(t) != 4:
            raise _fail(f"markers: each type appears on exactly 4 markers ({t})")
    s = d["scoring"]
    if s["ride_minutes"] < 1 or s["change_minutes"] < 1:
        # a free change would let a fastest route bounce between two lines at one station forever
        raise _fail("scoring: a ride and a change each take 1+ minutes")
    if set(d["end_trigger_lines"]) != {"2", "3", "4"} or not all(1 <= v <= 8 for v in d["end_trigger_lines"].values()):
        raise _fail("end_trigger_lines: 1..8 lines for 2, 3 and 4 players")
    dist = d["districts"]
    if len(dist) != 6:
        raise _fail("6 district templates, one per slot")
    kinds = {"lake": 0, "park": 0}
    for t in dist:
        where = f"district {t['name']!r}"
        if t["blocked"] not in kinds:
            raise _fail(f"{where}: blocked is 'lake' or 'park'")
        cells = [tuple(c) for key in ("blocked_cells", *TYPES) for c in t[key]]
        if any(len(c) != 2 or not (0 <= c[0] <= 5 and 0 <= c[1] <= 2 * c[0]) for c in cells):
            raise _fail(f"{where}: cells are [row 0..5, index 0..2*row]")
        if len(set(cells)) != len(cells):
            raise _fail(f"{where}: a cell is listed twice")
        b = sorted(tuple(c) for c in t["blocked_cells"])
        if len(b) % 2 or any(b[i][0] != b[i + 1][0] or b[i + 1][1] != b[i][1] + 1 for i in range(0, len(b), 2)):
            raise _fail(f"{where}: lake/park cells come in pairs of one row with consecutive index")
        kinds[t["blocked"]] += len(b)
    if kinds["lake"] == 0 or kinds["park"] == 0:
        raise _fail("trip 7 needs lake and park triangles")
    return d
