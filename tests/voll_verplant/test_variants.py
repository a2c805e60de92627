"""Variant (option) tests of Voll verplant: VV-V1..V4, and option/data validation."""

from __future__ import annotations

import json

import numpy as np
import pytest
from vv_helpers import free, game, legal, marked, num, play, random_game, reveal, setup, turn

from boardzoo.envs import ConfigError, make
from boardzoo.envs.voll_verplant import encoder as E


@pytest.mark.parametrize(
    "rounding,empty,expected",
    [("floor", 59, 29), ("ceil", 59, 30), ("floor", 58, 29), ("ceil", 58, 29), ("ceil", 1, 1), ("floor", 1, 0)],
)
def test_VV_V1_penalty_rounding(rounding, empty, expected):
    st = setup(1, opts={"penalty_rounding": rounding}, marks={0: list(range(1, 63 - empty))})
    assert st.empty[0] == empty
    assert st.penalty_points(0) == expected
    assert st.scores()[0] == st.line_points(0) - expected  # lines complete with 1 empty station score


def test_VV_V1_bad_rounding_rejected():
    with pytest.raises(ConfigError, match="penalty_rounding"):
        game(penalty_rounding="round")


def test_VV_V2_no_short_moves_forces_the_maximum():
    st = setup(1, opts={"allow_short_moves": False}, marks={0: [4]})
    reveal(st, "5")
    acts = legal(st)
    assert [a for a in acts if a // 7 == 0] == [num("A", 3)]  # run 1, 2, 3 stops at 4
    assert [a for a in acts if a // 7 == 2] == [num("C", 5)]  # full value
    assert [a for a in acts if a // 7 == 9] == [num("J", 4)]  # end of line
    st2 = setup(1, opts={"allow_short_moves": True}, marks={0: [4]})
    reveal(st2, "5")
    assert [a for a in legal(st2) if a // 7 == 0] == [num("A", k) for k in range(4)]
    # express: k = min(v, unmarked stations)
    st3 = setup(1, opts={"allow_short_moves": False}, marks={0: [60, 7]})
    reveal(st3, "x3")
    assert [a for a in legal(st3) if a // 7 == 9] == [num("J", 2)]
    # a full line still offers k = 0
    st4 = setup(2, opts={"allow_short_moves": False}, marks={0: [60, 7, 61, 62]}, scored={0: {"J": 1}}, first_gone="J")
    reveal(st4, "3")
    assert [a for a in legal(st4) if a // 7 == 9] == [num("J", 0)]


TINY_MAP = {
    "name": "Tiny",
    "lines": [
        {"name": "R", "windows": 2, "bonus_first": 3, "bonus_other": 1, "stations": [1, 2, 3, 4]},
        {"name": "S", "windows": 1, "bonus_first": 2, "bonus_other": 1, "stations": [5, 2, 6]},
    ],
    "layout": {"1": [0, 0], "2": [1, 0], "3": [2, 0], "4": [3, 0], "5": [1, -1], "6": [1, 1]},
}
TINY_DECK = {
    "name": "tiny",
    "cards": [
        {"type": "number", "value": 2, "count": 2},
        {"type": "number", "value": 3, "count": 1, "shuffle": True},
        {"type": "express", "value": 2, "count": 1},
        {"type": "transfer", "count": 1},
        {"type": "free", "count": 1},
    ],
}


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return str(p)


def test_VV_V3_map_and_deck_are_data_files(tmp_path):
    mp = _write(tmp_path, "tiny_map.json", TINY_MAP)
    dk = _write(tmp_path, "tiny_deck.json", TINY_DECK)
    g = game(map=mp, deck=dk)
    assert g.map.name == "Tiny" and g.map.num_stations == 6 and g.map.total_windows == 3
    assert g.deck.size == 6
    assert g.num_actions == 144 and g.observation_size == E.OBS_SIZE  # same spaces for every map
    st = g.new_initial_state(2)
    assert st.scores() == [-3.0, -3.0]
    st.apply_action(3)  # the deck's 5th kind: transfer
    play(st, 70 + 0, 70 + 1)
    assert st.nums[0][0] == 1 and st.nums[1][4] == 1
    st.apply_action(4)  # free ride: only this map's stations
    assert legal(st) == [free(s) for s in (2, 3, 4, 5, 6)]
    play(st, free(2), free(6))
    assert st.transfer_points(0) == 2
    # play on to the end with this map and deck
    rng = np.random.default_rng(0)
    random_game(st, rng, lambda s: s.check_invariants())
    assert st.wused == [3, 3]
    # the renderer uses the layout given in the file
    img = g.renderer()(st)
    assert img.shape[2] == 3 and img.std() > 10
    # through the env
    env = make("voll_verplant_v0", num_players=2, map=mp, deck=dk)
    env.reset(seed=1)
    assert env.observation_space("player_0")["observation"].shape == (E.OBS_SIZE,)


@pytest.mark.parametrize(
    "bad,match",
    [
        ({"lines": []}, "lines"),
        ({"lines": [{"name": "R", "windows": 0, "bonus_first": 1, "bonus_other": 1, "stations": [1]}]}, "windows"),
        ({"lines": [{"name": "R", "windows": 1, "bonus_first": 1, "bonus_other": 1, "stations": [1, 65]}]}, "ids"),
        ({"lines": [{"name": "R", "windows": 1, "bonus_first": 1, "bonus_other": 1, "stations": [1, 1]}]}, "twice"),
        ({"lines": [{"name": "R", "windows": 1, "bonus_first": 1, "stations": [1]}]}, "bonus_other"),
        ({"lines": [{"name": "R", "windows": 1, "bonus_first": 1, "bonus_other": 2, "stations": [1]}]}, "bonus_first"),
        ({"layout": {"1": [0, 0]}}, "layout"),
    ],
)
def test_VV_V3_bad_map_rejected(tmp_path, bad, match):
    data = dict(TINY_MAP, **bad)
    p = _write(tmp_path, "bad.json", data)
    with pytest.raises(ConfigError, match=match) as e:
        game(map=p)
    assert "map" in str(e.value)


@pytest.mark.parametrize(
    "bad,match",
    [
        ([{"type": "joker", "count": 1}], "type"),
        ([{"type": "number", "count": 1, "shuffle": True}], "value"),
        ([{"type": "number", "value": 7, "count": 1, "shuffle": True}], "value"),
        ([{"type": "free", "count": 2, "shuffle": True}], "window"),
        ([{"type": "transfer", "value": 2, "count": 1, "shuffle": True}], "no value"),
    ],
)
def test_VV_V3_bad_deck_rejected(tmp_path, bad, match):
    p = _write(tmp_path, "bad_deck.json", {"name": "bad", "cards": bad})
    with pytest.raises(ConfigError, match=match) as e:
        game(deck=p)
    assert "deck" in str(e.value)


def test_VV_V3_unknown_map_name_rejected():
    with pytest.raises(ConfigError, match="map='atlantis'"):
        make("voll_verplant_v0", map="atlantis")


def test_VV_V4_hidden_opponent_sheets():
    st = setup(3, marks={0: [1, 2], 1: [5, 60, 61, 62]}, nums={1: {30: 3}}, windows={"D": [20]})
    turn(st, "3", num("C", 2), num("J", 1), num("A", 0))
    shown = st.observation(0)
    g_hide = game(observe_opponent_sheets=False)
    same = dict(st.to_dict(), options=dict(g_hide.options))  # the same position under VV-V4 off
    hidden = g_hide.state_from_dict(same).observation(0)
    b1 = E.HEADER + E.BLOCK  # seat 1 seen by seat 0
    # own sheet always visible
    np.testing.assert_array_equal(shown[E.HEADER : b1], hidden[E.HEADER : b1])
    assert shown[b1 + E.P_MARK + 4] == 1.0 and hidden[b1 + E.P_MARK + 4] == 0.0  # station 5
    assert shown[b1 + E.P_NUM + 29] > 0 and hidden[b1 + E.P_NUM + 29] == 0.0  # transfer number
    assert hidden[b1 + E.P_SCORE] == 0.0 and hidden[b1 + E.P_EMPTY] == 0.0
    # completions stay public (VV-R30)
    assert hidden[b1 + E.P_FIRST + 9] == 1.0 and hidden[b1 + E.P_PRESENT] == 1.0
    assert hidden[E.H_FIRST_GONE + 9] == 1.0
    # the other seats still see their own sheet
    assert g_hide.state_from_dict(same).observation(1)[E.HEADER + E.P_MARK + 4] == 1.0
    assert marked(st, 1) == [5, 7, 30, 60, 61, 62]
