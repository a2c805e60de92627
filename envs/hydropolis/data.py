"""Hydropolis component data and precomputed geometry.

The deck composition is a Project decision (spec section 2) and lives in a JSON data file
(``deck_<name>.json`` beside this module, or any path), validated on load: a published component
list can replace it without code changes. The table is a bounded grid of upright cards (HY-V4).

Edges are numbered N=0, E=1, S=2, W=3; rotating a card by 180 degrees maps edge d to (d + 2) % 4
(HY-R7). A cell's *context* packs what its four neighbours show towards it into 8 bits (2 bits
per side: 0 no card / table edge, 1 NONE, 2 PIPE, 3 CAP); legality of every (card type, rotation)
depends only on that context (HY-R11 to HY-R14), so it is precomputed once as a table
``legal[context, type, rotation]``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.data import load_json
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
    "types": [{"code": str, "kind": str, "colour": str, "leaky": bool, "count": int,
               "edges": {"N": str, "E": str, "S": str, "W": str}}],
}

HERE = Path(__file__).resolve().parent
# per-cell observation planes: occupied, leaky, copper, (pipe, cap) x NESW, playable target
CARD_PLANES = 12
TARGET_PLANE = 11


@dataclass(frozen=True)
class Deck:
    """The validated card types of one deck file (type id = position in the file)."""

    name: str
    codes: tuple[str, ...]
    kinds: tuple[str, ...]
    colour: tuple[int, ...]
    leaky: tuple[bool, ...]
    counts: tuple[int, ...]
    edges: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]   # [type][rotation][direction]
    symmetric: tuple[bool, ...]                                  # 180-degree symmetric

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


def deck_path(name: str) -> Path:
    """``waterworks_88`` -> ``deck_waterworks_88.json`` beside this module; a name ending in
    ``.json`` is a path (absolute, or relative to this folder)."""
    if name.endswith(".json"):
        p = Path(name)
        return p if p.is_absolute() else HERE / p
    if not re.fullmatch(r"[A-Za-z0-9_\-]+", name):
        raise ConfigError(f"option deck={name!r}: expected a deck name such as 'waterworks_88' or a .json path")
    return HERE / f"deck_{name}.json"


_DECKS: dict[str, Deck] = {}


def load_deck(name: str) -> Deck:
    """Load and validate a deck file (cached). Raises ConfigError naming the deck and the entry."""
    path = deck_path(name)
    key = str(path)
    if key in _DECKS:
        return _DECKS[key]
    try:
        data = load_json(HERE, str(path), DECK_SCHEMA)
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
    deck = Deck(data["name"], tuple(codes), tuple(kinds), tuple(colour), tuple(leaky), tuple(counts),
                tuple(edges), tuple(sym))
    _DECKS[key] = deck
    return deck


def parse_table_size(value: str) -> tuple[int, int]:
    """``"15x11"`` -> (15, 11); both sides odd-or-even in 3..31 (the start card needs neighbours)."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", value)
    if not m:
        raise ConfigError(f"option table_size={value!r}: expected 'COLSxROWS' such as '15x11'")
    cols, rows = int(m.group(1)), int(m.group(2))
    if not (3 <= cols <= 31 and 3 <= rows <= 31):
        raise ConfigError(f"option table_size={value!r}: columns and rows must be in 3..31")
    return cols, rows


