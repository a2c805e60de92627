"""The Hidden Castle heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots; 2-4 players, base game and Midnight Party) hash to stored values: a speed
change to the heuristic (``bot.py``) must leave every action and every draw of the bot's generator
(its tie breaks) unchanged. Each record is the action and the generator's state after the
decision."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from boardzoo.envs.core.bots import HeuristicBot, RandomBot
from boardzoo.envs.core.game import CHANCE
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


def decisions_hash(options: dict, style: dict, n: int, all_heuristic: bool, seed: int, games: int = 3) -> str:
    game = HiddenCastleGame(**options)
    h = hashlib.sha256()
    for gi in range(games):
        sd = seed * 1000 + gi
        rng = np.random.default_rng(sd)
        bots = [
            game.heuristic_bot(s, seed=sd * 10 + s, **style) if all_heuristic or s == gi % n else RandomBot(sd + s)
            for s in range(n)
        ]
        st = game.new_initial_state(n)
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            b = bots[p]
            if isinstance(b, HeuristicBot):
                a = int(b.act_state(st.resample_hidden(p, rng), p))
                g = b.rng.bit_generator.state
                h.update(f"{p}:{a}:{g['state']['state']}:{g['has_uint32']};".encode())
            else:
                a = int(b.act({"action_mask": st.legal_mask()}))
            st.apply_action(a)
        h.update(repr(st.scores()).encode())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_heuristic_decisions_unchanged(case):
    assert decisions_hash(*CASES[case]) == EXPECTED[case]
