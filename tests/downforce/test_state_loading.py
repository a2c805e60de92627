"""Downforce saved states are untrusted input (issue 11): the schema and the invariants refuse a
damaged dict with a StateError naming the field (and the rule it breaks); a good one loads, saves
back to the same dict and plays on. Also: integer-like actions and the observation layout.

Positions are real positions of seeded games, reached by a readable condition ("the first race
turn", "a STEER sub-step"), then damaged field by field.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest
from df_helpers import K, legal, play_all

from boardzoo.envs.core.errors import IllegalActionError, StateError
from boardzoo.envs.downforce.rules import A_BET, A_STEER, NUM_ACTIONS, Dec, DownforceGame, Stage

POWERS = {"powers": True, "extra_powers": True}


def reach(pred, n=4, seed=0, tries=40, **options):
    """The first position of a seeded random game where ``pred(state)`` holds, as (game, saved dict)."""
    game = DownforceGame(**options)
    for s in range(seed, seed + tries):
        st = game.new_initial_state(n)
        play_all(st, np.random.default_rng(s), stop=lambda x: x.is_terminal() or pred(x))
        if pred(st):
            return game, json.loads(st.to_json())
    raise AssertionError("no such position")


def refused(game, d, field):
    with pytest.raises(StateError, match=field):
        game.state_from_dict(d)


def first_race_turn(s):
    return s.stage == Stage.RACE and s.dec_type == Dec.PLAY and len(s.played) == 0


def mid_race(s):
    return s.stage == Stage.RACE and s.dec_type == Dec.PLAY and len(s.played) >= 12 and s.bets


# ------------------------------------------------------------------------ good states load
@pytest.mark.parametrize("opts", DownforceGame.conformance_options)
def test_every_saved_position_loads_and_saves_back(opts):
    game = DownforceGame(**opts)
    rng = np.random.default_rng(7)
    for n in (2, 4, 6):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            d = json.loads(st.to_json())
            back = game.state_from_dict(d)
            assert back.to_dict() == d and back.current_player() == st.current_player()
            st.apply_action(st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(legal(st))))
        assert game.state_from_dict(json.loads(st.to_json())).is_terminal()


def test_the_body_has_no_envelope_of_its_own():
    st = DownforceGame().new_initial_state(4)
    body = st._to_dict()
    assert not {"env_id", "version", "options", "num_players"} & set(body)
    assert set(body) == set(DownforceGame().state_schema(4).fields)


# ------------------------------------------------------------------------ options (issue 11 example)
def test_a_state_saved_with_other_options_is_refused():
    game, d = reach(mid_race, powers=True, steering="manual")
    refused(DownforceGame(), d, "options")
    # the same body under the default game's envelope: the powers are not part of that game (DF-V1)
    d2 = dict(d, options=dict(DownforceGame().options))
    refused(DownforceGame(), d2, "power_of_car|held|stage|dec_type|line_track")


def test_a_sprint_state_does_not_fit_the_default_track():
    game, d = reach(mid_race, track="sprint", steering="auto")
    d2 = dict(d, options=dict(DownforceGame(steering="auto").options))
    refused(DownforceGame(steering="auto"), d2, "occ")


def test_schema_ranges_follow_the_player_count():
    game, d = reach(first_race_turn, n=3)
    bad = copy.deepcopy(d)
    bad["owner"][0] = 3  # seat 3 does not exist in a 3-player game
    refused(game, bad, r"owner\[0\]")
    bad = copy.deepcopy(d)
    bad["hands"][0] = list(range(25))  # 14 cards + at most 4 speed-8 cards
    refused(game, bad, r"hands\[0\]")


# ------------------------------------------------------------------------ cards (DF-R2, DF-R8, DF-R9)
def test_DF_R2_every_card_exactly_once():
    game, d = reach(first_race_turn)
    bad = copy.deepcopy(d)
    bad["hands"][1] = sorted(bad["hands"][1] + [bad["hands"][0][0]])  # one card in two hands
    refused(game, bad, "hands")
    bad = copy.deepcopy(d)
    bad["hands"][1] = bad["hands"][1][1:]  # a card vanished
    refused(game, bad, "not conserved")


def test_DF_R8_the_speed8_card_goes_to_the_cars_owner():
    game, d = reach(first_race_turn)
    bad = copy.deepcopy(d)
    car8 = 42 + K
    o = bad["owner"][K]
    other = (o + 1) % 4
    swap = bad["hands"][other][0]
    bad["hands"][o] = sorted([c for c in bad["hands"][o] if c != car8] + [swap])
    bad["hands"][other] = sorted([c for c in bad["hands"][other] if c != swap] + [car8])
    refused(game, bad, "speed-8 card of car 0")


def test_DF_R9_revealed_bids_are_known_to_be_in_hand():
    game, d = reach(first_race_turn)
    bad = copy.deepcopy(d)
    hidden = [c for c in bad["hands"][2] if c not in bad["revealed"][2]]
    bad["revealed"][2] = sorted(bad["revealed"][2] + hidden[:1])
    refused(game, bad, r"revealed\[2\].*DF-R9")


# ------------------------------------------------------------------------ auction (DF-R4 .. DF-R8)
def test_DF_R7_owner_and_price_follow_the_revealed_bids():
    game, d = reach(first_race_turn)
    bad = copy.deepcopy(d)
    car = bad["auction_order"][0]
    bad["owner"][car] = (bad["owner"][car] + 1) % 4
    refused(game, bad, rf"owner\[{car}\].*DF-R7|hands")
    bad = copy.deepcopy(d)
    bad["price"][car] = (bad["price"][car] + 1) % 7
    refused(game, bad, rf"price\[{car}\].*DF-R8")


def test_DF_R4_bids_are_committed_in_seat_order():
    game, d = reach(lambda s: s.stage == Stage.AUCTION and s.dec_seat == 2 and s.auction_idx == 1)
    assert d["pending"][0] >= 0 and d["pending"][2] == -1
    bad = copy.deepcopy(d)
    bad["pending"][3] = bad["hands"][3][0]  # seat 3 cannot have bid before seat 2
    refused(game, bad, r"pending\[3\].*DF-R4")
    bad = copy.deepcopy(d)
    bad["pending"][0] = -1  # seat 0 must have bid already
    refused(game, bad, r"pending\[0\].*DF-R4")
    bad = copy.deepcopy(d)
    bad["pending"][1] = next(c for c in range(42) if c not in bad["hands"][1])
    refused(game, bad, r"pending\[1\]")


def test_DF_R6_only_eligible_players_bid():
    game, d = reach(lambda s: s.stage == Stage.RACE)
    bad = copy.deepcopy(d)
    last = bad["bid_history"][-1]
    if all(b >= 0 for b in last):  # everyone bid: make one seat ineligible
        last[0] = -1
    else:
        s = last.index(-1)
        last[s] = bad["hands"][s][0]
    refused(game, bad, r"bid_history\[5\]")


def test_DF_V1_held_powers_come_with_owned_cars():
    game, d = reach(first_race_turn, **POWERS)
    bad = copy.deepcopy(d)
    mine = {bad["power_of_car"][c] for c in range(6) if bad["owner"][c] == 0}
    bad["held"][0] = [next(p for p in bad["power_of_car"] if p not in mine)]
    refused(game, bad, r"held\[0\].*DF-V1")


# ------------------------------------------------------------------------ cars (DF-R16, DF-R17, DF-R27)
def test_DF_R17_two_cars_never_share_a_space():
    game, d = reach(mid_race)
    bad = copy.deepcopy(d)
    on = [c for c in range(6) if bad["pos"][c] >= 0]
    a, b = on[0], on[1]
    bad["occ"][bad["pos"][a]] = -1
    bad["pos"][a] = bad["pos"][b]
    refused(game, bad, rf"pos\[{a}\]|stamp")


def test_DF_R16_cars_never_stand_behind_their_grid_row():
    game, d = reach(mid_race)
    bad = copy.deepcopy(d)
    car = bad["grid_cars"][0]  # started on P1, row 2
    free = next(s for s in (0, 1, 3, 4) if bad["occ"][s] < 0)  # a free space on rows 0-1
    if bad["pos"][car] >= 0:
        bad["occ"][bad["pos"][car]] = -1
    bad["pos"][car] = free
    bad["occ"][free] = car
    refused(game, bad, rf"pos\[{car}\].*DF-R16")


def test_DF_R27_one_entry_stamp_per_step():
    game, d = reach(mid_race)
    bad = copy.deepcopy(d)
    bad["stamp_counter"] += 1
    refused(game, bad, "stamp_counter.*DF-R27")


def test_DF_R23_a_betting_line_triggers_with_the_first_car_across():
    game, d = reach(mid_race)
    assert d["triggered"][0] == 1
    bad = copy.deepcopy(d)
    bad["triggered"][0] = 0
    refused(game, bad, r"triggered\[0\].*DF-R23|bet_queue")


# ------------------------------------------------------------------------ turns (DF-R11, DF-R12)
def test_DF_R11_R12_the_turn_follows_the_cards_played():
    game, d = reach(mid_race)
    bad = copy.deepcopy(d)
    bad["turn_player"] = (bad["turn_player"] + 1) % 4
    bad["dec_seat"] = bad["turn_player"]
    refused(game, bad, "turn_player.*DF-R11")
    bad = copy.deepcopy(d)  # one more card in one hand, one less in another
    bad["hands"][0], bad["hands"][1] = sorted(bad["hands"][0] + bad["hands"][1][:1]), bad["hands"][1][1:]
    bad["revealed"][0] = sorted(set(bad["revealed"][0]) | (set(bad["revealed"][1]) & set(bad["hands"][0])))
    bad["revealed"][1] = [c for c in bad["revealed"][1] if c in bad["hands"][1]]
    refused(game, bad, r"hands\[\d\]|speed-8|bid_history")


# ------------------------------------------------------------------------ sub-steps (DF-R15, DF-R20, DF-V7)
def steering(s):
    return s.dec_type == Dec.STEER


def test_DF_R20_a_steer_step_lists_exactly_the_free_steps():
    game, d = reach(steering)  # manual steering (the default)
    assert game.state_from_dict(d).to_dict() == d
    bad = copy.deepcopy(d)
    steps = bad["dec_args"][3:]
    blocked = [k for k in (0, 1, 2) if k not in steps]
    bad["dec_args"][3:] = steps + blocked[:1] if blocked else steps[:2]  # a blocked step, or one left out
    refused(game, bad, "dec_args.*DF-R16")
    bad = copy.deepcopy(d)
    bad["dec_seat"] = (bad["dec_seat"] + 1) % 4  # only the current player steers (no Cunning here)
    refused(game, bad, "dec_seat.*DF-R20")
    bad = copy.deepcopy(d)
    bad["tasks"] = bad["tasks"][:3]  # the line's after-step is lost
    refused(game, bad, "tasks")


def test_DF_V5_auto_steering_has_no_steer_steps():
    game, d = reach(steering)
    auto = DownforceGame(steering="auto")
    refused(auto, dict(d, options=dict(auto.options)), "dec_type")


def test_DF_R15_a_wild_line_offers_the_cars_it_may_name():
    game, d = reach(lambda s: s.dec_type == Dec.WILD, seed=1)
    bad = copy.deepcopy(d)
    printed = sorted(game.card_cars[bad["cur_card"]])
    bad["dec_args"] = bad["dec_args"] + [c for c in printed if c not in bad["dec_args"][1:]][:1]
    refused(game, bad, "dec_args.*DF-R15")


def test_DF_V7_a_power_prompt_needs_its_power_and_context():
    game, d = reach(lambda s: s.dec_type == Dec.YESNO, **POWERS)
    assert game.state_from_dict(d).to_dict() == d
    bad = copy.deepcopy(d)
    bad["dec_args"] = [7, 0]  # a Determined prompt out of its place
    refused(game, bad, "dec_args")
    bad = copy.deepcopy(d)
    bad["held"] = [[] for _ in bad["held"]]
    refused(game, bad, "held")


# ------------------------------------------------------------------------ bets (DF-R24 .. DF-R27)
def test_DF_R25_bets_name_cars_that_had_not_finished():
    game, d = reach(
        lambda s: s.stage == Stage.RACE and s.dec_type == Dec.PLAY and len(s.bets) >= 2 and s.finish_order, seed=3
    )
    bad = copy.deepcopy(d)
    r = len(bad["bets"]) - 1
    done = [c for c in range(6) if bad["bet_rounds_open"][r][c] == 0]
    if done:
        bad["bets"][r][0] = done[0]
        refused(game, bad, rf"bets\[{r}\]\[0\].*DF-R25")
    bad = copy.deepcopy(d)
    bad["bet_k"] = bad["bet_k"][::-1]
    refused(game, bad, "bet_k.*DF-R24")


def test_DF_R26_bets_are_committed_in_seat_order():
    game, d = reach(lambda s: s.stage == Stage.BET and s.dec_seat == 2)
    bad = copy.deepcopy(d)
    bad["bets"][-1][3] = bad["bets"][-1][0]
    refused(game, bad, r"bets\[\d\]\[3\]")


def test_DF_R32_the_final_money_is_prizes_plus_bets_minus_prices():
    game, d = reach(lambda s: s.is_terminal())
    bad = copy.deepcopy(d)
    bad["money"][0] += 1
    refused(game, bad, r"money\[0\].*DF-R32")


# ------------------------------------------------------------------------ actions
def test_integer_like_actions_and_chance_outcomes():
    game = DownforceGame()
    st = game.new_initial_state(4)
    rng = np.random.default_rng(2)
    for i in range(400):
        if st.is_terminal():
            break
        a = st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(legal(st)))
        act = (np.array(a), np.int64(a), np.int32(a), a)[i % 4]
        assert st.is_legal(act)
        st.apply_action(act)
    assert all(x.__class__ is int for x in json.loads(st.to_json())["played"])
    for bad in (True, 1.0, np.float32(1), np.array([1]), np.array(True), "1"):
        assert not st.is_legal(bad)
        with pytest.raises(IllegalActionError):
            st.apply_action(bad)


def test_bet_actions_as_numpy_ints():
    game, d = reach(lambda s: s.stage == Stage.BET)
    st = game.state_from_dict(d)
    a = int(legal(st)[0])
    assert A_BET <= a < A_BET + 6
    st.apply_action(np.uint8(a))
    assert st.to_dict() != d


# ------------------------------------------------------------------------ observation layout
@pytest.mark.parametrize("opts", DownforceGame.conformance_options)
def test_observation_layout_is_the_encoders(opts):
    game = DownforceGame(**opts)
    layout = game.observation_layout()
    enc = game.encoder
    assert layout == enc.layout.table()
    for name, off, _length in layout:
        if name != "action_features":
            assert getattr(enc, name) == off  # the encoder writes each block at the layout's offset
    assert sum(x[2] for x in layout) == game.observation_size
    if opts.get("action_features"):
        assert layout[-1] == ("action_features", game.action_feature_offset, NUM_ACTIONS)


def test_the_shipped_bot_card_shows_the_same_layout():
    card = json.loads((Path(__file__).parents[2] / "checkpoints" / "downforce_v0" / "card.json").read_text())
    game = DownforceGame(**card["options"])
    assert [(b["name"], b["offset"], b["length"]) for b in card["observation_layout"]] == game.observation_layout()


def test_rules_md_shows_the_observation_layout():
    text = (Path(__file__).parents[2] / "envs" / "downforce" / "RULES.md").read_text()
    section = text.split("## Observation layout", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", section, re.M)
    want = DownforceGame(action_features=True).observation_layout()
    assert [(a, int(b), int(c)) for a, b, c in rows] == want


def test_steer_actions_survive_a_reload():
    game, d = reach(steering)
    st = game.state_from_dict(d)
    a = int(legal(st)[0])
    assert A_STEER <= a < A_STEER + 3
    st.apply_action(np.array(a))
    play_all(st, np.random.default_rng(1))
    assert st.is_terminal()
