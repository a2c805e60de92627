"""Rule tests for Get on Board (spec ../shared/rules/get_on_board.md), one or more per rule ID.

Positions are built with the readable helpers of gob_helpers.py: ``start`` deals a known setup,
``go(st, "SE")`` places markers, ``force_route`` puts an earlier route on the board.
Map reminder (New York, id = 10*row + col): 23 = departure #1 (green), 33 grandma, 43 light sight,
44 student, 32 office, 22 tourist, 24 office worker, 25 green light, 12 green light.
"""

from __future__ import annotations

import numpy as np
import pytest
from gob_helpers import (
    DIRS,
    FIVE_GRANDMAS_FROM_23,
    FIVE_GRANDMAS_FROM_61,
    LOOP_FROM_97,
    P_END,
    P_PLACE,
    P_REVEAL,
    TR,
    TZ,
    finish_round,
    force_route,
    go,
    ids,
    legal_dirs,
    start,
    tiny_map,
)

from boardzoo.envs import ConfigError, make_game
from boardzoo.envs.get_on_board.data import (
    C_DARK,
    C_GRANDMA,
    C_LIGHT,
    C_OFFICE,
    C_SCHOOL,
    C_STUDENT,
    C_TOURIST,
    C_WORKER,
)
from boardzoo.envs.get_on_board.rules import (
    A_DECLINE,
    B0,
    B1,
    BS0,
    BS1,
    BS2,
    C0,
    C1,
    GR,
    IN,
    ND,
    NL,
    OSTAR,
    SC,
    SD,
    SL,
    SSTAR,
    ST,
    T0,
    T1,
    T2,
    TS0,
    TS1,
    TS2,
    new_sheet,
)


def rules(**opts):
    return make_game("get_on_board_v0", **opts).rules


# ---------------------------------------------------------------- setup
def test_GB_R1_new_york_is_for_two_or_three_players():
    g = make_game("get_on_board_v0")
    for n in (2, 3):
        assert g.new_initial_state(n).num_players == n
    for n in (1, 4, 5):
        with pytest.raises(ConfigError, match="num_players"):
            g.new_initial_state(n)


def test_GB_R2_sheets_and_personal_objectives_without_repetition():
    st = make_game("get_on_board_v0").new_initial_state(3)
    assert [o for o, _ in st.chance_outcomes()] == [1, 2, 3, 4, 5]
    st.apply_action(3)
    assert [o for o, _ in st.chance_outcomes()] == [1, 2, 4, 5]
    st.apply_action(1)
    st.apply_action(5)
    assert [o for o, _ in st.chance_outcomes()] == [0, 1, 2, 3, 4]  # personal objectives
    st.apply_action(4)
    assert 4 not in [o for o, _ in st.chance_outcomes()]
    rng = np.random.default_rng(0)
    for _ in range(20):
        s = make_game("get_on_board_v0").new_initial_state(3)
        while s.ph == 0:
            s.apply_action(s.sample_chance(rng))
        assert len(set(s.sheet_type)) == 3 and len(set(s.personal)) == 3


def test_GB_R3_two_distinct_common_objectives():
    st = start(n=2, commons=(4, 1))
    assert st.common == [4, 1]
    s = make_game("get_on_board_v0").new_initial_state(2)
    for o in (1, 2, 0, 1, 3):
        s.apply_action(o)
    assert [o for o, _ in s.chance_outcomes()] == [0, 1, 2, 4, 5]  # the first common card is gone


def test_GB_R4_departure_is_one_of_the_two_dealt_tickets():
    st = start(n=2, tickets=[(2, 5), (1, 6)], choose=[1, 0])
    assert ids(st, 0) == [97]  # higher ticket #5
    assert ids(st, 1) == [23]  # lower ticket #1
    s = make_game("get_on_board_v0").new_initial_state(2)
    for o in (1, 2, 0, 1, 0, 1):
        s.apply_action(o)
    assert [o for o, _ in s.chance_outcomes()] == [1, 2, 3, 4, 5, 6]  # departure tickets 1-6 only
    st2 = start(n=3)
    assert len({r[0] for r in st2.route}) == 3


