"""Rule tests of Metromania, one per rule ID of the spec (MM-R1 .. MM-R55), built from readable
positions: a fixed layout (district k in slot k, rotation 0) and lines given as coordinate paths,
loaded through ``state_from_dict``; play goes through ``apply_action``.

Coordinates are axial (x, y); directions d0..d5 = (1,0), (0,1), (-1,1), (-1,0), (0,-1), (1,-1).
Handy facts of the fixed layout: along y = 1 from the white gate (-6,1) (side 2) eastwards, and along
x = -4 from the white gate (-4,-2) (side 3) northwards, every triangle beside the path is blank; the
two paths cross at (-4,1).
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations

import numpy as np
import pytest

from boardzoo.envs import BoardZooError, ConfigError
from boardzoo.envs.metromania import MetromaniaGame
from boardzoo.envs.metromania.data import components
from boardzoo.envs.metromania.geometry import COM, ENT, LAKE, PARK, RES, geometry, layout_kinds
from boardzoo.envs.metromania.rules import (
    A_END,
    A_EXTEND,
    A_MARKER,
    A_NOOP,
    A_START,
    A_STATION,
    Phase,
    trip_search,
)

G = geometry()
GAME = MetromaniaGame()
DIRS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


def V(x, y):
    return G.vidx[(x, y)]


def fresh(n=2, perm=(0, 1, 2, 3, 4, 5), rots=(0,) * 6, deal=0, start=0, game=GAME):
    """A state right after setup, through the chance nodes (MM-R53)."""
    st = game.new_initial_state(n)
    for a in (*perm, *rots, deal, start):
        st.apply_action(a)
    return st


def edge_tri(a, b, side):
    """The triangle left ('L') or right ('R') of the edge a -> b (coordinates)."""
    d = DIRS.index((b[0] - a[0], b[1] - a[1]))
    k = V(*a) * 6 + d
    return (G.tri_left if side == "L" else G.tri_right)[k]


def build(n=2, lines=None, stations=(), markers=None, to_move=0, deal=0, **fields):
    """A MAIN-phase position: ``lines[li] = (path, sides, finished)`` with the path a list of
    coordinates starting at a white gate and ``sides`` one 'L'/'R' per edge, or '?' (or a short
    string, padded with '?') for the first blank, free triangle beside the edge (left first)."""
    st = fresh(n, deal=deal)
    d = st.to_dict()
    taken: set[int] = set()
    for li, (path, sides, finished) in sorted((lines or {}).items()):
        sides = sides.ljust(len(path) - 1, "?")
        tris = []
        for a, b, side in zip(path, path[1:], sides):
            opts = ("L", "R") if side == "?" else (side,)
            for o in opts:
                t = edge_tri(a, b, o)
                if t >= 0 and t not in taken and (side != "?" or st.kinds[t] == 0):
                    break
            else:
                raise AssertionError(f"no free triangle beside {a} -> {b}")
            taken.add(t)
            tris.append(t)
        ln = d["lines"][li]
        ln["start"] = G.white_at[V(*path[0])]
        ln["verts"] = [V(*p) for p in path]
        ln["tris"] = tris
        ln["end"] = G.black_at[V(*path[-1])] if finished else -1
    d["stations"] = sorted({V(*p) for p in stations})
    for m, t in (markers or {}).items():
        d["markers"][m] = t
    d["to_move"] = to_move
    d.update(fields)
    return GAME.state_from_dict(d)


def ext(ln, d, s):
    return A_EXTEND + 12 * ln + 2 * d + s


def legal(st):
    return set(np.flatnonzero(st.legal_mask()).tolist())


EAST = [(-6, 1), (-5, 1), (-4, 1), (-3, 1), (-2, 1)]  # from white gate 7 (side 2)
NORTH = [(-4, -2), (-4, -1), (-4, 0), (-4, 1)]  # from white gate 8 (side 3)


def random_states(n, games=3, seed=0, every=1):
    rng = np.random.default_rng(seed)
    for _ in range(games):
        st = GAME.new_initial_state(n)
        i = 0
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            if i % every == 0:
                yield st
            i += 1
            la = st.legal_actions()
            st.apply_action(la[int(rng.integers(len(la)))])
        yield st


# ------------------------------------------------------------------ data and geometry
def test_MM_R2_geometry_and_data_checks():
    """MM spec Appendix A: lattice sizes, slots and rotations, templates, gates."""
    assert (G.num_vertices, G.num_edges, G.num_triangles) == (127, 342, 216)
    for s in range(6):
        for k in range(3):
            assert len(set(G.slot_cells[s][k])) == 36
    assert len({t for s in range(6) for t in G.slot_cells[s][0]}) == 216
    assert len(G.white_gates) == len(G.black_gates) == 15
    assert G.verts[G.white_gates[0]] == (5, 1) and G.verts[G.black_gates[0]] == (4, 2)
    kinds = layout_kinds(range(6), [0] * 6)
    assert Counter(kinds) == {0: 216 - 48, RES: 12, COM: 12, ENT: 12, LAKE: 6, PARK: 6}
    # cell (0, 0) of district D1 at rotation 0 in slot 0 is the triangle at the centre
    assert G.tris[G.slot_cells[0][0][0]] == tuple(sorted((V(0, 0), V(1, 0), V(0, 1))))


def test_MM_R2_layout_is_seeded_permutation_and_rotations():
    st = GAME.new_initial_state(2)
    assert st.phase() == "district" and st.chance_outcomes() == [(t, 1 / 6) for t in range(6)]
    st.apply_action(3)
    assert [o for o, _ in st.chance_outcomes()] == [0, 1, 2, 4, 5]
    assert not st.is_legal(3)
    for t in (0, 1, 2, 4, 5):
        st.apply_action(t)
    assert st.phase() == "rotation" and st.chance_outcomes() == [(k, 1 / 3) for k in range(3)]
    for k in (2, 1, 0, 0, 1, 2):
        st.apply_action(k)
    assert st.kinds == layout_kinds([3, 0, 1, 2, 4, 5], [2, 1, 0, 0, 1, 2])
    assert Counter(st.kinds)[LAKE] == 6


# ------------------------------------------------------------------ setup
def test_MM_R1_players_lines_and_tunnels():
    for n in (2, 3, 4):
        st = fresh(n)
        assert len(st.verts) == 2 * n
        assert all(st.unused(li) == 18 and not st.started(li) for li in range(2 * n))
    for bad in (1, 5):
        with pytest.raises(ConfigError):
            GAME.new_initial_state(bad)


def test_MM_R3_scores_and_supply():
    st = fresh(3)
    assert st.score == [0, 0, 0] and st.supply == 30 and st.scores() == [0.0, 0.0, 0.0]


def _kinds_of(owner, seat):
    return sorted(GAME.marker_kind[m] for m in range(12) if owner[m] == seat)


def test_MM_R4_four_player_deal():
    deals = GAME.deals[4]
    assert len(deals) == 2784 == len(set(deals))
    for owner in deals:
        for s in range(4):
            ms = [m for m in range(12) if owner[m] == s]
            assert _kinds_of(owner, s) == [RES, COM, ENT] and len({m % 6 for m in ms}) == 3
    st = fresh(4)
    st2 = GAME.new_initial_state(4)
    for a in (0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0):
        st2.apply_action(a)
    outs = st2.chance_outcomes()
    assert len(outs) == 2784 and all(p == 1 / 2784 for _, p in outs)
    assert st.owner == list(deals[0])


def test_MM_R5_three_player_deal():
    """9984 valid complete deals (first part + leftovers, as drawn); 96 of the 3936 first parts
    cannot be completed. Outcomes are the complete deals, each with probability 1/9984."""
    deals = GAME.deals[3]
    assert len(deals) == 9984
    for owner in deals:
        for s in range(3):
            ms = [m for m in range(12) if owner[m] == s]
            assert len(ms) == 4 and len({m % 6 for m in ms}) == 4, "no player holds two markers of one letter"
            assert {RES, COM, ENT} <= set(_kinds_of(owner, s))
    by = {k: [m for m in range(12) if GAME.marker_kind[m] == k] for k in (RES, COM, ENT)}
    firsts, dead, complete = 0, 0, []
    for rp in permutations(by[RES], 3):
        for cp in permutations(by[COM], 3):
            for ep in permutations(by[ENT], 3):
                if not all(len({rp[s] % 6, cp[s] % 6, ep[s] % 6}) == 3 for s in range(3)):
                    continue
                firsts += 1
                owner = [-1] * 12
                for s in range(3):
                    owner[rp[s]] = owner[cp[s]] = owner[ep[s]] = s
                left = [m for m in range(12) if owner[m] < 0]
                ok = 0
                for lp in permutations(left):
                    if all(lp[s] % 6 not in {m % 6 for m in range(12) if owner[m] == s} for s in range(3)):
                        o = list(owner)
                        for s in range(3):
                            o[lp[s]] = s
                        complete.append(tuple(o))
                        ok += 1
                dead += ok == 0
    assert (firsts, dead, len(complete)) == (3936, 96, 9984)
    assert sorted(complete) == sorted(deals)
    st = fresh(3)
    st2 = GAME.new_initial_state(3)
    for a in (0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0):
        st2.apply_action(a)
    assert len(st2.chance_outcomes()) == 9984 and st.owner == list(deals[0])


def test_MM_R6_two_player_columns():
    assert GAME.deals[2] == [tuple([0] * 6 + [1] * 6), tuple([1] * 6 + [0] * 6)]
    st = fresh(2, deal=1)
    assert st.hand(0) == list(range(6, 12)) and st.hand(1) == list(range(6))


def test_MM_R7_markers_in_hand_are_public():
    st = fresh(4)
    rng = np.random.default_rng(0)
    for seat in range(4):
        assert np.array_equal(st.observation(seat), st.resample_hidden(seat, rng).observation(seat))
    a, b = fresh(4, deal=0), fresh(4, deal=1)
    assert not np.array_equal(a.observation(0), b.observation(0)), "other seats' markers are visible"


def test_MM_R10_first_action_starts_line_0():
    st = fresh(2)
    assert legal(st) == {A_START + g for g in range(15)}


def test_MM_R11_start_tile_and_head():
    st = fresh(2)
    st.apply_action(A_START + 7)
    assert st.verts[0] == [V(-6, 1)] and st.head(0) == V(-6, 1)
    assert V(-6, 1) in st.has_station and V(-6, 1) not in st.stations, "the start marker is a station"
    assert st.phase() == "dig" and st.dig_left == 2 and st.unused(0) == 17


def test_MM_R12_second_line_on_a_far_side():
    st = build(lines={0: (EAST, "", False)})  # side 2
    starts = {a - A_START - 15 for a in legal(st) if A_START + 15 <= a < A_EXTEND}
    assert starts and {G.white_side[g] for g in starts} == {0, 4, 5}


def test_MM_R13_start_only_as_first_tunnel():
    st = build(lines={0: (EAST, "", False)})
    st.apply_action(ext(0, 0, 0))
    assert st.phase() == "dig" and not any(a < A_EXTEND for a in legal(st))


def test_MM_R14_dig_places_three_tunnels():
    st = build(lines={0: (EAST[:2], "L", False)})
    st.apply_action(ext(0, 0, 0))
    st.apply_action(ext(0, 0, 0))
    assert st.current_player() == 0 and st.dig_left == 1
    st.apply_action(ext(0, 0, 0))
    assert st.current_player() == 1 and st.phase() == "main" and st.verts[0][-1] == V(-2, 1)
    assert st.unused(0) == 18 - 5


def test_MM_R14_dig_ends_early_without_a_legal_tunnel():
    st = build(lines={0: (LONG17, "", False)})  # 1 unused tunnel: the Dig ends after it
    assert st.unused(0) == 1
    st.apply_action(min(a for a in legal(st) if A_EXTEND <= a < A_MARKER))
    assert st.unused(0) == 0 and st.current_player() == 1


def test_MM_R15_split_a_dig_between_lines():
    st = build(lines={0: (EAST[:2], "L", False), 1: ([(5, -6), (5, -5)], "L", False)})
    st.apply_action(ext(0, 0, 0))
    st.apply_action(ext(1, 1, 0))
    assert st.current_player() == 0
    st.apply_action(ext(0, 0, 0))
    assert st.current_player() == 1
    assert st.verts[0][-1] == V(-3, 1) and st.verts[1][-1] == V(5, -4)


# ------------------------------------------------------------------ placing tunnels
def test_MM_R16_extend_from_the_head():
    st = build(lines={0: (EAST[:3], "LL", False)})
    st.apply_action(ext(0, 0, 1))  # east, right side
    assert st.head(0) == V(-3, 1)
    assert st.tris[0][-1] == edge_tri((-4, 1), (-3, 1), "R") == st.tris[0][-1]
    assert st.tri_line[edge_tri((-4, 1), (-3, 1), "R")] == 0


def _reference_tunnel_legal(st, li, d, s):
    """MM-R16..R23, R25 straight from the spec."""
    if not st.started(li) or st.finished(li) or st.unused(li) < 1:
        return False
    h = st.verts[li][-1]
    x, y = G.verts[h]
    w = G.vidx.get((x + DIRS[d][0], y + DIRS[d][1]))
    if w is None or w in st.verts[li]:
        return False
    side = DIRS[(d + 1) % 6] if s == 0 else DIRS[(d + 5) % 6]
    third = G.vidx.get((x + side[0], y + side[1]))
    if third is None:
        return False
    t = G.tris.index(tuple(sorted((h, w, third))))
    if any(t in ts for ts in st.tris) or st.kinds[t] in (LAKE, PARK):
        return False
    if len(st.verts[li]) >= 2:
        px, py = G.verts[st.verts[li][-2]]
        a = DIRS.index((x - px, y - py))
        if (d - a) % 6 in (2, 4) and h not in st.has_station:
            return False
    if st.kinds[t]:
        if st.covered:
            return False
        seat = li // 2
        ok = False
        for m in st.hand(seat):
            if GAME.marker_kind[m] != st.kinds[t]:
                continue
            other = st.marker_tri[(m + 6) % 12]
            if other >= 0 and set(G.tris[other]) & set(G.tris[t]):
                continue
            ok = True
        if not ok:
            return False
    return True


@pytest.mark.parametrize("n", [2, 4])
def test_MM_R17_R18_R19_R20_R22_R23_R24_R25_extend_mask_matches_the_spec(n):
    """The EXTEND mask equals a plain reading of the spec at every decision of random games."""
    checked = 0
    for st in random_states(n, games=2, seed=n):
        if st.phase_id not in (Phase.MAIN, Phase.DIG):
            continue
        m = st.legal_mask()
        p = st.to_move
        for ln in (0, 1):
            for d in range(6):
                for s in (0, 1):
                    want = _reference_tunnel_legal(st, 2 * p + ln, d, s)
                    assert bool(m[ext(ln, d, s)]) == want, (st.to_dict(), ln, d, s)
                    checked += 1
    assert checked > 1000


LONG18 = [(-6, 1), (-5, 1), (-4, 1), (-3, 1), (-2, 1), (-1, 1), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (6, 0)]
LONG18 += [(6, -1), (5, -1), (4, 0), (3, 0), (2, 0)]  # 18 vertices: no tunnel left
LONG17 = LONG18[:-1]
TO_SIDE1 = [(-6, 1), (-5, 1), (-4, 1), (-3, 1), (-2, 1), (-1, 1), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (4, 2)]
TO_SIDE1 += [(3, 3), (2, 4), (1, 4), (0, 5), (-1, 6)]  # 17 vertices, head on black gate (-1,6) of side 1
FAR_END = TO_SIDE1[:12]  # head on the black gate (4,2) of side 0
SHORT_FIN = [(5, -6), (5, -5), (6, -5)]  # white gate side 4 -> black gate (6,-5) side 5


def test_MM_R8_start_player_and_seat_order():
    st = GAME.new_initial_state(3)
    for a in (0, 1, 2, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0):
        st.apply_action(a)
    assert st.phase() == "start_player" and st.chance_outcomes() == [(s, 1 / 3) for s in range(3)]
    st.apply_action(2)
    order = []
    for _ in range(4):
        p = st.current_player()
        order.append(p)
        while st.current_player() == p:
            st.apply_action(min(legal(st)))
    assert order == [2, 0, 1, 2] and st.start == 2


def test_MM_R9_one_action_and_pass_only_when_nothing_is_legal():
    st = build(lines={0: (EAST, "", False)})
    assert A_NOOP not in legal(st)
    st = build(lines={0: (FAR_END, "", True), 1: (SHORT_FIN, "", True), 2: (NORTH, "", False)}, final_left=1)
    assert legal(st) == {A_NOOP}, "both lines finished: only a pass"


def test_MM_R17_no_tunnel_on_lake_park_or_occupied():
    st = build(lines={0: ([(-6, 1), (-5, 1), (-5, 2)], "", False)})
    assert st.kinds[edge_tri((-5, 2), (-4, 2), "L")] == LAKE
    assert ext(0, 0, 0) not in legal(st) and ext(0, 0, 1) in legal(st)
    # a triangle holding another line's tunnel is taken
    st = build(lines={0: (EAST, "", False), 2: (NORTH, "", False)}, to_move=1)
    assert st.tri_line[edge_tri((-4, 1), (-3, 1), "L")] == 0
    assert ext(0, 0, 0) not in legal(st) and ext(0, 0, 1) in legal(st)


def test_MM_R18_no_return_to_itself():
    st = build(lines={0: (EAST[:3], "", False)}, stations=[(-4, 1)])
    assert ext(0, 3, 0) not in legal(st) and ext(0, 3, 1) not in legal(st)
    # round a triangle: (-4,1) -> (-4,2) -> (-5,2) (a sharp turn at the station (-4,2)); (-5,1) is its own
    st = build(lines={0: ([(-6, 1), (-5, 1), (-4, 1), (-4, 2), (-5, 2)], "??R?", False)}, stations=[(-4, 2)])
    assert not {ext(0, 4, 0), ext(0, 4, 1)} & legal(st)
    assert {ext(0, 3, 0), ext(0, 3, 1)} & legal(st), "straight on to (-6,2) is fine"


def test_MM_R19_sharp_turns_need_a_station_already_there():
    st = build(lines={0: (EAST[:3], "", False)})  # head (-4,1), last direction d0
    lg = legal(st)
    assert {ext(0, 1, 0), ext(0, 1, 1), ext(0, 5, 0), ext(0, 5, 1)} & lg, "60-degree turns are legal"
    assert ext(0, 0, 0) in lg, "straight on is legal"
    assert not {ext(0, 2, 0), ext(0, 2, 1), ext(0, 4, 0), ext(0, 4, 1)} & lg, "120-degree turns need a station"
    st = build(lines={0: (EAST[:3], "", False)}, stations=[(-4, 1)])
    assert {ext(0, 2, 0), ext(0, 2, 1)} & legal(st) and {ext(0, 4, 0), ext(0, 4, 1)} & legal(st)
    # a station the same tunnel creates does not allow its own sharp turn: seat 1's line crosses (-4,1)
    st = build(lines={0: (EAST[:3], "", False), 2: (NORTH + [(-4, 2)], "", False)})
    assert V(-4, 1) not in st.has_station
    assert not {ext(0, 4, 0), ext(0, 4, 1), ext(0, 2, 0), ext(0, 2, 1)} & legal(st)
    st.apply_action(ext(0, 0, 1))
    assert V(-4, 1) in st.stations, "the crossing made a station (MM-R28)"


def test_MM_R20_finished_or_exhausted_lines_cannot_grow():
    st = build(lines={0: (FAR_END, "", True)})
    assert not any(A_EXTEND <= a < A_MARKER for a in legal(st))
    st = build(lines={0: (LONG18, "", False)})
    assert st.unused(0) == 0
    assert not any(A_EXTEND <= a < A_MARKER for a in legal(st)) and A_END not in legal(st)


def test_MM_R21_gates_take_one_tile():
    st = build(lines={0: (EAST, "", False)})
    assert A_START + 15 + 7 not in legal(st) and 7 not in st.start_gates(1) and 7 in st.white_used
    # the black gate (4,2) is used by seat 0's finished line: seat 1's head there cannot end
    path = [(5, 1), (4, 2)]
    st = build(lines={0: (FAR_END, "", True), 2: (path, "", False)}, to_move=1)
    assert A_END not in legal(st)


def test_MM_R22_parallel_running_on_opposite_triangles():
    st = build(lines={0: (EAST, "", False), 2: (NORTH, "", False)}, to_move=1)
    assert ext(0, 0, 1) in legal(st) and ext(0, 0, 0) not in legal(st)
    st.apply_action(ext(0, 0, 1))
    e = G.edge[V(-4, 1) * 6 + 0]
    assert sorted(st.edge_lines[e]) == [0, 2]
    # a perimeter edge has one city triangle, so it carries at most one line
    k = V(-6, 1) * 6 + 1
    assert (G.tri_left[k] < 0) != (G.tri_right[k] < 0)


# ------------------------------------------------------------------ destinations
E72 = edge_tri((-2, 1), (-1, 0), "R")  # the E triangle {(-2,0),(-2,1),(-1,0)}
R52 = edge_tri((-3, 0), (-2, -1), "L")  # the R triangle {(-3,0),(-2,-1),(-2,0)}, touching E72
TO_R52 = [(-4, -2), (-4, -1), (-4, 0), (-3, 0), (-2, -1)]


def test_MM_R23_destination_needs_a_marker_of_its_type():
    st = build(lines={0: (EAST, "", False)})  # deal 0: seat 0 holds the left column
    assert st.kinds[E72] == ENT and st.qualifying_markers(0, E72) == [2, 5]  # C and F (type E)
    assert ext(0, 5, 1) in legal(st)
    # seat 0's E markers are both placed: the E triangle cannot be dug
    e210 = edge_tri((6, -2), (5, -1), "L")  # E triangle {(5,-2),(5,-1),(6,-2)}
    st = build(lines={0: (EAST, "", False), 1: ([(6, -2), (5, -1)], "L", False)}, markers={2: e210})
    assert st.kinds[st.marker_tri[2]] == ENT
    d = st.to_dict()
    assert d["markers"][5] == -1
    assert st.qualifying_markers(0, E72) == [5]


def test_MM_R23_R26_marker_choice():
    """MM-R23, MM-R26: two qualifying markers: the player chooses."""
    st = build(lines={0: (EAST, "", False)})
    st.apply_action(ext(0, 5, 1))
    assert st.phase() == "marker" and legal(st) == {A_MARKER + 2, A_MARKER + 5}
    st.apply_action(A_MARKER + 5)
    assert st.marker_tri[5] == E72 and st.hand(0) == [0, 1, 2, 3, 4]
    assert st.phase() == "dig" and st.covered


def test_MM_R24_same_letters_never_touch():
    # seat 1's F marker (F right, type R) lies on R52, which touches E72: seat 0's F-left cannot go there
    st = build(lines={0: (EAST, "", False), 2: (TO_R52, "???L", False)}, markers={11: R52})
    assert R52 in G.tri_touch[E72]
    assert st.qualifying_markers(0, E72) == [2]
    st.apply_action(ext(0, 5, 1))  # a single marker qualifies: placed without a MARKER sub-step
    assert st.marker_tri[2] == E72 and st.phase() == "dig"


def test_MM_R25_one_destination_per_action():
    st = build(lines={0: (EAST, "", False)})
    st.apply_action(ext(0, 5, 1))
    st.apply_action(A_MARKER + 2)
    assert st.covered
    for a in legal(st):
        r = a - A_EXTEND
        k = st.head(0) * 6 + (r % 12) // 2
        t = (G.tri_right if r % 2 else G.tri_left)[k]
        assert st.kinds[t] == 0, "no second destination in the same action"


# ------------------------------------------------------------------ stations
def test_MM_R27_R54_start_and_end_markers_count_as_stations():
    st = build(lines={0: (FAR_END, "", True)})
    assert {V(-6, 1), V(4, 2)} <= st.has_station and not st.stations and st.supply == 30
    # a line along the frame passes the white gate (-6,3); a station there stays when a line starts on it
    st = build(lines={0: ([(-6, 1), (-6, 2), (-6, 3)], "", False)})
    st.apply_action(A_STATION + V(-6, 3))
    st.apply_action(A_START + 6)
    assert st.verts[2] == [V(-6, 3)] and V(-6, 3) in st.stations


def test_MM_R28_crossing_makes_a_station():
    st = build(lines={0: (EAST, "", False), 2: (NORTH, "", False)}, to_move=1)
    assert V(-4, 1) not in st.has_station, "seat 1's head: the check waits"
    st.apply_action(ext(0, 1, 0))  # seat 1 goes on north from (-4,1) to (-4,2): a crossing
    assert V(-4, 1) in st.stations and st.supply == 29


def test_MM_R28_branching_yes_parallel_no():
    st = build(lines={0: (EAST, "", False), 2: (NORTH, "", False)}, to_move=1)
    st.apply_action(ext(0, 0, 1))  # (-4,1) -> (-3,1): shares 1 edge at (-4,1) (merging)
    assert V(-4, 1) in st.stations
    st.apply_action(ext(0, 0, 1))  # (-3,1) -> (-2,1): shares both edges at (-3,1): parallel
    assert V(-3, 1) not in st.has_station


def test_MM_R29_no_station_when_the_supply_is_empty():
    st = build(lines={0: (EAST, "", False), 2: (NORTH, "", False)}, to_move=1)
    d = st.to_dict()
    d["stations"] = sorted({V(*p) for p in EAST[1:] + NORTH[1:]} | {V(-6, 2)} if False else [])
    st = GAME.state_from_dict(d)
    st.stations |= set(range(1000, 1030))  # every supply station is out (only the count matters)
    assert st.supply == 0
    st.apply_action(ext(0, 1, 0))
    assert V(-4, 1) not in st.has_station


def test_MM_R30_build_station_on_own_line():
    st = build(lines={0: (EAST, "", False), 2: (NORTH, "", False)})
    builds = {a - A_STATION for a in legal(st) if A_STATION <= a < A_END}
    assert builds == {V(*p) for p in EAST[1:]}, "own line, start gate excluded, head allowed"
    st.apply_action(A_STATION + V(-2, 1))
    assert V(-2, 1) in st.stations and st.current_player() == 1


def test_MM_R31_station_points_for_the_active_player():
    st = build(lines={0: (EAST + [(-1, 0)], "????R", False)}, markers={2: E72})
    st.apply_action(A_STATION + V(-2, 1))
    assert st.score == [1, 0], "one marked triangle at (-2,1)"
    st = build(lines={0: (EAST + [(-1, 0)], "????R", False)}, markers={2: E72})
    st.apply_action(A_STATION + V(-3, 1))
    assert st.score == [0, 0]


def test_MM_R32_no_build_on_finished_lines_but_automatic_stations_still_happen():
    st0 = build(lines={0: (FAR_END, "", True), 2: (NORTH, "", False)})
    assert not any(A_STATION <= a < A_END for a in legal(st0)), "seat 0's only line is finished"
    st = build(lines={0: (FAR_END, "", True), 2: (NORTH, "", False)}, to_move=1)
    st.apply_action(ext(0, 1, 0))  # seat 1 crosses the finished line at (-4,1)
    assert V(-4, 1) in st.stations


# ------------------------------------------------------------------ ending a line
def test_MM_R33_end_line_at_a_black_gate():
    st = build(lines={0: (FAR_END, "", False)})
    assert A_END in legal(st) and A_END + 1 not in legal(st)
    before = st.unused(0)
    st.apply_action(A_END)
    assert st.finished(0) and st.end_gate[0] == G.black_at[V(4, 2)] and st.unused(0) == before - 1
    assert st.phase() == "end_station"


def test_MM_R34_no_end_near_the_start_side_unless_forced():
    # head on the black gate (-6,2) of the line's own start side: illegal while others are reachable
    st = build(lines={0: ([(-6, 1), (-6, 2)], "", False)})
    assert G.black_side[G.black_at[V(-6, 2)]] == 2
    assert A_END not in legal(st) and any(G.black_side[b] in (4, 5, 0) for b in st.reachable_black_gates(0))
    # trapped at (-6,2) after a sharp turn: no other gate is reachable, so it may end there
    st = build(lines={0: ([(-6, 1), (-5, 1), (-5, 2), (-6, 2)], "", False)}, stations=[(-5, 2)])
    assert st.reachable_black_gates(0) == {G.black_at[V(-6, 2)]} and A_END in legal(st)
    # the black gate (-1,6) on side 1 (next to the start side) with 1 tunnel left: nothing else reachable
    st = build(lines={0: (TO_SIDE1, "", False)})
    assert st.unused(0) == 1 and st.reachable_black_gates(0) == {G.black_at[V(-1, 6)]}
    assert A_END in legal(st)


def test_MM_R35_free_station_after_ending():
    st = build(lines={0: (FAR_END, "", False)})
    st.apply_action(A_END)
    opts = {a - A_STATION for a in legal(st) if A_STATION <= a < A_END}
    assert A_NOOP in legal(st) and opts == {V(*p) for p in FAR_END[1:-1]}
    st.apply_action(A_STATION + V(0, 1))
    assert V(0, 1) in st.stations and st.current_player() == 1
    st = build(lines={0: (FAR_END, "", False)})
    st.apply_action(A_END)
    st.apply_action(A_NOOP)
    assert not st.stations and st.current_player() == 1


def test_MM_R36_reachability_search():
    st = build(lines={0: (EAST[:2], "", False)})
    assert len(st.reachable_black_gates(0)) == 15, "an early line reaches every free gate"
    st = build(lines={0: (FAR_END, "", False)})
    assert G.black_at[V(4, 2)] in st.reachable_black_gates(0), "the head's own gate with 0 steps"
    # the budget: 1 unused tunnel = 0 steps; the head (2,0) of LONG17 is no gate
    st = build(lines={0: (LONG17, "", False)})
    assert st.unused(0) == 1 and st.reachable_black_gates(0) == set()
    # 3 steps from the head (4,1) of a line with 4 unused tunnels
    path = [(-6, 1), (-5, 1), (-4, 1), (-3, 1), (-2, 1), (-1, 1), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1)]
    st = build(lines={0: (path + [(5, 0)], "", False)})
    assert st.unused(0) == 6
    near = {G.verts[G.black_gates[b]] for b in st.reachable_black_gates(0)}
    assert near == {(6, -1), (6, -3), (6, -5)}, "1, 3 and 5 steps; (4,2) would need a sharp turn"


def test_MM_R37_unfinishable_lines():
    st = build(lines={0: (EAST[:2], "", False)})
    assert not st.unfinishable(0) and not st.unfinishable(1), "a line with a legal start is not unfinishable"
    assert build(lines={0: (LONG17, "", False)}).unfinishable(0), "no gate within reach"
    assert build(lines={0: (LONG18, "", False)}).unfinishable(0), "no tunnel left"
    assert not build(lines={0: (FAR_END, "", True)}).unfinishable(0)


# ------------------------------------------------------------------ end of construction
def test_MM_R38_trigger_a_both_lines_finished():
    st = build(lines={0: (FAR_END, "", False), 1: (SHORT_FIN, "", True)})
    assert st.final_left == -1
    st.apply_action(A_END)
    st.apply_action(A_NOOP)
    assert st.final_left == 1 and st.current_player() == 1


def test_MM_R38_trigger_b_supply_empty_and_c_lines_done():
    st = build(lines={0: (EAST, "", False)})
    assert not st.triggered()
    st.stations |= set(range(1000, 1030))
    assert st.triggered(), "(b) the supply is empty"
    # (c) 2 players: 3 lines finished or unfinishable
    st = build(lines={0: (FAR_END, "", True), 2: (TO_R52[:2], "", False)})
    assert GAME.trigger_lines[2] == 3 and not st.triggered()
    st = build(lines={0: (FAR_END, "", False), 1: (SHORT_FIN, "", True), 2: (NORTH, "", False)}, to_move=0)
    st.apply_action(A_END + 0)
    assert st.final_left == -1 and st.phase() == "end_station"
    d = build(lines={0: (LONG17, "", False), 2: (NORTH, "", False)}).to_dict()
    assert d["final_left"] == -1


def test_MM_R39_final_round():
    st = build(n=3, lines={0: (FAR_END, "", False), 1: (SHORT_FIN, "", True)})
    st.apply_action(A_END)
    st.apply_action(A_NOOP)
    assert st.final_left == 2 and st.current_player() == 1
    while st.current_player() == 1:
        st.apply_action(min(legal(st)))
    assert st.current_player() == 2 and st.final_left == 1
    while st.current_player() == 2:
        st.apply_action(min(legal(st)))
    assert st.is_terminal(), "the triggering player takes no extra turn"


def test_MM_R39_all_pass_ends_at_once():
    st = build(n=3, lines={0: (FAR_END, "", True), 1: (SHORT_FIN, "", True)}, final_left=2, passes=2)
    assert legal(st) == {A_NOOP}
    st.apply_action(A_NOOP)
    assert st.is_terminal(), "three passes in a row: scoring at once"


# ------------------------------------------------------------------ final scoring
def test_MM_R42_R43_trip_search_on_hand_built_networks():
    """MM-R42, MM-R43: the Dijkstra over (station, line) nodes."""
    # line 0: stations 1 - 2 - 3 - 4; line 1: 10 - 3 - 11
    net = {0: [1, 2, 3, 4], 1: [10, 3, 11]}
    assert trip_search(net, {1}, {4})[:2] == (3, {0})
    assert trip_search(net, {1}, {11})[:2] == (2 + 3 + 1, {0, 1}), "2 rides, a change, 1 ride"
    assert trip_search(net, {1}, {99})[0] is None
    assert trip_search(net, {3}, {3})[:2] == (0, set()), "one station serves both ends"
    # two equally fast routes: both lines are used (union)
    net = {0: [1, 2, 5], 1: [1, 3, 5], 2: [1, 4, 6, 7, 5]}
    t, used, route = trip_search(net, {1}, {5})
    assert t == 2 and used == {0, 1} and route[0] == 1 and route[-1] == 5
    # a change costs 3: riding 3 stations beats changing once
    net = {0: [1, 2, 3, 4], 1: [1, 9], 2: [9, 4]}
    assert trip_search(net, {1}, {4})[:2] == (3, {0})
    net = {0: [1, 2, 3, 4, 5, 6], 1: [1, 9], 2: [9, 6]}
    assert trip_search(net, {1}, {6})[:2] == (5, {0, 1, 2}), "5 rides = 1 + 3 + 1"
    # several sources and targets; a ride is free to go both ways
    net = {0: [1, 2, 3], 1: [7, 8]}
    assert trip_search(net, {1, 7}, {3, 8})[:2] == (1, {1})
    assert trip_search({0: [3, 2, 1]}, {1}, {3})[:2] == (2, {0})


# seat 0's line east to (-1,0) with C-left (E) on E72; seat 1's line north, crossing at (-4,1),
# a sharp turn at (-4,2), then west and onto the R triangle {(-6,2),(-5,1),(-5,2)} with C-right (R)
R5 = edge_tri((-5, 2), (-5, 1), "R")
TRIP_C = dict(
    lines={0: (EAST + [(-1, 0)], "??R?R", False), 2: (NORTH + [(-4, 2), (-5, 2), (-5, 1)], "???R?R", False)},
    markers={2: E72, 8: R5},
    stations=[(-4, 1), (-4, 2), (-2, 1), (-5, 1)],
)


def test_MM_R40_R41_R44_fastest_trip_scores_its_lines_owners():
    """MM-R40, MM-R41 (corner stations serve), MM-R43 (route), MM-R44 (owners of used lines score)."""
    st = build(**TRIP_C)
    tr = st.trips()[2]  # trip C: E72 (served by (-2,1)) to R5 (served by (-5,1))
    assert tr["run"] and tr["time"] == 2 and tr["lines"] == [0] and tr["scorers"] == [0]
    assert tr["route"] == [V(-2, 1), V(-4, 1), V(-5, 1)]
    # without the station at (-2,1) E72 is served by no station: no connection (MM-R45)
    d = dict(TRIP_C, stations=[(-4, 1), (-4, 2), (-5, 1)])
    tr = build(**d).trips()[2]
    assert tr["time"] is None and tr["penalised"] == [0, 1]
    # trip 7 (lake - park) with no connection: nobody scores or is penalised
    assert build(**TRIP_C).trips()[6]["penalised"] == []


def test_MM_R45_R46_R47_R48_final_penalties():
    """MM-R45, MM-R46, MM-R47 (markers in hand), MM-R48 (unfinished lines)."""
    st = build(lines={0: (FAR_END, "", True)})
    add, count, trips = st.final_scoring()
    sc = components()["scoring"]
    assert all(not tr["run"] for tr in trips[:6]), "MM-R46: no marker placed, no trip run"
    # seat 0: 6 markers in hand and 1 unstarted line; seat 1: 6 markers and 2 lines
    assert add == [6 * sc["marker_in_hand_penalty"] + sc["unfinished_line_penalty"], 6 * -3 - 2 * 3]
    d = dict(TRIP_C, stations=[(-4, 1), (-4, 2), (-5, 1)])
    add, count, _ = build(**d).final_scoring()
    assert add == [-2 - 5 * 3 - 2 * 3, -2 - 5 * 3 - 2 * 3] and count == [0, 0]


def test_MM_R49_R50_R55_scores_winners_and_tie_break():
    st = build(**TRIP_C)
    add, count, _ = st.final_scoring()
    assert count == [1, 0]
    # equal totals: seat 0 scored in more trips and wins
    d = st.to_dict()
    d["phase"] = int(Phase.END)
    d["scores"] = [0, add[0] - add[1]]
    end = GAME.state_from_dict(d)
    s = end.scores()
    assert s[0] == s[1] and end.winners() == [0]
    assert s[0] < 0, "MM-R50: scores may be negative"
    d["scores"] = [0, add[0] - add[1] + 1]
    assert GAME.state_from_dict(d).winners() == [1]


def test_MM_R51_line_0_first():
    st = fresh(2)
    assert not any(A_START + 15 <= a < A_EXTEND for a in legal(st))


def test_MM_R52_marker_counts_for_the_station_of_the_same_tunnel():
    # seat 1's line passes (-2,1); seat 0 digs from (-2,1) onto E72: the crossing station at (-2,1)
    # is placed after the marker and scores it
    other = [(-6, 3), (-5, 3), (-4, 3), (-3, 2), (-2, 1), (-1, 1)]
    st = build(lines={0: (EAST, "", False), 2: (other, "", False)})
    assert V(-2, 1) not in st.has_station
    st.apply_action(ext(0, 5, 1))
    assert st.phase() == "marker" and V(-2, 1) not in st.has_station
    st.apply_action(A_MARKER + 2)
    assert V(-2, 1) in st.stations and st.score[0] == 1


def test_MM_R53_setup_chance_order():
    st = GAME.new_initial_state(2)
    phases = []
    rng = np.random.default_rng(0)
    while st.is_chance_node():
        phases.append(st.phase())
        st.apply_action(st.sample_chance(rng))
    assert phases == ["district"] * 6 + ["rotation"] * 6 + ["deal", "start_player"]


def test_MM_R54_passing_a_gate_and_starting_without_extension():
    st = build(lines={0: ([(3, 3), (4, 2), (4, 1)], "", False)})  # through the black gate (4,2)
    assert st.end_gate[0] == -1 and G.black_at[V(4, 2)] not in st.black_used
    assert A_END not in legal(st)


def test_MM_R55_scores_before_the_end_are_the_points_so_far():
    st = build(lines={0: (EAST, "", False)}, scores=[4, 1])
    assert st.scores() == [4.0, 1.0]


def test_MM_R4_R5_R6_saved_state_refuses_bad_deal():
    d = fresh(2).to_dict()
    d["deal"] = 2
    with pytest.raises(BoardZooError):
        GAME.state_from_dict(d)


def test_options_are_validated():
    with pytest.raises(ConfigError):
        MetromaniaGame(nope=1)
    with pytest.raises(ConfigError):
        MetromaniaGame(action_features="yes")


def test_MM_R36_R37_fast_search_agrees_with_the_breadth_first_search():
    """The best-first existence check used for MM-R37 gives the answer of MM-R36's search."""
    n = 0
    for st in random_states(4, games=3, seed=7):
        for li in range(8):
            if st.started(li) and not st.finished(li) and st.unused(li) >= 1:
                assert st._some_gate_reachable(li) == bool(st.reachable_black_gates(li))
                n += 1
                for bad in ((0, 1, 5), (2, 3, 1)):
                    want = any(G.black_side[b] not in bad for b in st.reachable_black_gates(li))
                    assert st._some_gate_reachable(li, bad) == want
    assert n > 200
