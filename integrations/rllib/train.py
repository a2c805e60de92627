"""``boardzoo train`` with ``backend: rllib``: self-play PPO on Ray RLlib (new API stack).

The same YAML config as the SB3 backend (``env_id``, ``net``, ``ppo``, ``pool``, ``eval``...) plus
an ``rllib:`` section (:class:`boardzoo.training.config.RLlibConfig`). Without ``rllib.address``
the command starts a local Ray instance and stops it at the end; with ``address: auto`` (the
cluster of this node, after ``ray start``) or ``ray://host:10001`` (Ray Client) it runs on that
cluster unchanged: env runners are spread over its nodes, the learner and the evaluation run in
this process. Every node needs the same ``boardzoo[rllib]`` install.

The league is the SB3 trainer's: each game the learner (the shared module ``"shared"``) takes one
random seat and the other seats are drawn inside the env from the opponent pool (learner snapshots
pushed to every env runner every ``pool.snapshot_every`` steps, the heuristic, random), following
``pool.schedule`` (``rllib.learner_seats: all`` gives mirror self-play instead: every seat is the
learner). Steps are learner decisions, as in the SB3 trainer.

The run folder is the SB3 run's (``config.yaml``, ``log.csv``, ``curve.png``, ``policy.npz``,
``best_policy.npz``, ``pool.npz``, ``state.json``) plus ``rllib/`` (RLlib's checkpoint, for
``--resume``) instead of ``model.zip``; so ``boardzoo export`` turns it into the same bot format.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import ConfigError, make_game
from boardzoo.training.config import TrainConfig, config_to_dict
from boardzoo.training.policy import NumpyPolicy
from boardzoo.training.train import _plot_curve, _RunFiles, _stage_weights, evaluate

from .module import SHARED, actor_params, shared_policy_config

CHECKPOINT = "rllib"


def env_config(cfg: TrainConfig) -> dict:
    """The env config of a training run (:class:`.env.BoardZooMultiAgentEnv`)."""
    return {
        "num_players": cfg.players(),
        "options": dict(cfg.options),
        "reward": cfg.reward,
        "illegal": "penalize",
        "mode": cfg.rllib.mode,
        "learner_seats": cfg.rllib.learner_seats,
        "seed": cfg.seed,
        "pool": {
            "weights": _stage_weights(cfg, 0.0),
            "max_snapshots": cfg.pool.max_snapshots,
            "latest_prob": cfg.pool.latest_prob,
            "activation": cfg.net.activation,
        },
    }


def algorithm_config(cfg: TrainConfig) -> Any:
    """The ``PPOConfig`` of a run: one shared masking module, the config's PPO settings."""
    from ray.rllib.algorithms.ppo import PPOConfig

    p, r = cfg.ppo, cfg.rllib
    batch = r.train_batch_size or p.n_steps * cfg.n_envs
    conf = shared_policy_config(
        PPOConfig(),
        cfg.env_id,
        env_config(cfg),
        hidden=cfg.net.hidden,
        activation=cfg.net.activation,
        action_skip=cfg.net.action_skip,
    )
    return (
        conf.env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=r.num_envs_per_env_runner,
            num_cpus_per_env_runner=1,
            sample_timeout_s=r.sample_timeout_s,
        )
        .learners(num_learners=r.num_learners)
        .training(
            lr=p.learning_rate,
            gamma=p.gamma,
            lambda_=p.gae_lambda,
            clip_param=p.clip_range,
            entropy_coeff=p.ent_coef,
            vf_loss_coeff=p.vf_coef,
            grad_clip=p.max_grad_norm,
            grad_clip_by="global_norm",
            num_epochs=p.n_epochs,
            minibatch_size=min(p.batch_size, batch),
            train_batch_size_per_learner=batch,
            use_kl_loss=False,
            vf_clip_param=10.0,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
    )