def test_GB_R5_round_deck_holds_twelve_tickets_after_departures():
    st = start(n=2)
    assert st.phase() == "reveal"
    out = st.chance_outcomes()
    assert [o for o, _ in out] == list(range(1, 13))
    assert all(abs(p - 1 / 12) < 1e-12 for _, p in out)
    s = make_game("get_on_board_v0").new_initial_state(2)
    while s.phase() == "deal":
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.phase() == "departure" and not s.used  # no ticket before the departures


def test_GB_R6_exactly_twelve_rounds():
    from boardzoo.envs.get_on_board.bot import policy

    st = start(n=1)
    rng = np.random.default_rng(1)
    reveals = 0
    while st.ph != P_END:
        if st.ph == P_REVEAL:
            st.apply_action(st.sample_chance(rng))
            reveals += 1
        else:
            st.apply_action(policy(st, 0, rng))
    assert not st.elim[0]
    assert reveals == 12 and sorted(st.used) == list(range(1, 13))


def test_GB_R7_shape_from_ticket_and_sheet_type():
    g = make_game("get_on_board_v0")
    base = ["S2", "L2", "F2", "S1", "S3", "T3"]
    for s in range(1, 6):
        for t in range(1, 13):
            assert g.ticket_shape[s][t][0] == base[((t - 1) % 6 - (s - 1)) % 6]
    assert [g.ticket_shape[1][t][0] for t in (1, 2, 3, 4, 5, 6)] == base
    assert [g.ticket_shape[2][t][0] for t in (1, 2, 3, 4, 5, 6)] == ["T3", "S2", "L2", "F2", "S1", "S3"]
    st = start(n=2, sheets=(1, 2))
    st.apply_action(1)
    assert st.cur == 0 and st.shape_name == "S2"
    go(st, "SS")
    assert st.cur == 1 and st.shape_name == "T3"


# ---------------------------------------------------------------- round flow
def test_GB_R8_clockwise_from_inspector_all_markers_then_next():
    st = start(n=3, inspector=1)
    st.apply_action(5)  # S3 on sheet 1; sheet 2 -> S1; sheet 3 -> F2
    assert st.order == [1, 2, 0] and st.cur == 1
    go(st, "N")  # P1 at 61 (S1)
    assert st.cur == 2
    st.apply_action(DIRS["N"])
    assert st.cur == 2  # still P2: F2 has two markers
    finish_round(st)
    s2 = force_route(start(n=3, inspector=1), 2, LOOP_FROM_97)
    assert s2.elim[2]
    s2.apply_action(5)
    assert s2.order == [1, 0]


def test_GB_R9_inspector_passes_clockwise_skipping_eliminated():
    st = start(n=3, inspector=1)
    st.apply_action(4)
    finish_round(st)
    assert st.ph == P_REVEAL and st.inspector == 2
    s2 = force_route(start(n=3, inspector=1), 2, LOOP_FROM_97)
    s2.apply_action(4)
    finish_round(s2)
    assert s2.inspector == 0


# ---------------------------------------------------------------- placing markers
def test_GB_R10_each_marker_extends_the_route_end():
    st = start()
    st.apply_action(4)  # S1
    go(st, "E")
    assert ids(st) == [23, 24]
    m = st.game.map
    assert st.marks[m.nb_road[m.idx[23]][DIRS["E"]]] == 1


def test_GB_R11_exact_number_of_markers_no_early_stop():
    st = start()
    st.apply_action(5)  # S3
    for k in range(3):
        assert st.ph == P_PLACE and st.cur == 0 and st.k == k
        mask = st.legal_mask()
        assert not mask[4:].any()  # no "stop" or other action while markers remain
        go(st, "S")
    assert ids(st) == [23, 33, 43, 53] and st.ph == P_REVEAL


def test_GB_R12_first_marker_any_direction():
    st = start()
    st.apply_action(1)  # S2
    assert legal_dirs(st) == "NESW"
    st2 = start()
    st2.apply_action(6)  # T3
    assert legal_dirs(st2) == "NESW"


