"""A Gymnasium single-agent view of any registered game, for sb3-contrib ``MaskablePPO``.

Each episode is one game. The learner takes a random seat; every other seat is played by an
opponent drawn from the pool (earlier learner snapshots, the game's heuristic bot, random), one
draw per seat per game. The env talks to the rules layer directly (no AEC wrapper on the hot
path) and advances chance nodes and opponents' turns itself, so the learner only ever sees its
own decisions. ``action_masks()`` is what MaskablePPO asks for; masked actions drop out of its
sampling and of its entropy (sb3-contrib's MaskableCategorical).

Opponents that read the rules state get a ``resample_hidden`` view (``core.bots.choose``), so
nobody cheats. Rewards come at the end only: ``returns()`` (reward="win") or ``score_returns()``.

Checkers and vector envs:

- ``illegal="raise"`` (default) lets the rules' ``IllegalActionError`` propagate;
  ``illegal="penalize"`` ends the game with reward -1 (info ``illegal_action``), as PettingZoo
  classic does, so Gymnasium's and SB3's ``check_env`` (which step unmasked random actions) pass.
- The observation ``Box`` takes the game's declared bounds (``Game.observation_bounds()``,
  :func:`observation_box`) where the game declares them, else ``(-inf, inf)``.
- The mask is also in every ``info["action_mask"]``. Under a Gymnasium vector env's autoreset,
  ``autoreset_mode=SAME_STEP`` hands out the new game's observation and mask at once; with the
  default ``NEXT_STEP`` the step after a finished game is ignored by the reset, and the mask
  between the two is all ones (any action, none is played), never all zeros.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from boardzoo.envs import BoardZooError, ConfigError, IllegalActionError, make_game
from boardzoo.envs.core.bots import RandomBot, choose
from boardzoo.envs.core.game import CHANCE, TERMINAL, as_action

from .policy import NumpyPolicy, PolicyBot


class OpponentPool:
    """Opponent mix: learner snapshots, heuristic, random (weights set by the pool schedule)."""

    def __init__(
        self,
        game: Any,
        weights: dict[str, float] | None = None,
        max_snapshots: int = 10,
        latest_prob: float = 0.5,
        activation: str = "tanh",
    ):
        self.game = game
        self.snapshots: list[NumpyPolicy] = []
        self.max_snapshots = max_snapshots
        self.latest_prob = latest_prob
        self.activation = activation
        self.set_weights(weights or {"snapshot": 0.0, "heuristic": 0.5, "random": 0.5})

    def set_weights(self, weights: dict[str, float]) -> None:
        self.weights = {k: float(weights.get(k, 0.0)) for k in ("snapshot", "heuristic", "random")}

    def add_snapshot(self, params: list[np.ndarray]) -> None:
        self.snapshots.append(NumpyPolicy(params, self.activation))
        del self.snapshots[: -self.max_snapshots]

    def draw(self, seat: int, rng: np.random.Generator) -> Any:
        kinds = ["snapshot", "heuristic", "random"]
        w = np.array([self.weights[k] if (k != "snapshot" or self.snapshots) else 0.0 for k in kinds])
        if w.sum() <= 0:
            w = np.array([0.0, 0.0, 1.0])
        kind = kinds[int(rng.choice(3, p=w / w.sum()))]
        seed = int(rng.integers(1 << 31))
        if kind == "heuristic":
            return self.game.heuristic_bot(seat, seed)
        if kind == "random":
            return RandomBot(seed)
        if rng.random() < self.latest_prob or len(self.snapshots) == 1:
            pol = self.snapshots[-1]
        else:
            pol = self.snapshots[int(rng.integers(len(self.snapshots) - 1))]
        return PolicyBot(pol, sample=True, seed=seed, name="snapshot")


def observation_box(game: Any) -> tuple[Any, Any]:
    """``(low, high)`` of a game's observation: ``game.observation_bounds()`` when the game declares
    it (two float32 arrays or scalars), else ``(-inf, inf)``."""
    declared = getattr(game, "observation_bounds", None)
    if callable(declared):
        low, high = declared()
        n = game.observation_size
        return (
            np.broadcast_to(np.asarray(low, np.float32), (n,)).copy(),
            np.broadcast_to(np.asarray(high, np.float32), (n,)).copy(),
        )
    return -np.inf, np.inf


class SelfPlayEnv(gym.Env):
    """Single-agent view of ``env_id`` for MaskablePPO (see module docstring).

    Args:
        env_id: a registered env id.
        num_players: player counts, one drawn per game (default: the game's standard count).
        options: the game's options.
        reward: ``"win"`` or ``"score"``.
        pool: the opponent pool (default: half heuristic, half random).
        seed: seeds the env's generator (seats, opponents, chance).
        illegal: ``"raise"`` (default) or ``"penalize"`` (the game ends, reward -1).
        render_mode: ``"ansi"`` (``render()`` returns the text) or ``"human"`` (prints it).
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        env_id: str,
        num_players: list[int] | None = None,
        options: dict | None = None,
        reward: str = "win",
        pool: OpponentPool | None = None,
        seed: int | None = None,
        illegal: str = "raise",
        render_mode: str | None = None,
    ):
        super().__init__()
        if illegal not in ("raise", "penalize"):
            raise ConfigError(f"illegal={illegal!r} is not one of ['raise', 'penalize']")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']}")
        self.illegal = illegal
        self.render_mode = render_mode
        self.env_id = env_id
        self.game = make_game(env_id, **(options or {}))
        self.players = list(num_players) if num_players else [type(self.game).default_players]
        for n in self.players:
            self.game.check_players(n)
        self.reward_mode = reward
        self.pool = pool if pool is not None else OpponentPool(self.game)
        n_obs, n_act = self.game.observation_size, self.game.num_actions
        low, high = observation_box(self.game)
        self.observation_space = gym.spaces.Box(low, high, (n_obs,), np.float32)
        self.action_space = gym.spaces.Discrete(n_act)
        self._init_seed = seed
        self.state: Any = None  # the rules State of the current game (None before the first reset)
        self.seat = 0
        self.opponents: list[Any] = []
        self._over = False
        self._zero_obs = np.zeros(n_obs, np.float32)

    # -- pool plumbing (called through VecEnv.env_method) ------------------
    def add_snapshot(self, params: list[np.ndarray]) -> None:
        self.pool.add_snapshot(params)

    def set_pool_weights(self, weights: dict[str, float]) -> None:
        self.pool.set_weights(weights)

    # -- gym API -------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None or self._np_random is None:
            super().reset(seed=seed if seed is not None else self._init_seed)
        rng = self.np_random
        while True:
            n = self.players[int(rng.integers(len(self.players)))]
            self.state = self.game.new_initial_state(n)
            self.seat = int(rng.integers(n))
            self.opponents = [None if s == self.seat else self.pool.draw(s, rng) for s in range(n)]
            self._advance()
            if not self.state.is_terminal():  # a game that ends before the learner moves is skipped
                self._over = False
                return self._obs(), {"seat": self.seat, "num_players": n, "action_mask": self.action_masks()}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions; after a finished game (before the reset) all ones, see the module docstring."""
        if self.state is None or self._over:
            return np.ones(self.action_space.n, dtype=bool)  # type: ignore[attr-defined]
        return self.state.legal_mask().astype(bool)

    def step(self, action: int):
        st = self.state
        if st is None or self._over:
            raise BoardZooError(f"{self.env_id}: call reset() before step() (and after a game ended)")
        a = as_action(action)
        n_actions = int(self.action_space.n)  # type: ignore[attr-defined]  # Discrete
        if a.__class__ is not int or not 0 <= a < n_actions or not st.legal_mask()[a]:
            if self.illegal == "raise":
                raise IllegalActionError(a, st.phase(), st.legal_actions())
            self._over = True
            return (
                self._final_obs(),
                -1.0,
                True,
                False,
                {"seat": self.seat, "win": 0.0, "illegal_action": a, "action_mask": self.action_masks()},
            )
        st.apply_action(a)
        self._advance()
        if st.is_terminal():
            self._over = True
            r = st.score_returns() if self.reward_mode == "score" else st.returns()
            info = {
                "seat": self.seat,
                "win": float(self.seat in st.winners()) / max(1, len(st.winners())),
                "action_mask": self.action_masks(),
            }
            return self._final_obs(), float(r[self.seat]), True, False, info
        return self._obs(), 0.0, False, False, {"action_mask": self.action_masks()}

    def _obs(self) -> np.ndarray:
        return np.asarray(self.state.observation(self.seat), dtype=np.float32)

    def _final_obs(self) -> np.ndarray:
        try:
            return self._obs()
        except Exception:  # some games may not encode a finished state
            return self._zero_obs

    def _advance(self) -> None:
        """Play chance and opponents until the learner must decide or the game ends."""
        st, rng = self.state, self.np_random
        while True:
            p = st.current_player()
            if p == self.seat or p == TERMINAL:
                return
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(choose(self.opponents[p], st, p, rng))

    def render(self) -> Any:  # the text (ansi), or None after printing it (human)
        if self.render_mode == "human":
            print(str(self.state), flush=True)
            return None
        return str(self.state)
