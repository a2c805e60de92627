"""Observation of Metromania, seat-relative ("me" first, then the others in turn order). The game
has perfect information (MM-R7), so every seat sees the whole board. Planes are plane-major:
entry ``offset + plane * size + index``. The layout table is in RULES.md."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .evaluate import action_values
from .rules import NUM_MARKERS, MetromaniaGame, MetromaniaState, Phase

MAX_PLAYERS = 4
SCORE_HALF = 10.0  # scores as s / (s + 10): in [0, 1) whatever the score
FEATURE_SHIFT, FEATURE_SCALE = 3.0, 0.1  # action values v as (v + 3) / 10, clipped to [0.01, 1]


class MetromaniaEncoder(Encoder):
    game: MetromaniaGame

    def build(self, L: Layout) -> None:
        g = self.game.geo
        self.nt, self.nv, self.ne = g.num_triangles, g.num_vertices, g.num_edges
        self.phase = L.block("phase", len(Phase))
        self.dig = L.block("dig", 2)  # tunnels left in the Dig / 3, destination covered this action
        self.seats = L.block("seats", MAX_PLAYERS)  # 1 per seat in the game, me first
        self.scores = L.block("scores", MAX_PLAYERS)  # points so far as s / (s + 10), me first
        self.misc = L.block("misc", 3)  # supply / 30, final round, passes / players
        self.lines = L.block("lines", MAX_PLAYERS * 2 * 9)  # per seat, line: started, finished, unused/18, start side
        self.markers = L.block("markers", NUM_MARKERS * (MAX_PLAYERS + 1))  # owner seat (relative), placed
        self.tri_kind = L.block("triangle_kind", 6 * self.nt)  # blank, R, C, E, lake, park
        self.tri_owner = L.block("triangle_tunnel", MAX_PLAYERS * self.nt)  # tunnel of seat k (relative)
        self.tri_letter = L.block("triangle_marker", 6 * self.nt)  # marker letter A..F on the triangle
        self.vert = L.block("vertices", 9 * self.nv)  # station, head of seat k (4), my line 0/1 head, gates W/B free
        self.edges = L.block("edges", MAX_PLAYERS * self.ne)  # a line of seat k runs on the edge
        if self.game.options["action_features"]:
            self.action_features = "action_features"
            self.features = L.block("action_features", self.game.num_actions)
        self._arange_t = np.arange(self.nt)

    def _board(self, state: MetromaniaState, seat: int) -> np.ndarray:
        """``seat``'s one-hot entries (the whole observation with the fractional entries left to
        ``encode``), kept in ``state.encoder_cache`` and brought up to date. Written through a
        memoryview: plain item writes, much cheaper than numpy indexing for a few entries.

        A line only grows (``verts``, ``tris``, ``line_edges``) until it ends, so when a line's
        (length, end gate) differs from what the board shows, its new tunnels and edges are added,
        its ``lines`` entries set and the head planes redrawn. The rest changes monotonically too:
        the layout (fixed from the deal on), the marker owners (from the deal on), the placed
        markers (``tri_marker`` only grows), stations (``has_station`` only grows) and the used
        gates (``white_used`` / ``black_used`` only grow): each rewritten when its size changed.
        The cache is tied to the state's ``tris`` list, so a clone or a loaded state (new lists)
        builds its own from scratch with the same code."""
        c = state.encoder_cache
        if c is None or c.tris is not state.tris or c.encoder is not self:
            c = state.encoder_cache = _Cache(self, state.tris)
        b = c.boards.get(seat)
        n = state.num_players
        g = self.game.geo
        nt, nv, ne = self.nt, self.nv, self.ne
        if b is None:
            b = c.boards[seat] = _Board(np.zeros(self.size, np.float32), 2 * n)
            o = b.o
            for k in range(n):
                o[self.seats + k] = 1
            for v in g.white_gates:
                o[self.vert + 7 * nv + v] = 1
            for v in g.black_gates:
                o[self.vert + 8 * nv + v] = 1
        o = b.o
        if not b.layout and state.phase_id >= Phase.DEAL:  # the layout, fixed from here on
            for t, kind in enumerate(state.kinds):
                o[self.tri_kind + kind * nt + t] = 1
            b.layout = True
        if not b.dealt and state.deal >= 0:  # the marker owners
            for m, own in enumerate(state.owner):
                if own >= 0:
                    o[self.markers + m * (MAX_PLAYERS + 1) + (own - seat) % n] = 1
            b.dealt = True
        keys = b.lines
        verts, end_gate = state.verts, state.end_gate
        moved = False
        for li, ts in enumerate(state.tris):
            key = (len(verts[li]), end_gate[li])
            if keys[li] == key:
                continue
            keys[li] = key
            moved = True
            rel = (li // 2 - seat) % n
            k0 = b.lens[li]
            if k0 < len(ts):
                tb = self.tri_owner + rel * nt
                for t in ts[k0:]:
                    o[tb + t] = 1
                eb = self.edges + rel * ne
                for e in state.line_edges[li][k0:]:
                    o[eb + e] = 1
                b.lens[li] = len(ts)
            lb = self.lines + (2 * rel + li % 2) * 9
            sg = state.start_gate[li]
            if sg >= 0:
                o[lb] = o[lb + 3 + g.white_side[sg]] = 1
            if end_gate[li] >= 0:
                o[lb + 1] = 1
            o[lb + 2] = state.unused(li) / self.game.tunnels  # changes only with the line
        if moved:  # heads: of seat k (relative), and my line 0 / 1
            for i in b.heads:
                o[i] = 0
            b.heads = heads = []
            v0 = self.vert
            for li, vs in enumerate(verts):
                if vs and end_gate[li] < 0:
                    rel = (li // 2 - seat) % n
                    heads.append(v0 + (1 + rel) * nv + vs[-1])
                    if rel == 0:
                        heads.append(v0 + (5 + li % 2) * nv + vs[-1])
            for i in heads:
                o[i] = 1
        tm = state.tri_marker
        if b.markers != len(tm):
            mb, tlb = self.markers, self.tri_letter
            for t, m in tm.items():
                o[mb + m * (MAX_PLAYERS + 1) + MAX_PLAYERS] = o[tlb + (m % 6) * nt + t] = 1
            b.markers = len(tm)
        hs = state.has_station
        if b.stations != len(hs):
            for v in hs:
                o[self.vert + v] = 1
            b.stations = len(hs)
        wu, bu = state.white_used, state.black_used
        if b.used != len(wu) + len(bu):
            for w in wu:
                o[self.vert + 7 * nv + g.white_gates[w]] = 0
            for x in bu:
                o[self.vert + 8 * nv + g.black_gates[x]] = 0
            b.used = len(wu) + len(bu)
        return b.arr

    def encode(self, state: MetromaniaState, seat: int) -> np.ndarray:
        arr = self._board(state, seat).copy()  # the caller's own array
        o: Any = arr.data  # a memoryview: item writes into arr
        n = state.num_players
        o[self.phase + state.phase_id] = 1
        o[self.dig] = state.dig_left / 3.0
        if state.covered:
            o[self.dig + 1] = 1
        o[self.misc] = state.supply / self.game.supply0
        if state.final_left >= 0:
            o[self.misc + 1] = 1
        o[self.misc + 2] = state.passes / n
        score = state.score
        for k in range(n):
            sc = score[(seat + k) % n]
            o[self.scores + k] = sc / (sc + SCORE_HALF)
        if self.action_features is not None and state.current_player() == seat:
            vals = action_values(state)
            for a, av in vals.items():  # legal actions only; illegal ones stay 0
                o[self.features + a] = min(1.0, max(0.01, (av + FEATURE_SHIFT) * FEATURE_SCALE))
        return arr


class _Board:
    """One seat's one-hot entries and how much of the state they show (see ``_board``)."""

    __slots__ = ("arr", "dealt", "heads", "layout", "lens", "lines", "markers", "o", "stations", "used")

    def __init__(self, arr: np.ndarray, lines: int):
        self.arr = arr
        self.o: Any = arr.data  # a memoryview: item writes into arr
        self.layout = False  # the layout's one-hots are written
        self.dealt = False  # the marker owners are written
        self.lines: list[tuple[int, int] | None] = [None] * lines  # per line, (length, end gate) shown
        self.lens = [0] * lines  # per line, tunnels (and edges) written
        self.heads: list[int] = []  # head entries set
        self.markers = 0  # size of tri_marker written
        self.stations = 0  # size of has_station written
        self.used = 0  # used gates cleared


class _Cache:
    """``state.encoder_cache``: per seat a ``_Board`` (read and written only by this encoder)."""

    __slots__ = ("boards", "encoder", "tris")

    def __init__(self, encoder: MetromaniaEncoder, tris: list[list[int]]):
        self.encoder = encoder
        self.tris = tris
        self.boards: dict[int, _Board] = {}