def test_GB_R13_straight_or_turn_as_required():
    st = start()
    st.apply_action(1)  # S2: straight
    go(st, "SS")
    assert ids(st) == [23, 33, 43] and st.sheets[0][TZ] == 0
    for turn, end in (("N", 14), ("S", 34)):  # L2: turn left or right, the player's choice
        s = start()
        s.apply_action(2)
        go(s, "E" + turn)
        assert ids(s)[-1] == end and s.sheets[0][TZ] == 0


def test_GB_R14_deviation_checks_turn_zone_box():
    st = start()
    st.apply_action(1)  # S2: a turn instead of straight
    go(st, "SW")
    assert ids(st) == [23, 33, 32] and st.sheets[0][TZ] == 1
    st = start()
    st.apply_action(2)  # L2: straight instead of a turn
    go(st, "SS")
    assert st.sheets[0][TZ] == 1
    for second in "SW":  # F2: the second marker never deviates
        s = start()
        s.apply_action(3)
        go(s, "S" + second)
        assert s.sheets[0][TZ] == 0
    s = start()
    s.apply_action(1)
    go(s, "EE")  # ends on the green light 25: the extra marker never deviates
    assert s.phase() == "green_light"
    go(s, "S")
    assert s.sheets[0][TZ] == 0


def test_GB_R15_at_most_five_turn_zone_boxes():
    st = force_route(start(), 0, [23], TZ=5)
    st.apply_action(1)  # S2
    go(st, "S")
    assert legal_dirs(st) == "S"  # the turn west would be a sixth deviation
    st = force_route(start(), 0, [23], TZ=4)
    st.apply_action(1)
    go(st, "S")
    assert legal_dirs(st) == "SW"
    go(st, "W")
    assert st.sheets[0][TZ] == 5


def test_GB_R16_never_an_own_road():
    st = start()
    st.apply_action(3)  # F2
    go(st, "S")
    assert "N" not in legal_dirs(st)  # back along the own road 23-33
    st = force_route(start(), 0, [23, 33])
    st.apply_action(4)
    assert legal_dirs(st) == "SW"


def test_GB_R17_forced_reuse_of_a_road_eliminates(tmp_path):
    path = tiny_map(tmp_path)
    st = start(n=2, inspector=1, map=path)
    assert ids(st, 0) == [11] and ids(st, 1) == [23]
    st.apply_action(5)  # sheet 1: S3, sheet 2: S1
    go(st, "E")  # P1: 23 -> 24
    go(st, "EEE")  # P0: 11 -> 12 -> 13 -> 14
    assert st.ph == P_REVEAL and st.inspector == 0
    st.apply_action(1)  # sheet 1: S2
    go(st, "E")  # P0 into the dead end 15; the second marker would have to reuse 14-15
    assert st.elim[0] and st.cur == 1
    assert ids(st, 0) == [11, 12, 13, 14, 15]


def test_GB_R18_only_sixth_deviations_left_turn_ends_without_extra():
    st = force_route(start(), 0, [23, 22], TZ=5)
    st.apply_action(1)  # S2
    go(st, "N")  # onto the green light 12; straight north does not exist, turns need a 6th box
    assert st.ph == P_REVEAL  # turn over, no penalty, no green-light extra
    assert ids(st) == [23, 22, 12] and st.sheets[0][TZ] == 5 and not st.elim[0]


def test_GB_R19_loop_eliminates_immediately():
    base = start(n=2, mask_elimination_moves=False)
    st = force_route(base, 0, [23, 33, 43, 42, 32])
    st.apply_action(1)  # S2
    assert legal_dirs(st) == "NEW"
    grandmas = st.sheets[0][GR]  # 33 (grandma) + the office bonus of 32
    go(st, "E")  # back onto 33
    assert st.elim[0] and st.cur == 1  # rest of the turn not played
    assert ids(st)[-1] == 33 and st.sheets[0][GR] == grandmas == 2  # 33 is not counted again
    m = st.game.map
    assert st.marks[m.nb_road[m.idx[32]][DIRS["E"]]] & 1  # the marker stays
    # with GB-V1 (default) the loop is masked; a forced loop stays legal
    st = force_route(start(n=2), 0, [23, 33, 43, 42, 32])
    st.apply_action(1)
    assert legal_dirs(st) == "NW"
    path = [23, 22, 21, 31, 32, 33, 43, 44, 45, 35, 25, 15, 14, 13, 12, 11]
    st = force_route(start(n=2), 0, path)
    st.apply_action(4)
    assert legal_dirs(st) == "S"  # 11 -> 21 closes a loop, but it is the only legal marker
    go(st, "S")
    assert st.elim[0]


