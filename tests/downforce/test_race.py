"""Downforce race turns and movement (DF-R11 .. DF-R22)."""

from __future__ import annotations

import numpy as np
import pytest
from df_helpers import RED, B, G, K, O, Y, at, card, legal, play_all, race

from boardzoo.envs.downforce.rules import A_COLOR, A_STEER, Dec, DownforceGame, Stage

K6Y2 = card("K6", "Y2")


@pytest.mark.parametrize("seed", range(4))
def test_DF_R11_owner_of_pole_position_starts(seed):
    st = DownforceGame().new_initial_state(4)
    play_all(st, np.random.default_rng(seed), stop=lambda s: s.stage == Stage.RACE)
    assert st.dec_type == Dec.PLAY
    assert st.current_player() == st.turn_player == st.owner[st.grid_cars[0]]


def test_DF_R12_play_exactly_one_card_from_hand():
    st = race(4, cars={K: (3, 0), Y: (3, 1)}, hands={0: [K6Y2, 7], 1: [8], 2: [9], 3: [10]})
    assert legal(st) == [K6Y2, 7]
    st.apply_action(K6Y2)
    assert st.hands[0] == {7} and st.played[-1] == K6Y2
    assert st.current_player() == 1 and st.dec_type == Dec.PLAY


def test_DF_R12_players_without_cards_are_skipped():
    st = race(4, cars={K: (3, 0), Y: (3, 1)}, hands={0: [K6Y2], 1: [], 2: [9], 3: [10]})
    st.apply_action(K6Y2)
    assert st.current_player() == 2


def test_DF_R13_lines_resolve_top_to_bottom():
    # K sits behind Y in the single-lane row 14: K's line comes first, so K is stuck; then Y moves.
    st = race(4, cars={K: (13, 1), Y: (14, 1)}, hands={0: [K6Y2], 1: [1]})
    st.apply_action(K6Y2)
    assert at(st, K) == (13, 1) and at(st, Y) == (16, 1)
    # the other way round (Y's line first) both cars move
    st = race(4, cars={K: (13, 1), Y: (14, 1)}, hands={0: [card("Y6", "K2")], 1: [1]})
    st.apply_action(card("Y6", "K2"))
    assert at(st, Y) == (20, 1) and at(st, K) == (15, 1)


def test_DF_R14_lines_of_finished_cars_are_skipped():
    st = race(4, cars={Y: (3, 1)}, finished=[K], hands={0: [K6Y2], 1: [1]})
    st.apply_action(K6Y2)
    assert st.place[K] == 1 and st.finish_order == [K]
    assert at(st, Y) == (5, 1)


def test_DF_R15_wild_names_an_unprinted_car_after_earlier_lines_moved():
    c = card("K4", "W3", "R2", "O1")
    st = race(4, cars={K: (3, 0), B: (3, 1), G: (3, 2), Y: (10, 0), O: (10, 1), RED: (10, 2)}, hands={0: [c], 1: [1]})
    st.apply_action(c)
    assert st.dec_type == Dec.WILD and st.current_player() == 0
    assert at(st, K) == (7, 0)  # the K4 line has already moved
    assert legal(st) == [A_COLOR + B, A_COLOR + G, A_COLOR + Y]  # not the printed K, R, O
    st.apply_action(A_COLOR + G)
    assert at(st, G) == (6, 2) and at(st, RED) == (12, 2) and at(st, O) == (11, 1)


def test_DF_R15_wild_is_automatic_with_one_candidate_and_skipped_with_none():
    c = card("K4", "W3", "R2", "O1")
    st = race(4, cars={K: (3, 0), Y: (4, 0), O: (4, 1), RED: (4, 2)}, finished=[B, G], hands={0: [c], 1: [1]})
    st.apply_action(c)
    assert st.dec_type == Dec.PLAY and at(st, Y) == (7, 0)  # only Yellow qualified
    st = race(4, cars={K: (3, 0), O: (4, 1), RED: (4, 2)}, finished=[B, G, Y], hands={0: [c], 1: [1]})
    st.apply_action(c)
    assert st.dec_type == Dec.PLAY and at(st, K) == (7, 0) and at(st, O) == (5, 1)


