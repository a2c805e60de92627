"""Downforce setup and auction rules (DF-R1 .. DF-R10)."""

from __future__ import annotations

import numpy as np
import pytest
from df_helpers import B, G, K, O, Y, auction, card, legal, play_all

from boardzoo.envs import ConfigError
from boardzoo.envs.downforce.rules import A_POWER, DownforceGame, Stage


def _through_setup(n, seed=0, **opts):
    st = DownforceGame(**opts).new_initial_state(n)
    rng = np.random.default_rng(seed)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    return st


def _through_auction(n, seed=0, **opts):
    st = _through_setup(n, seed, **opts)
    return play_all(st, np.random.default_rng(seed), stop=lambda s: s.stage == Stage.RACE)


@pytest.mark.parametrize("n", [1, 7])
def test_DF_R1_player_count_limits(n):
    with pytest.raises(ConfigError, match="num_players"):
        DownforceGame().new_initial_state(n)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_DF_R1_all_six_cars_race_for_every_player_count(n):
    st = _through_auction(n, seed=n)
    assert sorted(st.grid_cars) == list(range(6))
    assert all(st.pos[c] >= 0 for c in range(6))
    assert all(st.owner[c] >= 0 for c in range(6))


@pytest.mark.parametrize("n,size,aside", [(2, 21, 0), (3, 14, 0), (4, 10, 2), (5, 8, 2), (6, 7, 0)])
def test_DF_R2_hand_sizes_and_distinct_cards(n, size, aside):
    st = _through_setup(n, seed=n)
    assert [len(h) for h in st.hands] == [size] * n
    dealt = [c for h in st.hands for c in h] + st.setaside
    assert len(dealt) == len(set(dealt)) == 42
    assert len(st.setaside) == aside
    assert all(c < 42 for c in dealt)


def test_DF_R2_chance_outcomes_are_exact():
    st = DownforceGame().new_initial_state(4)
    out = st.chance_outcomes()
    assert [o for o, _ in out] == list(range(6)) and abs(sum(p for _, p in out) - 1) < 1e-12


@pytest.mark.parametrize("seed", range(3))
def test_DF_R3_each_colour_auctioned_once_in_random_order(seed):
    st = _through_auction(4, seed=seed)
    assert sorted(st.auction_order) == list(range(6))
    assert len(st.bid_history) == 6


def test_DF_R4_commits_are_hidden_until_everyone_committed():
    hands = {
        0: [card("K6", "Y2"), card("B6", "O2")],
        1: [card("G6", "R2"), card("K5", "G3", "O1")],
        2: [card("Y6", "K2")],
        3: [card("O6", "B2")],
    }
    st = auction(4, hands, car=K)
    assert st.deciders() == [0, 1, 2, 3]
    a = st.clone()
    b = st.clone()
    a.apply_action(card("K6", "Y2"))
    b.apply_action(card("B6", "O2"))
    for seat in (1, 2, 3):  # nobody else can tell which card seat 0 committed
        np.testing.assert_array_equal(a.observation(seat), b.observation(seat))
    assert not np.array_equal(a.observation(0), b.observation(0))  # seat 0 sees its own bid
    assert a.owner[K] == -1 and a.deciders() == [1, 2, 3]  # nothing resolved yet
    for _s, c in ((1, card("G6", "R2")), (2, card("Y6", "K2")), (3, card("O6", "B2"))):
        a.apply_action(c)
    assert a.owner[K] == 0
    assert a.bid_history[-1] == [card("K6", "Y2"), card("G6", "R2"), card("Y6", "K2"), card("O6", "B2")]


@pytest.mark.parametrize(
    "bid,value",
    [
        (("K6", "Y2"), 6),  # the line of the auctioned colour
        (("Y6", "K2"), 2),  # lower line counts too
        (("B6", "O2"), 0),  # no line of that colour
        (("G4", "W3", "B2", "K1"), 1),  # K1 counts ...
        (("B4", "W3", "K2", "R1"), 2),
    ],
)
def test_DF_R5_bid_value_is_the_matching_line(bid, value):
    g = DownforceGame()
    assert g.bid_value[card(*bid)][K] == value


def test_DF_R5_wild_lines_never_bid():
    g = DownforceGame()
    c = card("O4", "W3", "Y2", "G1")
    assert g.bid_value[c][K] == 0 and g.bid_value[c][B] == 0 and g.bid_value[c][O] == 4


def test_DF_R6_all_players_bid_while_enough_cars_remain():
    st = auction(4, car=G, owners={K: 0, B: 0, Y: 1})  # 3 cars left, 2 carless players
    assert st.eligible == [1, 1, 1, 1]


def test_DF_R6_only_carless_players_bid_when_cars_equal_carless():
    st = auction(4, car=G, owners={K: 0, B: 0, Y: 1, O: 1})  # 2 cars left, 2 carless players
    assert st.eligible == [0, 0, 1, 1]
    assert st.current_player() == 2 and st.deciders() == [2, 3]


