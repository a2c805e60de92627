"""Heuristic bot vs random bots: win rate of one heuristic seat (rotated) among random seats.

    python -m boardzoo.envs.downforce.evaluate [games] [options-dict] [players]
    python -m boardzoo.envs.downforce.evaluate 400
    python -m boardzoo.envs.downforce.evaluate 200 "{'powers': True}"
"""
from __future__ import annotations

import ast
import sys
import time

import numpy as np

from boardzoo.envs import make_game
from boardzoo.envs.core.bots import RandomBot, choose


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    opts = ast.literal_eval(sys.argv[2]) if len(sys.argv) > 2 else {}
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    game = make_game("downforce_v0", **opts)
    rng = np.random.default_rng(123)
    wins = 0
    money = []
    t = time.time()
    for g in range(games):
        hseat = g % n
        bots = [game.heuristic_bot(s, seed=g) if s == hseat else RandomBot(seed=1000 * g + s) for s in range(n)]
        st = game.new_initial_state(n)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            st.apply_action(choose(bots[p], st, p, rng))
        sc = st.scores()
        wins += hseat in st.winners()
        money.append(sc[hseat] - np.mean([sc[s] for s in range(n) if s != hseat]))
    print(f"{games} games, heuristic win rate {wins/games:.3f} (random baseline {1/n:.3f}), "
          f"money edge {np.mean(money):+.1f}M, {time.time()-t:.0f}s")


if __name__ == "__main__":
    main()
