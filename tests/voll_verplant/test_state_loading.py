"""Saved states of Voll verplant are untrusted input (DESIGN.md, issue 11): each damaged position
below, built from a readable one, is refused with a StateError naming the field (and the rule
where an invariant enforces one); good positions load, save back to the same dict and play on.
Also: integer-like actions on the fast paths, and the observation layout (RULES.md = encoder)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from vv_helpers import CARD, LINES, free, game, legal, num, random_game, reveal, setup, tr, turn

from boardzoo.envs import IllegalActionError
from boardzoo.envs.core.errors import StateError
from boardzoo.envs.voll_verplant import encoder as E


def refused(st_or_dict, field: str, g=None, **change):
    """Load the saved position (a state or its dict) with the top-level fields in ``change``
    replaced; it must be refused with a StateError whose message names ``field``."""
    d = st_or_dict if isinstance(st_or_dict, dict) else st_or_dict.to_dict()
    d = json.loads(json.dumps(d))
    d.update(change)
    g = g or game(**d["options"])
    with pytest.raises(StateError, match=re.escape(field)) as e:
        g.state_from_dict(d)
    return str(e.value)


def loads(d: dict, g=None):
    d = json.loads(json.dumps(d))
    g = g or game(**d["options"])
    st = g.state_from_dict(d)
    assert st.to_dict() == d
    return st


def a_turn_played():
    """Two seats; turn 1: a 4 (seat 0 crosses A 1-4, seat 1 crosses B 10-11), then the reveal of a 3."""
    st = setup(2)
    turn(st, "4", num("A", 4), num("B", 2))
    reveal(st, "3")
    return st


# ----------------------------------------------------------------------------- good positions
def test_good_positions_load_round_trip_and_play_to_the_end():
    st = a_turn_played()
    st.apply_action(num("C", 3))  # seat 0 has committed (hidden), seat 1 to choose
    d = st.to_dict()
    assert not {"env_id", "version", "options", "num_players"} & set(st._to_dict())  # the core adds the envelope
    back = loads(d)
    assert back.commits == [num("C", 3), -1] and back.cur == 1
    for seat in range(2):
        np.testing.assert_array_equal(back.observation(seat), st.observation(seat))
    np.testing.assert_array_equal(back.legal_mask(), st.legal_mask())
    random_game(back, np.random.default_rng(0), on_state=lambda s: s.check_invariants())
    assert back.is_terminal()


@pytest.mark.parametrize("n", [1, 3, 6])
@pytest.mark.parametrize(
    "opts", [{}, {"penalty_rounding": "ceil", "allow_short_moves": False, "observe_opponent_sheets": False}]
)
def test_every_position_of_random_games_loads(n, opts):
    g = game(**opts)
    rng = np.random.default_rng(n)
    for _ in range(3):
        st = g.new_initial_state(n)
        seen: list[str] = []
        random_game(st, rng, on_state=lambda s, seen=seen: seen.append(s.to_json()))
        seen.append(st.to_json())
        for js in seen[::5] + seen[-1:]:
            loads(json.loads(js), g)


# ----------------------------------------------------------------------------- schema (types, ranges, sizes)
def test_schema_names_the_field():
    st = a_turn_played()
    refused(st, "cur", cur=2)  # a seat of a two-player game is 0..1
    refused(st, "card", card=8)  # the standard deck has 8 card kinds
    refused(st, "turn", turn=True)  # bool is not an int
    refused(st, "over", over=0)
    d = st.to_dict()
    d["marks"][0] = [1, 2, 63]  # Metro-1 has station ids 1..62
    refused(d, "marks[0][2]")
    d = st.to_dict()
    d["marks"][0] = [2, 1]  # saved sorted: another order would not round-trip
    refused(d, "marks[0]")
    d = st.to_dict()
    d["nums"][0] = {"01": 1}  # keys are the station ids as saved
    refused(d, "nums[0]<key>")
    d = st.to_dict()
    d["wins"][0][LINES.index("J")] = [3, 3]  # J has one window (VV-R8)
    refused(d, "wins[0][9]")
    d = st.to_dict()
    d["deck"][CARD["6"]] = 2  # one 6 in the deck (VV-R3)
    refused(d, "deck[3]")


def test_size_bombs_are_refused_before_anything_is_built():
    st = a_turn_played()
    d = st.to_dict()
    d["marks"][0] = list(range(1, 10**6))
    refused(d, "marks[0]")
    refused(st, "discard", discard=[0] * 10**6)
    refused(st, "num_players", num_players=10**6)


def test_VV_R29_solo_scores_only_first_bonuses():
    st = setup(1, marks={0: [60, 7, 61, 62]})  # J complete: first bonus
    d = st.to_dict()
    d["scored"][0][LINES.index("J")] = 2
    refused(d, "scored[0][9]")


# ----------------------------------------------------------------------------- cards (VV-R3..R7)
def test_VV_R3_R5_cards_are_conserved():
    st = a_turn_played()  # discard: 4, 3 (the 3 revealed now)
    d = st.to_dict()
    d["deck"][CARD["4"]] += 1  # the played 4 back in the deck as well
    msg = refused(d, "deck/discard")
    assert "VV-R3" in msg


def test_VV_R5_the_revealed_card_tops_the_discard_pile():
    st = a_turn_played()
    d = st.to_dict()
    d["discard"] = [CARD["3"], CARD["4"]]  # the 3 is being played: it is on top
    refused(d, "discard")


def test_VV_R6_a_played_shuffle_card_reshuffled_the_deck():
    st = setup(2)
    turn(st, "4", num("A", 0), num("A", 0))
    d = st.to_dict()
    d["deck"][CARD["6"]] = 0
    d["discard"] = [CARD["4"], CARD["6"]]  # a 6 played, but no reshuffle after it
    d["wins"] = [[[4, 6] if li == 0 else [] for li in range(10)] for _ in range(2)]
    d["turn"] = 2
    msg = refused(d, "discard")
    assert "VV-R6" in msg


# ----------------------------------------------------------------------------- phase and commits
def test_VV_R10_pending_commits_are_legal_actions_of_their_seat():
    st = a_turn_played()
    st.apply_action(num("C", 3))
    d = st.to_dict()
    d["commits"][0] = num("C", 5)  # a 3 allows at most 3 crosses (VV-R13)
    refused(d, "commits[0]")
    d["commits"][0] = tr("C")  # a transfer action on a number card
    refused(d, "commits[0]")
    d = st.to_dict()
    d["commits"][1] = num("A", 1)  # seat 1 has not chosen yet (cur = 1)
    refused(d, "commits")


def test_VV_R8_a_commit_on_a_line_with_no_window_left_is_refused():
    st = setup(2, windows={"J": [3]})  # J's single window is filled
    reveal(st, "4")
    st.apply_action(num("A", 1))
    d = st.to_dict()
    d["commits"][0] = num("J", 0)
    refused(d, "commits[0]")


def test_no_card_is_shown_before_the_reveal_or_after_the_end():
    st = setup(2)
    refused(st, "cur", cur=1)  # nobody chooses before the reveal
    g = game()
    end = random_game(g.new_initial_state(2), np.random.default_rng(3))
    d = end.to_dict()
    refused(d, "over", over=False)  # every window filled: the game is over (VV-R31)
    refused(d, "card", card=0)


# ----------------------------------------------------------------------------- sheets
def test_VV_R4_every_card_is_written_on_every_sheet():
    st = a_turn_played()
    d = st.to_dict()
    d["wins"][1][LINES.index("B")] = [5]  # seat 1 wrote a 5 where the 4 was played
    refused(d, "wins[1]")


def test_VV_R11_R18_window_codes_are_cards_of_the_deck():
    st = a_turn_played()
    d = st.to_dict()
    for p in range(2):
        d["wins"][p][LINES.index("A" if p == 0 else "B")] = [7]  # no number 7 in the deck
    refused(d, "wins[0][0]")


def test_VV_R31_over_means_every_window_filled():
    st = setup(2)
    turn(st, "4", num("A", 4), num("B", 2))
    refused(st, "over", over=True)  # 1 of 24 windows filled


def test_VV_R19_transfer_numbers():
    st = setup(2, windows={"F": [20]}, nums={0: {30: 3}})
    d = st.to_dict()
    d["nums"][0]["30"] = 2  # three lines pass through station 30
    assert "VV-R19" in refused(d, "nums[0]")
    d = st.to_dict()
    d["marks"][0].remove(30)  # a written number marks its station (VV-R23)
    refused(d, "nums[0]")
    d = st.to_dict()
    d["nums"][0]["1"] = 1  # station 1 is only on A: no transfer window there
    d["marks"][0] = sorted(d["marks"][0] + [1])
    refused(d, "nums[0]")
    st2 = setup(2)
    d = st2.to_dict()  # a number but no transfer window at all
    d["nums"][1] = {"5": 2}
    d["marks"][1] = [5]
    refused(d, "nums[1]")


def test_VV_R25_R26_a_complete_line_has_scored():
    st = setup(2, marks={0: [60, 7, 61]})
    d = st.to_dict()
    d["marks"][0] = [7, 60, 61, 62]  # J complete, but no bonus recorded
    assert "VV-R25" in refused(d, "scored[0][9]")
    d = setup(2, marks={0: [60, 7, 61, 62]}).to_dict()
    d["marks"][0] = [7, 60, 61]  # a bonus for a line that is not complete
    refused(d, "scored[0][9]")


def test_VV_R37_the_first_bonus_is_struck_exactly_when_someone_completed_the_line():
    st = setup(2, marks={0: [60, 7, 61, 62]})
    assert st.first_gone[LINES.index("J")]
    refused(st, "first_gone[9]", first_gone=[False] * 10)
    d = setup(2).to_dict()
    d["first_gone"][0] = True  # struck, but nobody completed A
    refused(d, "first_gone[0]")


def test_VV_R28_other_bonus_without_a_first_is_refused():
    d = setup(3, marks={0: [60, 7, 61, 62], 1: [60, 7, 61, 62]}, scored={0: {"J": 1}, 1: {"J": 2}}).to_dict()
    d["scored"][0][LINES.index("J")] = 2
    assert "VV-R28" in refused(d, "scored")


# ----------------------------------------------------------------------------- the turn counter and the last turn
def test_turn_counter_matches_the_cards_played():
    st = a_turn_played()  # one window turn played, in this deck
    refused(st, "turn", turn=0)  # fewer turns than windows filled
    refused(st, "turn", turn=2)  # a free ride would be on the discard pile (VV-R5)
    st = setup(2, windows={"A": [6]})  # one window turn: the 6, which reshuffled
    loads(dict(st.to_dict(), turn=2))  # one free ride before it: possible
    refused(st, "turn", turn=3)  # two free rides in one deck of one free ride (VV-R6, VV-R21)


def test_VV_R27_R28_last_turn_completers_share_one_bonus():
    st = setup(3, marks={0: [60, 7, 61], 1: [60, 7, 61]})
    turn(st, "3", num("J", 1), num("J", 1), num("A", 0))  # seats 0 and 1 complete J together
    d = st.to_dict()
    assert d["last_completed"] == [[9], [9], []] and d["scored"][0][9] == d["scored"][1][9] == 1
    loads(d)
    d["scored"][1][9] = 2  # one of two simultaneous completers got less
    refused(d, "last_completed")
    d = st.to_dict()
    d["last_completed"][1] = []  # seat 1 completed J earlier: then seat 0 gets the other bonus
    refused(d, "last_completed")


def test_last_actions_match_the_last_card():
    st = a_turn_played()  # last turn: the 4, A x4 and B x2
    d = st.to_dict()
    assert d["last_actions"] == [num("A", 4), num("B", 2)]
    d["last_actions"][1] = num("B", 5)  # a 4 crosses at most 4 (VV-R13)
    refused(d, "last_actions[1]")
    d["last_actions"][1] = num("C", 2)  # the 4 was written on B, not on C (VV-R11)
    refused(d, "last_actions[1]")
    d["last_actions"][1] = free(20)  # not a free-ride card
    refused(d, "last_actions[1]")
    refused(st, "last_actions", last_actions=[num("A", 4)])
    refused(st, "last_card", last_card=CARD["5"])  # the last card played was the 4 (VV-R5)
    refused(st, "last_card", last_card=-1)  # then there is no last turn to describe
    st0 = setup(2)
    refused(st0, "last_card", last_card=CARD["4"], last_actions=[0, 0])  # turn 0: no last turn


def test_free_ride_last_actions_crossed_their_station():
    st = setup(2)
    turn(st, "4", num("A", 0), num("A", 0))
    turn(st, "F", free(20), free(44))
    d = st.to_dict()
    loads(d)
    d["last_actions"][0] = free(21)  # station 21 is not marked on seat 0's sheet
    refused(d, "last_actions[0]")


# ----------------------------------------------------------------------------- actions: integer-like, never bool/float
def test_integer_like_actions_on_the_fast_paths():
    st = setup(2)
    for outcome in (np.int64(CARD["4"]), np.array(CARD["4"])):  # chance outcomes too
        s = st.clone()
        assert s.is_legal(outcome)
        s.apply_action(outcome)
        assert s.card == CARD["4"] and type(s.card) is int and type(s.discard[-1]) is int
        json.dumps(s.to_dict())
    reveal(st, "4")
    a = num("A", 4)
    for act in (np.int64(a), np.int32(a), np.uint8(a), np.array(a), np.array(a, dtype=np.int16)):
        s = st.clone()
        assert s.is_legal(act)
        s.apply_action(act)
        assert s.commits[0] == a and type(s.commits[0]) is int
        json.dumps(s.to_dict())
    for bad in (True, False, float(a), np.float64(a), np.array([a]), np.array(float(a)), "4", None, np.bool_(True)):
        assert not st.is_legal(bad)
        before = st.to_dict()
        with pytest.raises(IllegalActionError):
            st.apply_action(bad)
        assert st.to_dict() == before
    chance = setup(2)
    for bad in (True, 1.0, np.array([1]), np.float32(1)):
        assert not chance.is_legal(bad)
        with pytest.raises(IllegalActionError):
            chance.apply_action(bad)
    assert legal(st)[-1] == num("J", 4)


# ----------------------------------------------------------------------------- observation layout
def test_observation_layout_is_the_encoders_and_the_rules_table():
    g = game()
    layout = g.observation_layout()
    assert layout == E.layout()
    at = 0
    for _name, off, length in layout:
        assert off == at and length > 0
        at += length
    assert at == g.observation_size == E.OBS_SIZE
    blocks = dict((name, (off, length)) for name, off, length in layout)
    assert blocks["first_bonus_struck"] == (E.H_FIRST_GONE, 10)
    assert blocks["me.marked"] == (E.HEADER + E.P_MARK, 64)
    assert blocks["next2.present"] == (E.HEADER + 2 * E.BLOCK + E.P_PRESENT, 1)
    # RULES.md shows the same table
    text = (Path(E.__file__).parent / "RULES.md").read_text()
    section = text.split("## Observation layout", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| (\d+) \| (\d+) \|", section, flags=re.M)
    assert [(n, int(o), int(ln)) for n, o, ln in rows] == layout
    # the blocks hold what they say: a seat's marks at its slot, seen from another seat
    st = setup(3, marks={1: [5]})
    obs = st.observation(0)
    off, _ = blocks["next1.marked"]
    assert obs[off + 4] == 1.0 and obs[blocks["me.marked"][0] + 4] == 0.0
    assert obs[blocks["num_players"][0]] == pytest.approx(3 / 6)
