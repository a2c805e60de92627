"""The rules API every BoardZoo game implements (knows nothing of RL).

A :class:`Game` holds the validated options and the component data; a :class:`State` holds one
position. Algorithms (the PettingZoo adapter, bots, search, tournaments) only ever call the
State API below, so they work for every game without changes (OpenSpiel's lesson).

A game subclasses both and implements the underscored hooks:

``State._legal_mask()``      int8 mask over ``game.num_actions`` for the current decision
``State._apply(a)``          apply a legal action (or chance outcome) in place
``State.current_player()``   a seat, :data:`CHANCE` or :data:`TERMINAL`
``State.chance_outcomes()``  exact ``[(outcome, probability), ...]`` at chance nodes
``State.observation(seat)``  flat float32 vector of size ``game.observation_size``
``State.resample_hidden(seat, rng)``  new state consistent with what ``seat`` knows
``State.scores()`` / ``State.winners()``
``State.to_dict()`` / ``Game.state_from_dict()``
``State.action_to_string(a)`` / ``State.phase()`` / ``State.__str__``

The base class adds the legality check (``apply_action`` raises :class:`IllegalActionError`
and leaves the state untouched), mask caching, win-based returns and JSON helpers.
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

CHANCE = -1
"""``current_player()`` at a chance node."""
TERMINAL = -2
"""``current_player()`` once the game is over."""


class BoardZooError(Exception):
    """Base class of every error BoardZoo raises on purpose."""


class IllegalActionError(BoardZooError, ValueError):
    """An action that is not legal in the current state.

    The message names the action, the phase and the legal actions; the state is unchanged.
    """

    def __init__(self, action: Any, phase: str, legal: Sequence[Any], describe: Callable[[Any], str] | None = None):
        self.action = action
        self.phase = phase
        self.legal = list(legal)
        shown = self.legal[:40]
        names = ", ".join(f"{a}" + (f" ({describe(a)})" if describe else "") for a in shown)
        more = f", ... ({len(self.legal)} in all)" if len(self.legal) > len(shown) else ""
        super().__init__(f"illegal action {action!r} in phase {phase!r}; legal actions: [{names}{more}]")


class ConfigError(BoardZooError, ValueError):
    """A malformed option, config or data file; the message names the offending entry."""


@dataclass(frozen=True)
class Option:
    """One game option: its default, the allowed values (or a type) and a one-line help."""

    default: Any
    help: str = ""
    choices: tuple | None = None
    type: type | tuple | None = None

    def validate(self, name: str, value: Any) -> Any:
        if self.choices is not None:
            if value not in self.choices:
                raise ConfigError(f"option {name}={value!r} is not one of {list(self.choices)}")
            return value
        want = self.type if self.type is not None else type(self.default)
        if want is bool and not isinstance(value, (bool, np.bool_)):
            raise ConfigError(f"option {name}={value!r} must be a bool")
        if want is int and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
            raise ConfigError(f"option {name}={value!r} must be an int")
        if want is float and (isinstance(value, bool) or not isinstance(value, (int, float, np.number))):
            raise ConfigError(f"option {name}={value!r} must be a number")
        if want is str and not isinstance(value, str):
            raise ConfigError(f"option {name}={value!r} must be a string")
        return value


class Game:
    """Immutable parameters and component data of one game under one option set.

    Subclasses set the class attributes and implement ``new_initial_state`` and
    ``state_from_dict``; ``__init__`` validates the options (unknown or contradictory -> ConfigError).
    """

    env_id: ClassVar[str] = ""            # "downforce_v0"
    name: ClassVar[str] = ""              # "Downforce"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2    # the game's standard count (training, tournaments)
    options_spec: ClassVar[dict[str, Option]] = {}
    score_scale: ClassVar[float] = 1.0    # rewards: score * score_scale (solo and reward="score")
    lower_score_wins: ClassVar[bool] = False  # scores are penalties (fewest points win)
    simultaneous: ClassVar[bool] = False  # offers parallel_env() (secret simultaneous commits)
    conformance_options: ClassVar[list[dict]] = [{}]  # option sets the conformance suite covers

    num_actions: int
    observation_size: int
    # optional action features: when set, ``observation[offset:offset + num_actions]`` holds one
    # feature per action for the seat to move (0 for illegal actions), which policies may add to
    # their logits (training's ``net.action_skip``); None = the game has none
    action_feature_offset: int | None = None

    def __init__(self, **options: Any):
        unknown = sorted(set(options) - set(self.options_spec))
        if unknown:
            raise ConfigError(
                f"{self.env_id}: unknown option(s) {unknown}; known options: {sorted(self.options_spec)}")
        resolved = {}
        for key, opt in self.options_spec.items():
            resolved[key] = opt.validate(key, options[key]) if key in options else opt.default
        self.options: dict[str, Any] = resolved
        self.check_options()

    def check_options(self) -> None:
        """Raise ConfigError for contradictory options (hook)."""

    def check_players(self, num_players: int) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ConfigError(f"{self.env_id}: num_players must be an int, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise ConfigError(
                f"{self.env_id}: num_players={num_players} is outside {self.min_players}..{self.max_players}")

    def new_initial_state(self, num_players: int) -> "State":
        raise NotImplementedError

    def state_from_dict(self, data: dict) -> "State":
        """Rebuild a state saved by ``State.to_dict``."""
        raise NotImplementedError

    def renderer(self) -> Callable[["State"], np.ndarray] | None:
        """Return the rgb_array renderer ``state -> HxWx3 uint8`` (needs Pillow) or None."""
        return None

    def heuristic_bot(self, seat: int, seed: int | None = None, **style: Any):
        """Return this game's heuristic bot for ``seat`` (see boardzoo.envs.core.bots). A game may
        offer variants through ``style`` keywords (e.g. as imitation teachers); an unknown style is
        a ConfigError."""
        raise NotImplementedError

    def observation_layout(self) -> list[tuple[str, int, int]]:
        """Named blocks of the observation vector: ``[(name, offset, length), ...]`` in order,
        contiguous and covering ``observation_size`` exactly. The encoder owns the layout; the bot
        card and each game's RULES.md show the same table. Default: one block."""
        return [("observation", 0, self.observation_size)]

    def describe(self) -> dict:
        return {"env_id": self.env_id, "name": self.name, "version": self.version,
                "players": [self.min_players, self.max_players], "options": dict(self.options),
                "num_actions": self.num_actions, "observation_size": self.observation_size}


