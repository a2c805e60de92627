"""Self-play training with sb3-contrib MaskablePPO: ``boardzoo train configs/<env_id>.yaml``.

Reads top to bottom, in the order :func:`train` calls the pieces: build the vectorized single-agent
envs (:func:`make_vec_env`, :mod:`.gym_env`), build the model (:func:`build_model`), optionally warm
start it by imitating the heuristic bot (:func:`behaviour_clone`, ``bc.games``), then PPO with an
opponent pool driven by :class:`LeagueCallback`: the progress bar, learner snapshots into the pool,
the pool schedule's stages, and every ``eval.every`` steps an evaluation row and a checkpoint
(:class:`boardzoo.training.run.Ledger`) so that ``--resume`` continues the run.

The run folder, the seeds (one ``SeedSequence``), the league and the evaluation log are shared with
the RLlib backend (:mod:`boardzoo.training.run`); this module owns only what is SB3's: the model,
``model.zip`` and the callback. TensorBoard logs go to ``tb/`` when ``tensorboard`` is installed.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from boardzoo.envs import make_game
from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import CHANCE

from .bots import make_bot
from .config import TrainConfig
from .gym_env import OpponentPool, SelfPlayEnv
from .policy import policy_params, value_params
from .run import EvalCadence, League, Ledger, RunFolder, RunSeeds, fused_adam, progress_bar, stage_weights
from .tournament import one_thread


def _env_fn(cfg: TrainConfig, rank: int, seeds: RunSeeds) -> Callable[[], SelfPlayEnv]:
    def make() -> SelfPlayEnv:
        one_thread()
        game = make_game(cfg.env_id, **cfg.options)
        pool = OpponentPool(
            game, stage_weights(cfg, 0.0), cfg.pool.max_snapshots, cfg.pool.latest_prob, cfg.net.activation
        )
        return SelfPlayEnv(cfg.env_id, cfg.players(), cfg.options, cfg.reward, pool, seed=seeds.env(rank))

    return make


def make_vec_env(cfg: TrainConfig, seeds: RunSeeds | None = None):
    """``cfg.n_envs`` self-play envs: one process each (``vec: subproc``), in this process
    (``dummy``), or spread over ``cfg.workers`` processes that play whole rollouts (``batched``,
    :mod:`.vec`, :func:`ppo_class`)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    seeds = seeds or RunSeeds(cfg.seed)
    fns: list[Any] = [_env_fn(cfg, i, seeds) for i in range(cfg.n_envs)]
    if cfg.vec == "batched" and cfg.n_envs > 1:
        from .vec import BatchedSubprocVecEnv

        return BatchedSubprocVecEnv(fns, workers=cfg.workers)
    if cfg.vec == "subproc" and cfg.n_envs > 1:
        return SubprocVecEnv(fns, start_method="fork")
    return DummyVecEnv(fns)


# ---------------------------------------------------------------------- imitation warm start
def _demo_worker(args: tuple) -> tuple:
    env_id, options, players, games, seed, gamma, teacher, teacher_bot = args
    game = make_game(env_id, **options)
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    acts: list[int] = []
    rets: list[float] = []
    for _ in range(games):
        n = players[int(rng.integers(len(players)))]
        if teacher_bot:
            bots = [make_bot(teacher_bot, game, s, int(rng.integers(1 << 31))) for s in range(n)]
        else:
            bots = [game.heuristic_bot(s, int(rng.integers(1 << 31)), **teacher) for s in range(n)]
        st = game.new_initial_state(n)
        mine: list[list[int]] = [[] for _ in range(n)]
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            o, m = st.observation(p), st.legal_mask().copy()
            a = choose(bots[p], st, p, rng)
            mine[p].append(len(acts))
            obs.append(o)
            masks.append(m)
            acts.append(a)
            rets.append(0.0)
            st.apply_action(a)
        r = st.returns()
        for p in range(n):
            k = len(mine[p])
            for j, idx in enumerate(mine[p]):
                rets[idx] = r[p] * gamma ** (k - 1 - j)
    return (
        np.asarray(obs, np.float32),
        np.asarray(masks, np.int8),
        np.asarray(acts, np.int64),
        np.asarray(rets, np.float32),
    )


