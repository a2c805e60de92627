"""Hydropolis component data: the deck files, validated on load.

The deck composition is a Project decision (spec section 2) and lives in a JSON data file, a
bundled deck ``data/decks/<name>.json`` or any path (option ``deck``, HY-V4, resolved by core
``resolve_data``: a bare name is bundled, anything else a path, a relative path against the
current working directory), validated on load: a published component list can replace it
without code changes. Loaded decks are cached with ``functools.cache`` (per file version, so a
user's file that changes is read again). The precomputed tables of a (deck, table) pair are built
by the rules (``rules.Geometry``).

Edges are numbered N=0, E=1, S=2, W=3; rotating a card by 180 degrees maps edge d to (d + 2) % 4
(HY-R7).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..core.data import load_json, resolve_data
from ..core.game import ConfigError

NONE, PIPE, CAP = 0, 1, 2
EDGE_NAMES = ("none", "pipe", "cap")
N, E, S, W = 0, 1, 2, 3
DIRS = "NESW"
LEAD, COPPER = 0, 1
COLOUR_NAMES = ("lead", "copper")
KINDS = ("pipe", "tap", "outlet")

DECK_SCHEMA = {
    "name": str,
    "note?": str,
    "types": [
        {
            "code": str,
            "kind": str,
            "colour": str,
            "leaky": bool,
            "count": int,
            "edges": {"N": str, "E": str, "S": str, "W": str},
        }
    ],
}


@dataclass(frozen=True)
class Deck:
    """The validated card types of one deck file (type id = position in the file)."""

    name: str
    codes: tuple[str, ...]
    kinds: tuple[str, ...]
    colour: tuple[int, ...]
    leaky: tuple[bool, ...]
    counts: tuple[int, ...]
    edges: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # [type][rotation][direction]
    symmetric: tuple[bool, ...]  # 180-degree symmetric

    @property
    def num_types(self) -> int:
        return len(self.codes)

    @property
    def total(self) -> int:
        return sum(self.counts)

    def type_name(self, t: int) -> str:
        if self.kinds[t] != "pipe":
            return self.codes[t]
        return f"{self.codes[t]} {COLOUR_NAMES[self.colour[t]]}" + (" leaky" if self.leaky[t] else "")


def deck_path(name_or_path: str) -> Path:
    """The deck file of option ``deck``: ``waterworks_88`` -> ``data/decks/waterworks_88.json``;
    anything that is not a bare name is a path (relative to the working directory)."""
    return resolve_data(__file__, "decks", name_or_path, option="deck")


def load_deck(name_or_path: str) -> Deck:
    """Load and validate a deck (cached per file version). Raises ConfigError naming the deck and
    the entry."""
    path = deck_path(name_or_path)
    st = path.stat()
    return _deck_file(path, (st.st_mtime_ns, st.st_size), name_or_path)


@cache
def _deck_file(path: Path, stamp: tuple[int, int], name: str) -> Deck:
    try:
        data = load_json(path.parent, path.name, DECK_SCHEMA)
    except ConfigError as e:
        raise ConfigError(f"option deck={name!r}: {e}") from None
    types = data["types"]
    if not types:
        raise ConfigError(f"option deck={name!r}: the deck has no card types")
    codes, kinds, colour, leaky, counts, edges, sym = [], [], [], [], [], [], []
    seen = set()
    for i, t in enumerate(types):
        where = f"option deck={name!r}: types[{i}]"
        if t["kind"] not in KINDS:
            raise ConfigError(f"{where}.kind={t['kind']!r} is not one of {list(KINDS)}")
        if t["colour"] not in COLOUR_NAMES:
            raise ConfigError(f"{where}.colour={t['colour']!r} is not one of {list(COLOUR_NAMES)}")
        e0 = []
        for d in DIRS:
            v = t["edges"][d]
            if v not in EDGE_NAMES:
                raise ConfigError(f"{where}.edges.{d}={v!r} is not one of {list(EDGE_NAMES)}")
            e0.append(EDGE_NAMES.index(v))
        if PIPE not in e0:
            raise ConfigError(f"{where}: a card needs at least one open pipe end")
        if t["count"] < 1:
            raise ConfigError(f"{where}.count={t['count']} must be >= 1")
        if t["leaky"] and (t["colour"] != "lead" or CAP in e0 or t["kind"] != "pipe"):
            # copper never leaks; cap cards, taps and outlets are never leaky (spec section 2)
            raise ConfigError(f"{where}: only lead pipe cards without caps can be leaky")
        if t["kind"] != "pipe" and (t["colour"] != "lead" or e0.count(PIPE) != 1 or CAP in e0):
            # HY-R15: taps and outlets are lead cards with a single open pipe end
            raise ConfigError(f"{where}: a {t['kind']} must be lead with exactly one pipe end and no cap")
        ident = (t["code"], t["colour"], t["leaky"])
        if ident in seen:
            raise ConfigError(f"{where}: duplicate card type {ident}")
        seen.add(ident)
        e1 = [e0[(d + 2) % 4] for d in range(4)]
        codes.append(t["code"])
        kinds.append(t["kind"])
        colour.append(COLOUR_NAMES.index(t["colour"]))
        leaky.append(bool(t["leaky"]))
        counts.append(int(t["count"]))
        edges.append((tuple(e0), tuple(e1)))
        sym.append(e0 == e1)
    return Deck(
        data["name"], tuple(codes), tuple(kinds), tuple(colour), tuple(leaky), tuple(counts), tuple(edges), tuple(sym)
    )
