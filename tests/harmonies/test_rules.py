"""Rule tests of Harmonies, one per rule ID of the spec (HA-R*, HA-V*), on positions built from
readable setups through the public API (``ha_helpers.position``: a dealt game's dict, edited, loaded
with ``state_from_dict``), never private caches."""

from __future__ import annotations

import numpy as np
import pytest
from ha_helpers import COL, dealt, legal, position

from boardzoo.envs import ConfigError
from boardzoo.envs.harmonies import HarmoniesGame
from boardzoo.envs.harmonies.board import PLACE_ON, STACK_ID, rotate, step
from boardzoo.envs.harmonies.rules import (
    A_CARD,
    A_CUBE,
    A_DECLINE,
    A_DISCARD,
    A_END,
    A_SPIRIT,
    A_TAKE,
    HEXES,
    NUM_ACTIONS,
    Phase,
    cube_action,
    place_action,
)

GAME = HarmoniesGame()


def hx(x: int, y: int, game: HarmoniesGame = GAME) -> int:
    return game.geo.hex_of(x, y)


def takes(st) -> set[int]:
    return {a for a in legal(st) if A_TAKE <= a < A_TAKE + 5}


def places_of(st, t: int) -> set[int]:
    return {(a - 5) % 25 for a in legal(st) if 5 + 25 * t <= a < 30 + 25 * t}


def cube_hexes(st, c: int) -> set[int]:
    return {(a - A_CUBE) % 25 for a in legal(st) if A_CUBE + 25 * c <= a < A_CUBE + 25 * (c + 1)}


def finish_refills(st, rng=None):
    rng = rng or np.random.default_rng(0)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    return st


def play_turn(st, rng):
    """The seat to move takes space 0-4 (first legal) and places tokens on the first legal hexes."""
    while not st.is_chance_node() and not st.is_terminal():
        m = legal(st)
        if A_END in m:
            st.apply_action(A_END)
            break
        t = sorted(a for a in m if a < 80)
        st.apply_action(t[0])
    return finish_refills(st, rng)


def with_bag(st_dict: dict, bag: list[int]) -> dict:
    """Move tokens from the bag out of the game (``discarded``) so that the bag holds ``bag``."""
    for c in range(6):
        extra = st_dict["bag"][c] - bag[c]
        assert extra >= 0
        st_dict["bag"][c] = bag[c]
        st_dict["discarded"][c] += extra
    return st_dict


# ------------------------------------------------------------------------------ turn structure
def test_HA_R1_a_turn_takes_once_places_and_ends():
    st = dealt(GAME)
    p = st.current_player()
    assert takes(st) == {0, 1, 2, 3, 4}
    st.apply_action(A_TAKE + 2)
    assert not takes(st), "exactly one TAKE per turn"
    assert st.taken == st.to_dict()["taken"] and all(c >= 0 for c in st.taken)
    for t in range(3):
        st.apply_action(min(a for a in legal(st) if 5 + 25 * t <= a < 30 + 25 * t))
    assert A_END in legal(st)
    st.apply_action(A_END)
    assert st.is_chance_node() and st.phase() == "refill"
    finish_refills(st)
    assert st.current_player() == 1 - p and st.turns[p] == 1


def test_HA_R2_take_before_placing_cards_any_time():
    st = dealt(GAME)
    m = legal(st)
    assert not any(5 <= a < 80 for a in m), "no placement before TAKE"
    assert {A_CARD + i for i in range(5)} <= m, "a card may be taken before the TAKE"
    st.apply_action(A_CARD + 0)
    st.apply_action(A_TAKE + 0)
    assert any(5 <= a < 80 for a in legal(st))


def test_HA_R3_end_turn_only_when_every_token_is_placed():
    st = dealt(GAME)
    assert A_END not in legal(st)
    st.apply_action(A_TAKE + 0)
    for t in range(3):
        assert A_END not in legal(st)
        st.apply_action(min(a for a in legal(st) if 5 + 25 * t <= a < 30 + 25 * t))
    assert A_END in legal(st)


def test_HA_R4_tokens_one_at_a_time_in_any_order():
    st = position(GAME, central=["WGB", "MMM", "YYY", "RRR", "WWW"])
    st.apply_action(A_TAKE + 0)
    assert st.taken == [COL["W"], COL["G"], COL["B"]]
    assert places_of(st, 0) and places_of(st, 1) and places_of(st, 2)
    st.apply_action(place_action(2, hx(2, 2)))  # the brown first
    assert st.taken == [COL["W"], COL["G"], -1]
    assert hx(2, 2) in places_of(st, 1), "green may go on the brown just placed"
    assert hx(2, 2) not in places_of(st, 0), "blue only on empty spaces"


