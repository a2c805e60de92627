"""Rule tests of Escape from the Hidden Castle, base game (HC-R*), on the Hugo-side board:
rooms 1@2, 2@3, 3@8, 4 armory@13, 5@18, 6 ballroom@22 (green), 7@27, 8 banqueting@32 (green), 9@36;
cellar steps +10..+2; Hugo needs 10 steps from his start space to gallery 0.
"""

from __future__ import annotations

import numpy as np
import pytest
from hc_setup import BASE, FACE, build, edit, legal_moves, mv, roll, where

from boardzoo.envs import ConfigError
from boardzoo.envs.core.game import CHANCE, TERMINAL, IllegalActionError
from boardzoo.envs.hidden_castle.rules import DECLINE, MOVE, ROLL, HiddenCastleGame

# ----------------------------------------------------------------------------- setup


@pytest.mark.parametrize("n,k", [(2, 6), (3, 5), (4, 4), (5, 3), (6, 2), (7, 2), (8, 2)])
def test_HC_R1_guests_per_player(n, k):
    st = BASE.new_initial_state(n)
    assert st.gpp == k
    assert len(st.loc) == n * k


@pytest.mark.parametrize("n", [1, 9])
def test_HC_R1_player_range(n):
    with pytest.raises(ConfigError, match="num_players"):
        BASE.new_initial_state(n)


def test_HC_R2_initial_trail_clock_and_hugo():
    st = BASE.new_initial_state(4)
    assert st.spooky == [10, 10, 10, 10]
    assert BASE.clock_labels[st.clock] == "23:45"
    assert st.hugo == -10  # on the start space, 10 steps from gallery 0
    assert not st.rooms_open()


def test_HC_R3_random_start_player_and_clockwise_order():
    st = BASE.new_initial_state(3)
    assert st.current_player() == CHANCE
    outs = st.chance_outcomes()
    assert [o for o, _ in outs] == [0, 1, 2] and all(p == pytest.approx(1 / 3) for _, p in outs)
    st.apply_action(2)
    order = []
    while st.phase() == "setup":
        order.append(st.current_player())
        st.apply_action(int(np.flatnonzero(st.legal_mask())[0]))
    assert order == [2, 0, 1] * 5  # one guest at a time, clockwise from the start player
    roll(st, 1)
    assert st.current_player() == 2  # play starts with the start player


def test_HC_R3_seeded_start_player_is_reproducible():
    a = BASE.new_initial_state(5).sample_chance(np.random.default_rng(123))
    b = BASE.new_initial_state(5).sample_chance(np.random.default_rng(123))
    assert a == b and 0 <= a < 5


def test_HC_R4_setup_places_on_empty_gallery_spaces_only():
    st = build({0: ["g4"], 1: ["g7"]}, phase="setup", hugo="start")
    assert st.placed == 2
    m = st.legal_mask()
    assert m[4] == 0 and m[7] == 0 and m[5] == 1
    assert m[40:].sum() == 0  # no MOVE, no DECLINE, no cellar placement action
    with pytest.raises(IllegalActionError):
        st.apply_action(4)
    st.apply_action(5)
    assert where(st, 0)[:2] == ["g4", "g5"]


def test_HC_R5_die_faces_uniform():
    st = build({0: ["g1"] * 6, 1: ["g2"] * 6}, phase="roll", hugo="start")
    outs = st.chance_outcomes()
    assert len(outs) == 6 and all(p == pytest.approx(1 / 6) for _, p in outs)
    faces = sorted(BASE.die[o] for o, _ in outs)
    assert faces == [0, 0, 1, 2, 4, 5]  # 1, 2, 4, 5, Hugo, Hugo


def test_HC_R6_hugo_face_moves_hugo_not_a_guest():
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, phase="roll", hugo=5, clock=1)
    before = list(st.loc)
    roll(st, "H")
    assert st.hugo == 8  # speed 3 at 24:00
    assert st.loc == before
    assert st.phase() == "roll" and st.turn == 1  # next player rolls


def test_HC_R7_must_move_even_if_all_guests_safe():
    st = build({0: ["r1", "r3", "s+10", "s+9", "r5", "r7"], 1: ["g30"] * 6}, roll=2, hugo=20)
    assert st.legal_mask()[DECLINE] == 0
    moves = legal_moves(st)
    assert moves  # one guest must leave its room or the cellar
    assert (0, 0) in moves and (2, 0) in moves
    assert (3, 0) not in moves  # +9 waits for +10 (HC-R10)


