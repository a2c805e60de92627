"""Observation of Metromania, seat-relative ("me" first, then the others in turn order). The game
has perfect information (MM-R7), so every seat sees the whole board. Planes are plane-major:
entry ``offset + plane * size + index``. The layout table is in RULES.md."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .evaluate import action_values
from .rules import NUM_MARKERS, P_DEAL, MetromaniaGame, MetromaniaState, Phase

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
        self._fresh: dict[int, np.ndarray] = {}  # _new_board
        g = self.game.geo
        self.gates = np.array(
            [self.vert + 7 * self.nv + v for v in g.white_gates] + [self.vert + 8 * self.nv + v for v in g.black_gates]
        )

    def _board(self, state: MetromaniaState, seat: int) -> _Board:
        """``seat``'s one-hot entries and the lines' unused counts (the whole observation but the
        turn counters ``encode`` writes), kept in ``state.encoder_cache`` and brought up to date.
        Written through a memoryview: plain item writes (of floats: an int is converted on each
        write), cheaper than numpy indexing.

        Everything here only grows during a game, so each part is brought up to date from what
        was added since: tunnels from the rules' log ``placed`` (and the lines they extend: their
        new edges, unused count and head); starts and ends from the used gates (``white_used`` /
        ``black_used``: when their count changes, every line is looked at again); stations from
        the rules' log ``station_log``; placed markers (``tri_marker``) rewritten when their count
        changes; the layout and the marker owners once, from the deal on. The cache is tied to the
        state's ``tris`` list, so a clone or a loaded state (new lists) builds its own from scratch
        with the same code."""
        c = state.encoder_cache
        if c is None or c.tris is not state.tris or c.encoder is not self:
            c = state.encoder_cache = _Cache(self, state.tris)
        b = c.boards.get(seat)
        n = state.num_players
        if b is None:
            b = c.boards[seat] = _Board(self._new_board(n), [(li // 2 - seat) % n for li in range(2 * n)])
        o = b.o
        if not b.dealt:
            if not b.layout and state.phase_id >= P_DEAL:  # the layout, fixed from here on
                if c.layout is None:  # its entries, found once for every seat
                    c.layout = self.tri_kind + np.asarray(state.kinds) * self.nt + self._arange_t
                b.arr[c.layout] = 1
                b.layout = True
            if state.deal >= 0:  # the marker owners
                for m, own in enumerate(state.owner):
                    if own >= 0:
                        o[self.markers + m * (MAX_PLAYERS + 1) + (own - seat) % n] = 1.0
                b.dealt = True
        placed = state.placed
        wu, bu = state.white_used, state.black_used
        used = len(wu) + len(bu)
        new = len(placed) - b.placed  # tunnels not written yet
        if b.used != used:  # a line started or ended (or a new board): all lines
            g = self.game.geo
            gw, gb = self.vert + 7 * self.nv, self.vert + 8 * self.nv
            for w in wu:
                o[gw + g.white_gates[w]] = 0.0
            for x in bu:
                o[gb + g.black_gates[x]] = 0.0
            b.used = used
            lines: Iterable[int] = range(2 * n)
            # the lines' start and end entries: they change only here
            start_gate, end_gate, rel, side = state.start_gate, state.end_gate, b.rel, g.white_side
            for li in lines:
                lb = self.lines + (2 * rel[li] + li % 2) * 9
                sg = start_gate[li]
                if sg >= 0:
                    o[lb] = o[lb + 3 + side[sg]] = 1.0
                if end_gate[li] >= 0:
                    o[lb + 1] = 1.0
        elif new == 1:  # the usual case: one tunnel since
            lines = (state.tri_line[placed[-1]],)
        elif new:
            tri_line = state.tri_line
            lines = {tri_line[t] for t in placed[b.placed :]}
        else:
            lines = ()
        if new:
            rel, tri_line, tb, nt = b.rel, state.tri_line, self.tri_owner, self.nt
            for t in placed[b.placed :]:
                o[tb + rel[tri_line[t]] * nt + t] = 1.0
            b.placed = len(placed)
        for li in lines:
            self._line(b, state, li)
        tm = state.tri_marker
        if b.markers != len(tm):
            mb, tlb, nt = self.markers, self.tri_letter, self.nt
            for t, m in tm.items():
                o[mb + m * (MAX_PLAYERS + 1) + MAX_PLAYERS] = o[tlb + (m % 6) * nt + t] = 1.0
            b.markers = len(tm)
        log = state.station_log
        if b.stations < len(log):
            vb = self.vert
            for v in log[b.stations :]:
                o[vb + v] = 1.0
            b.stations = len(log)
        return b

    def _new_board(self, n: int) -> np.ndarray:
        """A new board for n players: its seats and all gates free (a copy of one made once per n)."""
        fresh = self._fresh.get(n)
        if fresh is None:
            fresh = self._fresh[n] = np.zeros(self.size, np.float32)
            fresh[self.seats : self.seats + n] = 1
            fresh[self.gates] = 1  # gates free
        return fresh.copy()

    def _line(self, b: _Board, state: MetromaniaState, li: int) -> None:
        """Line li's entries on board b: its new edges, its unused count and its head (its start
        and end entries: ``_board``)."""
        o, rel = b.o, b.rel[li]
        es = state.line_edges[li]
        if b.lens[li] < len(es):
            eb = self.edges + rel * self.ne
            for e in es[b.lens[li] :]:
                o[eb + e] = 1.0
            b.lens[li] = len(es)
        o[self.lines + (2 * rel + li % 2) * 9 + 2] = state.unused(li) / self.game.tunnels
        ended = state.end_gate[li] >= 0
        # heads: plane "head of seat k" (the two lines of a seat may share an entry there) and,
        # for my own lines, "my line 0 / 1 head"
        vs = state.verts[li]
        head = self.vert + (1 + rel) * self.nv + vs[-1] if vs and not ended else -1
        old = b.head[li]
        if head != old:
            if old >= 0:
                if b.head[li ^ 1] != old:  # the other line of the seat does not share it
                    o[old] = 0.0
                if rel == 0:
                    o[old + (4 + li % 2) * self.nv] = 0.0
            if head >= 0:
                o[head] = 1.0
                if rel == 0:
                    o[head + (4 + li % 2) * self.nv] = 1.0
            b.head[li] = head

    def encode(self, state: MetromaniaState, seat: int) -> np.ndarray:
        # the turn counters go into the seat's cached board too (through its memoryview: a fresh
        # array's would cost a buffer export per call), each entry rewritten every call, its value
        # 0.0 where the counter is 0, as in a zeroed array; the phase's one-hot clears the old one
        b = self._board(state, seat)
        o = b.o
        n = state.num_players
        ph = self.phase + state.phase_id
        if ph != b.phase:
            if b.phase >= 0:
                o[b.phase] = 0.0
            o[ph] = 1.0
            b.phase = ph
        o[self.dig] = state.dig_left / 3.0
        o[self.dig + 1] = 1.0 if state.covered else 0.0
        misc = self.misc
        o[misc] = state.supply / self.game.supply0
        o[misc + 1] = 1.0 if state.final_left >= 0 else 0.0
        o[misc + 2] = state.passes / n
        score, sb = state.score, self.scores
        for k in range(n):
            sc = score[(seat + k) % n]
            o[sb + k] = sc / (sc + SCORE_HALF)
        arr = b.arr.copy()  # the caller's own array
        if self.action_features is not None and state.current_player() == seat:
            vals = action_values(state)
            of: Any = arr.data  # a memoryview: item writes into arr
            for a, av in vals.items():  # legal actions only; illegal ones stay 0
                of[self.features + a] = min(1.0, max(0.01, (av + FEATURE_SHIFT) * FEATURE_SCALE))
        return arr


class _Board:
    """One seat's entries and how much of the state they show (see ``_board``)."""

    __slots__ = ("arr", "dealt", "head", "layout", "lens", "markers", "o", "phase", "placed", "rel", "stations", "used")

    def __init__(self, arr: np.ndarray, rel: list[int]):
        self.arr = arr
        self.o: Any = arr.data  # a memoryview: item writes into arr
        self.rel = rel  # per line, its seat relative to the board's seat
        self.layout = False  # the layout's one-hots are written
        self.dealt = False  # the marker owners are written
        self.placed = 0  # tunnels of the log written
        self.lens = [0] * len(rel)  # per line, edges written
        self.head = [-1] * len(rel)  # per line, its entry in the "head of seat k" plane (-1: none)
        self.markers = 0  # size of tri_marker written
        self.stations = 0  # entries of station_log written
        self.used = -1  # used gates cleared (-1: a new board, lines not written yet)
        self.phase = -1  # the phase entry ``encode`` set to 1 (-1: none yet)


class _Cache:
    """``state.encoder_cache``: per seat a ``_Board`` (read and written only by this encoder)."""

    __slots__ = ("boards", "encoder", "layout", "tris")

    def __init__(self, encoder: MetromaniaEncoder, tris: list[list[int]]):
        self.encoder = encoder
        self.tris = tris
        self.boards: dict[int, _Board] = {}
        self.layout: np.ndarray | None = None  # the layout's one-hot entries (from the deal on)
