"""The strength table: the shipped neural bot, the search bot it guides, IS-MCTS and the heuristic, per game.

    python benchmarks/strength_table.py                                   # every game, issue 19's sizes
    python benchmarks/strength_table.py --envs challengers_v0 --search-games 200 --mcts-games 20
    python benchmarks/strength_table.py --workers 16 --deadline-s 540 --out runs/strength

Rows per game (``--rows``; each is one ``boardzoo eval`` line-up, seats rotated, 95% Wilson intervals,
the first bot's win rate per seat against the even share ``1/n``):

The search bot is ``neural+search:N`` (PUCT at the root) or, with ``--search-kind neural+gumbel``,
the same search with a Gumbel root (sequential halving); below, ``neural+search`` stands for either.
``--rollout-mix X`` makes it ``neural+search:N:mix=X`` (a random playout's outcome blended into each
leaf's value with weight X).

* ``search-neural``: ``neural+search:N`` against the plain ``neural`` bot (``--search-games``);
* ``search-mcts``: ``neural+search:N`` against IS-MCTS, ``mcts:M`` (``--mcts``, ``--mcts-games``); for the
  games in ``--slow-mcts`` (where a game at M simulations takes over a minute) ``mcts:--slow-mcts-sims``
  over ``--slow-mcts-games`` games instead;
* ``neural-heuristic``: the plain ``neural`` bot against the game's heuristic (``--heuristic-games``);
* ``search-heuristic``, ``mcts-heuristic``: the search bot and IS-MCTS against the heuristic
  (``--heuristic-games`` and ``--mcts-games``).

At 4 players a two-bot line-up is the first bot against three of the other (:mod:`boardzoo.training.tournament`).
Before its rows, each game's search bot is timed (mean seconds per decision over ``--time-games``
games against the neural bot, on this machine), since the search budget is meant to fit 0.2 s.

``--deadline-s`` caps the whole run's wall time: a row running at the deadline stops with the games
finished so far (a prefix of whole seat rotations; the table marks it ``partial``) and later rows are
listed as not run. ``--row-seconds`` caps each row the same way. Each row's results go to
``OUT/<env_id>__<row>.json`` as they finish, and the Markdown table to ``OUT/table.md`` (rewritten
after every row), so an interrupted run keeps its rows. ``--resume`` continues each row from its
file there: a partial row plays only its missing games, the ones the uninterrupted run would have
played (a game's seeds depend only on ``--seed`` and its number; ``run_tournament(resume=...)``).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

ROWS = ("search-neural", "search-mcts", "neural-heuristic", "search-heuristic", "mcts-heuristic")


def search_spec(a: argparse.Namespace) -> str:
    """The search bot's spec: ``KIND:N``, with ``:mix=X`` when ``--rollout-mix`` is given."""
    mix = getattr(a, "rollout_mix", None)
    return f"{a.search_kind}:{a.search}" + (f":mix={mix:g}" if mix else "")


def lineup_for(row: str, env_id: str, a: argparse.Namespace) -> tuple[list[str], int]:
    """The bot specs (first bot measured) and the number of games of ``row`` for ``env_id``."""
    search = search_spec(a)
    slow = env_id in a.slow_mcts
    mcts = f"mcts:{a.slow_mcts_sims if slow else a.mcts}"
    mcts_games = a.slow_mcts_games if slow else a.mcts_games
    return {
        "search-neural": ([search, "neural"], a.search_games),
        "search-mcts": ([search, mcts], mcts_games),
        "neural-heuristic": (["neural", "heuristic"], a.heuristic_games),
        "search-heuristic": ([search, "heuristic"], a.heuristic_games),
        "mcts-heuristic": ([mcts, "heuristic"], mcts_games),
    }[row]


def time_search(env_id: str, spec: str, games: int, seed: int) -> tuple[float, int]:
    """Mean wall seconds per decision of the search bot ``spec`` against the neural bot, torch and
    numpy's BLAS on one thread as in the tournaments' workers (``one_thread``)."""
    from boardzoo.envs import make_game
    from boardzoo.envs.core.arena import play_game
    from boardzoo.training.bots import default_options, make_bot
    from boardzoo.training.tournament import one_thread

    one_thread()

    game = make_game(env_id, **default_options(env_id, ["neural"]))
    n = type(game).default_players
    spent, count = 0.0, 0
    for g in range(games):
        bot = make_bot(spec, game, 0, seed + g)
        inner = bot.act_state

        def timed(state: Any, seat: int, _inner: Any = inner) -> int:
            nonlocal spent, count
            t = time.perf_counter()
            out = _inner(state, seat)
            spent += time.perf_counter() - t
            count += 1
            return out

        bot.act_state = timed
        play_game(game, n, [bot] + [make_bot("neural", game, s, seed + s) for s in range(1, n)], seed + g)
    return (spent / count if count else 0.0), count