def test_GB_R20_eliminated_scores_zero_and_takes_no_turns():
    st = force_route(start(n=2, mask_elimination_moves=False), 0, [23, 33, 43, 42, 32])
    st.apply_action(4)
    go(st, "E")
    assert st.elim[0] and st.scores()[0] == 0
    finish_round(st)
    st.apply_action(5)
    assert st.order == [1] and st.cur == 1  # P0 is skipped
    while st.ph != P_END:
        if st.ph == P_REVEAL:
            st.apply_action(st.chance_outcomes()[0][0])
        else:
            finish_round(st, prefer=None)
    assert not st.elim[1] and len(st.used) == 12
    assert st.winners() == [1] and st.scores()[0] == 0
    assert sum(1 for x in st.marks if x & 1) == 5  # P0's markers stay on the board


def test_GB_R21_traffic_from_other_markers_and_black_roads():
    base = start(n=2)
    st = force_route(base, 1, [61, 51, 41, 31, 21, 22, 23, 24])
    st.apply_action(4)
    go(st, "E")  # 23-24 already holds P1's marker
    assert st.sheets[0][TR] == 1
    st = start()
    st.apply_action(1)
    go(st, "SS")
    st.apply_action(4)
    go(st, "E")  # 43-44 is black
    assert st.sheets[0][TR] == 1
    st = force_route(start(n=2), 1, [61, 51, 41, 42, 43, 44, 45])  # P1 on the black road too
    st = force_route(st, 0, [23, 33, 43])
    st.apply_action(4)
    go(st, "E")
    assert st.sheets[0][TR] == 2
    # P1 went first over 16 roads (10 black) that P0 then follows: 18 boxes for P0 so far
    st = force_route(start(n=2), 1, [61, 62, 52, 53, 63, 73, 83, 93, 94, 84, 74, 64, 54, 44, 43, 33, 23])
    st = force_route(st, 0, [23, 33, 43, 44, 54, 64, 74, 84, 94, 93, 83, 73])
    assert st.sheets[0][TR] == 18
    st.apply_action(4)  # S1
    go(st, "N")  # 73-63: black and P1's marker, 2 more boxes
    assert st.sheets[0][TR] == 19  # boxes beyond the 19th are ignored


def test_GB_R22_green_light_extra_marker(tmp_path):
    st = start()
    st.apply_action(1)  # S2
    go(st, "EE")  # ends on the green light 25
    assert st.phase() == "green_light" and st.cur == 0
    assert legal_dirs(st) == "NES" and not st.legal_mask()[A_DECLINE]  # mandatory
    go(st, "S")
    assert ids(st) == [23, 24, 25, 35] and st.ph == P_REVEAL
    # chained extras on a test map whose greens touch: 11 -> 12 (G) -> 13 (G) -> 14
    s = start(n=2, map=tiny_map(tmp_path))
    s.apply_action(4)  # S1
    go(s, "E")
    assert s.phase() == "green_light"
    go(s, "E")
    assert s.phase() == "green_light"
    go(s, "E")
    assert ids(s, 0) == [11, 12, 13, 14] and s.cur == 1


def test_GB_R23_route_markers_are_unlimited():
    path = [
        61,
        71,
        81,
        91,
        101,
        102,
        92,
        82,
        72,
        62,
        52,
        42,
        32,
        22,
        12,
        13,
        23,
        33,
        43,
        53,
        63,
        73,
        83,
        93,
        103,
        113,
        123,
        133,
        134,
        124,
        114,
        104,
        94,
        84,
        74,
        64,
        54,
        44,
        34,
        24,
        14,
        15,
        25,
        35,
        45,
        55,
        65,
    ]
    st = force_route(start(n=2, tickets=[(3, 4), (1, 2)]), 0, path)
    assert len(st.rroads[0]) > 32
    st.apply_action(4)
    assert st.cur == 0 and legal_dirs(st)  # more markers are still placed
    st.check_invariants()


