"""A search bot for every game: information-set MCTS over the rules API (no RL library).

Each simulation re-deals what the searching seat cannot know (``State.resample_hidden``), then
walks one tree shared by all determinizations (single-observer IS-MCTS, Cowling et al. 2012):

* a node's children are keyed by the action taken there; in a determinization only the actions
  legal in it are candidates, and UCB uses each child's *availability* count (how often it was
  legal when its parent was visited) instead of the parent's visit count;
* chance nodes are not branched on: an outcome is sampled and the walk goes on (open loop);
* a leaf is expanded by one untried legal action, then a random playout (up to
  ``rollout_steps`` decisions) gives the returns of every seat (``State.returns()``: +1 sole
  winner, 0 shared win, -1 others); a playout cut short is scored by the current leader
  (``returns()`` of the unfinished state when the game can tell, else 0 for everybody);
* each node keeps the value for the seat that moved into it (max^n backup), so the bot works for
  any number of players.

The bot implements the one Bot protocol with ``needs_state = True``: call it through
``boardzoo.envs.core.bots.choose`` (which already hides the other seats' secrets) or
``act_state(state, seat)``. The simulation budget sets its strength and its cost.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from .game import CHANCE, TERMINAL, State


class _Node:
    __slots__ = ("children", "visits", "value", "avail")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0  # sum of returns for the seat that moved into this node
        self.avail = 0  # times this node's action was legal when its parent was visited


class MCTSBot:
    """Determinized (information-set) UCT with random playouts.

    Args:
        simulations: playouts per decision (the budget).
        c: UCB exploration constant (returns lie in [-1, 1]).
        rollout_steps: at most this many decisions per playout (chance steps not counted).
        seed: seed of the bot's own random generator.
        name: label used by tournaments.
    """

    needs_state = True

    def __init__(
        self,
        simulations: int = 100,
        c: float = 1.4,
        rollout_steps: int = 400,
        seed: int | None = None,
        name: str = "mcts",
    ):
        if simulations < 1:
            raise ValueError("MCTSBot: simulations must be >= 1")
        self.simulations = int(simulations)
        self.c = float(c)
        self.rollout_steps = int(rollout_steps)
        self.rng = np.random.default_rng(seed)
        self._py = random.Random(int(self.rng.integers(1 << 62)))
        self.name = name

    def reset(self) -> None:
        pass

    def act(self, observation: dict) -> int:
        raise TypeError(
            "MCTSBot needs the rules state: call act_state(state, seat) or use "
            "boardzoo.envs.core.bots.choose / act_in_env"
        )

    def act_state(self, state: State, seat: int) -> int:
        """The most visited legal root action after ``simulations`` determinized playouts."""
        legal = np.flatnonzero(state.legal_mask())
        if len(legal) == 0:
            raise ValueError("MCTSBot: no legal action in this state")
        if len(legal) == 1:
            return int(legal[0])
        root = _Node()
        for _ in range(self.simulations):
            self._simulate(root, state.resample_hidden(seat, self.rng))
        best, best_key = int(legal[0]), None
        for a in legal.tolist():
            ch = root.children.get(a)
            if ch is None:
                continue
            key = (ch.visits, ch.value / max(ch.visits, 1))
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    # ---------------------------------------------------------------- internals
    def _simulate(self, root: _Node, s: State) -> None:
        rng, py, c = self.rng, self._py, self.c
        node = root
        path: list[tuple[_Node, int]] = []
        expanded = False
        while True:
            p = s.current_player()
            if p == TERMINAL:
                break
            if p == CHANCE:
                s.apply_action(s.sample_chance(rng))
                continue
            legal = np.flatnonzero(s.legal_mask()).tolist()
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                ch = children.get(a)
                if ch is not None:
                    ch.avail += 1
            if untried:
                a = untried[py.randrange(len(untried))]
                child = _Node()
                child.avail = 1
                children[a] = child
                s.apply_action(a)
                path.append((child, p))
                expanded = True
                break
            best_a, best_u = legal[0], -math.inf
            for a in legal:
                ch = children[a]
                u = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                if u > best_u:
                    best_a, best_u = a, u
            s.apply_action(best_a)
            node = children[best_a]
            path.append((node, p))
        if expanded:
            self._rollout(s)
        value = self._value(s)
        for nd, p in path:
            nd.visits += 1
            nd.value += value[p]

    def _rollout(self, s: State) -> None:
        s.random_playout(self._py.randrange, self.rng, self.rollout_steps)

    @staticmethod
    def _value(s: State) -> list[float]:
        try:
            return [float(v) for v in s.returns()]
        except Exception:  # an unfinished game that cannot name its leader
            return [0.0] * s.num_players


def mcts_bot(simulations: int = 100, seed: int | None = None, **kwargs: Any) -> MCTSBot:
    """Convenience constructor mirroring ``Game.heuristic_bot``."""
    return MCTSBot(simulations=simulations, seed=seed, **kwargs)
