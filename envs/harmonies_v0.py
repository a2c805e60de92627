"""``harmonies_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.harmonies."""

from boardzoo.envs.core.registry import module_api

env, raw_env, parallel_env = module_api("harmonies_v0")
