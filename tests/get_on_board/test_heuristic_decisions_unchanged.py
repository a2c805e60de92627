"""The Get on Board heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots, several player counts) hash to stored values: a speed change to the
heuristic (``bot.py``, and what it reads of the rules) must leave every action and every draw of
the bot's generator (its tie breaks) unchanged. Each record is the action and the generator's
state after the decision. The values were computed before the speed work of 2026-12-07 (at
f2b8c9a) and again after it: the same."""

from __future__ import annotations

import pytest
from heuristic_pins import decisions_hash  # tests/core/heuristic_pins.py

from boardzoo.envs.get_on_board.rules import GetOnBoardGame

# (players, heuristic in every seat, seed) -> first 16 hex digits of the SHA-256 of the records
CASES = [
    (2, True, 1),
    (3, True, 2),
    (2, False, 3),
    (3, False, 4),
]
EXPECTED = {
    0: "c4759e74cb102b96",
    1: "c68792a1f5050243",
    2: "914867f71e6273f6",
    3: "9d78bb9f8502541c",
}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_heuristic_decisions_unchanged(case):
    n, all_heuristic, seed = CASES[case]
    assert decisions_hash(GetOnBoardGame(), {}, n, all_heuristic, seed) == EXPECTED[case]
