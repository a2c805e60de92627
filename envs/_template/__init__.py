"""Template game (``template_v0``, not registered): the canonical shape every game folder follows.

    data/            component data (JSON), validated on load by data.py
    data.py          the loader (core.data.load_json / resolve_data), cached with functools.cache
    rules.py         Game + State: rules only; imports core and data, never encoder/bot/render
    encoder.py       the observation: layout as named blocks (core.encoder.Layout) + encode()
    bot.py           the heuristic (uses the rules; never the encoder's internals)
    render.py        render_text (ansi, str(state)) and render_rgb (rgb_array)
    RULES.md         the users' rules with the spec's rule IDs and the observation layout
    __init__.py      SPEC: the one place the parts are put together

Copy it with ``python scripts/new_game.py <name>``; docs/ADDING_A_GAME.md is the checklist.
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import TemplateEncoder
from .render import render_rgb, render_text
from .rules import TemplateGame, TemplateState

SPEC = GameSpec(rules=TemplateGame, encoder=TemplateEncoder, heuristic=heuristic, renderer=render_rgb, text=render_text)

__all__ = ["SPEC", "TemplateGame", "TemplateState"]