class Geometry:
    """Everything about one (deck, table) pair that never changes during a game."""

    def __init__(self, deck: Deck, cols: int, rows: int):
        self.deck = deck
        self.cols, self.rows = cols, rows
        self.num_cells = C = cols * rows
        self.centre = (rows // 2) * cols + cols // 2
        T = deck.num_types
        # orthogonal neighbours NB[c][d] (-1 = table edge, HY-R13) and the 8 cells around (HY-R16)
        nb, nb8 = [], []
        for c in range(C):
            r, q = divmod(c, cols)
            row = []
            for dr, dq in ((-1, 0), (0, 1), (1, 0), (0, -1)):
                rr, qq = r + dr, q + dq
                row.append(rr * cols + qq if 0 <= rr < rows and 0 <= qq < cols else -1)
            nb.append(tuple(row))
            nb8.append(tuple((r + dr) * cols + q + dq for dr in (-1, 0, 1) for dq in (-1, 0, 1)
                             if (dr or dq) and 0 <= r + dr < rows and 0 <= q + dq < cols))
        self.nb = tuple(nb)
        self.nb8 = tuple(nb8)
        # legal[ctx, t, r]: HY-R11 (edge compatibility), HY-R12 (a connection), HY-R7 (one action per
        # distinct play: rotation 180 masked for symmetric cards); live[ctx]: a PIPE or CAP faces the cell
        legal = np.zeros((256, T, 2), dtype=bool)
        live = np.zeros(256, dtype=bool)
        for ctx in range(256):
            slots = [(ctx >> (2 * d)) & 3 for d in range(4)]
            live[ctx] = any(s >= 2 for s in slots)
            for t in range(T):
                for rot in range(2):
                    if rot == 1 and deck.symmetric[t]:
                        continue
                    legal[ctx, t, rot] = edges_fit(deck.edges[t][rot], slots)
        self.legal = legal
        self.live = live
        self.live_list = live.tolist()
        # bit (2 t + r) of legal_bits[ctx]: card t in rotation r fits a cell with that context
        self.legal_bits = [sum(1 << (2 * t + r) for t in range(T) for r in range(2) if legal[ctx, t, r])
                           for ctx in range(256)]
        # legal_by_card[2 t + r][ctx]: the same table, read per selected card
        self.legal_by_card = [legal[:, t, r].tolist() for t in range(T) for r in range(2)]
        # slot code (2 bits) each (type, rotation) shows on side d: edge + 1
        self.slot = tuple(tuple(tuple(e + 1 for e in deck.edges[t][rot]) for rot in range(2)) for t in range(T))
        # observation row of a card (type, rotation)
        rows_ = np.zeros((T, 2, CARD_PLANES), dtype=np.float32)
        for t in range(T):
            for rot in range(2):
                rows_[t, rot, 0] = 1.0
                rows_[t, rot, 1] = float(deck.leaky[t])
                rows_[t, rot, 2] = float(deck.colour[t] == COPPER)
                rows_[t, rot, TARGET_PLANE] = float(deck.leaky[t])   # a leaky card can be covered
                for d in range(4):
                    e = deck.edges[t][rot][d]
                    if e == PIPE:
                        rows_[t, rot, 3 + 2 * d] = 1.0
                    elif e == CAP:
                        rows_[t, rot, 4 + 2 * d] = 1.0
        self.card_rows = rows_
        # conn[ctx | colours << 8, t, r]: connection points (HY-R17, HY-R18) of card t in rotation r
        # on a cell whose neighbours show the slot codes ``ctx`` and have the colours ``colours``
        # (bit d set: the neighbour on side d is copper); with the 8-neighbour count (HY-R16) and the
        # overlay bonus (HY-R19) this gives every play's points without a Python loop
        full = np.arange(256 * 16)
        conn = np.zeros((256 * 16, T, 2), dtype=np.int16)
        edge = np.array(deck.edges, dtype=np.int64)                  # (T, 2, 4)
        own_col = np.array(deck.colour, dtype=np.int64)[None, :]      # (1, T)
        for d in range(4):
            s = (full >> (2 * d)) & 3                                # 0 empty, else their edge + 1
            col = (full >> (8 + d)) & 1
            theirs = (s - 1)[:, None, None]
            mine = edge[None, :, :, d]
            same = (col[:, None] == own_col)[:, :, None]
            pp = (mine == PIPE) & (theirs == PIPE)
            pc = ((mine == PIPE) & (theirs == CAP)) | ((mine == CAP) & (theirs == PIPE))
            conn += np.where(s[:, None, None] == 0, 0, np.where(pp, 2 + same, np.where(pc, same, 0))).astype(np.int16)
        self.conn = conn
        # the same table per card as plain lists, conn_by_card[2 t + r][full context]
        self.conn_by_card = conn.reshape(256 * 16, 2 * T).T.tolist()


def edges_fit(edges: tuple[int, ...], slots: list[int]) -> bool:
    """Whether a card with ``edges`` (NESW) fits neighbours showing ``slots`` (0 empty, else edge+1).

    HY-R11: PIPE-PIPE and PIPE-CAP fit (and connect), CAP-NONE and NONE-NONE fit, CAP-CAP and
    PIPE-NONE (either way round) do not; HY-R13: an empty side has no constraint; HY-R12: at least
    one connection is needed.
    """
    connected = False
    for d in range(4):
        s = slots[d]
        if s == 0:
            continue
        mine, theirs = edges[d], s - 1
        if mine == CAP and theirs == CAP:
            return False
        if (mine == PIPE and theirs == NONE) or (mine == NONE and theirs == PIPE):
            return False
        if mine != NONE and theirs != NONE:
            connected = True
    return connected


_GEOMETRY: dict[tuple, Geometry] = {}


def geometry(deck_name: str, cols: int, rows: int) -> Geometry:
    deck = load_deck(deck_name)
    key = (str(deck_path(deck_name)), cols, rows)
    if key not in _GEOMETRY:
        _GEOMETRY[key] = Geometry(deck, cols, rows)
    return _GEOMETRY[key]
