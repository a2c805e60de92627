"""The Metromania heuristic's decisions pinned (``tests/core/heuristic_pins.py``: several player
counts, heuristic in every seat and against random bots). The values were computed before the
speed work of 2026-12-07 (at f2b8c9a) and again after it: the same."""

from __future__ import annotations

from heuristic_pins import pin_test  # tests/core/heuristic_pins.py

from boardzoo.envs.metromania.rules import MetromaniaGame

# (options, heuristic style, players, heuristic in every seat, seed, first 16 hex digits of the
# SHA-256 of the decision records)
test_heuristic_decisions_unchanged = pin_test(
    MetromaniaGame,
    [
        ({}, {}, 2, True, 1, "664d6dbe780d3f04"),
        ({}, {}, 3, True, 2, "22a3a8aa2504f63e"),
        ({}, {}, 4, True, 3, "141bc469226b5db5"),
        ({}, {}, 2, False, 4, "106fa0dc828dcbd3"),
    ],
)
