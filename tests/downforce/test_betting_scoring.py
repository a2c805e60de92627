"""Downforce betting, end and scoring (DF-R23 .. DF-R33, DF-V3, DF-V4)."""

from __future__ import annotations

import numpy as np
import pytest
from df_helpers import RED, B, G, K, O, Y, at, card, legal, race, rebuild

from boardzoo.envs.core.game import TERMINAL
from boardzoo.envs.downforce.rules import A_BET, Dec, Stage

K6Y2 = card("K6", "Y2")
K8 = 42 + K


def _bet_all(st, cars):
    for c in cars:
        st.apply_action(A_BET + c)


def _scored(n=4, order=(K, B, G, Y, O, RED), owners=None, prices=(0,) * 6, bets=(), **opts):
    """A finished race: ``order`` is the finishing order, ``bets`` = [(k, positions, {seat: car})]."""
    st = race(n, finished=list(order), owners=owners, hands={}, **opts)
    return rebuild(
        st,
        price=list(prices),
        bet_k=[[k] for k, _, _ in bets],
        bet_rounds_pos=[list(pos) for _, pos, _ in bets],
        bet_rounds_open=[[1] * 6 for _ in bets],
        bets=[[b.get(s, -1) for s in range(n)] for _, _, b in bets],
    )


def money(st) -> list[int]:
    """DF-R32: each seat's money after the race (prizes + bet payouts - prices), from ``scores()``."""
    return [int(x) for x in st.scores()]


def test_DF_R23_a_betting_line_triggers_once():
    st = race(4, cars={K: (10, 1), B: (10, 0)}, hands={0: [K6Y2], 1: [card("B6", "O2")], 2: [1], 3: [2]})
    st.apply_action(K6Y2)
    assert st.triggered == [1, 0, 0] and st.stage == Stage.BET
    _bet_all(st, [K, K, K, K])
    assert st.current_player() == 1 and st.dec_type == Dec.PLAY
    st.apply_action(card("B6", "O2"))  # Blue also crosses line 1: no second round
    assert st.stage == Stage.RACE and len(st.bets) == 1


def test_DF_R24_betting_after_the_whole_card_in_ascending_line_order():
    c = card("Y6", "K2")
    st = race(4, cars={Y: (22, 1), K: (10, 1)}, hands={0: [c], 1: [1]})
    st.apply_action(c)  # Y crosses line 2 first, then K crosses line 1
    assert st.stage == Stage.BET
    assert at(st, K) == (12, 1)  # the whole card moved before the bets
    assert st.bet_k[0] == [0]
    _bet_all(st, [K, K, K, K])
    assert st.stage == Stage.BET and st.bet_k[1] == [1]
    _bet_all(st, [Y, Y, Y, Y])
    assert st.stage == Stage.RACE and st.current_player() == 1


def test_DF_R25_bets_only_on_unfinished_cars_own_included():
    st = race(
        4, cars={K: (10, 1), Y: (3, 0), B: (3, 1), O: (4, 0), RED: (4, 1)}, finished=[G], hands={0: [K6Y2], 1: [1]}
    )
    st.apply_action(K6Y2)
    assert legal(st) == [A_BET + c for c in (K, B, Y, O, RED)]
    st.apply_action(A_BET + K)  # seat 0 owns Black: allowed
    assert st.bets[0][0] == K


def test_DF_R25_round_skipped_when_no_car_is_unfinished():
    st = race(4, cars={K: (45, 1)}, finished=[B, G, Y, O, RED], hands={0: [K8], 1: [1]})
    st.game.bet_after[45] = 2  # a line at the finish (test geometry)
    st.triggered = [1, 1, 0]
    st.apply_action(K8)
    assert st.triggered[2] == 1 and st.bets == [] and st.current_player() == TERMINAL


