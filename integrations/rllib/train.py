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

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.training.config import TrainConfig
from boardzoo.training.run import EvalCadence, League, Ledger, RunFolder, RunSeeds, progress_bar, stage_weights
from boardzoo.training.tournament import one_thread

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
        "seed": RunSeeds(cfg.seed).env(0),
        "pool": {
            "weights": stage_weights(cfg, 0.0),
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
        .debugging(seed=RunSeeds(cfg.seed).model, log_level="ERROR")
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
    import ray
    import torch

    folder = RunFolder(cfg, config_path, run_dir, CHECKPOINT, resume, force, log)
    folder.state["backend"] = "rllib"
    seeds = RunSeeds(cfg.seed)
    steps = int(folder.state.get("steps", 0))
    games = int(folder.state.get("games", 0))
    recent: list[float] = []
    ledger = Ledger(cfg, folder, seeds, f"{cfg.env_id} ({folder.stem}, rllib)")
    ledger.write = log
    one_thread()
    torch.manual_seed(seeds.torch)
    started = start_ray(cfg, log)
    bar = None
    try:
        algo = algorithm_config(cfg).build_algo()
        if resume:
            algo.restore_from_path(str(folder.path(CHECKPOINT).resolve()))
            log(f"resumed {folder.dir} at step {steps}")
        league = League(
            cfg,
            folder.load_pool() if resume else [],
            push=lambda ps: _push_snapshot(algo, ps),
            set_weights=lambda w: _on_envs(algo, lambda e: e.set_pool_weights(w)),
        )
        league.start(steps, lambda: learner_params(algo))

        def checkpoint() -> None:
            save = lambda: algo.save_to_path(str(folder.path(CHECKPOINT).resolve()))
            ledger.checkpoint(steps, games, recent, learner_params(algo), league.snaps, save)

        if not resume:
            checkpoint()  # the starting point on the curve
        if progress:
            bar = progress_bar(cfg.total_steps, steps, f"train {cfg.env_id} (rllib)")
            ledger.write = bar.write
        cadence = EvalCadence(cfg.eval.every, steps)
        if steps >= cfg.total_steps:
            log(f"{folder.dir} has already trained {steps} >= total_steps={cfg.total_steps} steps")
        while steps < cfg.total_steps and not ledger.stop_now:  # eval.stop_at_bar met: stop
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
            league.step(steps, lambda: learner_params(algo))
            if cadence.due(steps) or steps >= cfg.total_steps:
                checkpoint()
        algo.stop()
    finally:
        if bar is not None:
            bar.close()
        if started:
            ray.shutdown()
    return folder.dir
