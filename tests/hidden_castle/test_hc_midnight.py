"""Rule tests of the Midnight Party variant (HC-V*), on the Midnight-Party board:
rooms 1@2, 2@3, 3@7, 4 armory@11, 5@14, 6 ballroom@18, 7@22, 8 abandoned@25, 9@29,
10 banqueting@33, 11@37; steps -10..-3 (one group each) and -2 (unlimited); Hugo starts on -10.
"""

from __future__ import annotations

import numpy as np
import pytest
from hc_setup import MIDNIGHT, build, edit, legal_moves, mv, roll, where

from boardzoo.envs.core.game import CHANCE, TERMINAL
from boardzoo.envs.hidden_castle.rules import DECLINE, MOVE


def test_HC_V1_midnight_board_no_trail_no_clock():
    st = MIDNIGHT.new_initial_state(4)
    assert st.side.num_rooms == 11 and st.side.steps == list(range(-10, -1))
    assert st.spooky == [0, 0, 0, 0]  # no trail: round totals start at 0
    assert st.hugo == -9  # on step -10, 9 steps from gallery 0
    assert MIDNIGHT.clock_speed == []


def test_HC_V2_three_rounds_then_end():
    st = build({0: ["g6"] + ["s-2"] * 5, 1: ["s-3"] * 6}, variant=True, roll=4, hugo=10, round_=3)
    st.apply_action(mv(0, 0))  # 6 -> 10 = Hugo's space: captured, gallery empty
    assert st.is_terminal() and len(st.round_scores) == 3
    st = build({0: ["g6"] + ["s-2"] * 5, 1: ["s-3"] * 6}, variant=True, roll=4, hugo=10, round_=2)
    st.apply_action(mv(0, 0))
    assert not st.is_terminal() and st.round == 3


@pytest.mark.parametrize("n,speed", [(2, 3), (4, 3), (6, 3), (7, 2), (8, 2)])
def test_HC_V3_hugo_speed(n, speed):
    guests = {p: ["g30"] * MIDNIGHT.guests_per_player(n) for p in range(n)}
    st = build(guests, n=n, variant=True, phase="roll", hugo=5)
    assert st.speed() == speed
    roll(st, "H")
    assert st.hugo == 5 + speed


def test_HC_V4_hugo_path_minus10_to_gallery():
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, variant=True, phase="roll", hugo="c9")
    seen = []
    for _ in range(3):
        roll(st, "H")
        seen.append(st.hugo)
    assert seen == [-6, -3, 0]  # -10 -> -7 -> -4 -> gallery 0 (via -3, -2)
    roll(st, "H")
    assert st.hugo == 3 and st.clock == 0  # circles, no clock


def test_HC_V5_rooms_hold_until_round_end_no_expelling():
    st = build({0: ["r3", "g4", "g30", "g30", "g30", "g30"], 1: ["r4"] + ["g9"] * 5}, variant=True, roll=3, hugo=20)
    moves = legal_moves(st)
    assert all(slot != 0 for slot, _ in moves)  # the guest in room 3 cannot leave
    st = build({0: ["r3"] + ["g30"] * 5, 1: ["r4"] + ["g8"] * 5}, variant=True, roll=3, hugo=20, turn=1)
    assert (1, 4) not in legal_moves(st)  # occupied armory, exact count: still no


def test_HC_V6_captured_guests_stay_on_steps():
    st = build({0: ["s-10", "g30", "g30", "g30", "g30", "g30"], 1: ["g20"] * 6}, variant=True, roll=4, hugo=10)
    assert all(slot != 0 for slot, _ in legal_moves(st))


def test_HC_V7_lowest_free_step_then_minus_2_unlimited():
    st = build(
        {0: ["g6", "g7", "g30", "g30", "g30", "g30"], 1: ["s-10"] + ["g35"] * 5}, variant=True, phase="roll", hugo=5
    )
    roll(st, "H")
    assert where(st, 0)[:2] == ["s-9", "s-8"]
    full = ["s-10", "s-9", "s-8", "s-7", "s-6", "s-5"]
    st = build({0: full, 1: ["s-4", "s-3", "g6", "g6", "g7", "g35"]}, variant=True, phase="roll", hugo=5)
    roll(st, "H")
    assert where(st, 1)[2:5] == ["s-2", "s-2", "s-2"]
    assert st.spooky == [0, 0]  # no points until the round is scored


def test_HC_V8_only_lucky_rooms_need_exact():
    # guest on 9: armory door 11 at step 2, entry 3; a 5 is more than enough
    st = build({0: ["g9"] * 6, 1: ["g30"] * 6}, variant=True, roll=5, hugo=20)
    assert (0, 4) in legal_moves(st)
    # guest on 15: ballroom door 18 at step 3, entry 4: 5 is not exact
    st = build({0: ["g15"] * 6, 1: ["g30"] * 6}, variant=True, roll=5, hugo=40 - 1)
    assert (0, 6) not in legal_moves(st)
    st = build({0: ["g15"] * 6, 1: ["g30"] * 6}, variant=True, roll=4, hugo=39)
    assert (0, 6) in legal_moves(st)


