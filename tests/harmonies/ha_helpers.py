"""Readable Harmonies positions for the rule tests, built through the public API (``to_dict`` of a
dealt game, edited, then ``state_from_dict``, which checks every invariant)."""

from __future__ import annotations

import numpy as np

from boardzoo.envs.harmonies import HarmoniesGame
from boardzoo.envs.harmonies.board import COLOURS, STACK_ID

COL = {c: i for i, c in enumerate(COLOURS)}


def dealt(game: HarmoniesGame, n: int = 2, seed: int = 0):
    """A game right after setup (the first seat to move)."""
    st = game.new_initial_state(n)
    rng = np.random.default_rng(seed)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    return st


def position(
    game: HarmoniesGame,
    n: int = 2,
    boards: dict | None = None,
    places: dict | None = None,
    cubes: dict | None = None,
    completed: dict | None = None,
    central: list | None = None,
    seed: int = 0,
    **fields,
):
    """A position at the start of the first seat's turn with the given boards.

    ``boards``: {seat: {(x, y): "GBB", ...}} (stacks top to bottom; tokens come out of the bag);
    ``places``: {seat: [(card id, cubes left), ...]} (card places 0..); ``cubes``: {seat: {(x, y):
    card id}}; ``completed``: {seat: [card id, ...]}; ``central``: token letters per space ("WGB").
    Cards named are taken out of the deck (a display card is swapped with a deck card first).
    """
    st = dealt(game, n, seed)
    d = st.to_dict()
    geo = game.geo
    for seat, spec in (boards or {}).items():
        for (x, y), stack in spec.items():
            h = geo.hex_of(x, y)
            for ch in STACKS_OF(d["boards"][seat][h]):
                d["bag"][COL[ch]] += 1
            d["boards"][seat][h] = STACK_ID[stack]
            for ch in stack:
                d["bag"][COL[ch]] -= 1
    if central is not None:
        for toks in d["central"]:
            for c in toks:
                d["bag"][c] += 1
        d["central"] = [[COL[ch] for ch in s] for s in central]
        for toks in d["central"]:
            for c in toks:
                d["bag"][c] -= 1

    def take_out(cid: int) -> None:
        if cid > 32:
            return
        if cid in d["display"]:
            i = d["display"].index(cid)
            d["display"][i] = d["deck"].pop(0)
        else:
            d["deck"].remove(cid)

    for seat, cards in (places or {}).items():
        for c, (cid, left) in enumerate(cards):
            take_out(cid)
            d["places"][seat][c] = [cid, left]
    for seat, cards in (completed or {}).items():
        for cid in cards:
            take_out(cid)
        d["completed"][seat] = list(cards)
    for seat, spec in (cubes or {}).items():
        for (x, y), cid in spec.items():
            d["cubes"][seat][geo.hex_of(x, y)] = cid
    d.update(fields)
    return game.state_from_dict(d)


def STACKS_OF(stack_id: int) -> str:  # noqa: N802 - reads like the table it indexes
    from boardzoo.envs.harmonies.board import STACKS

    return STACKS[stack_id]


def legal(st) -> set[int]:
    return {int(a) for a in np.flatnonzero(st.legal_mask())}
