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
``State._to_dict()`` / ``Game._state_from_dict()`` / ``Game.state_schema(n)``  saved states (the base class
                             adds the envelope and validates untrusted dicts)
``State.action_to_string(a)`` / ``State.phase()`` / ``State.__str__``

The base class adds the legality check (``apply_action`` raises :class:`IllegalActionError`
and leaves the state untouched), mask caching, win-based returns and JSON helpers.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .errors import BoardZooError, ConfigError, IllegalActionError, StateError
from .schema import Spec, first_difference

if TYPE_CHECKING:  # pragma: no cover - types only
    from .encoder import Encoder
    from .spec import GameSpec

CHANCE = -1
"""``current_player()`` at a chance node."""
TERMINAL = -2
"""``current_player()`` once the game is over."""


@dataclass(frozen=True)
class Option:
    """One game option: its default, the allowed values (or a type) and a one-line help."""

    default: Any
    help: str = ""
    choices: tuple | None = None
    type: type | tuple | None = None

    def validate(self, name: str, value: Any) -> Any:
        """The value as a plain Python bool/int/float/str, or ConfigError naming the option."""
        value = _plain(value)
        if self.choices is not None:
            if not any(value.__class__ is c.__class__ and value == c for c in self.choices):
                raise ConfigError(f"option {name}={value!r} is not one of {list(self.choices)}")
            return value
        want = self.type if self.type is not None else type(self.default)
        if want is bool and value.__class__ is not bool:
            raise ConfigError(f"option {name}={value!r} must be a bool")
        if want is int and value.__class__ is not int:
            raise ConfigError(f"option {name}={value!r} must be an int")
        if want is float:
            if value.__class__ not in (int, float):
                raise ConfigError(f"option {name}={value!r} must be a number")
            return float(value)
        if want is str and value.__class__ is not str:
            raise ConfigError(f"option {name}={value!r} must be a string")
        return value


