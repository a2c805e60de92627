"""One Bot protocol for every bot: random, heuristic, search and neural.

``Bot.act(observation) -> action`` where ``observation`` is the env's dict
(``{"observation": float32[...], "action_mask": int8[...]}``). Bots that reason over the rules
(heuristics, search) also implement ``act_state(state, seat)``; they receive a state whose hidden
parts were re-dealt with ``resample_hidden(seat, rng)`` (see :func:`choose`), so they cannot
cheat even by accident.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .game import State


@runtime_checkable
class Bot(Protocol):
    def act(self, observation: dict) -> int: ...


class RandomBot:
    """Uniform over the legal actions (seeded)."""

    needs_state = False

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        pass

    def act(self, observation: dict) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if len(legal) == 0:
            raise ValueError("RandomBot.act: the action mask has no legal action")
        return int(legal[self.rng.integers(len(legal))])

    def act_state(self, state: State, seat: int) -> int:
        return self.act({"action_mask": state.legal_mask()})


class HeuristicBot:
    """Wraps a game's rule-based policy ``policy(state, seat, rng) -> action``.

    The policy sees a determinized state (hidden parts re-dealt) so it plays only on what its
    seat knows; a game whose heuristic is checked to read only that (``GameSpec.fair_heuristic``)
    lets it see the real state instead (``needs_view = False``). ``act(observation)`` works only
    inside :func:`choose` or an env that passes the state; use ``act_state`` directly otherwise.
    """

    needs_state = True
    needs_view = True  # False: the policy reads only its seat's knowledge (GameSpec.fair_heuristic)

    def __init__(
        self, policy: Callable[[Any, int, np.random.Generator], int], seed: int | None = None, name: str = "heuristic"
    ):
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.name = name

    def reset(self) -> None:
        pass

    def act_state(self, state: State, seat: int) -> int:
        return int(self.policy(state, seat, self.rng))

    def act(self, observation: dict) -> int:
        raise TypeError(
            "HeuristicBot needs the rules state: call act_state(state, seat) or use "
            "boardzoo.envs.core.bots.choose / act_in_env"
        )


def choose(bot: Any, state: State, seat: int, rng: np.random.Generator | None = None) -> int:
    """Ask ``bot`` for ``seat``'s action in ``state`` without letting it see hidden information:
    a bot that reads the rules state gets a ``resample_hidden`` view, unless it declares
    ``needs_view = False`` (a heuristic its game declares fair: ``GameSpec.fair_heuristic``)."""
    if getattr(bot, "needs_state", False):
        if not getattr(bot, "needs_view", True):
            return int(bot.act_state(state, seat))
        view = state.resample_hidden(seat, rng if rng is not None else np.random.default_rng())
        return int(bot.act_state(view, seat))
    return int(bot.act({"observation": state.observation(seat), "action_mask": state.legal_mask()}))


def act_in_env(bot: Any, env: Any, agent: str | None = None) -> int:
    """The bot's action for ``agent`` (default: the agent to move) of a BoardZoo PettingZoo env."""
    raw = env.unwrapped
    agent = raw.agent_selection if agent is None else agent
    seat = raw.possible_agents.index(agent)
    return choose(bot, raw.state, seat, getattr(bot, "rng", None))
