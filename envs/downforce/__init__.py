"""Downforce (``downforce_v0``): auction, race and betting for 2-6 players; see RULES.md.

data/                   deck.json, components.json, tracks/<name>.json, validated by data.py
data.py                 the loader (core.data.load_json / resolve_data), cached with functools.cache
rules.py                Game + State: rules only (and the 1-ply race evaluation the heuristic and
                        the action features share); imports core and data, never encoder/bot/render
encoder.py              the observation: named blocks (core.encoder.Layout) + encode()
bot.py                  the heuristic (uses the rules; never the encoder)
render.py               render_text (ansi, str(state)) and render_rgb (rgb_array)
__init__.py             SPEC: the one place the parts are put together
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import DownforceEncoder
from .render import render_rgb, render_text, seat_text
from .rules import DownforceGame, DownforceState

SPEC = GameSpec(
    rules=DownforceGame,
    encoder=DownforceEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    seat_text=seat_text,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "DownforceGame", "DownforceState"]
