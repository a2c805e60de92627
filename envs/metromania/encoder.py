"""Observation of Metromania, seat-relative ("me" first, then the others in turn order). The game
has perfect information (MM-R7), so every seat sees the whole board. Planes are plane-major:
entry ``offset + plane * size + index``. The layout table is in RULES.md."""

from __future__ import annotations

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
        """``seat``'s view of everything but the few turn counters, kept in ``state.encoder_cache``
        and brought up to date.

        A line only grows (``verts``, ``tris``, ``line_edges``) until it ends, so when a line's
        (length, end gate) differs from what the board shows, its new tunnels and edges are added,
        its ``lines`` entries rewritten and the head planes redrawn. The rest changes monotonically
        too: the layout (fixed from the deal on), the marker owners (from the deal on), the placed
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
            o[self.seats : self.seats + n] = 1
            o[[self.vert + 7 * nv + v for v in g.white_gates]] = 1
            o[[self.vert + 8 * nv + v for v in g.black_gates]] = 1
        o = b.o
        if not b.layout and state.phase_id >= Phase.DEAL:  # the layout, fixed from here on
            o[self.tri_kind + np.asarray(state.kinds) * nt + self._arange_t] = 1
            b.layout = True
        if not b.dealt and state.deal >= 0:  # the marker owners
            mb = self.markers
            o[[mb + m * (MAX_PLAYERS + 1) + (own - seat) % n for m, own in enumerate(state.owner) if own >= 0]] = 1
            b.dealt = True
        ones: list[int] = []
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
                tb, eb = self.tri_owner + rel * nt, self.edges + rel * ne
                ones += [tb + t for t in ts[k0:]]
                ones += [eb + e for e in state.line_edges[li][k0:]]
                b.lens[li] = len(ts)
            lb = self.lines + (2 * rel + li % 2) * 9
            sg = state.start_gate[li]
            if sg >= 0:
                ones += [lb, lb + 3 + g.white_side[sg]]
            if end_gate[li] >= 0:
                ones.append(lb + 1)
            o[lb + 2] = state.unused(li) / self.game.tunnels
        if moved:  # heads: of seat k (relative), and my line 0 / 1
            o[b.heads] = 0
            b.heads = heads = []
            v0 = self.vert
            for li, vs in enumerate(verts):
                if vs and end_gate[li] < 0:
                    rel = (li // 2 - seat) % n
                    heads.append(v0 + (1 + rel) * nv + vs[-1])
                    if rel == 0:
                        heads.append(v0 + (5 + li % 2) * nv + vs[-1])
            ones += heads
        tm = state.tri_marker
        if b.markers != len(tm):
            mb, tlb = self.markers, self.tri_letter
            for t, m in tm.items():
                ones += [mb + m * (MAX_PLAYERS + 1) + MAX_PLAYERS, tlb + (m % 6) * nt + t]
            b.markers = len(tm)
        hs = state.has_station
        if b.stations != len(hs):
            ones += [self.vert + v for v in hs]
            b.stations = len(hs)
        if ones:
            o[ones] = 1
        wu, bu = state.white_used, state.black_used
        if b.used != len(wu) + len(bu):
            o[[self.vert + 7 * nv + g.white_gates[w] for w in wu]] = 0
            o[[self.vert + 8 * nv + g.black_gates[x] for x in bu]] = 0
            b.used = len(wu) + len(bu)
        return o

    def encode(self, state: MetromaniaState, seat: int) -> np.ndarray:
        o = self._board(state, seat).copy()
        n = state.num_players
        o[self.phase + int(state.phase_id)] = 1
        if state.covered:
            o[self.dig + 1] = 1
        o[self.dig] = state.dig_left / 3.0
        o[self.misc] = state.supply / self.game.supply0
        o[self.misc + 2] = state.passes / n
        if state.final_left >= 0:
            o[self.misc + 1] = 1
        for k in range(n):
            sc = state.score[(seat + k) % n]
            o[self.scores + k] = sc / (sc + SCORE_HALF)
        if self.action_features is not None and state.current_player() == seat:
            vals = action_values(state)
            for a, av in vals.items():  # legal actions only; illegal ones stay 0
                o[self.features + a] = min(1.0, max(0.01, (av + FEATURE_SHIFT) * FEATURE_SCALE))
        return o


class _Board:
    """One seat's planes and how much of the state they show (see ``_board``)."""

    __slots__ = ("dealt", "heads", "layout", "lens", "lines", "markers", "o", "stations", "used")

    def __init__(self, o: np.ndarray, lines: int):
        self.o = o
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
