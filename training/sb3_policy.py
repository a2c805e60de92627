"""MaskablePPO policies: sb3-contrib's masked actor-critic with a lean masked head, and with a learned
skip from the game's action features to the logits.

:class:`LeanMaskedPolicy` (``net.action_skip: 0``) is sb3-contrib's ``MaskableActorCriticPolicy`` whose
``forward`` (the rollout) and ``evaluate_actions`` (the PPO update) compute the masked categorical
from the logits directly, with the same tensor operations in the same order as sb3-contrib's
``MaskableCategorical`` (logits normalized, masked to -1e8, normalized again; softmax; one
``torch.multinomial`` draw), so actions, log-probabilities, entropies, values and their gradients
are bit for bit those of the parent class under the same torch generator; what it leaves out is
building three ``torch.distributions`` objects and validating their arguments per call.

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


_HUGE_NEG = -1e8  # sb3-contrib's MaskableCategorical value for a masked logit


class LeanMaskedPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with a lean masked head (see the module docstring)."""

    def _masked_logits(self, latent_pi: torch.Tensor, action_masks: Any) -> tuple[torch.Tensor, torch.Tensor | None]:
        """MaskableCategorical's final logits (and the boolean masks) for ``latent_pi``."""
        raw = self.action_net(latent_pi).view(-1, int(self.action_space.n))  # type: ignore[attr-defined]
        logits = raw - raw.logsumexp(dim=-1, keepdim=True)  # Categorical(logits=raw)
        masks = None
        if action_masks is not None:  # apply_masking(masks): where(...) on the first normalized logits
            masks = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
            logits = torch.where(masks, logits, torch.tensor(_HUGE_NEG, dtype=logits.dtype, device=logits.device))
        return logits - logits.logsumexp(dim=-1, keepdim=True), masks  # the re-initialized Categorical

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = self.extract_features(obs)
        if self.share_features_extractor:
            return self.mlp_extractor(features)
        pi_features, vf_features = features
        return self.mlp_extractor.forward_actor(pi_features), self.mlp_extractor.forward_critic(vf_features)

    def forward(
        self, obs: torch.Tensor, deterministic: bool = False, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logits, _ = self._masked_logits(latent_pi, action_masks)
        probs = torch.softmax(logits, dim=-1)
        if deterministic:
            actions = torch.argmax(probs, dim=1)
        else:
            actions = torch.multinomial(probs, 1, True).T.reshape(-1)
        log_prob = logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob  # type: ignore[misc]

    def evaluate_actions(
        self, obs: torch.Tensor, actions: torch.Tensor, action_masks: Any = None
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        latent_pi, latent_vf = self._latents(obs)
        logits, masks = self._masked_logits(latent_pi, action_masks)
        log_prob = logits.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        values = self.value_net(latent_vf)
        probs = torch.softmax(logits, dim=-1)
        if masks is None:  # Categorical.entropy
            p_log_p = torch.clamp(logits, min=torch.finfo(logits.dtype).min) * probs
        else:  # MaskableCategorical.entropy: masked actions contribute nothing
            p_log_p = torch.where(masks, logits * probs, torch.tensor(0.0, device=logits.device))
        return values, log_prob, -p_log_p.sum(-1)


class ActionSkipPolicy(LeanMaskedPolicy):
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
