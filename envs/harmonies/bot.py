"""Heuristic of Harmonies: greedy on points plus a small potential for unfinished landscapes.

Per decision: keep the first spirit offered; place every cube it can (the most points first); take
a card while fewer than 3 are open (the one with the best first step, preferring cards it could
place now); take the central space whose tokens are worth most when each is placed at its best
hex; place tokens where points plus potential grow most; decline the solo discard; end the turn.
"""

from __future__ import annotations

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .board import PLACE_ON, STACK_ID
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

# potential of unfinished stacks: trunks await leaves, single greys and reds await a second token
POTENTIAL = {STACK_ID["B"]: 1.0, STACK_ID["BB"]: 2.5, STACK_ID["M"]: 0.5, STACK_ID["MM"]: 1.0, STACK_ID["R"]: 1.0}


def place_value(state: HarmoniesState, seat: int, colour: int, h: int) -> float:
    """Points gained by the token plus the change in potential of the hex."""
    board = state.boards[seat]
    new = PLACE_ON[board[h]][colour]
    return state.place_gain(seat, colour, h) + POTENTIAL.get(new, 0.0) - POTENTIAL.get(board[h], 0.0)


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
        g = state.game
        have = state.code_bits(seat)

        def card_value(a: int) -> float:
            cid = state.display[a - A_CARD]
            now = 5.0 if state.cube_targets(seat, cid, have) else 0.0
            return g.cards[cid].points[-1] / len(g.cards[cid].points) + now + rng.random() * 1e-3

        return max(cards, key=card_value)
    if not state.took:
        takes = [int(a) for a in legal if A_TAKE <= a < A_PLACE]
        return max(takes, key=lambda a: _take_value(state, seat, a - A_TAKE, rng))
    best, best_v = A_END, -1e9
    for a in legal:
        if A_PLACE <= a < A_CARD:
            t, h = divmod(int(a) - A_PLACE, HEXES)
            v = place_value(state, seat, state.taken[t], h) + rng.random() * 1e-3
            if v > best_v:
                best, best_v = int(a), v
    return best


def _take_value(state: HarmoniesState, seat: int, space: int, rng: np.random.Generator) -> float:
    """The tokens of ``space``, each placed at its best hex on its own (an estimate)."""
    total = 0.0
    for c in state.central[space]:
        bits = state.can_place(seat, c)
        best = 0.0
        for h in range(HEXES):
            if bits >> h & 1:
                best = max(best, place_value(state, seat, c, h))
        total += best
    return total + rng.random() * 1e-3


def heuristic(game: HarmoniesGame, seat: int, seed: int | None = None, **style) -> HeuristicBot:
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="harmonies_heuristic")