def test_HC_V9_decline_only_with_exactly_one_gallery_guest():
    st = build({0: ["g5", "r3", "s-10", "s-9", "r4", "r5"], 1: ["g30"] * 6}, variant=True, roll=2, hugo=20)
    assert st.legal_mask()[DECLINE] == 1
    st.apply_action(DECLINE)
    assert where(st, 0)[0] == "g5" and st.current_player() == CHANCE and st.turn == 1
    st = build({0: ["g5", "g6", "s-10", "s-9", "r4", "r5"], 1: ["g30"] * 6}, variant=True, roll=2, hugo=20)
    assert st.legal_mask()[DECLINE] == 0


def test_HC_V9_no_gallery_guest_number_has_no_effect_hugo_still_moves():
    st = build({0: ["r1", "r3", "s-10", "s-9", "r4", "r5"], 1: ["g30"] * 6}, variant=True, phase="roll", hugo=20)
    before = list(st.loc)
    roll(st, 4)
    assert st.loc == before and st.current_player() == CHANCE and st.turn == 1
    st = edit(st, turn=0)
    roll(st, "H")
    assert st.hugo == 23


def test_HC_V10_round_ends_when_gallery_empty_mid_hugo_move():
    # Hugo from 5 would go 6, 7, 8; the capture on 6 empties the gallery: he stops there
    st = build(
        {0: ["g6", "r1", "r2", "r3", "r4", "r5"], 1: ["r6", "r7", "r8", "r9", "s-10", "s-9"]},
        variant=True,
        phase="roll",
        hugo=5,
    )
    roll(st, "H")
    assert st.round == 2 and st.round_scores[0][0] == 8 + 1  # red's guest went to -8; armory +1
    assert st.phase() == "replace"


def test_HC_V10_round_ends_when_all_rooms_full_rest_to_minus_2():
    guests = {0: ["g17", "r1", "r2", "r3", "r4", "r5"], 1: ["r7", "r8", "r9", "r10", "r11", "g30"]}
    st = build(guests, variant=True, roll=2, hugo=20)  # 17 -> door 18 (step 1) -> ballroom (2)
    st.apply_action(mv(0, 6))
    assert st.round == 2
    # blue's gallery guest went to -2 and scored 2; the armory +1, the ballroom -3
    assert st.round_scores[0] == [0 + 0 + 0 + 1 + 0 - 3, 0 + 1 + 0 - 3 + 0 + 2]


def test_HC_V11_round_scoring():
    st = build(
        {0: ["s-10", "s-2", "r4", "r6", "r8", "r10"], 1: ["s-9", "s-3", "r1", "r2", "g30", "r3"]},
        variant=True,
        roll=4,
        hugo=30,
        turn=1,
    )
    st.apply_action(mv(4, 0))  # 30 -> 34; not captured, gallery still has 1 guest
    assert st.round == 1
    assert st.round_points() == [10 + 2 + 1 - 3 + 1 - 3, 9 + 3]
    st2 = build(
        {0: ["s-10", "s-2", "r4", "r6", "r8", "r10"], 1: ["s-9", "s-3", "r1", "r2", "g30", "r3"]},
        variant=True,
        roll=4,
        hugo=34,
        turn=1,
    )
    st2.apply_action(mv(4, 0))  # lands on Hugo: captured -> gallery empty -> scored
    assert st2.round_scores[0] == [8, 9 + 3 + 8]


def test_HC_V12_between_rounds_order_and_doors():
    guests = {0: ["g5", "r1", "r3", "s-2", "s-2", "r4"], 1: ["s-10", "s-9", "r5", "r6", "r7", "r9"]}
    st = build(guests, variant=True, roll=1, hugo=20, start=0)
    st.apply_action(mv(0, 0))  # 5 -> 6; still one guest on the gallery: no end
    assert st.round == 1
    st = build(guests, variant=True, roll=1, hugo=6, start=0)
    st.apply_action(mv(0, 0))  # 5 -> 6 = Hugo: captured on -8; gallery empty
    assert st.round == 2 and st.phase() == "replace"
    # rooms emptied onto their doors
    assert where(st, 0)[1:3] == ["g2", "g7"] and where(st, 0)[5] == "g11"
    assert where(st, 1)[2:] == ["g14", "g18", "g22", "g29"]
    assert st.hugo == -9  # back to -10
    # placement order: -10 (blue 0), -9 (blue 1), -8 (red 0), then -2 (red 3, red 4)
    order = []
    while st.phase() == "replace":
        order.append((st.current_player(), st.guest_slot()))
        legal = np.flatnonzero(st.legal_mask())
        assert all(a < 40 for a in legal) and 2 not in legal and 18 not in legal  # empty spaces only
        st.apply_action(int(legal[-1]))
    assert order == [(1, 0), (1, 1), (0, 0), (0, 3), (0, 4)]
    st.check_invariants()


