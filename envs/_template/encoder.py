"""Observation of the template game, seat-relative ("me" first, then the others in turn order),
holding only what the seat may know: its own hand, every pile (public), hand and deck sizes.
The layout is declared once in ``build``; every offset used in ``encode`` comes from it."""

from __future__ import annotations

import numpy as np

from ..core.encoder import Encoder, Layout
from .rules import MAX_HAND, Phase, TemplateGame, TemplateState

MAX_PLAYERS = 4
VALUE_SCALE = 0.1


class TemplateEncoder(Encoder):
    game: TemplateGame

    def build(self, L: Layout) -> None:
        v = self.game.values
        self.cards = len(v)
        # Every block declares its true range (default 0..1): the env's observation Box, checked by
        # the conformance suite. Derive it from the data, as here; use inf only where the rules set no limit.
        lo, hi = min(0, min(v)) * VALUE_SCALE, max(0, max(v)) * VALUE_SCALE
        self.phase = L.block("phase", len(Phase))
        self.my_hand = L.block("my_hand", MAX_HAND, low=lo, high=hi)  # card values, slot by slot (x0.1)
        neg, pos = sum(x for x in v if x < 0) * VALUE_SCALE, sum(x for x in v if x > 0) * VALUE_SCALE
        self.piles = L.block("pile_totals", MAX_PLAYERS, low=neg, high=pos)  # me first (x0.1)
        self.hand_sizes = L.block("hand_sizes", MAX_PLAYERS, high=MAX_HAND)  # me first
        self.deck_left = L.block("deck_left", 1)  # fraction of the deck left
        self.seats = L.block("seats", MAX_PLAYERS)  # 1 for each seat in the game

    def encode(self, state: TemplateState, seat: int) -> np.ndarray:
        o = np.zeros(self.size, np.float32)
        v = self.game.values
        n = state.num_players
        o[self.phase + int(state.phase_id)] = 1
        for i, c in enumerate(state.hands[seat]):
            o[self.my_hand + i] = v[c] * VALUE_SCALE
        for k in range(n):
            p = (seat + k) % n
            o[self.piles + k] = sum(v[c] for c in state.piles[p]) * VALUE_SCALE
            o[self.hand_sizes + k] = len(state.hands[p])
            o[self.seats + k] = 1
        o[self.deck_left] = len(state.deck) / self.cards
        return o
