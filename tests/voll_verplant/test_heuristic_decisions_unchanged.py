"""The Voll verplant heuristic's decisions on a fixed set of seeded games (heuristic in every seat
and against random bots; several player counts and both conformance option sets) hash to stored
values: a speed change to the heuristic (``bot.py``) must leave every action and every draw of the
bot's generator (its tie breaks) unchanged. Each record is the action and the generator's state
after the decision."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from boardzoo.envs.core.bots import HeuristicBot, RandomBot
from boardzoo.envs.core.game import CHANCE
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


def decisions_hash(options: dict, style: dict, n: int, all_heuristic: bool, seed: int, games: int = 3) -> str:
    game = VollVerplantGame(**options)
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