# ---------------------------------------------------------------- intersection effects (sheet level)
def test_GB_R24_grandma_boxes():
    r = rules()
    sh = new_sheet()
    for _ in range(9):
        r.reach(sh, C_GRANDMA, False)
    assert sh[GR] == 8  # a ninth grandma has no effect
    st = start()
    st.apply_action(4)
    go(st, "S")  # 33 is a grandma
    assert st.sheets[0][GR] == 1


def test_GB_R25_students_and_internships():
    r = rules()
    sh = new_sheet()
    for _ in range(7):
        r.reach(sh, C_STUDENT, False)
    assert sh[ST] == 6 and sh[IN] == 0
    for _ in range(4):  # internships only from offices scoring a 3-worker row
        for _ in range(3):
            r.reach(sh, C_WORKER, False)
        r.reach(sh, C_OFFICE, False)
    assert sh[IN] == 3


def test_GB_R26_school_boxes():
    r = rules()
    sh = new_sheet()
    for _ in range(5):
        r.reach(sh, C_SCHOOL, False)
    assert sh[SC] == 4


def test_GB_R27_star_school_writes_students_plus_internships():
    r = rules()
    sh = new_sheet()
    sh[ST], sh[IN] = 3, 1
    r.reach(sh, C_SCHOOL, True)
    assert sh[SC] == 1 and sh[SSTAR] == 4
    r.reach(sh, C_STUDENT, False)
    assert sh[SSTAR] == 4  # written values never change
    assert r.breakdown(sh, False)["students"] == 5 * 1 + 4


def test_GB_R28_tourists_fill_the_filling_row():
    r = rules()
    sh = new_sheet()
    for _ in range(5):
        r.reach(sh, C_TOURIST, False)
    assert (sh[T0], sh[T1], sh[T2]) == (4, 1, 0)  # a full row passes the next tourist down
    sh = new_sheet()
    sh[T0], sh[TS0] = 1, 1  # scored row: struck
    r.reach(sh, C_TOURIST, False)
    assert (sh[T0], sh[T1]) == (1, 1)
    sh = new_sheet()
    sh[T0] = sh[T1] = sh[T2] = 4
    r.reach(sh, C_TOURIST, False)
    assert (sh[T0], sh[T1], sh[T2]) == (4, 4, 4)


def test_GB_R29_sight_scores_the_scoring_row():
    r = rules()
    for count, value in ((1, 2), (2, 5), (3, 9), (4, 14)):
        sh = new_sheet()
        sh[T0], sh[T1] = count, 2
        r.reach(sh, C_LIGHT, False)
        assert sh[TS0] == 1 and sh[TS1] == 0  # only the scoring row
        assert r.breakdown(sh, False)["tourist_rows"] == value
        assert sh[NL] == 1
    sh = new_sheet()
    r.reach(sh, C_DARK, False)  # no tourist: nothing scores, the sight still counts
    assert sh[TS0] == 0 and sh[ND] == 1


def test_GB_R30_star_sight_best_of_two():
    r = rules()
    sh = new_sheet()
    sh[T0], sh[T1] = 4, 1
    r.reach(sh, C_DARK, True)
    assert sh[SD] == 5 and sh[TS0] == 1  # row scored first, then the star writes all tourists
    r.reach(sh, C_TOURIST, False)
    r.reach(sh, C_TOURIST, False)
    r.reach(sh, C_LIGHT, True)
    assert sh[SL] == 7 and sh[SD] == 5
    assert r.breakdown(sh, False)["star_sight"] == 7


def test_GB_R31_office_workers_fill_the_filling_row():
    r = rules()
    sh = new_sheet()
    for _ in range(4):
        r.reach(sh, C_WORKER, False)
    assert (sh[B0], sh[B1]) == (3, 1)


