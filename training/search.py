"""A search bot guided by a trained network: PUCT over the rules API (``neural+search[:N]``; with a
Gumbel root, ``neural+gumbel[:N]``).

AlphaZero-style search (Silver et al. 2018) made to work for every BoardZoo game through the
``Game``/``State`` API only, with the hidden-information treatment of the IS-MCTS bot
(:mod:`boardzoo.envs.core.mcts`):

* each simulation re-deals what the searching seat cannot know (``State.resample_hidden``) and walks
  one tree shared by all determinizations, keyed by actions (open loop); chance nodes are sampled,
  never branched on;
* at a decision node of seat ``p`` the candidates are the actions legal in this determinization;
  each is scored ``Q + c * P * sqrt(N) / (1 + n)`` where ``P`` is the policy's masked softmax over
  the legal actions of ``p``'s observation (computed when the node is first reached) and ``Q`` the
  mean value for ``p`` of the child, min-max normalized over the values backed up in this
  decision's tree (as MuZero does, so that a critic trained on score differences, whose values
  span a few hundredths, steers the search as much as one trained on wins); an unvisited child
  counts as the parent's mean value for ``p`` (first-play urgency, less ``fpu_reduction``);
* a new leaf is evaluated by the value head for every seat (each seat's own observation: the
  critic's estimate of that seat's final reward) or, for a bot without a value head, by a random
  playout as in IS-MCTS (``rollout_mix`` blends such a playout's outcome into the value head's,
  AlphaGo's mixed leaf evaluation); a finished game by ``returns()`` (or ``score_returns()`` for a bot
  trained on scores); values are backed up per seat (max^n), so any number of players works;
* the chosen action is the most visited legal root action.

``root="gumbel"`` replaces PUCT at the root by sequential halving (Gumbel AlphaZero, Danihelka et al.
2022; the bot spec ``neural+gumbel``): the policy's top ``considered`` actions share the budget in
rounds, each keeping the better half by ``logit + sigma(Q)``, so every considered action is searched
however sure the prior is. A
trained policy is often that sure (Challengers: 0.93-1.0 on its pick), and PUCT then plays the
policy's move on 99% of decisions. ``prior_temperature`` divides the logits (Leela Chess Zero's
policy softmax temperature) for the same reason, at every node.

The budget is ``simulations`` per decision, optionally capped by ``seconds``; the bot never
returns a masked action. Call it through ``boardzoo.envs.core.bots.choose`` (which hands it a
state that hides the other seats' secrets) or ``act_state(state, seat)``.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from boardzoo.envs.core.game import CHANCE, TERMINAL, State

from .policy import NEG, NumpyPolicy, NumpyValue


class _Node:
    __slots__ = ("children", "prior", "visits", "value", "sums")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.prior: np.ndarray | None = None  # the mover's masked softmax over all actions
        self.visits = 0
        self.value = 0.0  # sum of the values for the seat that moved into this node
        self.sums: list[float] | None = None  # per seat sums of the values backed up through here


class SearchBot:
    """PUCT search with a policy prior and a value (see the module docstring).

    Args:
        policy: the network's policy (:class:`.policy.NumpyPolicy`).
        value: its critic (:class:`.policy.NumpyValue`), or None for random-playout leaves.
        simulations: simulations per decision.
        seconds: optional wall-clock cap per decision (at least one simulation runs).
        c_puct: exploration constant.
        fpu: value of an unvisited child for the seat to move there (only with ``normalize=False``
            and no ``fpu_reduction``: the search before 2026-12-05, ``c_puct=1.5``).
        fpu_reduction: score an unvisited child as the parent's mean value for the mover minus this
            (Leela Chess Zero's first-play urgency); with ``normalize`` None means 0.
        normalize: min-max normalize every Q by the values backed up in this decision's tree
            (MuZero), so the search does not depend on the value's scale (a score-trained critic's
            values span a few hundredths; a win-trained one's, most of [-1, 1]).
        prior_temperature: divide the policy's logits by this before the softmax (every node).
        root: ``puct``, or ``gumbel`` for sequential halving at the root (:meth:`_gumbel_root`).
        considered, c_visit, c_scale, gumbel_scale: the ``gumbel`` root's number of actions searched,
            ``sigma`` constants and Gumbel noise (0: the policy's top actions, deterministic play).
        reward: ``win`` (``returns()``) or ``score`` (``score_returns()``): what the value learned.
        rollout_steps: decisions per random playout (bots without a value head, or ``rollout_mix``).
        rollout_mix: weight of a random playout's outcome in a leaf's value, the value head's the rest
            (AlphaGo's mixed leaf evaluation, ``lambda``): 0 uses the value head alone, 1 the playout
            alone; for a critic that predicts the outcome only a little better than a constant.
        seed: the bot's own random generator.
    """

    needs_state = True

    def __init__(
        self,
        policy: NumpyPolicy,
        value: NumpyValue | None = None,
        simulations: int = 100,
        seconds: float | None = None,
        c_puct: float = 0.5,
        fpu: float = 0.0,
        fpu_reduction: float | None = None,
        normalize: bool = True,
        prior_temperature: float = 1.0,
        root: str = "puct",
        considered: int = 16,
        c_visit: float = 50.0,
        c_scale: float = 1.0,
        gumbel_scale: float = 0.0,
        reward: str = "win",
        rollout_steps: int = 400,
        rollout_mix: float = 0.0,
        seed: int | None = None,
        name: str = "neural+search",
    ):
        if simulations < 1:
            raise ValueError("SearchBot: simulations must be >= 1")
        if reward not in ("win", "score"):
            raise ValueError("SearchBot: reward must be win or score")
        self.policy, self.value_net = policy, value
        self.simulations = int(simulations)
        self.seconds = seconds
        self.c = float(c_puct)
        self.fpu = float(fpu)
        self.normalize = bool(normalize)
        if not prior_temperature > 0:
            raise ValueError("SearchBot: prior_temperature must be > 0")
        self.prior_temperature = float(prior_temperature)
        if root not in ("puct", "gumbel"):
            raise ValueError("SearchBot: root must be puct or gumbel")
        if considered < 2:
            raise ValueError("SearchBot: considered must be >= 2")
        self.root, self.considered = root, int(considered)
        self.c_visit, self.c_scale, self.gumbel_scale = float(c_visit), float(c_scale), float(gumbel_scale)
        self._parent_fpu = self.normalize or fpu_reduction is not None
        self.fpu_reduction = float(fpu_reduction or 0.0)
        self._lo, self._hi = math.inf, -math.inf  # the values backed up in this decision's tree
        self.reward = reward
        self.rollout_steps = int(rollout_steps)
        if not 0.0 <= rollout_mix <= 1.0:
            raise ValueError("SearchBot: rollout_mix must be between 0 and 1")
        self.rollout_mix = float(rollout_mix)
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.last_simulations = 0  # simulations run for the last decision
        self.last_visits: dict[int, int] = {}  # root action -> visits, for the last decision

    def reset(self) -> None:
        pass

    def act(self, observation: dict) -> int:
        raise TypeError(
            "SearchBot needs the rules state: call act_state(state, seat) or boardzoo.envs.core.bots.choose"
        )

    # ------------------------------------------------------------------ the search
    def act_state(self, state: State, seat: int) -> int:
        legal = np.flatnonzero(state.legal_mask())
        if len(legal) == 0:
            raise ValueError("SearchBot: no legal action in this state")
        if len(legal) == 1:
            self.last_simulations, self.last_visits = 0, {}
            return int(legal[0])
        root = _Node()
        self._lo, self._hi = math.inf, -math.inf
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        if self.root == "gumbel":
            return self._gumbel_root(root, state, seat, legal, deadline)
        k = 0
        while k < self.simulations:
            self._simulate(root, state.resample_hidden(seat, self.rng))
            k += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.last_simulations = k
        self.last_visits = {a: ch.visits for a, ch in root.children.items()}
        best, best_key = int(legal[0]), None
        for a in legal.tolist():
            ch = root.children.get(a)
            key = (ch.visits, ch.value / ch.visits) if ch is not None and ch.visits else (0, -math.inf)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    def _gumbel_root(self, root: _Node, state: State, seat: int, legal: np.ndarray, deadline: float | None) -> int:
        """Sequential halving with Gumbel at the root (Danihelka et al. 2022, "Policy improvement by
        planning with Gumbel"): the ``considered`` actions with the highest ``g + logit`` (``g`` Gumbel
        noise times ``gumbel_scale``; 0 plays the policy's top actions) share the budget in
        ``ceil(log2 m)`` phases, each phase keeping the better half by ``g + logit + sigma(q)``,
        ``sigma(q) = (c_visit + max visits) * c_scale * q`` with ``q`` the child's mean value for the
        seat, min-max normalized over this decision's tree (an unvisited child: the root's mean).
        The prior may be so sure (a probability of 0.99) that PUCT never visits the rest; here
        every considered action is searched, and ``sigma`` lets a clearly better value overrule it.
        Below the root the search is PUCT."""
        root.prior = self._prior(state, seat)
        logits = np.log(np.maximum(root.prior[legal], 1e-30))
        g = self.rng.gumbel(size=len(legal)) * self.gumbel_scale if self.gumbel_scale > 0 else np.zeros(len(legal))
        m = min(self.considered, len(legal))
        order = np.argsort(-(g + logits), kind="stable")[:m]
        remaining = [int(i) for i in order]  # indices into legal
        phases = max(1, math.ceil(math.log2(m)))
        used = 0

        def score(i: int) -> float:
            lo, span = (self._lo, self._hi - self._lo) if self._hi > self._lo else (0.0, 1.0)
            ch = root.children.get(int(legal[i]))
            if ch is not None and ch.visits:
                q = ch.value / ch.visits
            elif root.sums is not None and root.visits:
                q = root.sums[seat] / root.visits
            else:
                q = lo
            nmax = max((c.visits for c in root.children.values()), default=0)
            return float(g[i] + logits[i] + (self.c_visit + nmax) * self.c_scale * (q - lo) / span)

        out = False
        while len(remaining) > 1 and used < self.simulations and not out:
            if len(remaining) == 2:  # the last phase spends what is left of the budget
                per = math.ceil((self.simulations - used) / 2)
            else:
                per = max(1, self.simulations // (phases * len(remaining)))
            for i in remaining:
                for _ in range(per):
                    if used >= self.simulations:
                        break
                    self._simulate(root, state.resample_hidden(seat, self.rng), first=int(legal[i]))
                    used += 1
                    if deadline is not None and time.perf_counter() >= deadline:
                        out = True
                        break
                if out:
                    break
            remaining.sort(key=score, reverse=True)
            remaining = remaining[: max(1, math.ceil(len(remaining) / 2))]
        self.last_simulations = used
        self.last_visits = {a: ch.visits for a, ch in root.children.items()}
        return int(legal[max(remaining, key=score)])

    def _prior(self, s: State, p: int, obs: np.ndarray | None = None) -> np.ndarray:
        z = self.policy.logits(s.observation(p) if obs is None else obs) / self.prior_temperature
        z = np.where(s.legal_mask() > 0, z, NEG)
        z = np.exp(z - z.max())
        return z / z.sum()

    def _simulate(self, root: _Node, s: State, first: int | None = None) -> None:
        node = root
        path: list[tuple[_Node, int]] = []
        while True:
            if first is not None and node is root:  # the root's action is given (sequential halving)
                p = s.current_player()
                child = node.children.get(first)
                if child is None:
                    child = node.children[first] = _Node()
                s.apply_action(first)
                path.append((child, p))
                node = child
                continue
            p = s.current_player()
            if p == TERMINAL:
                values = self._final(s)
                break
            if p == CHANCE:
                s.apply_action(s.sample_chance(self.rng))
                continue
            if node.prior is None:  # a new leaf: expand it, evaluate, back up
                obs = s.observation(p)  # once for the prior and the mover's value (encoding is most of a simulation)
                node.prior = self._prior(s, p, obs)
                values = self._evaluate(s, p, obs)
                break
            legal = np.flatnonzero(s.legal_mask())
            prior = node.prior[legal]
            total = prior.sum()
            prior = prior / total if total > 0 else np.full(len(legal), 1.0 / len(legal))
            sq = math.sqrt(max(node.visits, 1))
            lo, span = (self._lo, self._hi - self._lo) if self.normalize and self._hi > self._lo else (0.0, 1.0)
            if self._parent_fpu and node.sums is not None:
                fpu = (node.sums[p] / node.visits - lo) / span - self.fpu_reduction
            else:
                fpu = self.fpu
            best_a, best_u = int(legal[0]), -math.inf
            for a, pr in zip(legal.tolist(), prior.tolist()):
                ch = node.children.get(a)
                if ch is None or ch.visits == 0:
                    u = fpu + self.c * pr * sq
                else:
                    u = (ch.value / ch.visits - lo) / span + self.c * pr * sq / (1 + ch.visits)
                if u > best_u:
                    best_a, best_u = a, u
            child = node.children.get(best_a)
            if child is None:
                child = node.children[best_a] = _Node()
            s.apply_action(best_a)
            path.append((child, p))
            node = child
        root.visits += 1
        if self.normalize:
            self._lo = min(self._lo, min(values))
            self._hi = max(self._hi, max(values))
        if self._parent_fpu:
            for nd in [root] + [nd for nd, _ in path]:
                if nd.sums is None:
                    nd.sums = list(values)
                else:
                    nd.sums = [a + b for a, b in zip(nd.sums, values)]
        for nd, p in path:
            nd.visits += 1
            nd.value += values[p]

    def _final(self, s: State) -> list[float]:
        r = s.score_returns() if self.reward == "score" else s.returns()
        return [float(v) for v in r]

    def _evaluate(self, s: State, mover: int = -1, mover_obs: np.ndarray | None = None) -> list[float]:
        """Each seat's value of leaf ``s``; ``mover_obs``, if given, is ``s.observation(mover)``."""
        n = s.num_players
        if self.value_net is not None:
            obs = np.stack([mover_obs if q == mover and mover_obs is not None else s.observation(q) for q in range(n)])
            net = [float(v) for v in np.clip(self.value_net.value(obs), -1.0, 1.0)]
            if self.rollout_mix <= 0.0:
                return net
            lam = self.rollout_mix
            return [(1.0 - lam) * a + lam * b for a, b in zip(net, self._playout(s))]
        return self._playout(s)

    def _playout(self, s: State) -> list[float]:
        """A random playout from ``s`` (which it consumes) to the end, as IS-MCTS: each seat's final value."""
        s.random_playout(self.rng.integers, self.rng, self.rollout_steps)
        if s.is_terminal():
            return self._final(s)
        try:
            return self._final(s)
        except Exception:  # an unfinished game that cannot name its leader
            return [0.0] * s.num_players


def value_reward(card: dict) -> str:
    """What a bot's value head estimates: ``win`` (``returns()``) or ``score`` (``score_returns()``):
    the card's ``training.value_reward`` (written by :mod:`.distill`), else its training reward."""
    t = card.get("training") or {}
    return str(t.get("value_reward") or t.get("reward") or "win")


def search_bot(bot: Any, simulations: int = 100, seed: int | None = None, **kwargs: Any) -> SearchBot:
    """A :class:`SearchBot` around a checked bot (:class:`.botformat.BotData`): its policy as the
    prior, its value head (if exported with one) as the leaf evaluation, the reward that value estimates
    (the card's ``training.value_reward`` when :mod:`.distill` fitted it, else its training reward)."""
    act = bot.arch["activation"]
    value = NumpyValue(bot.value_params, act) if bot.value_params is not None else None
    reward = kwargs.pop("reward", None) or value_reward(bot.card)
    return SearchBot(NumpyPolicy(bot.params, act), value, simulations=simulations, seed=seed, reward=reward, **kwargs)
