"""Harmonies geometry (spec 2.1) and the pattern matcher (HA-R15, HA-R16), on bare boards."""

from __future__ import annotations

import pytest

from boardzoo.envs.harmonies.board import Geometry, parse_pattern, rotate, step
from boardzoo.envs.harmonies.data import cards, components

CODES = frozenset({"G", "GB", "GBB", "W", "Y", "M", "MM", "MMM", "RX"})
SIDE_A = Geometry(components()["board_sides"]["A"]["columns"])
SIDE_B = Geometry(components()["board_sides"]["B"]["columns"])


def test_board_sides_and_hex_index_order():
    assert SIDE_A.size == 23 and SIDE_B.size == 25
    assert SIDE_A.spaces[:6] == ((0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0))
    assert SIDE_B.spaces[-1] == (6, 3) and (1, 3) not in SIDE_B.index


@pytest.mark.parametrize(
    "xy,expected",
    [
        ((2, 2), [(2, 1), (3, 1), (3, 2), (2, 3), (1, 2), (1, 1)]),  # even column
        ((1, 1), [(1, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)]),  # odd column, half a hex down
    ],
)
def test_directions_from_even_and_odd_columns(xy, expected):
    assert [step(*xy, d) for d in range(1, 7)] == expected


def test_neighbours_are_symmetric_and_edges_cut():
    for geo in (SIDE_A, SIDE_B):
        for h, row in enumerate(geo.neighbours):
            for d, n in enumerate(row, start=1):
                if n >= 0:
                    assert geo.neighbours[n][rotate(d, 3) - 1] == h, "the opposite direction leads back"
    assert set(SIDE_A.adjacent[SIDE_A.hex_of(0, 0)]) == {SIDE_A.hex_of(0, 1), SIDE_A.hex_of(1, 0)}
    assert len(SIDE_A.adjacent[SIDE_A.hex_of(2, 2)]) == 6


def test_rotation_formula():
    assert [rotate(d, 1) for d in range(1, 7)] == [2, 3, 4, 5, 6, 1]
    assert [rotate(d, 5) for d in range(1, 7)] == [6, 1, 2, 3, 4, 5]


def test_parse_pattern_and_card_data():
    p = parse_pattern("GBB; 3:W; 3:W*", CODES)
    assert p.codes == ("GBB", "W", "W") and p.directions == (3, 3) and p.cube == 2
    for bad in ("GBB; 3:W", "GBB; 7:W*", "XX; 3:W*", "G*; 3:W*", "G*"):
        with pytest.raises(ValueError):
            parse_pattern(bad, CODES)
    all_cards = cards()
    assert len(all_cards) == 42 and all_cards[1].points == (4, 9, 15) and all_cards[13].cubes == 2
    assert all_cards[33].spirit and all_cards[33].cubes == 1


@pytest.mark.parametrize("k", range(6))
def test_matcher_finds_every_rotation(k):
    """A chiral 3-hex chain (Y, then W to the north, then G* to the north-east) rotated by k."""
    pat = parse_pattern("Y; 1:W; 2:G*", CODES)
    placements = SIDE_A.placements(pat)
    a = SIDE_A.hex_of(2, 2)
    b = step(2, 2, rotate(1, k))
    c = step(*b, rotate(2, k))
    want = (("G", 1 << SIDE_A.hex_of(*c)), ("W", 1 << SIDE_A.hex_of(*b)), ("Y", 1 << a))
    assert want in placements[SIDE_A.hex_of(*c)]


def test_matcher_never_mirrors():
    pat = parse_pattern("Y; 1:W; 2:G*", CODES)
    placements = SIDE_A.placements(pat)
    # the mirror image: W to the north, G to the north-WEST
    a = SIDE_A.hex_of(2, 2)
    b = step(2, 2, 1)
    c = step(*b, 6)
    mirror = (("G", 1 << SIDE_A.hex_of(*c)), ("W", 1 << SIDE_A.hex_of(*b)), ("Y", 1 << a))
    assert all(mirror not in reqs for reqs in placements.values())
    # every listed placement lies on the board, one per (rotation, anchor) that fits
    assert sum(len(v) for v in placements.values()) == sum(
        1 for k in range(6) for h in range(SIDE_A.size) if SIDE_A.walk(h, pat.directions, k) is not None
    )


def test_groups_and_diameter():
    geo = SIDE_A
    col = sum(1 << geo.hex_of(0, y) for y in range(5))
    assert geo.groups(col) == [col] and geo.diameter(col) == 5
    two = (1 << geo.hex_of(0, 0)) | (1 << geo.hex_of(4, 4))
    assert len(geo.groups(two)) == 2
    ring = sum(1 << n for n in geo.adjacent[geo.hex_of(2, 2)])  # 6 hexes around a hole
    assert len(geo.groups(ring)) == 1 and geo.diameter(ring) == 4