class State:
    """One position. Mutable; ``clone()`` before exploring."""

    game: Game
    num_players: int
    _mask: np.ndarray | None = None

    # ----------------------------------------------------------------- hooks
    def current_player(self) -> int:
        raise NotImplementedError

    def _legal_mask(self) -> np.ndarray:
        raise NotImplementedError

    def _apply(self, action: Any) -> None:
        raise NotImplementedError

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        raise NotImplementedError

    def observation(self, seat: int) -> np.ndarray:
        raise NotImplementedError

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> "State":
        """Return a new state, identical to this one as far as ``seat`` can tell, with every
        hidden card, tile or commit re-dealt at random. The default suits games with no hidden
        information."""
        return self.clone()

    def scores(self) -> list[float]:
        raise NotImplementedError

    def winners(self) -> list[int]:
        """Seats that win after the game's own tie-breaks (several only on a shared win)."""
        s = self.scores()
        best = min(s) if self.game.lower_score_wins else max(s)
        return [i for i, v in enumerate(s) if v == best]

    def phase(self) -> str:
        return "play"

    def check_invariants(self) -> None:
        """Raise AssertionError if a conservation law of the game is broken (hook; the
        conformance suite calls it after every action of many random games)."""

    def action_to_string(self, action: Any) -> str:
        return str(action)

    def to_dict(self) -> dict:
        raise NotImplementedError

    def deciders(self) -> list[int]:
        """Seats deciding at this node. More than one only at a simultaneous node, where the
        AEC form asks them one after another (``current_player()`` is the next of them) and
        ``parallel_env`` asks them together. Seats that already committed are not listed."""
        p = self.current_player()
        return [p] if p >= 0 else []

    # ------------------------------------------------------------ provided
    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def legal_mask(self) -> np.ndarray:
        """int8 mask of ``num_actions`` for the current decision (all zero at chance/terminal).
        Cached until the next ``apply_action``; do not modify the returned array."""
        m = self._mask
        if m is None:
            if self.current_player() < 0:
                m = np.zeros(self.game.num_actions, dtype=np.int8)
            else:
                m = self._legal_mask()
            self._mask = m
        return m

    def legal_actions(self) -> list[int]:
        if self.is_chance_node():
            return [o for o, _ in self.chance_outcomes()]
        return np.flatnonzero(self.legal_mask()).tolist()

    def is_legal(self, action: Any) -> bool:
        p = self.current_player()
        if p < 0:
            return p == CHANCE and self.is_legal_chance(action)
        if action.__class__ is not int:  # bool is excluded on purpose
            if not isinstance(action, np.integer):
                return False
            action = int(action)
        if not 0 <= action < self.game.num_actions:
            return False
        m = self._mask
        if m is None:
            m = self.legal_mask()
        return bool(m[action])

    def is_legal_chance(self, outcome: Any) -> bool:
        """Whether ``outcome`` is a possible chance outcome here (override for huge spaces)."""
        return any(outcome == o for o, _ in self.chance_outcomes())

    def apply_action(self, action: Any) -> None:
        """Apply a player's action or a chance outcome.

        Raises:
            IllegalActionError: the action is not legal now; the state is left unchanged.
        """
        if not self.is_legal(action):
            legal = [] if self.is_terminal() else self.legal_actions()
            raise IllegalActionError(action, "terminal" if self.is_terminal() else self.phase(), legal,
                                     None if self.is_chance_node() or self.is_terminal() else self._safe_name)
        if isinstance(action, np.integer):
            action = int(action)
        self._apply(action)
        self._mask = None

    def _safe_name(self, a: Any) -> str:
        try:
            return self.action_to_string(a)
        except Exception:  # naming must never hide the real error
            return "?"

    def sample_chance(self, rng: np.random.Generator) -> Any:
        """Draw one chance outcome (default: from ``chance_outcomes``)."""
        outcomes = self.chance_outcomes()
        probs = np.fromiter((p for _, p in outcomes), dtype=np.float64, count=len(outcomes))
        i = int(rng.choice(len(outcomes), p=probs / probs.sum()))
        return outcomes[i][0]

    def returns(self) -> list[float]:
        """Win-based returns (DESIGN.md): +1 sole winner, 0 each seat tied for first, -1 others;
        in a one-player game the final score times ``game.score_scale``."""
        if self.num_players == 1:
            return self.score_returns()
        w = self.winners()
        out = [-1.0] * self.num_players
        for s in w:
            out[s] = 1.0 if len(w) == 1 else 0.0
        return out

    def score_returns(self) -> list[float]:
        """``reward="score"``: own score minus the mean of the others', times score_scale
        (negated when ``game.lower_score_wins``, so a higher reward is always better)."""
        scale = -self.game.score_scale if self.game.lower_score_wins else self.game.score_scale
        s = [float(x) for x in self.scores()]
        n = len(s)
        if n == 1:
            return [s[0] * scale]
        tot = sum(s)
        return [(s[i] - (tot - s[i]) / (n - 1)) * scale for i in range(n)]

    def clone(self) -> "State":
        """Independent copy (default: deepcopy sharing the immutable Game)."""
        memo = {id(self.game): self.game}
        return copy.deepcopy(self, memo)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def __str__(self) -> str:  # ansi render
        return f"<{self.game.env_id} state>"
