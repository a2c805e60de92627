"""Text (ansi) and picture (rgb_array) renderings of the template game."""

from __future__ import annotations

import numpy as np

from ..core.render import INK, PLAYER_COLORS, Canvas
from .rules import TemplateState


def render_text(state: TemplateState) -> str:
    v = state.game.values
    lines = [f"Template, {state.num_players} players, phase {state.phase()}, deck {len(state.deck)} cards"]
    for p in range(state.num_players):
        mark = ">" if p == state.to_move and state.current_player() >= 0 else " "
        pile = [v[c] for c in state.piles[p]]
        lines.append(f"{mark} seat {p}: hand {len(state.hands[p])} cards, pile {pile} = {sum(pile)}")
    if state.is_terminal():
        lines.append(f"winners: {state.winners()}")
    return "\n".join(lines)


def render_rgb(state: TemplateState) -> np.ndarray:
    v = state.game.values
    c = Canvas(420, 80 + 60 * state.num_players)
    c.text((12, 10), f"Template - {state.phase()} - deck {len(state.deck)}", size=18)
    for p in range(state.num_players):
        y = 50 + 60 * p
        c.rect((10, y, 410, y + 50), fill=PLAYER_COLORS[p], outline=INK)
        pile = [v[k] for k in state.piles[p]]
        c.text((20, y + 6), f"seat {p}: {len(state.hands[p])} in hand", size=14)
        c.text((20, y + 26), f"pile {pile} = {sum(pile)}", size=14)
    return c.to_array()
