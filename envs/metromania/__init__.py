"""Metromania (``metromania_v0``): subway lines on a hexagonal city of triangles.

data/            component data (board, gates, districts, markers, scoring), validated by data.py
geometry.py      the lattice, triangles, district slots and gates, built once from the data
rules.py         Game + State (MM-R1 to MM-R55), the trip search
evaluate.py      one-ply action values (heuristic bot), two-ply ones (the action_features block)
encoder.py       the observation (named blocks)
bot.py           the heuristic
render.py        render_text (ansi) and render_rgb (rgb_array)
RULES.md         the users' rules with the spec's rule IDs and the observation layout
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import MetromaniaEncoder
from .render import render_rgb, render_text
from .rules import MetromaniaGame, MetromaniaState

SPEC = GameSpec(
    rules=MetromaniaGame,
    encoder=MetromaniaEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "MetromaniaGame", "MetromaniaState"]
