"""Observation of Harmonies, seat-relative ("me" first, then the others in turn order), holding only
what the seat may know: every board, card and cube, the central board, the display, the bag's
counts (public, spec 7), the seat's own spirit offers (HA-V2; never another seat's, nor a discarded
spirit). With ``action_features=True`` it ends with one 1-ply feature per action (``features``).

The layout is declared once in ``build``; RULES.md shows the table."""

from __future__ import annotations

import numpy as np

from ..core.encoder import Encoder, Layout
from .board import NUM_STACKS
from .rules import A_CUBE, A_PLACE, HEXES, NUM_ACTIONS, PLACES, TAKEN, HarmoniesGame, HarmoniesState, Phase

MAX_PLAYERS = 4
SPACES = 5
DISPLAY = 5
CARDS = 42  # animal 1..32, spirit 33..42
HEX_FEATURES = NUM_STACKS + 1  # stack one-hot, cube
PLACE_FEATURES = CARDS + 1  # card one-hot, cubes left / 5
SCORE_PARTS = 7
SCORE_SCALE = 1 / 20
FEATURE_SCALE = 0.1  # action features: points x this


def action_features(state: HarmoniesState, seat: int) -> np.ndarray:
    """Per legal action, the points it gains for ``seat`` now (1-ply, x 0.1): PLACE by the rules'
    ``place_gain``, PLACE_CUBE by ``cube_gain``; 0 for every other action and illegal actions."""
    out = np.zeros(NUM_ACTIONS, np.float32)
    if state.current_player() != seat or state.phase_id != Phase.TURN:
        return out
    m = state.legal_mask()
    gains: dict[tuple[int, int], float] = {}
    for t, c in enumerate(state.taken):
        if c < 0:
            continue
        base = A_PLACE + HEXES * t
        for hh in np.flatnonzero(m[base : base + HEXES]):
            h = int(hh)
            v = gains.get((c, h))
            if v is None:
                v = gains[(c, h)] = state.place_gain(seat, c, h) * FEATURE_SCALE
            out[base + h] = v
    for c in range(PLACES):
        base = A_CUBE + HEXES * c
        hexes = np.flatnonzero(m[base : base + HEXES])
        if len(hexes):
            out[base + hexes] = state.cube_gain(seat, c) * FEATURE_SCALE
    return out


class HarmoniesEncoder(Encoder):
    game: HarmoniesGame

    def build(self, L: Layout) -> None:
        self.phase = L.block("phase", len(Phase))
        self.flags = L.block("flags", 6)  # took, took_card, solo, spirits, side B, end triggered
        self.bag = L.block("bag", 6)  # tokens left per colour / 23
        self.central = L.block("central", SPACES * 3 * 6)  # space, slot, colour one-hot
        self.taken = L.block("taken", TAKEN * 6)  # taken slot, colour one-hot (unplaced tokens)
        self.display = L.block("display", DISPLAY * 32)  # slot, animal card one-hot
        self.offers = L.block("my_spirit_offers", 2 * 10)  # own offers (HA-V2)
        self.boards = L.block("boards", MAX_PLAYERS * HEXES * HEX_FEATURES)  # me first
        self.places = L.block("card_places", MAX_PLAYERS * PLACES * PLACE_FEATURES)  # me first
        self.scores = L.block("scores", MAX_PLAYERS * SCORE_PARTS, high=np.inf)  # breakdown / 20, me first
        self.seats = L.block("seats", MAX_PLAYERS * 3, high=2.0)  # present, first player, cubes on board / 20
        self.deck = L.block("deck", 1)  # animal cards left in the deck / 32
        self.features: int | None = None
        if self.game.options["action_features"]:
            self.features = L.block("action_features", NUM_ACTIONS, low=-np.inf, high=np.inf)
            self.action_features = "action_features"
        self._hex_index = np.arange(HEXES) * HEX_FEATURES

    def encode(self, state: HarmoniesState, seat: int) -> np.ndarray:
        o = np.zeros(self.size, np.float32)
        n = state.num_players
        g = self.game
        o[self.phase + int(state.phase_id)] = 1
        f = self.flags
        o[f] = state.took
        o[f + 1] = state.took_card
        o[f + 2] = n == 1
        o[f + 3] = g.spirits
        o[f + 4] = g.side == "B"
        o[f + 5] = state.end_triggered
        o[self.bag : self.bag + 6] = np.asarray(state.bag, np.float32) / 23
        for s, toks in enumerate(state.central):
            for i, c in enumerate(toks):
                o[self.central + 18 * s + 6 * i + c] = 1
        for t, c in enumerate(state.taken):
            if c >= 0:
                o[self.taken + 6 * t + c] = 1
        for i, c in enumerate(state.display):
            if c:
                o[self.display + 32 * i + c - 1] = 1
        for i, c in enumerate(state.offers[seat]):
            o[self.offers + 10 * i + c - 33] = 1
        for k in range(n):
            p = (seat + k) % n
            base = self.boards + k * HEXES * HEX_FEATURES
            o[base + self._hex_index + np.asarray(state.boards[p])] = 1
            cubes = state.cubes[p]
            for h in range(HEXES):
                if cubes[h]:
                    o[base + h * HEX_FEATURES + NUM_STACKS] = 1
            pb = self.places + k * PLACES * PLACE_FEATURES
            for c, (cid, left) in enumerate(state.places[p]):
                if cid:
                    o[pb + c * PLACE_FEATURES + cid - 1] = 1
                    o[pb + c * PLACE_FEATURES + CARDS] = left / 5
            parts = self._breakdown(state, p)
            o[self.scores + SCORE_PARTS * k : self.scores + SCORE_PARTS * (k + 1)] = parts
            o[self.seats + 3 * k] = 1
            o[self.seats + 3 * k + 1] = p == state.first
            o[self.seats + 3 * k + 2] = state.cubes_on_board(p) / 20
        o[self.deck] = len(state.deck) / 32
        if self.features is not None:
            o[self.features : self.features + NUM_ACTIONS] = action_features(state, seat)
        return o

    def _breakdown(self, state: HarmoniesState, p: int) -> list[float]:
        """The seat's points by category (cached per board and cubes)."""
        key = (tuple(state.boards[p]), tuple(state.cubes[p]))  # the cubes give every card's progress
        cache = state.encoder_cache
        if cache is None:
            cache = state.encoder_cache = {}
        hit = cache.get(p)
        if hit is not None and hit[0] == key:
            return hit[1]
        parts = [v * SCORE_SCALE for v in state.breakdown(p).values()]
        cache[p] = (key, parts)
        return parts
