"""Component data of Challengers!: the card pool, the draft schedule and the table constants
(trophies, the bot, the Solo Ace), JSON files validated on load (spec 2, 2.1-2.4).

A card-pool file (bundled: ``data/pools/<name>.json``; option ``card_pool``) holds one row per card
type ``{"set", "level", "name", "power", "count", "keyword", "effect"}`` in type order; the effect is
one primitive of the closed vocabulary of spec 2.2, parsed here into a small tuple that the rules'
one effect engine interprets, so a fuller card list is a new data file only (CH-V3). A schedule
file (``data/schedules/<name>.json``; option ``draft_schedule``) lists each round's draft options
(CH-V4). Loaders are cached per file version with ``functools.cache``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..core.data import load_json, resolve_data
from ..core.game import ConfigError

LEVELS = ("S", "A", "B", "C")  # S = starter; A/B/C = the piles
PILE_LEVELS = ("A", "B", "C")
KEYWORDS = ("", "in_attack", "from_bench", "flag_possession", "flag_loss", "selected")
# the primitive and the keywords it may carry (spec 2.2: a closed list)
OPS = {
    "": ("",),
    "CLEAR": ("",),
    "FANS": ("", "selected"),
    "WEAKEN": ("",),
    "BOOST": ("",),
    "SWARM": ("in_attack",),
    "POWER": ("in_attack", "flag_possession"),
    "AURA": ("from_bench",),
    "GUARD": ("flag_possession",),
    "ESCAPE": ("flag_loss",),
    "RECRUIT": ("selected",),
}
MAX_TYPES = 48  # pool card types (action space 9 + types + 1)
MAX_SETS = 8

POOL_SCHEMA = {
    "name": str,
    "comment?": str,
    "base_set": str,
    "sets": [str],
    "cards": [{"set": str, "level": str, "name": str, "power": int, "count": int, "keyword": str, "effect": str}],
}
COMPONENTS_SCHEMA = {
    "comment?": str,
    "rounds": int,
    "display_size": int,
    "bench_seats": int,
    "min_deck": int,
    "early_win_lead": int,
    "trophies": [[int]],
    "bot": {"cards": [{"name": str, "k": int, "count": int}], "round_divisor": int, "extra_cards": dict},
    "solo_ace": {"name": str, "rounds": [int], "power_offset": int},
}


@dataclass(frozen=True)
class Card:
    """One card type: its row of the pool (spec 2.1) with the effect parsed (spec 2.2)."""

    set: str
    level: str
    name: str
    power: int
    count: int
    keyword: str
    op: str  # "" = no effect
    x: int  # the primitive's number (0 when it has none)
    arg: str  # AURA: the set; BOOST: "own_bench" / "opponent_bench"; else ""


@dataclass(frozen=True)
class Pool:
    name: str
    base_set: str
    sets: tuple[str, ...]
    cards: tuple[Card, ...]


def _parse_effect(text: str, keyword: str, sets: tuple[str, ...], where: str) -> tuple[str, int, str]:
    words = text.split()
    if not words:
        if keyword:
            raise ConfigError(f"{where}: keyword {keyword!r} without an effect")
        return "", 0, ""
    op = words[0]
    if op not in OPS or not op:
        raise ConfigError(f"{where}: unknown effect {op!r}; the vocabulary is {sorted(o for o in OPS if o)}")
    if keyword not in OPS[op]:
        raise ConfigError(f"{where}: {op} cannot carry keyword {keyword!r} (allowed: {list(OPS[op])})")
    if op in ("ESCAPE", "RECRUIT"):
        if len(words) != 1:
            raise ConfigError(f"{where}: {op} takes no argument")
        return op, 0, ""
    try:
        x = int(words[1])
    except (IndexError, ValueError):
        raise ConfigError(f"{where}: {op} needs a number ({text!r})") from None
    if not 1 <= x <= 10:
        raise ConfigError(f"{where}: {op} {x}: the number must be 1..10")
    rest = " ".join(words[2:])
    if op == "AURA":
        if rest not in sets:
            raise ConfigError(f"{where}: AURA names set {rest!r}, not one of {list(sets)}")
        return op, x, rest
    if op == "BOOST":
        if rest not in ("own_bench", "opponent_bench"):
            raise ConfigError(f"{where}: BOOST counts 'own_bench' or 'opponent_bench', got {rest!r}")
        return op, x, rest
    if rest:
        raise ConfigError(f"{where}: {op} takes one number ({text!r})")
    return op, x, ""


@cache
def _pool_file(path: Path, stamp: tuple[int, int]) -> Pool:
    d = load_json(path.parent, path.name, POOL_SCHEMA)
    sets = tuple(d["sets"])
    if not 2 <= len(sets) <= MAX_SETS or len(set(sets)) != len(sets) or d["base_set"] not in sets:
        raise ConfigError(f"{path.name}: 2..{MAX_SETS} distinct sets, the base set among them")
    cards = []
    names = set()
    for i, row in enumerate(d["cards"]):
        where = f"{path.name}: cards[{i}] ({row['name']})"
        if row["set"] not in sets:
            raise ConfigError(f"{where}: set {row['set']!r} is not one of {list(sets)}")
        if row["level"] not in LEVELS:
            raise ConfigError(f"{where}: level must be one of {list(LEVELS)}")
        if row["level"] == "S" and row["set"] != d["base_set"]:
            raise ConfigError(f"{where}: starter cards belong to the base set")
        if row["name"] in names or not row["name"]:
            raise ConfigError(f"{where}: card names are distinct and non-empty")
        names.add(row["name"])
        if not 0 <= row["power"] <= 20 or not 1 <= row["count"] <= 8:
            raise ConfigError(f"{where}: power 0..20 and count 1..8")
        if row["keyword"] not in KEYWORDS:
            raise ConfigError(f"{where}: keyword must be one of {list(KEYWORDS)}")
        op, x, arg = _parse_effect(row["effect"], row["keyword"], sets, where)
        cards.append(
            Card(row["set"], row["level"], row["name"], row["power"], row["count"], row["keyword"], op, x, arg)
        )
    if not 1 <= len(cards) <= MAX_TYPES:
        raise ConfigError(f"{path.name}: 1..{MAX_TYPES} card types")
    if not any(c.level == "S" for c in cards):
        raise ConfigError(f"{path.name}: a starter deck (level S cards) is needed")
    for lv in PILE_LEVELS:
        if not any(c.level == lv for c in cards):
            raise ConfigError(f"{path.name}: no level {lv} card")
    return Pool(d["name"], d["base_set"], sets, tuple(cards))


def pool(name_or_path: str) -> Pool:
    """The card pool (CH-V3 ``card_pool``): a bundled name or a path to a pool file."""
    path = resolve_data(__file__, "pools", name_or_path, option="card_pool")
    st = path.stat()
    return _pool_file(path, (st.st_mtime_ns, st.st_size))


@cache
def _schedule_file(path: Path, stamp: tuple[int, int], rounds: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    d = load_json(path.parent, path.name, {"name": str, "comment?": str, "rounds": [list]})
    if len(d["rounds"]) != rounds:
        raise ConfigError(f"{path.name}: one entry per round ({rounds})")
    out = []
    for r, opts in enumerate(d["rounds"], 1):
        if not 1 <= len(opts) <= 2:
            raise ConfigError(f"{path.name}: round {r} offers 1 or 2 draft options")
        row = []
        for o in opts:
            if (
                not isinstance(o, list)
                or len(o) != 2
                or o[0] not in PILE_LEVELS
                or o[1].__class__ is not int
                or not 1 <= o[1] <= 5
            ):
                raise ConfigError(f"{path.name}: round {r}: an option is [level A/B/C, keep 1..5], got {o!r}")
            row.append((PILE_LEVELS.index(o[0]) + 1, o[1]))
        out.append(tuple(row))
    return tuple(out)


def schedule(name_or_path: str) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Draft options per round (CH-V4 ``draft_schedule``): ``((level 1..3, keep k), ...)`` per round."""
    path = resolve_data(__file__, "schedules", name_or_path, option="draft_schedule")
    st = path.stat()
    return _schedule_file(path, (st.st_mtime_ns, st.st_size), components()["rounds"])


