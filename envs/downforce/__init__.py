"""Downforce (``downforce_v0``): auction, race and betting for 2-6 players; see RULES.md."""
