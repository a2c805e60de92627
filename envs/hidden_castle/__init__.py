"""Escape from the Hidden Castle (``hidden_castle_v0``); see rules.py and RULES.md.

data/components.json  both board sides, the die, guests per player (validated by data.py)
data.py               the loader (core.data.load_json), cached with functools.cache
rules.py              Game + State: rules only; imports core and data, never encoder/bot/render
encoder.py            the observation: named blocks (core.encoder.Layout) + encode()
bot.py                the heuristic (uses the rules; never the encoder)
render.py             render_text (ansi, str(state)) and render_rgb (rgb_array)
__init__.py           SPEC: the one place the parts are put together
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import HiddenCastleEncoder
from .render import render_rgb, render_text, seat_text
from .rules import HiddenCastleGame, HiddenCastleState

SPEC = GameSpec(
    rules=HiddenCastleGame,
    encoder=HiddenCastleEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    seat_text=seat_text,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "HiddenCastleGame", "HiddenCastleState"]