# ------------------------------------------------------------------------------ stacking
STACKING = [  # (stack before, colour placed, stack after or None)
    ("", "W", "W"),
    ("", "M", "M"),
    ("", "B", "B"),
    ("", "G", "G"),
    ("", "Y", "Y"),
    ("", "R", "R"),  # R5
    ("B", "W", None),
    ("M", "Y", None),
    ("B", "Y", None),  # R6
    ("W", "M", None),
    ("Y", "B", None),
    ("G", "G", None),
    ("G", "B", None),
    ("Y", "R", None),
    ("W", "G", None),  # R7
    ("M", "M", "MM"),
    ("MM", "M", "MMM"),
    ("MMM", "M", None),
    ("B", "M", None),
    ("R", "M", None),  # R8
    ("B", "B", "BB"),
    ("BB", "B", None),
    ("M", "B", None),
    ("R", "B", None),  # R9
    ("B", "G", "GB"),
    ("BB", "G", "GBB"),
    ("M", "G", None),
    ("R", "G", None),  # R10
    ("B", "R", "RB"),
    ("M", "R", "RM"),
    ("R", "R", "RR"),
    ("BB", "R", None),
    ("MM", "R", None),  # R11
    ("RB", "R", None),
    ("RM", "M", None),
    ("GB", "R", None),
    ("GBB", "G", None),
    ("RR", "B", None),  # R11
]


def _stacks(rows):
    for before, colour, after in rows:
        new = PLACE_ON[STACK_ID[before]][COL[colour]]
        assert new == (STACK_ID[after] if after is not None else -1), (before, colour, after)


def test_HA_R5_stacking_table_empty_space():
    _stacks(STACKING[:6])


def test_HA_R6_HA_R7_stacking_table_blue_yellow_green():
    _stacks(STACKING[6:15])


def test_HA_R8_stacking_table_grey():
    _stacks(STACKING[15:20])


def test_HA_R9_stacking_table_brown():
    _stacks(STACKING[20:24])


def test_HA_R10_stacking_table_green():
    _stacks(STACKING[24:28])


def test_HA_R11_stacking_table_red_and_height():
    _stacks(STACKING[28:])
    assert all(len(s) <= 3 for s in STACK_ID)


def test_HA_R5_any_token_on_an_empty_space():
    st = position(GAME, central=["WMB", "GYR", "WWW", "MMM", "BBB"])
    st.apply_action(A_TAKE + 1)
    for t in range(3):
        assert places_of(st, t) == set(range(23))


def test_HA_R6_HA_R7_blue_and_yellow_only_on_empty_nothing_on_blue_yellow_green():
    board = {(0, 0): "B", (0, 1): "W", (0, 2): "Y", (0, 3): "G", (0, 4): "M"}
    st = position(GAME, boards={0: board}, first=0, to_move=0, central=["WYG", "MMM", "BBB", "RRR", "WWW"])
    st.apply_action(A_TAKE + 0)
    free = set(range(23)) - {hx(*xy) for xy in board}
    assert places_of(st, 0) == free and places_of(st, 1) == free  # W, Y
    assert places_of(st, 2) == free | {hx(0, 0)}  # G on the brown, never on W/Y/G


def test_HA_R8_HA_R9_HA_R10_HA_R11_stack_masks_on_a_board():
    board = {(0, 0): "B", (0, 1): "BB", (0, 2): "M", (0, 3): "MM", (0, 4): "R", (1, 0): "MMM", (1, 1): "RB"}
    st = position(GAME, boards={0: board}, first=0, to_move=0, central=["MBR", "MMM", "GGG", "RRR", "WWW"])
    st.apply_action(A_TAKE + 0)
    free = set(range(23)) - {hx(*xy) for xy in board}
    assert places_of(st, 0) == free | {hx(0, 2), hx(0, 3)}  # grey on 1 or 2 greys (R8)
    assert places_of(st, 1) == free | {hx(0, 0)}  # brown on one brown (R9)
    assert places_of(st, 2) == free | {hx(0, 0), hx(0, 2), hx(0, 4)}  # red on one B/M/R (R11)
    st2 = position(GAME, boards={0: board}, first=0, to_move=0, central=["GGG", "MMM", "BBB", "RRR", "WWW"])
    st2.apply_action(A_TAKE + 0)
    assert places_of(st2, 0) == free | {hx(0, 0), hx(0, 1)}  # green on one or two browns (R10)


