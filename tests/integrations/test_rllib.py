"""boardzoo.integrations.rllib: the MultiAgentEnv, the masking module, and ``backend: rllib`` end to end
(issue 14). Skipped without the ``rllib`` extra (``pip install "boardzoo[rllib]"``)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from boardzoo.envs import ConfigError, IllegalActionError, names  # noqa: E402
from boardzoo.integrations.rllib import BoardZooMultiAgentEnv, MaskedMLPModule, actor_params  # noqa: E402


def _play(env, rng, games=2):
    """Random legal games; returns (steps, steps with more than one acting agent)."""
    steps = multi = 0
    for g in range(games):
        obs, _ = env.reset(seed=g)
        while True:
            assert obs, "every step hands out at least one acting seat"
            for o in obs.values():
                assert o["action_mask"].any() and env.observation_spaces["player_0"].contains(o)
            acts = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            multi += len(obs) > 1
            obs, rew, term, trunc, _ = env.step(acts)
            steps += 1
            assert set(rew) <= set(obs) and not trunc["__all__"]
            if term["__all__"]:
                assert set(rew) == set(obs) and all(np.isfinite(list(rew.values())))
                break
    return steps, multi


@pytest.mark.parametrize("env_id", names())
def test_env_passes_rllib_checker_and_shows_only_acting_seats(env_id):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    rng = np.random.default_rng(0)
    for mode in ("aec", "parallel"):
        env = BoardZooMultiAgentEnv({"env_id": env_id, "mode": mode})
        check_multiagent_environments(env)  # steps an unmasked random action: penalized, not raised
        steps, multi = _play(env, rng, games=1)
        if mode == "aec":
            assert multi == 0  # one seat at a time


def test_parallel_mode_asks_simultaneous_seats_together_and_illegal_modes():
    rng = np.random.default_rng(1)
    env = BoardZooMultiAgentEnv({"env_id": "voll_verplant_v0", "mode": "parallel", "num_players": 3})
    steps, multi = _play(env, rng, games=1)
    assert multi > 0
    env = BoardZooMultiAgentEnv({"env_id": "hidden_castle_v0", "illegal": "raise"})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    bad = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step({agent: bad})
    env = BoardZooMultiAgentEnv({"env_id": "hidden_castle_v0"})
    obs, _ = env.reset(seed=0)
    obs, rew, term, _, info = env.step({agent: bad})
    assert term["__all__"] and rew == {agent: -1.0} and info[agent]["illegal_action"] == bad
    with pytest.raises(ConfigError):
        BoardZooMultiAgentEnv({"env_id": "hidden_castle_v0", "mode": "sideways"})
    with pytest.raises(ConfigError):
        BoardZooMultiAgentEnv({"env_id": "nope_v0"})


def test_learner_seat_with_pool_and_stats():
    env = BoardZooMultiAgentEnv({"env_id": "hidden_castle_v0", "learner_seats": "one", "seed": 0})
    _play(env, np.random.default_rng(2), games=3)
    games, wins = env.pop_game_stats()
    assert games == 3 and 0 <= wins <= 3 and env.pop_game_stats() == (0, 0.0)


def test_module_masks_and_matches_the_exported_policy():
    """The module's logits (with the action-feature skip) are the numpy policy's; masked actions never win."""
    import torch
    from ray.rllib.core.columns import Columns

    from boardzoo.training.policy import NumpyPolicy

    env = BoardZooMultiAgentEnv({"env_id": "downforce_v0", "options": {"action_features": True}})
    space = env.observation_spaces["player_0"]
    off = env.game.action_feature_offset
    m = MaskedMLPModule(
        observation_space=space,
        action_space=env.action_spaces["player_0"],
        model_config={"hidden": [16], "action_skip": 3.0, "action_feature_offset": off},
    )
    obs, _ = env.reset(seed=0)
    o = next(iter(obs.values()))
    batch = {
        Columns.OBS: {
            "observations": torch.from_numpy(o["observations"][None]),
            "action_mask": torch.from_numpy(o["action_mask"][None]),
        }
    }
    logits = m.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].detach().numpy()
    legal = o["action_mask"] > 0
    params = actor_params(m)
    assert len(params) == 6 and int(params[-1][0]) == off  # [W1, b1, Wout, bout, gain, [offset]]
    ref = NumpyPolicy(params, "tanh").logits(o["observations"])
    np.testing.assert_allclose(logits[legal], ref[legal], rtol=1e-4, atol=1e-4)
    assert logits[~legal].max() < -1e30 and legal[int(logits.argmax())]
    assert m.compute_values(batch).shape == (1,)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.mark.parametrize(
    "env_id,extra",
    [
        ("hidden_castle_v0", {}),  # turn-based, league (pool) seats
        ("voll_verplant_v0", {"rllib": {"num_env_runners": 1, "learner_seats": "all", "mode": "parallel"}}),
    ],
)
def test_tiny_rllib_run_exports_a_legal_bot(local_ray, tmp_path, env_id, extra):
    """backend: rllib through the CLI's train(): local Ray, 1 env runner, a few hundred steps; the run
    resumes, exports to the same bot format as SB3 runs, loads with load_bot and plays legally."""
    import csv

    import boardzoo.envs as E
    from boardzoo.integrations.rllib.train import train
    from boardzoo.training.config import config_from_dict
    from boardzoo.training.export import export_run, load_bot

    cfg = config_from_dict(
        {
            "env_id": env_id,
            "backend": "rllib",
            "seed": 2,
            "total_steps": 300,
            "n_envs": 1,
            "net": {"hidden": [16]},
            "ppo": {"n_steps": 150, "batch_size": 50, "n_epochs": 1},
            "pool": {"snapshot_every": 150},
            "eval": {"every": 150, "games": 2, "opponents": ["random"]},
            "rllib": {"num_env_runners": 1},
            **extra,
        }
    )
    run = train(cfg, run_dir=tmp_path / "run", progress=False, log=lambda s: None)
    with open(run / "log.csv") as f:
        rows = list(csv.DictReader(f))
    assert float(rows[-1]["steps"]) >= 300 and (run / "curve.png").is_file() and (run / "rllib").is_dir()
    with pytest.raises(ConfigError):  # a second start without --resume/--force refuses
        train(cfg, run_dir=run, progress=False, log=lambda s: None)
    cfg.total_steps = int(float(rows[-1]["steps"])) + 150  # steps are learner decisions (all seats' with "all")
    train(cfg, run_dir=run, resume=True, progress=False, log=lambda s: None)
    with open(run / "log.csv") as f:
        rows2 = list(csv.DictReader(f))
    assert rows2[: len(rows)] == rows and float(rows2[-1]["steps"]) >= cfg.total_steps
    out = export_run(run, out=tmp_path / "bot", which="last", progress=False, log=lambda s: None)
    bot = load_bot(out, env_id=env_id)
    assert bot.card["architecture"]["hidden"] == [16]
    env = E.make(env_id)
    env.reset(seed=5)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else bot.act(obs))  # the env raises on any illegal action
