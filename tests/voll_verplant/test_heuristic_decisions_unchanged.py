"""The Voll verplant heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots; several player counts and both conformance option sets) hash to stored
values: a speed change to the heuristic (``bot.py``) must leave every action and every draw of the
bot's generator (its tie breaks) unchanged. Each record is the action and the generator's state
after the decision."""

from __future__ import annotations

from heuristic_pins import pin_test  # tests/core/heuristic_pins.py

from boardzoo.envs.voll_verplant.rules import VollVerplantGame

STRICT = {"penalty_rounding": "ceil", "allow_short_moves": False, "observe_opponent_sheets": False}

# (options, heuristic style, players, heuristic in every seat, seed, first 16 hex digits of the
# SHA-256 of the decision records)
test_heuristic_decisions_unchanged = pin_test(
    VollVerplantGame,
    [
        ({}, {}, 1, True, 1, "401d57aa27b9d599"),
        ({}, {}, 2, True, 2, "3a9d76bd05f711bd"),
        ({}, {}, 4, True, 3, "b5571f428da10266"),
        ({}, {}, 3, False, 4, "f5480597c1776c0e"),
        (STRICT, {}, 6, True, 5, "0af934b92bc592d2"),
        (STRICT, {}, 5, False, 6, "1f9d5c0111fe1d27"),
    ],
)