def test_HA_R12_cubes_block_and_unplaceable_tokens_are_discarded():
    # every space but (2, 2) holds a blue, yellow or green (nothing goes on them, HA-R7)
    full = {}
    for i, (x, y) in enumerate(GAME.geo.spaces):
        if (x, y) != (2, 2):
            full[(x, y)] = "WYG"[i % 3]
    st = position(GAME, boards={0: full}, first=0, to_move=0, central=["WBG", "MMM", "BBB", "RRR", "MMM"])
    st.apply_action(A_TAKE + 0)
    assert st.taken == [COL["W"], COL["B"], COL["G"]]
    st.apply_action(place_action(1, hx(2, 2)))  # brown on the last empty space
    # blue has no space now, but green can still go on the brown: nothing is discarded yet
    assert st.taken == [COL["W"], -1, COL["G"]] and A_END not in legal(st)
    assert places_of(st, 0) == set() and places_of(st, 2) == {hx(2, 2)}
    before = st.discarded[COL["W"]]
    st.apply_action(place_action(2, hx(2, 2)))
    assert st.taken == [-1, -1, -1] and st.discarded[COL["W"]] == before + 1, "the blue is discarded at once"
    assert A_END in legal(st)
    # a cube on a brown blocks the green that would fit there
    st = position(
        GAME,
        boards={0: {(2, 2): "GB", (2, 3): "RB", (2, 4): "B"}},
        places={0: [(17, 2)]},
        cubes={0: {(2, 2): 17}},
        first=0,
        to_move=0,
        central=["GGG", "MMM", "BBB", "RRR", "MMM"],
    )
    st.apply_action(A_TAKE + 0)
    assert hx(2, 4) in places_of(st, 0) and hx(2, 2) not in places_of(st, 0)
    # with the only brown under a cube and no empty space, all taken tokens go at once
    full2 = dict(full)
    full2[(2, 2)] = "B"
    st = position(
        GAME,
        boards={0: full2},
        places={0: [(18, 3)]},
        cubes={0: {(2, 2): 18}},
        first=0,
        to_move=0,
        central=["GGR", "MMM", "BBB", "RRR", "MMM"],
    )
    st.apply_action(A_TAKE + 0)
    assert st.taken == [-1, -1, -1] and A_END in legal(st)


# ------------------------------------------------------------------------------ cards and cubes
def test_HA_R13_one_card_per_turn_and_at_most_four_unfinished():
    st = dealt(GAME)
    st.apply_action(A_CARD + 1)
    assert not any(A_CARD <= a < A_CARD + 5 for a in legal(st)), "one card per turn"
    st = position(GAME, places={0: [(1, 3), (2, 3), (3, 4), (4, 3)]}, first=0, to_move=0)
    assert not any(A_CARD <= a < A_CARD + 5 for a in legal(st)), "4 unfinished cards: no more"
    st = position(
        GAME,
        boards={0: {(0, 0): "MM", (0, 1): "MM"}},
        places={0: [(1, 3), (2, 3), (3, 4)]},
        completed={0: [24]},
        cubes={0: {(0, 0): 24, (0, 1): 24}},
        first=0,
        to_move=0,
    )
    assert any(A_CARD <= a < A_CARD + 5 for a in legal(st)), "completed cards do not count"


def test_HA_R14_a_taken_card_holds_its_cubes():
    st = dealt(GAME)
    p = st.current_player()
    cid = st.display[3]
    st.apply_action(A_CARD + 3)
    assert st.places[p][0] == [cid, len(GAME.cards[cid].points)]
    assert st.display[3] == 0


def test_HA_R15_cube_where_the_pattern_is_met_on_the_cube_hex():
    # card 5: G; 3:W*  (a green, the blue to its south-east takes the cube)
    st = position(GAME, boards={0: {(2, 2): "G", (3, 2): "W", (0, 0): "W"}}, places={0: [(5, 5)]}, first=0, to_move=0)
    assert cube_hexes(st, 0) == {hx(3, 2)}
    st.apply_action(cube_action(0, hx(3, 2)))
    assert st.cubes[0][hx(3, 2)] == 5 and st.places[0][0] == [5, 4]
    # a stack that is not exactly the code does not match: GB is not G
    st = position(GAME, boards={0: {(2, 2): "GB", (3, 2): "W"}}, places={0: [(5, 5)]}, first=0, to_move=0)
    assert cube_hexes(st, 0) == set()