@pytest.mark.parametrize("workers,points,bonus", [(1, 2, "grandma"), (2, 4, "tourist"), (3, 6, "internship")])
def test_GB_R32_office_scores_and_gives_bonus(workers, points, bonus):
    r = rules()
    sh = new_sheet()
    for _ in range(workers):
        r.reach(sh, C_WORKER, False)
    r.reach(sh, C_OFFICE, False)
    assert sh[BS0] == 1 and r.breakdown(sh, False)["office_rows"] == points
    assert (sh[GR], sh[T0], sh[IN]) == {"grandma": (1, 0, 0), "tourist": (0, 1, 0), "internship": (0, 0, 1)}[bonus]
    sh = new_sheet()
    r.reach(sh, C_OFFICE, False)  # empty row: nothing
    assert sh[BS0] == 0 and sh[GR] == 0


def test_GB_R33_star_office_writes_all_workers():
    r = rules()
    sh = new_sheet()
    for _ in range(4):
        r.reach(sh, C_WORKER, False)
    r.reach(sh, C_OFFICE, True)
    assert sh[BS0] == 1 and sh[OSTAR] == 4 and r.breakdown(sh, False)["star_office"] == 4


def test_GB_R34_no_row_left():
    r = rules()
    sh = new_sheet()
    sh[TS0] = sh[TS1] = sh[TS2] = 1
    sh[BS0] = sh[BS1] = sh[BS2] = 1
    before = sh[:]
    r.reach(sh, C_TOURIST, False)
    r.reach(sh, C_WORKER, False)
    r.reach(sh, C_OFFICE, False)
    assert sh == before
    r.reach(sh, C_LIGHT, False)
    assert sh[NL] == 1  # sights still count for objectives


# ---------------------------------------------------------------- objectives
def test_GB_R35_common_objectives_checked_at_round_end_not_for_eliminated():
    st = force_route(start(n=2, commons=(0, 1)), 0, FIVE_GRANDMAS_FROM_23)
    st = force_route(st, 1, FIVE_GRANDMAS_FROM_61 + [85, 75])  # five grandmas, then a loop: eliminated
    assert st.sheets[1][GR] == 5 and st.elim[1]
    st.apply_action(4)
    assert st.cur == 0 and st.sheets[0][C0] == 0  # not before the round ends
    finish_round(st)
    assert st.sheets[0][C0] == 10 and st.sheets[1][C0] == 0


def test_GB_R36_first_round_ten_later_six():
    st = force_route(start(n=3, commons=(0, 1)), 0, FIVE_GRANDMAS_FROM_23)
    st = force_route(st, 1, FIVE_GRANDMAS_FROM_61)
    st.apply_action(4)
    finish_round(st)
    assert [s[C0] for s in st.sheets] == [10, 10, 0]  # same first round: both 10
    assert ids(st, 2) == [97, 87, 86]
    st.apply_action(5)  # round 2: P1 (inspector) acts first, then P2, whose route by then holds five
    # grandmas (86, 64, 33, 62 and the bonus of office 32 for the worker 87) and five students (75, 44, 31, 51, 72)
    st = force_route(st, 2, [97, 87, 86, 76, 75, 65, 64, 54, 44, 43, 33, 32, 31, 41, 51, 52, 62, 72])
    assert st.sheets[2][GR] >= 5 and st.sheets[2][ST] + st.sheets[2][IN] >= 5
    finish_round(st)
    assert st.sheets[2][C0] == 6 and st.sheets[2][C1] == 10
    assert st.sheets[0][C0] == 10  # scored at most once


def test_GB_R37_personal_objective():
    st = start(n=1, personals=(0,))  # letters a (12), f (45), k (92)
    st = force_route(st, 0, [23, 13, 12, 22, 32, 42, 52, 62, 72, 82, 92])
    assert not st.personal_met(0)
    st = force_route(
        start(n=1, personals=(0,)), 0, [23, 13, 12, 22, 32, 42, 43, 44, 45, 55, 65, 75, 85, 84, 83, 82, 92]
    )
    assert st.personal_met(0)
    d = st.to_dict()
    d["ph"], d["used"] = int(P_END), list(range(1, 13))  # the same route at the end of the game
    end = st.game.state_from_dict(d)
    assert end.breakdown(0)["personal"] == 10
    assert st.breakdown(0)["personal"] == 0  # counted only at the end


