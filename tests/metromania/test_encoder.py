"""The incremental Metromania encoder (``state.encoder_cache``) against a plain reference: the
encoder as first written, rebuilding every entry from the state on each call. Seats are asked in
varying orders and at varying intervals, and clones and loaded states must agree too."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs.core.game import CHANCE
from boardzoo.envs.metromania import MetromaniaGame
from boardzoo.envs.metromania.encoder import FEATURE_SCALE, FEATURE_SHIFT, MAX_PLAYERS, SCORE_HALF
from boardzoo.envs.metromania.evaluate import action_values, turn_values
from boardzoo.envs.metromania.rules import NUM_MARKERS, Phase


def reference_encode(enc, state, seat: int) -> np.ndarray:
    """The full-rebuild encoder (version 0 before the incremental cache), kept as the reference."""
    g = enc.game.geo
    o = np.zeros(enc.size, np.float32)
    n = state.num_players
    nt, nv, ne = enc.nt, enc.nv, enc.ne
    ones = [enc.phase + int(state.phase_id)]
    idx: list[int] = []
    val: list[float] = []
    if state.covered:
        ones.append(enc.dig + 1)
    idx += [enc.dig, enc.misc, enc.misc + 2]
    val += [state.dig_left / 3.0, state.supply / enc.game.supply0, state.passes / n]
    if state.final_left >= 0:
        ones.append(enc.misc + 1)
    for k in range(n):
        p = (seat + k) % n
        ones.append(enc.seats + k)
        sc = state.score[p]
        idx.append(enc.scores + k)
        val.append(sc / (sc + SCORE_HALF))
        for ln in (0, 1):
            li = 2 * p + ln
            b = enc.lines + (2 * k + ln) * 9
            sg = state.start_gate[li]
            if sg >= 0:
                ones += [b, b + 3 + g.white_side[sg]]
            if state.end_gate[li] >= 0:
                ones.append(b + 1)
            idx.append(b + 2)
            val.append(state.unused(li) / enc.game.tunnels)
    for m in range(NUM_MARKERS):
        own, t = state.owner[m], state.marker_tri[m]
        b = enc.markers + m * (MAX_PLAYERS + 1)
        if own >= 0:
            ones.append(b + (own - seat) % n)
        if t >= 0:
            ones += [b + MAX_PLAYERS, enc.tri_letter + (m % 6) * nt + t]
    o[idx] = val
    if state.phase_id >= Phase.DEAL:
        ones += [enc.tri_kind + k * nt + t for t, k in enumerate(state.kinds)]
    ones += [enc.tri_owner + ((li // 2 - seat) % n) * nt + t for li, ts in enumerate(state.tris) for t in ts]
    ones += [enc.vert + v for v in state.has_station]
    for li, vs in enumerate(state.verts):
        if vs and state.end_gate[li] < 0:
            k = (li // 2 - seat) % n
            ones.append(enc.vert + (1 + k) * nv + vs[-1])
            if k == 0:
                ones.append(enc.vert + (5 + li % 2) * nv + vs[-1])
    ones += [enc.vert + 7 * nv + v for w, v in enumerate(g.white_gates) if w not in state.white_used]
    ones += [enc.vert + 8 * nv + v for b, v in enumerate(g.black_gates) if b not in state.black_used]
    ones += [enc.edges + ((li // 2 - seat) % n) * ne + e for e, lis in state.edge_lines.items() for li in lis]
    o[ones] = 1
    if enc.action_features is not None and state.current_player() == seat:
        for a, av in turn_values(state).items():
            o[enc.features + a] = min(1.0, max(0.01, (av + FEATURE_SHIFT) * FEATURE_SCALE))
    return o


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("features", [False, True])
def test_incremental_encoder_matches_the_reference(n, features):
    game = MetromaniaGame(action_features=features)
    enc = game.encoder
    rng = np.random.default_rng(n + 10 * features)
    for _ in range(2 if features else 3):
        st = game.new_initial_state(n)
        step = 0
        while not st.is_terminal():
            seats = [int(s) for s in rng.permutation(n)[: rng.integers(0, n + 1)]]  # some seats, some steps
            for s in seats:
                assert np.array_equal(st.observation(s), reference_encode(enc, st, s)), (step, s)
            if step % 17 == 5:  # a clone and a loaded state build their own caches
                s = int(rng.integers(n))
                for other in (st.clone(), game.state_from_dict(st.to_dict())):
                    assert np.array_equal(other.observation(s), reference_encode(enc, st, s))
            if st.current_player() == CHANCE:
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
            step += 1
        for s in range(n):
            assert np.array_equal(st.observation(s), reference_encode(enc, st, s))


def test_observation_is_a_fresh_array():
    """Writing into a returned observation leaves the cache (and the next observation) alone."""
    game = MetromaniaGame()
    rng = np.random.default_rng(3)
    st = game.new_initial_state(2)
    while st.current_player() == CHANCE or len(st.verts[0]) < 3:
        st.apply_action(st.sample_chance(rng) if st.current_player() == CHANCE else int(st.legal_actions()[0]))
    o = st.observation(0)
    want = o.copy()
    o[:] = 7
    assert np.array_equal(st.observation(0), want)


@pytest.mark.parametrize("n", [2, 4])
def test_action_features_are_two_ply_within_the_movers_turn(n):
    """``turn_values``: an action after which the mover decides again (the Dig goes on, a marker
    choice, the free station) adds the best one-ply value of that next decision; any other keeps
    its one-ply value. States are left as they were. Both kinds occur in a random game."""
    game = MetromaniaGame(action_features=True)
    rng = np.random.default_rng(5)
    st = game.new_initial_state(n)
    kinds = set()
    while not st.is_terminal():
        p = st.current_player()
        if p == CHANCE:
            st.apply_action(st.sample_chance(rng))
            continue
        before = st.to_dict()
        one, two = action_values(st), turn_values(st)
        assert st.to_dict() == before and set(one) == set(two)
        for a, v in one.items():
            nxt = st.clone()
            nxt.apply_action(a)
            again = nxt.current_player() == p
            kinds.add(again)
            assert two[a] == pytest.approx(v + max(action_values(nxt).values()) if again else v), a
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert kinds == {True, False}
