"""The rules' remembered answers (speed caches) against a fresh computation, along random games."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs.core.game import CHANCE, State
from boardzoo.envs.metromania import MetromaniaGame
from boardzoo.envs.metromania.rules import Phase, forbidden_sides


def _decisions(game, n: int, games: int, rng: np.random.Generator, clone_prob: float):
    """The decision states of ``games`` random games at ``n`` players, one at a time (chance from
    ``rng``); after each, with ``clone_prob``, play goes on from a clone (which carries the
    remembered answers on), then a random legal action is applied."""
    for _ in range(games):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            if st.current_player() == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            yield st
            if rng.random() < clone_prob:
                st = st.clone()
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_MM_R36_R37_remembered_gate_search_matches_a_fresh_search(n):
    """``_some_gate_reachable`` (remembered between moves) gives the answer of a new search."""
    game = MetromaniaGame()
    rng = np.random.default_rng(20 + n)
    checked = 0
    for st in _decisions(game, n, 4, rng, clone_prob=0.1):
        for li in range(2 * n):
            if rng.random() < 0.5:  # answers remembered for a while, then checked
                continue
            if st.started(li) and not st.finished(li) and st.unused(li) >= 1:
                for bad in ((), forbidden_sides(st.start_side(li))):
                    assert st._some_gate_reachable(li, bad) == (st._gate_search(li, bad)[0] >= 0)
                    checked += 1
    assert checked > 150


@pytest.mark.parametrize("n", [2, 3, 4])
def test_MM_R53_chance_draws_match_the_default_sampler(n):
    """``sample_chance`` (no arrays) draws what the default ``State.sample_chance`` draws from the
    same generator, and leaves it in the same state."""
    game = MetromaniaGame()
    for seed in range(60):
        st = game.new_initial_state(n)
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        while st.current_player() == CHANCE:
            want = State.sample_chance(st, r1) if st.phase_id != Phase.DEAL else st.sample_chance(r1)
            got = st.sample_chance(r2)
            assert got == want
            st.apply_action(got)
        assert r1.random() == r2.random()


@pytest.mark.parametrize("n", [2, 4])
def test_MM_R17_R22_open_triangles_and_station_log_follow_the_board(n):
    """``open`` (kept as tunnels go down) is what the layout and the tunnels give; ``station_log``
    lists ``has_station`` once each; ``last_d`` is each line's last direction; a clone and a
    loaded state carry the same."""
    game = MetromaniaGame()
    rng = np.random.default_rng(40 + n)
    for _ in range(3):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            if st.current_player() == CHANCE:
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
            for s in (st, st.clone(), game.state_from_dict(st.to_dict())):
                want = [0 if s.tri_line[t] >= 0 or k >= 4 else (2 if k else 1) for t, k in enumerate(s.kinds)]
                assert s.open == want + [0]
                assert sorted(s.station_log) == sorted(s.has_station)
                sd = game.step_dir
                assert s.last_d == [sd[(vs[-2], vs[-1])] if len(vs) >= 2 else -1 for vs in s.verts]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_MM_R23_remembered_destination_and_gate_distances_match_a_fresh_computation(n):
    """``dest_distance`` and ``gate_distance`` (remembered per state lineage, carried by clones)
    give what the definition gives from the board as it is: the free destination triangles of a
    kind the seat holds a marker for (MM-R23), the free black gates off the given sides."""
    game = MetromaniaGame()
    g = game.geo
    hd = [[(abs(ax - bx) + abs(ay - by) + abs(ax - bx + ay - by)) // 2 for bx, by in g.verts] for ax, ay in g.verts]
    rng = np.random.default_rng(60 + n)
    checked = 0
    for st in _decisions(game, n, 3, rng, clone_prob=0.3):
        for seat in range(n):
            kinds = {game.marker_kind[m] for m in st.hand(seat)}
            dests = [v for t, k in enumerate(st.kinds) if k in kinds and st.tri_line[t] < 0 for v in g.tris[t]]
            got = st.dest_distance(seat)
            if not dests:
                assert got is None
            else:
                assert got is not None
                assert got[0] == [min(hd[v][w] for w in dests) for v in range(g.num_vertices)]
                assert got[1] == [sum(hd[v][w] <= 3 for w in dests) for v in range(g.num_vertices)]
            checked += 1
        for bad in ((), forbidden_sides(int(rng.integers(6)))):
            free = [v for b, v in enumerate(g.black_gates) if b not in st.black_used and g.black_side[b] not in bad]
            want = [min(hd[v][w] for w in free) for v in range(g.num_vertices)] if free else []
            assert st.gate_distance(bad) == want
    assert checked > 300


@pytest.mark.parametrize("n", [2, 3])
def test_clone_shares_line_lists_until_either_side_extends_the_line(n):
    """``clone`` shares each line's lists with the original until one of them extends that line
    (copy on write): playing on the clone leaves the original as it was, and the other way round."""
    game = MetromaniaGame()
    rng = np.random.default_rng(80 + n)
    checked = 0
    for _ in range(3):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            if st.current_player() == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            if rng.random() < 0.3:
                before = st.to_dict()
                c = st.clone()
                for _ in range(4):  # the clone plays on: the original stays
                    if c.is_terminal():
                        break
                    c.apply_action(
                        c.sample_chance(rng)
                        if c.current_player() == CHANCE
                        else int(rng.choice(np.flatnonzero(c.legal_mask())))
                    )
                assert st.to_dict() == before
                after_clone = c.to_dict()
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))  # and the other way round
                assert c.to_dict() == after_clone
                assert [set(v) for v in c.verts] == c.vset and [set(v) for v in st.verts] == st.vset
                checked += 1
                continue
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert checked > 30
