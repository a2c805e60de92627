"""The Get on Board heuristic's decisions pinned (``tests/core/heuristic_pins.py``: several player
counts, heuristic in every seat and against random bots). The values were computed before the
speed work of 2026-12-07 (at f2b8c9a) and again after it: the same."""

from __future__ import annotations

from heuristic_pins import pin_test  # tests/core/heuristic_pins.py

from boardzoo.envs.get_on_board.rules import GetOnBoardGame

# (options, heuristic style, players, heuristic in every seat, seed, first 16 hex digits of the
# SHA-256 of the decision records)
test_heuristic_decisions_unchanged = pin_test(
    GetOnBoardGame,
    [
        ({}, {}, 2, True, 1, "c4759e74cb102b96"),
        ({}, {}, 3, True, 2, "c68792a1f5050243"),
        ({}, {}, 2, False, 3, "914867f71e6273f6"),
        ({}, {}, 3, False, 4, "9d78bb9f8502541c"),
    ],
)
