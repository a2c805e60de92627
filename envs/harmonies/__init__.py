"""Harmonies (``harmonies_v0``): token stacking and animal habitats on a personal hex board.

data/            components, animal and spirit cards (JSON), validated on load by data.py
board.py         hex geometry, token stacks and the pattern matcher (every rotation)
rules.py         Game + State: rules only; imports core, data and board
encoder.py       the observation (named blocks) and the optional 1-ply action features
bot.py           the heuristic
render.py        render_text (ansi, public), render_rgb (rgb_array, public), seat_text (a seat's spirit offers)
RULES.md         the users' rules with the spec's rule IDs and the observation layout
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import HarmoniesEncoder
from .render import render_rgb, render_text, seat_text
from .rules import HarmoniesGame, HarmoniesState

SPEC = GameSpec(
    rules=HarmoniesGame,
    encoder=HarmoniesEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    seat_text=seat_text,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "HarmoniesGame", "HarmoniesState"]
