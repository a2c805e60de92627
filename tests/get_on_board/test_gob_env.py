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
from boardzoo.envs.get_on_board.encoder import SHEET_DIVISORS
from boardzoo.envs.get_on_board.rules import P_DEAL, P_DEPART, P_PLACE, SHEET_FIELDS, TZ


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


@pytest.mark.parametrize(
    "opts",
    [{}, {"mask_elimination_moves": False, "green_light_optional": True}, {"green_light_optional": True}],
    ids=["GB_V1_default", "GB_V1_off_GB_V2", "GB_V2_masked"],
)
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
    """Plain (non-incremental) encoder from the public fields and the seat's own secrets, writing
    each named block of the layout (RULES.md, "Observation layout")."""
    g = st.game
    m = g.map
    n = st.num_players
    blocks = {name: (off, length) for name, off, length in g.observation_layout()}
    o = np.zeros(g.observation_size, np.float32)

    def put(name, i, value=1.0):
        off, length = blocks[name]
        assert 0 <= i < length, (name, i)
        o[off + i] = value

    for q in range(m.n):  # static map: code one-hot (g s S t m M b O), star, green, departure, letter
        if m.code[q]:
            put("map.intersections", q * 12 + m.code[q] - 1)
        put("map.intersections", q * 12 + 8, m.star[q])
        put("map.intersections", q * 12 + 9, m.green[q])
        put("map.intersections", q * 12 + 10, q in m.dep_node.values())
        put("map.intersections", q * 12 + 11, bool(m.letter[q]))
    for r in range(m.r):
        put("map.black_roads", r, m.black[r])
    for k in range(n):
        p = (seat + k) % n
        for q in st.route[p]:
            put(f"route.visited.p{k}", q)
        if st.route[p]:
            put(f"route.end.p{k}", st.route[p][-1])
        for r in st.rroads[p]:
            put(f"road_markers.p{k}", r)
        for f, name in enumerate(SHEET_FIELDS):
            put(f"sheet.p{k}", f, np.float32(st.sheets[p][f]) * np.float32(1 / SHEET_DIVISORS[name]))
        if st.sheet_type[p]:
            put(f"sheet_type.p{k}", st.sheet_type[p] - 1)
        put(f"running_total.p{k}", 0, 0 if st.elim[p] else g.rules.total(st.sheets[p], False) * 0.01)
    if st.personal[seat] >= 0:
        for q in m.objectives[st.personal[seat]]:
            put("personal_objective", q)
    put("step.phase", st.ph)
    if st.cur >= 0:
        put("step.current_player", (st.cur - seat) % n)
        if st.ph == P_PLACE and st.cur == seat:
            req = REQ_ANY if st.extra else st.shape[st.k]
            if st.extra:
                put("step.green_light_extra", 0)
            else:
                put("step.marker_index", st.k)
            put("step.previous_direction", 1 + st.prev)
            put("step.requirement", req)
            cands, elim = reference_moves(st)
            for d in cands:  # flags cover every legal road, masked eliminating ones included
                put(
                    "step.would_deviate",
                    d,
                    (req == REQ_STRAIGHT and d != st.prev) or (req == REQ_TURN and d == st.prev),
                )
                put("step.would_eliminate", d, d in elim)
    if st.ph != P_DEAL:
        put("round.number", len(st.used))
        for t in st.used:
            put("round.used_tickets", t - 1)
        if st.ph == P_PLACE:
            put("round.current_ticket", st.used[-1] - 1)
        put("round.inspector", (st.inspector - seat) % n)
        if st.ph == P_PLACE:
            for k in range(n):
                p = (seat + k) % n
                nm = g.ticket_shape[st.sheet_type[p]][st.used[-1]][0]
                put(f"round.shape.p{k}", g.shape_names.index(nm))
        for j, c in enumerate(st.common):
            put("round.common_objectives", c)
            put("round.common_claimed", c, st.claimed[j])
    for t in st.tickets[seat]:
        put("own.departure_tickets", t - 1)
    if st.choice[seat] >= 0:
        put("own.departure_choice", st.tickets[seat][st.choice[seat]] - 1)
    return o


@pytest.mark.parametrize("n", [1, 2, 3])
def test_GB_R45_observation_matches_reference_encoder(n):
    opts = {"solo_practice": True} if n == 1 else {}
    checked = 0
    for st in _random_states(opts, n, 8, seed=n, every=2):
        for seat in range(n):
            np.testing.assert_array_equal(
                st.observation(seat), reference_observation(st, seat), err_msg=f"seat {seat} phase {st.phase()}"
            )
            checked += 1
    assert checked > 40


