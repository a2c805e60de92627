"""SelfPlayEnv against the framework checkers: Gymnasium's and SB3's ``check_env``, Gymnasium vector
envs' autoreset, ``illegal=``, observation bounds, ``render_mode="human"`` (issue 14)."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import ConfigError, IllegalActionError, make_game
from boardzoo.training.gym_env import SelfPlayEnv, observation_box

GAMES = ["hidden_castle_v0", "voll_verplant_v0"]  # turn-based; simultaneous commits


@pytest.mark.parametrize("env_id", GAMES)
def test_gymnasium_and_sb3_check_env_pass(env_id):
    import warnings

    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # only failures matter here (e.g. unbounded-Box advice)
        gym_check(SelfPlayEnv(env_id, seed=0, illegal="penalize"), skip_render_check=True)
        sb3_check(SelfPlayEnv(env_id, seed=0, illegal="penalize"), warn=False)


def test_illegal_raise_and_penalize():
    env = SelfPlayEnv("hidden_castle_v0", seed=1)
    env.reset(seed=1)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)
    env = SelfPlayEnv("hidden_castle_v0", seed=1, illegal="penalize")
    env.reset(seed=1)
    obs, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc, info["illegal_action"]) == (-1.0, True, False, bad)
    assert env.observation_space.contains(obs)
    with pytest.raises(ConfigError):
        SelfPlayEnv("hidden_castle_v0", illegal="ignore")


def test_observation_bounds_follow_the_game():
    game = make_game("hidden_castle_v0")
    low, high = observation_box(game)  # the layout's declared ranges
    want_low, want_high = game.observation_bounds()
    assert (low == want_low).all() and (high == want_high).all() and low.shape == (game.observation_size,)
    assert high[game.encoder.layout.offset("guest_counts")] == 6  # a block above 1 declares it

    class Declared:
        observation_size = 3

        def observation_bounds(self):
            return 0.0, [1.0, 2.0, 4.0]

    low, high = observation_box(Declared())
    assert low.tolist() == [0, 0, 0] and high.tolist() == [1, 2, 4] and low.dtype == np.float32


@pytest.mark.parametrize("mode", ["same", "next"])
def test_vector_env_mask_after_autoreset(mode):
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    am = AutoresetMode.SAME_STEP if mode == "same" else AutoresetMode.NEXT_STEP
    venv = SyncVectorEnv([lambda i=i: SelfPlayEnv("voll_verplant_v0", seed=i) for i in range(2)], autoreset_mode=am)
    assert isinstance(venv.single_observation_space, gym.spaces.Box)
    obs, infos = venv.reset(seed=3)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = np.stack(venv.call("action_masks"))
        assert masks.any(axis=1).all()  # never an all-zero mask
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, term, trunc, infos = venv.step(acts)
        for i in np.flatnonzero(term):
            ended += 1
            env = venv.envs[i]
            if mode == "same":  # already the new game: its observation and its mask
                np.testing.assert_array_equal(obs[i], env.state.observation(env.seat))
                np.testing.assert_array_equal(venv.call("action_masks")[i], env.state.legal_mask().astype(bool))
            else:  # the next step is the reset: any action (all ones), none is played
                assert venv.call("action_masks")[i].all()
        if ended >= 2:
            break
    assert ended >= 2


def test_render_human_prints(capsys):
    env = SelfPlayEnv("hidden_castle_v0", seed=0, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert capsys.readouterr().out.strip()
    with pytest.raises(ConfigError):
        SelfPlayEnv("hidden_castle_v0", render_mode="rgb")
