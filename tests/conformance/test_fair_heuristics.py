"""``GameSpec.fair_heuristic``: a game may declare that its default heuristic decides only on what
its seat may know and leaves the state it is given untouched; ``core.bots.choose`` then hands it
the real state instead of a ``resample_hidden`` copy. Every declaring game, player count and option
set is held to that here: at random decision points of random games (heuristic and random moves
mixed, so the states are ones the heuristic reaches), the heuristic decides the same on the state
and on two re-dealt views of it (same bot seed), and the state is unchanged by the decision.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from test_all_registered import CASES

from boardzoo.envs import game_class, make_game
from boardzoo.envs.core.bots import HeuristicBot, choose

SOAK = float(os.environ.get("BOARDZOO_SOAK", "1"))
FAIR_CASES = [c for c in CASES if game_class(c.values[0])._spec.fair_heuristic]


@pytest.mark.parametrize("env_id,opts,n", FAIR_CASES)
def test_fair_heuristic_reads_only_its_seats_knowledge(env_id, opts, n):
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(17)
    checked = 0
    for g in range(max(1, int(2 * SOAK))):
        st = game.new_initial_state(n)
        players = [game.heuristic_bot(s, seed=100 * g + s) for s in range(n)]
        assert all(not p.needs_view for p in players)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            if rng.random() < 0.15:
                seed = int(rng.integers(1 << 31))
                before = json.dumps(st.to_dict(), sort_keys=True)
                on_state = game.heuristic_bot(p, seed=seed).act_state(st, p)
                assert json.dumps(st.to_dict(), sort_keys=True) == before, f"{env_id}: the heuristic changed the state"
                for _ in range(2):
                    view = st.resample_hidden(p, rng)
                    on_view = game.heuristic_bot(p, seed=seed).act_state(view, p)
                    assert on_view == on_state, (
                        f"{env_id} {opts} {n}p seat {p} in {st.phase()}: the heuristic chose {on_state} on the "
                        f"state but {on_view} on a re-dealt view: it reads hidden information, so it is not fair"
                    )
                checked += 1
            if rng.random() < 0.7:
                st.apply_action(choose(players[p], st, p, rng))
            else:
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert checked


def test_choose_hands_fair_heuristics_the_state_and_others_a_view():
    env_id = FAIR_CASES[0].values[0] if FAIR_CASES else None
    assert env_id is not None, "no game declares a fair heuristic"
    game = make_game(env_id)
    st = game.new_initial_state(game_class(env_id).default_players)
    rng = np.random.default_rng(0)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    seen = []
    spy = HeuristicBot(lambda s, seat, r: seen.append(s) or int(np.flatnonzero(s.legal_mask())[0]), seed=0)
    p = st.current_player()
    choose(spy, st, p, rng)
    assert seen[-1] is not st  # a plain heuristic gets a re-dealt copy
    spy.needs_view = False
    choose(spy, st, p, rng)
    assert seen[-1] is st
    assert game.heuristic_bot(p, seed=1).needs_view is False
    styled = [c for c in ("bet_own",) if env_id == "downforce_v0"]
    if styled:  # style variants are not covered by the declaration
        assert game.heuristic_bot(p, seed=1, bet_own=True).needs_view is True
