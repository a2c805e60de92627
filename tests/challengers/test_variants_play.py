"""Conformance-style checks for one combined variant option set (the registry-wide suite also runs
every set of ``ChallengersGame.conformance_options`` at every player count): random games with the
invariants after every step, the hidden-information leak test, JSON round trips and clones mid-game
(CH-V1 to CH-V4)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardzoo.envs import make
from boardzoo.envs.challengers import ChallengersGame

VARIANTS = {"themed_sets_in_play": 2, "bot_level": 5, "solo_special": True, "pairing": "fixed", "action_features": True}


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_CH_V1_CH_V2_CH_V3_CH_V4_variant_games_keep_every_invariant(n):
    game = ChallengersGame(**VARIANTS)
    rng = np.random.default_rng(n)
    low, high = game.observation_bounds()
    for _ in range(3):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            st.check_invariants()
            if rng.random() < 0.05:
                for p in range(n):
                    other = st.resample_hidden(p, np.random.default_rng(int(rng.integers(1 << 30))))
                    other.check_invariants()
                    o = st.observation(p)
                    np.testing.assert_array_equal(other.observation(p), o)
                    assert ((o >= low) & (o <= high)).all()
                    assert game.seat_view(other, p) == game.seat_view(st, p)
                d = json.loads(st.to_json())
                back = game.state_from_dict(d)
                assert back.to_dict() == d and st.clone().to_dict() == d
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
        st.check_invariants()
        assert len(st.returns()) == n


def test_variant_env_api_and_replay():
    from pettingzoo.test import api_test

    from boardzoo.envs.core.records import replay

    api_test(make("challengers_v0", num_players=3, **VARIANTS), num_cycles=100)
    env = make("challengers_v0", num_players=1, **VARIANTS)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    *_, last = replay(json.loads(json.dumps(env.unwrapped.save_record())))
    assert last.is_terminal()