def start_ray(cfg: TrainConfig, log: Callable[[str], None] = print) -> bool:
    """Connect to ``rllib.address`` or start a local Ray instance; True when this call started it."""
    import ray

    if ray.is_initialized():
        return False
    r = cfg.rllib
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    if r.address:
        ray.init(address=r.address, log_to_driver=False)
        log(f"ray: connected to {r.address} ({ray.cluster_resources().get('CPU', 0):.0f} CPUs)")
        return True
    cpus = max(os.cpu_count() or 1, r.num_env_runners + 1)  # one CPU per env runner, the learner here
    ray.init(num_cpus=r.num_cpus or cpus, include_dashboard=False, log_to_driver=False)
    log(f"ray: local instance ({ray.cluster_resources().get('CPU', 0):.0f} CPUs)")
    return True


def learner_params(algo: Any) -> list[np.ndarray]:
    """The learner's current actor as a parameter list (local or remote learners)."""
    results = algo.learner_group.foreach_learner(lambda learner: actor_params(learner.module[SHARED]))
    return next(iter(results)).get()  # every learner holds the same weights


def _on_envs(algo: Any, fn: Callable[[Any], Any]) -> list:
    """Call ``fn(env)`` on every env of every env runner (remote ones, and the local one if it has envs)."""

    def each(runner: Any) -> list:
        env = getattr(runner, "env", None)
        return [fn(e.unwrapped) for e in getattr(env, "envs", [])] if env is not None else []

    out = algo.env_runner_group.foreach_env_runner(each, local_env_runner=True)
    return [x for part in out for x in (part or [])]


def _push_snapshot(algo: Any, params: list[np.ndarray]) -> None:
    """Add a learner snapshot to the opponent pool of every env."""

    def add(env: Any) -> None:
        env.add_snapshot(params)

    _on_envs(algo, add)


