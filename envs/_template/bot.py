"""Heuristic of the template game: play the highest card; draw whenever the deck has a card."""

from __future__ import annotations

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .rules import A_DRAW, A_PLAY, A_STOP, Phase, TemplateGame, TemplateState


def policy(state: TemplateState, seat: int, rng: np.random.Generator) -> int:
    if state.phase_id == Phase.DRAW:
        return A_DRAW if state.legal_mask()[A_DRAW] else A_STOP
    hand = state.hands[seat]
    values = state.game.values
    return A_PLAY + max(range(len(hand)), key=lambda i: (values[hand[i]], -i))


def heuristic(game: TemplateGame, seat: int, seed: int | None = None, **style) -> HeuristicBot:
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="template_heuristic")
