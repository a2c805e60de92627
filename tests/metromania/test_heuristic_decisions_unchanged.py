"""The Metromania heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots, several player counts) hash to stored values: a speed change to the
heuristic (``bot.py``, and what it reads of the rules) must leave every action and every draw of
the bot's generator (its tie breaks) unchanged. Each record is the action and the generator's
state after the decision. The values were computed before the speed work of 2026-12-07 (at
f2b8c9a) and again after it: the same."""

from __future__ import annotations

import pytest
from heuristic_pins import decisions_hash  # tests/core/heuristic_pins.py

from boardzoo.envs.metromania.rules import MetromaniaGame

# (players, heuristic in every seat, seed) -> first 16 hex digits of the SHA-256 of the records
CASES = [
    (2, True, 1),
    (3, True, 2),
    (4, True, 3),
    (2, False, 4),
]
EXPECTED = {
    0: "664d6dbe780d3f04",
    1: "22a3a8aa2504f63e",
    2: "141bc469226b5db5",
    3: "106fa0dc828dcbd3",
}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_heuristic_decisions_unchanged(case):
    n, all_heuristic, seed = CASES[case]
    assert decisions_hash(MetromaniaGame(), {}, n, all_heuristic, seed) == EXPECTED[case]
