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
        ones = [self.phase + int(state.phase_id)]
        idx: list[int] = []  # fractional entries: indices and values
        val: list[float] = []
        if state.covered:
            ones.append(self.dig + 1)
        idx += [self.dig, self.misc, self.misc + 2]
        val += [state.dig_left / 3.0, state.supply / self.game.supply0, state.passes / n]
        if state.final_left >= 0:
            ones.append(self.misc + 1)
        tunnels = self.game.tunnels
        wside = g.white_side
        for k in range(n):
            p = (seat + k) % n
            ones.append(self.seats + k)
            sc = state.score[p]
            idx.append(self.scores + k)
            val.append(sc / (sc + SCORE_HALF))
            for ln in (0, 1):
                li = 2 * p + ln
                b = self.lines + (2 * k + ln) * 9
                sg = state.start_gate[li]
                if sg >= 0:
                    ones += [b, b + 3 + wside[sg]]
                if state.end_gate[li] >= 0:
                    ones.append(b + 1)
                idx.append(b + 2)
                val.append(state.unused(li) / tunnels)
        mb, tlb = self.markers, self.tri_letter
        for m, (own, t) in enumerate(zip(state.owner, state.marker_tri)):
            b = mb + m * (MAX_PLAYERS + 1)
            if own >= 0:
                ones.append(b + (own - seat) % n)
            if t >= 0:
                ones += [b + MAX_PLAYERS, tlb + (m % 6) * nt + t]
        o[idx] = val
        if state.phase_id >= Phase.DEAL:
            cache = state.encoder_cache
            if cache is None:  # the layout is fixed once set up: its one-hot indices, once per state
                cache = state.encoder_cache = self.tri_kind + np.asarray(state.kinds) * nt + self._arange_t
            o[cache] = 1
        tb = self.tri_owner
        tun = [tb + ((li // 2 - seat) % n) * nt + t for li, ts in enumerate(state.tris) for t in ts]
        if tun:
            o[tun] = 1
        v0 = self.vert
        ones += [v0 + v for v in state.has_station]
        for li, vs in enumerate(state.verts):
            if vs and state.end_gate[li] < 0:
                k = (li // 2 - seat) % n
                ones.append(v0 + (1 + k) * nv + vs[-1])
                if k == 0:
                    ones.append(v0 + (5 + li % 2) * nv + vs[-1])
        wu, bu = state.white_used, state.black_used
        ones += [v0 + 7 * nv + v for w, v in enumerate(g.white_gates) if w not in wu]
        ones += [v0 + 8 * nv + v for b, v in enumerate(g.black_gates) if b not in bu]
        eb = self.edges
        ones += [eb + ((li // 2 - seat) % n) * ne + e for e, lis in state.edge_lines.items() for li in lis]
        o[ones] = 1
        if self.action_features is not None and state.current_player() == seat:
            vals = action_values(state)
            for a, av in vals.items():  # legal actions only; illegal ones stay 0
                o[self.features + a] = min(1.0, max(0.01, (av + FEATURE_SHIFT) * FEATURE_SCALE))
        return o
