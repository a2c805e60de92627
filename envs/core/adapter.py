"""The one PettingZoo adapter: any :class:`~boardzoo.envs.core.game.Game` as an AEC or Parallel env.

No per-game env class and no wrapper chain: order, legality and the dead-step protocol are
handled here once, inline on the hot path. Chance nodes are advanced inside ``reset``/``step``
with the env's RNG seeded by ``reset(seed)``. Rewards come only at the end (DESIGN.md):
``reward="win"`` (+1 sole winner, 0 tied for first, -1 others; one player: scaled score) or
``reward="score"`` (own score minus the mean of the others', scaled).
"""
from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from .game import CHANCE, TERMINAL, ConfigError, Game, IllegalActionError, State

REWARD_MODES = ("win", "score")
ILLEGAL_MODES = ("raise", "penalize")


class _Core:
    """What the AEC and Parallel forms share: options, spaces, seeding, chance, rewards, render."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "is_parallelizable": True, "render_fps": 2}

    def _setup(self, game_cls: type[Game], num_players: int | None, render_mode: str | None,
               reward: str, illegal: str, options: dict[str, Any]) -> None:
        self.game = game_cls(**options)
        n = game_cls.default_players if num_players is None else num_players
        self.game.check_players(n)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']}")
        if reward not in REWARD_MODES:
            raise ConfigError(f"reward={reward!r} is not one of {list(REWARD_MODES)}")
        if illegal not in ILLEGAL_MODES:
            raise ConfigError(f"illegal={illegal!r} is not one of {list(ILLEGAL_MODES)}")
        self.num_players = int(n)
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_mode = illegal
        self.metadata = dict(self.metadata, name=self.game.env_id)
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.game.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.game.num_actions,), np.int8),
        })
        self._act_space = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.state: State | None = None
        self.record: list[Any] = []
        self._rng = np.random.default_rng()
        self._seed: int | None = None
        self._zero_mask = np.zeros(self.game.num_actions, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def _new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._seed = int(seed)
        self.state = self.game.new_initial_state(self.num_players)
        self.record = []
        self._advance_chance()

    def _advance_chance(self) -> None:
        st, rng, rec = self.state, self._rng, self.record
        while st.current_player() == CHANCE:
            outcome = st.sample_chance(rng)
            st.apply_action(outcome)
            rec.append(outcome)

    def _final_rewards(self) -> list[float]:
        st = self.state
        return st.score_returns() if self.reward_mode == "score" else st.returns()

    def _info(self, seat: int) -> dict:
        return {}

    def render(self):
        if self.render_mode is None or self.state is None:
            return None
        if self.render_mode == "ansi":
            return str(self.state)
        draw = self.game.renderer()
        if draw is None:
            raise NotImplementedError(f"{self.game.env_id} has no rgb_array renderer")
        return draw(self.state)

    def close(self) -> None:
        pass

    def save_record(self) -> dict:
        """JSON-safe game record: env id and version, options, players, seed and every action
        (chance outcomes included); replay it with ``boardzoo.envs.core.records.replay``."""
        return {"env_id": self.game.env_id, "version": self.game.version, "options": dict(self.game.options),
                "num_players": self.num_players, "seed": self._seed, "actions": list(self.record)}


class BoardZooAEC(_Core, AECEnv):
    """PettingZoo AEC form of a BoardZoo game (``boardzoo.envs.make(env_id, ...)``).

    Args:
        num_players: seats (default: the game's standard count).
        render_mode: ``"ansi"`` or ``"rgb_array"``.
        reward: ``"win"`` (default) or ``"score"``.
        illegal: ``"raise"`` (default: IllegalActionError, env unchanged) or ``"penalize"``
            (the game ends, -1 for the offender, 0 for the others).
        **options: the game's options (validated; an unknown one raises ConfigError).
    """

    def __init__(self, game_cls: type[Game], num_players: int | None = None, render_mode: str | None = None,
                 reward: str = "win", illegal: str = "raise", **options: Any):
        AECEnv.__init__(self)
        self._setup(game_cls, num_players, render_mode, reward, illegal, options)
        self.agents = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: self._info(i) for i, a in enumerate(self.agents)}
        self._skip_agent_selection = None
        self._select()

    def _select(self) -> None:
        p = self.state.current_player()
        if p == TERMINAL:
            self._finish(self._final_rewards())
        else:
            self.agent_selection = self.possible_agents[p]

    def _finish(self, final: list[float]) -> None:
        for i, a in enumerate(self.possible_agents):
            if a in self.rewards:
                self.rewards[a] = final[i]
                self.terminations[a] = True
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        st = self.state
        if st.current_player() == seat:
            return {"observation": st.observation(seat), "action_mask": st.legal_mask()}
        return {"observation": st.observation(seat), "action_mask": self._zero_mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state
        if action.__class__ is not int and isinstance(action, np.integer):
            action = int(action)
        m = st._mask
        if m is None:
            m = st.legal_mask()
        # legality inline (the hot path): an int in range whose mask bit is set
        if action.__class__ is not int or not 0 <= action < len(m) or not m[action]:
            if self.illegal_mode == "penalize":
                self._clear_rewards()
                self._cumulative_rewards[agent] = 0.0
                seat = self._seat[agent]
                self._finish([-1.0 if i == seat else 0.0 for i in range(self.num_players)])
                self.infos[agent] = {"illegal_action": action}
                return
            raise IllegalActionError(action, st.phase(), st.legal_actions(), st._safe_name)
        self._cumulative_rewards[agent] = 0.0
        st._apply(action)
        st._mask = None
        rec = self.record
        rec.append(action)
        p = st.current_player()
        if p == CHANCE:
            rng = self._rng
            while p == CHANCE:
                outcome = st.sample_chance(rng)  # sampled by the rules: legal by construction
                st._apply(outcome)
                st._mask = None
                rec.append(outcome)
                p = st.current_player()
        if p == TERMINAL:
            self._finish(self._final_rewards())
        else:
            self.agent_selection = self.possible_agents[p]


class BoardZooParallel(_Core, ParallelEnv):
    """PettingZoo Parallel form: every seat deciding at a node (``State.deciders()``) acts in one
    step; actions of seats that are not deciding are ignored. Simultaneous commits are applied in
    seat order, exactly as the AEC form collects them."""

    def __init__(self, game_cls: type[Game], num_players: int | None = None, render_mode: str | None = None,
                 reward: str = "win", illegal: str = "raise", **options: Any):
        self._setup(game_cls, num_players, render_mode, reward, illegal, options)
        self.agents = []

    def _all_obs(self) -> dict[str, dict]:
        st = self.state
        deciders = set(st.deciders())
        out = {}
        for i, a in enumerate(self.possible_agents):
            if i in deciders:
                mask = self._decider_mask(i)
            else:
                mask = self._zero_mask
            out[a] = {"observation": st.observation(i), "action_mask": mask}
        return out

    def _decider_mask(self, seat: int) -> np.ndarray:
        st = self.state
        if st.current_player() == seat:
            return st.legal_mask()
        probe = st.clone()
        # Let the earlier committers "commit" their first legal action in a private copy only to
        # read this seat's mask; the real state is not touched and nothing leaks.
        while probe.current_player() != seat and probe.current_player() >= 0:
            probe.apply_action(int(np.flatnonzero(probe.legal_mask())[0]))
        return probe.legal_mask().copy()

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        return self._all_obs(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]):
        st = self.state
        deciders = st.deciders()
        missing = [self.possible_agents[s] for s in deciders if self.possible_agents[s] not in actions]
        if missing:
            raise ValueError(f"parallel step is missing actions for deciding agents {missing}")
        backup, rec_len = st.clone(), len(self.record)
        try:
            for s in deciders:
                assert st.current_player() == s, "deciders() must list seats in commit order"
                a = actions[self.possible_agents[s]]
                st.apply_action(a)
                self.record.append(int(a))
                self._advance_chance()
        except IllegalActionError:
            self.state = backup
            del self.record[rec_len:]
            if self.illegal_mode == "penalize":
                bad = self.possible_agents[s]
                rew = {a: (-1.0 if a == bad else 0.0) for a in self.agents}
                obs = self._all_obs()
                term = {a: True for a in self.agents}
                self.agents = []
                return obs, rew, term, {a: False for a in term}, {a: {} for a in term}
            raise
        obs = self._all_obs()
        if st.is_terminal():
            fin = self._final_rewards()
            rew = {a: fin[i] for i, a in enumerate(self.possible_agents) if a in self.agents}
            term = {a: True for a in self.agents}
            self.agents = []
        else:
            rew = {a: 0.0 for a in self.agents}
            term = {a: False for a in self.agents}
        return obs, rew, term, {a: False for a in term}, {a: {} for a in term}
