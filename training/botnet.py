"""The bot's torch module, rebuilt by our code from a card's ``architecture`` (never unpickled).

``BotNet(arch)`` has exactly the tensors of :func:`.botformat.tensor_shapes` as its state dict;
``forward(observation, action_mask) -> action`` is the argmax of the logits over the legal actions
(``action_mask > 0``). Leading dimensions are free: ``(N,) -> ()`` for one observation,
``(B, N) -> (B,)`` for a batch. Observations of any real dtype are cast to float32 (float64 gives
the same actions as its float32 cast); the mask may be int8, bool or any numeric dtype.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

NEG = -1e9


class BotNet(nn.Module):
    """MLP policy of :func:`.botformat.architecture`: logits = MLP(obs) [+ skip_gain * obs[offset:offset+A]]."""

    skip_gain: torch.Tensor | None

    def __init__(self, arch: dict):
        super().__init__()
        sizes = [arch["input_size"], *arch["hidden"], arch["num_actions"]]
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))
        self.activation = arch["activation"]
        self.num_actions = arch["num_actions"]
        skip = arch.get("action_skip")
        self.skip_offset = -1 if skip is None else int(skip["offset"])
        # a None buffer is not in the state dict: the tensors are exactly the card's
        self.register_buffer("skip_gain", None if skip is None else torch.zeros(arch["num_actions"]))
        vh = arch.get("value_head")
        vsizes = [] if vh is None else [arch["input_size"], *vh["hidden"], 1]
        # the critic (value_layers.{i}): empty when the bot has no value head
        self.value_layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(vsizes[:-1], vsizes[1:]))

    def _mlp(self, layers: nn.ModuleList, x: torch.Tensor) -> torch.Tensor:
        h = x
        last = len(layers) - 1
        for i, lin in enumerate(layers):
            h = lin(h)
            if i < last:
                h = torch.tanh(h) if self.activation == "tanh" else torch.relu(h)
        return h

    def logits(self, observation) -> torch.Tensor:
        x = torch.as_tensor(observation).to(torch.float32)
        h = self._mlp(self.layers, x)
        if self.skip_gain is not None:
            h = h + self.skip_gain * x[..., self.skip_offset : self.skip_offset + self.num_actions]
        return h

    @property
    def has_value(self) -> bool:
        return len(self.value_layers) > 0

    def value(self, observation) -> torch.Tensor:
        """The critic's estimate of the final reward of the seat whose observation it is
        (``(N,) -> ()``, ``(B, N) -> (B,)``); only for bots exported with a value head."""
        if not self.has_value:
            raise ValueError("this bot has no value head (exported from a run without one)")
        return self._mlp(self.value_layers, torch.as_tensor(observation).to(torch.float32))[..., 0]

    def forward(self, observation, action_mask) -> torch.Tensor:
        z = self.logits(observation)
        legal = torch.as_tensor(np.asarray(action_mask) if not torch.is_tensor(action_mask) else action_mask) > 0
        z = torch.where(legal, z, torch.full_like(z, NEG))
        return torch.argmax(z, dim=-1)


def build(arch: dict, tensors: dict[str, np.ndarray]) -> BotNet:
    """A :class:`BotNet` holding ``tensors`` (checked against ``arch`` by :mod:`.botformat`)."""
    module = BotNet(arch)
    module.load_state_dict(
        {k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in tensors.items()}, strict=True
    )
    return module.eval()