@pytest.mark.parametrize("k", range(6))
def test_HA_R16_patterns_in_every_rotation(k):
    # card 1: GBB; 3:W; 3:W*, rotated by k around a GBB in the middle of the board
    x, y = 2, 2
    d = rotate(3, k)
    w1 = step(x, y, d)
    w2 = step(*w1, d)
    st = position(GAME, boards={0: {(x, y): "GBB", w1: "W", w2: "W"}}, places={0: [(1, 3)]}, first=0, to_move=0)
    assert cube_hexes(st, 0) == {hx(*w2)}


def test_HA_R17_target_free_of_cubes_other_hexes_may_hold_them():
    # card 5 (G; 3:W*) with a cube already on (3, 2); card 15's cube lies on the shared green
    st = position(
        GAME,
        boards={0: {(2, 2): "G", (3, 2): "W", (2, 3): "W", (3, 3): "G", (4, 4): "RB"}},
        places={0: [(5, 4), (15, 2)]},
        cubes={0: {(3, 2): 5, (2, 2): 15}},
        first=0,
        to_move=0,
    )
    assert cube_hexes(st, 0) == {hx(2, 3)}, "the occupied target is out; the green with a cube is shared"


def test_HA_R18_several_cubes_per_turn():
    st = position(GAME, boards={0: {(2, 2): "G", (3, 2): "W", (2, 3): "W"}}, places={0: [(5, 5)]}, first=0, to_move=0)
    st.apply_action(cube_action(0, hx(3, 2)))
    st.apply_action(cube_action(0, hx(2, 3)))
    assert st.places[0][0] == [5, 3] and st.cubes_on_board(0) == 2


def test_HA_R19_complete_card_leaves_its_place():
    # card 24: W; 3:MM*; 5:W with one cube already placed
    board = {(2, 2): "W", (3, 2): "MM", (2, 3): "W", (0, 0): "MM"}
    st = position(GAME, boards={0: board}, places={0: [(24, 1), (1, 3)]}, cubes={0: {(0, 0): 24}}, first=0, to_move=0)
    st.apply_action(cube_action(0, hx(3, 2)))
    assert st.completed[0] == [24] and st.places[0][0] == [0, 0] and st.unfinished(0) == 1


def test_HA_R20_refill_the_emptied_space_if_the_bag_holds_three():
    st = dealt(GAME)
    st.apply_action(A_TAKE + 3)
    while A_END not in legal(st):
        st.apply_action(min(a for a in legal(st) if a < 80))
    st.apply_action(A_END)
    bag = list(st.bag)
    outs = dict(st.chance_outcomes())
    assert outs == {c: bag[c] / sum(bag) for c in range(6) if bag[c]}, "exact bag probabilities"
    for c in (COL["R"], COL["W"], COL["W"]):
        st.apply_action(c)
    assert st.central[3] == [COL["R"], COL["W"], COL["W"]]
    # with fewer than 3 tokens in the bag the space stays empty
    d = with_bag(dealt(GAME).to_dict(), [1, 1, 0, 0, 0, 0])
    st = GAME.state_from_dict(d)
    st.apply_action(A_TAKE + 3)
    while A_END not in legal(st):
        st.apply_action(min(a for a in legal(st) if a < 80))
    st.apply_action(A_END)
    assert not st.is_chance_node() and st.central[3] == []


def test_HA_R21_display_refilled_to_five():
    st = dealt(GAME)
    st.apply_action(A_CARD + 2)
    st.apply_action(A_TAKE + 0)
    while A_END not in legal(st):
        st.apply_action(min(a for a in legal(st) if 5 <= a < 80))
    st.apply_action(A_END)
    for _ in range(3):
        st.apply_action(st.sample_chance(np.random.default_rng(1)))
    deck = list(st.deck)
    assert st.chance_outcomes() == [(c, 1 / len(deck)) for c in deck]
    st.apply_action(deck[4])
    assert st.display[2] == deck[4] and all(st.display)


