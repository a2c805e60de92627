"""One-ply action values of Harmonies, shared by the heuristic bot and the ``action_features``
observation block: greedy on points plus a small potential for unfinished landscapes.

* PLACE a token: the points it gains now (the rules' ``place_gain``) plus the change in potential of
  the hex (trunks await leaves, single greys and reds await a second token);
* PLACE_CUBE: the points the cube's card step scores (``cube_gain``);
* TAKE_CARD: the card's mean points per cube, plus 5 when a cube could go on it now;
* TAKE a central space: its tokens, each placed at its best hex on its own (an estimate).
"""

from __future__ import annotations

import numpy as np

from .board import PLACE_ON, STACK_ID
from .rules import A_CARD, A_CUBE, A_PLACE, A_TAKE, HEXES, NUM_ACTIONS, PLACES, HarmoniesState, Phase

# potential of unfinished stacks: trunks await leaves, single greys and reds await a second token
POTENTIAL = {STACK_ID["B"]: 1.0, STACK_ID["BB"]: 2.5, STACK_ID["M"]: 0.5, STACK_ID["MM"]: 1.0, STACK_ID["R"]: 1.0}
CARD_NOW = 5.0  # bonus of a card that can take a cube at once


def place_value(state: HarmoniesState, seat: int, colour: int, h: int) -> float:
    """Points gained by the token plus the change in potential of the hex."""
    board = state.boards[seat]
    new = PLACE_ON[board[h]][colour]
    return state.place_gain(seat, colour, h) + POTENTIAL.get(new, 0.0) - POTENTIAL.get(board[h], 0.0)


def card_value(state: HarmoniesState, seat: int, slot: int, have: list[int] | None = None) -> float:
    """A display card's mean points per cube, plus CARD_NOW when a cube could go on it now."""
    cid = state.display[slot]
    card = state.game.cards[cid]
    have = state.code_bits(seat) if have is None else have
    now = CARD_NOW if state.cube_targets(seat, cid, have) else 0.0
    return card.points[-1] / len(card.points) + now


def place_values(state: HarmoniesState, seat: int, colour: int) -> dict[int, float]:
    """:func:`place_value` of every hex where ``colour`` may go now (``can_place``), in one pass
    over the rules' ``place_gains``."""
    board = state.boards[seat]
    row = PLACE_ON
    return {
        h: gain + POTENTIAL.get(row[board[h]][colour], 0.0) - POTENTIAL.get(board[h], 0.0)
        for h, gain in state.place_gains(seat, colour, state.can_place(seat, colour)).items()
    }


def take_value(state: HarmoniesState, seat: int, space: int, cache: dict | None = None) -> float:
    """The tokens of central ``space``, each placed at its best hex on its own (an estimate)."""
    total = 0.0
    for c in state.central[space]:
        vals = None if cache is None else cache.get(c)
        if vals is None:
            vals = place_values(state, seat, c)
            if cache is not None:
                cache[c] = vals
        total += max(0.0, max(vals.values(), default=0.0))
    return total


def action_values(state: HarmoniesState, seat: int) -> np.ndarray:
    """The value above of every legal action of ``seat`` in its turn (0 elsewhere)."""
    out = np.zeros(NUM_ACTIONS, np.float64)
    if state.current_player() != seat or state.phase_id != Phase.TURN:
        return out
    m = state.legal_mask()
    values: dict[int, dict[int, float]] = {}  # colour -> {hex: place_value}
    for s in np.flatnonzero(m[A_TAKE:A_PLACE]):
        out[A_TAKE + s] = take_value(state, seat, int(s), values)
    for t, c in enumerate(state.taken):
        if c < 0:
            continue
        vals = values.get(c)
        if vals is None:
            vals = values[c] = place_values(state, seat, c)
        base = A_PLACE + HEXES * t
        for h, v in vals.items():
            out[base + h] = v
    cards = np.flatnonzero(m[A_CARD:A_CUBE])
    if len(cards):
        have = state.code_bits(seat)
        for i in cards:
            out[A_CARD + i] = card_value(state, seat, int(i), have)
    for c in range(PLACES):
        base = A_CUBE + HEXES * c
        hexes = np.flatnonzero(m[base : base + HEXES])
        if len(hexes):
            out[base + hexes] = state.cube_gain(seat, c)
    return out
