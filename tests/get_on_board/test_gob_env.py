"""Environment-level checks of get_on_board_v0: exact sub-step masks against a plain reference,
a plain reference encoder for the incremental observation, the solo mode through the PettingZoo
API, hidden departure choices and the heuristic bot."""
from __future__ import annotations

import numpy as np
import pytest
from gob_helpers import start
from pettingzoo.test import api_test

from boardzoo.envs import make, make_game
from boardzoo.envs.get_on_board.data import REQ_ANY, REQ_STRAIGHT, REQ_TURN
from boardzoo.envs.get_on_board.rules import P_DEPART, P_PLACE, SHEET_LEN, TZ


def _random_states(opts, n, games, seed, every=1):
    g = make_game("get_on_board_v0", **opts)
    rng = np.random.default_rng(seed)
    for _ in range(games):
        st = g.new_initial_state(n)
        i = 0
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            if i % every == 0:
                yield st
            i += 1
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))


def reference_mask(st) -> list[int]:
    """GB-R11..GB-R19 and GB-V1/GB-V2 written out plainly."""
    g = st.game
    cands, elim = reference_moves(st)
    decline = st.extra and g.green_optional
    if g.mask_elim and elim and (len(elim) < len(cands) or decline):
        cands = [d for d in cands if d not in elim]
    return sorted(cands + ([6] if decline else []))


def reference_moves(st) -> tuple[list[int], list[int]]:
    """Directions with a legal road (GB-R11, GB-R15, GB-R16) and those that would eliminate (GB-R19)."""
    g = st.game
    m = g.map
    p = st.cur
    e = st.route[p][-1]
    own = set(st.rroads[p])
    seen = set(st.route[p])
    req = REQ_ANY if st.extra else st.shape[st.k]
    cands, elim = [], []
    for d in range(4):
        r, q = m.nb_road[e][d], m.nb_node[e][d]
        if r < 0 or r in own:
            continue
        deviates = (req == REQ_STRAIGHT and d != st.prev) or (req == REQ_TURN and d == st.prev)
        if deviates and st.sheets[p][TZ] >= 5:
            continue
        cands.append(d)
        if q in seen:
            elim.append(d)
    return cands, elim


@pytest.mark.parametrize("opts", [{}, {"mask_elimination_moves": False, "green_light_optional": True},
                                  {"green_light_optional": True}], ids=["GB_V1_default", "GB_V1_off_GB_V2",
                                                                        "GB_V2_masked"])
def test_GB_R11_masks_match_reference(opts):
    checked = 0
    for st in _random_states(opts, 3, 12, seed=7):
        if st.ph == P_PLACE:
            assert np.flatnonzero(st.legal_mask()).tolist() == reference_mask(st)
            checked += 1
        elif st.ph == P_DEPART:
            assert np.flatnonzero(st.legal_mask()).tolist() == [4, 5]
    assert checked > 200


def test_GB_V1_never_walk_into_elimination_unless_forced():
    for st in _random_states({}, 2, 15, seed=3):
        if st.ph != P_PLACE:
            continue
        legal = np.flatnonzero(st.legal_mask())
        outcomes = []
        for a in legal:
            c = st.clone()
            c.apply_action(int(a))
            outcomes.append(c.elim[st.cur])
        assert all(outcomes) or not any(outcomes)


