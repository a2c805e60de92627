"""Tournaments: many games between bots, seats rotated, in parallel processes.

Line-ups (``k`` bot specs, ``n`` seats, game ``g``):

* ``k >= n``: seat ``s`` gets bot ``(g + s) mod k``; every bot visits every seat equally often.
* ``k < n`` ("first bot vs the field"): bot 0 takes one seat, ``g mod n``; the other seats are
  filled with bots 1..k-1 in turn. ``--bots neural,random`` at 4 players is thus neural against
  three random bots, with neural's seat rotated; its even share is 1/4.

Per bot: the win rate per seat played (a win shared by ``w`` seats counts ``1/w``), its Wilson 95%
interval, the even share 1/n, and an OpenSkill (Plackett-Luce) rating from every game (winners
ranked first, the others tied second; a bot in several seats of one game is rated as several
copies whose updates are averaged; no skill drift, averaged over a few game orders).
"""

from __future__ import annotations

import json
import multiprocessing as mp
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardzoo.envs import BoardZooError, make_game
from boardzoo.envs.core.arena import Z95, play_game, wilson  # noqa: F401  (re-exported)

from .bots import check_spec, default_options, make_bot


def lineup(g: int, k: int, n: int) -> list[int]:
    """Bot index for each seat of game ``g`` (see module docstring)."""
    if k >= n:
        return [(g + s) % k for s in range(n)]
    hero = g % n
    others = list(range(1, k)) or [0]
    out, j = [], 0
    for s in range(n):
        if s == hero:
            out.append(0)
        else:
            out.append(others[(g // n + j) % len(others)])
            j += 1
    return out


# ---------------------------------------------------------------------- workers
_W: dict[str, Any] = {}


def one_thread() -> None:
    """One thread for torch and for numpy's BLAS in this process: for the workers of a tournament,
    of ``distill`` and of training (which share the cores) and a learner beside them. The bots' and
    opponents' networks run as numpy matrix products (:mod:`.policy`); a BLAS pool of several
    threads busy-waits between those small products, and with other processes on the cores it made
    a search decision about three times slower (Harmonies, ``neural+search:100``, measured with
    ``benchmarks/bench_search.py`` beside a running tournament). ``threadpoolctl`` (the ``bots``
    extra) sets the BLAS limit at run time; without it only torch's is set."""
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1)  # called, not entered: the limit holds for the rest of the process


def _init_worker(env_id: str, options: dict) -> None:
    one_thread()
    _W["game"] = make_game(env_id, **options)


def bot_name(spec: Any) -> str:
    """Display name of a bot spec (a string, or a factory with a ``name``)."""
    return spec if isinstance(spec, str) else getattr(spec, "name", getattr(spec, "__name__", repr(spec)))


def _make(spec: Any, game: Any, seat: int, seed: int) -> Any:
    return make_bot(spec, game, seat, seed) if isinstance(spec, str) else spec(game, seat, seed)


def _play_one(task: tuple) -> dict:
    g, n, specs, seats, seed = task
    game = _W["game"]
    bots = [_make(specs[b], game, s, seed * 1000 + s) for s, b in enumerate(seats)]
    res = play_game(game, n, bots, seed)
    res["game"], res["seats"] = g, list(seats)
    return res


@dataclass
class Results:
    env_id: str
    num_players: int
    bots: list[str]
    games: list[dict] = field(default_factory=list)
    wall_s: float = 0.0
    command: str = ""
    options: dict = field(default_factory=dict)
    truncated: bool = False
    """stopped at a deadline before all games were played (:func:`run_tournament`)"""
    seed: int | None = None
    """the tournament seed (game ``g`` is seeded from it, so a resumed run plays the same games)"""
    planned: int = 0
    """games asked for (``len(games)`` is less where the run stopped at a deadline)"""

    def table(self) -> list[dict]:
        """Per-bot win rates with Wilson 95% intervals and OpenSkill ratings."""
        k = len(self.bots)
        seats = [0] * k
        wins = [0.0] * k
        for r in self.games:
            w = r["winners"]
            for s, b in enumerate(r["seats"]):
                seats[b] += 1
                if s in w:
                    wins[b] += 1.0 / len(w)
        ratings = openskill_ratings(self.games, k)
        out = []
        for b in range(k):
            lo, hi = wilson(wins[b], seats[b])
            rate = wins[b] / seats[b] if seats[b] else 0.0
            mu, sigma = ratings[b]
            out.append(
                {
                    "bot": self.bots[b],
                    "seat_games": seats[b],
                    "wins": wins[b],
                    "win_rate": rate,
                    "ci95": [lo, hi],
                    "even_share": 1.0 / self.num_players,
                    "above_even_share": lo > 1.0 / self.num_players,
                    "mu": mu,
                    "sigma": sigma,
                    "ordinal": mu - 3 * sigma,
                }
            )
        return out

    def to_json(self) -> dict:
        return {
            "env_id": self.env_id,
            "num_players": self.num_players,
            "bots": self.bots,
            "num_games": len(self.games),
            "wall_s": self.wall_s,
            "command": self.command,
            "options": self.options,
            "truncated": self.truncated,
            "seed": self.seed,
            "planned_games": self.planned,
            "table": self.table(),
            "games": self.games,
        }

    @classmethod
    def from_json(cls, data: dict) -> Results:
        """The inverse of :meth:`to_json`; data written before the ``seed`` key existed take it from
        their recorded command's ``--seed``."""
        seed = data.get("seed")
        if seed is None:
            m = re.search(r"--seed[ =](-?\d+)", data.get("command", ""))
            seed = int(m.group(1)) if m else None
        return cls(
            data["env_id"],
            int(data["num_players"]),
            list(data["bots"]),
            games=[dict(r) for r in data["games"]],
            wall_s=float(data.get("wall_s", 0.0)),
            command=data.get("command", ""),
            options=dict(data.get("options", {})),
            truncated=bool(data.get("truncated", False)),
            seed=seed,
            planned=int(data.get("planned_games", data.get("num_games", 0))),
        )

    @classmethod
    def load(cls, path: str | Path) -> Results:
        """The results :func:`save_results` wrote (``<out>.json``)."""
        path = Path(path)
        try:
            return cls.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise BoardZooError(f"{path}: not a tournament results file ({type(e).__name__}: {e})") from e

    def format(self) -> str:
        rows = self.table()
        head = (
            f"{self.env_id}: {len(self.games)} games, {self.num_players} players, "
            f"{self.wall_s:.0f} s\n"
            f"{'bot':<28}{'seats':>7}{'win rate':>10}{'95% CI':>18}{'even':>7}"
            f"{'mu':>8}{'sigma':>7}{'ordinal':>9}"
        )
        lines = [head]
        for r in rows:
            lines.append(
                f"{r['bot']:<28}{r['seat_games']:>7}{r['win_rate']:>10.3f}"
                f"{'[{:.3f}, {:.3f}]'.format(*r['ci95']):>18}{r['even_share']:>7.3f}"
                f"{r['mu']:>8.2f}{r['sigma']:>7.2f}{r['ordinal']:>9.2f}"
            )
        return "\n".join(lines)


def openskill_ratings(games: list[dict], k: int, orders: int = 5, seed: int = 0) -> list[tuple[float, float]]:
    """(mu, sigma) per bot from Plackett-Luce updates over ``games``.

    Bots do not change during a tournament, so the model has no skill drift (``tau=0``), and the
    sequential updates are averaged over ``orders`` game orders (the played order, then shuffles
    with a fixed seed) to take out most of the order dependence of online rating.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    rng = np.random.default_rng(seed)
    runs = []
    for o in range(max(1, orders)):
        seq = games if o == 0 else [games[i] for i in rng.permutation(len(games))]
        cur = [model.rating(name=str(b)) for b in range(k)]
        for r in seq:
            seats, w = r["seats"], set(r["winners"])
            ranks: list[float] = [1 if s in w else 2 for s in range(len(seats))]
            if len(set(ranks)) == 1:
                continue  # everybody tied: no information
            teams = [[model.rating(mu=cur[b].mu, sigma=cur[b].sigma)] for b in seats]
            new = model.rate(teams, ranks=ranks)
            acc: dict[int, list] = {}
            for s, b in enumerate(seats):
                acc.setdefault(b, []).append(new[s][0])
            for b, rs in acc.items():
                cur[b] = model.rating(
                    mu=float(np.mean([x.mu for x in rs])), sigma=float(np.mean([x.sigma for x in rs]))
                )
        runs.append([(r.mu, r.sigma) for r in cur])
    return [
        (float(np.mean([run[b][0] for run in runs])), float(np.mean([run[b][1] for run in runs]))) for b in range(k)
    ]


def run_tournament(
    env_id: str,
    bots: Sequence[str],
    games: int,
    num_players: int | None = None,
    options: dict | None = None,
    workers: int = 2,
    seed: int = 0,
    progress: bool = True,
    command: str = "",
    on_result: Callable[[dict], None] | None = None,
    deadline: float | None = None,
    resume: Results | None = None,
) -> Results:
    """Play ``games`` games of ``env_id`` between ``bots`` and return the results.

    A bot is a spec string (see :mod:`.bots`) or a picklable factory ``(game, seat, seed) -> bot``.
    ``options=None`` plays with the options of the first neural bot's card (else the defaults).
    ``deadline`` (a ``time.time()`` value): stop there and keep the games ``0..m-1`` with ``m`` the
    longest run of finished game numbers, rounded down to whole seat rotations (a multiple of the
    line-up's cycle), so that neither slow games nor a seat is left out selectively;
    ``Results.truncated`` is then True.

    ``resume`` (:meth:`Results.load` of an earlier run's results): keep its games and play only the
    missing game numbers below ``games`` (the rest of a run stopped at a deadline, or more games for
    a finished one). Game ``g``'s seeds depend only on ``seed`` and ``g``, so with the same code the
    result is the run that was not stopped; a resume whose game, bots, player count, options, seed or
    seats differ is refused with an error naming the difference.
    """
    options = dict(options) if options is not None else default_options(env_id, bots)
    game = make_game(env_id, **options)
    n = num_players if num_players is not None else type(game).default_players
    game.check_players(n)
    bots = list(bots)
    for b in bots:
        if isinstance(b, str):
            check_spec(b, key="--bots")
            if b.startswith("neural"):  # fail before starting workers
                make_bot(b, game, 0, 0)
    tasks = [(g, n, bots, lineup(g, len(bots), n), seed * 1_000_003 + g) for g in range(games)]
    res = Results(
        env_id, n, [bot_name(b) for b in bots], command=command, options=dict(game.options), seed=seed, planned=games
    )
    if resume is not None:
        res.games = _resumable(resume, res, games, len(bots))
        have = {r["game"] for r in res.games}
        tasks = [t for t in tasks if t[0] not in have]
    t0 = time.time() - (resume.wall_s if resume is not None else 0.0)
    bar = None
    if progress:
        import sys

        from tqdm import tqdm

        bar = tqdm(
            total=games,
            desc=f"{env_id} {','.join(res.bots)}",
            unit="game",
            initial=len(res.games),
            mininterval=0.2 if sys.stderr.isatty() else 30.0,
        )
    if workers <= 1:
        _init_worker(env_id, options)
        it: Any = map(_play_one, tasks)
        pool = None
    else:
        pool = mp.get_context("fork").Pool(workers, initializer=_init_worker, initargs=(env_id, options))
        it = pool.imap_unordered(_play_one, tasks, chunksize=chunk_size(len(tasks), workers, deadline))
    stopped = False
    try:
        for r in it:
            res.games.append(r)
            if on_result:
                on_result(r)
            if bar:
                bar.update(1)
            if deadline is not None and time.time() >= deadline and len(res.games) < games:
                stopped = True
                break
    finally:
        if pool is not None:
            if stopped:
                pool.terminate()
            else:
                pool.close()
            pool.join()
        if bar:
            bar.close()
    res.games.sort(key=lambda r: r["game"])
    if stopped:
        done = {r["game"] for r in res.games}
        m = 0
        while m in done:
            m += 1
        cycle = len(bots) if len(bots) >= n else n * max(1, len(bots) - 1)
        m -= m % cycle
        res.games = res.games[:m]
        res.truncated = True
    res.wall_s = time.time() - t0
    return res


def chunk_size(tasks: int, workers: int, deadline: float | None) -> int:
    """Games per task sent to a worker: one under a deadline (what is kept is the prefix of finished
    game numbers), else up to 16 while every worker still gets about eight chunks of the games to play."""
    return 1 if deadline is not None else max(1, min(16, tasks // (workers * 8)))


def _resumable(old: Results, new: Results, games: int, k: int) -> list[dict]:
    """``old``'s games, checked to be games of the tournament ``new`` describes (see run_tournament)."""
    for what, a, b in (
        ("game", old.env_id, new.env_id),
        ("bots", old.bots, new.bots),
        ("players", old.num_players, new.num_players),
        ("options", old.options, new.options),
        ("seed", old.seed, new.seed),
    ):
        if a != b:
            raise BoardZooError(f"resume: the results are of another tournament: {what} {a!r} there, {b!r} here")
    kept = []
    for r in old.games:
        g = r.get("game")
        if not isinstance(g, int) or not 0 <= g < games:
            raise BoardZooError(f"resume: the results hold game {g!r}, not one of this run's 0..{games - 1}")
        if r.get("seats") != lineup(g, k, new.num_players):
            raise BoardZooError(f"resume: game {g}'s seats {r.get('seats')} are not this line-up's")
        kept.append(r)
    if len({r["game"] for r in kept}) != len(kept):
        raise BoardZooError("resume: the results hold a game number twice")
    return kept


def save_results(res: Results, out: str | Path) -> tuple[Path, Path]:
    """Write ``<out>.json`` and a bar plot ``<out>.png`` (win rates, 95% intervals, even share)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    jp, pp = out.with_suffix(".json"), out.with_suffix(".png")
    jp.write_text(json.dumps(res.to_json(), indent=1))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res.table()
    fig, ax = plt.subplots(figsize=(1.6 + 1.3 * len(rows), 3.6))
    x = np.arange(len(rows))
    rates = [r["win_rate"] for r in rows]
    err = np.array([[r["win_rate"] - r["ci95"][0] for r in rows], [r["ci95"][1] - r["win_rate"] for r in rows]])
    ax.bar(x, rates, yerr=err, capsize=4, color="#4c78a8")
    ax.axhline(1.0 / res.num_players, color="#e45756", ls="--", label=f"even share 1/{res.num_players}")
    ax.set_xticks(x, [f"{r['bot']}\nmu {r['mu']:.1f}" for r in rows], fontsize=8)
    ax.set_ylabel("win rate per seat (95% CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"{res.env_id}: {len(res.games)} games, {res.num_players} players", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(pp, dpi=90)
    plt.close(fig)
    return jp, pp
