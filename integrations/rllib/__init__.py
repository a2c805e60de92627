"""BoardZoo on Ray RLlib (new API stack): ``pip install "boardzoo[rllib]"``.

    from ray.rllib.algorithms.ppo import PPOConfig
    from boardzoo.integrations.rllib import register_env, shared_policy_config

    name = register_env("hidden_castle_v0")            # RLlib's registry: "boardzoo/hidden_castle_v0"
    config = shared_policy_config(PPOConfig(), "hidden_castle_v0", hidden=[128, 128])
    algo = config.build_algo()
    print(algo.train()["env_runners"]["episode_return_mean"])

Pieces:

- :class:`BoardZooMultiAgentEnv` (``env.py``): a ``MultiAgentEnv`` for any registered env id that
  exposes exactly the seats that must act (one seat per step, or every deciding seat of a
  simultaneous node with ``mode="parallel"``), with observation dicts
  ``{"observations": float32, "action_mask": int8}`` (the keys of RLlib's masking modules);
  seats can be played inside the env by an opponent pool (snapshots, heuristic, random).
- :class:`MaskedMLPModule` (``module.py``): a PPO ``RLModule`` with action masking, separate
  policy and value MLPs and the optional action-feature skip (``net.action_skip``), whose actor
  exports to BoardZoo's bot format (:func:`actor_params`).
- :func:`shared_policy_config`: one shared module ``"shared"`` for every seat.
- ``train.py``: the ``backend: rllib`` trainer behind ``boardzoo train`` (local Ray or a cluster).
"""

from __future__ import annotations

from .env import ENV_PREFIX, BoardZooMultiAgentEnv, env_creator, register_env
from .module import MaskedMLPModule, actor_params, shared_policy_config

__all__ = [
    "ENV_PREFIX",
    "BoardZooMultiAgentEnv",
    "MaskedMLPModule",
    "actor_params",
    "env_creator",
    "register_env",
    "shared_policy_config",
]