def behaviour_clone(
    model: Any, cfg: TrainConfig, log: Callable[[str], None] = print, seeds: RunSeeds | None = None
) -> dict:
    """Fit the policy (and value) to heuristic-vs-heuristic games before PPO."""
    import torch

    seeds = seeds or RunSeeds(cfg.seed)
    workers = max(1, cfg.n_envs)
    per = [cfg.bc.games // workers + (1 if i < cfg.bc.games % workers else 0) for i in range(workers)]
    tasks = [
        (
            cfg.env_id,
            cfg.options,
            cfg.players(),
            k,
            seeds.imitation(i),
            cfg.ppo.gamma,
            dict(cfg.bc.teacher),
            cfg.bc.teacher_bot,
        )
        for i, k in enumerate(per)
        if k > 0
    ]
    t0 = time.time()
    if len(tasks) > 1:
        # one task per env (the split fixes the demonstrations), run on at most one process per core
        with mp.get_context("fork").Pool(min(len(tasks), os.cpu_count() or 1)) as pool:
            parts = pool.map(_demo_worker, tasks)
    else:
        parts = [_demo_worker(t) for t in tasks]
    obs, masks, acts, rets = (np.concatenate([p[i] for p in parts]) for i in range(4))
    who = cfg.bc.teacher_bot or (f"heuristic {cfg.bc.teacher}" if cfg.bc.teacher else "heuristic")
    log(f"imitation: {len(acts)} decisions from {cfg.bc.games} {who} games in {time.time() - t0:.0f} s")
    pol = model.policy
    opt = torch.optim.Adam(pol.parameters(), lr=cfg.bc.learning_rate, **fused_adam())
    rng = np.random.default_rng(seeds.imitation(len(tasks)))  # the batch order
    n = len(acts)
    ob_t, ac_t, re_t = torch.from_numpy(obs), torch.from_numpy(acts), torch.from_numpy(rets)
    stats = {}
    for epoch in range(cfg.bc.epochs):
        perm = rng.permutation(n)
        tot, acc, cnt = 0.0, 0.0, 0
        for i in range(0, n, cfg.bc.batch_size):
            idx = perm[i : i + cfg.bc.batch_size]
            dist = pol.get_distribution(ob_t[idx], action_masks=masks[idx])
            loss = -dist.log_prob(ac_t[idx]).mean()
            if cfg.bc.value:
                v = pol.predict_values(ob_t[idx]).flatten()
                loss = loss + cfg.ppo.vf_coef * torch.nn.functional.mse_loss(v, re_t[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(pol.parameters(), 1.0)
            opt.step()
            with torch.no_grad():
                acc += float((dist.distribution.probs.argmax(-1) == ac_t[idx]).float().sum())
            tot += float(loss.detach()) * len(idx)
            cnt += len(idx)
        stats = {"epoch": epoch + 1, "loss": tot / cnt, "agreement": acc / cnt}
        log(
            f"imitation epoch {epoch + 1}/{cfg.bc.epochs}: loss {stats['loss']:.4f}, "
            f"agrees with the teacher on {100 * stats['agreement']:.1f}% of decisions"
        )
    stats["decisions"] = n
    return stats


# ---------------------------------------------------------------------- the run


# ---------------------------------------------------------------------- the model
def ppo_kwargs(cfg: TrainConfig) -> dict[str, Any]:
    p = cfg.ppo
    return dict(
        learning_rate=p.learning_rate,
        n_steps=p.n_steps,
        batch_size=p.batch_size,
        n_epochs=p.n_epochs,
        gamma=p.gamma,
        gae_lambda=p.gae_lambda,
        clip_range=p.clip_range,
        ent_coef=p.ent_coef,
        vf_coef=p.vf_coef,
        max_grad_norm=p.max_grad_norm,
        target_kl=p.target_kl,
    )


def update_threads(cfg: TrainConfig) -> int:
    """Torch threads of the PPO update: ``cfg.update_threads``, else one per CPU, at most 4."""
    if cfg.update_threads:
        return cfg.update_threads
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(4, cpus))


@cache
def ppo_class() -> Any:
    """MaskablePPO whose update (``train``) runs on ``update_threads`` torch threads and whose rollout
    runs in the workers of a ``vec: batched`` env (:meth:`.vec.BatchedSubprocVecEnv.rollout`).

    The rollout: with any other vec env, sb3-contrib's loop (one thread, ``one_thread``: the envs,
    the opponents' and the learner's forward passes are small). With ``vec: batched`` each worker
    plays its envs for the whole rollout with a copy of the policy (the same torch forward pass:
    sampled actions, values, log-probabilities) instead of waiting for the learner at every step;
    the buffer gets the same arrays sb3-contrib's loop would write, and the callback's ``on_step``
    runs once per step afterwards with that step's ``infos`` and ``dones`` (so league snapshots and
    pool stages set during a rollout reach the opponents from the next one: the policy, and so a
    snapshot's weights, do not change within a rollout). The workers' draws come from a seed drawn
    from the learner's torch generator. During the update the envs wait, so the update may use every
    core (measured on 2 cores: the update 1.3-1.6x faster; ``benchmarks/bench_train.py``,
    training/README.md)."""
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import is_masking_supported
    from stable_baselines3.common.utils import obs_as_tensor

    from .vec import BUFFER_KEYS

    class ThreadedMaskablePPO(MaskablePPO):
        update_threads = 1
        worker_rollouts = True  # False: sb3-contrib's rollout loop with any vec env (the benchmark's reference)

        def train(self) -> None:
            before = torch.get_num_threads()
            torch.set_num_threads(self.update_threads)
            try:
                super().train()
            finally:
                torch.set_num_threads(before)

        def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps, use_masking=True):  # type: ignore[no-untyped-def]
            rollout = getattr(env, "rollout", None) if self.worker_rollouts else None
            if rollout is None or not use_masking:
                return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
            assert self._last_obs is not None, "No previous observation was provided"
            if not is_masking_supported(env):
                raise ValueError("Environment does not support action masking. Consider using ActionMasker wrapper")
            self.policy.set_training_mode(False)
            rollout_buffer.reset()
            callback.on_rollout_start()
            seed = int(torch.randint(0, 1 << 62, (1,)).item())
            data = rollout(self.policy, n_rollout_steps, self._last_episode_starts, self.gamma, seed)
            b = rollout_buffer
            for key in BUFFER_KEYS:
                arr = getattr(b, key)
                arr[:] = data[key].reshape(arr.shape)
            b.pos, b.full = n_rollout_steps, True  # where n_rollout_steps calls of add() leave it
            for t in range(n_rollout_steps):
                self.num_timesteps += env.num_envs
                infos, dones = data["infos"][t], data["dones"][t]
                new_obs = data["observations"][t + 1] if t + 1 < n_rollout_steps else data["last_obs"]
                callback.update_locals(
                    {
                        "infos": infos,
                        "dones": dones,
                        "new_obs": new_obs,
                        "rewards": data["rewards"][t],
                        "actions": data["actions"][t],
                        "values": data["values"][t],
                        "log_probs": data["log_probs"][t],
                        "n_steps": t,
                        "env": env,
                    }
                )
                if not callback.on_step():
                    return False
                self._update_info_buffer(infos, dones)
            self._last_obs = data["last_obs"]
            self._last_episode_starts = data["dones"][-1]
            with torch.no_grad():
                values = self.policy.predict_values(obs_as_tensor(self._last_obs, self.device))
            rollout_buffer.compute_returns_and_advantage(last_values=values, dones=data["dones"][-1])
            callback.on_rollout_end()
            return True

    return ThreadedMaskablePPO


def build_model(cfg: TrainConfig, vec: Any, folder: RunFolder, seeds: RunSeeds) -> Any:
    """A new MaskablePPO (``net``: MLP, or the action-skip policy) or the one saved in ``model.zip``,
    its update on ``update_threads(cfg)`` torch threads."""
    model = _new_or_saved_model(cfg, vec, folder, seeds)
    model.update_threads = update_threads(cfg)
    return model


def _new_or_saved_model(cfg: TrainConfig, vec: Any, folder: RunFolder, seeds: RunSeeds) -> Any:
    import importlib.util

    import torch

    MaskablePPO = ppo_class()
    if folder.resume:
        return MaskablePPO.load(folder.path(MODEL), env=vec, device="cpu", **ppo_kwargs(cfg))
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.net.activation]
    policy_kwargs: dict[str, Any] = {
        "net_arch": {"pi": list(cfg.net.hidden), "vf": list(cfg.net.hidden)},
        "activation_fn": act,
        "optimizer_kwargs": {"eps": 1e-5, **fused_adam()},  # SB3's Adam eps for PPO, fused where torch has it
    }
    from .sb3_policy import ActionSkipPolicy, LeanMaskedPolicy

    policy: Any = LeanMaskedPolicy
    if cfg.net.action_skip > 0:
        policy = ActionSkipPolicy
        policy_kwargs.update(
            action_skip=cfg.net.action_skip,
            action_feature_offset=make_game(cfg.env_id, **cfg.options).action_feature_offset,
        )
    tb = str(folder.path("tb")) if importlib.util.find_spec("tensorboard") else None  # optional extra
    return MaskablePPO(
        policy,
        vec,
        policy_kwargs=policy_kwargs,
        seed=seeds.model,
        device="cpu",
        verbose=0,
        tensorboard_log=tb,
        **ppo_kwargs(cfg),
    )