def test_HC_R7_exactly_n_steps():
    st = build({0: ["g10"] * 6, 1: ["g30"] * 6}, roll=4, hugo=20)
    st.apply_action(mv(0))
    assert where(st, 0)[0] == "g14"


def test_HC_R8_clockwise_and_shared_spaces():
    st = build({0: ["g38", "g5", "g5", "g5", "g5", "g5"], 1: ["g1"] * 6}, roll=4, hugo=20)
    st.apply_action(mv(0))
    assert where(st, 0)[0] == "g2"  # wraps clockwise past the arrow space
    st2 = build({0: ["g9"] * 6, 1: ["g11"] * 6}, roll=2, hugo=20)
    st2.apply_action(mv(0))
    assert where(st2, 0)[0] == "g11"  # shares the space with blue's guests


def test_HC_R9_pass_hugo_safely_but_stopping_on_him_is_capture():
    st = build({0: ["g10"] * 6, 1: ["g30"] * 6}, roll=4, hugo=12)
    st.apply_action(mv(0))
    assert where(st, 0)[0] == "g14"  # moved past Hugo
    st = build({0: ["g10"] * 6, 1: ["g30"] * 6}, roll=2, hugo=12)
    st.apply_action(mv(0))
    assert where(st, 0)[0] == "s+10" and st.spooky[0] == 20


def test_HC_R10_cellar_exit_counts_arrow_space_and_highest_step_first():
    st = build({0: ["s+8", "s+10", "s+10", "g30", "g31", "g32"], 1: ["s+9"] + ["g20"] * 5}, roll=4, hugo=25)
    moves = legal_moves(st)
    assert (1, 0) in moves and (2, 0) in moves  # either +10 guest (interchangeable)
    assert (0, 0) not in moves  # +8 must wait
    st.apply_action(mv(2))
    assert where(st, 0)[2] == "g3"  # the arrow space is step 1: n - 1
    st = build({0: ["s+8", "s+10", "g30", "g30", "g31", "g32"], 1: ["g20"] * 6}, roll=4, hugo=25)
    assert (1, 1) in legal_moves(st)  # 4 from the cellar reaches room 1 (door 2)
    assert (1, 2) not in legal_moves(st)  # room 2 (door 3) needs a 5
    st = build({0: ["s+8", "s+10", "g30", "g30", "g31", "g32"], 1: ["g20"] * 6}, roll=5, hugo=25)
    assert {(1, 1), (1, 2)} <= legal_moves(st)  # 5 reaches room 1 or room 2 (doors 2, 3)


def test_HC_R11_leaving_a_room_counts_its_door_as_first_step():
    st = build({0: ["r5", "g30", "g30", "g30", "g30", "g30"], 1: ["g25"] * 6}, roll=4, hugo=35)
    assert (0, 5) not in legal_moves(st)  # may not re-enter the room it left
    st.apply_action(mv(0))
    assert where(st, 0)[0] == "g21"  # door 18 is step 1
    # door 18 -> 19, 20, 21, door 22 at step 5: the ballroom needs a 6, so only walking with 4
    st = build({0: ["r1", "g30", "g30", "g30", "g30", "g30"], 1: ["g25"] * 6}, roll=3, hugo=35)
    assert (0, 2) in legal_moves(st)  # door 2 step 1, door 3 step 2, room 2 step 3
    st.apply_action(mv(0, 2))
    assert where(st, 0)[0] == "r2"


def test_HC_R11_room_to_room_entry_step_count():
    # room 1 door 2: door 2 = step 1, door 3 = step 2, entering room 2 = step 3
    st = build({0: ["r1", "g30", "g30", "g30", "g30", "g30"], 1: ["g25"] * 6}, roll=2, hugo=35)
    assert (0, 2) not in legal_moves(st)
    st = build({0: ["r1", "g30", "g30", "g30", "g30", "g30"], 1: ["g25"] * 6}, roll=4, hugo=35)
    assert (0, 2) in legal_moves(st)
    assert (0, 1) not in legal_moves(st)


