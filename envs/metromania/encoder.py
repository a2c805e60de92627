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

    def encode(self, state: MetromaniaState, seat: int) -> np.ndarray:
        g = self.game.geo
        o = np.zeros(self.size, np.float32)
        n = state.num_players
        nt, nv, ne = self.nt, self.nv, self.ne
        o[self.phase + int(state.phase_id)] = 1
        o[self.dig] = state.dig_left / 3.0
        o[self.dig + 1] = float(state.covered)
        for k in range(n):
            p = (seat + k) % n
            o[self.seats + k] = 1
            o[self.scores + k] = state.score[p] / (state.score[p] + SCORE_HALF)
            for ln in (0, 1):
                li = 2 * p + ln
                b = self.lines + (2 * k + ln) * 9
                if state.start_gate[li] >= 0:
                    o[b] = 1
                    o[b + 3 + state.start_side(li)] = 1
                o[b + 1] = float(state.end_gate[li] >= 0)
                o[b + 2] = state.unused(li) / self.game.tunnels
        o[self.misc] = state.supply / self.game.supply0
        o[self.misc + 1] = float(state.final_left >= 0)
        o[self.misc + 2] = state.passes / n
        for m in range(NUM_MARKERS):
            b = self.markers + m * (MAX_PLAYERS + 1)
            if state.owner[m] >= 0:
                o[b + (state.owner[m] - seat) % n] = 1
            t = state.marker_tri[m]
            if t >= 0:
                o[b + MAX_PLAYERS] = 1
                o[self.tri_letter + (m % 6) * nt + t] = 1
        if state.phase_id >= Phase.DEAL:
            o[self.tri_kind + np.asarray(state.kinds) * nt + self._arange_t] = 1
        for li, ts in enumerate(state.tris):
            if ts:
                k = (li // 2 - seat) % n
                o[self.tri_owner + k * nt + np.asarray(ts)] = 1
        v0 = self.vert
        if state.has_station:
            o[v0 + np.fromiter(state.has_station, np.int64)] = 1
        for li, vs in enumerate(state.verts):
            if vs and state.end_gate[li] < 0:
                k = (li // 2 - seat) % n
                o[v0 + (1 + k) * nv + vs[-1]] = 1
                if k == 0:
                    o[v0 + (5 + li % 2) * nv + vs[-1]] = 1
        for w, v in enumerate(g.white_gates):
            if w not in state.white_used:
                o[v0 + 7 * nv + v] = 1
        for b, v in enumerate(g.black_gates):
            if b not in state.black_used:
                o[v0 + 8 * nv + v] = 1
        for e, lis in state.edge_lines.items():
            for li in lis:
                o[self.edges + ((li // 2 - seat) % n) * ne + e] = 1
        if self.action_features is not None and state.current_player() == seat:
            vals = action_values(state)
            for a, val in vals.items():  # legal actions only; illegal ones stay 0
                o[self.features + a] = min(1.0, max(0.01, (val + FEATURE_SHIFT) * FEATURE_SCALE))
        return o
