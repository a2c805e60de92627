"""Voll verplant / Metro X (``voll_verplant_v0``): flip-and-write subway game for 1-6 players.

    from boardzoo.envs import voll_verplant_v0
    env = voll_verplant_v0.env(num_players=4)           # AEC: hidden commits in seat order
    par = voll_verplant_v0.parallel_env(num_players=4)  # all seats choose in one step

Rules: RULES.md in this folder.

    data/maps/<name>.json   subway maps (bundled: metro1), validated by data.py
    data/decks/<name>.json  card decks (bundled: standard), validated by data.py
    data.py                 the loader (core.data.load_json / resolve_data), cached with functools.cache
    rules.py                Game + State: rules only; imports core and data, never encoder/bot/render
    encoder.py              the observation: named blocks (core.encoder.Layout) + encode(), its own cache
    bot.py                  the heuristic (uses the rules; never the encoder)
    render.py               render_text (ansi, str(state)) and render_rgb (rgb_array)
    __init__.py             SPEC: the one place the parts are put together
"""

from ..core.spec import GameSpec
from .bot import heuristic
from .encoder import VollVerplantEncoder
from .render import render_rgb, render_text, seat_text
from .rules import VollVerplantGame, VollVerplantState

SPEC = GameSpec(
    rules=VollVerplantGame,
    encoder=VollVerplantEncoder,
    heuristic=heuristic,
    renderer=render_rgb,
    text=render_text,
    seat_text=seat_text,
    fair_heuristic=True,  # its heuristic reads only its seat's knowledge (tests/conformance/test_fair_heuristics.py)
)

__all__ = ["SPEC", "VollVerplantGame", "VollVerplantState"]