def train(
    cfg: TrainConfig,
    config_path: str | None = None,
    run_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> Path:
    """Train ``cfg`` on RLlib (see the module docstring); returns the run folder."""
    import yaml

    stem = Path(config_path).stem if config_path else cfg.env_id
    run = Path(run_dir or cfg.run_dir or Path("runs") / stem)
    files = _RunFiles(run)
    has_run = (run / "state.json").is_file() and (run / CHECKPOINT).is_dir()
    if has_run and not (resume or force):
        raise ConfigError(f"{run} already holds a run; pass --resume to continue it or --force to start over")
    if resume and not has_run:
        raise ConfigError(f"cannot resume: {run} holds no RLlib run (no state.json and {CHECKPOINT}/)")
    run.mkdir(parents=True, exist_ok=True)
    if resume:
        old = yaml.safe_load((run / "config.yaml").read_text())
        if old != config_to_dict(cfg):
            log(f"note: the config differs from the one {run} was started with; using the new one")
    else:
        for f in ("log.csv", "best_policy.npz", "pool.npz", "policy.npz", "state.json"):
            (run / f).unlink(missing_ok=True)
    (run / "config.yaml").write_text(yaml.safe_dump(config_to_dict(cfg), sort_keys=False))
    state = json.loads((run / "state.json").read_text()) if resume else {}
    state.setdefault("config_path", config_path)
    state["backend"] = "rllib"
    wall_before = float(state.get("wall_s", 0.0))
    steps = int(state.get("steps", 0))
    games = int(state.get("games", 0))
    rows: list[dict] = []
    if resume and (run / "log.csv").is_file():
        with open(run / "log.csv") as fh:
            rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(fh)]
    snaps = files.load_pool() if resume else []
    opponents = list(cfg.eval.opponents)
    even = 1.0 / make_game(cfg.env_id, **cfg.options).default_players

    import ray
    import torch

    torch.set_num_threads(1)
    started = start_ray(cfg, log)
    t_start = time.time()
    bar = None
    try:
        algo = algorithm_config(cfg).build_algo()
        if resume:
            algo.restore_from_path(str((run / CHECKPOINT).resolve()))
            log(f"resumed {run} at step {steps}")
        for snap in snaps:
            _push_snapshot(algo, snap)
        recent: list[float] = []
        stage: dict | None = None

        def set_stage() -> None:
            nonlocal stage
            w = _stage_weights(cfg, steps / cfg.total_steps)
            if w != stage:
                _on_envs(algo, lambda e: e.set_pool_weights(w))
                stage = w

        def snapshot() -> None:
            ps = learner_params(algo)
            snaps.append(ps)
            del snaps[: -cfg.pool.max_snapshots]
            _push_snapshot(algo, ps)

        def checkpoint() -> None:
            params = learner_params(algo)
            pol = NumpyPolicy(params, cfg.net.activation)
            row = {
                "steps": float(steps),
                "wall_s": wall_before + time.time() - t_start,
                "games": float(games),
                "train_win_rate": float(np.mean(recent)) if recent else float("nan"),
            }
            evals = {}
            for k, opp in enumerate(opponents):
                if cfg.eval.games <= 0:
                    break
                e = evaluate(
                    pol,
                    cfg.env_id,
                    cfg.options,
                    opp,
                    cfg.eval.games,
                    seed=10_000 * (len(rows) + 1) + 1000 * k + cfg.seed,
                )
                evals[opp] = e
                row[f"win_{opp}"], row[f"lo_{opp}"], row[f"hi_{opp}"] = e["win_rate"], e["lo"], e["hi"]
            rows.append(row)
            with open(run / "log.csv", "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(row))
                w.writeheader()
                w.writerows(rows)
            if evals:
                _plot_curve(run, rows, list(evals), even, f"{cfg.env_id} ({stem}, rllib)")
                score = float(np.mean([e["lo"] for e in evals.values()]))
                if score > state.get("best_score", -1.0):
                    state["best_score"], state["best_steps"] = score, steps
                    files.save_params("best_policy.npz", params)
                msg = ", ".join(f"vs {o} {e['win_rate']:.3f} [{e['lo']:.3f}, {e['hi']:.3f}]" for o, e in evals.items())
                (bar.write if bar is not None else log)(f"step {steps}: {msg} (even share {even:.3f})")
            files.save_params("policy.npz", params)
            files.save_pool(snaps)
            algo.save_to_path(str((run / CHECKPOINT).resolve()))
            state.update(
                {
                    "steps": steps,
                    "wall_s": row["wall_s"],
                    "games": games,
                    "last_eval": {o: {k2: round(v, 4) for k2, v in e.items()} for o, e in evals.items()},
                }
            )
            (run / "state.json").write_text(json.dumps(state, indent=1))

        if not snaps:
            snapshot()
        set_stage()
        if not resume:
            checkpoint()  # the starting point on the curve
        if progress:
            from tqdm import tqdm

            bar = tqdm(
                total=cfg.total_steps,
                initial=min(steps, cfg.total_steps),
                desc=f"train {cfg.env_id} (rllib)",
                unit="step",
                smoothing=0.05,
                mininterval=0.2 if sys.stderr.isatty() else 30.0,
            )
        next_snap = (steps // cfg.pool.snapshot_every + 1) * cfg.pool.snapshot_every
        next_eval = (steps // cfg.eval.every + 1) * cfg.eval.every
        if steps >= cfg.total_steps:
            log(f"{run} has already trained {steps} >= total_steps={cfg.total_steps} steps")
        while steps < cfg.total_steps:
            result = algo.train()
            n = int(result.get("env_runners", {}).get("num_module_steps_sampled", {}).get(SHARED, 0))
            steps += n
            for g, w in _on_envs(algo, lambda e: e.pop_game_stats()):
                games += g
                recent += [w / g] * g if g else []
            del recent[:-500]
            if bar is not None:
                bar.update(n)
                if recent:
                    bar.set_postfix(games=games, win=f"{np.mean(recent):.2f}", refresh=False)
            if steps >= next_snap:
                snapshot()
                next_snap = (steps // cfg.pool.snapshot_every + 1) * cfg.pool.snapshot_every
            set_stage()
            if steps >= next_eval or steps >= cfg.total_steps:
                checkpoint()
                next_eval = (steps // cfg.eval.every + 1) * cfg.eval.every
        algo.stop()
    finally:
        if bar is not None:
            bar.close()
        if started:
            ray.shutdown()
    return run
