"""Rule tests of Voll verplant (VV-R1..R38), each on a readable setup (see vv_helpers.setup)."""

from __future__ import annotations

import numpy as np
import pytest
from vv_helpers import CARD, free, game, legal, marked, num, play, random_game, reveal, setup, tr, turn

from boardzoo.envs import ConfigError, IllegalActionError, make
from boardzoo.envs.core.game import CHANCE, TERMINAL

# ----------------------------------------------------------------- setup and deck


def test_VV_R1_same_map_independent_empty_sheets():
    st = setup(3)
    assert all(marked(st, p) == [] for p in range(3))
    assert all(all(len(w) == 0 for w in st.wins[p]) for p in range(3))
    assert st.scores() == [-31.0] * 3  # 62 empty stations, nothing else
    turn(st, "5", num("A", 5), num("C", 2), num("J", 0))
    # each sheet changed only by its own action
    assert marked(st, 0) == [1, 2, 3, 4, 5]
    assert marked(st, 1) == [15, 16]
    assert marked(st, 2) == []
    assert [len(w) for w in st.wins[2]] == [0] * 9 + [1]


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_VV_R2_one_to_six_players(n):
    st = game().new_initial_state(n)
    assert st.num_players == n
    env = make("voll_verplant_v0", num_players=n)
    env.reset(seed=0)
    assert len(env.agents) == n


@pytest.mark.parametrize("n", [0, 7])
def test_VV_R2_other_counts_rejected(n):
    with pytest.raises(ConfigError, match="num_players"):
        game().new_initial_state(n)


def test_VV_R3_deck_is_the_fourteen_cards():
    g = game()
    st = g.new_initial_state(2)
    assert st.current_player() == CHANCE
    assert sum(st.deck) == 14
    out = dict(st.chance_outcomes())
    names = {g.deck.card_name(k): p * 14 for k, p in out.items()}
    assert names == pytest.approx(
        {
            "3": 3,
            "4": 3,
            "5": 2,
            "6 [shuffle]": 1,
            "(2) express": 1,
            "(3) express": 1,
            "* transfer": 2,
            "o free ride": 1,
        }
    )
    assert sum(out.values()) == pytest.approx(1.0)


def test_VV_R4_one_card_per_turn_for_everyone():
    st = setup(3)
    reveal(st, "4")
    assert sum(st.deck) == 13
    for p in range(3):
        assert st.current_player() == p
        assert st.phase() == "number"
        # the same card for every seat: line A allows 0..4 crosses
        assert [a for a in legal(st) if a < 7] == [0, 1, 2, 3, 4]
        st.apply_action(num("A", 4))
    assert st.current_player() == CHANCE  # next turn: the next card


def test_VV_R5_revealed_card_not_revealed_again_before_shuffle():
    st = setup(1)
    turn(st, "F", free(1))
    assert st.discard == [CARD["F"]]
    assert CARD["F"] not in dict(st.chance_outcomes())
    assert not st.is_legal(CARD["F"])
    turn(st, "3", num("A", 3))
    assert st.discard == [CARD["F"], CARD["3"]]
    assert st.deck[CARD["3"]] == 2


def test_VV_R6_shuffle_card_reshuffles_after_its_turn():
    st = setup(2)
    turn(st, "F", free(1), free(2))
    turn(st, "T", tr("A"), tr("B"))
    reveal(st, "6")
    assert sum(st.deck) == 11  # still missing during the turn
    play(st, num("C", 6), num("C", 6))
    assert st.deck == list(st.game.deck.kind_count) and st.discard == []
    assert dict(st.chance_outcomes())[CARD["F"]] == pytest.approx(1 / 14)


def test_VV_R7_deck_never_runs_out():
    g = game()
    rng = np.random.default_rng(7)
    for _ in range(20):
        st = g.new_initial_state(2)

        def look(s):
            if s.is_chance_node():
                assert sum(s.deck) > 0

        random_game(st, rng, look)


def test_VV_R7_deck_without_shuffle_card_rejected(tmp_path):
    p = tmp_path / "noshuffle.json"
    p.write_text('{"name": "x", "cards": [{"type": "number", "value": 3, "count": 5}]}')
    with pytest.raises(ConfigError, match="deck.*shuffle"):
        game(deck=str(p))


