"""Self-play training with sb3-contrib MaskablePPO: ``boardzoo train configs/<env_id>.yaml``.

Reads top to bottom: build the vectorized single-agent envs (:mod:`.gym_env`), optionally warm
start the policy by imitating the heuristic bot (behaviour cloning, ``bc.games``), then PPO with
an opponent pool. A callback shows the progress bar, adds learner snapshots to the pool, switches
the pool schedule's stages, and every ``eval.every`` steps plays the greedy learner against each
``eval.opponents`` bot (learner in one seat, rotated; the opponent everywhere else), appends a row
to ``log.csv``, redraws ``curve.png`` and checkpoints the run so that ``--resume`` continues it.

A run folder holds: ``config.yaml`` (resolved), ``log.csv``, ``curve.png``, ``tb/`` (TensorBoard, only
when the ``tensorboard`` package is installed), ``model.zip`` (SB3,
for resuming), ``policy.npz`` / ``best_policy.npz`` (actor weights, plain arrays), ``pool.npz``
(snapshots) and ``state.json`` (steps, wall time, last evaluation).
"""

from __future__ import annotations

import csv
import json
import multiprocessing as mp
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import ConfigError, make_game
from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import CHANCE

from .config import TrainConfig, config_to_dict
from .gym_env import OpponentPool, SelfPlayEnv
from .policy import NumpyPolicy, PolicyBot, policy_params
from .tournament import lineup, play_game, wilson


def _stage_weights(cfg: TrainConfig, frac: float) -> dict[str, float]:
    stage = cfg.pool.schedule[0]
    for st in sorted(cfg.pool.schedule, key=lambda s: s.start):
        if frac >= st.start:
            stage = st
    return {"snapshot": stage.snapshot, "heuristic": stage.heuristic, "random": stage.random}


def _env_fn(cfg: TrainConfig, rank: int) -> Callable[[], SelfPlayEnv]:
    def make() -> SelfPlayEnv:
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:
            pass
        game = make_game(cfg.env_id, **cfg.options)
        pool = OpponentPool(
            game, _stage_weights(cfg, 0.0), cfg.pool.max_snapshots, cfg.pool.latest_prob, cfg.net.activation
        )
        return SelfPlayEnv(cfg.env_id, cfg.players(), cfg.options, cfg.reward, pool, seed=cfg.seed * 7919 + rank)

    return make


def make_vec_env(cfg: TrainConfig):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    fns: list[Any] = [_env_fn(cfg, i) for i in range(cfg.n_envs)]
    if cfg.vec == "subproc" and cfg.n_envs > 1:
        return SubprocVecEnv(fns, start_method="fork")
    return DummyVecEnv(fns)


# ---------------------------------------------------------------------- evaluation
def evaluate(
    policy: NumpyPolicy,
    env_id: str,
    options: dict,
    opponent: str,
    games: int,
    seed: int,
    num_players: int | None = None,
) -> dict:
    """Greedy ``policy`` in one seat (rotated) against ``opponent`` in all others."""
    from .bots import make_bot

    game = make_game(env_id, **options)
    n = num_players or type(game).default_players
    wins = 0.0
    for g in range(games):
        seats = lineup(g, 2, n)
        bots = [
            PolicyBot(policy) if b == 0 else make_bot(opponent, game, s, seed + 31 * g + s) for s, b in enumerate(seats)
        ]
        r = play_game(game, n, bots, seed + g)
        me = seats.index(0)
        if me in r["winners"]:
            wins += 1.0 / len(r["winners"])
    lo, hi = wilson(wins, games)
    return {"win_rate": wins / max(games, 1), "lo": lo, "hi": hi, "games": games, "even_share": 1.0 / n}


# ---------------------------------------------------------------------- imitation warm start
def _demo_worker(args: tuple) -> tuple:
    env_id, options, players, games, seed, gamma, teacher = args
    game = make_game(env_id, **options)
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    acts: list[int] = []
    rets: list[float] = []
    for _ in range(games):
        n = players[int(rng.integers(len(players)))]
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