def test_HC_R12_rooms_closed_until_hugo_on_gallery():
    st = build({0: ["g6"] * 6, 1: ["g30"] * 6}, roll=4, hugo="c1")
    assert (0, 3) not in legal_moves(st)
    st = build({0: ["g6"] * 6, 1: ["g30"] * 6}, roll=4, hugo=0)
    assert (0, 3) in legal_moves(st)


def test_HC_R13_enter_only_from_door_and_entry_step_counts():
    # guest on 6, kitchen door 8: door at step 2, entry is step 3
    st = build({0: ["g6"] * 6, 1: ["g30"] * 6}, roll=2, hugo=20)
    assert (0, 3) not in legal_moves(st)
    st = build({0: ["g6"] * 6, 1: ["g30"] * 6}, roll=4, hugo=20)
    assert (0, 3) in legal_moves(st)
    # a guest standing on the door steps in with a 1
    st = build({0: ["g8"] * 6, 1: ["g30"] * 6}, roll=1, hugo=20)
    assert (0, 3) in legal_moves(st)
    # guest on 9 is past door 8 and 3 short of door 13: no room within 3
    st = build({0: ["g9"] * 6, 1: ["g30"] * 6}, roll=3, hugo=20)
    assert all(t == 0 for _, t in legal_moves(st))


def test_HC_R14_plain_room_with_more_than_enough_is_optional():
    st = build({0: ["g6"] * 6, 1: ["g30"] * 6}, roll=5, hugo=20)
    assert {(0, 0), (0, 3)} <= legal_moves(st)
    st.apply_action(mv(0, 3))
    assert where(st, 0)[0] == "r3"  # the two unused steps are lost
    st = build({0: ["g6"] * 6, 1: ["g30"] * 6}, roll=5, hugo=20)
    st.apply_action(mv(0, 0))
    assert where(st, 0)[0] == "g11"


def test_HC_R15_green_room_needs_exact_count():
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, roll=4, hugo=10)
    assert (0, 6) not in legal_moves(st)  # door 22 at step 2, entry 3 != 4
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, roll=2, hugo=10)
    assert (0, 6) not in legal_moves(st)
    st = build({0: ["g19"] * 6, 1: ["g30"] * 6}, roll=4, hugo=10)
    assert (0, 6) in legal_moves(st)


def test_HC_R16_occupied_room_exact_and_expel_other_player_only():
    guests = {0: ["g6", "g6", "g30", "g30", "g30", "g30"], 1: ["r3"] + ["g35"] * 5}
    st = build(guests, roll=5, hugo=20)
    assert (0, 3) not in legal_moves(st)  # not exact
    st = build(guests, roll=3, hugo=20)
    assert (0, 3) in legal_moves(st)
    st.apply_action(mv(0, 3))
    assert where(st, 0)[0] == "r3" and where(st, 1)[0] == "g8"  # expelled to the door space
    own = build({0: ["g6", "r3", "g30", "g30", "g30", "g30"], 1: ["g35"] * 6}, roll=3, hugo=20)
    assert (0, 3) not in legal_moves(own)  # never expel an own guest


def test_HC_R17_expelled_onto_hugo_is_captured():
    st = build({0: ["g6", "g6", "g30", "g30", "g30", "g30"], 1: ["r3"] + ["g35"] * 5}, roll=3, hugo=8, spooky=[10, 12])
    st.apply_action(mv(0, 3))
    assert where(st, 1)[0] == "s+10" and st.spooky[1] == 22
    assert where(st, 0)[0] == "r3"


def test_HC_R18_guests_in_rooms_and_on_steps_are_safe():
    st = build({0: ["r2", "r3", "s+10", "g30", "g31", "g32"], 1: ["g36"] * 6}, phase="roll", hugo=1, clock=1)
    roll(st, "H")  # Hugo 1 -> 4 passes doors 2, 3
    assert where(st, 0)[:3] == ["r2", "r3", "s+10"]
    st = build({0: ["s+10", "s+9", "g30", "g30", "g31", "g32"], 1: ["g36"] * 6}, phase="roll", hugo="start", clock=0)
    roll(st, "H")  # Hugo climbs past the steps: nobody captured
    assert where(st, 0)[:2] == ["s+10", "s+9"] and st.spooky == [10, 10]