def test_DF_R16_steps_go_forward_straight_or_diagonal_into_existing_lanes():
    st = race(4, cars={K: (13, 0)}, hands={0: [K6Y2], 1: [1]})
    st.apply_action(K6Y2)  # row 14 has only lane 1
    assert at(st, K) == (19, 1)
    g = st.game
    for sid in range(g.num_spaces):
        for _k, nsid in g.steps[sid]:
            assert nsid // 3 == sid // 3 + 1 and abs(nsid % 3 - sid % 3) <= 1 and g.exists[nsid]


def test_DF_R17_cars_never_enter_occupied_spaces():
    # straight and lower diagonal blocked -> the car takes the upper diagonal
    st = race(
        4,
        cars={K: (4, 1), B: (5, 1), G: (5, 0)},
        hands={0: [card("K4", "B4", "G2")], 1: [1]},
        owners=[0, 1, 1, 1, 1, 1],
    )
    st.apply_action(card("K4", "B4", "G2"))
    assert at(st, K)[0] == 8
    assert len({st.pos[c] for c in (K, B, G)}) == 3


def test_DF_R18_blocked_car_stops_and_loses_the_rest():
    st = race(4, cars={K: (12, 1), Y: (14, 1)}, hands={0: [card("K5", "B2", "G2", "Y1")], 1: [1]})
    st.apply_action(card("K5", "B2", "G2", "Y1"))
    # K: 12 -> 13, then row 14 (single lane) is occupied: K stops; Y then moves 1
    assert at(st, K)[0] == 13 and at(st, Y) == (15, 1)


def test_DF_R19_a_car_may_be_steered_into_a_dead_end():
    # row 37 has lanes {1,2}; (37,1) is occupied. Steering K into (36,0) leaves no legal step.
    st = race(
        4,
        cars={K: (35, 1), B: (37, 1)},
        hands={0: [card("K5", "B2", "G2", "Y1")], 1: [1]},
        steering="manual",
        owners=[0, 1, 1, 1, 1, 1],
    )
    st.apply_action(card("K5", "B2", "G2", "Y1"))
    assert st.dec_type == Dec.STEER and legal(st) == [A_STEER + 0, A_STEER + 1, A_STEER + 2]
    st.apply_action(A_STEER + 0)  # to lane 0
    assert at(st, K) == (36, 0)  # stuck: (37,1) taken, no lane 0 in row 37
    assert st.dec_type in (Dec.STEER, Dec.PLAY)
    while st.dec_type == Dec.STEER:
        st.apply_action(legal(st)[0])
    assert at(st, K) == (36, 0)


@pytest.mark.parametrize(
    "blockers,expected",
    [
        ({}, (4, 1)),  # straight
        ({B: (4, 1)}, (4, 0)),  # straight blocked -> diagonal to the lower lane
        ({B: (4, 1), Y: (4, 0)}, (4, 2)),  # both blocked -> the other diagonal
    ],
)
def test_DF_R20_automatic_steering_preference(blockers, expected):
    cars = {K: (3, 1)}
    cars.update(blockers)
    c = card("G5", "O3", "K1")
    st = race(4, cars=cars, finished=[G, O], hands={0: [c], 1: [1]})
    st.apply_action(c)
    assert at(st, K) == expected


def test_DF_R20_manual_steering_asks_the_current_player():
    st = race(4, cars={B: (3, 1)}, hands={0: [card("B6", "O2")], 1: [1]}, steering="manual", finished=[O])
    st.apply_action(card("B6", "O2"))
    assert st.dec_type == Dec.STEER and st.current_player() == 0  # B belongs to seat 1
    assert legal(st) == [A_STEER + 0, A_STEER + 1, A_STEER + 2]
    st.apply_action(A_STEER + 2)
    assert at(st, B) == (4, 2)


def test_DF_R21_crossing_the_finish_takes_the_next_place():
    st = race(4, cars={K: (44, 1), Y: (30, 1)}, finished=[G], hands={0: [K6Y2], 1: [1]})
    st.apply_action(K6Y2)
    assert st.place[K] == 2 and st.pos[K] == -1 and st.finish_order == [G, K]
    assert at(st, Y) == (32, 1)


def test_DF_R22_cars_finishing_on_one_card_keep_crossing_order():
    st = race(4, cars={K: (45, 0), Y: (45, 1)}, hands={0: [K6Y2], 1: [1]})
    st.apply_action(K6Y2)
    assert st.finish_order == [K, Y]
    st = race(4, cars={K: (45, 0), Y: (45, 1)}, hands={0: [card("Y6", "K2")], 1: [1]})
    st.apply_action(card("Y6", "K2"))
    assert st.finish_order == [Y, K]
