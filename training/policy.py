"""The policy network as plain numpy: snapshots in the opponent pool and evaluation during training.

An SB3 policy built by :mod:`boardzoo.training.train` is an MLP ``obs -> hidden (act) -> ... -> logits``,
plus, when the game declares *action features* (``Game.action_feature_offset``: one observation
feature per action, such as Hydropolis's points of each play) and the config sets
``net.action_skip``, a learned per-action gain that adds those features to the logits
(:mod:`.sb3_policy`). Its weights are copied into a :class:`NumpyPolicy` so that worker processes
can play the learner's snapshots without torch, cheaply, one observation at a time.

Parameter lists are ``[W1, b1, ..., Wout, bout]`` (torch Linear layout: W is out x in), optionally
followed by the skip pair ``[gain (num_actions,), [offset]]``; :func:`split_params` tells them apart
(a pair whose first array is 1-D is the skip).
"""

from __future__ import annotations

from typing import Any

import numpy as np

NEG = np.float32(-1e9)


def policy_params(sb3_policy: Any) -> list[np.ndarray]:
    """Weights of the actor of an SB3 policy: ``[W1, b1, ..., Wout, bout]`` (+ ``[gain, [offset]]``)."""

    def arr(t: Any) -> np.ndarray:
        return t.detach().cpu().numpy().astype(np.float32).copy()

    extractor = getattr(sb3_policy.mlp_extractor, "inner", sb3_policy.mlp_extractor)
    head = sb3_policy.action_net
    out = []
    for layer in list(extractor.policy_net) + [getattr(head, "linear", head)]:
        if hasattr(layer, "weight"):
            out += [arr(layer.weight), arr(layer.bias)]
    if hasattr(head, "gain"):
        out += [arr(head.gain), np.array([head.offset], dtype=np.float32)]
    return out


def value_params(sb3_policy: Any) -> list[np.ndarray]:
    """Weights of the critic of an SB3 policy: ``[W1, b1, ..., Wv, bv]`` (its value MLP and value head)."""

    def arr(t: Any) -> np.ndarray:
        return t.detach().cpu().numpy().astype(np.float32).copy()

    extractor = getattr(sb3_policy.mlp_extractor, "inner", sb3_policy.mlp_extractor)
    out = []
    for layer in [*extractor.value_net, sb3_policy.value_net]:
        if hasattr(layer, "weight"):
            out += [arr(layer.weight), arr(layer.bias)]
    return out


def split_params(params: list[np.ndarray]) -> tuple[list[tuple[np.ndarray, np.ndarray]], tuple[int, np.ndarray] | None]:
    """``([(W, b), ...], (offset, gain) or None)`` from a parameter list (see module docstring)."""
    if len(params) % 2 or not params:
        raise ValueError("policy parameters must be [W1, b1, ..., Wout, bout] (+ [gain, [offset]])")
    pairs = [(params[i], params[i + 1]) for i in range(0, len(params), 2)]
    if any(w.ndim != 2 for w, _ in pairs[:-1]):
        raise ValueError("policy parameters must be [W1, b1, ..., Wout, bout] (+ [gain, [offset]])")
    if pairs[-1][0].ndim == 1:
        gain, off = pairs.pop()
        if len(off) != 1 or not pairs or len(gain) != len(pairs[-1][1]):
            raise ValueError("policy parameters: the skip pair must be [gain (num_actions,), [offset]]")
        return pairs, (int(off[0]), gain)
    return pairs, None


def mlp(layers: list[tuple[np.ndarray, np.ndarray]], activation: str, obs: np.ndarray) -> np.ndarray:
    """``obs -> hidden (activation) -> ... -> out`` through ``[(W^T, b), ...]`` (no activation on the last)."""
    h: np.ndarray = np.asarray(obs, dtype=np.float32)
    last = len(layers) - 1
    for i, (w, b) in enumerate(layers):
        h = h @ w + b
        if i < last:
            h = np.tanh(h) if activation == "tanh" else np.maximum(h, 0)
    return h


class NumpyPolicy:
    """Masked-softmax MLP policy in numpy.

    Args:
        params: ``[W1, b1, ..., Wout, bout]`` (+ ``[gain, [offset]]``; see the module docstring).
        activation: ``tanh`` or ``relu`` (the hidden layers').
    """

    def __init__(self, params: list[np.ndarray], activation: str = "tanh"):
        pairs, self.skip = split_params(params)
        self.layers = [(np.ascontiguousarray(w.T), b) for w, b in pairs]
        self.activation = activation

    def logits(self, obs: np.ndarray) -> np.ndarray:
        h = mlp(self.layers, self.activation, obs)
        if self.skip is not None:
            off, gain = self.skip
            x = np.asarray(obs, dtype=np.float32)
            h = h + gain * x[..., off : off + len(gain)]
        return h

    def actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Greedy actions of a batch (or of one observation: a 0-d array), like the exported bot."""
        z = np.where(np.asarray(mask) > 0, self.logits(obs), NEG)
        return np.argmax(z, axis=-1)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None = None) -> int:
        """Argmax over the legal actions, or a sample from the masked softmax when ``rng`` is given."""
        z = self.logits(obs)
        legal = np.asarray(mask) > 0
        z = np.where(legal, z, NEG)
        if rng is None:
            return int(np.argmax(z))
        z = z - z.max()
        p = np.exp(z) * legal
        p /= p.sum()
        # exactly rng.choice(len(p), p=p) (float64 CDF, one uniform, inverse CDF) without its argument
        # checks, which cost more than the rest of a decision
        cdf = p.astype(np.float64).cumsum()
        cdf /= cdf[-1]
        return int(cdf.searchsorted(rng.random(), side="right"))


class NumpyValue:
    """The critic as plain numpy: ``value(obs)`` is the expected final reward of the seat whose
    observation it is (what PPO's value head learned), for one observation or a batch.

    Args:
        params: ``[W1, b1, ..., Wv, bv]`` (:func:`value_params`, or a bot's ``value_params``).
        activation: ``tanh`` or ``relu`` (the hidden layers').
    """

    def __init__(self, params: list[np.ndarray], activation: str = "tanh"):
        if len(params) % 2 or not params:
            raise ValueError("value parameters must be [W1, b1, ..., Wv, bv]")
        self.layers = [(np.ascontiguousarray(params[i].T), params[i + 1]) for i in range(0, len(params), 2)]
        self.activation = activation

    def value(self, obs: np.ndarray) -> np.ndarray:
        return mlp(self.layers, self.activation, obs)[..., 0]


class PolicyBot:
    """The Bot protocol around a :class:`NumpyPolicy` (greedy unless ``sample``)."""

    needs_state = False

    def __init__(self, policy: NumpyPolicy, sample: bool = False, seed: int | None = None, name: str = "policy"):
        self.policy = policy
        self.rng = np.random.default_rng(seed)
        self.sample = sample
        self.name = name

    def reset(self) -> None:
        pass

    def act(self, observation: dict) -> int:
        return self.policy.act(
            observation["observation"], observation["action_mask"], self.rng if self.sample else None
        )
