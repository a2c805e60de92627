"""Hydropolis (``hydropolis_v0``): a shared pipe network of upright Waterworks cards.

Rules in RULES.md; the Game/State pair in rules.py, component data in deck_*.json (components.py),
renders in render.py and the heuristic policy in bot.py.
"""
