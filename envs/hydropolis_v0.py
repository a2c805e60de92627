"""``hydropolis_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.hydropolis."""

from boardzoo.envs.core.registry import module_api

env, raw_env, parallel_env = module_api("hydropolis_v0")