def test_GB_R38_game_ends_after_twelve_rounds_or_when_all_eliminated():
    st = start(n=2, mask_elimination_moves=False)
    st = force_route(st, 0, [23, 33, 43, 42, 32])
    st = force_route(st, 1, [61, 62, 52, 51])
    st.apply_action(4)
    go(st, "E")
    go(st, "S")  # 51 -> 61: back to the departure
    assert st.elim == [True, True] and st.ph == P_END and len(st.used) == 1
    assert st.winners() == [0, 1]


def test_GB_R39_unscored_rows_score_half_at_the_end():
    r = rules()
    sh = new_sheet()
    sh[T0], sh[T1] = 3, 1
    sh[B0] = 1
    assert r.breakdown(sh, True)["tourist_rows"] == 9 // 2 + 2 // 2
    assert r.breakdown(sh, True)["office_rows"] == 1
    assert r.breakdown(sh, False)["tourist_rows"] == 0


def test_GB_R40_grandma_values():
    r = rules()
    sh = new_sheet()
    for k, v in enumerate([0, 1, 2, 3, 5, 7, 9, 12, 15]):
        sh[GR] = k
        assert r.breakdown(sh, True)["grandmas"] == v


def test_GB_R41_student_score():
    r = rules()
    sh = new_sheet()
    sh[ST], sh[IN], sh[SC], sh[SSTAR] = 4, 2, 3, 5
    assert r.breakdown(sh, True)["students"] == 6 * 3 + 5


def test_GB_R42_total_is_the_sum_of_all_zones():
    r = rules()
    sh = new_sheet()
    sh[GR], sh[ST], sh[SC] = 3, 2, 1
    sh[T0], sh[TS0], sh[T1] = 2, 1, 3
    sh[SL] = 6
    sh[B0], sh[BS0], sh[OSTAR] = 3, 1, 3
    sh[C0], sh[C1] = 10, 6
    sh[TZ], sh[TR] = 2, 4
    bd = r.breakdown(sh, True, True)
    assert bd == {
        "grandmas": 3,
        "students": 2,
        "tourist_rows": 5 + 4,
        "star_sight": 6,
        "office_rows": 6,
        "star_office": 3,
        "common": 16,
        "personal": 10,
        "turn_zone": -3,
        "traffic": -2,
    }
    assert r.total(sh, True, True) == sum(bd.values()) == 50


def test_GB_R43_highest_non_eliminated_wins_ties_shared():
    st = force_route(start(n=3), 0, [23, 33])  # a grandma: 1 point
    st = force_route(st, 1, [61, 62])  # a grandma: 1 point
    st = force_route(st, 2, LOOP_FROM_97)  # a grandma, a worker, a tourist, then eliminated (GB-R19)
    d = st.to_dict()
    d["ph"], d["used"] = int(P_END), list(range(1, 13))
    end = st.game.state_from_dict(d)
    assert end.game.rules.total(end.sheets[2], True) > 1 and end.scores() == [1, 1, 0]
    assert end.winners() == [0, 1]
    assert end.returns() == [0.0, 0.0, -1.0]


def test_GB_R44_last_player_standing_plays_on():
    st = start(n=2, mask_elimination_moves=False)
    st = force_route(st, 0, [23, 33, 43, 42, 32])
    st.apply_action(4)
    go(st, "E")
    assert st.elim[0] and not st.elim[1]
    finish_round(st)
    rounds = 1
    while st.ph != P_END:
        st.apply_action(st.chance_outcomes()[-1][0])
        finish_round(st, prefer=None)
        rounds += 1
    assert not st.elim[1] and rounds == 12 and len(st.used) == 12 and st.winners() == [1]


