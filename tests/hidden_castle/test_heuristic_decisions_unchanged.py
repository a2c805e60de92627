"""The Hidden Castle heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots; 2-4 players, base game and Midnight Party) hash to stored values: a speed
change to the heuristic (``bot.py``) must leave every action and every draw of the bot's generator
(its tie breaks) unchanged. Each record is the action and the generator's state after the
decision."""

from __future__ import annotations

from heuristic_pins import pin_test  # tests/core/heuristic_pins.py

from boardzoo.envs.hidden_castle.rules import HiddenCastleGame

MIDNIGHT = {"midnight_party": True}

# (options, heuristic style, players, heuristic in every seat, seed, first 16 hex digits of the
# SHA-256 of the decision records)
test_heuristic_decisions_unchanged = pin_test(
    HiddenCastleGame,
    [
        ({}, {}, 2, True, 1, "500217f35d1c369f"),
        ({}, {}, 3, True, 2, "41e34c3c80e1de28"),
        ({}, {}, 4, False, 3, "92e29acc02214300"),
        (MIDNIGHT, {}, 2, False, 4, "d4933dacfe607cdd"),
        (MIDNIGHT, {}, 3, True, 5, "aec44f1d872a6129"),
        (MIDNIGHT, {}, 4, True, 6, "f42a82ebe397489d"),
    ],
)
