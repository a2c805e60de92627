"""``voll_verplant_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.voll_verplant."""

from boardzoo.envs.core.registry import module_api

env, raw_env, parallel_env = module_api("voll_verplant_v0")