def _plain(value: Any) -> Any:
    """numpy scalars and str subclasses as plain Python values; anything else unchanged (an array,
    a list or an object then fails the exact type checks)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, str) and value.__class__ is not str:
        return str(value)
    return value


def as_action(action: Any) -> Any:
    """A player's action as a plain int when it is integer-like: Python or numpy ints and 0-d
    integer arrays (what ``model.predict`` returns for one observation), never bools or floats.
    Anything else comes back unchanged (and is then illegal)."""
    if action.__class__ is int:
        return action
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return int(action)
    if isinstance(action, int) and not isinstance(action, bool):
        return int(action)
    return action


class Game:
    """Immutable parameters and component data of one game under one option set.

    Subclasses set the class attributes and implement ``new_initial_state``, ``state_schema``
    and ``_state_from_dict``; ``__init__`` validates the options (unknown or contradictory ->
    ConfigError), calls ``setup()`` (the game's own precomputation for the option set), then
    builds the encoder named by the game's GameSpec (``self.encoder``).
    """

    _spec: ClassVar[GameSpec | None] = None  # bound by the game's GameSpec (see core/spec.py)
    encoder: Encoder

    env_id: ClassVar[str] = ""  # "downforce_v0"
    name: ClassVar[str] = ""  # "Downforce"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2  # the game's standard count (training, tournaments)
    options_spec: ClassVar[dict[str, Option]] = {}
    score_scale: ClassVar[float] = 1.0  # rewards: score * score_scale (solo and reward="score")
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
            raise ConfigError(f"{self.env_id}: unknown option(s) {unknown}; known options: {sorted(self.options_spec)}")
        resolved = {}
        for key, opt in self.options_spec.items():
            resolved[key] = opt.validate(key, options[key]) if key in options else opt.default
        self.options: dict[str, Any] = resolved
        self.check_options()
        self.setup()
        spec = type(self)._spec
        if spec is not None:
            self.encoder = spec.encoder(self)
            self.observation_size = self.encoder.size
            if self.encoder.action_feature_offset is not None:
                self.action_feature_offset = self.encoder.action_feature_offset

    def setup(self) -> None:
        """Per-option-set precomputation (component data, geometry, tables) after the options are
        validated and before the encoder is built (hook)."""

    def check_options(self) -> None:
        """Raise ConfigError for contradictory options (hook)."""

    def check_players(self, num_players: int) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ConfigError(f"{self.env_id}: num_players must be an int, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise ConfigError(
                f"{self.env_id}: num_players={num_players} is outside {self.min_players}..{self.max_players}"
            )

    def new_initial_state(self, num_players: int) -> State:
        raise NotImplementedError

    # --------------------------------------------------------- saved states
    ENVELOPE: ClassVar[tuple[str, ...]] = ("env_id", "version", "options", "num_players")

    def state_schema(self, num_players: int) -> Spec:
        """The schema of a saved state's own fields (everything in ``State._to_dict()`` except
        ``num_players``), for ``num_players`` seats (hook; see :mod:`boardzoo.envs.core.schema`)."""
        raise NotImplementedError(f"{self.env_id} declares no state schema")

    def _state_from_dict(self, data: dict) -> State:
        """Build the state from a dict already checked against ``state_schema`` (hook)."""
        raise NotImplementedError

    def state_from_dict(self, data: Any) -> State:
        """Rebuild a state saved by ``State.to_dict``; the dict is untrusted input.

        Checks, in order: the envelope (env id, version and options must be this game's; the
        player count in range), the game's schema (keys, types, ranges, sizes), then builds the
        state and checks the game's invariants, that it can be played on (a decision has a legal
        action, chance outcomes are a distribution, every seat's observation is well formed) and
        that it saves back to exactly ``data``.

        Raises:
            StateError: naming the field that is wrong (a BoardZooError; nothing else escapes).
        """
        if data.__class__ is not dict:
            raise StateError(f"a saved {self.env_id} state must be a JSON object, got {type(data).__name__}")
        for key in self.ENVELOPE:
            if key not in data:
                raise StateError(f"state field {key!r} is missing")
        if data["env_id"] != self.env_id:
            raise StateError(f"state field 'env_id': the state is for {data['env_id']!r}, not {self.env_id!r}")
        if data["version"].__class__ is not int or data["version"] != self.version:
            raise StateError(
                f"state field 'version': the state is for version {data['version']!r} of "
                f"{self.env_id}, this game is version {self.version}"
            )
        opts = data["options"]
        if (
            opts.__class__ is not dict
            or opts != self.options
            or any(opts[k].__class__ is not v.__class__ for k, v in self.options.items())
        ):
            diff = (
                sorted(k for k in set(opts) | set(self.options) if opts.get(k, ...) != self.options.get(k, ...))
                if opts.__class__ is dict
                else opts
            )
            raise StateError(
                f"state field 'options': the state was saved with options {_short(opts)}, this game "
                f"has {self.options} (differing: {diff}); make the game with the state's options"
            )
        n = data["num_players"]
        if n.__class__ is not int or not self.min_players <= n <= self.max_players:
            raise StateError(
                f"state field 'num_players': expected an int in {self.min_players}..{self.max_players}, got {_short(n)}"
            )
        body = {k: v for k, v in data.items() if k not in self.ENVELOPE}
        self.state_schema(n).check(body, "")
        try:
            state = self._state_from_dict(dict(body, num_players=n))
        except BoardZooError:
            raise
        except Exception as e:  # the schema let through something the loader cannot use
            raise StateError(f"saved {self.env_id} state cannot be loaded ({type(e).__name__}: {e})") from None
        try:
            state.check_invariants()
        except AssertionError as e:
            raise StateError(f"saved {self.env_id} state breaks an invariant of the game: {e}") from None
        except BoardZooError:
            raise
        except Exception as e:  # an invariant check that tripped over the damage itself
            raise StateError(f"saved {self.env_id} state is inconsistent ({type(e).__name__}: {e})") from None
        _check_playable(state)
        back = state.to_dict()
        where = first_difference(back, data)
        if where is not None:
            raise StateError(
                f"state field {where!r} is inconsistent with the rest of the state (it would load "
                f"as a different position)"
            )
        return state

    def renderer(self) -> Callable[[State], np.ndarray] | None:
        """Return the rgb_array renderer ``state -> HxWx3 uint8`` (needs Pillow) or None."""
        spec = type(self)._spec
        return spec.renderer if spec is not None else None

    def seat_private(self, state: State, seat: int) -> str:
        """What only ``seat`` may know in ``state``, as text (its hand, its secret bids and bets):
        the spec's ``seat_text``, or "" when the game has none (everything shown is public)."""
        if not 0 <= seat < state.num_players:
            raise ConfigError(f"{self.env_id}: seat {seat!r} is outside 0..{state.num_players - 1}")
        spec = type(self)._spec
        return spec.seat_text(state, seat) if spec is not None and spec.seat_text is not None else ""

    def seat_view(self, state: State, seat: int) -> str:
        """The text ``seat`` may see: the public text (``str(state)``), then its private part
        (:meth:`seat_private`) when the game has one. Never shows another seat's secrets."""
        private = self.seat_private(state, seat)
        return f"{state}\n\n{private}" if private else str(state)

    def heuristic_bot(self, seat: int, seed: int | None = None, **style: Any):
        """Return this game's heuristic bot for ``seat`` (see boardzoo.envs.core.bots). A game may
        offer variants through ``style`` keywords (e.g. as imitation teachers); an unknown style is
        a ConfigError."""
        spec = type(self)._spec
        if spec is None:
            raise NotImplementedError(f"{self.env_id} has no heuristic bot")
        bot = spec.heuristic(self, seat, seed, **style)
        if spec.fair_heuristic and not style:
            bot.needs_view = False  # GameSpec.fair_heuristic: choose() may hand it the real state
        return bot

    def observation_layout(self) -> list[tuple[str, int, int]]:
        """Named blocks of the observation vector: ``[(name, offset, length), ...]`` in order,
        contiguous and covering ``observation_size`` exactly. The encoder owns the layout; the bot
        card and each game's RULES.md show the same table. Default: one block."""
        if type(self)._spec is not None:
            return self.encoder.layout.table()
        return [("observation", 0, self.observation_size)]

    def observation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: the true range of every observation entry (float32 arrays), as the
        encoder's layout declares them (``Layout.block(..., low, high)``; ``inf`` where the rules set
        no limit). The env's observation ``Box`` uses them; the conformance suite checks them.
        Default (a game without a spec): unbounded."""
        if type(self)._spec is not None:
            return self.encoder.layout.bounds()
        n = self.observation_size
        return np.full(n, -np.inf, np.float32), np.full(n, np.inf, np.float32)

    def describe(self) -> dict:
        return {
            "env_id": self.env_id,
            "name": self.name,
            "version": self.version,
            "players": [self.min_players, self.max_players],
            "options": dict(self.options),
            "num_actions": self.num_actions,
            "observation_size": self.observation_size,
        }


class State:
    """One position. Mutable; ``clone()`` before exploring."""

    game: Game
    num_players: int
    _mask: np.ndarray | None = None
    encoder_cache: Any = None
    """Free for the game's encoder (an incremental observation cache it alone reads and writes;
    a clone or a loaded state starts without one). Declared here so no game writes it through
    ``__dict__``."""

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
        """What ``seat`` sees, encoded by the game's encoder (float32, ``game.observation_size``)."""
        return self.game.encoder.encode(self, seat)

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> State:
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

    def _to_dict(self) -> dict:
        """The state's own fields as JSON-safe values (hook; ``to_dict`` adds the envelope)."""
        raise NotImplementedError

    def to_dict(self) -> dict:
        """JSON-safe dict that ``Game.state_from_dict`` turns back into an equal state: env id,
        version, options and player count, then the game's own fields."""
        g = self.game
        d = {"env_id": g.env_id, "version": g.version, "options": dict(g.options), "num_players": self.num_players}
        d.update(self._to_dict())
        return d

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
        if p < 0:  # chance outcomes arrive normalised too (numpy ints, 0-d arrays -> int)
            return p == CHANCE and self.is_legal_chance(as_action(action))
        if action.__class__ is not int:  # bool is excluded on purpose
            action = as_action(action)
            if action.__class__ is not int:
                return False
        if not 0 <= action < self.game.num_actions:
            return False
        m = self._mask
        if m is None:
            m = self.legal_mask()
        return bool(m[action])

    def is_legal_chance(self, outcome: Any) -> bool:
        """Whether ``outcome`` is a possible chance outcome here (override for huge spaces).
        ``is_legal`` has already turned integer-like outcomes into plain ints (``as_action``);
        anything else arrives unchanged and must be refused by an int-only game."""
        return any(outcome == o for o, _ in self.chance_outcomes())

    def apply_action(self, action: Any) -> None:
        """Apply a player's action or a chance outcome.

        Raises:
            IllegalActionError: the action is not legal now; the state is left unchanged.
        """
        if not self.is_legal(action):
            legal = [] if self.is_terminal() else self.legal_actions()
            raise IllegalActionError(
                action,
                "terminal" if self.is_terminal() else self.phase(),
                legal,
                None if self.is_chance_node() or self.is_terminal() else self._safe_name,
            )
        self._apply(as_action(action))
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

    def random_playout(self, pick: Callable[[int], Any], rng: np.random.Generator, max_decisions: int) -> int:
        """Play on in place with uniformly random moves until the game ends or ``max_decisions``
        decisions were made (chance steps not counted); return the decisions made.

        Each decision takes legal action number ``pick(k)`` (an index below ``k``, the number of
        legal actions, in action order), each chance node an outcome of ``sample_chance(rng)``.
        The playout of every search bot (IS-MCTS, the network search's leaves): the actions come
        from the legal mask, so it skips ``apply_action``'s legality check (a third of a playout's
        time in Downforce) and stays exactly the loop ``apply_action(legal[pick(k)])``."""
        steps = 0
        while steps < max_decisions:
            p = self.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                self.apply_action(self.sample_chance(rng))
                continue
            legal = self.legal_mask().nonzero()[0]
            self._apply(int(legal[pick(len(legal))]))
            self._mask = None
            steps += 1
        return steps

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
        (negated when ``game.lower_score_wins``, so a higher reward is always better), capped at
        the lowest winner's for every seat that is not a winner."""
        scale = -self.game.score_scale if self.game.lower_score_wins else self.game.score_scale
        s = [float(x) for x in self.scores()]
        n = len(s)
        if n == 1:
            return [s[0] * scale]
        tot = sum(s)
        r = [(s[i] - (tot - s[i]) / (n - 1)) * scale for i in range(n)]
        # Rewards never rank a non-winner above a winner: a game's winners may differ from the
        # best score (tie-breaks, eliminated seats); such a seat gets at most the lowest winner's.
        w = self.winners()
        if w and len(w) < n:
            cap = min(r[i] for i in w)
            ws = set(w)
            r = [x if i in ws or x <= cap else cap for i, x in enumerate(r)]
        return r

    def clone(self) -> State:
        """Independent copy (default: deepcopy sharing the immutable Game)."""
        memo = {id(self.game): self.game}
        return copy.deepcopy(self, memo)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    def __str__(self) -> str:  # ansi render
        spec = type(self.game)._spec
        if spec is not None and spec.text is not None:
            return spec.text(self)
        return f"<{self.game.env_id} state>"


