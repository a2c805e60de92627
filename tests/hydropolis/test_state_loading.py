"""Hydropolis saved states are untrusted input: each damaged dict is refused with a StateError
naming the field (and the rule, where an invariant enforces one), or loads, saves back to the same
dict and plays on legally. Also: integer-like actions, and the observation layout (encoder offsets,
RULES.md table).

Positions come from real games with chosen chance outcomes: ``start(hands={0: [...], 1: [...]},
start_card="X lead")`` deals those cards round the table, lays the start card in the centre and
picks the start player; ``lay(st, "IH lead", 8, 5, draw="IV lead")`` plays a card on (col, row)
and then draws the named card. The centre cell is (7, 5) on the default 15 x 11 table.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import numpy as np
import pytest

from boardzoo.envs import make_game
from boardzoo.envs.core.errors import StateError
from boardzoo.envs.core.game import CHANCE
from boardzoo.envs.hydropolis.data import deck_path
from boardzoo.envs.hydropolis.encoder import SEAT_FEATURES

GAME = make_game("hydropolis_v0")
TY = {GAME.deck.type_name(t): t for t in range(GAME.num_types)}
RULES_MD = Path(__file__).resolve().parents[2] / "envs" / "hydropolis" / "RULES.md"


def cell(g, col: int, row: int) -> int:
    return row * g.geo.cols + col


def start(g=GAME, hands=None, start_card="X lead", first=0):
    """A real game after setup: ``hands[seat]`` (3 names each) dealt round the table, the start
    card, start player ``first``."""
    hands = hands or {0: ["IH lead", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]}
    n = len(hands)
    st = g.new_initial_state(n)
    for i in range(3 * n):
        st.apply_action(TY[hands[i % n][i // n]])
    st.apply_action(TY[start_card])
    st.apply_action(first)
    return st


def lay(st, name: str, col: int, row: int, rot: int = 0, draw: str | None = "IV lead"):
    g = st.game
    st.apply_action(g.card_action(TY[name], rot))
    st.apply_action(g.cell_action(cell(g, col, row)))
    if draw is not None and st.current_player() == CHANCE:
        st.apply_action(TY[draw])
    return st


def saved(st) -> dict:
    return json.loads(st.to_json())


def refused(g, d, *words):
    """Loading ``d`` raises a StateError whose message contains every word (field, rule)."""
    with pytest.raises(StateError) as e:
        g.state_from_dict(d)
    for w in words:
        assert w in str(e.value), str(e.value)
    return str(e.value)


def plays_to_the_end(g, d, seed=0):
    st = g.state_from_dict(d)
    assert st.to_dict() == d
    rng = np.random.default_rng(seed)
    while not st.is_terminal():
        st.check_invariants()
        st.apply_action(
            st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
        )
    return st


# ------------------------------------------------------------------ positions that must load
def test_real_positions_load_round_trip_and_play_on():
    st = start()
    for d in (saved(GAME.new_initial_state(2)), saved(start())):
        plays_to_the_end(GAME, d)
    lay(st, "IH lead", 8, 5, draw=None)
    assert st.phase() == "draw"
    plays_to_the_end(GAME, saved(st))
    st.apply_action(TY["IV lead"])
    st.apply_action(GAME.card_action(TY["IH copper"], 0))
    assert st.phase() == "place"
    plays_to_the_end(GAME, saved(st))


# ------------------------------------------------------------------ the schema (tight ranges)
def test_issue_11_to_move_out_of_range_is_refused_not_a_crash():
    d = saved(lay(start(), "IH lead", 8, 5))
    d["to_move"] = d["num_players"]
    refused(GAME, d, "'to_move'", "0..1")


def test_schema_ranges_follow_the_rules_and_options():
    d = saved(lay(start(), "IH lead", 8, 5))
    bad = copy.deepcopy(d)
    bad["covered"][TY["IV lead"]] = 1  # HY-R10: a sound card is never covered
    refused(GAME, bad, "'covered[0]'", "0..0")
    bad = copy.deepcopy(d)
    bad["wrenches"][0] = 1  # HY-V1 is off: no wrenches at all
    refused(GAME, bad, "'wrenches[0]'", "0..0")
    bad = copy.deepcopy(d)
    bad["wrench_winner"] = 0
    refused(GAME, bad, "'wrench_winner'")
    bad = copy.deepcopy(d)
    bad["hands"][0][TY["TAP"]] = 5  # HY-R1: the deck has 4 taps
    refused(GAME, bad, "'hands[0][29]'", "0..4")
    bad = copy.deepcopy(d)
    bad["cell_rot"][0] = 2  # HY-R7: rotation 0 or 180 only
    refused(GAME, bad, "'cell_rot[0]'")
    bad = copy.deepcopy(d)
    bad["history"][0][4] = 26  # the most one play can score is 25
    refused(GAME, bad, "'history[0][4]'", "0..25")
    bad = copy.deepcopy(d)
    bad["hands"][0] = [True] + bad["hands"][0][1:]  # bool is not an int
    refused(GAME, bad, "'hands[0][0]'")


# ------------------------------------------------------------------ invariants, by rule
def test_HY_R1_every_card_exactly_once():
    d = saved(lay(start(), "IH lead", 8, 5))
    d["pile"][TY["X copper"]] -= 1  # a card vanishes from the pile
    refused(GAME, d, "hands/pile/cell_type/covered", "X copper", "HY-R1")


def test_HY_R2_setup_deals_round_the_table_from_seat_0():
    st = GAME.new_initial_state(2)
    for name in ("IH lead", "IV lead", "CV lead"):
        st.apply_action(TY[name])  # seats 0, 1, 0
    d = saved(st)
    d["hands"][0][TY["CV lead"]] -= 1  # the third card went to seat 1 instead
    d["hands"][1][TY["CV lead"]] += 1
    refused(GAME, d, "hands: sizes [1, 2]", "HY-R2")
    d = saved(st)
    d["deal_left"] = 0  # a dealt-out phase with cards left to deal
    refused(GAME, d, "deal_left", "HY-R2")
    d = saved(start())
    d["cell_type"][cell(GAME, 8, 5)] = TY["IH lead"]  # a second card before the first turn
    d["pile"][TY["IH lead"]] -= 1
    refused(GAME, d, "cell_type[", "history's plays")


def test_HY_R3_a_seat_that_passed_holds_no_playable_card():
    # start card TAP (one pipe, east): the only target needs a west pipe; IV and CV have none
    st = start(hands={0: ["IV lead", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]}, start_card="TAP")
    assert st.legal_actions() == [GAME.pass_action]
    st.apply_action(GAME.pass_action)
    assert st.phase() == "draw"
    plays_to_the_end(GAME, saved(st))
    d = saved(st)
    d["hands"][0][TY["IV lead"]] -= 1  # swap an IV for an IH from the pile
    d["pile"][TY["IV lead"]] += 1
    d["hands"][0][TY["IH lead"]] += 1
    d["pile"][TY["IH lead"]] -= 1
    refused(GAME, d, "hands: seat 0 passed", "HY-R3")


def test_HY_R4_a_turn_ends_with_a_draw():
    st = lay(start(), "IH lead", 8, 5, draw=None)
    d = saved(st)
    d["phase"] = "play"  # skip the draw
    d["to_move"] = 1
    refused(GAME, d, "pile:", "HY-R4")
    d = saved(st)
    d["pile"][TY["IV lead"]] -= 1  # drawn, but still in the draw phase
    d["hands"][0][TY["IV lead"]] += 1
    refused(GAME, d, "pile: 80 cards", "leave 81", "HY-R4")
    d = saved(st)
    d["hands"][0][TY["IV lead"]] -= 1  # a card moved from seat 0's hand to seat 1's
    d["hands"][1][TY["IV lead"]] += 1
    refused(GAME, d, "hands: sizes [1, 4]", "give [2, 3]", "HY-R4")


def test_HY_R7_to_R14_every_play_of_the_history_was_legal():
    d = saved(lay(start(), "IH lead", 8, 5))
    far = cell(GAME, 0, 0)  # HY-R8: not next to any card
    d["cell_type"][cell(GAME, 8, 5)], d["cell_type"][far] = -1, TY["IH lead"]
    d["history"][0][2] = far
    refused(GAME, d, "history[0]", "IH lead 0deg at c0r0 is not a legal play", "HY-R7 to HY-R14")
    # a bend (pipes S and E) north of the X start card; turned 180 degrees its S side shows no pipe
    st = start(hands={0: ["LE lead", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]})
    d = saved(lay(st, "LE lead", 7, 4))
    d["cell_rot"][cell(GAME, 7, 4)] = 1
    d["history"][0][3] = 1
    refused(GAME, d, "history[0]: LE lead 180deg at c7r4 is not a legal play", "HY-R7 to HY-R14")


def test_HY_R16_to_R19_points_are_the_rules_points():
    d = saved(lay(start(), "IH lead", 8, 5))
    assert d["history"][0] == [0, TY["IH lead"], cell(GAME, 8, 5), 0, 4]  # 1 neighbour + lead-lead 3
    d["history"][0][4] = 9
    d["scores"][0] = 9
    refused(GAME, d, "history[0]: the play scored 9, the rules give 4", "HY-R16 to HY-R19")
    d = saved(lay(start(), "IH lead", 8, 5))
    d["scores"][0] = 5
    refused(GAME, d, "scores: [5, 0]", "HY-R16 to HY-R20")


def test_HY_R20_a_pass_is_recorded_without_cell_or_points():
    st = start(hands={0: ["IV lead", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]}, start_card="TAP")
    st.apply_action(GAME.pass_action)
    d = saved(st)
    d["history"][0][4] = 1
    refused(GAME, d, "history[0]: a pass", "HY-R20")


def test_HY_R21_pass_counter_and_turn_order():
    d = saved(lay(start(), "IH lead", 8, 5))
    d["passes"] = 1  # the pile is not empty: passes do not count
    refused(GAME, d, "passes: 1", "HY-R21")
    d = saved(lay(start(), "IH lead", 8, 5))
    d["to_move"] = 0  # seat 0 just played: seat 1 is next
    refused(GAME, d, "to_move: seat 0", "seat 1")
    st = lay(lay(start(), "IH lead", 8, 5), "IH copper", 9, 5)
    d = saved(st)
    d["history"][1][0] = 0  # seat 0 twice in a row
    refused(GAME, d, "history[1]: seat 0 plays after seat 0")


def _tiny_game(tmp_path):
    """The default deck with one copy of each of the 31 card types, so random games soon empty the
    draw pile and end by passes."""
    d = json.loads(deck_path("waterworks_88").read_text())
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(dict(d, name="tiny", types=[dict(t, count=1) for t in d["types"]])))
    return make_game("hydropolis_v0", deck=str(p))


def test_HY_R6_R21_empty_pile_play_on_then_all_pass(tmp_path):
    g = _tiny_game(tmp_path)
    for seed in range(50):  # a game that ends by passes (not HY-R26)
        rng = np.random.default_rng(seed)
        st, empty, seen = g.new_initial_state(2), None, set()
        while not st.is_terminal():
            if empty is None and st.pile_size == 0 and st.phase() == "play":
                seen.add(len(st.history))
                if len(seen) == 2:  # HY-R6: a turn made with the pile empty
                    empty = st.clone()
            st.apply_action(
                st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
            )
        if st.history[-1][1] < 0 and empty is not None:
            break
    assert st.passes == 2 and st.history[-1][1] == st.history[-2][1] == -1
    plays_to_the_end(g, saved(st))
    plays_to_the_end(g, saved(empty))
    d = saved(st)
    d["passes"] = 1
    refused(g, d, "passes: 1", "2 passes made with an empty draw pile", "HY-R21")
    d = saved(st)
    d["phase"] = "play"
    d["to_move"] = 1 - d["to_move"]
    refused(g, d, "phase: 'play', but the last turn ended the game", "HY-R21")
    d = saved(empty)
    d["phase"] = "draw"  # nothing left to draw
    d["to_move"] = d["history"][-1][0]
    refused(g, d, "phase: 'draw', but the draw pile was empty", "HY-R6")


def test_HY_R22_target_score_ends_the_game_at_once():
    g = make_game("hydropolis_v0", target_score=4)
    st = lay(start(g), "IH lead", 8, 5)
    assert st.is_terminal()
    plays_to_the_end(g, saved(st))
    d = saved(st)
    d["phase"] = "draw"
    refused(g, d, "phase: 'draw', but the last turn ended the game", "HY-R22")


def test_HY_R26_a_closed_network_ends_the_game():
    # start card TAP (pipe east); a TAP turned 180 degrees (pipe west) closes the network
    st = start(hands={0: ["TAP", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]}, start_card="TAP")
    lay(st, "TAP", 8, 5, rot=1)
    assert st.is_terminal()
    d = saved(st)
    d["phase"] = "play"
    d["to_move"] = 1
    refused(GAME, d, "phase: 'play'", "HY-R26")


def test_HY_R9_covered_cards_are_the_ones_overlays_covered():
    st = start(
        hands={0: ["IH lead", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]},
        start_card="X lead leaky",
    )
    lay(st, "IH lead", 8, 5)
    d = saved(st)
    d["covered"][TY["IH lead leaky"]] = 1  # a leaky card covered, but no overlay covered it
    d["pile"][TY["IH lead leaky"]] -= 1
    refused(GAME, d, "covered:", "HY-R9")
    # seat 1 covers the leaky start card with its IH copper (its E pipe meets the IH lead's W pipe)
    st2 = lay(st, "IH copper", 7, 5)
    assert st2.covered[TY["X lead leaky"]] == 1 and st2.history[1][4] == 1 + 2 + 5
    plays_to_the_end(GAME, saved(st2))
    d = saved(st2)
    d["covered"][TY["X lead leaky"]] = 0  # where did the start card go?
    d["pile"][TY["X lead leaky"]] += 1
    refused(GAME, d, "covered:", "HY-R9")


def test_HY_V1_wrench_winner_only_at_three_wrenches():
    g = make_game("hydropolis_v0", wrench=True)
    d = saved(lay(start(g), "IH lead", 8, 5))
    d["wrench_winner"] = 0
    refused(g, d, "wrench_winner: 0, expected -1", "HY-V1")
    d = saved(lay(start(g), "IH lead", 8, 5))
    d["wrenches"][0] = 1  # 4 points earn no wrench
    refused(g, d, "wrenches: [1, 0]", "HY-V1")


def test_the_second_step_needs_a_held_card_with_a_cell():
    st = start()
    st.apply_action(GAME.card_action(TY["IH lead"], 0))
    d = saved(st)
    d["selected"] = GAME.card_action(TY["IH copper"], 0)  # seat 1's card
    refused(GAME, d, "selected: seat 0 does not hold that card")
    d = saved(st)
    d["selected"] = GAME.card_action(TY["IV lead"], 0)  # another held card that fits (N of the X)
    plays_to_the_end(GAME, d)
    d = saved(start())
    d["selected"] = 0
    refused(GAME, d, "selected: a selected card in phase 'play'")


# ------------------------------------------------------------------ actions
def test_integer_like_actions_and_chance_outcomes():
    st = GAME.new_initial_state(2)
    st.apply_action(np.int64(TY["IH lead"]))  # a chance outcome as a numpy int
    st.apply_action(np.array(TY["IV lead"]))  # ... and as a 0-d array
    assert not st.is_legal(True) and not st.is_legal(np.array([0])) and not st.is_legal(1.0)
    for name in ("CV lead", "IH copper", "IV copper", "CH lead", "X lead"):
        st.apply_action(TY[name])
    st.apply_action(np.int32(0))  # the start player
    assert st.to_move.__class__ is int
    st.apply_action(np.array(GAME.card_action(TY["IH lead"], 0)))
    st.apply_action(np.uint16(GAME.cell_action(cell(GAME, 8, 5))))
    st.apply_action(TY["IV lead"])
    json.dumps(st.to_dict())  # plain ints throughout
    st.check_invariants()
    assert st.history[0] == (0, TY["IH lead"], cell(GAME, 8, 5), 0, 4)


# ------------------------------------------------------------------ observation layout
@pytest.mark.parametrize("opts", [{}, {"action_features": True}, {"table_size": "7x5", "action_features": True}])
def test_observation_layout_is_the_encoders(opts):
    g = make_game("hydropolis_v0", **opts)
    lay_ = {name: (off, k) for name, off, k in g.observation_layout()}
    T = g.num_types
    assert lay_["table"] == (0, g.num_cells * 12)
    assert lay_["own_hand"][1] == T and lay_["unseen"][1] == T and lay_["selected_card"][1] == 2 * T
    assert lay_["seats"][1] == g.max_players * SEAT_FEATURES and lay_["to_move"][1] == g.max_players
    if opts.get("action_features"):
        assert lay_["action_features"] == (g.action_feature_offset, g.num_actions)
    else:
        assert "action_features" not in lay_
    # the blocks hold what their names say
    st = start(g, hands={0: ["IH lead", "IV lead", "CV lead"], 1: ["IH copper", "IV copper", "CH lead"]}, first=1)
    st.apply_action(g.card_action(TY["IH copper"], 0))
    o = st.observation(1)
    blk = {name: o[off : off + k] for name, (off, k) in lay_.items()}
    assert blk["own_hand"][TY["IH copper"]] == 0.25 and blk["own_hand"].sum() == 0.75
    assert np.flatnonzero(blk["selected_card"]).tolist() == [g.card_action(TY["IH copper"], 0)]
    assert blk["to_move"].tolist() == [1, 0, 0, 0, 0, 0]
    assert blk["seats"][0] == 1 and blk["seats"][SEAT_FEATURES] == 1 and blk["seats"][2 * SEAT_FEATURES] == 0
    assert blk["pile_size"][0] == pytest.approx((88 - 7) / 88)
    c = cell(g, g.geo.cols // 2, g.geo.rows // 2)
    assert blk["table"][c * 12] == 1  # the start card: occupied
    if opts.get("action_features"):
        assert blk["action_features"].max() > 0


def test_rules_md_shows_the_same_layout():
    text = RULES_MD.read_text()
    sec = text.split("### Observation layout", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", sec, flags=re.M)
    g = make_game("hydropolis_v0", action_features=True)
    want = [(name, off, k) for name, off, k in g.observation_layout()]
    assert [(name, int(off), int(k)) for name, off, k in rows] == want
