"""Observation encoder of Hydropolis (seat-relative; the table is in RULES.md, "Observation layout").

Blocks, declared once in ``build`` (every offset below comes from the layout):

===================  ==========================================================================
``table``            cells x 12 planes, cell-major: occupied, leaky, copper, (pipe, cap) per side
                     N E S W, playable target (an empty cell a pipe or cap faces, or a leaky card)
``own_hand``         copies per type in the seat's hand x 0.25
``unseen``           copies per type the seat has not seen (deck - table - covered - own) x 0.25
``selected_card``    one-hot ``type * 2 + rotation`` in the ``place`` step
``pile_size``        draw pile / deck size
``seats``            6 seats x (present, score x 0.01, hand size x 0.1, wrenches / 3), me first
``passes``           consecutive passes / players
``to_move``          relative seat to move, one-hot (play, place and draw phases)
``action_features``  option ``action_features`` only: the points (HY-R16 to HY-R19, the rules'
                     ``play_points``) each legal action of the seat to move leads to, x 0.1: in
                     the first step the best cell of that card, in the second that cell
===================  ==========================================================================

Speed: the table planes are the encoder's incremental cache, ``state.encoder_cache`` (a
:class:`_Cache`, read and written only here; the rules never see it): built from the table once,
then brought up to date from the plays the history gained since (a play changes its own cell and
the playable flag of its four neighbours). It is tied to the state's history list, so a clone or a
loaded state (a new list) builds its own. The public unseen counts follow the same plays (a card
goes from a hand to the table). Each seat's blocks ``own_hand`` to ``passes`` are kept too and
brought up to date when the history or the draw pile changed (nothing else changes them),
rewriting only the card types whose counts differ; the action features are cached per state and
step. ``tests/hydropolis`` compares the result with a plain reference encoder.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .data import CAP, COPPER, PIPE
from .rules import DRAW, PLACE, PLAY, WRENCHES_TO_WIN, HydropolisGame, HydropolisState

# planes of one table cell
P_OCCUPIED, P_LEAKY, P_COPPER, P_EDGES = 0, 1, 2, 3  # P_EDGES + 2 d: pipe on side d, + 2 d + 1: cap
SIDES = 4
P_TARGET = P_EDGES + 2 * SIDES  # a card may be laid here
CARD_PLANES = P_TARGET + 1

SEAT_FEATURES = 4  # present, score x SCORE_SCALE, hand size x HAND_SCALE, wrenches / 3
COUNT_SCALE = 0.25  # own_hand, unseen: copies x this
SCORE_SCALE = 0.01  # seats: score x this
HAND_SCALE = 0.1  # seats: hand size x this
ACTION_POINTS_SCALE = 0.1  # action_features: points x this


class _Cache:
    """One state's encoder data: ``buf`` (observation size) holds the table planes of the table
    after the first ``k`` turns of ``hist`` (the state's history list; with ``k == 0`` the table is
    re-read at every encode, the start card is laid before any turn); the rest of ``buf`` is zero.
    ``pub`` are the copies per type nobody has seen (deck - table - covered) after those turns.
    ``tails[seat]`` holds the blocks ``own_hand`` to ``passes`` seen by ``seat`` (the selected card
    left out), as of the key in ``tkeys[seat]``, written from the counts ``owns[seat]`` (own hand)
    and ``pubs[seat]`` (``pub``) it shows; ``afeat`` the sparse action features under ``akey``;
    ``pcache`` the first step's points per card and cell for the second."""

    __slots__ = (
        "hist",
        "k",
        "buf",
        "view",
        "pub",
        "tails",
        "views",
        "tkeys",
        "owns",
        "pubs",
        "akey",
        "afeat",
        "pcache",
    )

    def __init__(self, hist: list, size: int):
        self.hist = hist
        self.k = 0
        self.buf = np.zeros(size, dtype=np.float32)
        self.view: Any = self.buf.data  # float32 items as Python floats (cheaper than numpy's)
        self.pub: list[int] = []
        self.tails: dict[int, np.ndarray] = {}
        self.views: dict[int, Any] = {}
        self.tkeys: dict[int, tuple[int, int]] = {}
        self.owns: dict[int, list[int]] = {}
        self.pubs: dict[int, list[int]] = {}
        self.akey: tuple | None = None
        self.afeat: tuple[np.ndarray, np.ndarray] | None = None
        self.pcache: tuple[int, dict[int, dict[int, int]]] | None = None


