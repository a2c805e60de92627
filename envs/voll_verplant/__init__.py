"""Voll verplant / Metro X (``voll_verplant_v0``): flip-and-write subway game for 1-6 players.

    from boardzoo.envs import voll_verplant_v0
    env = voll_verplant_v0.env(num_players=4)           # AEC: hidden commits in seat order
    par = voll_verplant_v0.parallel_env(num_players=4)  # all seats choose in one step

Rules: RULES.md in this folder. Files: rules.py (Game + State), encoder.py (observation layout),
components.py + map_*.json / deck_*.json (validated component data), render.py, bot.py.
"""