def test_HA_R22_end_trigger_bag_or_board():
    d = with_bag(dealt(GAME).to_dict(), [3, 0, 0, 0, 0, 0])
    st = GAME.state_from_dict(d)
    rng = np.random.default_rng(0)
    play_turn(st, rng)
    assert st.end_triggered and sum(st.bag) == 0, "the refill empties the bag below 3"
    # 2 or fewer empty spaces after the turn
    board = {xy: "W" if i % 2 else "Y" for i, xy in enumerate(GAME.geo.spaces[:18])}
    st = position(GAME, boards={0: board}, first=0, to_move=0)
    play_turn(st, rng)
    assert st.end_triggered and sum(1 for s in st.boards[0][:23] if s == 0) == 2
    board = {xy: "W" if i % 2 else "Y" for i, xy in enumerate(GAME.geo.spaces[:17])}
    st = position(GAME, boards={0: board}, first=0, to_move=0)
    play_turn(st, rng)
    assert not st.end_triggered


def test_HA_R23_final_round_gives_everyone_the_same_turns():
    rng = np.random.default_rng(0)
    board = {xy: "W" if i % 2 else "Y" for i, xy in enumerate(GAME.geo.spaces[:18])}
    st = position(GAME, n=3, boards={0: board}, first=0, to_move=0)
    play_turn(st, rng)  # seat 0 triggers
    assert st.end_triggered and st.current_player() == 1
    play_turn(st, rng)
    assert st.current_player() == 2
    play_turn(st, rng)
    assert st.is_terminal() and st.turns == [1, 1, 1]
    # the last seat triggers: the game ends at once
    st = position(GAME, n=3, boards={1: board}, first=2, to_move=1, turns=[1, 0, 1])
    play_turn(st, rng)
    assert st.is_terminal()


def test_HA_R24_take_skipped_with_an_empty_central_board():
    d = dealt(GAME).to_dict()
    for toks in d["central"]:
        for c in toks:
            d["discarded"][c] += 1
    d["central"] = [[] for _ in range(5)]
    d = with_bag(d, [1, 1, 0, 0, 0, 0])
    d["end_triggered"] = True
    d["took"] = True
    st = GAME.state_from_dict(d)
    assert A_END in legal(st) and not takes(st)
    # reached through play: the skipped TAKE is automatic
    st = position(GAME, first=0, to_move=0)
    d = st.to_dict()
    d["took"] = False
    for s in range(1, 5):
        for c in d["central"][s]:
            d["discarded"][c] += 1
        d["central"][s] = []
    d = with_bag(d, [1, 1, 0, 0, 0, 0])
    d["end_triggered"] = True
    st = GAME.state_from_dict(d)
    play_turn(st, np.random.default_rng(0))
    assert st.current_player() == 1 and st.took and A_END in legal(st) and not takes(st)


# ------------------------------------------------------------------------------ scoring
def test_HA_R25_trees():
    st = position(GAME, boards={0: {(0, 0): "G", (2, 0): "GB", (4, 0): "GBB", (2, 4): "BB"}})
    assert st.breakdown(0)["trees"] == 1 + 3 + 7


def test_HA_R26_mountains_score_only_next_to_mountains():
    st = position(GAME, boards={0: {(0, 0): "M", (0, 1): "MM", (4, 4): "MMM", (2, 2): "RM"}})
    assert st.breakdown(0)["mountains"] == 1 + 3  # the isolated 3-high scores 0; RM is a building
    st = position(GAME, boards={0: {(0, 0): "MMM", (1, 0): "MMM"}})
    assert st.breakdown(0)["mountains"] == 14


def test_HA_R27_fields():
    st = position(GAME, boards={0: {(0, 0): "Y", (0, 1): "Y", (0, 2): "Y", (4, 4): "Y", (2, 0): "Y", (3, 0): "Y"}})
    assert st.breakdown(0)["fields"] == 10  # groups of 3 and 2; the single scores 0


def test_HA_R28_buildings_need_three_colours_around():
    board = {(2, 2): "RB", (2, 1): "W", (3, 1): "Y", (3, 2): "GB", (2, 3): "W"}
    assert position(GAME, boards={0: board}).breakdown(0)["buildings"] == 5
    board = {(2, 2): "RM", (2, 1): "W", (3, 1): "W", (3, 2): "Y"}
    assert position(GAME, boards={0: board}).breakdown(0)["buildings"] == 0  # empty neighbours show nothing
    board = {(2, 2): "R", (2, 1): "W", (3, 1): "Y", (3, 2): "G"}
    assert position(GAME, boards={0: board}).breakdown(0)["buildings"] == 0  # a lone red is no building


