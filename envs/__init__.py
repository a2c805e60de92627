"""BoardZoo environments: every game as a PettingZoo env through one generic adapter.

    from boardzoo.envs import downforce_v0
    env = downforce_v0.env(num_players=4, render_mode="ansi")

or ``boardzoo.envs.make("downforce_v0", num_players=4)``; ``boardzoo.envs.names()`` lists the ids.
"""

from __future__ import annotations

from .core.game import CHANCE, TERMINAL, BoardZooError, ConfigError, IllegalActionError, StateError
from .core.registry import game_class, make, make_game, names, register

register("hidden_castle_v0", "boardzoo.envs.hidden_castle:SPEC")
register("downforce_v0", "boardzoo.envs.downforce:SPEC")
register("hydropolis_v0", "boardzoo.envs.hydropolis:SPEC")
register("voll_verplant_v0", "boardzoo.envs.voll_verplant:SPEC")
register("get_on_board_v0", "boardzoo.envs.get_on_board:SPEC")
register("harmonies_v0", "boardzoo.envs.harmonies:SPEC")
register("challengers_v0", "boardzoo.envs.challengers:SPEC")
register("metromania_v0", "boardzoo.envs.metromania:SPEC")

__all__ = [
    "CHANCE",
    "TERMINAL",
    "BoardZooError",
    "ConfigError",
    "IllegalActionError",
    "StateError",
    "game_class",
    "make",
    "make_game",
    "names",
    "register",
]
