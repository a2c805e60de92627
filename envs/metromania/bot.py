"""Heuristic Metromania policy: the best one-ply value of ``evaluate.action_values`` (digging,
covering destinations, scoring stations, heading for an allowed black gate when tunnels run
short, ending lines), ties broken at random."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .evaluate import action_values
from .rules import MetromaniaGame, MetromaniaState


def policy(state: MetromaniaState, seat: int, rng: np.random.Generator) -> int:
    vals = action_values(state)
    best = max(vals.values())
    top = [a for a, v in vals.items() if v >= best - 1e-9]
    return int(top[int(rng.integers(len(top)))])


def heuristic(game: MetromaniaGame, seat: int, seed: int | None = None, **style: Any) -> HeuristicBot:
    """The game's heuristic bot (GameSpec.heuristic); it has no style variants."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="metromania_heuristic")
