"""The single-agent Gymnasium view used by MaskablePPO."""

from __future__ import annotations

import numpy as np

from boardzoo.envs import make_game
from boardzoo.training.gym_env import OpponentPool, SelfPlayEnv
from boardzoo.training.policy import NumpyPolicy


def test_env_checker_and_masks(tiny_games):
    from gymnasium.utils.env_checker import check_env

    env = SelfPlayEnv("tinynim_v0", num_players=[2, 3], seed=0)
    check_env(env, skip_render_check=True)
    seats, counts, total = set(), set(), []
    for ep in range(60):
        obs, info = env.reset(seed=ep)
        seats.add(info["seat"])
        counts.add(info["num_players"])
        done, ret = False, 0.0
        while not done:
            assert env.state.current_player() == env.seat  # the learner is always the one to move
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any()
            np.testing.assert_array_equal(obs, env.state.observation(env.seat))
            obs, r, done, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
            if not done:
                assert r == 0.0  # rewards only at the end
            ret += r
        assert ret in (-1.0, 1.0)
        total.append(ret)
    assert seats == {0, 1, 2} and counts == {2, 3}


def test_pool_draws_every_kind(tiny_games):
    game = make_game("tinynim_v0")
    pool = OpponentPool(game, {"snapshot": 1, "heuristic": 1, "random": 1}, max_snapshots=2)
    rng = np.random.default_rng(0)
    kinds = {type(pool.draw(1, rng)).__name__ for _ in range(50)}
    assert kinds == {"HeuristicBot", "RandomBot"}  # no snapshot yet: its weight goes to the others
    params = [np.zeros((3, game.observation_size), np.float32), np.zeros(3, np.float32)]
    for _ in range(3):
        pool.add_snapshot(params)
    assert len(pool.snapshots) == 2 and isinstance(pool.snapshots[0], NumpyPolicy)
    kinds = {type(pool.draw(1, rng)).__name__ for _ in range(100)}
    assert kinds == {"HeuristicBot", "RandomBot", "PolicyBot"}
    pool.set_weights({"snapshot": 0, "heuristic": 0, "random": 1})
    assert {type(pool.draw(1, rng)).__name__ for _ in range(30)} == {"RandomBot"}
