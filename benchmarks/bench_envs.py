"""Steps per second of random legal play through the AEC API, for every registered env and for
PettingZoo's connect_four_v3 (the reference), measured in the same run; prints each ratio.

Every decision builds the observation and the mask (``env.last()``), as a learner would.
To be fair on a busy machine, each env is timed in several short rounds interleaved with rounds of
the reference, on process CPU time; the ratio printed is the median of the per-round ratios.

    python benchmarks/bench_envs.py                 # every env, default players
    python benchmarks/bench_envs.py --rounds 9 --env downforce_v0 --players 6
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def run(env, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Random legal play for about ``seconds`` of CPU time; returns (steps per CPU second, games)."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    t0 = time.process_time()
    deadline = t0 + seconds
    while True:
        env.reset(seed=int(rng.integers(1 << 31)))
        games += 1
        for _agent in env.agent_iter():
            obs, rew, term, trunc, info = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        if time.process_time() > deadline:
            break
    return steps / (time.process_time() - t0), games


def main() -> None:
    from boardzoo.envs import game_class, make, names

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=0.7, help="CPU seconds per round and env")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds per env")
    ap.add_argument("--env", action="append", help="env id (repeatable; default: all registered)")
    ap.add_argument("--players", type=int, help="player count (default: each game's standard count)")
    ap.add_argument(
        "--options",
        default="{}",
        help="game options as JSON, e.g. '{\"action_features\": true}' (applied to every env named; default: none)",
    )
    args = ap.parse_args()
    import json

    options = json.loads(args.options)

    from pettingzoo.classic import connect_four_v3

    ref_env = connect_four_v3.env()
    print(f"{'env':22} {'players':>7} {'steps/s':>10} {'ref steps/s':>12} {'x connect_four_v3 (median, min-max)':>38}")
    if options:
        print(f"* with options {options}")
    for env_id in args.env or names():
        try:
            g = game_class(env_id)
        except Exception as e:  # a game that does not import is reported, not hidden
            print(f"{env_id:22} {'-':>7} {'error: ' + str(e)[:60]}")
            continue
        n = args.players or g.default_players
        env = make(env_id, num_players=n, **options)
        ratios, ours, refs = [], [], []
        for r in range(args.rounds):
            ref, _ = run(ref_env, args.seconds, seed=r)
            sps, _ = run(env, args.seconds, seed=r)
            ratios.append(sps / ref)
            ours.append(sps)
            refs.append(ref)
        med = float(np.median(ratios))
        label = env_id + ("*" if options else "")
        print(
            f"{label:22} {n:7d} {np.median(ours):10.0f} {np.median(refs):12.0f} "
            f"{med:16.2f}  ({min(ratios):.2f}-{max(ratios):.2f})"
        )


if __name__ == "__main__":
    main()
