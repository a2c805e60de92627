"""The Downforce heuristic's decisions on a fixed set of seeded games (heuristic in every seat and
against random bots; several player counts, option sets and heuristic styles) hash to stored
values: a speed change to the heuristic or the race evaluation it reads (``rules.play_values``,
``steer_scores``) must leave every action and every draw of the bot's generator unchanged. Each
record is the action and the generator's state after the decision."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from boardzoo.envs.core.bots import HeuristicBot, RandomBot
from boardzoo.envs.core.game import CHANCE
from boardzoo.envs.downforce.rules import DownforceGame

# (options, heuristic style, players, heuristic in every seat, seed) -> first 16 hex digits of the
# SHA-256 of the decision records
CASES = [
    ({}, {}, 4, True, 1),
    ({"action_features": True}, {}, 2, False, 2),
    ({"powers": True, "extra_powers": True, "odds_betting": True}, {}, 3, True, 3),
    ({"powers": True, "odds_winner_only": True, "track": "sprint", "steering": "auto"}, {}, 5, False, 4),
    ({}, {"bet_own": True, "keep_speed8": 2.0}, 6, True, 5),
    ({"powers": True}, {"steer": "auto"}, 4, True, 6),
]
EXPECTED = {
    0: "1a5070a907844228",
    1: "086fdb43f59413eb",
    2: "5a3f7ae45327383f",
    3: "e3b78b6e39b6f160",
    4: "7e28272a6026a297",
    5: "24fc6be485c3723b",
}


def decisions_hash(options: dict, style: dict, n: int, all_heuristic: bool, seed: int, games: int = 3) -> str:
    game = DownforceGame(**options)
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
