"""MaskablePPO policy with a learned skip from the game's action features to the logits.

A game may put one feature per action into its observation (``Game.action_feature_offset``: the
block ``observation[offset:offset + num_actions]``, e.g. Hydropolis's points of each legal play).
An MLP would have to learn the identity from that block to the matching logit; this policy adds it
directly: ``logits = Linear(mlp(obs)) + gain * observation[offset:offset + num_actions]`` with a
learned per-action ``gain`` (initial value ``net.action_skip``). Everything else is sb3-contrib's
``MaskableActorCriticPolicy`` (masked sampling and entropy, separate value MLP).
"""

from __future__ import annotations

from typing import Any, cast

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn


class _SkipExtractor(nn.Module):
    """SB3's MlpExtractor, with the action-feature block appended to the actor's latent."""

    def __init__(self, inner: Any, offset: int, n: int):  # SB3's MlpExtractor
        super().__init__()
        self.inner = inner
        self.offset, self.n = offset, n
        self.latent_dim_pi = inner.latent_dim_pi + n
        self.latent_dim_vf = inner.latent_dim_vf

    def _block(self, features: torch.Tensor) -> torch.Tensor:
        return features[..., self.offset : self.offset + self.n]

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.inner.forward_actor(features), self._block(features)], dim=-1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.inner.forward_critic(features)


class SkipHead(nn.Module):
    """``Linear(hidden) + gain * action_features`` over the latent ``[hidden | action_features]``."""

    def __init__(self, hidden: int, n: int, offset: int, init_gain: float):
        super().__init__()
        self.hidden, self.offset = hidden, offset
        self.linear = nn.Linear(hidden, n)
        nn.init.orthogonal_(self.linear.weight, gain=0.01)
        nn.init.zeros_(self.linear.bias)
        self.gain = nn.Parameter(torch.full((n,), float(init_gain)))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return self.linear(latent[..., : self.hidden]) + self.gain * latent[..., self.hidden :]


class ActionSkipPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` + :class:`SkipHead` (kwargs ``action_feature_offset``, ``action_skip``)."""

    def __init__(self, *args, action_feature_offset: int = 0, action_skip: float = 1.0, **kwargs):
        self.action_feature_offset = int(action_feature_offset)
        self.action_skip = float(action_skip)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        n = int(self.action_space.n)  # type: ignore[attr-defined]  # Discrete
        self.mlp_extractor = _SkipExtractor(self.mlp_extractor, self.action_feature_offset, n)  # type: ignore[assignment]

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = SkipHead(
            cast(Any, self.mlp_extractor).inner.latent_dim_pi,
            int(self.action_space.n),  # type: ignore[attr-defined]
            self.action_feature_offset,
            self.action_skip,
        )
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(action_feature_offset=self.action_feature_offset, action_skip=self.action_skip)
        return data
