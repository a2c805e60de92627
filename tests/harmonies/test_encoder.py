"""The Harmonies encoder's per-seat cache gives exactly the observation of a plain reference encoder
(written out below, no cache), at many positions of random games, through clones and loads."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs.harmonies import HarmoniesGame
from boardzoo.envs.harmonies.board import NUM_STACKS
from boardzoo.envs.harmonies.encoder import (
    CARDS,
    HEX_FEATURES,
    PLACE_FEATURES,
    SCORE_PARTS,
    SCORE_SCALE,
    action_features,
)
from boardzoo.envs.harmonies.rules import HEXES, NUM_ACTIONS, PLACES


def reference_encode(enc, state, seat):
    o = np.zeros(enc.size, np.float32)
    n = state.num_players
    g = enc.game
    o[enc.phase + int(state.phase_id)] = 1
    f = enc.flags
    o[f] = state.took
    o[f + 1] = state.took_card
    o[f + 2] = n == 1
    o[f + 3] = g.spirits
    o[f + 4] = g.side == "B"
    o[f + 5] = state.end_triggered
    o[enc.bag : enc.bag + 6] = np.asarray(state.bag, np.float32) / 23
    for s, toks in enumerate(state.central):
        for i, c in enumerate(toks):
            o[enc.central + 18 * s + 6 * i + c] = 1
    for t, c in enumerate(state.taken):
        if c >= 0:
            o[enc.taken + 6 * t + c] = 1
    for i, c in enumerate(state.display):
        if c:
            o[enc.display + 32 * i + c - 1] = 1
    for i, c in enumerate(state.offers[seat]):
        o[enc.offers + 10 * i + c - 33] = 1
    for k in range(n):
        p = (seat + k) % n
        base = enc.boards + k * HEXES * HEX_FEATURES
        o[base + enc._hex_index + np.asarray(state.boards[p])] = 1
        cubes = state.cubes[p]
        for h in range(HEXES):
            if cubes[h]:
                o[base + h * HEX_FEATURES + NUM_STACKS] = 1
        pb = enc.places + k * PLACES * PLACE_FEATURES
        for c, (cid, left) in enumerate(state.places[p]):
            if cid:
                o[pb + c * PLACE_FEATURES + cid - 1] = 1
                o[pb + c * PLACE_FEATURES + CARDS] = left / 5
        parts = [v * SCORE_SCALE for v in state.breakdown(p).values()]
        o[enc.scores + SCORE_PARTS * k : enc.scores + SCORE_PARTS * (k + 1)] = parts
        o[enc.seats + 3 * k] = 1
        o[enc.seats + 3 * k + 1] = p == state.first
        o[enc.seats + 3 * k + 2] = state.cubes_on_board(p) / 20
    o[enc.deck] = len(state.deck) / 32
    if enc.features is not None:
        o[enc.features : enc.features + NUM_ACTIONS] = action_features(state, seat)
    return o


@pytest.mark.parametrize("opts", [{}, {"board_side": "B", "spirits": True, "action_features": True}])
def test_cached_encoder_equals_reference(opts):
    game = HarmoniesGame(**opts)
    rng = np.random.default_rng(1)
    checked = 0
    for n in (1, 2, 4):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            for seat in range(n):
                np.testing.assert_array_equal(st.observation(seat), reference_encode(game.encoder, st, seat))
                checked += 1
            if rng.random() < 0.1:
                st = game.state_from_dict(st.to_dict()) if rng.random() < 0.5 else st.clone()
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert checked > 200