@cache
def components() -> dict:
    """data/components.json, validated (trophies, the bot and the table constants)."""
    d = load_json(__file__, "data/components.json", COMPONENTS_SCHEMA)
    r = d["rounds"]
    if r != 7 or len(d["trophies"]) != r or any(len(t) != 4 or min(t) < 1 for t in d["trophies"]):
        raise ConfigError("components.json: 7 rounds of 4 trophies with positive fans")
    if d["display_size"] != 5 or d["bench_seats"] < 1 or d["min_deck"] != 1 or d["early_win_lead"] < 1:
        raise ConfigError("components.json: display 5, a bench, minimum deck 1 and a positive early-win lead")
    bot = d["bot"]
    if len(bot["cards"]) != 4 or [c["k"] for c in bot["cards"]] != [1, 2, 3, 4] or bot["round_divisor"] < 1:
        raise ConfigError("components.json: the bot has Bot-1..Bot-4 (k 1..4) and a positive round divisor")
    for lv, extra in bot["extra_cards"].items():
        if (
            lv not in ("1", "2", "3", "4", "5")
            or not isinstance(extra, list)
            or any(e not in PILE_LEVELS for e in extra)
        ):
            raise ConfigError("components.json: bot.extra_cards maps a level 1..5 to a list of pile levels")
    if any(not 1 <= x <= r for x in d["solo_ace"]["rounds"]):
        raise ConfigError("components.json: solo_ace.rounds must be rounds 1..7")
    return d