def test_GB_R45_public_sheets_secret_personal_objectives():
    st = start(n=2, personals=(0, 3))
    g = st.game
    blocks = {name: (off, length) for name, off, length in g.observation_layout()}

    def block(obs, name):
        off, length = blocks[name]
        return obs[off : off + length]

    o0 = st.observation(0)
    own = block(o0, "personal_objective")
    assert own.sum() == 3 and own[g.map.idx[12]] == 1  # own letters a, f, k
    assert np.array_equal(st.resample_hidden(0, np.random.default_rng(1)).observation(0), o0)
    d = st.to_dict()
    d["personal"][1] = 4
    other = g.state_from_dict(d)
    assert np.array_equal(other.observation(0), o0)  # the other's card is invisible
    st.apply_action(4)
    go(st, "S")  # P0 moves: P1 sees it
    o1 = st.observation(1)
    assert block(o1, "route.visited.p1")[g.map.idx[33]] == 1  # P0 is "next" from P1's seat
    assert block(o1, "sheet.p1")[GR] > 0  # P0's grandma is public


# ---------------------------------------------------------------- variants
def test_GB_V1_mask_elimination_moves_option():
    path = [23, 33, 43, 42, 32]
    on = force_route(start(n=2), 0, path)
    off = force_route(start(n=2, mask_elimination_moves=False), 0, path)
    on.apply_action(4)
    off.apply_action(4)
    assert legal_dirs(on) == "NW" and legal_dirs(off) == "NEW"


def test_GB_V2_green_light_optional():
    st = start(green_light_optional=True)
    st.apply_action(1)
    go(st, "EE")
    assert st.phase() == "green_light" and st.legal_mask()[A_DECLINE]
    st.apply_action(A_DECLINE)
    assert ids(st) == [23, 24, 25] and st.ph == P_REVEAL
    assert not start().legal_mask().any()  # chance node; default never offers decline:
    s = start()
    s.apply_action(1)
    go(s, "EE")
    assert not s.legal_mask()[A_DECLINE]


def test_GB_V3_map_option(tmp_path):
    with pytest.raises(ConfigError, match="map"):
        make_game("get_on_board_v0", map="atlantis")
    with pytest.raises(ConfigError, match="map"):
        make_game("get_on_board_v0", map=3)
    g = make_game("get_on_board_v0", map=tiny_map(tmp_path))
    assert g.map.name == "Tiny" and g.map.n == 11 and g.max_players == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "x"}')
    with pytest.raises(ConfigError, match="map"):
        make_game("get_on_board_v0", map=str(bad))
    assert make_game("get_on_board_v0", map="new_york").map.r == 126


def test_GB_V4_solo_practice():
    g = make_game("get_on_board_v0", solo_practice=True)
    st = g.new_initial_state(1)
    assert st.num_players == 1
    s = force_route(start(n=1, commons=(0, 1)), 0, FIVE_GRANDMAS_FROM_23)
    s.apply_action(4)
    finish_round(s)
    assert s.sheets[0][C0] == 10
    # with solo_practice the common objectives are always worth 10, even when claimed earlier
    st = force_route(start(n=2, commons=(0, 1), solo_practice=True), 0, FIVE_GRANDMAS_FROM_23)
    st.apply_action(4)
    finish_round(st)
    assert st.sheets[0][C0] == 10 and ids(st, 1) == [61, 51, 41, 31]
    st.apply_action(5)  # round 2: P1 (inspector) acts first, its route by then with a fifth grandma
    st = force_route(st, 1, [61, 51, 41, 31, 21, 22, 23, 33, 32, 42, 52, 62, 63, 64])
    finish_round(st)
    assert st.sheets[1][C0] == 10
    d = s.to_dict()
    d["ph"], d["used"] = int(P_END), d["used"] + [t for t in range(1, 13) if t not in d["used"]]
    assert s.game.state_from_dict(d).returns() == [pytest.approx(s.game.state_from_dict(d).scores()[0] * 0.01)]


def test_GB_V5_row_overflow_option():
    on, off = rules(), rules(row_overflow=False)
    for r, expect in ((on, (4, 1)), (off, (4, 0))):
        sh = new_sheet()
        for _ in range(5):
            r.reach(sh, C_TOURIST, False)
        assert (sh[T0], sh[T1]) == expect
        sh = new_sheet()
        for _ in range(4):
            r.reach(sh, C_WORKER, False)
        assert (sh[B0], sh[B1]) == (3, expect[1])
