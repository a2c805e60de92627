"""``get_on_board_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.get_on_board."""

from boardzoo.envs.core.registry import module_api

env, raw_env, parallel_env = module_api("get_on_board_v0")
