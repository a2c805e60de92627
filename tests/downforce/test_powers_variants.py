"""Downforce variants: powers (DF-V1.x), extra powers (DF-V2.x), steering (DF-V5), tracks (DF-V6)
and the power order within a card (DF-V7)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from df_helpers import POWER, RED, B, G, K, O, Y, at, auction, card, legal, play_all, race

from boardzoo.envs import ConfigError
from boardzoo.envs.downforce import data as D
from boardzoo.envs.downforce.rules import A_COLOR, A_NO, A_STEER, A_YES, YESNO_KINDS, Dec, DownforceGame, Stage

K6Y2 = card("K6", "Y2")
B6O2 = card("B6", "O2")
OWN = [0, 1, 2, 3, 0, 1]  # K:0 B:1 G:2 Y:3 O:0 R:1


def prompt(st):
    assert st.dec_type == Dec.YESNO, st.phase()
    return YESNO_KINDS[st.dec_args[0]], st.current_player()


# ------------------------------------------------------------------ DF-V1 base powers
def test_DF_V1_auction_winner_takes_the_paired_power():
    st = auction(4, {0: [K6Y2], 1: [B6O2], 2: [2], 3: [4]}, car=K, powers=True)
    st.power_of_car[K] = POWER["Tricky"]
    for _s in range(4):
        st.apply_action(legal(st)[0])
    assert st.owner[K] == 0 and st.held[0] == [POWER["Tricky"]] and st.power(0) == POWER["Tricky"]


def test_DF_V1_powers_are_dealt_from_the_base_six():
    for seed in range(5):
        st = DownforceGame(powers=True).new_initial_state(4)
        play_all(st, np.random.default_rng(seed), stop=lambda s: s.stage == Stage.AUCTION)
        assert sorted(st.power_of_car) == list(range(6))


@pytest.mark.parametrize("yes,row", [(True, 10), (False, 9)])
def test_DF_V1_1_aggressive_top_line_may_move_one_more(yes, row):
    st = race(4, cars={K: (3, 1), Y: (3, 0)}, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={0: "Aggressive"})
    st.apply_action(K6Y2)
    assert prompt(st) == ("aggressive", 0)
    st.apply_action(A_YES if yes else A_NO)
    assert at(st, K)[0] == row


def test_DF_V1_1_aggressive_not_for_lower_lines_or_other_cars():
    st = race(
        4, cars={K: (3, 1), Y: (3, 0)}, owners=OWN, hands={0: [card("Y6", "K2")], 1: [1]}, powers={0: "Aggressive"}
    )
    st.apply_action(card("Y6", "K2"))  # K is on the second line, Y (top) is seat 3's
    assert st.dec_type == Dec.PLAY and at(st, K)[0] == 5


def test_DF_V1_2_cunning_owner_steers_own_car_on_others_turns():
    st = race(4, cars={B: (3, 1)}, owners=OWN, hands={0: [B6O2], 1: [1]}, powers={1: "Cunning"}, finished=[O])
    st.apply_action(B6O2)  # seat 0's turn, automatic steering mode
    assert st.dec_type == Dec.STEER and st.current_player() == 1
    st.apply_action(A_STEER + 2)
    assert at(st, B) == (4, 2)


def test_DF_V1_2_without_cunning_steering_is_automatic():
    st = race(4, cars={B: (3, 1)}, owners=OWN, hands={0: [B6O2], 1: [1]}, powers={1: "Tough"}, finished=[O])
    st.apply_action(B6O2)
    assert at(st, B) == (9, 1) and st.current_player() == 1 and st.dec_type == Dec.PLAY


def test_DF_V1_3_determined_after_rectangular_only_movement():
    st = race(
        4, cars={B: (3, 1), K: (20, 0)}, owners=OWN, hands={0: [B6O2], 1: [1]}, powers={1: "Determined"}, finished=[O]
    )
    st.apply_action(B6O2)  # B: rows 4-8 straight, row 9 is a curve
    assert at(st, B) == (9, 1) and st.dec_type == Dec.PLAY  # entered a curve space: not offered
    st = race(
        4, cars={B: (16, 1), K: (30, 0)}, owners=OWN, hands={0: [B6O2], 1: [1]}, powers={1: "Determined"}, finished=[O]
    )
    st.apply_action(B6O2)  # rows 17-21 straight only... then 22 is a curve
    assert at(st, B) == (22, 1) and st.dec_type == Dec.PLAY
    st = race(
        4,
        cars={B: (3, 1), Y: (3, 0)},
        owners=OWN,
        hands={0: [card("Y4", "O4", "R2")], 1: [1]},
        powers={1: "Determined"},
        finished=[O, RED],
    )
    st.apply_action(card("Y4", "O4", "R2"))  # B did not move: not offered
    assert st.dec_type == Dec.PLAY
    st = race(
        4,
        cars={B: (2, 1)},
        owners=OWN,
        hands={0: [card("B5", "Y3", "R1")], 1: [1]},
        powers={1: "Determined"},
        finished=[Y, RED],
    )
    st.apply_action(card("B5", "Y3", "R1"))  # rows 3-7: rectangular only
    assert at(st, B) == (7, 1)
    assert prompt(st) == ("determined", 1)
    st.apply_action(A_YES)
    assert at(st, B) == (9, 1)


def test_DF_V1_4_strategic_ignores_one_colour_of_a_six_colour_card():
    c = card("K3", "B3", "G2", "Y2", "O1", "R1")
    cars = {K: (3, 0), B: (3, 1), G: (3, 2), Y: (10, 0), O: (10, 1), RED: (10, 2)}
    st = race(4, cars=cars, owners=OWN, hands={0: [c], 1: [1]}, powers={0: "Strategic"})
    st.apply_action(c)
    assert prompt(st) == ("strategic", 0)
    st.apply_action(A_YES)
    assert st.dec_type == Dec.COLOR and legal(st) == [A_COLOR + x for x in range(6)]
    st.apply_action(A_COLOR + B)
    assert at(st, B) == (3, 1) and at(st, K)[0] == 6 and at(st, G)[0] == 5
    st = race(4, cars=cars, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={0: "Strategic"})
    st.apply_action(K6Y2)  # not a six-colour card: no prompt
    assert st.dec_type != Dec.YESNO and at(st, K)[0] == 9


def test_DF_V1_5_tricky_resolves_bottom_to_top():
    st = race(4, cars={K: (13, 1), Y: (14, 1)}, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={0: "Tricky"})
    st.apply_action(K6Y2)
    assert prompt(st) == ("tricky", 0)
    st.apply_action(A_YES)  # Y2 first, then K6 follows through the narrow rows
    assert at(st, Y) == (16, 1) and at(st, K) == (19, 0)
    st = race(4, cars={K: (13, 1), Y: (14, 1)}, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={0: "Tricky"})
    st.apply_action(K6Y2)
    st.apply_action(A_NO)
    assert at(st, K) == (13, 1) and at(st, Y) == (16, 1)


def test_DF_V1_6_unpredictable_wild_may_name_a_printed_colour():
    c = card("K4", "W3", "R2", "O1")
    cars = {K: (3, 0), B: (3, 1), G: (3, 2), Y: (10, 0), O: (10, 1), RED: (10, 2)}
    st = race(4, cars=cars, owners=OWN, hands={0: [c], 1: [1]}, powers={0: "Unpredictable"})
    st.apply_action(c)
    assert st.dec_type == Dec.WILD and legal(st) == [A_COLOR + x for x in range(6)]
    st.apply_action(A_COLOR + K)
    assert at(st, K) == (9, 0)  # K named again: 3 more, blocked by Y at (10,0)
    st = race(4, cars=cars, owners=OWN, hands={0: [c], 1: [1]}, powers={0: "Tricky"})
    st.apply_action(c)
    st.apply_action(A_NO)
    assert legal(st) == [A_COLOR + x for x in (B, G, Y)]


# ------------------------------------------------------------------ DF-V2 extra powers
def test_DF_V2_extra_powers_need_powers():
    with pytest.raises(ConfigError, match="extra_powers"):
        DownforceGame(extra_powers=True)


def test_DF_V2_six_of_twelve_powers_are_drawn():
    seen = set()
    for seed in range(8):
        st = DownforceGame(powers=True, extra_powers=True).new_initial_state(4)
        play_all(st, np.random.default_rng(seed), stop=lambda s: s.stage == Stage.AUCTION)
        assert len(set(st.power_of_car)) == 6 and all(0 <= p < 12 for p in st.power_of_car)
        seen |= set(st.power_of_car)
    assert any(p >= 6 for p in seen)


def test_DF_V2_1_ambitious_after_crossing_a_betting_line():
    st = race(4, cars={B: (10, 1)}, owners=OWN, hands={0: [B6O2], 1: [1]}, powers={1: "Ambitious"}, finished=[O])
    st.apply_action(B6O2)
    assert at(st, B) == (16, 1) and prompt(st) == ("ambitious", 1)
    st.apply_action(A_YES)
    assert at(st, B) == (18, 1) and st.stage == Stage.BET
    st = race(4, cars={B: (3, 1)}, owners=OWN, hands={0: [B6O2], 1: [1]}, powers={1: "Ambitious"}, finished=[O])
    st.apply_action(B6O2)  # no betting line crossed: no prompt
    assert st.dec_type == Dec.PLAY


def test_DF_V2_2_experienced_steps_into_the_vacated_space():
    st = race(
        4, cars={K: (5, 1), B: (4, 1)}, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={1: "Experienced"}, finished=[Y]
    )
    st.apply_action(K6Y2)
    assert prompt(st) == ("experienced", 1)
    st.apply_action(A_YES)
    assert at(st, B) == (5, 1) and at(st, K) == (11, 1)
    st = race(
        4, cars={K: (5, 1), B: (4, 0)}, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={1: "Experienced"}, finished=[Y]
    )
    st.apply_action(K6Y2)  # B is diagonal behind: not offered
    assert st.dec_type == Dec.PLAY


def test_DF_V2_3_tough_after_ending_on_a_rumble_space():
    c = card("B4", "G4", "Y2")
    st = race(4, cars={B: (6, 0)}, owners=OWN, hands={0: [c], 1: [1]}, powers={1: "Tough"}, finished=[G, Y])
    st.apply_action(c)
    assert at(st, B) == (10, 0) and prompt(st) == ("tough", 1)
    st.apply_action(A_YES)
    assert at(st, B) == (12, 0)
    st = race(4, cars={B: (6, 1)}, owners=OWN, hands={0: [c], 1: [1]}, powers={1: "Tough"}, finished=[G, Y])
    st.apply_action(c)  # ends on (10,1): no rumble
    assert st.dec_type == Dec.PLAY


def test_DF_V2_4_bold_turns_speed_1_or_2_into_3_on_own_turn():
    owners = [0, 1, 2, 0, 0, 1]  # Y belongs to seat 0
    st = race(4, cars={K: (3, 1), Y: (3, 0)}, owners=owners, hands={0: [K6Y2], 1: [K6Y2 + 3]}, powers={0: "Bold"})
    st.apply_action(K6Y2)
    assert at(st, Y)[0] == 6 and at(st, K)[0] == 9
    st = race(4, cars={K: (3, 1), Y: (3, 0)}, owners=owners, hands={1: [K6Y2], 0: [1]}, powers={0: "Bold"}, turn=1)
    st.apply_action(K6Y2)  # not seat 0's turn
    assert at(st, Y)[0] == 5


def test_DF_V2_5_defensive_moves_a_car_when_none_moved():
    st = race(
        4,
        cars={K: (3, 1), Y: (3, 0), B: (20, 1)},
        owners=OWN,
        hands={0: [B6O2], 1: [1]},
        powers={0: "Defensive"},
        finished=[O],
    )
    st.apply_action(B6O2)  # moves B (seat 1) only; O has finished
    assert at(st, K) == (6, 1)  # only unfinished car of seat 0: automatic, 3 spaces
    c = card("G6", "R2")
    st = race(
        4,
        cars={K: (3, 1), O: (5, 0), G: (20, 1), RED: (20, 0)},
        owners=OWN,
        hands={0: [c], 1: [1]},
        powers={0: "Defensive"},
    )
    st.apply_action(c)
    assert st.dec_type == Dec.COLOR and legal(st) == [A_COLOR + K, A_COLOR + O]
    st.apply_action(A_COLOR + O)
    assert at(st, O) == (8, 0)


def test_DF_V2_6_reckless_after_entering_a_narrow_space():
    st = race(4, cars={K: (12, 1)}, owners=OWN, hands={0: [K6Y2], 1: [1]}, powers={0: "Reckless"}, finished=[Y])
    st.apply_action(K6Y2)
    assert at(st, K)[0] == 18 and prompt(st) == ("reckless", 0)
    st.apply_action(A_YES)
    assert at(st, K)[0] == 20
    st = race(
        4,
        cars={K: (12, 1)},
        owners=[1, 0, 2, 3, 0, 1],
        hands={1: [K6Y2], 0: [1]},
        powers={1: "Reckless"},
        finished=[Y],
        turn=1,
    )
    st.apply_action(K6Y2)  # K belongs to seat 1, on seat 1's turn: offered
    assert prompt(st) == ("reckless", 1)
    st = race(
        4,
        cars={K: (12, 1)},
        owners=[1, 0, 2, 3, 0, 1],
        hands={0: [K6Y2], 1: [1]},
        powers={1: "Reckless"},
        finished=[Y],
        turn=0,
    )
    st.apply_action(K6Y2)  # not the holder's turn: no prompt
    assert st.dec_type == Dec.PLAY


# ------------------------------------------------------------------ DF-V5 .. DF-V7
def test_DF_V5_manual_steering_makes_choice_points_steer_steps():
    st = race(4, cars={B: (3, 1)}, owners=OWN, hands={0: [B6O2], 1: [1]}, steering="manual", finished=[O])
    st.apply_action(B6O2)
    steps = 0
    while st.dec_type == Dec.STEER:
        assert st.current_player() == 0
        st.apply_action(legal(st)[-1])
        steps += 1
    assert steps == 6 and at(st, B) == (9, 2)  # the car drifted to the outer lane
    st = race(4, cars={B: (3, 1)}, owners=OWN, hands={0: [B6O2], 1: [1]}, finished=[O])
    st.apply_action(B6O2)
    assert at(st, B) == (9, 1)
    with pytest.raises(ConfigError, match="steering"):
        DownforceGame(steering="left")


def test_DF_V6_track_option_selects_a_validated_track_file():
    g = DownforceGame(track="sprint")
    assert g.num_rows == 26 and g.track["id"] == "sprint"
    assert DownforceGame().num_rows == 46
    with pytest.raises(ConfigError, match="track"):
        DownforceGame(track="no_such_track")
    bad = copy.deepcopy(D.load_track("default"))
    bad["rows"][14]["spaces"] = [{"lane": 2, "rectangular": True, "narrow": True, "rumble": False}]
    bad["rows"][13]["spaces"] = [{"lane": 0, "rectangular": True, "narrow": True, "rumble": False}]
    with pytest.raises(ConfigError, match="forward step"):
        D.validate_track(bad)
    bad = copy.deepcopy(D.load_track("default"))
    bad["grid"][0] = [0, 2]
    with pytest.raises(ConfigError, match="grid"):
        D.validate_track(bad)
    st = DownforceGame(track="sprint").new_initial_state(3)
    play_all(st, np.random.default_rng(1))
    assert st.is_terminal()


def test_DF_V7_owner_power_before_experienced_then_turn_end_then_bets():
    # B (seat 1, Ambitious) sits at (11,1) and crosses line 1; G (seat 2, Experienced) is right behind it;
    # Y (seat 3, Determined) does not move, so nothing is offered at the turn end.
    st = race(
        4,
        cars={B: (11, 1), G: (10, 1), K: (3, 0), Y: (3, 1)},
        owners=OWN,
        hands={0: [B6O2], 1: [1]},
        powers={1: "Ambitious", 2: "Experienced", 3: "Determined"},
        finished=[O],
    )
    st.apply_action(B6O2)
    assert prompt(st) == ("ambitious", 1)  # (3) owner's power first
    st.apply_action(A_YES)
    assert at(st, B) == (19, 1)
    assert prompt(st) == ("experienced", 2)  # (3) then Experienced
    st.apply_action(A_YES)
    assert at(st, G) == (11, 1)
    assert st.stage == Stage.BET  # (5) betting after everything
    assert st.dec_type == Dec.BET


def test_DF_V7_tricky_prompt_comes_first_and_turn_end_powers_follow_the_lines():
    st = race(
        4,
        cars={K: (3, 1), Y: (3, 0)},
        owners=[0, 1, 2, 1, 0, 1],
        hands={0: [K6Y2], 1: [1]},
        powers={0: "Tricky", 1: "Determined"},
    )
    st.apply_action(K6Y2)
    assert prompt(st) == ("tricky", 0)  # (1) before any line moves
    assert at(st, K) == (3, 1)
    st.apply_action(A_NO)
    assert at(st, K)[0] == 9 and at(st, Y)[0] == 5
    assert prompt(st) == ("determined", 1)  # (4) turn-end power of seat 1 for Yellow
    st.apply_action(A_YES)
    assert at(st, Y)[0] == 7 and st.dec_type == Dec.PLAY