@pytest.mark.parametrize("length,points", [(0, 0), (1, 0), (2, 2), (3, 5), (4, 8), (5, 11), (6, 15), (7, 19), (9, 27)])
def test_HA_R29_river_table(length, points):
    assert GAME.river_points(length) == points


def test_HA_R29_longest_river_by_shortest_path():
    line = {(0, y): "W" for y in range(5)}  # 5 in a column
    assert position(GAME, boards={0: line}).breakdown(0)["water"] == 11
    # a second, shorter river does not add
    two = dict(line)
    two.update({(4, 0): "W", (4, 1): "W"})
    assert position(GAME, boards={0: two}).breakdown(0)["water"] == 11
    # a clump: 3 mutually adjacent hexes have length 2 (shortest path), not 3
    clump = {(2, 2): "W", (2, 3): "W", (3, 2): "W"}
    assert position(GAME, boards={0: clump}).breakdown(0)["water"] == 2


def test_HA_R30_animal_cards_score_their_track():
    st = position(
        GAME,
        boards={0: {(2, 2): "GBB", (3, 2): "W", (4, 3): "W", (0, 0): "G", (0, 1): "W"}},
        places={0: [(1, 1)]},
        cubes={0: {(4, 3): 1, (0, 1): 1}},
        first=0,
        to_move=0,
    )
    assert st.breakdown(0)["cards"] == 9  # card 1 with 2 cubes placed
    st = position(
        GAME, boards={0: {(0, 0): "MM", (0, 1): "MM"}}, completed={0: [24]}, cubes={0: {(0, 0): 24, (0, 1): 24}}
    )
    assert st.breakdown(0)["cards"] == 11  # a completed card scores its last value


def test_HA_R31_total_and_tie_break_by_cubes():
    st = position(GAME, boards={0: {(0, 0): "GB"}, 1: {(0, 0): "GB"}})
    assert st.scores() == [3.0, 3.0] and st.winners() == [0, 1], "tied totals and cubes share the victory"
    st = position(
        GAME,
        boards={0: {(0, 0): "GB", (1, 0): "W"}, 1: {(0, 0): "G", (0, 1): "G", (0, 2): "W"}},
        places={1: [(5, 4)]},
        cubes={1: {(0, 2): 5}},
    )
    assert st.scores() == [3.0, 4.0]  # seat 1: 2 trees + card 5 with one cube (2)
    st = position(
        GAME,
        boards={0: {(0, 0): "GB", (2, 0): "W"}, 1: {(0, 0): "G", (0, 1): "W"}},
        places={1: [(5, 4)]},
        cubes={1: {(0, 1): 5}},
    )
    assert st.scores() == [3.0, 3.0] and st.winners() == [1], "the most cubes on the board wins a tie"


def test_HA_R32_card_places_lowest_free_first():
    board = {(2, 2): "W", (3, 2): "MM", (2, 3): "W", (0, 0): "MM"}
    st = position(GAME, boards={0: board}, places={0: [(24, 1), (1, 3)]}, cubes={0: {(0, 0): 24}}, first=0, to_move=0)
    st.apply_action(cube_action(0, hx(3, 2)))  # card 24 completes: place 0 is free again
    cid = st.display[0]
    st.apply_action(A_CARD + 0)
    assert st.places[0][0] == [cid, len(GAME.cards[cid].points)] and st.places[0][1] == [1, 3]


def test_HA_R33_taken_tokens_keep_their_drawn_order():
    st = GAME.new_initial_state(2)
    for c in (COL["R"], COL["W"], COL["G"]):
        st.apply_action(c)
    assert st.central[0] == [COL["R"], COL["W"], COL["G"]]
    st = finish_refills(st)
    first = list(st.central[0])
    st.apply_action(A_TAKE + 0)
    assert st.taken == first


