"""Who steers (DF-R20, DF-V5, DF-V1.2 Cunning), in both steering modes.

The seed (001, Downforce): "Der aktuelle Spieler bewegt alle Autos entsprechend der Karte, auch die
der Gegner. Es ist also moeglich (und oft ratsam!), das Auto des Gegners so schlecht zu spielen, dass
es feststeckt und es sich nicht bewegen kann." Manual steering is the default.
"""

from __future__ import annotations

import numpy as np
import pytest
from df_helpers import RED, B, G, K, O, Y, at, card, legal, race

from boardzoo.envs import make
from boardzoo.envs.downforce.rules import A_STEER, Dec, DownforceGame

K5G3O1 = card("K5", "G3", "O1")
B5Y3R1 = card("B5", "Y3", "R1")
K4B4G2 = card("K4", "B4", "G2")
OWN = [0, 1, 2, 3, 0, 1]  # K:0 B:1 G:2 Y:3 O:0 R:1
LEFT, STRAIGHT, RIGHT = A_STEER, A_STEER + 1, A_STEER + 2


def test_DF_V5_manual_steering_is_the_default():
    assert DownforceGame().options["steering"] == "manual"
    assert DownforceGame().manual and not DownforceGame(steering="auto").manual
    st = race(
        4,
        cars={K: (3, 0), B: (5, 0), Y: (5, 1)},
        finished=[G, O],
        owners=OWN,
        hands={0: [K5G3O1], 1: [1]},
        steering=None,
    )  # the game's default
    st.apply_action(K5G3O1)
    assert st.dec_type == Dec.STEER and st.current_player() == 0


def test_DF_R20_manual_steering_an_opponent_into_a_dead_end_is_legal_and_applied():
    # Seat 0 plays Blue 5 for seat 1's car on (3, 0); row 5 lanes 0 and 1 are blocked. Straight on
    # leads into a dead end at (4, 0): the seed's "often advisable" move.
    st = race(
        4,
        cars={B: (3, 0), K: (5, 0), G: (5, 1)},
        finished=[Y, RED],
        owners=OWN,
        hands={0: [B5Y3R1], 1: [1]},
        steering="manual",
    )
    st.apply_action(B5Y3R1)
    assert st.dec_type == Dec.STEER and st.current_player() == 0 and st.owner[B] == 1
    assert legal(st) == [STRAIGHT, RIGHT]
    st.apply_action(STRAIGHT)
    assert at(st, B) == (4, 0)  # stuck: (5,0) and (5,1) taken, no lane -1
    assert st.dec_type == Dec.PLAY and st.current_player() == 1  # the rest of the movement is lost
    assert at(st, K) == (5, 0) and at(st, G) == (5, 1)
    # the other choice gets it through: (4,1), then (5,2) is its only step (no decision), then on
    st = race(
        4,
        cars={B: (3, 0), K: (5, 0), G: (5, 1)},
        finished=[Y, RED],
        owners=OWN,
        hands={0: [B5Y3R1], 1: [1]},
        steering="manual",
    )
    st.apply_action(B5Y3R1)
    st.apply_action(RIGHT)
    assert at(st, B) == (5, 2) and st.dec_type == Dec.STEER  # (4,1) -> (5,2) forced, then a fork at row 6
    while st.dec_type == Dec.STEER:
        st.apply_action(STRAIGHT if STRAIGHT in legal(st) else legal(st)[0])
    assert at(st, B) == (8, 2)


def test_DF_R20_automatic_steering_drives_into_the_dead_end_itself():
    # the example: Black on (3, 0), row 5 lanes 0 and 1 blocked, a Black 5 moves Black one
    # space with automatic steering (straight first); manual steering through (4, 1) reaches row 8
    st = race(
        4,
        cars={K: (3, 0), B: (5, 0), Y: (5, 1)},
        finished=[G, O],
        owners=OWN,
        hands={0: [K5G3O1], 1: [1]},
        steering="auto",
    )
    st.apply_action(K5G3O1)
    assert at(st, K) == (4, 0) and st.dec_type == Dec.PLAY and st.current_player() == 1
    st = race(
        4,
        cars={K: (3, 0), B: (5, 0), Y: (5, 1)},
        finished=[G, O],
        owners=OWN,
        hands={0: [K5G3O1], 1: [1]},
        steering="manual",
    )
    st.apply_action(K5G3O1)
    st.apply_action(RIGHT)
    while st.dec_type == Dec.STEER:
        st.apply_action(STRAIGHT if STRAIGHT in legal(st) else legal(st)[0])
    assert at(st, K)[0] == 8