def slot_copier(cls: type) -> Callable[[Any, Any], None]:
    """A function ``copy(dst, src)`` doing ``dst.k = src.k`` for every name in ``cls.__slots__``,
    written out (one compiled line per slot: about a quarter of the cost of a ``setattr(getattr())``
    loop), for a ``clone`` that starts from a shallow copy of a state with many slots."""
    src = "def copy(d, s):\n" + "".join(f"    d.{k} = s.{k}\n" for k in vars(cls)["__slots__"]) + "    return None\n"
    ns: dict[str, Any] = {}
    exec(src, ns)
    return ns["copy"]


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 80 else r[:77] + "..."


def _check_playable(state: State) -> None:
    """A loaded state must be playable: the current decision has a legal action, chance outcomes
    form a distribution, each seat's observation is well formed, and printing and cloning work."""
    g = state.game
    try:
        p = state.current_player()
        if p.__class__ is not int or not (p in (CHANCE, TERMINAL) or 0 <= p < state.num_players):
            raise StateError(f"saved {g.env_id} state has no valid player to move ({p!r})")
        if p >= 0:
            m = state.legal_mask()
            if m.shape != (g.num_actions,) or not m.any():
                raise StateError(f"saved {g.env_id} state: seat {p} has no legal action in phase {state.phase()!r}")
        elif p == CHANCE:
            outs = state.chance_outcomes()
            total = sum(pr for _, pr in outs)
            if not outs or abs(total - 1.0) > 1e-6 or any(pr <= 0 for _, pr in outs):
                raise StateError(f"saved {g.env_id} state: the chance outcomes are not a distribution")
        for seat in range(state.num_players):
            o = state.observation(seat)
            if o.shape != (g.observation_size,) or not np.isfinite(o).all():
                raise StateError(f"saved {g.env_id} state: seat {seat}'s observation is malformed")
        str(state)
        state.clone()
    except BoardZooError:
        raise
    except Exception as e:
        raise StateError(f"saved {g.env_id} state is inconsistent ({type(e).__name__}: {e})") from None
