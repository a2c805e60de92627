"""Training throughput: learner samples/s of our self-play path vs SB3's own MaskablePPO, same run.

    python benchmarks/bench_train.py                              # every game with a configs/<env_id>.yaml
    python benchmarks/bench_train.py --env hidden_castle_v0 --steps 16384
    python benchmarks/bench_train.py --env hidden_castle_v0 --n-envs 16 --vec dummy   # another layout
    python benchmarks/bench_train.py --time-to-bar challengers_v0  # wall time to the strength bar

For each game, two rows measured back to back:

* **ours**: the shipped config's training path (``configs/<env_id>.yaml``: its envs, network, PPO
  batch, action-skip policy, and the opponent pool of its first schedule stage: heuristic, random,
  learner snapshots), timed over ``--steps`` learner decisions after one warm-up rollout; evaluation
  rounds are not included (``eval.every`` is what a user tunes).
* **reference**: sb3-contrib's MaskablePPO on a trivial masked env (:class:`TrivialMaskedEnv`: the
  game's observation and action sizes, random observations and masks, 100-step episodes), with the
  same number and kind of envs, network, PPO batch, update threads and Adam (fused where torch has
  it), and sb3-contrib's own rollout loop (with ``vec: batched`` its envs step in the workers in
  lockstep, where ours play whole rollouts there): what SB3 itself costs on this machine.

``--time-to-bar ENV`` instead trains ``configs/ENV.yaml`` (imitation warm start included, in a
temporary run folder unless ``--run-dir``) with ``eval.stop_at_bar``: evaluations against random and
the heuristic every ``--bar-every`` steps over ``--bar-games`` games each, stopping at the first whose
95% lower bounds are all at least ``1/n + --margin`` (0: the strength bar every shipped bot meets);
it prints the wall time and learner steps to get there.

"Learner samples/s" is learner decisions collected and trained on per second of wall time. The
ratio ours / reference is the figure to compare across machines (1.0: the game, its opponents and
our wrappers cost nothing beyond SB3 itself). Prints a Markdown table; ``--out`` writes JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


class TrivialMaskedEnv:
    """A Gymnasium env that costs nothing: random observations and masks of the given sizes."""

    def __new__(cls, obs_size: int, num_actions: int, ep_length: int = 100):
        import gymnasium as gym
        import numpy as np

        class _Env(gym.Env):
            def __init__(self) -> None:
                self.observation_space = gym.spaces.Box(0.0, 1.0, (obs_size,), np.float32)
                self.action_space = gym.spaces.Discrete(num_actions)
                self.rng = np.random.default_rng(0)
                self.t = 0

            def _obs(self):
                return self.rng.random(obs_size, dtype=np.float32)

            def action_masks(self):
                m = self.rng.random(num_actions) < 0.5
                m[self.rng.integers(num_actions)] = True
                return m

            def reset(self, *, seed=None, options=None):
                super().reset(seed=seed)
                self.t = 0
                return self._obs(), {}

            def step(self, action):
                self.t += 1
                return self._obs(), float(self.rng.random() < 0.5), self.t >= ep_length, False, {}

        return _Env()


def _timed_learn(model, steps: int, batch: int) -> tuple[int, float]:
    model.learn(batch)  # warm-up: one rollout and one update
    t0 = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    dt = time.perf_counter() - t0
    return -(-steps // batch) * batch, dt  # SB3 collects whole rollouts


def bench_ours(cfg, steps: int) -> dict:
    from boardzoo.training.run import RunSeeds
    from boardzoo.training.tournament import one_thread
    from boardzoo.training.train import build_model, make_vec_env

    one_thread()  # as boardzoo train
    seeds = RunSeeds(cfg.seed)
    vec = make_vec_env(cfg, seeds)
    with tempfile.TemporaryDirectory() as tmp:
        folder = SimpleNamespace(resume=False, path=lambda name: Path(tmp) / name)
        model = build_model(cfg, vec, folder, seeds)  # type: ignore[arg-type]
        model.tensorboard_log = None
        try:
            n, dt = _timed_learn(model, steps, cfg.ppo.n_steps * cfg.n_envs)
        finally:
            vec.close()
    return {"stack": f"ours ({cfg.vec} x{cfg.n_envs})", "samples": n, "seconds": dt, "samples_per_s": n / dt}


def bench_reference(cfg, steps: int, obs_size: int, num_actions: int) -> dict:
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from boardzoo.training.run import fused_adam
    from boardzoo.training.tournament import one_thread
    from boardzoo.training.train import ppo_class, update_threads

    one_thread()  # the same thread settings as ours: one in the rollout, update_threads in the update
    MaskablePPO = ppo_class()

    def make():
        return TrivialMaskedEnv(obs_size, num_actions)

    fns = [make for _ in range(cfg.n_envs)]
    if cfg.vec == "batched" and cfg.n_envs > 1:
        from boardzoo.training.vec import BatchedSubprocVecEnv

        vec: Any = BatchedSubprocVecEnv(fns, workers=cfg.workers)
    elif cfg.vec == "subproc" and cfg.n_envs > 1:
        vec = SubprocVecEnv(fns, start_method="fork")
    else:
        vec = DummyVecEnv(fns)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.net.activation]
    p = cfg.ppo
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        policy_kwargs={
            "net_arch": {"pi": list(cfg.net.hidden), "vf": list(cfg.net.hidden)},
            "activation_fn": act,
            "optimizer_kwargs": {"eps": 1e-5, **fused_adam()},  # as ours
        },
        device="cpu",
        seed=0,
    )
    model.update_threads = update_threads(cfg)
    model.worker_rollouts = False  # SB3's own rollout loop (with vec: batched, lockstep steps)
    try:
        n, dt = _timed_learn(model, steps, p.n_steps * cfg.n_envs)
    finally:
        vec.close()
    return {
        "stack": f"SB3 MaskablePPO, trivial masked env ({cfg.vec} x{cfg.n_envs})",
        "samples": n,
        "seconds": dt,
        "samples_per_s": n / dt,
    }


def time_to_bar(env_id: str, a: argparse.Namespace) -> dict:
    """Train the shipped config until it clears the bar (see the module docstring)."""
    from boardzoo.training.config import load_config
    from boardzoo.training.train import train

    cfg = load_config(ROOT / "configs" / f"{env_id}.yaml")
    apply_layout(cfg, a)
    cfg.total_steps = a.max_steps or cfg.total_steps
    cfg.eval.every, cfg.eval.games = a.bar_every, a.bar_games
    cfg.eval.opponents, cfg.eval.stop_at_bar = ["random", "heuristic"], a.margin
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(a.run_dir) if a.run_dir else Path(tmp) / env_id
        t0 = time.perf_counter()
        train(cfg, run_dir=run, force=bool(a.run_dir), progress=False)
        wall = time.perf_counter() - t0
        state = json.loads((run / "state.json").read_text())
    bar = state.get("bar")
    return {
        "env_id": env_id,
        "layout": f"{cfg.vec} x{cfg.n_envs}",
        "margin": a.margin,
        "reached": bar is not None,
        "steps": bar["steps"] if bar else state["steps"],
        "wall_s_to_bar": bar["wall_s"] if bar else None,
        "wall_s_total": round(wall, 1),
        "last_eval": state.get("last_eval"),
    }


def apply_layout(cfg: Any, a: argparse.Namespace) -> None:
    """``--n-envs`` / ``--vec`` / ``--workers`` overrides (the PPO batch n_steps x n_envs is kept)."""
    if a.n_envs:
        batch = cfg.ppo.n_steps * cfg.n_envs
        cfg.n_envs = a.n_envs
        cfg.ppo.n_steps = max(1, batch // a.n_envs)
    if a.vec:
        cfg.vec = a.vec
    if a.workers:
        cfg.workers = a.workers


def main(argv: list[str] | None = None) -> int:
    from boardzoo.envs import make_game, names
    from boardzoo.training.config import load_config

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env", action="append", help="env id (repeatable; default: every game with a config)")
    ap.add_argument("--steps", type=int, default=8192, help="timed learner decisions per row")
    ap.add_argument("--n-envs", type=int, help="override the config's n_envs (keeping its PPO batch)")
    ap.add_argument("--vec", choices=["subproc", "dummy", "batched"], help="override the config's vec")
    ap.add_argument("--workers", type=int, help="vec: batched: worker processes (default: one per CPU)")
    ap.add_argument("--out", help="write the rows as JSON here")
    ap.add_argument("--time-to-bar", metavar="ENV", help="train ENV's config until it clears the strength bar")
    ap.add_argument("--margin", type=float, default=0.0, help="--time-to-bar: lower bounds >= 1/n + this")
    ap.add_argument("--bar-every", type=int, default=25_000, help="--time-to-bar: steps between evaluations")
    ap.add_argument("--bar-games", type=int, default=200, help="--time-to-bar: games per opponent and evaluation")
    ap.add_argument("--max-steps", type=int, help="--time-to-bar: give up after this many steps (default: config)")
    ap.add_argument("--run-dir", help="--time-to-bar: keep the run here (replaced if it exists)")
    a = ap.parse_args(argv)
    if a.time_to_bar:
        r = time_to_bar(a.time_to_bar, a)
        if r["reached"]:
            print(
                f"{r['env_id']} ({r['layout']}): every 95% lower bound >= 1/n + {r['margin']:g} after "
                f"{r['steps']} learner steps, {r['wall_s_to_bar']:.0f} s wall (imitation included); last "
                f"evaluation {r['last_eval']}"
            )
        else:
            print(f"{r['env_id']}: bar not reached in {r['steps']} steps ({r['wall_s_total']:.0f} s)")
        if a.out:
            Path(a.out).write_text(json.dumps(r, indent=1))
        return 0
    envs = a.env or [e for e in names() if (ROOT / "configs" / f"{e}.yaml").is_file()]
    rows = []
    print(f"# training throughput, {platform.processor() or platform.machine()}, python {sys.version.split()[0]}")
    print("| env | stack | samples/s | ours / SB3 |")
    print("|---|---|---|---|")
    for env_id in envs:
        cfg = load_config(ROOT / "configs" / f"{env_id}.yaml")
        cfg.bc.games = 0
        apply_layout(cfg, a)  # the same PPO batch (n_steps x n_envs) spread over more or fewer envs
        game = make_game(env_id, **cfg.options)
        ours = bench_ours(cfg, a.steps)
        ref = bench_reference(cfg, a.steps, game.observation_size, game.num_actions)
        ratio = ours["samples_per_s"] / ref["samples_per_s"]
        for r in (ours, ref):
            r["env_id"] = env_id
            rows.append(r)
        print(f"| {env_id} | {ours['stack']} | {ours['samples_per_s']:.0f} | {ratio:.2f} |")
        print(f"| {env_id} | {ref['stack']} | {ref['samples_per_s']:.0f} | |")
        sys.stdout.flush()
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
