"""Challengers! (``challengers_v0``): a tournament deck-builder with automatic matches, 1-8 players.

data/            card pools, draft schedules, components (JSON), validated by data.py
rules.py         Game + State: deck phases as sub-steps, matches resolved card by card
encoder.py       the observation (seat-relative named blocks), optional action features
bot.py           the heuristic drafter
render.py        render_text (ansi) and render_rgb (rgb_array)
RULES.md         the users' rules with the spec's rule IDs and the observation layout
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import ChallengersEncoder
from .render import render_rgb, render_seat, render_text
from .rules import ChallengersGame, ChallengersState

SPEC = GameSpec(
    rules=ChallengersGame,
    encoder=ChallengersEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    seat_text=render_seat,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "ChallengersGame", "ChallengersState"]
