"""``hidden_castle_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.hidden_castle."""

from boardzoo.envs.core.registry import module_api

env, raw_env, parallel_env = module_api("hidden_castle_v0")
