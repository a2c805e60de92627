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
        ones = [self.phase + int(state.phase_id)]
        f = self.flags
        for i, flag in enumerate((state.took, state.took_card, n == 1, g.spirits, g.side == "B", state.end_triggered)):
            if flag:
                ones.append(f + i)
        o[self.bag : self.bag + 6] = state.bag
        o[self.bag : self.bag + 6] /= 23
        for s, toks in enumerate(state.central):
            for i, c in enumerate(toks):
                ones.append(self.central + 18 * s + 6 * i + c)
        for t, c in enumerate(state.taken):
            if c >= 0:
                ones.append(self.taken + 6 * t + c)
        for i, c in enumerate(state.display):
            if c:
                ones.append(self.display + 32 * i + c - 1)
        for i, c in enumerate(state.offers[seat]):
            ones.append(self.offers + 10 * i + c - 33)
        o[ones] = 1
        cache = state.encoder_cache
        if cache is None:
            cache = state.encoder_cache = {}
        bw, pw = HEXES * HEX_FEATURES, PLACES * PLACE_FEATURES
        for k in range(n):
            p = (seat + k) % n
            key = (
                tuple(state.boards[p]),
                tuple(state.cubes[p]),
                tuple(cid * 8 + left for cid, left in state.places[p]),
            )
            hit = cache.get(p)
            if hit is None or hit[0] != key:
                hit = cache[p] = (key, self._seat_blocks(state, p))
            board, places, parts = hit[1]
            o[self.boards + k * bw : self.boards + (k + 1) * bw] = board
            o[self.places + k * pw : self.places + (k + 1) * pw] = places
            o[self.scores + SCORE_PARTS * k : self.scores + SCORE_PARTS * (k + 1)] = parts[:SCORE_PARTS]
            o[self.seats + 3 * k] = 1
            o[self.seats + 3 * k + 1] = p == state.first
            o[self.seats + 3 * k + 2] = parts[SCORE_PARTS]
        o[self.deck] = len(state.deck) / 32
        if self.features is not None:
            o[self.features : self.features + NUM_ACTIONS] = action_features(state, seat)
        return o

    def _seat_blocks(self, state: HarmoniesState, p: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A seat's board, card places and points blocks (cached in ``state.encoder_cache`` per
        board, cubes and places; the points block ends with the cubes on the board / 20)."""
        board = np.zeros(HEXES * HEX_FEATURES, np.float32)
        board[self._hex_index + np.asarray(state.boards[p])] = 1
        cubes = state.cubes[p]
        for h in range(HEXES):
            if cubes[h]:
                board[h * HEX_FEATURES + NUM_STACKS] = 1
        places = np.zeros(PLACES * PLACE_FEATURES, np.float32)
        for c, (cid, left) in enumerate(state.places[p]):
            if cid:
                places[c * PLACE_FEATURES + cid - 1] = 1
                places[c * PLACE_FEATURES + CARDS] = left / 5
        parts = np.array(
            [v * SCORE_SCALE for v in state.breakdown(p).values()] + [state.cubes_on_board(p) / 20], np.float32
        )
        return board, places, parts