# ---------------------------------------------------------------------- the callback
class LeagueCallback(BaseCallback):
    """Progress bar, league snapshots and stages, and an evaluation row + checkpoint every ``eval.every``."""

    def __init__(self, cfg: TrainConfig, folder: RunFolder, ledger: Ledger, league: League, progress: bool):
        super().__init__()
        self.cfg, self.folder, self.ledger, self.league = cfg, folder, ledger, league
        self.progress = progress
        self.bar: Any = None
        self.recent: list[float] = []
        self.games = int(folder.state.get("games", 0))

    def _params(self) -> list[np.ndarray]:
        return policy_params(self.model.policy)

    def _on_training_start(self) -> None:
        if self.progress:
            self.bar = progress_bar(self.cfg.total_steps, self.num_timesteps, f"train {self.cfg.env_id}")
            self.ledger.write = self.bar.write
        self.league.start(self.num_timesteps, self._params)
        self.cadence = EvalCadence(self.cfg.eval.every, self.num_timesteps)
        if not self.folder.resume:
            self.checkpoint()  # the starting point (after imitation, if any) on the curve

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"]):
            if done and "win" in info:
                self.recent.append(info["win"])
                self.games += 1
        del self.recent[:-500]
        if self.bar is not None:
            self.bar.update(self.training_env.num_envs)
            if self.n_calls % 50 == 0 and self.recent:
                self.bar.set_postfix(games=self.games, win=f"{np.mean(self.recent):.2f}", refresh=False)
        self.league.step(self.num_timesteps, self._params)
        if self.cadence.due(self.num_timesteps):
            self.checkpoint()
        return not self.ledger.stop_now

    def checkpoint(self) -> None:
        self.ledger.checkpoint(
            self.num_timesteps,
            self.games,
            self.recent,
            self._params(),
            self.league.snaps,
            lambda: self.model.save(self.folder.path(MODEL)),
            value=value_params(self.model.policy),
        )

    def _on_training_end(self) -> None:
        rows = self.ledger.rows
        if not self.ledger.stop_now and (not rows or rows[-1]["steps"] < self.num_timesteps):
            self.checkpoint()  # (a run stopped by eval.stop_at_bar ends on the row that cleared it)
        if self.bar is not None:
            self.bar.close()


