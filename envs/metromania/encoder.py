"""Observation of Metromania, seat-relative ("me" first, then the others in turn order). The game
has perfect information (MM-R7), so every seat sees the whole board. Planes are plane-major:
entry ``offset + plane * size + index``. The layout table is in RULES.md."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .evaluate import turn_values
from .rules import LOG_LAYOUT, LOG_MARKER, LOG_STATION, NUM_MARKERS, MetromaniaGame, MetromaniaState, Phase

MAX_PLAYERS = 4
SCORE_HALF = 10.0  # scores as s / (s + 10): in [0, 1) whatever the score
FEATURE_SHIFT, FEATURE_SCALE = 3.0, 1 / 12  # two-ply action values v as (v + 3) / 12, clipped to [0.01, 1]
_TURN_BYTES = 4 * (len(Phase) + 2)  # the phase one-hot and the Dig entries as float32 bytes (``encode``)


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
        self.tunnels = self.game.tunnels
        # the turn counters as float32 bytes, written whole (``encode``): the phase one-hot and the
        # dig entries (adjacent blocks) per (phase, tunnels left in the Dig, covered); the final
        # round flag and the passes per (player count, passes, final round)
        assert self.dig == self.phase + len(Phase) and self.game.dig_tunnels <= 3
        rows = []
        for ph in range(len(Phase)):
            for left in range(4):
                for covered in (0, 1):
                    row = np.zeros(len(Phase) + 2, np.float32)
                    row[ph] = 1
                    row[len(Phase) :] = [left / 3.0, 1.0 if covered else 0.0]
                    rows.append(row.tobytes())
        self._turn_rows = rows
        self._turn_at = 4 * self.phase  # byte offset
        self._misc_rows = {
            n: [np.array([final, passes / n], np.float32).tobytes() for passes in range(n) for final in (0.0, 1.0)]
            for n in range(self.game.min_players, self.game.max_players + 1)
        }
        self._misc_at = 4 * (self.misc + 1)
        self._fresh: dict[int, np.ndarray] = {}  # _new_board
        g = self.game.geo
        self.white_free, self.black_free = self.vert + 7 * self.nv, self.vert + 8 * self.nv  # the gates' planes
        self.gates = np.array(
            [self.vert + 7 * self.nv + v for v in g.white_gates] + [self.vert + 8 * self.nv + v for v in g.black_gates]
        )

    def _board(self, state: MetromaniaState, seat: int) -> _Board:
        """A new board for ``seat`` in ``state.encoder_cache`` (made on its first call): the
        seats, the free gates, the supply, the scores and the lines so far; ``_catch_up`` writes
        the rest."""
        c = state.encoder_cache
        if c is None or c.log is not state.board_log or c.encoder is not self:
            c = state.encoder_cache = _Cache(self, state.board_log)
        n = state.num_players
        b = c.boards[seat] = _Board(self._new_board(n))
        nt, ne, nv = self.nt, self.ne, self.nv
        for li in range(2 * n):  # per line, where its entries go: its seat relative to this board's seat
            rel = (li // 2 - seat) % n
            mine = self.vert + (5 + li % 2) * nv if rel == 0 else -1
            b.views.append(
                (
                    self.tri_owner + rel * nt,
                    self.edges + rel * ne,
                    self.lines + (2 * rel + li % 2) * 9,
                    self.vert + (1 + rel) * nv,
                    mine,
                )
            )
        b.lens = [0] * (2 * n)
        b.head = [-1] * (2 * n)
        self._counts(b, state, seat)
        for li in range(2 * n):  # every line's unused count (a full line's 18 before it starts)
            self._line(b, state, li)
        return b

    def _catch_up(self, b: _Board, state: MetromaniaState, seat: int, log: list[int]) -> None:
        """Bring ``seat``'s board b up to date from the rules' ``board_log`` entries it has not read
        (each changed line looked at once, after the others). Written through a memoryview: plain
        item writes (of floats: an int is converted on each write), cheaper than numpy indexing.
        Every entry rewrites what the state shows now, so any order of the entries (a loaded
        state's log lists the board part by part) gives the same board."""
        o = b.o
        lines: list[int] = []
        stations = False
        for e in log[b.pos :]:
            if e < LOG_STATION:  # a line started, grew or ended
                if e not in lines:
                    lines.append(e)
            elif e < LOG_MARKER:  # a station
                o[self.vert + e - LOG_STATION] = 1.0
                stations = True
            elif e < LOG_LAYOUT:  # a marker placed
                m = e - LOG_MARKER
                o[self.markers + m * (MAX_PLAYERS + 1) + MAX_PLAYERS] = 1.0
                o[self.tri_letter + (m % 6) * self.nt + state.marker_tri[m]] = 1.0
            elif e == LOG_LAYOUT:  # the layout, fixed from here on (its entries found once for every seat)
                c = state.encoder_cache
                if c.layout is None:
                    c.layout = self.tri_kind + np.asarray(state.kinds) * self.nt + np.arange(self.nt)
                b.arr[c.layout] = 1
            else:  # LOG_DEAL: the marker owners
                n = state.num_players
                for m, own in enumerate(state.owner):
                    if own >= 0:
                        o[self.markers + m * (MAX_PLAYERS + 1) + (own - seat) % n] = 1.0
        b.pos = len(log)
        for li in lines:
            self._line(b, state, li)
        if stations:  # a supply station changes the supply and its builder's points
            self._counts(b, state, seat)

    def _counts(self, b: _Board, state: MetromaniaState, seat: int) -> None:
        """The supply and the points so far (they change only with a station)."""
        o, n = b.o, state.num_players
        o[self.misc] = state.supply / self.game.supply0
        score, sb = state.score, self.scores
        for k in range(n):
            sc = score[(seat + k) % n]
            o[sb + k] = sc / (sc + SCORE_HALF)

    def _new_board(self, n: int) -> np.ndarray:
        """A new board for n players: its seats and all gates free (a copy of one made once per n)."""
        fresh = self._fresh.get(n)
        if fresh is None:
            fresh = self._fresh[n] = np.zeros(self.size, np.float32)
            fresh[self.seats : self.seats + n] = 1
            fresh[self.gates] = 1  # gates free
        return fresh.copy()

    def _line(self, b: _Board, state: MetromaniaState, li: int) -> None:
        """Line li's entries on board b: its start entries and gate (no longer free) once it has
        started, its new tunnels and edges, its unused count, its head, its end entries and gate."""
        o = b.o
        tb, eb, lb, hb, mine = b.views[li]
        vs = state.verts[li]
        k = b.lens[li]  # vertices written (tunnels and edges: one fewer)
        if k < len(vs):
            if k == 0:  # the start
                sg = state.start_gate[li]
                g = self.game.geo
                o[lb] = o[lb + 3 + g.white_side[sg]] = 1.0
                o[self.white_free + g.white_gates[sg]] = 0.0
                k = 1
            if k == len(vs) - 1:  # the usual news: one tunnel, one edge
                o[tb + state.tris[li][-1]] = 1.0
                o[eb + state.line_edges[li][-1]] = 1.0
            else:
                for t in state.tris[li][k - 1 :]:
                    o[tb + t] = 1.0
                for e in state.line_edges[li][k - 1 :]:
                    o[eb + e] = 1.0
            b.lens[li] = len(vs)
        # the unused count (``state.unused``) and the head (none once the line has ended)
        tunnels = self.tunnels
        eg = state.end_gate[li]
        if eg >= 0:
            o[lb + 1] = 1.0
            o[self.black_free + self.game.geo.black_gates[eg]] = 0.0
            o[lb + 2] = (tunnels - len(vs) - 1) / tunnels
            h = -1
        elif vs:
            o[lb + 2] = (tunnels - len(vs)) / tunnels
            h = vs[-1]
        else:
            o[lb + 2] = tunnels / tunnels
            h = -1
        # heads: plane "head of seat k" at hb (the two lines of a seat may share an entry there)
        # and, for my own lines, "my line 0 / 1 head" at mine
        old = b.head[li]
        if h != old:
            if old >= 0:
                if b.head[li ^ 1] != old:  # the other line of the seat does not share it
                    o[hb + old] = 0.0
                if mine >= 0:
                    o[mine + old] = 0.0
            if h >= 0:
                o[hb + h] = 1.0
                if mine >= 0:
                    o[mine + h] = 1.0
            b.head[li] = h

    def encode(self, state: MetromaniaState, seat: int) -> np.ndarray:
        # the seat's board (``state.encoder_cache``), brought up to date from the rules' log of
        # board changes; then the turn counters, written into it every call as float32 bytes
        # (``_turn_rows``, ``_misc_rows``) through its byte view: a fresh array's would cost a
        # buffer export per call
        c = state.encoder_cache
        b = c.boards.get(seat) if c is not None and c.log is state.board_log and c.encoder is self else None
        if b is None:
            b = self._board(state, seat)
        log = state.board_log
        pos = b.pos
        if pos < len(log):
            e = log[pos]
            if pos + 1 == len(log) and e < LOG_STATION:  # the usual news: one line grew
                b.pos = pos + 1
                self._line(b, state, e)
            else:
                self._catch_up(b, state, seat, log)
        ob = b.ob
        p, m = self._turn_at, self._misc_at
        ob[p : p + _TURN_BYTES] = self._turn_rows[(state.phase_id * 4 + state.dig_left) * 2 + state.covered]
        ob[m : m + 8] = self._misc_rows[state.num_players][state.passes * 2 + (state.final_left >= 0)]
        arr = b.arr.copy()  # the caller's own array
        if self.action_features is not None and state.current_player() == seat:
            vals = turn_values(state)
            of: Any = arr.data  # a memoryview: item writes into arr
            for a, av in vals.items():  # legal actions only; illegal ones stay 0
                of[self.features + a] = min(1.0, max(0.01, (av + FEATURE_SHIFT) * FEATURE_SCALE))
        return arr


class _Board:
    """One seat's entries and how much of the state they show (see ``_catch_up``)."""

    __slots__ = ("arr", "head", "lens", "o", "ob", "pos", "views")

    def __init__(self, arr: np.ndarray):
        self.arr = arr
        self.o: Any = arr.data  # a memoryview: item writes into arr
        self.ob: Any = self.o.cast("B")  # the same as bytes (slices of float32 bytes)
        # per line, the bases of its entries: (tunnels plane, edges plane, its row of the lines
        # block, "head of seat k" plane, "my line 0 / 1 head" plane or -1 for the other seats)
        self.views: list[tuple[int, int, int, int, int]] = []
        self.pos = 0  # entries of the rules' board_log written
        self.lens: list[int] = []  # per line, vertices written (its tunnels and edges: one fewer)
        self.head: list[int] = []  # per line, its head vertex written (-1: none)


class _Cache:
    """``state.encoder_cache``: per seat a ``_Board`` (read and written only by this encoder)."""

    __slots__ = ("boards", "encoder", "layout", "log")

    def __init__(self, encoder: MetromaniaEncoder, log: list[int]):
        self.encoder = encoder
        self.log = log  # the state's board_log: a clone or a loaded state (a new list) builds its own
        self.boards: dict[int, _Board] = {}
        self.layout: np.ndarray | None = None  # the layout's one-hot entries (from the deal on)