TIE_GUESTS = {
    0: ["g9", "r1", "r2", "r3"],
    1: ["g9", "r4", "r6", "r8"],
    2: ["g9", "r5", "r7", "r9"],
    3: ["r10", "r11", "s-2", "s-2"],
}


def test_HC_V12_ties_within_a_step_clockwise_from_start_player():
    # one group of three guests (red, blue, green) goes to -10; red and green tie on 10
    st = build(TIE_GUESTS, n=4, variant=True, phase="roll", hugo=8, start=2)
    roll(st, "H")  # Hugo enters 9: the group -> -10; gallery empty
    assert st.round_scores[0] == [10, 10 + 1 - 3 + 1, 10, -3 + 0 + 2 + 2]
    order = [divmod(gi, 4) for gi in st.queue]
    # -10: red and green tied on 10 -> clockwise from start player 2: green, red; then blue (9)
    assert order == [(2, 0), (0, 0), (1, 0), (3, 2), (3, 3)]


@pytest.mark.parametrize("start,expect", [(2, 2), (3, 0), (0, 0), (1, 2)])
def test_HC_V13_most_points_start_next_round_ties_clockwise(start, expect):
    st = build(TIE_GUESTS, n=4, variant=True, phase="roll", hugo=8, start=start)
    roll(st, "H")
    assert st.spooky == [10, 9, 10, 1]
    assert st.start == expect and st.turn == expect
    while st.phase() == "replace":
        st.apply_action(int(np.flatnonzero(st.legal_mask())[0]))
    assert st.phase() == "roll" and st.turn == expect  # the new start player rolls first


def test_HC_V14_fewest_total_wins_ties_share():
    st = build({0: ["s-2"] * 6, 1: ["s-2"] * 6}, variant=True, phase="end", round_=3)
    st = edit(st, round_scores=[[5, 7], [3, 1], [4, 4]], spooky=[12, 12])
    assert st.winners() == [0, 1]
    st = edit(st, round_scores=[[5, 7], [3, 1], [4, 3]], spooky=[12, 11])
    assert st.winners() == [1] and st.returns() == [-1.0, 1.0]


def test_HC_V15_base_rules_kept_and_replaced_in_variant():
    # kept: HC-R9 (stopping on Hugo captures), HC-R12 (rooms closed while Hugo is in the cellar)
    st = build({0: ["g3", "g30", "g30", "g30", "g30", "g30"], 1: ["g35"] * 6}, variant=True, roll=2, hugo=5)
    st.apply_action(mv(0))
    assert where(st, 0)[0] == "s-10"
    st = build({0: ["g5"] * 6, 1: ["g35"] * 6}, variant=True, roll=3, hugo="c2")
    assert (0, 3) not in legal_moves(st)
    # replaced: HC-R19 (no room points on entry), HC-R22 (no clock)
    st = build({0: ["g9"] * 6, 1: ["g35"] * 6}, variant=True, roll=3, hugo=20)
    st.apply_action(mv(0, 4))
    assert st.spooky == [0, 0]
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, variant=True, phase="roll", hugo=39)
    roll(st, "H")
    assert st.clock == 0 and st.hugo == 2


def test_HC_V16_rooms_closed_again_after_hugo_returns():
    guests = {0: ["g5", "r1", "r3", "s-2", "s-2", "r4"], 1: ["s-10", "s-9", "r5", "r6", "r7", "r9"]}
    st = build(guests, variant=True, roll=1, hugo=6, start=0)
    st.apply_action(mv(0, 0))
    while st.phase() == "replace":
        st.apply_action(int(np.flatnonzero(st.legal_mask())[0]))
    assert st.hugo < 0
    # a guest two spaces before a free room door cannot enter it with a 4
    st = edit(st, roll=4, phase_id=MOVE)
    p = st.turn
    moves = legal_moves(st)
    assert moves and all(t == 0 for _, t in moves), f"seat {p} may enter a room before Hugo is out"


def test_HC_V_full_game_is_three_rounds():
    rng = np.random.default_rng(1)
    st = MIDNIGHT.new_initial_state(3)
    while not st.is_terminal():
        if st.current_player() == CHANCE:
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert st.current_player() == TERMINAL and len(st.round_scores) == 3
    assert st.spooky == [sum(r[p] for r in st.round_scores) for p in range(3)]
