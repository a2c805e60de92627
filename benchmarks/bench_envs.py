"""Steps per second of random legal play through the AEC API, for every registered env and for
PettingZoo's connect_four_v3 (the reference), measured in the same run; prints each ratio.

Every decision builds the observation and the mask (``env.last()``), as a learner would.

    python benchmarks/bench_envs.py                 # every env, default players, ~3 s each
    python benchmarks/bench_envs.py --seconds 10 --env downforce_v0 --players 6
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def run(env, seconds: float, seed: int = 0) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    steps = games = 0
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        env.reset(seed=int(rng.integers(1 << 31)))
        games += 1
        for agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        if time.perf_counter() > deadline:
            break
    return steps / (time.perf_counter() - t0), games


def main() -> None:
    from boardzoo.envs import game_class, make, names

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per env")
    ap.add_argument("--env", action="append", help="env id (repeatable; default: all registered)")
    ap.add_argument("--players", type=int, help="player count (default: each game's standard count)")
    args = ap.parse_args()

    from pettingzoo.classic import connect_four_v3

    ref, ref_games = run(connect_four_v3.env(), args.seconds)
    print(f"{'env':22} {'players':>7} {'steps/s':>10} {'games':>6} {'x connect_four_v3':>18}")
    print(f"{'connect_four_v3':22} {2:7d} {ref:10.0f} {ref_games:6d} {1.0:18.2f}")
    for env_id in args.env or names():
        try:
            g = game_class(env_id)
        except Exception as e:  # a game that does not import is reported, not hidden
            print(f"{env_id:22} {'-':>7} {'error: ' + str(e)[:60]}")
            continue
        n = args.players or g.default_players
        sps, games = run(make(env_id, num_players=n), args.seconds)
        print(f"{env_id:22} {n:7d} {sps:10.0f} {games:6d} {sps / ref:18.2f}")


if __name__ == "__main__":
    main()
