"""Our PPO ``RLModule`` for BoardZoo games: action masking, separate policy and value MLPs, and the
optional action-feature skip; plus the one-shared-policy config helper.

Observation dicts are ``{"observations": float32 (N,), "action_mask": int8 (A,)}``
(:class:`.env.BoardZooMultiAgentEnv`). The policy is

    logits = Linear(MLP(observations)) (+ gain * observations[offset:offset + A])
    logits[action_mask == 0] = FLOAT_MIN

so masked actions drop out of sampling, of the greedy choice and of the entropy. The value
network is a separate MLP of the same hidden sizes (as in the SB3 trainer). The actor is exactly
BoardZoo's bot architecture, so :func:`actor_params` gives the parameter list
``[W1, b1, ..., Wout, bout] (+ [gain, [offset]])`` that ``boardzoo export`` writes as a bot.

``model_config`` keys: ``hidden`` (list of sizes, default [128, 128]), ``activation`` (``tanh`` or
``relu``), ``action_skip`` (initial gain, 0 = none), ``action_feature_offset`` (where the per-action
features start; required when ``action_skip`` > 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

SHARED = "shared"


def _mlp(n_in: int, hidden: list[int], activation: str) -> nn.Sequential:
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for h in hidden:
        lin = nn.Linear(n_in, h)
        nn.init.orthogonal_(lin.weight, gain=float(np.sqrt(2)))
        nn.init.zeros_(lin.bias)
        layers += [lin, act()]
        n_in = h
    return nn.Sequential(*layers)


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """PPO RLModule with action masking and the action-feature skip (see the module docstring)."""

    def setup(self) -> None:
        cfg: dict[str, Any] = dict(self.model_config or {})  # type: ignore[arg-type]
        space: Any = self.observation_space
        if not (hasattr(space, "spaces") and {"observations", "action_mask"} <= set(space.spaces)):
            raise ValueError(
                "MaskedMLPModule needs a Dict observation space with keys 'observations' and "
                f"'action_mask' (boardzoo.integrations.rllib.BoardZooMultiAgentEnv); got {space}"
            )
        n_obs = int(space["observations"].shape[0])
        n_act = int(self.action_space.n)  # type: ignore[union-attr]
        hidden = [int(h) for h in cfg.get("hidden", [128, 128])]
        self.activation = cfg.get("activation", "tanh")
        self.pi = _mlp(n_obs, hidden, self.activation)
        self.logits = nn.Linear(hidden[-1] if hidden else n_obs, n_act)
        nn.init.orthogonal_(self.logits.weight, gain=0.01)
        nn.init.zeros_(self.logits.bias)
        self.vf = _mlp(n_obs, hidden, self.activation)
        self.value = nn.Linear(hidden[-1] if hidden else n_obs, 1)
        nn.init.orthogonal_(self.value.weight, gain=1.0)
        nn.init.zeros_(self.value.bias)
        skip = float(cfg.get("action_skip", 0.0) or 0.0)
        self.skip_offset = None
        if skip > 0:
            off = cfg.get("action_feature_offset")
            if off is None or not 0 <= int(off) <= n_obs - n_act:
                raise ValueError(f"action_skip needs action_feature_offset in [0, {n_obs - n_act}], got {off!r}")
            self.skip_offset = int(off)
            self.skip_gain = nn.Parameter(torch.full((n_act,), skip))

    def _logits(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        z = self.logits(self.pi(obs))
        if self.skip_offset is not None:
            z = z + self.skip_gain * obs[..., self.skip_offset : self.skip_offset + z.shape[-1]]
        return torch.where(mask > 0, z, torch.full_like(z, FLOAT_MIN))

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self._logits(obs["observations"].float(), obs["action_mask"])}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        x = obs["observations"].float()
        return {Columns.ACTION_DIST_INPUTS: self._logits(x, obs["action_mask"]), Columns.EMBEDDINGS: self.vf(x)}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            embeddings = self.vf(batch[Columns.OBS]["observations"].float())
        return self.value(embeddings).squeeze(-1)


def actor_params(module: MaskedMLPModule) -> list[np.ndarray]:
    """The actor as BoardZoo's parameter list ``[W1, b1, ..., Wout, bout] (+ [gain, [offset]])``
    (the layout of :mod:`boardzoo.training.policy`, which export and the opponent pool read)."""

    def arr(t: torch.Tensor) -> np.ndarray:
        return t.detach().cpu().numpy().astype(np.float32).copy()

    out = []
    for layer in [*module.pi, module.logits]:
        if isinstance(layer, nn.Linear):
            out += [arr(layer.weight), arr(layer.bias)]
    if module.skip_offset is not None:
        out += [arr(module.skip_gain), np.array([module.skip_offset], dtype=np.float32)]
    return out


def shared_policy_config(
    config: Any,
    env_id: str,
    env_config: dict | None = None,
    hidden: list[int] | None = None,
    activation: str = "tanh",
    action_skip: float = 0.0,
) -> Any:
    """Set up an ``AlgorithmConfig`` (e.g. ``PPOConfig()``) for ``env_id`` with one shared
    :class:`MaskedMLPModule` (``"shared"``) that plays every seat; returns the config.

    ``env_config`` goes to :class:`.env.BoardZooMultiAgentEnv` (``env_id`` is filled in). The env is
    registered with RLlib as ``boardzoo/<env_id>``.
    """
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from boardzoo.envs import make_game

    from .env import register_env

    env_config = dict(env_config or {})
    game = make_game(env_id, **(env_config.get("options") or {}))
    model = {
        "hidden": list(hidden or [128, 128]),
        "activation": activation,
        "action_skip": float(action_skip),
        "action_feature_offset": getattr(game, "action_feature_offset", None),
    }
    return (
        config.environment(register_env(env_id), env_config=env_config)
        .multi_agent(
            policies={SHARED}, policy_mapping_fn=lambda agent_id, episode, **kw: SHARED, policies_to_train=[SHARED]
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={SHARED: RLModuleSpec(module_class=MaskedMLPModule, model_config=model)}
            )
        )
    )
