"""Component data of Voll verplant: subway maps and card decks (JSON files, validated on load).

A map file (bundled: ``data/maps/<name>.json``; or any path) holds
``{"name", "lines": [{"name", "windows", "bonus_first", "bonus_other", "stations": [ids start -> end],
"color"?}], "layout"?: {"<id>": [x, y]}}``; a deck file (bundled: ``data/decks/<name>.json``) holds
``{"name", "cards": [{"type": number|express|transfer|free, "value"?, "count", "shuffle"?}]}``.
Adding a city map or a published deck list is a new data file only (VV-V3).

Options ``map`` / ``deck`` name a bundled file (lower-case letters, digits, ``_``) or a path to a
JSON file, resolved by core ``resolve_data`` (a relative path against the working directory, as
before). Loaders are cached per file version with ``functools.cache``.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from pathlib import Path

import numpy as np

from ..core.data import load_json, resolve_data
from ..core.game import ConfigError

MAX_LINES = 10  # action space padding (spec section 6)
MAX_STATIONS = 64
MAX_VALUE = 6  # crosses per card: k in 0..6
MAX_WINDOWS = 6
MAX_PLAYERS = 6

MAP_SCHEMA = {
    "name": str,
    "note?": str,
    "lines": [{"name": str, "windows": int, "bonus_first": int, "bonus_other": int, "stations": [int], "color?": str}],
    "layout?": dict,
}
DECK_SCHEMA = {
    "name": str,
    "note?": str,
    "cards": [{"type": str, "value?": int, "count": int, "shuffle?": bool}],
}
CARD_TYPES = ("number", "express", "transfer", "free")


class CardType(IntEnum):
    """Card types (``DeckData.kind_type``; the index in CARD_TYPES)."""

    NUMBER = 0
    EXPRESS = 1
    TRANSFER = 2
    FREE = 3


# plain-int aliases for the hot paths (exact ints compare on CPython's fast path)
NUMBER, EXPRESS, TRANSFER, FREE = (int(t) for t in CardType)

DEFAULT_COLORS = [
    "#d7263d",
    "#f49d37",
    "#1b998b",
    "#3f88c5",
    "#8e44ad",
    "#8d6e63",
    "#e84393",
    "#2e7d32",
    "#c9a227",
    "#607d8b",
]


def _hex(c: str, where: str) -> tuple[int, int, int]:
    s = c.lstrip("#")
    if len(s) != 6:
        raise ConfigError(f"{where}: colour {c!r} is not #rrggbb")
    try:
        return (int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16))
    except ValueError:
        raise ConfigError(f"{where}: colour {c!r} is not #rrggbb") from None


class MapData:
    """A validated subway map with the geometry the rules need precomputed.

    Attributes:
        line_names, windows, bonus_first, bonus_other: per line (map order, A = 0).
        line_st: station indices (id - 1) of each line, start -> end.
        st_lines: the lines through each station index (empty where the id is unused).
        stations: the used station indices, sorted.
    """

    def __init__(self, data: dict, source: str):
        self.source = source
        self.name = data["name"]
        lines = data["lines"]
        where = f"map {source}"
        if not 1 <= len(lines) <= MAX_LINES:
            raise ConfigError(f"{where}: needs 1..{MAX_LINES} lines, has {len(lines)}")
        names = [ln["name"] for ln in lines]
        if len(set(names)) != len(names):
            raise ConfigError(f"{where}: line names are not unique: {names}")
        self.line_names = names
        self.windows = [ln["windows"] for ln in lines]
        self.bonus_first = [ln["bonus_first"] for ln in lines]
        self.bonus_other = [ln["bonus_other"] for ln in lines]
        self.line_st: list[list[int]] = []
        for ln in lines:
            lw = f"{where}: line {ln['name']}"
            if not 1 <= ln["windows"] <= MAX_WINDOWS:
                raise ConfigError(f"{lw}: windows must be 1..{MAX_WINDOWS}")
            if ln["bonus_first"] < ln["bonus_other"] or ln["bonus_other"] < 0:
                raise ConfigError(f"{lw}: needs bonus_first >= bonus_other >= 0")
            st = ln["stations"]
            if not st:
                raise ConfigError(f"{lw}: has no stations")
            if any(not 1 <= s <= MAX_STATIONS for s in st):
                raise ConfigError(f"{lw}: station ids must be 1..{MAX_STATIONS}")
            if len(set(st)) != len(st):
                raise ConfigError(f"{lw}: a station appears twice")
            self.line_st.append([s - 1 for s in st])
        self.colors = [
            _hex(ln.get("color", DEFAULT_COLORS[i]), f"{where}: line {ln['name']}") for i, ln in enumerate(lines)
        ]
        self.num_lines = len(lines)
        self.st_lines: list[list[int]] = [[] for _ in range(MAX_STATIONS)]
        for li, st in enumerate(self.line_st):
            for s in st:
                self.st_lines[s].append(li)
        self.stations = [s for s in range(MAX_STATIONS) if self.st_lines[s]]
        self.num_stations = len(self.stations)
        self.n_lines_through = [len(x) for x in self.st_lines]
        self.total_windows = sum(self.windows)
        self.transfers = [s for s in self.stations if self.n_lines_through[s] > 1]
        layout = data.get("layout")
        self.layout: dict[int, tuple[float, float]] | None = None
        if layout is not None:
            pos = {}
            for k, v in layout.items():
                if (
                    not k.isdigit()
                    or not isinstance(v, list)
                    or len(v) != 2
                    or not all(isinstance(x, (int, float)) for x in v)
                ):
                    raise ConfigError(f'{where}: layout entry {k!r}: {v!r} is not "id": [x, y]')
                pos[int(k) - 1] = (float(v[0]), float(v[1]))
            missing = [s + 1 for s in self.stations if s not in pos]
            if missing:
                raise ConfigError(f"{where}: layout lacks stations {missing}")
            self.layout = pos

    def positions(self) -> dict[int, tuple[float, float]]:
        """Station index -> (x, y) in [0, 1]^2 for drawing: the map's layout, else a stress
        layout of the network (deterministic, computed once)."""
        if not hasattr(self, "_pos"):
            pos = self.layout if self.layout is not None else _stress_layout(self)
            xs = [p[0] for p in pos.values()]
            ys = [p[1] for p in pos.values()]
            x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
            span = max(x1 - x0, y1 - y0, 1e-9)  # keep the aspect ratio, centre the short side
            dx, dy = (span - (x1 - x0)) / 2, (span - (y1 - y0)) / 2
            self._pos = {s: ((p[0] - x0 + dx) / span, (p[1] - y0 + dy) / span) for s, p in pos.items()}
        return self._pos


def _stress_layout(m: MapData) -> dict[int, tuple[float, float]]:
    """Stress-majorization (SMACOF) layout from graph distances, classical-MDS start."""
    idx = {s: i for i, s in enumerate(m.stations)}
    n = len(idx)
    if n == 1:
        return {m.stations[0]: (0.0, 0.0)}
    adj: list[list[int]] = [[] for _ in range(n)]
    for st in m.line_st:
        for a, b in zip(st, st[1:]):
            adj[idx[a]].append(idx[b])
            adj[idx[b]].append(idx[a])
    d = np.full((n, n), np.inf)
    for i in range(n):
        d[i, i] = 0
        frontier = [i]
        while frontier:
            nxt = []
            for u in frontier:
                for v in adj[u]:
                    if d[i, v] == np.inf:
                        d[i, v] = d[i, u] + 1
                        nxt.append(v)
            frontier = nxt
    finite = d[np.isfinite(d)].max()
    d[~np.isfinite(d)] = finite + 2
    j = np.eye(n) - 1.0 / n
    b = -0.5 * j @ (d**2) @ j
    evals, evecs = np.linalg.eigh(b)
    x = evecs[:, -2:] * np.sqrt(np.maximum(evals[-2:], 1e-9))
    x = x + 1e-3 * np.arange(2 * n).reshape(n, 2) / n
    wgt = 1.0 / np.maximum(d, 1) ** 2
    np.fill_diagonal(wgt, 0)
    lw = np.diag(wgt.sum(1)) - wgt
    lpinv = np.linalg.pinv(lw)
    for _ in range(300):
        dist = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        np.fill_diagonal(dist, 1)
        bz = -wgt * d / dist
        np.fill_diagonal(bz, 0)
        np.fill_diagonal(bz, -bz.sum(1))
        x = lpinv @ bz @ x
    if np.ptp(x[:, 1]) > np.ptp(x[:, 0]):  # landscape
        x = x[:, ::-1]
    return {s: (float(x[i, 0]), float(x[i, 1])) for s, i in idx.items()}


class DeckData:
    """A validated deck: card kinds (type, value, shuffle, count) in file order."""

    def __init__(self, data: dict, source: str):
        self.source = source
        self.name = data["name"]
        where = f"deck {source}"
        self.kind_type: list[int] = []
        self.kind_value: list[int] = []
        self.kind_shuffle: list[bool] = []
        self.kind_count: list[int] = []
        for i, c in enumerate(data["cards"]):
            cw = f"{where}: cards[{i}]"
            if c["type"] not in CARD_TYPES:
                raise ConfigError(f"{cw}: type {c['type']!r} is not one of {list(CARD_TYPES)}")
            t = CARD_TYPES.index(c["type"])
            if t in (NUMBER, EXPRESS):
                if "value" not in c or not 1 <= c["value"] <= MAX_VALUE:
                    raise ConfigError(f"{cw}: a {c['type']} card needs a value 1..{MAX_VALUE}")
                v = c["value"]
            else:
                if "value" in c:
                    raise ConfigError(f"{cw}: a {c['type']} card has no value")
                v = 0
            if c["count"] < 1:
                raise ConfigError(f"{cw}: count must be >= 1")
            self.kind_type.append(t)
            self.kind_value.append(v)
            self.kind_shuffle.append(bool(c.get("shuffle", False)))
            self.kind_count.append(c["count"])
        if not self.kind_type:
            raise ConfigError(f"{where}: has no cards")
        if not any(self.kind_shuffle):
            # VV-R7: the deck can never run out only if a shuffle card is in it
            raise ConfigError(f"{where}: needs a card with the shuffle symbol (VV-R7)")
        if all(t == FREE for t in self.kind_type):
            raise ConfigError(f"{where}: needs a card that fills a window, or the game never ends")
        self.num_kinds = len(self.kind_type)
        self.size = sum(self.kind_count)

    def card_name(self, k: int) -> str:
        t, v = self.kind_type[k], self.kind_value[k]
        s = {NUMBER: f"{v}", EXPRESS: f"({v}) express", TRANSFER: "* transfer", FREE: "o free ride"}[t]
        return s + (" [shuffle]" if self.kind_shuffle[k] else "")


@cache
def _map_file(path: Path, stamp: tuple[int, int]) -> MapData:
    return MapData(load_json(path.parent, path.name, MAP_SCHEMA), path.name)


@cache
def _deck_file(path: Path, stamp: tuple[int, int]) -> DeckData:
    return DeckData(load_json(path.parent, path.name, DECK_SCHEMA), path.name)


def load_map(ref: str) -> MapData:
    """The map of option ``map`` (a bundled name or a JSON path), validated; cached per file version."""
    path = resolve_data(__file__, "maps", ref, option="map")
    st = path.stat()
    try:
        return _map_file(path, (st.st_mtime_ns, st.st_size))
    except ConfigError as e:
        raise ConfigError(f"option map={ref!r}: {e}") from None


def load_deck(ref: str) -> DeckData:
    """The deck of option ``deck`` (a bundled name or a JSON path), validated; cached per file version."""
    path = resolve_data(__file__, "decks", ref, option="deck")
    st = path.stat()
    try:
        return _deck_file(path, (st.st_mtime_ns, st.st_size))
    except ConfigError as e:
        raise ConfigError(f"option deck={ref!r}: {e}") from None
