"""Any registered BoardZoo game as an RLlib ``MultiAgentEnv`` that shows only the seats that must act.

RLlib's multi-agent API (unlike PettingZoo's Parallel API, whose ``parallel_api_test`` wants an
observation for every live agent) lets an env return observations only for the agents that act
next, which is what a turn-based game is. So this env never hands out filler observations with
an all-zero mask, and no dummy action ever becomes a training sample:

- ``mode="aec"`` (default): one seat per step, the seat to move (a simultaneous node's hidden
  commits are asked one after another, exactly as the AEC form does; no seat sees another's commit).
- ``mode="parallel"``: every seat deciding at a node (``State.deciders()``) acts in the same step,
  as in the PettingZoo Parallel form; for turn-based games the two modes are the same.

Rewards: 0 while the game runs, the adapter's final reward (``reward="win"`` or ``"score"``) at
the end, delivered with a last observation to every seat that has acted in that game
(``terminateds["__all__"] = True``). A seat's reward therefore reaches it when it next acts or
at the end, which is how RLlib's ``MultiAgentEpisode`` credits turn-based agents.

Seats can be played inside the env instead of by RLlib (``learner_seats="one"``): the learner
takes one random seat per game and every other seat is drawn from an :class:`OpponentPool`
(learner snapshots pushed by the trainer, the game's heuristic, random), the same self-play
league as the SB3 trainer. With ``learner_seats="all"`` (default) every seat is an RLlib agent;
map them all to one module for mirror self-play (:func:`.module.shared_policy_config`).

Illegal actions: ``illegal="penalize"`` (default here) ends the game with -1 for the offender
and 0 for the others, as PettingZoo classic does, so RLlib's env checker (which steps an
unmasked random action) passes without ``disable_env_checking``; a masking module never plays
an illegal action. ``illegal="raise"`` raises the rules' ``IllegalActionError`` instead.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from boardzoo.envs import ConfigError, IllegalActionError, make_game, names
from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import CHANCE, TERMINAL
from boardzoo.training.gym_env import OpponentPool, observation_box

ENV_PREFIX = "boardzoo/"
MODES = ("aec", "parallel")
LEARNER_SEATS = ("all", "one")
KNOWN_KEYS = ("env_id", "num_players", "options", "reward", "illegal", "mode", "learner_seats", "pool", "seed")


class BoardZooMultiAgentEnv(MultiAgentEnv):
    """RLlib ``MultiAgentEnv`` of a registered game (see the module docstring).

    ``config`` (RLlib's ``env_config``) keys:
        env_id: a registered env id (required).
        num_players: an int or a list of counts, one drawn per game (default: the game's standard).
        options: the game's options.
        reward: ``"win"`` (default) or ``"score"``.
        illegal: ``"penalize"`` (default) or ``"raise"``.
        mode: ``"aec"`` (default) or ``"parallel"``.
        learner_seats: ``"all"`` (default) or ``"one"`` (the others from the opponent pool).
        pool: ``{"weights": {"snapshot", "heuristic", "random"}, "max_snapshots", "latest_prob",
            "activation"}`` for ``learner_seats="one"`` (default: half heuristic, half random).
        seed: seeds seats, opponents and chance when ``reset`` gets no seed.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config: dict | None = None):
        super().__init__()
        cfg = dict(config or {})
        unknown = sorted(set(cfg) - set(KNOWN_KEYS))
        if unknown:
            raise ConfigError(f"env_config: unknown key(s) {unknown}; known: {list(KNOWN_KEYS)}")
        if cfg.get("env_id") not in names():
            raise ConfigError(f"env_config: env_id={cfg.get('env_id')!r} is not registered; registered: {names()}")
        self.env_id = cfg["env_id"]
        self.game = make_game(self.env_id, **(cfg.get("options") or {}))
        n = cfg.get("num_players")
        self.players = [type(self.game).default_players] if n is None else ([n] if isinstance(n, int) else list(n))
        for k in self.players:
            self.game.check_players(k)
        self.reward_mode = cfg.get("reward", "win")
        self.illegal = cfg.get("illegal", "penalize")
        self.mode = cfg.get("mode", "aec")
        self.learner_seats = cfg.get("learner_seats", "all")
        for key, value, allowed in (
            ("reward", self.reward_mode, ("win", "score")),
            ("illegal", self.illegal, ("penalize", "raise")),
            ("mode", self.mode, MODES),
            ("learner_seats", self.learner_seats, LEARNER_SEATS),
        ):
            if value not in allowed:
                raise ConfigError(f"env_config: {key}={value!r} is not one of {list(allowed)}")
        p = dict(cfg.get("pool") or {})
        self.pool = OpponentPool(
            self.game,
            p.get("weights"),
            p.get("max_snapshots", 10),
            p.get("latest_prob", 0.5),
            p.get("activation", "tanh"),
        )
        self.possible_agents = [f"player_{i}" for i in range(max(self.players))]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents = list(self.possible_agents)
        low, high = observation_box(self.game)
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(low, high, (self.game.observation_size,), np.float32),
                "action_mask": gym.spaces.Box(0, 1, (self.game.num_actions,), np.int8),
            }
        )
        act: gym.spaces.Discrete = gym.spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: act for a in self.possible_agents}
        self._rng = np.random.default_rng(cfg.get("seed"))
        self.state: Any = None
        self._acting: list[int] = []
        self._acted: set[int] = set()
        self._opponents: list[Any] = []
        self.finished_games = 0
        self.learner_wins = 0.0

    # -- opponent pool plumbing (the trainer calls these on every env runner) --------------------
    def add_snapshot(self, params: list[np.ndarray]) -> None:
        self.pool.add_snapshot(params)

    def set_pool_weights(self, weights: dict[str, float]) -> None:
        self.pool.set_weights(weights)

    def pop_game_stats(self) -> tuple[int, float]:
        """``(finished games, learner wins)`` since the last call (a shared win counts 1/w)."""
        out = (self.finished_games, self.learner_wins)
        self.finished_games, self.learner_wins = 0, 0.0
        return out

    # -- the MultiAgentEnv API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if options:
            raise ConfigError(f"reset(options=...): {self.env_id}'s RLlib env takes no per-episode options")
        rng = self._rng
        while True:
            n = self.players[int(rng.integers(len(self.players)))]
            self.agents = self.possible_agents[:n]
            self.state = self.game.new_initial_state(n)
            if self.learner_seats == "one":
                learner = int(rng.integers(n))
                self._opponents = [None if s == learner else self.pool.draw(s, rng) for s in range(n)]
            else:
                self._opponents = [None] * n
            self._acted = set()
            self._advance()
            if not self.state.is_terminal():  # a game that ends before any learner acts is skipped
                return self._observe(), {}

    def step(self, action_dict: dict[Any, Any]):  # type: ignore[override]
        st = self.state
        if st is None or not self._acting:
            raise ConfigError(f"{self.env_id}: call reset() before step() (and after the game ended)")
        missing = [self.possible_agents[s] for s in self._acting if self.possible_agents[s] not in action_dict]
        if missing:
            raise ValueError(f"{self.env_id}: step() is missing actions for acting agents {missing}")
        rng = self._rng
        order = list(self._acting) if self.mode == "aec" else list(st.deciders())  # commit order
        for s in order:
            if self._opponents[s] is not None:  # a pool opponent deciding at the same node
                a = choose(self._opponents[s], st, s, rng)
            else:
                self._acted.add(s)
                a = int(np.asarray(action_dict[self.possible_agents[s]]))
                if not (0 <= a < self.game.num_actions and st.legal_mask()[a]):
                    if self.illegal == "raise":
                        raise IllegalActionError(a, st.phase(), st.legal_actions())
                    final = [-1.0 if i == s else 0.0 for i in range(st.num_players)]
                    return self._end(final, {self.possible_agents[s]: {"illegal_action": a}})
            st.apply_action(a)
            while st.current_player() == CHANCE:
                st.apply_action(st.sample_chance(rng))
        self._advance()
        if st.is_terminal():
            final = st.score_returns() if self.reward_mode == "score" else st.returns()
            return self._end(list(final), {})
        obs = self._observe()
        # an agent that acted before and now gets its next observation gets its (zero) reward with it
        rew = {a: 0.0 for a in obs if self._seat_of[a] in self._acted}
        return obs, rew, {"__all__": False}, {"__all__": False}, {}

    # -- internals ----------------------------------------------------------------------------------
    def _advance(self) -> None:
        """Play chance and pool opponents until a learner seat must act or the game ends; set the acting seats."""
        st, rng = self.state, self._rng
        while True:
            p = st.current_player()
            if p == TERMINAL:
                self._acting = []
                return
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            if self.mode == "parallel":
                acting = [s for s in st.deciders() if self._opponents[s] is None]
                if acting:
                    self._acting = acting
                    return
            elif self._opponents[p] is None:
                self._acting = [p]
                return
            st.apply_action(choose(self._opponents[p], st, p, rng))

    def _mask(self, seat: int) -> np.ndarray:
        st = self.state
        if st.current_player() == seat:
            return np.asarray(st.legal_mask(), dtype=np.int8).copy()
        probe = st.clone()  # a later committer of a simultaneous node: its mask after earlier commits
        while probe.current_player() != seat and probe.current_player() >= 0:
            probe.apply_action(int(np.flatnonzero(probe.legal_mask())[0]))
        return np.asarray(probe.legal_mask(), dtype=np.int8).copy()

    def _observe(self) -> dict[Any, dict]:
        st = self.state
        return {
            self.possible_agents[s]: {
                "observations": np.asarray(st.observation(s), dtype=np.float32),
                "action_mask": self._mask(s),
            }
            for s in self._acting
        }

    def _end(self, final: list[float], infos: dict):
        st, seats = self.state, sorted(self._acted)
        zero = np.zeros(self.game.num_actions, dtype=np.int8)
        obs, rew = {}, {}
        for s in seats:
            a = self.possible_agents[s]
            try:
                o = np.asarray(st.observation(s), dtype=np.float32)
            except Exception:  # a game that does not encode a finished state
                o = np.zeros(self.game.observation_size, dtype=np.float32)
            obs[a] = {"observations": o, "action_mask": zero.copy()}
            rew[a] = float(final[s])
        if self.learner_seats == "one" and seats:
            winners = st.winners() if st.is_terminal() else []
            self.finished_games += 1
            self.learner_wins += (1.0 / len(winners)) if seats[0] in winners else 0.0
        self._acting = []
        term = {a: True for a in obs}
        term["__all__"] = True
        return obs, rew, term, {"__all__": False}, infos

    def render(self) -> Any:  # the text rendering
        return str(self.state)


def env_creator(config: dict | None = None) -> BoardZooMultiAgentEnv:
    """RLlib env creator: ``tune.register_env(name, env_creator)``; ``config`` as in :class:`BoardZooMultiAgentEnv`."""
    return BoardZooMultiAgentEnv(dict(config or {}))


def register_env(env_id: str | None = None) -> str:
    """Register ``boardzoo/<env_id>`` (or every registered game when ``env_id`` is None) with RLlib's
    registry; returns the name (the last one). ``env_config`` then needs no ``env_id``."""
    from ray.tune.registry import register_env as _register

    ids = [env_id] if env_id else names()
    for eid in ids:
        if eid not in names():
            raise ConfigError(f"{eid!r} is not a registered env id; registered: {names()}")
        _register(ENV_PREFIX + eid, lambda cfg, eid=eid: BoardZooMultiAgentEnv({"env_id": eid, **dict(cfg or {})}))
    return ENV_PREFIX + ids[-1]
