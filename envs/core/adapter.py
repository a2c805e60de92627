"""The one PettingZoo adapter: any :class:`~boardzoo.envs.core.game.Game` as an AEC or Parallel env.

No per-game env class and no wrapper chain: order, legality and the dead-step protocol are
handled here once, inline on the hot path. Chance nodes are advanced inside ``reset``/``step``
with the env's RNG seeded by ``reset(seed)``. Rewards come only at the end (DESIGN.md):
``reward="win"`` (+1 sole winner, 0 tied for first, -1 others; one player: scaled score) or
``reward="score"`` (own score minus the mean of the others', scaled, never above a winner's).

Arrays handed out (observations, masks) are fresh copies the caller owns: writing into them
changes nothing in the env, whose legality check always reads its own mask. Lifecycle misuse
(``step`` before ``reset`` or after the game is over) raises :class:`BoardZooError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from .game import CHANCE, TERMINAL, BoardZooError, ConfigError, Game, IllegalActionError, State, as_action

_F32 = np.dtype(np.float32)

REWARD_MODES = ("win", "score")
ILLEGAL_MODES = ("raise", "penalize")


class _Core:
    """What the AEC and Parallel forms share: options, spaces, seeding, chance, rewards, render."""

    # is_parallelizable: PettingZoo's aec_to_parallel needs every agent to act in every cycle, in
    # order, and reads all observations before any step; no BoardZoo game has that shape (turns,
    # chance and sub-steps), so it is False, and the conformance suite checks that the converter
    # indeed fails whenever it is False and works whenever a game would claim it. Games with
    # simultaneous decisions offer their own Parallel form instead (``parallel_env()``).
    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def _setup(
        self,
        game_cls: type[Game],
        num_players: int | None,
        render_mode: str | None,
        reward: str,
        illegal: str,
        options: dict[str, Any],
    ) -> None:
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
        low, high = self.game.observation_bounds()  # the layout's declared ranges
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, (self.game.observation_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), np.int8),
            }
        )
        self._act_space: spaces.Discrete = spaces.Discrete(self.game.num_actions)
        self.observation_spaces = {a: self._obs_space for a in self.possible_agents}
        self.action_spaces = {a: self._act_space for a in self.possible_agents}
        self.state: State = None  # type: ignore[assignment]  # None until reset()
        self.record: list[Any] = []
        self._rng = np.random.default_rng()
        self._seed: int | None = None
        self._start: dict | None = None
        self._penalty: dict | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_space

    def _new_game(self, seed: int | None, options: dict | None) -> None:
        start = self._episode_options(options)
        if seed is None:
            # a fresh seed drawn from the env's generator, so every game's record names the seed
            # that reproduces it (and unseeded resets still differ from one another)
            seed = int(self._rng.integers(2**63 - 1))
        else:
            seed = as_action(seed)
            if seed.__class__ is not int or seed < 0:
                raise ConfigError(f"reset(seed={seed!r}): the seed must be a non-negative int or None")
        self._rng = np.random.default_rng(seed)
        self._seed = seed
        self._start = start
        self.state = (
            self.game.new_initial_state(self.num_players) if start is None else self.game.state_from_dict(start)
        )
        self.record = []
        self._penalty = None
        self._advance_chance()

    EPISODE_OPTIONS = ("state",)

    def _episode_options(self, options: dict | None) -> dict | None:
        """Per-episode options of ``reset(options=...)``: ``{"state": saved}`` starts the episode
        from a saved state (``State.to_dict()``, validated like ``Game.state_from_dict``; the
        player count must be the env's). Unknown keys are not applied: they raise ConfigError,
        except the probe PettingZoo's api_test sends, which only warns."""
        if not options:
            return None
        if not isinstance(options, dict):
            raise ConfigError(f"reset(options=...) takes a dict, got {type(options).__name__}")
        unknown = sorted(map(str, set(options) - set(self.EPISODE_OPTIONS)))
        if unknown:
            msg = (
                f"reset(options=...): unknown per-episode option(s) {unknown}; {self.game.env_id} accepts "
                f"{list(self.EPISODE_OPTIONS)} (game options are fixed when the env is made)"
            )
            if options != {"options": 1}:
                raise ConfigError(msg)
            import warnings  # PettingZoo's api_test probes reset's signature with {"options": 1}

            warnings.warn(msg + "; ignored", UserWarning, stacklevel=4)
        start = options.get("state")
        if start is not None:
            if not isinstance(start, dict) or start.get("num_players") != self.num_players:
                raise ConfigError(
                    f"reset(options={{'state': ...}}): the saved state must be a dict for "
                    f"num_players={self.num_players}"
                )
            self.game.state_from_dict(start)  # validated before anything changes
        return start

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
        if self.render_mode == "human":  # the text rendering, printed
            print(str(self.state), flush=True)
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
        rec = {
            "env_id": self.game.env_id,
            "version": self.game.version,
            "options": dict(self.game.options),
            "num_players": self.num_players,
            "seed": self._seed,
            "actions": list(self.record),
        }
        if self._start is not None:
            rec["start"] = self._start
        if self._penalty is not None:
            rec["penalty"] = dict(self._penalty)
        return rec

    def _penalize(self, seat: int, action: Any) -> list[float]:
        """``illegal="penalize"``: the game ends, -1 for the offender, 0 for the others; the record
        carries the penalty so that it replays to the same outcome."""
        shown = action if action.__class__ is int else repr(action)
        self._penalty = {"seat": seat, "action": shown}
        return [-1.0 if i == seat else 0.0 for i in range(self.num_players)]

    def _not_running(self, what: str) -> BoardZooError:
        if self.state is None:
            return BoardZooError(f"{self.game.env_id}: call reset() before {what}")
        return BoardZooError(f"{self.game.env_id}: the game is over; call reset() to start a new one before {what}")


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

    def __init__(
        self,
        game_cls: type[Game],
        num_players: int | None = None,
        render_mode: str | None = None,
        reward: str = "win",
        illegal: str = "raise",
        **options: Any,
    ):
        AECEnv.__init__(self)
        self._setup(game_cls, num_players, render_mode, reward, illegal, options)
        self.agents: list[str] = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(seed, options)
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
        st = self.state
        if st is None:
            raise self._not_running("observe()")
        seat = self._seat.get(agent)
        if seat is None:
            raise BoardZooError(f"{self.game.env_id}: no agent {agent!r}; agents are {self.possible_agents}")
        obs = st.observation(seat)  # a fresh float32 array (the encoder's contract): the caller owns it
        if obs.dtype is not _F32:  # a game without an encoder (tests' toy games) may hand out others
            obs = obs.astype(np.float32)
        if st.current_player() == seat:  # a decision node: State.legal_mask() without asking again
            m = st._mask
            if m is None:
                m = st._mask = st._legal_mask()
            return {"observation": obs, "action_mask": m.copy()}
        return {"observation": obs, "action_mask": np.zeros(self.game.num_actions, dtype=np.int8)}

    def step(self, action: int | None) -> None:
        if not self.agents:
            raise self._not_running("step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.state
        if action.__class__ is not int:
            action = as_action(action)
        m = st._mask
        if m is None:
            m = st.legal_mask()
        # legality inline (the hot path): an int in range whose mask bit is set
        if action.__class__ is not int or not 0 <= action < len(m) or not m[action]:
            if self.illegal_mode == "penalize":
                self._clear_rewards()
                self._cumulative_rewards[agent] = 0.0
                seat = self._seat[agent]
                self._finish(self._penalize(seat, action))
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
    step; simultaneous commits are applied in seat order, exactly as the AEC form collects them.

    Every live agent gets an observation at every step, as PettingZoo's ``parallel_api_test``
    requires (it samples an action for each live agent); a seat that is not deciding gets an
    all-zero mask and its action is ignored.
    """

    def __init__(
        self,
        game_cls: type[Game],
        num_players: int | None = None,
        render_mode: str | None = None,
        reward: str = "win",
        illegal: str = "raise",
        **options: Any,
    ):
        self._setup(game_cls, num_players, render_mode, reward, illegal, options)
        self.agents: list[str] = []

    def _obs(self, seats) -> dict[str, dict]:
        st = self.state
        deciders = set(st.deciders())
        out = {}
        for i in seats:
            if i in deciders:
                mask = self._decider_mask(i).copy()
            else:
                mask = np.zeros(self.game.num_actions, dtype=np.int8)
            out[self.possible_agents[i]] = {
                "observation": st.observation(i).astype(np.float32, copy=False),  # fresh (encoder contract)
                "action_mask": mask,
            }
        return out

    def _all_obs(self) -> dict[str, dict]:
        return self._obs(range(self.num_players))

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
        self._new_game(seed, options)
        self.agents = list(self.possible_agents)
        return self._all_obs(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]):
        if not self.agents:
            raise self._not_running("step()")
        if not isinstance(actions, dict):
            raise BoardZooError(f"parallel step takes a dict agent -> action, got {type(actions).__name__}")
        st = self.state
        deciders = st.deciders()
        missing = [self.possible_agents[s] for s in deciders if self.possible_agents[s] not in actions]
        if missing:
            raise ValueError(f"parallel step is missing actions for deciding agents {missing}")
        backup, rec_len = st.clone(), len(self.record)
        try:
            for s in deciders:
                assert st.current_player() == s, "deciders() must list seats in commit order"
                a = as_action(actions[self.possible_agents[s]])
                st.apply_action(a)
                self.record.append(a)
                self._advance_chance()
        except IllegalActionError:
            self.state = backup
            del self.record[rec_len:]
            if self.illegal_mode == "penalize":
                fin = self._penalize(s, as_action(actions[self.possible_agents[s]]))
                rew = {a: fin[i] for i, a in enumerate(self.possible_agents) if a in self.agents}
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