class HydropolisEncoder(Encoder):
    game: HydropolisGame

    def build(self, L: Layout) -> None:
        g = self.game
        T, C = g.num_types, g.num_cells
        self.T = T
        self.seat_slots = g.max_players
        self.table = L.block("table", C * CARD_PLANES)
        most = max(g.deck.counts) * COUNT_SCALE  # copies of one type
        self.own_hand = L.block("own_hand", T, high=most)
        self.unseen = L.block("unseen", T, high=most)
        self.selected = L.block("selected_card", 2 * T)
        self.pile = L.block("pile_size", 1)
        # present, score x SCORE_SCALE (no upper limit in the rules), hand size x HAND_SCALE, wrenches / 3
        seat_high = [1.0, np.inf, g.deck.total * HAND_SCALE, 1.0]
        self.seats = L.block("seats", self.seat_slots * SEAT_FEATURES, high=seat_high * self.seat_slots)
        self.passes = L.block("passes", 1)
        self.to_move = L.block("to_move", self.seat_slots)
        self.features: int | None = None
        if g.options["action_features"]:
            self.action_features = "action_features"
            self.features = L.block("action_features", g.num_actions, high=np.inf)  # points x scale
        self.tail_len = self.to_move - self.own_hand  # the blocks own_hand .. passes (see _tail)
        # the planes of a card (type, rotation) on a cell
        deck = g.deck
        rows = np.zeros((T, 2, CARD_PLANES), dtype=np.float32)
        for t in range(T):
            for rot in range(2):
                rows[t, rot, P_OCCUPIED] = 1.0
                rows[t, rot, P_LEAKY] = float(deck.leaky[t])
                rows[t, rot, P_COPPER] = float(deck.colour[t] == COPPER)
                rows[t, rot, P_TARGET] = float(deck.leaky[t])  # HY-R9: a leaky card can be covered
                for d in range(SIDES):
                    e = deck.edges[t][rot][d]
                    if e == PIPE:
                        rows[t, rot, P_EDGES + 2 * d] = 1.0
                    elif e == CAP:
                        rows[t, rot, P_EDGES + 2 * d + 1] = 1.0
        self.card_rows = rows

    # ------------------------------------------------------------------ table planes
    def _fill(self, c: _Cache, state: HydropolisState) -> None:
        """Write the whole table into ``c.buf`` (zeros before)."""
        o = self.table
        planes = c.buf[o : o + self.game.num_cells * CARD_PLANES].reshape(-1, CARD_PLANES)
        on = [cell for cell, t in enumerate(state.cell_t) if t >= 0]
        if on:
            planes[on] = self.card_rows[[state.cell_t[x] for x in on], [state.cell_r[x] for x in on]]
        v = c.view
        for cell in state.cand:
            v[o + cell * CARD_PLANES + P_TARGET] = 1.0

    def _cache(self, state: HydropolisState) -> _Cache:
        """``state.encoder_cache``, brought up to date with the state's table."""
        hist = state.history
        c = state.encoder_cache
        k = len(hist)
        if c is None or c.hist is not hist or c.k == 0 or c.k > k:
            c = _Cache(hist, self.size)
            self._fill(c, state)
            c.pub = (self.game.deck_counts - state.on_table - state.covered).tolist()
            c.k = k
            state.encoder_cache = c
            return c
        if c.k < k:
            o = self.table
            v = c.view
            buf, rows = c.buf, self.card_rows
            cell_t, cell_r, cand = state.cell_t, state.cell_r, state.cand
            nbs = self.game.geo.nb
            pub = c.pub
            for i in range(c.k, k):
                cell = hist[i][2]
                if cell < 0:  # a pass
                    continue
                pub[hist[i][1]] -= 1  # hand -> table (a covered card stays seen)
                b = o + cell * CARD_PLANES
                buf[b : b + CARD_PLANES] = rows[cell_t[cell], cell_r[cell]]
                for nb in nbs[cell]:  # HY-R8: the neighbours' playable flag
                    if nb >= 0 and cell_t[nb] < 0:
                        v[o + nb * CARD_PLANES + P_TARGET] = 1.0 if nb in cand else 0.0
            c.k = k
        return c

    # ------------------------------------------------------------------ encode
    def _tail(self, c: _Cache, state: HydropolisState, seat: int) -> np.ndarray:
        """The blocks ``own_hand`` .. ``passes`` seen by ``seat`` (zeros for the selected card),
        brought up to date when the history or the draw pile changed (nothing else changes them):
        only the counts that differ from the ones it shows are rewritten."""
        key = (len(state.history), state.pile_size)
        tail = c.tails.get(seat)
        if tail is None:
            tail = c.tails[seat] = np.zeros(self.tail_len, dtype=np.float32)
            c.views[seat] = tail.data
            c.owns[seat] = [0] * self.T
            c.pubs[seat] = [0] * self.T
        elif c.tkeys[seat] == key:
            return tail
        c.tkeys[seat] = key
        v = c.views[seat]  # single entries: Python floats, rounded as numpy does
        own, pub = state.hands[seat].tolist(), c.pub
        ol, pl = c.owns[seat], c.pubs[seat]
        if own != ol or pub != pl:
            u = self.unseen - self.own_hand
            for t, k, a, q, b in zip(range(self.T), own, ol, pub, pl):
                if k != a or q != b:
                    v[t] = k * COUNT_SCALE  # own hand
                    v[u + t] = (q - k) * COUNT_SCALE  # cards this seat has not seen
            c.owns[seat] = own
            c.pubs[seat] = pub[:]
        n = state.num_players
        base = self.own_hand
        v[self.pile - base] = state.pile_size / self.game.deck.total
        score, hand, wr = state.score, state.hand_sizes, state.wrenches
        i = self.seats - base
        p = seat
        for _ in range(n):  # me first, then in turn order
            v[i] = 1.0
            v[i + 1] = score[p] * SCORE_SCALE
            v[i + 2] = hand[p] * HAND_SCALE
            v[i + 3] = wr[p] / WRENCHES_TO_WIN
            i += SEAT_FEATURES
            p = p + 1 if p + 1 < n else 0
        v[self.passes - base] = state.passes / n
        return tail

    def encode(self, state: HydropolisState, seat: int) -> np.ndarray:
        """What ``seat`` sees of ``state`` (the blocks in the module docstring)."""
        c = state.encoder_cache
        k = len(state.history)
        if c is None or c.k != k or c.k == 0 or c.hist is not state.history:
            c = self._cache(state)
        tail = c.tails.get(seat)
        if tail is None or c.tkeys[seat] != (k, state.pile_size):
            tail = self._tail(c, state, seat)
        out = c.buf.copy()
        out[self.own_hand : self.to_move] = tail
        if state.selected >= 0:
            out[self.selected + state.selected] = 1.0
        ph = state.phase_id
        if ph == PLAY or ph == PLACE or ph == DRAW:
            out[self.to_move + (state.to_move - seat) % state.num_players] = 1.0
            if self.features is not None and ph != DRAW and seat == state.to_move:
                idx, val = self._sparse(state, c)
                out[idx + self.features] = val * ACTION_POINTS_SCALE
        return out

    # ------------------------------------------------------------------ action features
    def action_points(self, state: HydropolisState) -> np.ndarray:
        """Points (HY-R16 to HY-R19, HY-V3) each legal action of the seat to move leads to now, as
        float32 over the actions (0 for illegal ones): in the first step the best play of that card
        and rotation over its legal cells, in the second step the selected card on that cell (the
        ``action_features`` block holds these x ``ACTION_POINTS_SCALE``)."""
        out = np.zeros(self.game.num_actions, dtype=np.float32)
        if state.phase_id in (PLAY, PLACE):
            idx, val = self._sparse(state, self._cache(state))
            out[idx] = val
        return out

    def _sparse(self, state: HydropolisState, c: _Cache) -> tuple[np.ndarray, np.ndarray]:
        """(actions, points) of :meth:`action_points`, cached per state. A loop over the few
        candidate cells (plain Python beats numpy here)."""
        key = (len(state.history), state.pile_size, state.phase_id, state.selected)
        if c.akey == key and c.afeat is not None:
            return c.afeat
        geo = self.game.geo
        ctx, pts = state.ctx, state.play_points
        best: dict[int, int] = {}
        base = self.game.cell_base
        if state.phase_id == PLACE:
            tr = state.selected
            pc = c.pcache  # this turn's first step already scored every cell
            if pc is not None and pc[0] == len(state.history) and tr in pc[1]:
                best = pc[1][tr]
            else:
                ok = geo.legal_by_card[tr]
                best = {base + cell: pts(cell, tr) for cell in state.cand if ok[ctx[cell]]}
        else:
            lb = geo.legal_bits
            hand = state.hand_bits[state.to_move]
            per: dict[int, dict[int, int]] = {}  # card -> {cell action: points}, for the second step
            for cell in state.cand:
                bits = lb[ctx[cell]] & hand
                while bits:
                    low = bits & -bits
                    bits ^= low
                    tr = low.bit_length() - 1
                    p = pts(cell, tr)
                    if p > best.get(tr, -1):
                        best[tr] = p
                    per.setdefault(tr, {})[base + cell] = p
            c.pcache = (len(state.history), per)
        c.afeat = (
            np.fromiter(best.keys(), dtype=np.int64, count=len(best)),
            np.fromiter(best.values(), dtype=np.float32, count=len(best)),
        )
        c.akey = key
        return c.afeat
