"""Bots by name, for tournaments, the terminal player and evaluation during training.

A bot spec is one of:

``random``                  uniform over the legal actions
``heuristic``               the game's rule-based bot (``Game.heuristic_bot``)
``mcts`` / ``mcts:N``       information-set MCTS with N simulations per decision (default 50)
``rollout`` / ``rollout:N`` the heuristic improved by Monte-Carlo rollouts: N heuristic playouts per
                            candidate action (default 2); :mod:`boardzoo.envs.core.rollout`
``rollout:N:ties``          the same, choosing only among the actions tied with the heuristic's choice
                            by the game's one-ply action features (games with ``action_features``)
``neural``                  the shipped exported bot, ``checkpoints/<env_id>/``
``neural:PATH``             an exported bot (its folder, or a file in it)
``neural+search[:N[:PATH]]`` PUCT search with N simulations (default 100) guided by the shipped (or
                            PATH's) bot: its policy as prior, its value head as leaf evaluation
                            (random playouts for a bot exported without one); :mod:`.search`
``neural+gumbel[:N[:PATH]]`` the same search with a Gumbel root (sequential halving over the prior's
                            top actions, as Gumbel AlphaZero): it spreads the budget over actions a
                            confident prior would never let PUCT visit
``neural+search:N:mix=X[:PATH]`` (either search) each leaf's value is ``1 - X`` times the value head's
                            plus ``X`` times a random playout's outcome (``SearchBot.rollout_mix``)

Every bot follows the one Bot protocol of ``boardzoo.envs.core.bots``; play them through
``core.bots.choose`` so state-reading bots see only a ``resample_hidden`` view.
"""

from __future__ import annotations

import json
from typing import Any

from boardzoo.envs import ConfigError
from boardzoo.envs.core.bots import RandomBot
from boardzoo.envs.core.mcts import MCTSBot
from boardzoo.envs.core.rollout import RolloutBot

KINDS = ("random", "heuristic", "mcts", "rollout", "neural", "neural+search", "neural+gumbel")
SEARCH_KINDS = {"neural+search": "puct", "neural+gumbel": "gumbel"}
SPEC_FORMS = (
    "random, heuristic, mcts[:N], rollout[:N[:ties]], neural[:PATH], "
    "neural+search[:N[:mix=X][:PATH]], neural+gumbel[:N[:mix=X][:PATH]]"
)  # every bot spec's form, for errors and help texts
DEFAULT_MCTS_SIMULATIONS = 50
DEFAULT_SEARCH_SIMULATIONS = 100
DEFAULT_ROLLOUT_PLAYOUTS = 2


def search_arg(spec: str, key: str = "bot") -> tuple[int, dict[str, float], str]:
    """The parts of a search bot's spec after its kind: ``(N, options, PATH)`` from
    ``N[:mix=X][:PATH]`` (N defaults to 100, PATH to the shipped bot: ``""``)."""
    arg = spec.partition(":")[2]
    n, _, rest = arg.partition(":")
    if n and (not n.isdigit() or int(n) < 1):
        raise ConfigError(f"{key}: {spec!r}: the search budget must be a positive integer ({SPEC_FORMS})")
    opts: dict[str, float] = {}
    if rest.startswith("mix="):
        item, _, rest = rest.partition(":")
        try:
            x = float(item[4:])
        except ValueError:
            x = -1.0
        if not 0.0 <= x <= 1.0:
            raise ConfigError(f"{key}: {spec!r}: the rollout mix must be a number between 0 and 1 (mix=X)")
        opts["rollout_mix"] = x
    return (int(n) if n else DEFAULT_SEARCH_SIMULATIONS), opts, rest


