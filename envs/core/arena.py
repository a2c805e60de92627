"""Playing bots against each other over the rules API (no RL library): one game, or a quick
match of one bot against the others with a win rate and its 95% interval.

    python -m boardzoo.envs.core.arena downforce_v0 --players 4 --games 400
    python -m boardzoo.envs.core.arena downforce_v0 --option powers=True --games 200
    python -m boardzoo.envs.core.arena downforce_v0 --vs steer=auto --games 1000
    python -m boardzoo.envs.core.arena downforce_v0 --style lead=0.5 --vs default --games 2000

prints the heuristic bot's win rate against random bots, against the standard heuristic
(``--vs default``) or against a variant of it (``--vs KEY=VALUE[,KEY=VALUE]``: style keywords the
game's heuristic offers; ``--style`` sets the hero's, values as Python literals), its seat rotated
over every seat; a shared win counts as 1/k of a win.
``boardzoo eval`` (training extra) runs full tournaments with ratings.
"""

from __future__ import annotations

import argparse
import ast
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .bots import RandomBot, choose
from .game import CHANCE, Game, State

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / den
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


def play_to_end(
    state: State,
    bots: Sequence[Any],
    rng: np.random.Generator,
    max_steps: int = 1_000_000,
    on_decision: Callable[[State, int, int], None] | None = None,
) -> int:
    """Play ``state`` to the end in place (``bots[seat]`` decides for ``seat``, chance from
    ``rng``); every bot action is checked against the mask, then ``on_decision(state, seat,
    action)`` (if given) sees the state before the action is applied. Returns the number of
    decisions."""
    steps = 0
    while not state.is_terminal():
        p = state.current_player()
        if p == CHANCE:
            state.apply_action(state.sample_chance(rng))
            continue
        a = choose(bots[p], state, p, rng)
        if not state.legal_mask()[a]:
            raise RuntimeError(f"bot {type(bots[p]).__name__} chose masked action {a} in {state.game.env_id}")
        if on_decision is not None:
            on_decision(state, p, a)
        state.apply_action(a)
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"{state.game.env_id}: a game did not end within {max_steps} decisions")
    return steps


def play_game(game: Game, n: int, bots: Sequence[Any], seed: int, max_steps: int = 1_000_000) -> dict:
    """Play one game from the start; returns winners, scores and the number of decisions."""
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(n)
    for b in bots:
        if hasattr(b, "reset"):
            b.reset()
    steps = play_to_end(st, bots, rng, max_steps)
    return {"winners": [int(w) for w in st.winners()], "scores": [float(x) for x in st.scores()], "decisions": steps}


@dataclass
class Match:
    """One bot (the hero) against the others, its seat rotated game by game."""

    games: int
    wins: float  # shared wins count 1/k
    hero_score: float  # mean score of the hero
    others_score: float  # mean score of the other seats

    @property
    def rate(self) -> float:
        return self.wins / self.games

    @property
    def ci95(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)


def match(
    game: Game, n: int, hero: Callable[[int, int], Any], other: Callable[[int, int], Any], games: int, seed: int = 0
) -> Match:
    """Play ``games`` games with ``hero(seat, seed)`` in seat ``g % n`` and ``other(seat, seed)``
    elsewhere."""
    wins = 0.0
    own, rest = [], []
    for g in range(games):
        h = g % n
        bots = [hero(s, seed + g) if s == h else other(s, seed * 7919 + 1000 * g + s) for s in range(n)]
        res = play_game(game, n, bots, seed * 104729 + g)
        w = res["winners"]
        wins += (h in w) / len(w) if w else 0.0  # a solo game may end with no winner
        own.append(res["scores"][h])
        rest += [x for s, x in enumerate(res["scores"]) if s != h]
    return Match(games, wins, float(np.mean(own)), float(np.mean(rest)) if rest else float("nan"))


def heuristic_vs_random(game: Game, n: int, games: int, seed: int = 0) -> Match:
    """The game's heuristic bot against random bots."""
    return match(game, n, lambda s, sd: game.heuristic_bot(s, seed=sd), lambda s, sd: RandomBot(sd), games, seed)


def _literal(v: str) -> Any:
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return {"true": True, "false": False}.get(v.lower(), v)


def parse_pairs(items: Sequence[str], what: str) -> dict[str, Any]:
    """``["a=1", "b=x,c=True"]`` -> ``{"a": 1, "b": "x", "c": True}`` (values as Python literals)."""
    out: dict[str, Any] = {}
    for item in items:
        for kv in item.split(","):
            k, eq, v = kv.partition("=")
            if not eq or not k:
                raise SystemExit(f"{what}: expected KEY=VALUE, got {kv!r}")
            out[k.strip()] = _literal(v.strip())
    return out


def main(argv: list[str] | None = None) -> int:
    from .errors import ConfigError
    from .registry import game_class, names

    ap = argparse.ArgumentParser(description="Heuristic bot vs random bots (or a heuristic variant): win rate, 95% CI.")
    ap.add_argument("env_id", choices=names())
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option (Python literal value), repeatable",
    )
    ap.add_argument(
        "--vs", default="random", help="random, default (the standard heuristic), or its style as KEY=VALUE[,KEY=VALUE]"
    )
    ap.add_argument("--style", action="append", default=[], metavar="KEY=VALUE", help="the hero heuristic's style")
    args = ap.parse_args(argv)
    opts = parse_pairs(args.option, "--option")
    hero_style = parse_pairs(args.style, "--style")
    vs_style = None if args.vs == "random" else {} if args.vs == "default" else parse_pairs([args.vs], "--vs")
    cls = game_class(args.env_id)
    try:
        game = cls(**opts)
        for style in (hero_style, vs_style or {}):
            if style:
                game.heuristic_bot(0, 0, **style)  # an unknown style fails here, clearly
    except (ConfigError, TypeError, NotImplementedError) as e:
        raise SystemExit(f"{args.env_id}: {e}") from None
    n = args.players or cls.default_players
    t = time.time()
    hero = lambda s, sd: game.heuristic_bot(s, seed=sd, **hero_style)
    if vs_style is None:
        other: Callable[[int, int], Any] = lambda s, sd: RandomBot(sd)
    else:
        other = lambda s, sd: game.heuristic_bot(s, seed=sd, **vs_style)
    m = match(game, n, hero, other, args.games, args.seed)
    lo, hi = m.ci95
    print(
        f"{args.env_id} {opts or ''} {n} players, {m.games} games: heuristic{hero_style or ''} win rate "
        f"{m.rate:.3f} [95% CI {lo:.3f}-{hi:.3f}] vs {args.vs} (even share {1 / n:.3f}); mean score "
        f"{m.hero_score:.1f} vs {m.others_score:.1f}; {time.time() - t:.0f}s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