def test_HC_R19_armory_plus_one_green_minus_three_floor_zero():
    st = build({0: ["g11"] * 6, 1: ["g30"] * 6}, roll=3, hugo=20, spooky=[15, 10])
    st.apply_action(mv(0, 4))
    assert st.spooky[0] == 16
    st = build({0: ["g19"] * 6, 1: ["g30"] * 6}, roll=4, hugo=10, spooky=[15, 10])
    st.apply_action(mv(0, 6))
    assert st.spooky[0] == 12
    st = build({0: ["g19"] * 6, 1: ["g30"] * 6}, roll=4, hugo=10, spooky=[2, 10])
    st.apply_action(mv(0, 6))
    assert st.spooky[0] == 0  # never below 0
    st.check_invariants()


# ----------------------------------------------------------------------------- Hugo


def test_HC_R20_hugo_path_steps_then_gallery_forever():
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, phase="roll", hugo="start", clock=0)
    seen = []
    for _ in range(4):
        roll(st, "H")
        seen.append(st.hugo)
    assert seen == [-7, -4, -1, 2]  # 10 steps to gallery 0, then clockwise
    st = build({0: ["g20"] * 6, 1: ["g30"] * 6}, phase="roll", hugo=38, clock=2)
    roll(st, "H")
    assert st.hugo == 2  # 39, 0, 1, 2: circles, never back to the steps


@pytest.mark.parametrize("clock,speed", [(0, 3), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7)])
def test_HC_R21_speed_table(clock, speed):
    st = build({0: ["g30"] * 6, 1: ["g30"] * 6}, phase="roll", hugo=5, clock=clock)
    assert st.speed() == speed
    roll(st, "H")
    assert st.hugo == 5 + speed


def test_HC_R22_clock_advances_on_every_entry_to_space_0():
    st = build({0: ["g30"] * 6, 1: ["g30"] * 6}, phase="roll", hugo="c1", clock=0)
    roll(st, "H")
    assert BASE.clock_labels[st.clock] == "24:00" and st.hugo == 2
    st = build({0: ["g30"] * 6, 1: ["g20"] * 6}, phase="roll", hugo=38, clock=1)
    roll(st, "H")  # passes 0 at speed 3 -> 1:00
    assert BASE.clock_labels[st.clock] == "1:00" and st.hugo == 1
    st = edit(st, turn=0, phase_id=ROLL)
    roll(st, "H")  # new speed 4 applies from the next move
    assert st.hugo == 5


def test_HC_R22_speed_change_applies_from_next_move():
    st = build({0: ["g30"] * 6, 1: ["g20"] * 6}, phase="roll", hugo=39, clock=1)
    roll(st, "H")  # speed 3 for the whole move though the clock moved
    assert st.hugo == 2 and st.clock == 2


def test_HC_R23_all_guests_on_entered_spaces_captured():
    st = build({0: ["g6", "g7", "g9", "g30", "g30", "g30"], 1: ["g7"] * 6}, phase="roll", hugo=5, clock=1)
    roll(st, "H")  # enters 6, 7, 8
    assert where(st, 0)[:3] == ["s+10", "s+9", "g9"]
    assert all(w == "s+9" for w in where(st, 1))


def test_HC_R24_groups_in_path_order_highest_free_step():
    st = build(
        {0: ["g6", "g7", "s+10", "g30", "g30", "g30"], 1: ["g7", "g7"] + ["g35"] * 4},
        phase="roll",
        hugo=5,
        clock=1,
        spooky=[20, 10],
    )
    roll(st, "H")
    # +10 is taken: g6 -> +9, the g7 group (one red, two blue) -> +8
    assert where(st, 0)[:2] == ["s+9", "s+8"] and where(st, 1)[:2] == ["s+8", "s+8"]
    assert st.spooky == [20 + 9 + 8, 10 + 8 + 8]


def test_HC_R25_no_free_step_joins_plus_10():
    steps = ["s+10", "s+9", "s+8", "s+7", "s+6", "s+5"]
    st = build({0: steps, 1: ["s+4", "s+3", "s+2", "g6", "g6", "g30"]}, phase="roll", hugo=5, clock=1, spooky=[10, 10])
    roll(st, "H")
    assert where(st, 1)[3:5] == ["s+10", "s+10"]
    assert st.spooky[1] == 10 + 20