def test_HA_R34_spirit_conditions_count_every_stack():
    g = HarmoniesGame(spirits=True)
    board = [0] * 25
    board[hx(4, 4, g)] = STACK_ID["MMM"]  # isolated: 0 under HA-R26, counted by spirit 39
    board[hx(0, 0, g)] = STACK_ID["MM"]
    assert g.spirit_points(board, 39) == 8
    board[hx(0, 1, g)] = STACK_ID["M"]
    assert g.spirit_points(board, 40) == 3 + 3 + 1  # heights 2, 1 -> 3 each; 3 -> 1
    yellow = [0] * 25
    for xy in ((0, 0), (0, 1), (0, 2), (4, 4)):
        yellow[hx(*xy, g)] = STACK_ID["Y"]
    assert g.spirit_points(yellow, 33) == 10 + 2 and g.spirit_points(yellow, 34) == 10
    bld = [0] * 25
    for xy in ((0, 0), (0, 1), (4, 4)):
        bld[hx(*xy, g)] = STACK_ID["RB"]
    assert g.spirit_points(bld, 37) == 8 and g.spirit_points(bld, 38) == 6
    assert g.spirit_points(yellow, 42) == 0 and g.spirit_points(yellow, 41) == 0


def test_HA_R35_scores_winners_and_solo_suns():
    rng = np.random.default_rng(3)
    st = dealt(GAME, 1)
    while not st.is_terminal():
        st.apply_action(st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(sorted(legal(st)))))
    assert st.scores() == [float(st.score(0))] and st.winners() == [0]
    pts = st.score(0)
    expected = sum(pts >= t for t in (40, 70, 90, 110, 130, 140, 150, 160)) + 1 + 2  # side A, no spirits
    assert st.suns() == expected
    assert st.returns() == [pts * 0.01]


# ------------------------------------------------------------------------------ variants
def test_HA_V1_side_b_board_and_islands():
    g = HarmoniesGame(board_side="B")
    assert g.size == 25 and GAME.size == 23
    st = dealt(g)
    st.apply_action(A_TAKE + 0)
    assert places_of(st, 0) == set(range(25))
    st_a = dealt(GAME)
    st_a.apply_action(A_TAKE + 0)
    assert places_of(st_a, 0) == set(range(23)), "hexes beyond side A are masked"
    # a wall of blue across column 3 splits the land in two islands
    wall = {(3, y): "W" for y in range(3)}
    st = position(g, boards={0: wall})
    assert st.breakdown(0)["water"] == 10
    st = position(g, boards={0: {}})
    assert st.breakdown(0)["water"] == 5
    with pytest.raises(ConfigError, match="board_side"):
        HarmoniesGame(board_side="C")


def test_HA_V2_spirits_dealt_chosen_placed_and_scored():
    g = HarmoniesGame(spirits=True)
    st = g.new_initial_state(2)
    rng = np.random.default_rng(0)
    kinds = []
    while st.is_chance_node():
        kinds.append(st.chance_kind())
        st.apply_action(st.sample_chance(rng))
    assert kinds.count(2) == 4 and all(len(o) == 2 for o in st.offers), "2 spirits dealt to each seat"
    p = st.current_player()
    assert st.phase() == "choose_spirit" and legal(st) == {A_SPIRIT, A_SPIRIT + 1}
    offer = list(st.offers[p])
    other = 1 - p
    # hidden: the other seat's offers are re-dealt by resample_hidden, my view is unchanged
    view = st.resample_hidden(p, np.random.default_rng(5))
    np.testing.assert_array_equal(view.observation(p), st.observation(p))
    assert view.offers[p] == offer
    assert len(view.offers[other]) == 2
    st.apply_action(A_SPIRIT + 1)
    assert st.places[p][0] == [offer[1], 1] and st.spirit_discard[p] == offer[0] and st.phase() == "turn"
    # a spirit scores only once its cube is on the board (spirit 42: MM; 3:W*; 3:W -> 2 per blue)
    d = st.to_dict()
    kept = offer[1]
    d["spirit_deck"] = sorted(kept if c == 42 else c for c in d["spirit_deck"])  # 42 swaps places with the kept
    for o in d["offers"]:
        o[:] = [kept if c == 42 else c for c in o]
    d["spirit_discard"] = [kept if c == 42 else c for c in d["spirit_discard"]]
    d["places"][p][0] = [42, 1]
    for xy, stack in {(0, 0): "MM", (1, 0): "W", (2, 1): "W"}.items():
        d["boards"][p][hx(*xy, g)] = STACK_ID[stack]
        for ch in stack:
            d["bag"][COL[ch]] -= 1
    st = g.state_from_dict(d)
    assert st.breakdown(p)["spirit"] == 0 and cube_hexes(st, 0) == {hx(1, 0, g)}
    st.apply_action(cube_action(0, hx(1, 0, g)))
    assert st.completed[p] == [42] and st.breakdown(p)["spirit"] == 4  # 2 blues x 2


