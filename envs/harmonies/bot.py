"""Heuristic of Harmonies: greedy on points plus a small potential for unfinished landscapes.

Per decision: keep the first spirit offered; place every cube it can (the most points first); take
a card while fewer than 3 are open (the one with the best first step, preferring cards it could
place now); take the central space whose tokens are worth most when each is placed at its best
hex; place tokens where points plus potential grow most; decline the solo discard; end the turn.
Each colour's placement values are computed once per decision (shared by the central spaces of a
take and by the taken tokens of a placement): the same moves, 1.6x faster in heuristic self-play.
"""

from __future__ import annotations

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .evaluate import card_value, place_values, take_value
from .rules import (
    A_CARD,
    A_CUBE,
    A_DECLINE,
    A_END,
    A_PLACE,
    A_SPIRIT,
    A_TAKE,
    HEXES,
    HarmoniesGame,
    HarmoniesState,
    Phase,
)


def policy(state: HarmoniesState, seat: int, rng: np.random.Generator) -> int:
    m = state.legal_mask()
    legal = np.flatnonzero(m)
    if state.phase_id == Phase.CHOOSE_SPIRIT:
        return A_SPIRIT
    if state.phase_id == Phase.SOLO_DISCARD:
        return A_DECLINE
    cubes = [int(a) for a in legal if A_CUBE <= a < A_END]
    if cubes:  # every cube placed scores; the biggest step first
        return max(cubes, key=lambda a: state.cube_gain(seat, (a - A_CUBE) // HEXES) + rng.random() * 1e-3)
    cards = [int(a) for a in legal if A_CARD <= a < A_CUBE]
    if cards and state.unfinished(seat) < 3:
        have = state.code_bits(seat)
        return max(cards, key=lambda a: card_value(state, seat, a - A_CARD, have) + rng.random() * 1e-3)
    if not state.took:
        takes = [int(a) for a in legal if A_TAKE <= a < A_PLACE]
        per_colour: dict[int, dict[int, float]] = {}  # place_values of each colour, shared by the spaces
        return max(takes, key=lambda a: take_value(state, seat, a - A_TAKE, per_colour) + rng.random() * 1e-3)
    best, best_v = A_END, -1e9
    by_colour: dict[int, dict[int, float]] = {}  # place_values of each colour taken, computed once
    for a in legal:
        if A_PLACE <= a < A_CARD:
            t, h = divmod(int(a) - A_PLACE, HEXES)
            c = state.taken[t]
            vals = by_colour.get(c)
            if vals is None:
                vals = by_colour[c] = place_values(state, seat, c)
            v = vals[h] + rng.random() * 1e-3
            if v > best_v:
                best, best_v = int(a), v
    return best


def heuristic(game: HarmoniesGame, seat: int, seed: int | None = None, **style) -> HeuristicBot:
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="harmonies_heuristic")
