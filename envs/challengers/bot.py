"""Heuristic Challengers! drafter: value each card type by its power plus a fixed bonus per effect
(``rules.card_value``); choose the draft option with the better expected haul, redraw a weak
display once, pick the best cards, and thin the deck of its weakest cards (starters first) while it
holds more than a few cards, keeping the number of distinct names within what a bench can hold.
"""

from __future__ import annotations

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .rules import (
    A_CHOOSE,
    A_PICK,
    A_REDRAW,
    A_REMOVE,
    A_STOP,
    ROUNDS,
    ChallengersGame,
    ChallengersState,
    Phase,
    card_value,
)

MIN_DECK = 7  # thin only a deck larger than this
PICK_FLOOR = 2.5  # never add a card worth less than this


def _level_mean(state: ChallengersState, lv: int, rnd: int) -> float:
    g = state.game
    ts = [t for t in g.level_types[lv] if g.count[t] and state.in_play[g.set_of[t]]]
    return sum(card_value(g, t, rnd) * g.count[t] for t in ts) / max(1, sum(g.count[t] for t in ts))


def policy(state: ChallengersState, seat: int, rng: np.random.Generator) -> int:
    g = state.game
    mask = state.legal_mask()
    rnd = min(state.round, ROUNDS)
    ph = state.phase_id
    if ph == Phase.CHOOSE:
        opts = g.draft_options(rnd)
        worth = [_level_mean(state, lv, rnd) * (1 + 0.55 * (k - 1)) for lv, k in opts]
        return A_CHOOSE + int(np.argmax(worth))
    if ph == Phase.PICK:
        lv = g.draft_options(rnd)[state.option][0]
        vals = [(card_value(g, t, rnd), i) for i, t in enumerate(state.display) if t >= 0 and mask[A_PICK + i]]
        best = max(vals, default=(0.0, -1))
        if mask[A_REDRAW] and best[0] < _level_mean(state, lv, rnd) - 0.5:
            return A_REDRAW
        if best[1] >= 0 and best[0] >= PICK_FLOOR:
            return A_PICK + best[1]
        return A_STOP
    # REMOVE / FINAL_REMOVE: drop the weakest card while the deck is large and it is clearly weak
    deck = state.decks[seat]
    size = sum(deck)
    cands = [(card_value(g, t, rnd), t) for t in range(g.num_types) if mask[A_REMOVE + t]]
    if cands and size > MIN_DECK:
        avg = sum(card_value(g, t, rnd) * deck[t] for t in range(g.num_types)) / size
        v, t = min(cands)
        if v < 0.6 * avg:
            return A_REMOVE + t
    return g.a_done


def heuristic(game: ChallengersGame, seat: int, seed: int | None = None, **style) -> HeuristicBot:
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="challengers_heuristic")
