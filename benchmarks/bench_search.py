"""Decision time of the search bots: CPU seconds per decision of each bot spec in every game.

    python benchmarks/bench_search.py                                  # mcts:200, every game
    python benchmarks/bench_search.py --bots mcts:1000,neural+search:100 --env metromania_v0
    PYTHONPATH=<shim> python benchmarks/bench_search.py                # another checkout's code

Each game is played from a seeded start with the bot in every seat (chance from ``--seed``); the
first ``--decisions`` decisions are timed on process CPU time (robust to other jobs sharing the
machine; torch and numpy's BLAS on one thread, as in tournaments), hidden information hidden as in
every tournament (``bots.choose``). A game's options are those its shipped bot needs (``neural``
bots read them from the card). The script imports only ``boardzoo``, so it can time another
checkout's code: point a ``boardzoo`` package at it (a folder ``boardzoo/`` whose ``envs`` and
``training`` link to the checkout's) on ``PYTHONPATH``, run from that checkout; both runs then time
the same decisions where the code makes the same choices. Prints a Markdown table; ``--out`` writes
JSON.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def time_bot(env_id: str, spec: str, decisions: int, seed: int) -> tuple[float, int]:
    """CPU seconds per decision of ``spec`` playing every seat, over the first ``decisions``."""
    from boardzoo.envs import CHANCE, make_game
    from boardzoo.envs.core.bots import choose
    from boardzoo.training.bots import default_options, make_bot

    game = make_game(env_id, **default_options(env_id, [spec, "neural"]))
    n = type(game).default_players
    bots = [make_bot(spec, game, s, seed + s) for s in range(n)]
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(n)
    spent, made = 0.0, 0
    while made < decisions:
        if st.is_terminal():
            st = game.new_initial_state(n)
        p = st.current_player()
        if p == CHANCE:
            st.apply_action(st.sample_chance(rng))
            continue
        t = time.process_time()
        a = choose(bots[p], st, p, rng)
        spent += time.process_time() - t
        st.apply_action(a)
        made += 1
    return spent / made, made


def main(argv: list[str] | None = None) -> int:
    from boardzoo.envs import names

    try:
        from boardzoo.training.tournament import one_thread
    except ImportError:  # a checkout from before it (run with OPENBLAS_NUM_THREADS=1 for the same settings)

        def one_thread() -> None:
            import torch

            torch.set_num_threads(1)

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--env", action="append", help="env id (repeatable; default: every registered game)")
    ap.add_argument("--bots", default="mcts:200", help="comma list of bot specs to time")
    ap.add_argument("--decisions", type=int, default=20, help="timed decisions per game and bot")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", help="write the rows as JSON here")
    a = ap.parse_args(argv)
    if a.decisions < 1:
        ap.error("--decisions must be >= 1")
    specs = [s for s in a.bots.split(",") if s]
    one_thread()  # as in tournaments: a bot decides on one core (BLAS's thread pool spins otherwise)
    rows = []
    print("| env | " + " | ".join(f"{s} s/decision" for s in specs) + " |")
    print("|---|" + "---|" * len(specs))
    for env_id in a.env or names():
        row: dict = {"env_id": env_id}
        for spec in specs:
            row[spec], _ = time_bot(env_id, spec, a.decisions, a.seed)
        rows.append(row)
        print(f"| `{env_id}` | " + " | ".join(f"{row[s]:.4f}" for s in specs) + " |", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"decisions": a.decisions, "seed": a.seed, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