def test_HA_V3_solo_mode():
    with pytest.raises(ConfigError, match="solo"):
        HarmoniesGame(solo=True).new_initial_state(2)
    g = HarmoniesGame(solo=True)
    st = dealt(g, 1)
    assert len(st.central) == 3 and len(st.display) == 3
    assert not any(a >= A_CARD + 3 and a < A_CUBE for a in legal(st)), "3 display slots"
    st.apply_action(A_TAKE + 1)
    while A_END not in legal(st):
        st.apply_action(min(a for a in legal(st) if 5 <= a < 80))
    st.apply_action(A_END)
    assert st.phase() == "solo_discard" and legal(st) == {A_DISCARD, A_DISCARD + 1, A_DISCARD + 2, A_DECLINE}
    gone = st.display[1]
    rest = [list(st.central[0]), list(st.central[2])]
    disc = sum(st.discarded)
    st.apply_action(A_DISCARD + 1)
    assert gone in st.solo_discards and st.display[1] == 0
    assert sum(st.discarded) == disc + 6 and rest, "the remaining central tokens are discarded"
    assert st.is_chance_node() and st.filling == [0, 1, 2]
    finish_refills(st)
    assert all(len(s) == 3 for s in st.central) and all(st.display)
    # the game ends after the turn that triggers HA-R22
    board = {xy: "W" if i % 2 else "Y" for i, xy in enumerate(g.geo.spaces[:18])}
    st = position(g, n=1, boards={0: board})
    st.apply_action(A_CARD + 0)
    play_turn(st, np.random.default_rng(0))
    assert st.is_terminal()


def test_options_validated():
    with pytest.raises(ConfigError, match="spirits"):
        HarmoniesGame(spirits="yes")
    with pytest.raises(ConfigError, match="unknown"):
        HarmoniesGame(colours=3)
    assert HarmoniesGame().num_actions == NUM_ACTIONS == HarmoniesGame(board_side="B").num_actions


def test_place_gain_and_action_features_match_a_full_recount():
    from boardzoo.envs.harmonies.evaluate import POTENTIAL

    g = HarmoniesGame(action_features=True, spirits=True)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(3):
        st = g.new_initial_state(2)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            m = legal(st)
            if st.phase_id == Phase.TURN:
                feats = st.observation(p)[g.action_feature_offset : g.action_feature_offset + NUM_ACTIONS]
                for a in m:
                    if 5 <= a < 80 or A_CUBE <= a < A_END:
                        s = st.clone()
                        s.apply_action(a)
                        gain = s.score(p) - st.score(p)
                        want = gain
                        if a < 80:  # a token: the rules' place_gain, plus the potential the heuristic sees
                            t, h = divmod(a - 5, HEXES)
                            assert st.place_gain(p, st.taken[t], h) == gain, st.action_to_string(a)
                            want += POTENTIAL.get(s.boards[p][h], 0.0) - POTENTIAL.get(st.boards[p][h], 0.0)
                        assert feats[a] == pytest.approx(want * 0.1, abs=1e-6), st.action_to_string(a)
                        checked += 1
            st.apply_action(int(rng.choice(sorted(m))))
    assert checked > 100


def test_heuristic_beats_random_in_a_few_games():
    from boardzoo.envs.core.bots import RandomBot, choose

    rng = np.random.default_rng(0)
    wins = 0
    for g in range(6):
        st = GAME.new_initial_state(2)
        bots = [GAME.heuristic_bot(0, seed=g), RandomBot(g)]
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(choose(bots[st.current_player()], st, st.current_player(), rng))
        wins += st.winners() == [0]
    assert wins >= 5


@pytest.mark.parametrize("side", ["A", "B"])
def test_fields_and_water_after_a_token_match_a_full_count(side):
    """HA-R27, HA-R29, HA-V1: the points kept after a yellow or blue token (``fields_after``,
    ``water_after``) equal the full count, on random sets of hexes of either side."""
    g = HarmoniesGame(board_side=side)
    rng = np.random.default_rng(3)
    for _ in range(5000):
        hexes = rng.permutation(g.size)[: rng.integers(1, 14)].tolist()
        h, before = hexes[0], sum(1 << x for x in hexes[1:])
        after = before | 1 << h
        assert g.fields_after(g.fields_of(before), h, after) == g.fields_of(after)
        assert g.water_after(g.water_of(before), h, after) == g.water_of(after)
