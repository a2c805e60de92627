"""The registry: versioned env ids -> games, loaded lazily.

``register("castle_v0", "boardzoo.envs.castle:SPEC")`` points an env id at the game's
:class:`~boardzoo.envs.core.spec.GameSpec` (rules, encoder, heuristic, renderers; an entry may
also name a Game class that wires itself). ``make``, ``names`` and ``game_class`` are derived from
it; a game also needs its per-id module (``envs/castle_v0.py``, two lines) for
``from boardzoo.envs import castle_v0``. docs/ADDING_A_GAME.md has the whole checklist.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .game import ConfigError, Game
from .spec import GameSpec

_ENTRIES: dict[str, str] = {}
_LOADED: dict[str, type[Game]] = {}


def register(env_id: str, entry_point: str) -> None:
    """Register ``env_id`` (``name_vN``) as ``"module:GameClass"``."""
    if env_id in _ENTRIES and _ENTRIES[env_id] != entry_point:
        raise ConfigError(f"{env_id} is already registered to {_ENTRIES[env_id]}")
    _ENTRIES[env_id] = entry_point


def names() -> list[str]:
    """All registered env ids, sorted."""
    return sorted(_ENTRIES)


def game_class(env_id: str) -> type[Game]:
    """The Game class behind ``env_id`` (imports its module on first use)."""
    if env_id not in _ENTRIES:
        raise ConfigError(f"unknown env id {env_id!r}; registered: {names()}")
    if env_id not in _LOADED:
        mod, cls = _ENTRIES[env_id].split(":")
        obj = getattr(importlib.import_module(mod), cls)
        if isinstance(obj, GameSpec):
            obj.bind()
            game = obj.rules
        else:
            game = obj
        if game.env_id != env_id:
            raise ConfigError(f"{_ENTRIES[env_id]} declares env_id {game.env_id!r}, registered as {env_id!r}")
        _LOADED[env_id] = game
    return _LOADED[env_id]


def make_game(env_id: str, **options: Any) -> Game:
    """A validated Game (rules layer only) for ``env_id``."""
    return game_class(env_id)(**options)


def make(env_id: str, parallel: bool = False, **kwargs: Any):
    """Create the PettingZoo env for ``env_id`` (AEC by default, Parallel with ``parallel=True``).

    Keyword arguments: ``num_players``, ``render_mode``, ``reward``, ``illegal`` and the game's
    own options.
    """
    from .adapter import BoardZooAEC, BoardZooParallel  # the rules layer imports no RL library

    game = game_class(env_id)
    if parallel:
        if not game.simultaneous:
            raise ConfigError(f"{env_id} has no simultaneous decisions; use the AEC form (parallel=False)")
        return BoardZooParallel(game, **kwargs)
    return BoardZooAEC(game, **kwargs)


def module_api(env_id: str) -> tuple[Callable, Callable, Callable | None]:
    """``(env, raw_env, parallel_env)`` for a per-id module such as ``boardzoo.envs.downforce_v0``."""

    def raw_env(**kwargs: Any):
        return make(env_id, **kwargs)

    def env(**kwargs: Any):
        return make(env_id, **kwargs)

    def parallel_env(**kwargs: Any):
        return make(env_id, parallel=True, **kwargs)

    for f, what in ((raw_env, "AEC env"), (env, "AEC env"), (parallel_env, "Parallel env")):
        f.__doc__ = f"Create the {what} of {env_id}; see boardzoo.envs.make for the arguments."
        f.__qualname__ = f.__name__
    return env, raw_env, parallel_env