def check_spec(spec: str, key: str = "bot") -> None:
    """Raise ConfigError unless ``spec`` names a bot (see module docstring)."""
    if not isinstance(spec, str) or not spec:
        raise ConfigError(f"{key}: a bot spec must be a non-empty string, got {spec!r}")
    kind, _, arg = spec.partition(":")
    if kind not in KINDS:
        raise ConfigError(f"{key}: unknown bot {spec!r}; use one of {SPEC_FORMS}")
    if kind == "rollout" and ":" in arg:
        arg, _, mode = arg.partition(":")
        if mode != "ties":
            raise ConfigError(f"{key}: {spec!r}: the rollout bot's only mode is 'ties' (rollout:N:ties)")
    if kind in ("mcts", "rollout") and arg:
        if not arg.isdigit() or int(arg) < 1:
            what = "MCTS budget" if kind == "mcts" else "number of playouts"
            raise ConfigError(f"{key}: {spec!r}: the {what} must be a positive integer")
    if kind in SEARCH_KINDS:
        search_arg(spec, key)
    if kind in ("random", "heuristic") and arg:
        raise ConfigError(f"{key}: {spec!r}: {kind} takes no argument")


_NEURAL_CACHE: dict[tuple[str, ...], Any] = {}


def make_bot(spec: str, game: Any, seat: int, seed: int | None = None) -> Any:
    """Create the bot named by ``spec`` for ``seat`` of ``game`` (a Game instance)."""
    check_spec(spec)
    kind, _, arg = spec.partition(":")
    if kind == "random":
        return RandomBot(seed)
    if kind == "heuristic":
        return game.heuristic_bot(seat, seed)
    if kind == "mcts":
        return MCTSBot(simulations=int(arg) if arg else DEFAULT_MCTS_SIMULATIONS, seed=seed)
    if kind == "rollout":
        n, _, mode = arg.partition(":")
        try:
            return RolloutBot(game, playouts=int(n) if n else DEFAULT_ROLLOUT_PLAYOUTS, seed=seed, ties=mode == "ties")
        except ValueError as e:
            raise ConfigError(f"bot {spec!r}: {e}") from None
    if kind in SEARCH_KINDS:
        from .botformat import read_bot
        from .search import search_bot

        sims, opts, path = search_arg(spec)
        skey = ("search", game.env_id, path, json.dumps(game.options, sort_keys=True, default=str))
        if skey not in _NEURAL_CACHE:  # checked once per line-up, not once per game
            _NEURAL_CACHE[skey] = read_bot(
                path or game.env_id, env_id=game.env_id, options=game.options, any_options=True
            )
        return search_bot(
            _NEURAL_CACHE[skey],
            simulations=sims,
            seed=seed,
            root=SEARCH_KINDS[kind],
            name=kind,
            **opts,
        )
    from .export import load_bot  # torch only when a neural bot is asked for

    # The line-up's options are an explicit choice (the card's, or the user's --options): a bot may play
    # other rule options as long as its observation still fits; a misfit names the option(s) to set.
    key = (game.env_id, arg, json.dumps(game.options, sort_keys=True, default=str))
    if key not in _NEURAL_CACHE:
        _NEURAL_CACHE[key] = load_bot(arg or game.env_id, env_id=game.env_id, options=game.options, any_options=True)
    return _NEURAL_CACHE[key]


def default_options(env_id: str, specs: Any) -> dict:
    """Game options for a line-up when the user gave none: those a neural bot was trained with (its
    card's ``options``; a bot may need an observation option such as downforce's
    ``action_features``), else the game's defaults (``{}``). The card is schema-checked
    (:class:`~boardzoo.training.botformat.CheckpointError` if it is malformed); no weights are read."""
    from .botformat import read_card, resolve

    for spec in specs:
        kind = spec.partition(":")[0] if isinstance(spec, str) else None
        if kind == "neural" or kind in SEARCH_KINDS:
            arg = search_arg(spec)[2] if kind in SEARCH_KINDS else spec.partition(":")[2]
            opts = read_card(resolve(arg or env_id))["options"]
            if opts:
                return dict(opts)
    return {}
