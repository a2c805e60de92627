"""Component data of Get on Board: the score sheet, shapes and objectives
(``data/components.json``) and the city maps (``data/maps/<name>.json``), validated on load.

Everything the spec marks as data (map, black roads, green lights, passengers and buildings,
departures, personal objectives, ticket shapes, scoring tables, common objectives) lives in the
JSON files; this module only checks them and precomputes the geometry once per map (cached with
``functools.cache``; a user's map file is read again when it changes).

The ``map`` option (GB-V3) is a bundled name or a path, resolved by core ``resolve_data``: a
relative path is relative to the current working directory (before the one-shape refactor it was
relative to this package's folder; see the version history in rules.py).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from ..core.data import load_json, resolve_data
from ..core.game import ConfigError

# Directions (action ids 0-3): North = id -10, East = +1, South = +10, West = -1 (spec section 2).
N, E, S, W = 0, 1, 2, 3
DIR_NAMES = ("North", "East", "South", "West")
DIR_DELTA = (-10, 1, 10, -1)
OPPOSITE = (S, W, N, E)

# Passenger/building codes (intersection content).
CODES = ("", "g", "s", "S", "t", "m", "M", "b", "O")
C_NONE, C_GRANDMA, C_STUDENT, C_SCHOOL, C_TOURIST, C_LIGHT, C_DARK, C_WORKER, C_OFFICE = range(9)
STAR_CODES = {C_SCHOOL, C_LIGHT, C_DARK, C_OFFICE}
# Shape step requirements.
REQ_ANY, REQ_STRAIGHT, REQ_TURN, REQ_FREE = range(4)
REQ_NAMES = {"any": REQ_ANY, "straight": REQ_STRAIGHT, "turn": REQ_TURN, "free": REQ_FREE}

MAP_SCHEMA = {
    "name": str,
    "players": [int],
    "rows": int,
    "cols": int,
    "id_rule?": str,
    "intersections": [{"id": int, "code": str, "star": bool, "green": bool, "departure": int, "letter": str}],
    "missing_roads": [[int]],
    "black_roads": [[int]],
    "personal_objectives": [[str]],
}

COMPONENTS_SCHEMA = {
    "_source?": str,
    "rounds": int,
    "tickets": int,
    "departure_tickets_per_player": int,
    "shapes": dict,
    "shape_order": [str],
    "ticket_shapes": dict,
    "sheet": {
        "grandma_values": [int],
        "student_boxes": int,
        "internship_boxes": int,
        "school_boxes": int,
        "tourist_rows": int,
        "tourist_row_boxes": int,
        "tourist_row_values": [int],
        "office_rows": int,
        "office_row_boxes": int,
        "office_row_values": [int],
        "office_bonus": [str],
        "turn_zone_values": [int],
        "traffic_values": [int],
        "personal_objective_value": int,
    },
    "common_objectives": [{"name": str, "counter": str, "threshold": int}],
    "common_objectives_in_play": int,
    "common_first_value": int,
    "common_later_value": int,
}

COUNTERS = ("grandmas", "students", "tourists", "workers", "light_sights", "dark_sights")
BONUSES = ("", "grandma", "tourist", "internship")


@cache
def components() -> dict:
    """Load and check ``data/components.json`` (ConfigError naming the bad entry)."""
    d = load_json(__file__, "data/components.json", COMPONENTS_SCHEMA)
    sh = d["sheet"]
    if len(sh["tourist_row_values"]) != sh["tourist_row_boxes"] + 1:
        raise ConfigError("components.json: sheet.tourist_row_values needs one value per count 0..boxes")
    if len(sh["office_row_values"]) != sh["office_row_boxes"] + 1:
        raise ConfigError("components.json: sheet.office_row_values needs one value per count 0..boxes")
    if len(sh["office_bonus"]) != sh["office_row_boxes"] + 1 or any(b not in BONUSES for b in sh["office_bonus"]):
        raise ConfigError(f"components.json: sheet.office_bonus entries must be among {BONUSES}")
    for name, steps in d["shapes"].items():
        if not isinstance(steps, list) or not steps or any(s not in REQ_NAMES for s in steps) or steps[0] != "any":
            raise ConfigError(
                f"components.json: shapes.{name} must be a list of {sorted(REQ_NAMES)} starting with 'any'"
            )
    if sorted(d["shape_order"]) != sorted(d["shapes"]):
        raise ConfigError("components.json: shape_order must list every shape once")
    for st, row in d["ticket_shapes"].items():
        if (
            not st.isdigit()
            or not isinstance(row, list)
            or len(row) != d["tickets"]
            or any(s not in d["shapes"] for s in row)
        ):
            raise ConfigError(f"components.json: ticket_shapes.{st} must list one known shape per ticket")
    for i, c in enumerate(d["common_objectives"]):
        if c["counter"] not in COUNTERS:
            raise ConfigError(f"components.json: common_objectives[{i}].counter must be one of {COUNTERS}")
    if not 0 < d["common_objectives_in_play"] <= len(d["common_objectives"]):
        raise ConfigError("components.json: common_objectives_in_play out of range")
    return d


class CityMap:
    """Precomputed geometry of one map: intersections (indexed 0..N-1 in id order), roads,
    neighbours per direction, contents, departures, objective letters."""

    def __init__(self, data: dict, where: str):
        self.name = data["name"]
        self.players = tuple(data["players"])
        if not self.players or min(self.players) < 1:
            raise ConfigError(f"{where}: players must list the supported player counts")
        nodes = data["intersections"]
        self.ids = [n["id"] for n in nodes]
        if len(set(self.ids)) != len(self.ids):
            raise ConfigError(f"{where}: duplicate intersection ids")
        order = sorted(range(len(nodes)), key=lambda i: self.ids[i])
        nodes = [nodes[i] for i in order]
        self.ids = [n["id"] for n in nodes]
        self.idx = {nid: i for i, nid in enumerate(self.ids)}
        self.n = n_nodes = len(nodes)
        self.code, self.star, self.green, self.letter = [], [], [], []
        self.dep_node: dict[int, int] = {}
        self.letter_node: dict[str, int] = {}
        for i, nd in enumerate(nodes):
            if nd["code"] not in CODES:
                raise ConfigError(f"{where}: intersection {nd['id']} has unknown code {nd['code']!r}")
            c = CODES.index(nd["code"])
            if nd["star"] and c not in STAR_CODES:
                raise ConfigError(f"{where}: intersection {nd['id']}: only S, m, M, O can be a star")
            self.code.append(c)
            self.star.append(bool(nd["star"]))
            self.green.append(bool(nd["green"]))
            self.letter.append(nd["letter"])
            if nd["departure"]:
                if nd["departure"] in self.dep_node:
                    raise ConfigError(f"{where}: departure {nd['departure']} appears twice")
                self.dep_node[nd["departure"]] = i
            if nd["letter"]:
                if nd["letter"] in self.letter_node:
                    raise ConfigError(f"{where}: objective letter {nd['letter']!r} appears twice")
                self.letter_node[nd["letter"]] = i
        self.departures = len(self.dep_node)
        if sorted(self.dep_node) != list(range(1, self.departures + 1)):
            raise ConfigError(f"{where}: departure numbers must be 1..{self.departures}")
        missing = set()
        for pair in data["missing_roads"]:
            a, b = sorted(pair) if len(pair) == 2 else (0, 0)
            if a not in self.idx or b not in self.idx or b - a not in (1, 10):
                raise ConfigError(f"{where}: missing road {pair} does not join two neighbouring intersections")
            missing.add((a, b))
        roads: list[tuple[int, int]] = []
        for a in self.ids:
            for b in (a + 1, a + 10):
                if b in self.idx and (a, b) not in missing:
                    roads.append((self.idx[a], self.idx[b]))
        self.roads = roads
        self.r = len(roads)
        road_of = {(a, b): k for k, (a, b) in enumerate(roads)}
        self.black = [0] * self.r
        for pair in data["black_roads"]:
            key = tuple(sorted(self.idx.get(x, -1) for x in pair))
            if key not in road_of:
                raise ConfigError(f"{where}: black road {pair} is not a road")
            self.black[road_of[key]] = 1
        # neighbours: nb_node[i][d], nb_road[i][d] (-1 when no road)
        self.nb_node = [[-1] * 4 for _ in range(n_nodes)]
        self.nb_road = [[-1] * 4 for _ in range(n_nodes)]
        for k, (a, b) in enumerate(roads):
            d = E if self.ids[b] - self.ids[a] == 1 else S
            self.nb_node[a][d], self.nb_road[a][d] = b, k
            self.nb_node[b][OPPOSITE[d]], self.nb_road[b][OPPOSITE[d]] = a, k
        self.exits = [
            tuple((d, self.nb_road[i][d], self.nb_node[i][d]) for d in range(4) if self.nb_road[i][d] >= 0)
            for i in range(n_nodes)
        ]
        self.objectives = []
        for k, letters in enumerate(data["personal_objectives"]):
            if any(x not in self.letter_node for x in letters):
                raise ConfigError(f"{where}: personal_objectives[{k}] names an unknown letter")
            self.objectives.append([self.letter_node[x] for x in letters])
        self.rc = [((nid // 10), (nid % 10)) for nid in self.ids]  # (row, col) for drawing
        self.is_departure = [i in self.dep_node.values() for i in range(n_nodes)]


@cache
def _map_file(path: Path, stamp: tuple[int, int]) -> CityMap:
    return CityMap(load_json(path.parent, path.name, MAP_SCHEMA), path.name)


def load_map(name_or_path: str) -> CityMap:
    """A bundled map (``data/maps/<name>.json``) or a map file (GB-V3), checked and precomputed once
    per file version; ConfigError names the option ``map``."""
    path = resolve_data(__file__, "maps", name_or_path, option="map")
    st = path.stat()
    try:
        return _map_file(path, (st.st_mtime_ns, st.st_size))
    except ConfigError as e:
        raise ConfigError(f"option map={name_or_path!r}: {e}") from None