def test_DF_R26_bets_stay_hidden_until_final_scoring():
    st = race(4, cars={K: (10, 1), Y: (3, 0)}, hands={0: [K6Y2], 1: [1], 2: [2], 3: [3]})
    st.apply_action(K6Y2)
    a, b = st.clone(), st.clone()
    a.apply_action(A_BET + K)
    b.apply_action(A_BET + Y)
    for seat in (1, 2, 3):
        np.testing.assert_array_equal(a.observation(seat), b.observation(seat))
    assert not np.array_equal(a.observation(0), b.observation(0))
    for s in (a, b):
        _bet_all(s, [K, K, K])
    # nobody holds cards any more: the game has ended (DF-R28) and is scored (DF-R32)
    a, b = (
        rebuild(s, hands=[[]] * 4, revealed=[[]] * 4, stage="end", dec_type="", dec_seat=TERMINAL, money=money(s))
        for s in (a, b)
    )
    assert not np.array_equal(a.observation(1), b.observation(1))  # revealed at the end
    assert "bet1:Black" in str(a) and "bet1:Yellow" in str(b)


def test_DF_R27_positions_recorded_for_odds_betting():
    st = race(
        4,
        cars={K: (20, 0), B: (20, 1), Y: (23, 0), O: (10, 1), RED: (3, 0)},
        finished=[G],
        hands={0: [card("O6", "B2")], 1: [1]},
    )
    assert st.race_order() == [G, Y, K, B, O, RED]  # finished, then higher row, then entry stamp
    st.apply_action(card("O6", "B2"))  # O crosses line 1; B moves to row 22
    assert st.stage == Stage.BET
    pos = st.bet_rounds_pos[0]
    assert [pos[c] for c in (G, Y, B, K, O, RED)] == [1, 2, 3, 4, 5, 6]


def test_DF_R27_within_a_row_the_earlier_entry_ranks_ahead():
    c = card("B4", "K3", "W2", "R1", "O1")
    st = race(4, cars={K: (21, 0), B: (20, 1)}, finished=[G, Y, O, RED], hands={0: [c], 1: [1]})
    assert st.race_order()[4:] == [K, B]
    st.apply_action(c)  # B enters row 24 first, then K
    assert at(st, B) == (24, 1) and at(st, K) == (24, 0)
    assert st.stamp[B] < st.stamp[K]
    assert st.race_order()[4:] == [B, K]


def test_DF_R28_game_ends_when_all_cars_finished():
    st = race(4, cars={K: (45, 0)}, finished=[B, G, Y, O, RED], hands={0: [K6Y2], 1: [1], 2: [2], 3: [3]})
    st.apply_action(K6Y2)
    assert st.current_player() == TERMINAL and st.finish_order[-1] == K


def test_DF_R28_game_ends_when_no_cards_remain_and_uncrossed_lines_pay_nothing():
    st = race(
        4,
        cars={K: (3, 0), B: (3, 1), G: (2, 0), Y: (2, 1), O: (1, 0), RED: (1, 1)},
        hands={0: [K6Y2], 1: [], 2: [], 3: []},
    )
    st.apply_action(K6Y2)
    assert st.current_player() == TERMINAL
    assert st.bets == [] and st.triggered == [0, 0, 0]


def test_DF_R29_unfinished_cars_placed_by_race_order():
    st = race(
        4,
        cars={K: (30, 0), B: (40, 1), Y: (30, 1), O: (3, 0)},
        finished=[G, RED],
        hands={0: [card("O6", "B2")], 1: [], 2: [], 3: []},
    )
    st.apply_action(card("O6", "B2"))  # O -> (9,?), B -> (42,1); then nobody has cards
    assert st.is_terminal()
    place = st.final_places()
    assert [place[c] for c in (G, RED, B, K, Y, O)] == [1, 2, 3, 4, 5, 6]


def test_DF_R30_race_prizes():
    st = _scored(4, order=(K, B, G, Y, O, RED), owners=[0, 1, 2, 3, 0, 1])
    assert money(st) == [12 + 2, 9 + 0, 6, 4]