def test_GB_V4_solo_through_the_pettingzoo_api():
    env = make("get_on_board_v0", num_players=1, solo_practice=True)
    api_test(env, num_cycles=200)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter():
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


def test_GB_R45_observation_cache_follows_clones_pickles_and_loads():
    """The encoder's per-state buffers: a clone starts fresh, a pickled or deep-copied state keeps
    its own copy; all agree with the reference encoder as play goes on."""
    import copy
    import pickle

    g = make_game("get_on_board_v0")
    rng = np.random.default_rng(7)
    st = g.new_initial_state(3)
    states = [st]
    for step in range(400):
        if st.is_terminal():
            break
        if step == 40:
            states = [
                st,
                st.clone(),
                pickle.loads(pickle.dumps(st)),
                copy.deepcopy(st),
                g.state_from_dict(st.to_dict()),
                st.resample_hidden(1, np.random.default_rng(3)),
            ]
        a = st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
        for s in states:
            s.apply_action(a)
            for seat in range(3):
                np.testing.assert_array_equal(s.observation(seat), reference_observation(s, seat))
    assert len(states) == 6


def test_reach_writes_only_its_declared_fields():
    """Rules.REACH_FIELDS (the encoder's change signal relies on it) covers every write of reach()."""
    from boardzoo.envs.get_on_board.rules import Rules

    rng = np.random.default_rng(11)
    for overflow in (True, False):
        g = make_game("get_on_board_v0", row_overflow=overflow)
        ranges = g.sheet_ranges()
        for _ in range(300):
            sh = [int(rng.integers(lo, hi + 1)) for lo, hi in ranges]
            for code, fields in Rules.REACH_FIELDS.items():
                for star in (False, True):
                    new = sh[:]
                    g.rules.reach(new, code, star)
                    changed = {i for i in range(len(sh)) if new[i] != sh[i]}
                    assert changed <= set(fields), (code, star, [SHEET_FIELDS[i] for i in changed - set(fields)])


def test_running_total_reads_table():
    """Rules.RUNNING_TOTAL_READS (the encoder skips the total when no field it reads changed): a field
    marked never read, or read only with another field nonzero that is 0, does not move the running total."""
    from boardzoo.envs.get_on_board.rules import Rules

    g = make_game("get_on_board_v0")
    ranges = g.sheet_ranges()
    rng = np.random.default_rng(12)
    for _ in range(300):
        sh = [int(rng.integers(lo, hi + 1)) for lo, hi in ranges]
        for i, r in enumerate(Rules.RUNNING_TOTAL_READS):
            if r == Rules.RT_ALWAYS:
                continue
            base = sh[:]
            if r >= 0:
                base[r] = 0  # e.g. the row is not scored: its count is not read
            other = base[:]
            other[i] = int(rng.integers(ranges[i][0], ranges[i][1] + 1))
            assert g.rules.total(other, False) == g.rules.total(base, False), SHEET_FIELDS[i]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_sheet_change_signal_and_cached_totals(n):
    """Every sheet write bumps the seat's version; one version later only ``sfields`` differ; the
    cached running total is the rules' formula; clones and loads keep or rebuild both."""
    g0 = make_game("get_on_board_v0")
    for opts in g0.conformance_options:
        if n == 1 and not opts.get("solo_practice"):
            continue
        g = make_game("get_on_board_v0", **opts)
        rng = np.random.default_rng(n)
        for _ in range(3):
            st = g.new_initial_state(n)
            while not st.is_terminal():
                before, ver = [sh[:] for sh in st.sheets], st.sver[:]
                st.running_total(int(rng.integers(n)))  # fill part of the cache
                a = st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
                st.apply_action(a)
                for p in range(n):
                    changed = {i for i in range(len(before[p])) if st.sheets[p][i] != before[p][i]}
                    if st.sver[p] == ver[p]:
                        assert not changed
                    elif st.sver[p] == ver[p] + 1:
                        assert changed <= set(st.sfields[p])
                    want = 0 if st.elim[p] else g.rules.total(st.sheets[p], False)
                    assert st.running_total(p) == want
                c = st.clone()
                assert c.sver == st.sver and c.sfields == st.sfields
                loaded = g.state_from_dict(st.to_dict())
                assert [loaded.running_total(p) for p in range(n)] == [st.running_total(p) for p in range(n)]
                st.check_invariants()
