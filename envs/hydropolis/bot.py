"""Heuristic Hydropolis policy: greedy on the points of the play, with a little foresight.

For every legal (card, rotation, cell) it adds up the points scored now (HY-R16 to HY-R19) and
subtracts small penalties: laying a leaky card (the next player may cover it for +5) and spending
copper (copper pairs are worth more later). In the first step it selects the card of the best
play; in the second it lays the selected card on its best cell. Ties are broken at random.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .data import COPPER
from .rules import HydropolisGame, HydropolisState

LEAKY_GIFT = 2.0  # a leaky card lets the next player cover it for 5 + placement points
COPPER_KEEP = 0.3  # copper meets copper for 3 rather than 2: keep it for later


def _value(state: HydropolisState, t: int, cell: int, rot: int) -> float:
    deck = state.game.deck
    v = float(state.points(t, cell, rot))
    if deck.leaky[t]:
        v -= LEAKY_GIFT
    if deck.colour[t] == COPPER:
        v -= COPPER_KEEP
    return v


def policy(state: HydropolisState, seat: int, rng: np.random.Generator) -> int:
    """Choose ``seat``'s action in ``state`` (called through core.bots.HeuristicBot)."""
    g = state.game
    mask = state.legal_mask()
    legal = np.flatnonzero(mask)
    if len(legal) == 1:
        return int(legal[0])
    best: list[int] = []
    best_v = -1e9
    if state.selected >= 0:  # second step: choose the cell
        t, rot = divmod(state.selected, 2)
        options = [(int(a), t, int(a) - g.cell_base, rot) for a in legal]
    else:  # first step: choose the card of the best play
        fits = state.playable(seat)
        options = [(2 * int(t) + int(r), int(t), int(c), int(r)) for c, t, r in zip(*np.nonzero(fits))]
    for a, t, cell, rot in options:
        v = _value(state, t, cell, rot)
        if v > best_v + 1e-9:
            best, best_v = [a], v
        elif abs(v - best_v) <= 1e-9:
            best.append(a)
    return int(best[int(rng.integers(len(best)))])


def heuristic(game: HydropolisGame, seat: int, seed: int | None = None, **style: Any) -> HeuristicBot:
    """The game's heuristic bot (GameSpec.heuristic); it has no style variants."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="hydropolis-greedy")
