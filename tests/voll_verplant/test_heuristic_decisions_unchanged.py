"""The Voll verplant heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots; several player counts and both conformance option sets) hash to stored
values: a speed change to the heuristic (``bot.py``) must leave every action and every draw of the
bot's generator (its tie breaks) unchanged. Each record is the action and the generator's state
after the decision."""

from __future__ import annotations

import pytest
from heuristic_pins import decisions_hash  # tests/core/heuristic_pins.py

from boardzoo.envs.voll_verplant.rules import VollVerplantGame

# (options, heuristic style, players, heuristic in every seat, seed) -> first 16 hex digits of the
# SHA-256 of the decision records
STRICT = {"penalty_rounding": "ceil", "allow_short_moves": False, "observe_opponent_sheets": False}
CASES = [
    ({}, {}, 1, True, 1),
    ({}, {}, 2, True, 2),
    ({}, {}, 4, True, 3),
    ({}, {}, 3, False, 4),
    (STRICT, {}, 6, True, 5),
    (STRICT, {}, 5, False, 6),
]
EXPECTED = {
    0: "401d57aa27b9d599",
    1: "3a9d76bd05f711bd",
    2: "b5571f428da10266",
    3: "f5480597c1776c0e",
    4: "0af934b92bc592d2",
    5: "1f9d5c0111fe1d27",
}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_heuristic_decisions_unchanged(case):
    options, style, n, all_heuristic, seed = CASES[case]
    assert decisions_hash(VollVerplantGame(**options), style, n, all_heuristic, seed) == EXPECTED[case]