@pytest.mark.parametrize("steering", ["manual", "auto"])
def test_DF_R20_a_single_legal_step_is_taken_without_a_decision(steering):
    # the single lane of rows 14-15: Blue 5 from (13, 1) steps to (14, 1) and (15, 1) on its own
    st = race(4, cars={B: (13, 1)}, finished=[Y, RED], owners=OWN, hands={0: [B5Y3R1], 1: [1]}, steering=steering)
    st.apply_action(B5Y3R1)
    if steering == "manual":
        assert st.dec_type == Dec.STEER and at(st, B) == (15, 1) and legal(st) == [LEFT, STRAIGHT, RIGHT]
        assert st.dec_args[1] == 3  # three of the five spaces still to go
        st.apply_action(STRAIGHT)
        st.apply_action(STRAIGHT)
        st.apply_action(STRAIGHT)
    assert at(st, B) == (18, 1) and st.dec_type == Dec.PLAY and st.current_player() == 1
    # a fork whose other steps are occupied is no choice either: only (5, 2) is free from (4, 1)
    st = race(
        4,
        cars={B: (4, 1), K: (5, 0), G: (5, 1), O: (7, 2)},
        finished=[Y, RED],
        owners=OWN,
        hands={0: [card("Y5", "R3", "B1")], 1: [1]},
        steering=steering,
    )
    st.apply_action(card("Y5", "R3", "B1"))
    assert at(st, B) == (5, 2) and st.dec_type == Dec.PLAY and st.current_player() == 1


@pytest.mark.parametrize("steering", ["manual", "auto"])
def test_DF_V5_cunning_holder_steers_own_cars_in_both_modes(steering):
    # seat 1 holds Cunning and owns Blue; seat 0 plays K4 B4 G2 (Green finished)
    st = race(
        4,
        cars={K: (3, 0), B: (3, 2)},
        finished=[G],
        owners=OWN,
        hands={0: [K4B4G2], 1: [1]},
        powers={1: "Cunning"},
        steering=steering,
    )
    st.apply_action(K4B4G2)
    if steering == "manual":  # Black (seat 0's own car): seat 0 steers it
        for _ in range(4):
            assert st.dec_type == Dec.STEER and st.dec_args[0] == K and st.current_player() == 0
            st.apply_action(STRAIGHT)
    assert at(st, K) == (7, 0)  # auto: straight on without a decision
    for _ in range(4):  # Blue: its Cunning owner, in both modes
        assert st.dec_type == Dec.STEER and st.dec_args[0] == B and st.current_player() == 1
        st.apply_action(STRAIGHT)
    assert at(st, B) == (7, 2)
    assert st.dec_type == Dec.PLAY and st.current_player() == 1


@pytest.mark.parametrize("steering", ["manual", "auto"])
def test_DF_V5_cunning_holder_steers_own_car_on_an_opponents_card_into_the_dead_end_choice(steering):
    # with Cunning, the dead-end fork of Blue (seat 1's car) is seat 1's decision, not seat 0's
    st = race(
        4,
        cars={B: (3, 0), K: (5, 0), G: (5, 1)},
        finished=[Y, RED],
        owners=OWN,
        hands={0: [B5Y3R1], 1: [1]},
        powers={1: "Cunning"},
        steering=steering,
    )
    st.apply_action(B5Y3R1)
    assert st.dec_type == Dec.STEER and st.current_player() == 1 and legal(st) == [STRAIGHT, RIGHT]
    st.apply_action(RIGHT)
    assert at(st, B) == (5, 2)


@pytest.mark.parametrize("steering", ["manual", "auto"])
def test_DF_V5_random_games_in_both_modes_end_and_manual_asks_for_choices(steering):
    env = make("downforce_v0", num_players=4, steering=steering)
    rng = np.random.default_rng(3)
    steer = 0
    env.reset(seed=11)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        lg = np.flatnonzero(obs["action_mask"])
        steer += int(lg[0] >= A_STEER and lg[-1] <= RIGHT)
        assert len(lg) >= 1 and not (lg[0] >= A_STEER and lg[-1] <= RIGHT and len(lg) == 1)
        env.step(int(rng.choice(lg)))
    assert (steer > 0) == (steering == "manual")
