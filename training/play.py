"""Play a game in the terminal against bots: ``boardzoo play <env_id> --players 4 --seat 0 --vs neural``.

Each of your turns shows the board (the state's ansi text) and the numbered legal moves with their
names (``action_to_string``); type a number. Bad input is asked again; ``q`` quits. The bots'
moves are printed as they happen.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from boardzoo.envs import make_game
from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import CHANCE

from .bots import check_spec, default_options, make_bot


class Quit(Exception):
    pass


def ask_move(state, seat: int, input_fn: Callable[[str], str], print_fn: Callable[[str], None]) -> int:
    """Show the legal moves of ``seat`` and read a valid choice (re-asks on bad input)."""
    legal = np.flatnonzero(state.legal_mask()).tolist()
    print_fn(f"Your legal moves (seat {seat}, phase {state.phase()}):")
    for i, a in enumerate(legal):
        print_fn(f"  [{i}] {state.action_to_string(a)}")
    while True:
        try:
            raw = input_fn(f"move 0-{len(legal) - 1} (q quits)> ").strip()
        except EOFError:
            raise Quit() from None
        if raw.lower() in ("q", "quit", "exit"):
            raise Quit()
        if raw.isdigit() and int(raw) < len(legal):
            return legal[int(raw)]
        print_fn(f"  '{raw}' is not a move number between 0 and {len(legal) - 1}; try again.")


def play(
    env_id: str,
    players: int | None = None,
    seat: int = 0,
    vs: str = "heuristic",
    seed: int | None = None,
    options: dict | None = None,
    input_fn: Callable[[str], str] | None = None,
    print_fn: Callable[[str], None] | None = None,
) -> dict | None:
    """Play one game as ``seat`` against ``vs`` bots in every other seat; returns the result."""
    import builtins

    input_fn = input_fn or builtins.input
    print_fn = print_fn or builtins.print
    check_spec(vs, key="--vs")
    game = make_game(env_id, **(options if options is not None else default_options(env_id, [vs])))
    n = players if players is not None else type(game).default_players
    game.check_players(n)
    if not 0 <= seat < n:
        raise ValueError(f"--seat {seat} is outside 0..{n - 1}")
    rng = np.random.default_rng(seed)
    bots = {s: make_bot(vs, game, s, None if seed is None else seed + s) for s in range(n) if s != seat}
    st = game.new_initial_state(n)
    print_fn(f"{game.name or env_id}: you are seat {seat} of {n}; the others are {vs} bots.")
    try:
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            if p == seat:
                print_fn("\n" + "=" * 60)
                print_fn(str(st))
                a = ask_move(st, seat, input_fn, print_fn)
                print_fn(f"you play: {st.action_to_string(a)}")
            else:
                a = choose(bots[p], st, p, rng)
                print_fn(f"seat {p} ({vs}) plays: {st.action_to_string(a)}")
            st.apply_action(a)
    except Quit:
        print_fn("game abandoned.")
        return None
    print_fn("\n" + "=" * 60)
    print_fn(str(st))
    w = st.winners()
    print_fn(f"scores: {st.scores()}  winners: {w}  -> " + ("you win!" if seat in w else "you lose."))
    return {"scores": st.scores(), "winners": w}