def test_DF_R6_six_players_bid_21_times():
    st = _through_auction(6, seed=1)
    assert sum(1 for bids in st.bid_history for b in bids if b >= 0) == 21


def _resolve(hands, bids, car=K, n=4):
    st = auction(n, hands, car=car)
    for s in range(n):
        st.apply_action(bids[s])
    return st


def test_DF_R7_highest_bid_wins():
    hands = {0: [card("K5", "G3", "O1")], 1: [card("K6", "Y2")], 2: [card("Y6", "K2")], 3: [card("O6", "B2")]}
    st = _resolve(hands, [hands[s][0] for s in range(4)])
    assert st.owner[K] == 1 and st.price[K] == 6


def test_DF_R7_tie_goes_to_the_line_nearer_the_top():
    # seat 0 bids K4 on its second line, seat 1 bids K4 on its top line: seat 1 wins although seat 0 is lower
    hands = {0: [card("R4", "K4", "B2")], 1: [card("K4", "B4", "G2")], 2: [card("B6", "O2")], 3: [card("O6", "B2")]}
    st = _resolve(hands, [hands[s][0] for s in range(4)])
    assert st.owner[K] == 1 and st.price[K] == 4


def test_DF_R7_equal_bids_on_the_same_line_lowest_seat_wins():
    st = auction(
        4,
        {
            0: [card("B6", "O2")],
            1: [card("O5", "K3", "G1")],
            2: [card("R4", "K4", "B2")],
            3: [card("B4", "K3", "W2", "R1", "O1")],
        },
        car=K,
    )
    for _s in range(4):
        st.apply_action(legal(st)[0])
    assert st.owner[K] == 2  # K4 is the highest
    st = auction(
        4,
        {
            0: [card("B6", "O2")],
            1: [card("O5", "K3", "G1")],
            2: [card("G6", "R2")],
            3: [card("B4", "K3", "W2", "R1", "O1")],
        },
        car=K,
    )
    for _s in range(4):
        st.apply_action(legal(st)[0])
    assert st.owner[K] == 1 and st.price[K] == 3  # K3 on line 1 for seats 1 and 3: lower seat


def test_DF_R7_all_zero_bids_lowest_eligible_seat_wins_for_free():
    st = auction(
        4, {0: [card("B6", "O2")], 1: [card("G6", "R2")], 2: [card("Y5", "R3", "B1")], 3: [card("O6", "B2")]}, car=K
    )
    for _s in range(4):
        st.apply_action(legal(st)[0])
    assert st.owner[K] == 0 and st.price[K] == 0
    st = auction(4, {2: [card("B6", "O2")], 3: [card("G6", "R2")]}, car=G, owners={K: 0, B: 0, Y: 1, O: 1})
    st.apply_action(card("B6", "O2"))
    st.apply_action(card("G6", "R2"))
    assert st.owner[G] == 3 and st.price[G] == 6
    st = auction(4, {2: [card("B6", "O2")], 3: [card("O6", "B2")]}, car=G, owners={K: 0, B: 0, Y: 1, O: 1})
    st.apply_action(card("B6", "O2"))
    st.apply_action(card("O6", "B2"))
    assert st.owner[G] == 2 and st.price[G] == 0


def test_DF_R8_winner_pays_takes_car_and_speed8_card():
    st = auction(4, {0: [card("K6", "Y2")], 1: [card("B6", "O2")], 2: [card("G6", "R2")], 3: [card("O6", "B2")]}, car=K)
    for _s in range(4):
        st.apply_action(legal(st)[0])
    assert st.owner[K] == 0 and st.price[K] == 6
    assert 42 + K in st.hands[0]
    assert st.money_parts()[2] == [6, 0, 0, 0]  # the price is subtracted at scoring


def test_DF_R9_bids_return_to_hand():
    hands = {0: [card("K6", "Y2"), 3], 1: [card("B6", "O2")], 2: [card("G6", "R2")], 3: [card("O6", "B2")]}
    st = auction(4, hands, car=K)
    for _s in range(4):
        st.apply_action(legal(st)[0])
    assert st.hands[1] == {card("B6", "O2")} and st.hands[0] == {card("K6", "Y2"), 3, 42}
    assert card("B6", "O2") in st.revealed[1]  # now publicly known to be in seat 1's hand


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_DF_R10_after_six_auctions_everyone_owns_a_car(n):
    for seed in range(5):
        st = _through_auction(n, seed=seed)
        assert all(s in st.owner for s in range(n))
        assert all(0 <= st.owner[c] < n for c in range(6))
        st.check_invariants()


def test_DF_V1_choose_power_mask_is_the_two_held_powers():
    st = _through_setup(2, seed=3, powers=True)
    st = play_all(st, np.random.default_rng(3), stop=lambda s: s.stage == Stage.POWER)
    seat = st.current_player()
    assert len(st.held[seat]) == 2
    cars = [st.power_of_car.index(p) for p in st.held[seat]]
    assert sorted(a - A_POWER for a in legal(st)) == sorted(cars)
    keep = st.held[seat][1]
    st.apply_action(A_POWER + cars[1])
    assert st.held[seat] == [keep]
