"""What every training backend shares: the run folder, the seeds, the league and the evaluation log.

A backend (:mod:`boardzoo.training.train` for SB3, :mod:`boardzoo.integrations.rllib.train` for
RLlib) owns only its model and its sampling loop; it calls into these pieces in the same order:

1. :class:`RunFolder` opens (or resumes) the run folder and its ``state.json``;
2. :class:`RunSeeds` gives every seed of the run, spawned from one ``np.random.SeedSequence(cfg.seed)``;
3. :class:`League` keeps the learner snapshots and the pool schedule and tells the envs about them;
4. :class:`Ledger` evaluates the greedy learner against ``eval.opponents``, appends to ``log.csv``,
   redraws ``curve.png``, keeps ``best_policy.npz`` and checkpoints the run for ``--resume``;
5. :func:`progress_bar` shows the progress.

A run folder holds ``config.yaml`` (resolved), ``log.csv``, ``curve.png``, ``policy.npz`` /
``best_policy.npz`` (actor weights, plain arrays), ``value.npz`` / ``best_value.npz`` (the critic at
the same points, when the backend exports it), ``pool.npz`` (snapshots), ``state.json`` (steps,
wall time, games, last evaluation) and the backend's own checkpoint (``model.zip`` or ``rllib/``).
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import ConfigError, make_game

from .config import TrainConfig, config_to_dict
from .policy import NumpyPolicy
from .tournament import lineup, play_game, wilson

Log = Callable[[str], None]

# ---------------------------------------------------------------------- seeds
_STREAMS = ("torch", "env", "imitation", "eval", "model")


class RunSeeds:
    """Every seed of a run, from one ``np.random.SeedSequence(cfg.seed)``.

    Each use draws from its own stream (the child ``spawn_key=(stream,)`` of the root, exactly what
    ``SeedSequence.spawn`` hands out), indexed further by rank or round, so the streams never overlap
    and adding an env or an evaluation round never shifts another stream.
    """

    def __init__(self, seed: int):
        self.seed = int(seed)

    def _seed(self, stream: str, *index: int) -> int:
        ss = np.random.SeedSequence(self.seed, spawn_key=(_STREAMS.index(stream), *index))
        return int(ss.generate_state(1, np.uint32)[0] >> 1)  # 31 bits: fine for torch, SB3, Python

    @property
    def torch(self) -> int:
        return self._seed("torch")

    @property
    def model(self) -> int:
        """the backend's own seed (SB3's ``seed=``, RLlib's ``debugging(seed=)``)"""
        return self._seed("model")

    def env(self, rank: int) -> int:
        """the generator of training env ``rank`` (seats, opponents, chance)"""
        return self._seed("env", rank)

    def imitation(self, worker: int) -> int:
        """the demonstration games of imitation worker ``worker``"""
        return self._seed("imitation", worker)

    def evaluation(self, round_: int, opponent: int) -> int:
        """evaluation round ``round_`` (0 = the starting point) against ``eval.opponents[opponent]``"""
        return self._seed("eval", round_, opponent)


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
    from .policy import PolicyBot

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


