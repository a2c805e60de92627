"""The Hidden Castle heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots; 2-4 players, base game and Midnight Party) hash to stored values: a speed
change to the heuristic (``bot.py``) must leave every action and every draw of the bot's generator
(its tie breaks) unchanged. Each record is the action and the generator's state after the
decision."""

from __future__ import annotations

import pytest
from heuristic_pins import decisions_hash  # tests/core/heuristic_pins.py

from boardzoo.envs.hidden_castle.rules import HiddenCastleGame

# (options, heuristic style, players, heuristic in every seat, seed) -> first 16 hex digits of the
# SHA-256 of the decision records
MIDNIGHT = {"midnight_party": True}
CASES = [
    ({}, {}, 2, True, 1),
    ({}, {}, 3, True, 2),
    ({}, {}, 4, False, 3),
    (MIDNIGHT, {}, 2, False, 4),
    (MIDNIGHT, {}, 3, True, 5),
    (MIDNIGHT, {}, 4, True, 6),
]
EXPECTED = {
    0: "500217f35d1c369f",
    1: "41e34c3c80e1de28",
    2: "92e29acc02214300",
    3: "d4933dacfe607cdd",
    4: "aec44f1d872a6129",
    5: "f42a82ebe397489d",
}


@pytest.mark.parametrize("case", range(len(CASES)))
def test_heuristic_decisions_unchanged(case):
    options, style, n, all_heuristic, seed = CASES[case]
    assert decisions_hash(HiddenCastleGame(**options), style, n, all_heuristic, seed) == EXPECTED[case]