def markdown(rows: list[dict]) -> str:
    lines = [
        "| game | row | line-up | games | first bot's win rate | 95% CI | even share | above even | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r.get("status") == "not run":
            lines.append(f"| {r['env_id']} | {r['row']} | {' vs '.join(r['bots'])} | not run | | | | | |")
            continue
        t = r["table"][0]
        games = f"{r['games']}" + (f" of {r['planned']} (partial)" if r["truncated"] else "")
        lines.append(
            f"| {r['env_id']} | {r['row']} | {' vs '.join(r['bots'])} | {games} | {t['win_rate']:.3f} | "
            f"[{t['ci95'][0]:.3f}, {t['ci95'][1]:.3f}] | {t['even_share']:.3f} | "
            f"{'yes' if t['above_even_share'] else 'no'} | {r['wall_s']:.0f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    from boardzoo.training.bots import SEARCH_KINDS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envs", default=None, help="comma list (default: every game with a shipped bot)")
    ap.add_argument("--rows", default="search-neural,search-mcts", help=f"comma list of {', '.join(ROWS)}")
    ap.add_argument("--search", type=int, default=100, help="simulations of the search bot")
    ap.add_argument(
        "--search-kind",
        default="neural+search",
        choices=tuple(SEARCH_KINDS),
        help="the search bot: PUCT at the root (neural+search) or a Gumbel root (neural+gumbel)",
    )
    ap.add_argument(
        "--rollout-mix",
        type=float,
        default=None,
        help="blend a random playout's outcome into each leaf's value with this weight (the spec's mix=X)",
    )
    ap.add_argument("--search-games", type=int, default=1000)
    ap.add_argument("--mcts", type=int, default=1000, help="IS-MCTS simulations")
    ap.add_argument("--mcts-games", type=int, default=100)
    ap.add_argument("--slow-mcts", default="", help="comma list of games that use --slow-mcts-sims instead")
    ap.add_argument("--slow-mcts-sims", type=int, default=300)
    ap.add_argument("--slow-mcts-games", type=int, default=200)
    ap.add_argument("--heuristic-games", type=int, default=1000)
    ap.add_argument("--time-games", type=int, default=2, help="games per game to time the search bot (0: skip)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--deadline-s", type=float, default=None, help="wall-time cap of the whole run")
    ap.add_argument("--row-seconds", type=float, default=None, help="wall-time cap of each row (a partial row)")
    ap.add_argument("--out", default="runs/strength")
    ap.add_argument(
        "--resume",
        action="store_true",
        help="continue each row from its results in --out (a row stopped at --row-seconds plays its missing games)",
    )
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)

    from boardzoo.envs import names
    from boardzoo.training.botformat import resolve
    from boardzoo.training.tournament import Results, run_tournament, save_results

    t0 = time.time()
    deadline = t0 + a.deadline_s if a.deadline_s else None
    rows = [r for r in a.rows.split(",") if r]
    for r in rows:
        if r not in ROWS:
            ap.error(f"--rows: unknown row {r!r}; use {', '.join(ROWS)}")
    a.slow_mcts = set(filter(None, a.slow_mcts.split(",")))
    if a.envs:
        envs = a.envs.split(",")
    else:
        envs = []
        for e in names():
            try:
                resolve(e)
            except Exception:  # no shipped bot for this game
                continue
            envs.append(e)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    done: list[dict] = []
    timing: dict[str, dict] = {}

    command = " ".join(["python benchmarks/strength_table.py", *(argv if argv is not None else sys.argv[1:])])

    def write() -> None:
        head = f"Strength table ({platform.machine()}, workers {a.workers}, seed {a.seed}; `{command}`)\n\n"
        times = "".join(
            f"- {e}: {t['s_per_decision']:.3f} s over {t['decisions']} decisions\n" for e, t in timing.items()
        )
        note = f"\nSearch bot seconds per decision (`{search_spec(a)}` against the neural bot):\n\n"
        (out / "table.md").write_text(head + markdown(done) + note + times)

    for env_id in envs:
        if a.time_games and (deadline is None or time.time() < deadline):
            s, c = time_search(env_id, search_spec(a), a.time_games, a.seed)
            timing[env_id] = {"s_per_decision": s, "decisions": c}
            print(f"{env_id}: {search_spec(a)} takes {s:.3f} s per decision ({c} decisions)", flush=True)
        for row in rows:
            bots, games = lineup_for(row, env_id, a)
            entry: dict[str, Any] = {"env_id": env_id, "row": row, "bots": bots, "planned": games}
            if deadline is not None and time.time() >= deadline:
                entry["status"] = "not run"
                done.append(entry)
                write()
                continue
            saved = out / f"{env_id}__{row}.json"
            res = run_tournament(
                env_id,
                bots,
                games,
                workers=a.workers,
                seed=a.seed,
                progress=not a.no_progress,
                command=f"boardzoo eval {env_id} --bots {','.join(bots)} --games {games} --seed {a.seed} "
                f"--workers {a.workers}",
                deadline=min(filter(None, (deadline, a.row_seconds and time.time() + a.row_seconds)), default=None),
                resume=Results.load(saved) if a.resume and saved.is_file() else None,
            )
            if res.games:
                save_results(res, saved.with_suffix(""))
            entry.update(
                games=len(res.games), truncated=res.truncated, wall_s=res.wall_s, table=res.table(), command=res.command
            )
            done.append(entry)
            write()
            print(res.format(), flush=True)
    (out / "strength.json").write_text(json.dumps({"rows": done, "search_timing": timing}, indent=1))
    print(markdown(done))
    return 0


if __name__ == "__main__":
    sys.exit(main())
