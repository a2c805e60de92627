"""``vec: batched`` (BatchedSubprocVecEnv) behaves exactly like SB3's DummyVecEnv."""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv

from boardzoo.training.config import config_from_dict
from boardzoo.training.gym_env import SelfPlayEnv
from boardzoo.training.train import make_vec_env
from boardzoo.training.vec import BatchedSubprocVecEnv


def _fns(n):
    return [lambda i=i: SelfPlayEnv("hidden_castle_v0", seed=100 + i) for i in range(n)]


def test_batched_vec_env_matches_dummy():
    ref, bat = DummyVecEnv(_fns(5)), BatchedSubprocVecEnv(_fns(5), workers=2)
    try:
        assert [len(s) for s in bat.slices] == [2, 3] or [len(s) for s in bat.slices] == [3, 2]
        ref.seed(7)
        bat.seed(7)
        o1, o2 = ref.reset(), bat.reset()
        np.testing.assert_array_equal(o1, o2)
        for _ in range(150):
            m1 = np.stack(ref.env_method("action_masks"))
            m2 = np.stack(bat.env_method("action_masks"))
            np.testing.assert_array_equal(m1, m2)
            acts = np.array([int(np.flatnonzero(m)[-1]) for m in m1])
            s1, s2 = ref.step(acts), bat.step(acts)
            for a, b in zip(s1[:3], s2[:3]):
                np.testing.assert_array_equal(a, b)
            for i1, i2 in zip(s1[3], s2[3]):
                assert i1.keys() == i2.keys()
                if "terminal_observation" in i1:
                    np.testing.assert_array_equal(i1["terminal_observation"], i2["terminal_observation"])
        # per-env calls keep the caller's index order across workers
        assert bat.get_attr("seat", indices=[4, 0, 2]) == ref.get_attr("seat", indices=[4, 0, 2])
        bat.set_attr("illegal", "penalize", indices=[3])
        assert bat.get_attr("illegal") == ["raise", "raise", "raise", "penalize", "raise"]
        assert bat.has_attr("pool") and not bat.has_attr("no_such_attribute")
    finally:
        ref.close()
        bat.close()


def test_config_selects_batched():
    cfg = config_from_dict({"env_id": "hidden_castle_v0", "n_envs": 3, "vec": "batched", "workers": 2})
    vec = make_vec_env(cfg)
    try:
        assert isinstance(vec, BatchedSubprocVecEnv) and vec.num_envs == 3 and len(vec.processes) == 2
        assert vec.reset().shape == (3, vec.observation_space.shape[0])
    finally:
        vec.close()


def test_training_on_batched_workers_learns_what_dummy_learns(tiny_games, tmp_path):
    """``vec: batched`` only moves the games to other processes: the same run (seed, opponents,
    snapshots, PPO updates) ends with the same weights as ``vec: dummy``, so a config can switch."""
    from boardzoo.training.train import train

    def run(vec: str) -> dict:
        cfg = config_from_dict(
            {
                "env_id": "tinynim_v0",
                "total_steps": 768,
                "n_envs": 3,
                "vec": vec,
                "workers": 2,
                "seed": 5,
                "net": {"hidden": [16]},
                "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 2},
                "pool": {"snapshot_every": 192, "schedule": [{"start": 0.0, "snapshot": 0.5, "heuristic": 0.5}]},
                "eval": {"every": 384, "games": 10},
                "bc": {"games": 0},
            }
        )
        folder = train(cfg, run_dir=tmp_path / vec, progress=False, log=lambda s: None)
        with np.load(folder / "policy.npz") as z:
            return {k: z[k] for k in z.files}

    dummy, batched = run("dummy"), run("batched")
    assert dummy.keys() == batched.keys() and dummy
    for k in dummy:
        np.testing.assert_array_equal(dummy[k], batched[k], err_msg=k)


def test_update_runs_on_update_threads_and_the_rollout_on_one(tiny_games, tmp_path):
    """The PPO update uses ``update_threads`` torch threads (the envs wait meanwhile); the rollout,
    and everything after ``learn``, stays on one thread (``one_thread``)."""
    from types import SimpleNamespace

    import torch

    from boardzoo.training.run import RunSeeds, fused_adam
    from boardzoo.training.train import build_model, update_threads

    cfg = config_from_dict(
        {
            "env_id": "tinynim_v0",
            "n_envs": 2,
            "vec": "dummy",
            "update_threads": 2,
            "net": {"hidden": [8]},
            "ppo": {"n_steps": 16, "batch_size": 16, "n_epochs": 1},
            "bc": {"games": 0},
        }
    )
    assert update_threads(cfg) == 2
    cfg_default = config_from_dict({"env_id": "tinynim_v0"})
    assert 1 <= update_threads(cfg_default) <= 4
    seen: dict[str, list[int]] = {"collect": [], "train": []}
    vec = make_vec_env(cfg)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        folder = SimpleNamespace(resume=False, path=lambda name: tmp_path / name)
        model = build_model(cfg, vec, folder, RunSeeds(0))  # type: ignore[arg-type]
        model.tensorboard_log = None
        assert model.update_threads == 2
        # SB3's PPO Adam (eps 1e-5), fused where this torch has the fused CPU kernel
        assert model.policy.optimizer.defaults["eps"] == 1e-5
        assert bool(model.policy.optimizer.defaults.get("fused")) == bool(fused_adam())
        collect, step = model.collect_rollouts, model.policy.optimizer.step

        def spy_collect(*a, **k):
            seen["collect"].append(torch.get_num_threads())
            return collect(*a, **k)

        def spy_step(*a, **k):
            seen["train"].append(torch.get_num_threads())
            return step(*a, **k)

        model.collect_rollouts, model.policy.optimizer.step = spy_collect, spy_step
        model.learn(64)
        assert seen["collect"] and set(seen["collect"]) == {1}
        assert seen["train"] and set(seen["train"]) == {2}
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
        vec.close()
