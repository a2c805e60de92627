"""The policy network as plain numpy: snapshots in the opponent pool and evaluation during training.

An SB3 ``MaskableActorCriticPolicy`` built by :mod:`boardzoo.training.train` is an MLP
``obs -> hidden (act) -> ... -> logits``. Its weights are copied into a :class:`NumpyPolicy`
(a list of ``(W, b)`` pairs) so that worker processes can play the learner's snapshots without
torch, cheaply, one observation at a time.
"""
from __future__ import annotations

from typing import Any

import numpy as np

NEG = np.float32(-1e9)


def policy_params(sb3_policy: Any) -> list[np.ndarray]:
    """Weights of the actor of an SB3 MLP policy: ``[W1, b1, W2, b2, ..., Wout, bout]``."""
    out = []
    for layer in list(sb3_policy.mlp_extractor.policy_net) + [sb3_policy.action_net]:
        if hasattr(layer, "weight"):
            out.append(layer.weight.detach().cpu().numpy().astype(np.float32).copy())
            out.append(layer.bias.detach().cpu().numpy().astype(np.float32).copy())
    return out


class NumpyPolicy:
    """Masked-softmax MLP policy in numpy.

    Args:
        params: ``[W1, b1, ..., Wout, bout]`` (torch Linear layout: W is out x in).
        activation: ``tanh`` or ``relu`` (the hidden layers').
    """

    def __init__(self, params: list[np.ndarray], activation: str = "tanh"):
        self.layers = [(np.ascontiguousarray(params[i].T), params[i + 1]) for i in range(0, len(params), 2)]
        self.activation = activation

    def logits(self, obs: np.ndarray) -> np.ndarray:
        h = np.asarray(obs, dtype=np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < last:
                h = np.tanh(h) if self.activation == "tanh" else np.maximum(h, 0)
        return h

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
        return int(rng.choice(len(p), p=p))


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
        return self.policy.act(observation["observation"], observation["action_mask"],
                               self.rng if self.sample else None)