def reference_observation(st, seat: int) -> np.ndarray:
    """Plain (non-incremental) encoder from the public fields and the seat's own secrets."""
    g = st.game
    m = g.map
    n = st.num_players
    N, R = m.n, m.r
    rel = [(seat + i) % n for i in range(n)]
    vis = np.zeros((g.maxp, N), np.float32)
    end = np.zeros((g.maxp, N), np.float32)
    road = np.zeros((g.maxp, R), np.float32)
    sf = np.zeros((g.maxp, g.sf_len), np.float32)
    for k, p in enumerate(rel):
        for q in st.route[p]:
            vis[k, q] = 1
        if st.route[p]:
            end[k, st.route[p][-1]] = 1
        for r in st.rroads[p]:
            road[k, r] = 1
        sf[k, :SHEET_LEN] = np.asarray(st.sheets[p], np.float32) * g.sf_scale
        if st.sheet_type[p]:
            sf[k, SHEET_LEN + st.sheet_type[p] - 1] = 1
        sf[k, -1] = 0 if st.elim[p] else g.rules.total(st.sheets[p], False) * 0.01
    obj = np.zeros(N, np.float32)
    if st.personal[seat] >= 0:
        obj[m.objectives[st.personal[seat]]] = 1
    step = np.zeros(g.step_len, np.float32)
    step[st.ph] = 1
    if st.cur >= 0:
        step[6 + (st.cur - seat) % n] = 1
        if st.ph == P_PLACE and st.cur == seat:
            i = 6 + g.maxp
            req = REQ_ANY if st.extra else st.shape[st.k]
            if st.extra:
                step[5] = 1
            else:
                step[i + st.k] = 1
            step[i + 4 + st.prev] = 1
            step[i + 8 + req] = 1
            cands, elim = reference_moves(st)
            for d in cands:  # flags cover every legal road, masked eliminating ones included
                step[i + 12 + d] = (req == REQ_STRAIGHT and d != st.prev) or (req == REQ_TURN and d == st.prev)
                step[i + 16 + d] = d in elim
    rnd = np.zeros(g.round_len, np.float32)
    if st.ph != 0:
        rnd[len(st.used)] = 1
        i = g.rounds + 1
        for t in st.used:
            rnd[i + t - 1] = 1
        i += g.tickets
        if st.ph == P_PLACE:
            rnd[i + st.used[-1] - 1] = 1
        i += g.tickets
        rnd[i + (st.inspector - seat) % n] = 1
        i += g.maxp
        if st.ph == P_PLACE:
            for k, p in enumerate(rel):
                nm = g.ticket_shape[st.sheet_type[p]][st.used[-1]][0]
                rnd[i + k * len(g.shape_names) + g.shape_names.index(nm)] = 1
        i += len(g.shape_names) * g.maxp
        for j, c in enumerate(st.common):
            rnd[i + c] = 1
            rnd[i + len(g.commons) + c] = st.claimed[j]
    own = np.zeros(2 * m.departures, np.float32)
    for t in st.tickets[seat]:
        own[t - 1] = 1
    if st.choice[seat] >= 0:
        own[m.departures + st.tickets[seat][st.choice[seat]] - 1] = 1
    return np.concatenate([m.static_obs, vis.ravel(), end.ravel(), road.ravel(), sf.ravel(), obj, step, rnd, own])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_GB_R45_observation_matches_reference_encoder(n):
    opts = {"solo_practice": True} if n == 1 else {}
    checked = 0
    for st in _random_states(opts, n, 8, seed=n, every=2):
        for seat in range(n):
            np.testing.assert_array_equal(st.observation(seat), reference_observation(st, seat),
                                          err_msg=f"seat {seat} phase {st.phase()}")
            checked += 1
    assert checked > 40


def test_GB_V4_solo_through_the_pettingzoo_api():
    env = make("get_on_board_v0", num_players=1, solo_practice=True)
    api_test(env, num_cycles=200)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        if term or trunc:
            final = rew
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    st = env.unwrapped.state
    assert final == pytest.approx(st.scores()[0] * 0.01)


def test_GB_R4_departure_choice_is_secret_until_revealed():
    g = make_game("get_on_board_v0")
    st = start(n=2).game.new_initial_state(2)
    for o in (1, 2, 0, 1, 0, 1, 1, 2, 3, 4, 0):
        st.apply_action(o)
    assert st.ph == P_DEPART
    a, b = st.clone(), st.clone()
    a.apply_action(4)
    b.apply_action(5)
    np.testing.assert_array_equal(a.observation(1), b.observation(1))  # seat 1 cannot tell
    assert not np.array_equal(a.observation(0), b.observation(0))
    for s in (a, b):
        r = s.resample_hidden(1, np.random.default_rng(0))
        assert set(r.tickets[1]) == {3, 4} and r.route == [[], []]
    a.apply_action(4)
    assert a.route[0] and a.route[1]  # revealed together
    assert g.num_actions == 7


def test_heuristic_beats_random():
    from boardzoo.envs.core.arena import heuristic_vs_random
    m = heuristic_vs_random(make_game("get_on_board_v0"), 2, games=16, seed=5)
    assert m.wins >= 12
