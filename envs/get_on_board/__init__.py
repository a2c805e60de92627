"""Get on Board: New York (``get_on_board_v0``), in the canonical game shape:

data/            components.json and maps/<name>.json, validated on load by data.py
data.py          the loader (core.data.load_json / resolve_data), cached with functools.cache
rules.py         Game + State: rules only; imports core and data, never encoder/bot/render
encoder.py       the observation: layout as named blocks + encode() (owns its incremental cache)
bot.py           the heuristic (uses the rules)
render.py        render_text (ansi, str(state)) and render_rgb (rgb_array)
RULES.md         the users' rules with the spec's rule IDs and the observation layout
__init__.py      SPEC: the one place the parts are put together
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import GetOnBoardEncoder
from .render import render_rgb, render_text, seat_text
from .rules import GetOnBoardGame, GetOnBoardState

SPEC = GameSpec(
    rules=GetOnBoardGame,
    encoder=GetOnBoardEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    seat_text=seat_text,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "GetOnBoardGame", "GetOnBoardState"]
