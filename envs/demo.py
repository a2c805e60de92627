"""Demo: one rendered game between bots through the PettingZoo AEC API.

    python -m boardzoo.envs.demo                      # 4-player Downforce, heuristic vs random
    python -m boardzoo.envs.demo hidden_castle_v0 --players 3 --every 5

Prints the board (ansi) as the game goes, the final result, and writes the final board picture
(rgb_array) to ``out/<env_id>_final.png`` when Pillow is installed.
"""

from __future__ import annotations

import argparse
import os

from .core.bots import RandomBot, act_in_env
from .core.registry import game_class, make, names


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Play one BoardZoo game between bots and show it.")
    ap.add_argument("env_id", nargs="?", default="downforce_v0", choices=names())
    ap.add_argument("--players", type=int, default=None, help="seats (default: the game's standard count)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--every", type=int, default=10, help="print the board every N decisions")
    ap.add_argument("--out", default="out", help="folder for the final board PNG")
    args = ap.parse_args(argv)

    g = game_class(args.env_id)
    n = args.players or g.default_players
    env = make(args.env_id, num_players=n, render_mode="ansi")
    env.reset(seed=args.seed)
    game = env.unwrapped.game
    bots = [game.heuristic_bot(s, seed=args.seed + s) if s % 2 == 0 else RandomBot(args.seed + s) for s in range(n)]
    kinds = ["heuristic" if s % 2 == 0 else "random" for s in range(n)]
    print(
        f"== {g.name} ({args.env_id}), {n} players: "
        + ", ".join(f"player_{s}={k}" for s, k in enumerate(kinds))
        + f", seed {args.seed} =="
    )
    decisions = 0
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, info = env.last()
        if term or trunc:
            final[agent] = rew
            env.step(None)
            continue
        seat = env.unwrapped.possible_agents.index(agent)
        action = act_in_env(bots[seat], env)
        assert obs["action_mask"][action], "bots only choose legal actions"
        if decisions % args.every == 0:
            print(env.render())
            print(f"-- {agent} ({kinds[seat]}) plays: {env.unwrapped.state.action_to_string(action)}\n")
        env.step(action)
        decisions += 1
    st = env.unwrapped.state
    print(str(st))
    print(
        f"== game over after {decisions} decisions; scores {st.scores()}; winners "
        f"{[f'player_{w} ({kinds[w]})' for w in st.winners()]}; rewards {final} =="
    )
    try:
        from .core.render import save_png

        draw = game.renderer()
        if draw is not None:
            os.makedirs(args.out, exist_ok=True)
            path = os.path.join(args.out, f"{args.env_id}_final.png")
            save_png(draw(st), path)
            print(f"final board picture: {path}")
    except Exception as e:  # the picture is a bonus; say why it is missing
        print(f"(no picture: {e})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
