"""The heuristic's one-ply action values (envs/harmonies/evaluate.py), shared by the heuristic bot
and the ``action_features`` observation block."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs.harmonies import HarmoniesGame
from boardzoo.envs.harmonies.evaluate import POTENTIAL, action_values, card_value, place_value
from boardzoo.envs.harmonies.rules import A_CARD, A_CUBE, A_END, A_PLACE, A_TAKE, HEXES, NUM_ACTIONS, Phase


def _reference(st, p):
    """Every legal action's value, one action at a time (place_value per hex, the plain loops)."""
    out = np.zeros(NUM_ACTIONS)
    if st.current_player() != p or st.phase_id != Phase.TURN:
        return out
    for a in np.flatnonzero(st.legal_mask()):
        a = int(a)
        if A_TAKE <= a < A_PLACE:
            total = 0.0
            for c in st.central[a - A_TAKE]:
                bits = st.can_place(p, c)
                total += max([0.0] + [place_value(st, p, c, h) for h in range(HEXES) if bits >> h & 1])
            out[a] = total
        elif a < A_CARD:
            t, h = divmod(a - A_PLACE, HEXES)
            out[a] = place_value(st, p, st.taken[t], h)
        elif a < A_CUBE:
            out[a] = card_value(st, p, a - A_CARD)
        elif a < A_END:
            out[a] = st.cube_gain(p, (a - A_CUBE) // HEXES)
    return out


@pytest.mark.parametrize("opts", [{}, {"board_side": "B", "spirits": True}])
def test_action_values_equal_one_action_at_a_time(opts):
    game = HarmoniesGame(**opts)
    rng = np.random.default_rng(3)
    checked = 0
    for n in (1, 2, 3):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            got, want = action_values(st, p), _reference(st, p)
            assert np.array_equal(got, want), np.flatnonzero(got != want)
            checked += int(np.count_nonzero(want))
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert checked > 500


def test_place_value_adds_the_potential_of_unfinished_stacks():
    """A brown trunk awaits leaves: placing one on an empty hex is worth its points (0) plus the
    trunk's potential (1.0)."""
    game = HarmoniesGame()
    st = game.new_initial_state(2)
    rng = np.random.default_rng(0)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    from boardzoo.envs.harmonies.board import COLOURS, STACK_ID

    brown = COLOURS.index("B")  # brown (trunk) tokens
    p = st.current_player()
    h = next(h for h in range(HEXES) if st.can_place(p, brown) >> h & 1)
    assert st.boards[p][h] == 0
    assert place_value(st, p, brown, h) == pytest.approx(st.place_gain(p, brown, h) + POTENTIAL[STACK_ID["B"]])