def test_HC_R26_step_frees_when_last_guest_leaves():
    st = build({0: ["s+10", "g20", "g20", "g20", "g20", "g20"], 1: ["s+10", "g3"] + ["g35"] * 4}, roll=2, hugo=0)
    st.apply_action(mv(0))  # red leaves +10, blue is still there
    assert st.step_cnt[0] == 1
    st = edit(st, turn=1, roll=2, phase_id=MOVE)
    st.apply_action(mv(0))  # blue leaves too: +10 is free
    assert st.step_cnt[0] == 0
    st = edit(st, turn=0, roll=0, phase_id=ROLL, hugo=1, clock=1)
    roll(st, "H")  # Hugo 1 -> 4 captures blue on 3 -> +10 again
    assert where(st, 1)[1] == "s+10"


def test_HC_R27_clock_five_stops_hugo_after_capture_on_zero():
    st = build({0: ["g0", "g1", "g30", "g30", "g30", "g30"], 1: ["g2"] * 6}, phase="roll", hugo=37, clock=5)
    roll(st, "H")  # speed 7: 38, 39, 0 -> 5:00, stop
    assert st.hugo == 0 and BASE.clock_labels[st.clock] == "5:00"
    assert where(st, 0)[:2] == ["s+10", "g1"]
    assert st.current_player() == TERMINAL


def test_HC_R28_end_at_46_after_the_whole_move():
    st = build(
        {0: ["g6", "g8", "g30", "g30", "g30", "g30"], 1: ["g35"] * 6}, phase="roll", hugo=5, clock=1, spooky=[36, 10]
    )
    roll(st, "H")  # 36 + 10 + 9 = 55: both captures scored
    assert st.spooky[0] == 55 and st.is_terminal()
    st = build(
        {0: ["g6", "g30", "g30", "g30", "g30", "g30"], 1: ["g35"] * 6}, phase="roll", hugo=5, clock=1, spooky=[35, 10]
    )
    roll(st, "H")
    assert st.spooky[0] == 45 and not st.is_terminal()
    st = build(
        {0: ["g6", "g30", "g30", "g30", "g30", "g30"], 1: ["g35"] * 6}, phase="roll", hugo=5, clock=1, spooky=[36, 10]
    )
    roll(st, "H")
    assert st.spooky[0] == 46 and st.is_terminal()


def test_HC_R29_lowest_trail_wins_ties_share():
    st = build({0: ["g30"] * 6, 1: ["g31"] * 6}, phase="end", spooky=[20, 30])
    assert st.winners() == [0] and st.returns() == [1.0, -1.0]
    st = build({0: ["g30"] * 5, 1: ["g31"] * 5, 2: ["g32"] * 5}, n=3, phase="end", spooky=[20, 30, 20])
    assert st.winners() == [0, 2] and st.returns() == [0.0, -1.0, 0.0]
    sr = st.score_returns()
    assert sr[1] < 0 < sr[0]  # fewer spooky points score better


def test_HC_R30_setup_slots_in_order():
    st = BASE.new_initial_state(2)
    st.apply_action(1)  # start player 1
    for g in (10, 20, 11, 21):
        st.apply_action(g)
    assert where(st, 1)[:2] == ["g10", "g11"]
    assert where(st, 0)[:2] == ["g20", "g21"]
    assert st.guest_slot() == 2


def test_HC_R31_room_effect_then_expel_then_end_check():
    # red enters the ballroom occupied by blue; blue is expelled onto Hugo's space and captured
    st = build({0: ["g19"] * 6, 1: ["r6"] + ["g35"] * 5}, roll=4, hugo=22, spooky=[12, 40])
    st.apply_action(mv(0, 6))
    assert st.spooky == [9, 50]
    assert st.is_terminal()  # end check after the whole move
    st.check_invariants()


def test_HC_R31_capture_on_hugo_after_walk_ends_game():
    st = build({0: ["g3"] * 6, 1: ["g35"] * 6}, roll=2, hugo=5, spooky=[40, 10])
    st.apply_action(mv(0))
    assert st.spooky[0] == 50 and st.is_terminal() and st.winners() == [1]


def test_HC_R7_base_game_has_no_decline_action():
    game = HiddenCastleGame()
    st = build({0: ["g3"] * 6, 1: ["g35"] * 6}, roll=2, hugo=5)
    assert game.num_actions == 113 and st.legal_mask()[DECLINE] == 0
    assert FACE["H"] == 4
