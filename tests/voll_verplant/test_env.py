"""Encoder, env, bot and renderer tests of Voll verplant (beyond the conformance suite)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from vv_helpers import game, num, play, random_game, reveal, setup

from boardzoo.envs import make
from boardzoo.envs.voll_verplant import encoder as E


def reference_observation(st, seat: int) -> np.ndarray:
    """Plain (non-incremental) encoder, straight from the sheets, per encoder.py's table."""
    g, m, d = st.game, st.game.map, st.game.deck
    n = st.num_players
    o = np.zeros(E.OBS_SIZE, dtype=np.float32)
    if st.card >= 0:
        o[E.H_TYPE + d.kind_type[st.card]] = 1
        o[E.H_VALUE] = d.kind_value[st.card] / 6
        o[E.H_SHUFFLE] = float(d.kind_shuffle[st.card])
    for k, c in enumerate(st.deck):
        o[E.H_DECK + E.deck_class(d.kind_type[k], d.kind_value[k])] += c / 4
        if d.kind_shuffle[k]:
            o[E.H_DECK + 14] += c / 4
    o[E.H_PROGRESS] = sum(len(w) for w in st.wins[0]) / m.total_windows
    o[E.H_PLAYERS] = n / 6
    o[E.H_DECIDING] = float(st.card >= 0 and not st.over and st.cur == seat)
    for li in range(m.num_lines):
        o[E.H_FIRST_GONE + li] = float(st.first_gone[li])
        o[E.H_STATIC + li] = 1
        o[E.H_STATIC + 10 + li] = m.bonus_first[li] / 10
        o[E.H_STATIC + 20 + li] = m.bonus_other[li] / 10
        o[E.H_STATIC + 30 + li] = m.windows[li] / 4
        o[E.H_STATIC + 40 + li] = len(m.line_st[li]) / 16
    for s in m.stations:
        o[E.H_STATION + s] = len(m.st_lines[s]) / 3
    for slot in range(n):
        p = (seat + slot) % n
        b = E.HEADER + slot * E.BLOCK
        show = slot == 0 or g.observe_others
        bonus = 0
        for li in range(m.num_lines):
            sc = st.scored[p][li]
            o[b + E.P_FIRST + li] = float(sc == 1)
            o[b + E.P_OTHER + li] = float(sc == 2)
            bonus += m.bonus_first[li] if sc == 1 else (m.bonus_other[li] if sc == 2 else 0)
        o[b + E.P_PRESENT] = 1
        if show:
            for s in range(64):
                o[b + E.P_MARK + s] = st.marks[p][s]
                o[b + E.P_NUM + s] = st.nums[p][s] / 3
            for li in range(m.num_lines):
                o[b + E.P_WUSED + li] = len(st.wins[p][li]) / 4
            o[b + E.P_SCORE] = (bonus + 2 * sum(st.nums[p])) / 50
            o[b + E.P_EMPTY] = sum(1 for s in m.stations if not st.marks[p][s]) / 64
    return o


@pytest.mark.parametrize("opts,n", [({}, 1), ({}, 4), ({"observe_opponent_sheets": False}, 3), ({}, 6)])
def test_incremental_encoder_matches_reference(opts, n):
    g = game(**opts)
    rng = np.random.default_rng(n)
    for _ in range(3):

        def look(s):
            for p in range(n):
                np.testing.assert_allclose(s.observation(p), reference_observation(s, p), atol=1e-6)

        random_game(g.new_initial_state(n), rng, look)


def test_observation_is_seat_relative():
    st = setup(3, marks={0: [1], 1: [2], 2: [3]})
    for seat in range(3):
        o = st.observation(seat)
        assert o[E.HEADER + E.P_MARK + seat] == 1.0  # my own mark comes first
        nxt = (seat + 1) % 3
        assert o[E.HEADER + E.BLOCK + E.P_MARK + nxt] == 1.0
        assert o[E.HEADER + 3 * E.BLOCK + E.P_PRESENT] == 0.0  # absent seats are zero


def test_json_round_trip_mid_turn_keeps_hidden_commits():
    st = setup(3)
    reveal(st, "4")
    st.apply_action(num("A", 4))
    d = json.loads(json.dumps(st.to_dict()))
    back = st.game.state_from_dict(d)
    assert back.to_dict() == st.to_dict() and back.commits == [num("A", 4), -1, -1]
    back.apply_action(num("B", 1))
    back.apply_action(num("C", 0))
    assert back.marks[0][:4] == [1, 1, 1, 1]


def test_parallel_env_plays_a_whole_game():
    env = make("voll_verplant_v0", parallel=True, num_players=4)
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    steps = 0
    while env.agents:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, rew, term, trunc, _ = env.step(acts)
        steps += 1
    assert env.state.is_terminal()
    assert 20 <= steps <= 40  # one step per card
    assert sorted(rew.values())[-1] in (0.0, 1.0)


def test_heuristic_beats_random():
    from boardzoo.envs.core.arena import heuristic_vs_random

    m = heuristic_vs_random(game(), 4, games=12, seed=11)
    assert m.wins >= 10


def test_render_ansi_and_rgb():
    st = setup(2, marks={0: [1, 2]}, nums={1: {30: 3}}, windows={"F": [20]})
    reveal(st, "T")
    st.apply_action(70)
    text = str(st)
    assert "Player 0" in text and "Player 1" in text and "30*3" in text and "(has chosen)" in text
    assert "card: * transfer" in text
    img = st.game.renderer()(st)
    assert img.dtype == np.uint8 and img.shape[0] >= 400 and img.std() > 10
    g = game()
    st6 = g.new_initial_state(6)
    random_game(st6, np.random.default_rng(0))
    img6 = g.renderer()(st6)
    assert img6.shape[1] == 3 * img.shape[1] // 2 and "winners" in str(st6)


@pytest.mark.parametrize("opts,n", [({}, 4), ({"observe_opponent_sheets": False}, 3)])
def test_encoder_cache_equals_a_fresh_build(opts, n):
    """The encoder's incremental blocks (one reveal or one turn on, else rebuilt) equal, bit for
    bit, those built from scratch for a clone (which starts without a cache), whichever positions
    are observed."""
    g = game(**opts)
    rng = np.random.default_rng(7)
    for every in (1, 2, 3, 7):
        k = [0]

        def look(s, every=every, k=k):
            k[0] += 1
            if k[0] % every == 0:
                for p in range(n):
                    assert np.array_equal(s.observation(p), s.clone().observation(p))

        random_game(g.new_initial_state(n), rng, look)


def test_rules_import_no_encoder_bot_or_render():
    from pathlib import Path

    src = Path(E.__file__).with_name("rules.py").read_text()
    assert not re.search(r"from \.(encoder|bot|render)|import (encoder|bot|render)", src)
    enc = Path(E.__file__).read_text()
    assert not re.search(r"from \.(bot|render)|import (bot|render)", enc)


@pytest.mark.parametrize("opts", [{}, {"observe_opponent_sheets": False}])
def test_deepcopy_and_pickle_keep_the_encoder_cache_apart(opts):
    import copy
    import pickle

    st = reveal(setup(3, opts=opts), "3")
    st.observation(0)
    play(st, num("A", 3), num("B", 2), num("C", 1))
    reveal(st, "T")
    for other in (copy.deepcopy(st), pickle.loads(pickle.dumps(st))):
        for p in range(3):
            assert np.array_equal(other.observation(p), st.observation(p))
        assert other.encoder_cache is not st.encoder_cache