def behaviour_clone(model: Any, cfg: TrainConfig, log: Callable[[str], None] = print) -> dict:
    """Fit the policy (and value) to heuristic-vs-heuristic games before PPO."""
    import torch

    workers = max(1, cfg.n_envs)
    per = [cfg.bc.games // workers + (1 if i < cfg.bc.games % workers else 0) for i in range(workers)]
    tasks = [
        (cfg.env_id, cfg.options, cfg.players(), k, cfg.seed * 1009 + i, cfg.ppo.gamma, dict(cfg.bc.teacher))
        for i, k in enumerate(per)
        if k > 0
    ]
    t0 = time.time()
    if len(tasks) > 1:
        with mp.get_context("fork").Pool(len(tasks)) as pool:
            parts = pool.map(_demo_worker, tasks)
    else:
        parts = [_demo_worker(t) for t in tasks]
    obs, masks, acts, rets = (np.concatenate([p[i] for p in parts]) for i in range(4))
    who = f"heuristic {cfg.bc.teacher}" if cfg.bc.teacher else "heuristic"
    log(f"imitation: {len(acts)} decisions from {cfg.bc.games} {who} games in {time.time() - t0:.0f} s")
    pol = model.policy
    opt = torch.optim.Adam(pol.parameters(), lr=cfg.bc.learning_rate)
    rng = np.random.default_rng(cfg.seed)
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
class _RunFiles:
    def __init__(self, run_dir: Path):
        self.dir = run_dir

    def save_params(self, name: str, params: list[np.ndarray]) -> None:
        np.savez(self.dir / name, *params)

    def save_pool(self, snaps: list[list[np.ndarray]]) -> None:
        flat = {f"s{i}_{j}": a for i, ps in enumerate(snaps) for j, a in enumerate(ps)}
        np.savez(self.dir / "pool.npz", **flat)  # type: ignore[arg-type]

    def load_pool(self) -> list[list[np.ndarray]]:
        p = self.dir / "pool.npz"
        if not p.is_file():
            return []
        with np.load(p, allow_pickle=False) as z:
            out: dict[int, dict[int, np.ndarray]] = {}
            for k in z.files:
                i, j = (int(x) for x in k[1:].split("_"))
                out.setdefault(i, {})[j] = z[k]
        return [[out[i][j] for j in sorted(out[i])] for i in sorted(out)]


def _plot_curve(run_dir: Path, rows: list[dict], opponents: list[str], even: float, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    steps = [r["steps"] for r in rows]
    for opp in opponents:
        y = [r[f"win_{opp}"] for r in rows]
        lo = [r[f"lo_{opp}"] for r in rows]
        hi = [r[f"hi_{opp}"] for r in rows]
        ax.plot(steps, y, marker="o", ms=3, label=f"vs {opp}")
        ax.fill_between(steps, lo, hi, alpha=0.2)
    tr = [r["train_win_rate"] for r in rows]
    ax.plot(steps, tr, ls=":", color="grey", label="training games (vs pool)")
    ax.axhline(even, color="#e45756", ls="--", lw=1, label="even share")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(run_dir / "curve.png", dpi=90)
    plt.close(fig)


def train(
    cfg: TrainConfig,
    config_path: str | None = None,
    run_dir: str | Path | None = None,
    resume: bool = False,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] = print,
) -> Path:
    """Train ``cfg`` (see module docstring) and return the run folder."""
    import torch
    import yaml
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    stem = Path(config_path).stem if config_path else cfg.env_id
    run = Path(run_dir or cfg.run_dir or Path("runs") / stem)
    files = _RunFiles(run)
    has_run = (run / "state.json").is_file() and (run / "model.zip").is_file()
    if has_run and not (resume or force):
        raise ConfigError(f"{run} already holds a run; pass --resume to continue it or --force to start over")
    if resume and not has_run:
        raise ConfigError(f"cannot resume: {run} holds no run (no state.json/model.zip)")
    run.mkdir(parents=True, exist_ok=True)
    if resume:
        old = yaml.safe_load((run / "config.yaml").read_text())
        if old != config_to_dict(cfg):
            log(f"note: the config differs from the one {run} was started with; using the new one")
    (run / "config.yaml").write_text(yaml.safe_dump(config_to_dict(cfg), sort_keys=False))
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)

    state = json.loads((run / "state.json").read_text()) if resume else {}
    state.setdefault("config_path", config_path)
    wall_before = float(state.get("wall_s", 0.0))
    vec = make_vec_env(cfg)
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.net.activation]
    policy_kwargs = {"net_arch": {"pi": list(cfg.net.hidden), "vf": list(cfg.net.hidden)}, "activation_fn": act}
    p = cfg.ppo
    ppo_kwargs: dict[str, Any] = dict(
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
    t_start = time.time()
    if resume:
        model = MaskablePPO.load(run / "model.zip", env=vec, device="cpu", **ppo_kwargs)
        snaps = files.load_pool()
    else:
        import importlib.util

        tb = str(run / "tb") if importlib.util.find_spec("tensorboard") else None  # optional extra
        policy: Any = "MlpPolicy"
        if cfg.net.action_skip > 0:
            from .sb3_policy import ActionSkipPolicy

            policy = ActionSkipPolicy
            policy_kwargs.update(
                action_skip=cfg.net.action_skip,
                action_feature_offset=make_game(cfg.env_id, **cfg.options).action_feature_offset,
            )
        model = MaskablePPO(
            policy,
            vec,
            policy_kwargs=policy_kwargs,
            seed=cfg.seed,
            device="cpu",
            verbose=0,
            tensorboard_log=tb,
            **ppo_kwargs,
        )
        snaps = []
        if cfg.bc.games > 0:
            state["imitation"] = behaviour_clone(model, cfg, log)
        for name in ("log.csv", "best_policy.npz", "pool.npz"):
            (run / name).unlink(missing_ok=True)

    rows: list[dict] = []
    if resume and (run / "log.csv").is_file():
        with open(run / "log.csv") as f:
            rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    opponents = list(cfg.eval.opponents)
    n_default = make_game(cfg.env_id, **cfg.options).default_players
    even = 1.0 / n_default

    class Callback(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = None
            if progress:
                import sys

                from tqdm import tqdm

                self.bar = tqdm(
                    total=cfg.total_steps,
                    initial=min(self.num_timesteps, cfg.total_steps),
                    desc=f"train {cfg.env_id}",
                    unit="step",
                    smoothing=0.05,
                    mininterval=0.2 if sys.stderr.isatty() else 30.0,
                )
            self.recent: list[float] = []
            self.games = int(state.get("games", 0))
            self.stage: dict[str, float] | None = None
            for s in snaps:
                self.training_env.env_method("add_snapshot", s)
            if not snaps:
                self._snapshot()
            self.next_snap = (self.num_timesteps // cfg.pool.snapshot_every + 1) * cfg.pool.snapshot_every
            self.next_eval = (self.num_timesteps // cfg.eval.every + 1) * cfg.eval.every
            self._update_stage()
            if not resume:
                self.checkpoint()  # the starting point (after imitation, if any) on the curve

        def _snapshot(self) -> None:
            ps = policy_params(self.model.policy)
            snaps.append(ps)
            del snaps[: -cfg.pool.max_snapshots]
            self.training_env.env_method("add_snapshot", ps)

        def _update_stage(self) -> None:
            w = _stage_weights(cfg, self.num_timesteps / cfg.total_steps)
            if w != self.stage:
                self.training_env.env_method("set_pool_weights", w)
                self.stage = w

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
            if self.num_timesteps >= self.next_snap:
                self._snapshot()
                self.next_snap += cfg.pool.snapshot_every
            self._update_stage()
            if self.num_timesteps >= self.next_eval:
                self.checkpoint()
                self.next_eval += cfg.eval.every
            return True

        def checkpoint(self) -> None:
            params = policy_params(self.model.policy)
            pol = NumpyPolicy(params, cfg.net.activation)
            row = {
                "steps": float(self.num_timesteps),
                "wall_s": wall_before + time.time() - t_start,
                "games": float(self.games),
                "train_win_rate": float(np.mean(self.recent)) if self.recent else float("nan"),
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
                _plot_curve(run, rows, list(evals), even, f"{cfg.env_id} ({stem})")
                score = float(np.mean([e["lo"] for e in evals.values()]))
                if score > state.get("best_score", -1.0):
                    state["best_score"], state["best_steps"] = score, int(self.num_timesteps)
                    files.save_params("best_policy.npz", params)
                msg = ", ".join(f"vs {o} {e['win_rate']:.3f} [{e['lo']:.3f}, {e['hi']:.3f}]" for o, e in evals.items())
                (self.bar.write if self.bar is not None else log)(
                    f"step {self.num_timesteps}: {msg} (even share {even:.3f})"
                )
            files.save_params("policy.npz", params)
            files.save_pool(snaps)
            self.model.save(run / "model.zip")
            state.update(
                {
                    "steps": int(self.num_timesteps),
                    "wall_s": row["wall_s"],
                    "games": self.games,
                    "last_eval": {o: {k2: round(v, 4) for k2, v in e.items()} for o, e in evals.items()},
                }
            )
            (run / "state.json").write_text(json.dumps(state, indent=1))

        def _on_training_end(self) -> None:
            if not rows or rows[-1]["steps"] < self.num_timesteps:
                self.checkpoint()
            if self.bar is not None:
                self.bar.close()

    remaining = cfg.total_steps - (model.num_timesteps if resume else 0)
    try:
        if remaining > 0:
            model.learn(total_timesteps=remaining, callback=Callback(), reset_num_timesteps=not resume)
        else:
            log(f"{run} has already trained {model.num_timesteps} >= total_steps={cfg.total_steps} steps")
    finally:
        vec.close()
    return run
