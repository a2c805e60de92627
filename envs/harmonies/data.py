"""Component data of Harmonies (spec section 2): token bag, central board, board sides, scoring
tables, the 32 animal cards and the 10 Nature's Spirit cards, validated on load and cached."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..core.data import load_json
from ..core.game import ConfigError
from .board import COLOURS, STACK_ID, Pattern, parse_pattern

COMPONENTS_SCHEMA = {
    "comment?": str,
    "colours": [str],
    "bag": {c: int for c in COLOURS},
    "tokens_per_space": int,
    "central_spaces": {"multi": int, "solo": int},
    "display_size": {"multi": int, "solo": int},
    "card_places": int,
    "spirits_dealt": int,
    "end_empty_spaces": int,
    "board_sides": {"A": {"columns": [int], "comment?": str}, "B": {"columns": [int], "comment?": str}},
    "pattern_codes": dict,
    "tree_points": [int],
    "mountain_points": [int],
    "field_points": int,
    "field_min_group": int,
    "building_points": int,
    "building_min_colours": int,
    "river_points": [int],
    "river_extra_per_hex": int,
    "island_points": int,
    "solo_suns": {
        "thresholds": [int],
        "side_a_bonus": int,
        "no_spirit_bonus": int,
        "spirit_bonus": int,
        "spirit_bonus_ids": [int],
    },
}
ANIMALS_SCHEMA = {"comment?": str, "cards": [{"id": int, "points": [int], "pattern": str}]}
SPIRITS_SCHEMA = {
    "comment?": str,
    "cards": [
        {
            "id": int,
            "pattern": str,
            "scoring": {"subject": str, "measure": str, "table": [[int]]},
        }
    ],
}
SUBJECTS = ("yellow_group", "blue_group", "building_group", "tree", "mountain", "blue_token")


@dataclass(frozen=True)
class Card:
    """An animal (ids 1..32) or spirit card (33..42): its pattern and point track."""

    id: int
    pattern: Pattern
    points: tuple[int, ...]  # score for 1, 2, ... cubes (spirits: (0,), scored by ``scoring``)
    spirit: bool = False
    subject: str = ""
    measure: str = ""
    table: tuple[tuple[int, int, int], ...] = ()

    @property
    def cubes(self) -> int:
        return len(self.points)


@cache
def components() -> dict:
    """data/components.json, checked beyond its shape (counts, codes, tables)."""
    c = load_json(__file__, "data/components.json", COMPONENTS_SCHEMA)
    if tuple(c["colours"]) != COLOURS:
        raise ConfigError(f"components.json: colours must be {list(COLOURS)}")
    if any(v < 0 for v in c["bag"].values()) or sum(c["bag"].values()) != 120:
        raise ConfigError("components.json: the bag holds 120 tokens (spec 2)")
    if c["tokens_per_space"] != 3:
        raise ConfigError("components.json: tokens_per_space is 3 (taken slots 0..2, HA-R33)")
    if not 1 <= c["central_spaces"]["solo"] <= c["central_spaces"]["multi"] <= 5:
        raise ConfigError("components.json: central spaces 1..5 (actions 0-4)")
    if not 1 <= c["display_size"]["solo"] <= 3 or not 1 <= c["display_size"]["multi"] <= 5:
        raise ConfigError("components.json: display sizes fit actions 80-84 and 188-190")
    if c["card_places"] != 4 or c["spirits_dealt"] != 2:
        raise ConfigError("components.json: 4 card places (HA-R32) and 2 spirits dealt (HA-V2)")
    for side, b in c["board_sides"].items():
        cols = b["columns"]
        if not cols or any(not 1 <= h <= 8 for h in cols) or sum(cols) > 25:
            raise ConfigError(f"components.json: board side {side} must have at most 25 spaces (actions)")
    codes = {k: v for k, v in c["pattern_codes"].items() if k != "comment"}
    for k, v in codes.items():
        if not isinstance(v, list) or not v or any(s not in STACK_ID or s == "" for s in v):
            raise ConfigError(f"components.json: pattern code {k!r} must list stacks of {sorted(STACK_ID)[1:]}")
    for key in ("tree_points", "mountain_points"):
        if len(c[key]) != 3:
            raise ConfigError(f"components.json: {key} has 3 entries (heights 1-3)")
    if len(c["river_points"]) != 7:
        raise ConfigError("components.json: river_points has 7 entries (lengths 0..6)")
    if len(c["solo_suns"]["thresholds"]) != 8 or c["solo_suns"]["thresholds"] != sorted(c["solo_suns"]["thresholds"]):
        raise ConfigError("components.json: solo_suns.thresholds are 8 ascending totals")
    return c


def pattern_codes() -> dict[str, frozenset[int]]:
    """Pattern stack code -> the stack ids it accepts (spec 2.2)."""
    codes = components()["pattern_codes"]
    return {k: frozenset(STACK_ID[s] for s in v) for k, v in codes.items() if k != "comment"}


@cache
def cards() -> dict[int, Card]:
    """Animal (data/animals.json) and spirit (data/spirits.json) cards by id."""
    known = frozenset(pattern_codes())
    out: dict[int, Card] = {}
    animals = load_json(__file__, "data/animals.json", ANIMALS_SCHEMA)["cards"]
    spirits = load_json(__file__, "data/spirits.json", SPIRITS_SCHEMA)["cards"]
    if [a["id"] for a in animals] != list(range(1, 33)):
        raise ConfigError("animals.json: the 32 animal cards have ids 1..32 in order")
    if [s["id"] for s in spirits] != list(range(33, 43)):
        raise ConfigError("spirits.json: the 10 spirit cards have ids 33..42 in order")
    for a in animals:
        try:
            pat = parse_pattern(a["pattern"], known)
        except ValueError as e:
            raise ConfigError(f"animals.json card {a['id']}: {e}") from None
        pts = tuple(a["points"])
        if not 1 <= len(pts) <= 5 or any(p <= 0 for p in pts) or list(pts) != sorted(pts):
            raise ConfigError(f"animals.json card {a['id']}: points are 1..5 ascending positive values")
        out[a["id"]] = Card(a["id"], pat, pts)
    for s in spirits:
        try:
            pat = parse_pattern(s["pattern"], known)
        except ValueError as e:
            raise ConfigError(f"spirits.json card {s['id']}: {e}") from None
        sc = s["scoring"]
        if sc["subject"] not in SUBJECTS or sc["measure"] not in ("size", "height"):
            raise ConfigError(f"spirits.json card {s['id']}: subject one of {SUBJECTS}, measure size or height")
        table = tuple(tuple(r) for r in sc["table"])
        if not table or any(len(r) != 3 or r[0] > r[1] or r[2] < 0 for r in table):
            raise ConfigError(f"spirits.json card {s['id']}: table rows are [lo, hi, points] with lo <= hi")
        out[s["id"]] = Card(s["id"], pat, (0,), True, sc["subject"], sc["measure"], table)  # type: ignore[arg-type]
    return out


ANIMAL_IDS = tuple(range(1, 33))
SPIRIT_IDS = tuple(range(33, 43))
