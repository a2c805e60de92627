"""Get on Board: New York (``get_on_board_v0``): rules (rules.py), component data (data.py,
components.json, maps/), renders (render.py), heuristic bot (bot.py); users' rules in RULES.md."""