# ---------------------------------------------------------------------- the run
MODEL = "model.zip"


def train(
    cfg: TrainConfig,
    config_path: str | None = None,
    run_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> Path:
    """Train ``cfg`` (see the module docstring) and return the run folder."""
    import torch

    folder = RunFolder(cfg, config_path, run_dir, MODEL, resume, force, log)
    seeds = RunSeeds(cfg.seed)
    one_thread()
    torch.manual_seed(seeds.torch)
    vec = make_vec_env(cfg, seeds)
    try:
        model = build_model(cfg, vec, folder, seeds)
        if cfg.bc.games > 0 and not resume:
            t0 = time.time()
            folder.state["imitation"] = behaviour_clone(model, cfg, log, seeds)
            # the run's wall time (log.csv, state.json) counts the imitation warm start
            folder.state["wall_s"] = float(folder.state.get("wall_s", 0.0)) + time.time() - t0
        league = League(
            cfg,
            folder.load_pool() if resume else [],
            push=lambda ps: vec.env_method("add_snapshot", ps),
            set_weights=lambda w: vec.env_method("set_pool_weights", w),
        )
        ledger = Ledger(cfg, folder, seeds, f"{cfg.env_id} ({folder.stem})")
        ledger.write = log
        remaining = cfg.total_steps - (model.num_timesteps if resume else 0)
        if ledger.stop:
            log(f"{folder.dir} already met eval.stop_at_bar at step {folder.state['bar']['steps']}")
        elif remaining > 0:
            callback = LeagueCallback(cfg, folder, ledger, league, progress)
            model.learn(total_timesteps=remaining, callback=callback, reset_num_timesteps=not resume)
        else:
            log(f"{folder.dir} has already trained {model.num_timesteps} >= total_steps={cfg.total_steps} steps")
    finally:
        vec.close()
    return folder.dir
