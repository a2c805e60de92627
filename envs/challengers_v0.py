"""``challengers_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.challengers."""

from boardzoo.envs.core.registry import module_api

env, raw_env, parallel_env = module_api("challengers_v0")
