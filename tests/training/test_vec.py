"""``vec: batched`` (BatchedSubprocVecEnv) steps like SB3's DummyVecEnv, and its worker rollouts fill
MaskablePPO's buffer as sb3-contrib's loop would."""

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


class _Recorder:
    """A callback recording what ``on_step`` sees: the step count, and each step's infos and dones."""

    def __new__(cls):
        from stable_baselines3.common.callbacks import BaseCallback

        class Rec(BaseCallback):
            def __init__(self):
                super().__init__()
                self.seen = []

            def _on_step(self) -> bool:
                infos = [{k: v for k, v in i.items() if k != "action_mask"} for i in self.locals["infos"]]
                self.seen.append((self.num_timesteps, np.array(self.locals["dones"]), repr(infos)))
                return True

        return Rec()


def _model(vec_kind, tmp_path, workers=1):
    from types import SimpleNamespace

    from boardzoo.training.run import RunSeeds
    from boardzoo.training.train import build_model

    cfg = config_from_dict(
        {
            "env_id": "hidden_castle_v0",
            "n_envs": 3,
            "vec": vec_kind,
            "workers": workers,
            "seed": 4,
            "net": {"hidden": [16]},
            "ppo": {"n_steps": 40, "batch_size": 40, "n_epochs": 1, "gamma": 0.9},
            "pool": {"schedule": [{"start": 0.0, "heuristic": 0.5, "random": 0.5}]},
            "bc": {"games": 0},
        }
    )
    seeds = RunSeeds(cfg.seed)
    vec = make_vec_env(cfg, seeds)
    folder = SimpleNamespace(resume=False, path=lambda name: tmp_path / name)
    model = build_model(cfg, vec, folder, seeds)  # type: ignore[arg-type]
    model.tensorboard_log = None
    return model, vec


def test_worker_rollout_fills_the_buffer_as_sb3_contribs_loop_would(tmp_path):
    """With one worker seeded as the learner would be, ``vec: batched``'s rollout (the workers play
    the policy's copy) writes the same buffer, step count, last observation and callback steps as
    sb3-contrib's own loop over the same envs; a second rollout with changed weights too."""
    import torch

    ref, ref_vec = _model("dummy", tmp_path / "d")
    bat, bat_vec = _model("batched", tmp_path / "b")
    try:
        assert isinstance(bat_vec, BatchedSubprocVecEnv) and not hasattr(ref_vec, "rollout")
        bat.policy.load_state_dict(ref.policy.state_dict())
        for m in (ref, bat):
            m._setup_learn(10_000)  # resets the envs (same seeds) and SB3's bookkeeping, as learn() does
        for rnd in range(2):
            torch.manual_seed(rnd)
            before = torch.get_rng_state()
            seed = int(torch.randint(0, 1 << 62, (1,)).item())  # the worker seed the batched rollout draws
            torch.set_rng_state(before)
            rec_b = _Recorder()
            rec_b.init_callback(bat)
            assert bat.collect_rollouts(bat.env, rec_b, bat.rollout_buffer, 40)
            torch.manual_seed(seed)
            rec_r = _Recorder()
            rec_r.init_callback(ref)
            assert ref.collect_rollouts(ref.env, rec_r, ref.rollout_buffer, 40)
            for key in ("observations", "actions", "rewards", "episode_starts", "values", "log_probs",
                        "action_masks", "returns", "advantages"):  # fmt: skip
                np.testing.assert_array_equal(getattr(ref.rollout_buffer, key), getattr(bat.rollout_buffer, key), key)
            assert bat.rollout_buffer.full and bat.rollout_buffer.pos == 40
            assert ref.num_timesteps == bat.num_timesteps == 120 * (rnd + 1)
            np.testing.assert_array_equal(ref._last_obs, bat._last_obs)
            np.testing.assert_array_equal(ref._last_episode_starts, bat._last_episode_starts)
            assert len(rec_r.seen) == len(rec_b.seen) == 40
            for (n1, d1, i1), (n2, d2, i2) in zip(rec_r.seen, rec_b.seen):
                assert n1 == n2 and (d1 == d2).all() and i1 == i2
            assert sum(d.sum() for _, d, _ in rec_b.seen) > 0  # games ended (and reset) within the rollout
            with torch.no_grad():  # an update between rollouts: the workers must play the new weights
                for p1, p2 in zip(ref.policy.parameters(), bat.policy.parameters()):
                    p1.mul_(1.5)
                    p2.mul_(1.5)
    finally:
        ref_vec.close()
        bat_vec.close()


def test_training_on_batched_workers_is_reproducible(tiny_games, tmp_path):
    """Two workers' rollouts are seeded from the learner's generator: the same config and seed end
    with the same weights; the envs step in the workers and the buffer is full every update."""
    from boardzoo.training.train import train

    def run(name: str, seed: int) -> dict:
        cfg = config_from_dict(
            {
                "env_id": "tinynim_v0",
                "total_steps": 768,
                "n_envs": 3,
                "vec": "batched",
                "workers": 2,
                "seed": seed,
                "net": {"hidden": [16]},
                "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 2},
                "pool": {"snapshot_every": 192, "schedule": [{"start": 0.0, "snapshot": 0.5, "heuristic": 0.5}]},
                "eval": {"every": 384, "games": 10},
                "bc": {"games": 0},
            }
        )
        folder = train(cfg, run_dir=tmp_path / name, progress=False, log=lambda s: None)
        with np.load(folder / "policy.npz") as z:
            return {k: z[k] for k in z.files}

    a, b, c = run("a", 5), run("b", 5), run("c", 6)
    assert a.keys() == b.keys() and a
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert any(not np.array_equal(a[k], c[k]) for k in a)


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


def test_worker_rollout_uses_the_policy_it_is_given():
    """A second policy object (another architecture) replaces the workers' copy; the values the
    workers return are the given policy's on the observations they played."""
    import gymnasium as gym
    import torch
    from stable_baselines3.common.utils import ConstantSchedule

    from boardzoo.training.sb3_policy import LeanMaskedPolicy

    bat = BatchedSubprocVecEnv(_fns(3), workers=2)
    try:
        bat.reset()
        box = gym.spaces.Box(-np.inf, np.inf, bat.observation_space.shape, np.float32)
        for arch, act in (([8], torch.nn.Tanh), ([16, 4], torch.nn.ReLU)):
            pol = LeanMaskedPolicy(box, bat.action_space, ConstantSchedule(1e-3), net_arch=arch, activation_fn=act)
            out = bat.rollout(pol, 5, np.ones(3, dtype=bool), 0.99, seed=1)
            assert out["observations"].shape == (5, 3, box.shape[0]) and out["action_masks"].shape[:2] == (5, 3)
            with torch.no_grad():
                want = pol.predict_values(torch.as_tensor(out["observations"].reshape(15, -1))).numpy().reshape(5, 3)
            np.testing.assert_allclose(out["values"], want, rtol=1e-5, atol=1e-6)
            assert out["action_masks"][np.arange(5)[:, None], np.arange(3)[None], out["actions"].astype(int)].all()
    finally:
        bat.close()
