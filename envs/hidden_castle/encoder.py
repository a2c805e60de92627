"""Observation encoder of Escape from the Hidden Castle (seat-relative, fixed size for 2-8 players).

The game has perfect information, so every seat sees the whole board; only the ordering is
relative ("me" first, then the others clockwise). The blocks (declared once in ``build``; the same
table is in RULES.md, "Observation layout") are the same under both option sets:

=====================  =============================================================================
``my_guests``          6 slots x 61 places, one-hot (40 gallery, 11 rooms, 9 steps, unplaced)
``guest_counts``       8 relative players x 61 places (number of that player's guests)
``players_present``    8
``spooky_points``      8 relative players, value / 50
``hugo``               one-hot: 10 cellar positions (steps left to gallery 0) + 40 gallery
``clock``              one-hot over the clock track (base game)
``roll``               one-hot 1..5 (the number to move in the move phase)
``phase``              one-hot start, setup, roll, move, replace, end
``round``              one-hot 1..3 (Midnight Party)
``slot_being_placed``  one-hot 6 (setup and between-round placement)
``hugo_speed``         spaces per move / 7
``player_to_act``      one-hot 8, relative
=====================  =============================================================================

The guest planes (``my_guests``, ``guest_counts``) are kept incrementally by the encoder: the
state's ``encoder_cache`` (a :class:`_Planes`, read and written only here; the rules never touch
it) holds them with the guest locations they were built from, and each ``encode`` updates only
the guests that moved since. A clone or a loaded state starts without one (built on first use).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .rules import (
    GALLERY,
    MAX_GUESTS,
    MAX_PLAYERS,
    MAX_ROLL,
    MOVE,
    NUM_PLACES,
    ROLL,
    HiddenCastleGame,
    HiddenCastleState,
    Phase,
)

SCORE_SCALE = 0.02  # spooky points x 1/50
SPEED_DIV = 7.0  # Hugo's speed / 7 (the fastest clock speed)
MY = MAX_GUESTS * NUM_PLACES  # length of the my_guests block


class _Planes:
    """The guest planes of one state: ``me`` holds, per seat p, the one-hot place of each of p's
    guest slots (the ``my_guests`` block seen by p, at ``p * MY``); ``cnt`` each seat's guest count
    per place, twice over, so the seat-relative order starting at any seat is one contiguous slice;
    ``loc`` is the copy of the guest locations they were built from. The planes are written through
    memoryviews (Python-float item access, several times faster than numpy scalar indexing)."""

    __slots__ = ("loc", "me", "cnt", "me_v", "cnt_v")

    def __init__(self, loc: list[int], me: np.ndarray, cnt: np.ndarray):
        self.loc = loc
        self.me = me
        self.cnt = cnt
        self.me_v: Any = me.data  # memoryviews of float32 items (typed for bytes in the stubs)
        self.cnt_v: Any = cnt.data


class HiddenCastleEncoder(Encoder):
    game: HiddenCastleGame

    def build(self, L: Layout) -> None:
        comp = self.game.components  # both sides: the layout is the same under either
        self.cellar = max(comp["hugo_side"]["hugo_path"], comp["midnight_side"]["hugo_path"])
        clock_len = len(comp["hugo_side"]["clock"])
        rounds = max(1, comp["midnight_side"]["rounds"])
        self.my_guests = L.block("my_guests", MY)
        self.guest_counts = L.block("guest_counts", MAX_PLAYERS * NUM_PLACES, high=MAX_GUESTS)
        self.present = L.block("players_present", MAX_PLAYERS)
        self.score = L.block("spooky_points", MAX_PLAYERS, low=-np.inf, high=np.inf)  # points / 50: no cap
        self.hugo = L.block("hugo", self.cellar + GALLERY)
        self.clock = L.block("clock", clock_len)
        self.roll = L.block("roll", MAX_ROLL)
        self.phase = L.block("phase", len(Phase))
        self.round = L.block("round", rounds)
        self.slot = L.block("slot_being_placed", MAX_GUESTS)
        self.speed = L.block("hugo_speed", 1)
        self.actor = L.block("player_to_act", MAX_PLAYERS)
        # zeros with the players-present flags set, per player count
        self._blank: dict[int, np.ndarray] = {}
        for n in range(1, MAX_PLAYERS + 1):
            t = np.zeros(L.size, dtype=np.float32)
            t[self.present : self.present + n] = 1.0
            self._blank[n] = t

    # ------------------------------------------------------------------ guest planes
    def _build_planes(self, state: HiddenCastleState) -> _Planes:
        g, n = state.gpp, state.num_players
        c = _Planes(state.loc[:], np.zeros(n * MY, dtype=np.float32), np.zeros(2 * n * NUM_PLACES, dtype=np.float32))
        me, cnt = c.me_v, c.cnt_v
        off2 = n * NUM_PLACES
        for gi, lc in enumerate(state.loc):
            p, i = divmod(gi, g)
            me[p * MY + i * NUM_PLACES + lc] = 1.0
            cnt[p * NUM_PLACES + lc] += 1.0
            cnt[off2 + p * NUM_PLACES + lc] += 1.0
        return c

    def _planes(self, state: HiddenCastleState) -> _Planes:
        """The state's guest planes (``state.encoder_cache``), brought up to date with ``state.loc``."""
        c = state.encoder_cache
        loc = state.loc
        if c is None or len(c.loc) != len(loc):
            c = state.encoder_cache = self._build_planes(state)
            return c
        old = c.loc
        if old != loc:
            g = state.gpp
            me, cnt = c.me_v, c.cnt_v
            off2 = state.num_players * NUM_PLACES
            for gi in range(len(loc)):
                a, b = old[gi], loc[gi]
                if a != b:
                    p, i = divmod(gi, g)
                    o = p * MY + i * NUM_PLACES
                    me[o + a] = 0.0
                    me[o + b] = 1.0
                    o = p * NUM_PLACES
                    cnt[o + a] -= 1.0
                    cnt[o + b] += 1.0
                    o += off2
                    cnt[o + a] -= 1.0
                    cnt[o + b] += 1.0
                    old[gi] = b
        return c

    # ------------------------------------------------------------------ encode
    def encode(self, state: HiddenCastleState, seat: int) -> np.ndarray:
        """The flat float32 observation of ``state`` for ``seat`` (layout in the module docstring)."""
        n = state.num_players
        c = self._planes(state)
        obs = self._blank[n].copy()
        o = self.my_guests
        s = seat * MY
        obs[o : o + MY] = c.me[s : s + MY]
        w = n * NUM_PLACES
        o = self.guest_counts
        s = seat * NUM_PLACES
        obs[o : o + w] = c.cnt[s : s + w]
        v: Any = obs.data  # single entries: Python floats, rounded to float32 as numpy does
        spooky = state.spooky
        o = self.score
        for r in range(n):
            v[o + r] = spooky[(seat + r) % n] * SCORE_SCALE
        h = state.hugo
        v[self.hugo + (self.cellar + h if h >= 0 else -h - 1)] = 1.0
        ph = state.phase_id
        v[self.phase + ph] = 1.0
        v[self.round + state.round - 1] = 1.0
        if not state.variant:
            v[self.clock + state.clock] = 1.0
        v[self.speed] = state.speed() / SPEED_DIV
        if ph == MOVE:
            v[self.roll + state.roll - 1] = 1.0
            v[self.actor + (state.turn - seat) % n] = 1.0
        elif ph != ROLL:
            slot = state.guest_slot()
            if slot >= 0:
                v[self.slot + slot] = 1.0
            cp = state.current_player()
            if cp >= 0:
                v[self.actor + (cp - seat) % n] = 1.0
        return obs