@pytest.mark.parametrize(
    "k,place,pay",
    [
        (0, 1, 9),
        (0, 2, 6),
        (0, 3, 3),
        (0, 4, 0),
        (1, 1, 6),
        (1, 2, 4),
        (1, 3, 2),
        (2, 1, 3),
        (2, 2, 2),
        (2, 3, 1),
        (2, 6, 0),
    ],
)
def test_DF_R31_standard_bet_payouts(k, place, pay):
    order = (K, B, G, Y, O, RED)
    car = order[place - 1]
    st = _scored(4, order=order, owners=[1, 1, 1, 1, 1, 2], bets=[(k, [1, 2, 3, 4, 5, 6], {0: car})])
    assert money(st)[0] == pay


def test_DF_R32_money_identity_and_negative_money():
    st = _scored(
        4,
        order=(K, B, G, Y, O, RED),
        owners=[0, 1, 2, 3, 3, 0],
        prices=(3, 2, 1, 5, 4, 6),
        bets=[(0, [1, 2, 3, 4, 5, 6], {0: B, 1: K, 2: RED, 3: G})],
    )
    prizes, betpay, paid = st.money_parts()
    assert paid == [9, 2, 1, 9]
    assert prizes == [12, 9, 6, 6]
    assert betpay == [6, 9, 0, 3]
    assert money(st) == [12 + 6 - 9, 9 + 9 - 2, 6 - 1, 6 + 3 - 9]
    st = _scored(4, order=(K, B, G, Y, O, RED), owners=[0, 1, 2, 3, 3, 3], prices=(0, 0, 0, 0, 8, 8))
    assert money(st)[3] == 4 + 2 + 0 - 16 < 0


def test_DF_R33_most_money_wins_ties_go_to_the_best_placed_car():
    st = _scored(4, order=(K, B, G, Y, O, RED), owners=[2, 1, 0, 3, 3, 0], prices=(6, 3, 0, 0, 0, 0))
    # seat 2: 12-6 = 6; seat 1: 9-3 = 6; seat 0: 6+0 = 6; seat 3: 4+2 = 6 -> all tied; seat 2 owns 1st
    assert st.scores() == [6.0, 6.0, 6.0, 6.0]
    assert st.winners() == [2]
    st = _scored(4, order=(K, B, G, Y, O, RED), owners=[0, 1, 2, 3, 3, 0])
    assert st.winners() == [0]
    assert st.returns() == [1.0, -1.0, -1.0, -1.0]


def test_DF_V3_odds_betting_pays_position_times_multiplier():
    order = (K, B, G, Y, O, RED)
    # first bet on a car recorded 4th that wins pays 4 x 3 = 12; second bet on a 2nd that stays 2nd pays 2 x 1;
    # third bet on the leader that ends 3rd pays 1 x 0
    st = _scored(
        4,
        order=order,
        owners=[1, 1, 1, 1, 1, 2],
        odds_betting=True,
        bets=[(0, [4, 1, 2, 3, 5, 6], {0: K}), (1, [3, 2, 1, 4, 5, 6], {0: B}), (2, [3, 2, 1, 4, 5, 6], {0: G})],
    )
    assert money(st)[0] == 12 + 2 + 0
    assert st.game.payout == "odds"


def test_DF_V4_odds_winner_only_pays_only_the_winner():
    order = (K, B, G, Y, O, RED)
    bets = [(0, [4, 1, 2, 3, 5, 6], {0: K}), (1, [3, 2, 1, 4, 5, 6], {0: B}), (2, [5, 2, 1, 4, 3, 6], {0: K})]
    st = _scored(4, order=order, owners=[1, 1, 1, 1, 1, 2], odds_winner_only=True, bets=bets)
    assert money(st)[0] == 4 * 3 + 0 + 5 * 1