# ---------------------------------------------------------------------- the run folder
class RunFolder:
    """Opens ``run_dir`` (default ``runs/<config stem>``) for a new run or ``resume``.

    ``marker`` is the backend's checkpoint (``model.zip`` or ``rllib``): a folder holding it and
    ``state.json`` holds a run, which only ``resume`` (continue) or ``force`` (start over) may touch.
    """

    FRESH = ("log.csv", "best_policy.npz", "pool.npz", "policy.npz", "value.npz", "best_value.npz", "state.json")

    def __init__(
        self,
        cfg: TrainConfig,
        config_path: str | None,
        run_dir: str | Path | None,
        marker: str,
        resume: bool,
        force: bool,
        log: Log = print,
    ):
        import yaml

        self.stem = Path(config_path).stem if config_path else cfg.env_id
        self.dir = Path(run_dir or cfg.run_dir or Path("runs") / self.stem)
        has_run = (self.dir / "state.json").is_file() and (self.dir / marker).exists()
        if has_run and not (resume or force):
            raise ConfigError(f"{self.dir} already holds a run; pass --resume to continue it or --force to start over")
        if resume and not has_run:
            raise ConfigError(f"cannot resume: {self.dir} holds no run (no state.json and {marker})")
        self.dir.mkdir(parents=True, exist_ok=True)
        if resume:
            old = yaml.safe_load((self.dir / "config.yaml").read_text())
            if old != config_to_dict(cfg):
                log(f"note: the config differs from the one {self.dir} was started with; using the new one")
        else:
            for name in self.FRESH:
                (self.dir / name).unlink(missing_ok=True)
        (self.dir / "config.yaml").write_text(yaml.safe_dump(config_to_dict(cfg), sort_keys=False))
        self.state: dict[str, Any] = json.loads((self.dir / "state.json").read_text()) if resume else {}
        self.state.setdefault("config_path", config_path)
        self.resume = resume

    def path(self, name: str) -> Path:
        return self.dir / name

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

    def load_rows(self) -> list[dict]:
        p = self.dir / "log.csv"
        if not (self.resume and p.is_file()):
            return []
        with open(p) as f:
            return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]

    def write_rows(self, rows: list[dict]) -> None:
        with open(self.dir / "log.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[-1]))
            w.writeheader()
            w.writerows(rows)

    def write_state(self) -> None:
        (self.dir / "state.json").write_text(json.dumps(self.state, indent=1))


# ---------------------------------------------------------------------- the league
def stage_weights(cfg: TrainConfig, frac: float) -> dict[str, float]:
    """The pool schedule's opponent weights at ``frac`` of the run."""
    stage = cfg.pool.schedule[0]
    for st in sorted(cfg.pool.schedule, key=lambda s: s.start):
        if frac >= st.start:
            stage = st
    return {"snapshot": stage.snapshot, "heuristic": stage.heuristic, "random": stage.random}


class League:
    """The learner's snapshots and the pool schedule, pushed to the envs through the backend's hooks.

    ``push(params)`` adds a snapshot to every env's pool; ``set_weights(w)`` sets every env's
    opponent weights. ``step(steps)`` takes a snapshot every ``pool.snapshot_every`` learner steps
    and switches the schedule's stages.
    """

    def __init__(
        self,
        cfg: TrainConfig,
        snaps: list[list[np.ndarray]],
        push: Callable[[list[np.ndarray]], None],
        set_weights: Callable[[dict[str, float]], None],
    ):
        self.cfg = cfg
        self.snaps = snaps
        self._push = push
        self._set_weights = set_weights
        self.stage: dict[str, float] | None = None
        self.next_snap = 0

    def start(self, steps: int, params: Callable[[], list[np.ndarray]]) -> None:
        """Push the saved snapshots (or a first one) and the stage of ``steps``."""
        for s in self.snaps:
            self._push(s)
        if not self.snaps:
            self.snapshot(params())
        self.next_snap = (steps // self.cfg.pool.snapshot_every + 1) * self.cfg.pool.snapshot_every
        self.update_stage(steps)

    def snapshot(self, params: list[np.ndarray]) -> None:
        self.snaps.append(params)
        del self.snaps[: -self.cfg.pool.max_snapshots]
        self._push(params)

    def update_stage(self, steps: int) -> None:
        w = stage_weights(self.cfg, steps / self.cfg.total_steps)
        if w != self.stage:
            self._set_weights(w)
            self.stage = w

    def step(self, steps: int, params: Callable[[], list[np.ndarray]]) -> None:
        if steps >= self.next_snap:
            self.snapshot(params())
            self.next_snap = (steps // self.cfg.pool.snapshot_every + 1) * self.cfg.pool.snapshot_every
        self.update_stage(steps)


# ---------------------------------------------------------------------- evaluation log and checkpoints
def plot_curve(run_dir: Path, rows: list[dict], opponents: list[str], even: float, title: str) -> None:
    """``curve.png``: win rate (95% interval) against each opponent over learner steps."""
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


class Ledger:
    """Evaluation rounds and checkpoints of a run (``log.csv``, ``curve.png``, ``state.json``).

    ``checkpoint(steps, games, recent, params, snaps, save_model, value)`` evaluates ``params``
    (greedy) against every ``eval.opponents`` bot, appends the row, keeps the best parameters (highest
    mean lower bound; the critic ``value`` beside them), writes ``policy.npz`` and ``pool.npz``, calls
    ``save_model()`` (the backend's checkpoint) and then ``state.json``, so an interrupted run resumes
    from the last row.
    """

    def __init__(self, cfg: TrainConfig, folder: RunFolder, seeds: RunSeeds, title: str):
        self.cfg, self.folder, self.seeds = cfg, folder, seeds
        self.title = title
        self.rows = folder.load_rows()
        self.wall_before = float(folder.state.get("wall_s", 0.0))
        self.t_start = time.time()
        self.even = 1.0 / make_game(cfg.env_id, **cfg.options).default_players
        self.write: Log = print
        self.stop_now = self.stop  # re-read after every checkpoint (the hot path reads this flag)

    def checkpoint(
        self,
        steps: int,
        games: int,
        recent: list[float],
        params: list[np.ndarray],
        snaps: list[list[np.ndarray]],
        save_model: Callable[[], None],
        value: list[np.ndarray] | None = None,
    ) -> dict:
        cfg, state = self.cfg, self.folder.state
        row = {
            "steps": float(steps),
            "wall_s": self.wall_before + time.time() - self.t_start,
            "games": float(games),
            "train_win_rate": float(np.mean(recent)) if recent else float("nan"),
        }
        evals = {}
        if cfg.eval.games > 0:
            pol = NumpyPolicy(params, cfg.net.activation)
            for k, opp in enumerate(cfg.eval.opponents):
                seed = self.seeds.evaluation(len(self.rows), k)
                e = evaluate(pol, cfg.env_id, cfg.options, opp, cfg.eval.games, seed=seed)
                evals[opp] = e
                row[f"win_{opp}"], row[f"lo_{opp}"], row[f"hi_{opp}"] = e["win_rate"], e["lo"], e["hi"]
        self.rows.append(row)
        self.folder.write_rows(self.rows)
        if evals:
            plot_curve(self.folder.dir, self.rows, list(evals), self.even, self.title)
            score = float(np.mean([e["lo"] for e in evals.values()]))
            if score > state.get("best_score", -1.0):
                state["best_score"], state["best_steps"] = score, int(steps)
                self.folder.save_params("best_policy.npz", params)
                if value is not None:
                    self.folder.save_params("best_value.npz", value)
            msg = ", ".join(f"vs {o} {e['win_rate']:.3f} [{e['lo']:.3f}, {e['hi']:.3f}]" for o, e in evals.items())
            self.write(f"step {steps}: {msg} (even share {self.even:.3f})")
            margin = cfg.eval.stop_at_bar
            if margin is not None and "bar" not in state and all(e["lo"] >= self.even + margin for e in evals.values()):
                state["bar"] = {"margin": margin, "steps": int(steps), "wall_s": round(row["wall_s"], 1)}
                self.write(
                    f"step {steps}: every lower bound is at least {self.even:.3f} + {margin:g} "
                    f"after {row['wall_s']:.0f} s (eval.stop_at_bar): stopping"
                )
        self.folder.save_params("policy.npz", params)
        if value is not None:
            self.folder.save_params("value.npz", value)
        self.folder.save_pool(snaps)
        save_model()
        state.update(
            {
                "steps": int(steps),
                "wall_s": row["wall_s"],
                "games": int(games),
                "last_eval": {o: {k2: round(v, 4) for k2, v in e.items()} for o, e in evals.items()},
            }
        )
        self.folder.write_state()
        self.stop_now = self.stop
        return row

    @property
    def stop(self) -> bool:
        """True once an evaluation met ``eval.stop_at_bar`` (the backends end the run there)."""
        return self.cfg.eval.stop_at_bar is not None and "bar" in self.folder.state


class EvalCadence:
    """Every ``every`` learner steps from ``steps`` on."""

    def __init__(self, every: int, steps: int):
        self.every = every
        self.next = (steps // every + 1) * every

    def due(self, steps: int) -> bool:
        if steps < self.next:
            return False
        self.next = (steps // self.every + 1) * self.every
        return True


@cache
def fused_adam() -> dict[str, Any]:
    """``{"fused": True}`` where this torch has the fused CPU Adam (torch >= 2.4), else ``{}``: the
    same Adam update in one kernel per step instead of a dozen tensor ops per parameter (measured:
    0.27 ms instead of 1.4-3.2 ms per step for Metromania's 0.8M parameters; parameters after 100
    steps within 3e-8 of the unfused ones)."""
    import torch

    try:
        p = torch.zeros(1, requires_grad=True)
        opt = torch.optim.Adam([p], fused=True)
        p.grad = torch.ones(1)
        opt.step()
    except (RuntimeError, TypeError, ValueError):
        return {}
    return {"fused": True}


def progress_bar(total: int, initial: int, desc: str) -> Any:
    """A tqdm bar (redrawn at most every 30 s when stderr is not a terminal, e.g. in CI logs)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=min(initial, total),
        desc=desc,
        unit="step",
        smoothing=0.05,
        mininterval=0.2 if sys.stderr.isatty() else 30.0,
    )
