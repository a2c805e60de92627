"""The Harmonies heuristic's decisions pinned (``tests/core/heuristic_pins.py``: several player
counts, heuristic in every seat and against random bots). The values were computed before the
speed work of 2026-12-07 (at f2b8c9a) and again after it: the same."""

from __future__ import annotations

from heuristic_pins import pin_test  # tests/core/heuristic_pins.py

from boardzoo.envs.harmonies.rules import HarmoniesGame

# (options, heuristic style, players, heuristic in every seat, seed, first 16 hex digits of the
# SHA-256 of the decision records)
test_heuristic_decisions_unchanged = pin_test(
    HarmoniesGame,
    [
        ({}, {}, 2, True, 1, "25253dc64bf3dccc"),
        ({}, {}, 3, True, 2, "6305201f305e9e4c"),
        ({}, {}, 4, True, 3, "3fc7e65fcd527778"),
        ({}, {}, 2, False, 4, "363306946016670b"),
    ],
)