# ----------------------------------------------------------------- choosing a line


def test_VV_R8_line_with_empty_window_and_one_window_used():
    st = setup(1, windows={"J": [3], "B": [4, 5]})
    reveal(st, "3")
    lines = {a // 7 for a in legal(st)}
    assert lines == {0, 2, 3, 4, 5, 6, 7, 8}  # not B (1) nor J (9): windows full
    with pytest.raises(IllegalActionError):
        st.apply_action(num("J", 0))
    st.apply_action(num("A", 3))
    assert st.wins[0][0] == [3] and st.wused[0] == 4
    st = setup(1, windows={"J": [3]})
    reveal(st, "T")
    assert tr("J") not in legal(st) and tr("A") in legal(st)


def test_VV_R9_line_with_all_stations_marked_can_be_chosen():
    st = setup(2, marks={0: [60, 7, 61, 62]}, scored={0: {"J": 1}}, first_gone="J")
    reveal(st, "5")
    assert [a for a in legal(st) if a // 7 == 9] == [num("J", 0)]
    before = st.scores()[0]
    play(st, num("J", 0), num("A", 0))
    assert st.wins[0][9] == [5]
    assert st.scores()[0] == before and marked(st, 0) == [7, 60, 61, 62]


def test_VV_R10_choices_are_simultaneous_and_hidden():
    st = setup(3)
    reveal(st, "5")
    assert st.deciders() == [0, 1, 2]
    a, b = st.clone(), st.clone()
    a.apply_action(num("A", 5))
    b.apply_action(num("C", 1))
    assert a.deciders() == [1, 2]
    # seat 1 cannot tell seat 0's choice: same observation and mask
    for p in (1, 2):
        np.testing.assert_array_equal(a.observation(p), b.observation(p))
    np.testing.assert_array_equal(a.legal_mask(), b.legal_mask())
    # the rules treat pending commits as hidden: resample_hidden re-deals them
    seen = {a.resample_hidden(1, np.random.default_rng(i)).commits[0] for i in range(30)}
    assert len(seen) > 1
    assert a.resample_hidden(0, np.random.default_rng(0)).commits[0] == num("A", 5)
    # parallel form: all deciders in one step, same result as the AEC order
    env = make("voll_verplant_v0", parallel=True, num_players=3)
    obs, _ = env.reset(seed=3)
    deciders = env.state.deciders()
    assert deciders == [0, 1, 2]
    acts = {ag: int(np.flatnonzero(o["action_mask"])[-1]) for ag, o in obs.items()}
    ref = env.state.clone()
    env.step(acts)
    for p in range(3):
        ref.apply_action(acts[f"player_{p}"])
    assert ref.marks == env.state.marks


# ----------------------------------------------------------------- number card


def test_VV_R11_value_written_in_window():
    st = setup(2)
    turn(st, "4", num("A", 2), num("B", 0))
    assert st.wins[0][0] == [4] and st.wins[1][1] == [4]  # the value, not the crosses


def test_VV_R12_crossing_starts_at_first_unmarked_station():
    st = setup(1, marks={0: [1, 2]})
    turn(st, "3", num("A", 3))
    assert marked(st, 0) == [1, 2, 3, 4, 5]


def test_VV_R13_choose_k_up_to_min_value_and_run():
    st = setup(1, marks={0: [1, 2, 6]})  # run from 3 is 3, 4, 5 (r = 3)
    reveal(st, "5")
    assert [a for a in legal(st) if a // 7 == 0] == [num("A", k) for k in range(4)]
    assert [a for a in legal(st) if a // 7 == 2] == [num("C", k) for k in range(6)]  # min(5, 13)
    play(st, num("A", 2))
    assert marked(st, 0) == [1, 2, 3, 4, 6]


def test_VV_R14_crossing_stops_at_a_marked_station():
    st = setup(1, marks={0: [4]})
    reveal(st, "6")
    assert num("A", 3) in legal(st) and num("A", 4) not in legal(st)
    play(st, num("A", 3))
    assert marked(st, 0) == [1, 2, 3, 4]
    # the rest of the value is lost: the next number starts after the block
    turn(st, "3", num("A", 3))
    assert marked(st, 0) == [1, 2, 3, 4, 5, 6, 7]


def test_VV_R15_crossing_stops_at_the_end_station():
    st = setup(1)
    reveal(st, "6")
    assert [a for a in legal(st) if a // 7 == 9] == [num("J", k) for k in range(5)]  # J has 4 stations
    play(st, num("J", 4))
    assert marked(st, 0) == [7, 60, 61, 62]


# ----------------------------------------------------------------- express card


def test_VV_R16_express_skips_marked_stations():
    st = setup(1, marks={0: [2, 4]})
    turn(st, "x3", num("A", 3))
    assert marked(st, 0) == [1, 2, 3, 4, 5]
    st = setup(1, marks={0: [2, 4]})
    turn(st, "3", num("A", 1))  # a plain number would stop at 2
    reveal(st, "x2")
    assert num("A", 2) in legal(st)


def test_VV_R17_express_limited_by_unmarked_stations():
    st = setup(1, marks={0: [60, 7, 62]})
    reveal(st, "x3")
    assert [a for a in legal(st) if a // 7 == 9] == [num("J", 0), num("J", 1)]
    play(st, num("J", 1))
    assert marked(st, 0) == [7, 60, 61, 62]
    assert st.wins[0][9] == [13]  # circled 3


# ----------------------------------------------------------------- transfer card


def test_VV_R18_transfer_symbol_in_window():
    st = setup(1)
    turn(st, "T", tr("C"))
    assert st.wins[0][2] == [20]


def test_VV_R19_transfer_number_is_lines_through_first_unmarked():
    st = setup(2, marks={0: [15, 16], 1: [1, 2, 3, 4, 5, 6]})
    turn(st, "T", tr("C"), tr("A"))
    assert st.nums[0][17 - 1] == 2 and marked(st, 0) == [15, 16, 17]  # C and E
    assert st.nums[1][7 - 1] == 3  # A, C and J
    assert st.transfer_points(0) == 4 and st.transfer_points(1) == 6
    st = setup(1)
    turn(st, "T", tr("A"))
    assert st.nums[0][0] == 1  # a plain station: the chosen line only


def test_VV_R20_transfer_on_full_line_uses_only_the_window():
    st = setup(2, marks={0: [60, 7, 61, 62]}, scored={0: {"J": 1}}, first_gone="J")
    turn(st, "T", tr("J"), tr("A"))
    assert st.wins[0][9] == [20] and sum(st.nums[0]) == 0
    assert marked(st, 0) == [7, 60, 61, 62]


# ----------------------------------------------------------------- free ride


def test_VV_R21_free_ride_crosses_any_station_without_window():
    st = setup(2, marks={0: [30]})
    reveal(st, "F")
    assert st.phase() == "free_ride"
    assert legal(st) == [free(s) for s in range(1, 63) if s != 30]
    play(st, free(44), free(30))
    assert marked(st, 0) == [30, 44] and marked(st, 1) == [30]
    assert st.wused == [0, 0]


def test_VV_R22_free_ride_on_a_full_sheet_does_nothing():
    full = list(range(2, 63))
    st = setup(2, marks={0: list(range(1, 63)), 1: full})
    reveal(st, "F")
    assert legal(st) == [free(1)]  # "nothing"
    assert "nothing" in st.action_to_string(free(1))
    st.apply_action(free(1))
    assert legal(st) == [free(1)]  # seat 1 can still cross station 1
    st.apply_action(free(1))
    assert len(marked(st, 0)) == 62 and len(marked(st, 1)) == 62


# ----------------------------------------------------------------- marking


def test_VV_R23_a_marked_station_counts_for_every_line():
    st = setup(1)
    turn(st, "3", num("B", 3))  # 10, 11, 5
    assert marked(st, 0) == [5, 10, 11]
    reveal(st, "6")
    # line A now stops at 5: run 1, 2, 3, 4
    assert max(a for a in legal(st) if a // 7 == 0) == num("A", 4)


def test_VV_R24_marks_are_never_removed():
    g = game()
    rng = np.random.default_rng(24)
    st = g.new_initial_state(3)
    prev = [set() for _ in range(3)]

    def look(s):
        for p in range(3):
            now = set(marked(s, p))
            assert prev[p] <= now
            prev[p] = now
        s.check_invariants()

    random_game(st, rng, look)
    # the invariant check catches an unmarked station
    st2 = setup(1, marks={0: [1]})
    st2.check_invariants()
    st2.marks[0][0] = 0
    with pytest.raises(AssertionError):
        st2.check_invariants()


# ----------------------------------------------------------------- completion and bonuses


def test_VV_R25_line_complete_when_every_station_marked_by_any_means():
    # B = 10 11 5 12 13 14; 5 is crossed through line A, 13 through line D
    st = setup(2, marks={0: [10, 11, 12, 14, 1, 2, 3, 4]})
    turn(st, "3", num("A", 1), num("A", 0))
    assert st.scored[0][1] == 0  # 13 still empty
    turn(st, "3", num("D", 2), num("A", 0))  # 27, 13 on line D
    assert st.scored[0][1] == 1 and st.bonus[0] == 4
    assert st.last_completed[0] == [1]


def test_VV_R26_a_line_scores_once():
    st = setup(2, marks={0: [60, 61, 62]})
    turn(st, "3", num("J", 1), num("A", 0))
    assert st.bonus[0] == 2
    turn(st, "T", tr("A"), tr("A"))  # marks 1; J already scored
    turn(st, "F", free(8), free(9))
    assert st.bonus[0] == 2 and st.scored[0][9] == 1


def test_VV_R27_simultaneous_completers_all_take_the_first_bonus():
    st = setup(3, marks={0: [60, 61, 62], 1: [60], 2: []})
    turn(st, "3", num("J", 1), num("J", 3), num("J", 2))
    assert st.scored[0][9] == 1 and st.scored[1][9] == 1 and st.scored[2][9] == 0
    assert st.bonus[:2] == [2, 2]
    assert st.first_gone[9]


def test_VV_R28_later_completers_take_the_other_bonus():
    st = setup(2, marks={0: [60, 61, 62], 1: [60, 61, 62]})
    turn(st, "3", num("J", 1), num("A", 0))
    turn(st, "F", free(1), free(7))
    assert st.scored[1][9] == 2 and st.bonus[1] == 1  # J: 2 first, 1 other
    assert st.bonus[0] == 2


def test_VV_R29_solo_always_scores_the_first_bonus():
    st = setup(1, marks={0: [60, 61, 62]})
    st.first_gone[9] = True  # even if it were struck (no reachable position: forced on the state)
    turn(st, "3", num("J", 1))
    assert st.scored[0][9] == 1 and st.bonus[0] == 2
    # with two players it would not: seat 1 completed J in an earlier turn
    st = setup(2, marks={0: [60, 61, 62], 1: [60, 7, 61, 62]}, scored={1: {"J": 1}})
    turn(st, "3", num("J", 1), num("A", 0))
    assert st.bonus[0] == 1 and st.scored[0][9] == 2


def test_VV_R30_completions_are_public():
    st = setup(2, opts={"observe_opponent_sheets": False}, marks={0: [60, 61, 62]})
    turn(st, "3", num("J", 1), num("A", 0))
    from boardzoo.envs.voll_verplant import encoder as E

    o = st.observation(1)
    other = E.HEADER + E.BLOCK
    assert o[other + E.P_FIRST + 9] == 1.0  # seat 0 claimed J's first bonus
    assert o[E.H_FIRST_GONE + 9] == 1.0
    assert "completed J" in str(st)


# ----------------------------------------------------------------- end and scoring


def test_VV_R31_game_ends_when_the_last_window_is_filled():
    g = game()
    wins = {ln: [3] * w for ln, w in zip("ABCDEFGHIJ", g.map.windows)}
    wins["C"] = [3, 3, 3]  # one window of C left
    st = setup(2, windows=wins)
    turn(st, "F", free(1), free(1))
    assert st.current_player() == CHANCE  # a free ride uses no window
    reveal(st, "4")
    assert {a // 7 for a in legal(st)} == {2}
    play(st, num("C", 4), num("C", 1))
    assert st.current_player() == TERMINAL and st.is_terminal()
    assert st.wused == [24, 24]


def test_VV_R32_line_score_is_the_sum_of_bonuses():
    st = setup(2, marks={0: [60, 61, 62, 10, 11, 12, 13, 14, 1, 2, 3, 4, 6, 8, 9]})
    turn(st, "F", free(7), free(1))  # completes J
    assert st.line_points(0) == 2
    turn(st, "x2", num("A", 1), num("A", 0))  # crosses 5: completes A and B
    assert st.line_points(0) == 2 + 5 + 4


def test_VV_R33_transfer_score_is_twice_the_numbers():
    st = setup(1, nums={0: {30: 3, 17: 2, 1: 1}}, windows={"F": [20], "C": [20], "A": [20]})
    assert st.transfer_points(0) == 12
    assert st.scores()[0] == 12 - (62 - 3) // 2


def test_VV_R34_penalty_is_half_the_empty_stations_rounded_down_each_once():
    st = setup(1)
    assert st.penalty_points(0) == 31  # 62 station ids, transfer stations counted once
    st = setup(1, marks={0: [1, 2, 3]})
    assert st.penalty_points(0) == 29  # floor(59 / 2)
    st = setup(1, marks={0: [30]})  # a station on three lines removes one empty station
    assert st.empty[0] == 61


def test_VV_R35_total_is_lines_plus_transfers_minus_penalty():
    st = setup(2, marks={0: [60, 61, 62]}, nums={0: {30: 3}}, windows={"F": [20]})
    turn(st, "6", num("J", 1), num("A", 6))
    # windows hold 6s, which do not score
    assert st.scores()[0] == 2 + 6 - (62 - 5) // 2
    assert st.scores()[1] == 0 + 0 - (62 - 6) // 2


def test_VV_R36_highest_total_wins_ties_share():
    g = game()
    wins = {ln: [3] * w for ln, w in zip("ABCDEFGHIJ", g.map.windows)}
    wins["C"] = [3, 3, 3]
    st = setup(3, windows=wins, marks={0: [1, 2], 1: [3, 4], 2: []})
    turn(st, "3", num("C", 0), num("C", 0), num("C", 0))
    assert st.is_terminal()
    assert st.winners() == [0, 1]
    assert st.returns() == [0.0, 0.0, -1.0]
    st = setup(1, windows=wins)
    turn(st, "3", num("C", 3))
    assert st.returns() == [pytest.approx(st.scores()[0] / 50)]


def test_VV_R37_order_inside_a_turn():
    g = game()
    # (1) sheets never affect each other; (3) bonuses use only earlier completions; (4) strikes
    st = setup(3, marks={0: [60, 61, 62], 1: [60, 61, 62], 2: [1]})
    turn(st, "3", num("J", 1), num("J", 1), num("A", 0))
    assert st.scored[0][9] == st.scored[1][9] == 1
    assert marked(st, 2) == [1]
    assert st.first_gone[9]
    # (5) reshuffle and (6) end check after bonuses: a line completed in the final turn scores
    wins = {ln: [3] * w for ln, w in zip("ABCDEFGHIJ", g.map.windows)}
    wins["J"] = []
    st = setup(2, windows=wins, marks={0: [7, 61, 62]})
    turn(st, "6", num("J", 1), num("J", 0))
    assert st.is_terminal()
    assert st.scored[0][9] == 1 and st.bonus[0] == 2
    assert st.deck == list(g.deck.kind_count)  # the 6 reshuffled before the end


def test_VV_R38_one_action_completes_several_lines():
    # 7 is the last empty station of A and of J
    st = setup(2, marks={0: [1, 2, 3, 4, 5, 6, 8, 9, 60, 61, 62]})
    turn(st, "F", free(7), free(7))
    assert st.scored[0][0] == 1 and st.scored[0][9] == 1
    assert st.line_points(0) == 5 + 2
    assert st.last_completed[0] == [0, 9]
