"""Saved states of Get on Board are untrusted input (DESIGN.md, issue 11): the declared schema
(``GetOnBoardGame.state_schema``) refuses wrong types, ranges and sizes, and the invariants
(``GetOnBoardState._check_fields`` / ``check_invariants``) refuse positions the rules cannot produce,
each with a StateError naming the field; a state that loads saves back to the same dict and plays
legally to the end. Also: integer-like actions on the fast paths, and the observation layout.

Positions come from the readable builders of gob_helpers.py; each test damages one field.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest
from gob_helpers import (
    FIVE_GRANDMAS_FROM_23,
    LOOP_FROM_97,
    P_DEPART,
    P_END,
    P_PLACE,
    P_REVEAL,
    finish_round,
    force_route,
    go,
    legal_dirs,
    start,
)

from boardzoo.envs import IllegalActionError, make_game
from boardzoo.envs.core.errors import StateError
from boardzoo.envs.get_on_board.rules import C0, ELIM, GR, TR, TZ

RULES_MD = Path(__file__).resolve().parents[2] / "envs" / "get_on_board" / "RULES.md"


def saved(st) -> dict:
    return json.loads(st.to_json())


def refused(game, d: dict, field: str) -> str:
    """``d`` is refused with a StateError naming ``field``; returns the message."""
    with pytest.raises(StateError, match=re.escape(f"state field '{field}'")) as e:
        game.state_from_dict(d)
    return str(e.value)


def play_out(st, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    while not st.is_terminal():
        st.check_invariants()
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    st.check_invariants()


def placing():
    """Two players, round 1, ticket 5 (sheet 1: S3, sheet 2: S1): P0 has placed 23 -> 33 and
    places its second S3 marker."""
    st = start(n=2)
    st.apply_action(5)
    return go(st, "S")


# ---------------------------------------------------------------- round trips
def test_saved_body_holds_only_the_games_fields():
    st = placing()
    body = st._to_dict()
    assert not {"env_id", "version", "options", "num_players"} & set(body)
    d = saved(st)
    assert d["env_id"] == "get_on_board_v0" and d["num_players"] == 2
    back = st.game.state_from_dict(d)
    assert back.to_dict() == d
    for seat in range(2):  # a loaded state encodes from scratch what the played one kept up to date
        assert np.array_equal(back.observation(seat), st.observation(seat))


@pytest.mark.parametrize(
    "opts,n",
    [({}, 2), ({}, 3), ({"green_light_optional": True, "row_overflow": False}, 2), ({"solo_practice": True}, 1)],
)
def test_positions_of_random_games_load_save_back_and_play_to_the_end(opts, n):
    g = make_game("get_on_board_v0", **opts)
    rng = np.random.default_rng(n)
    st = g.new_initial_state(n)
    loaded = step = 0
    while not st.is_terminal():
        step += 1
        if step % 5 == 0:
            d = saved(st)
            back = g.state_from_dict(d)
            assert back.to_dict() == d
            play_out(back, seed=loaded)
            loaded += 1
        st.apply_action(
            st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
        )
    assert g.state_from_dict(saved(st)).is_terminal() and loaded > 3


# ---------------------------------------------------------------- schema: types, ranges, sizes
def test_sizes_are_checked_before_anything_is_built():
    st = placing()
    g = st.game
    t = time.perf_counter()
    refused(g, dict(saved(st), num_players=100000), "num_players")  # issue 11: was 3.8 GB, then MemoryError
    refused(g, dict(saved(st), log=[0] * 1_000_000), "log")
    d = saved(st)
    d["route"][0] = [0] * 1_000_000
    refused(g, d, "route[0]")
    assert time.perf_counter() - t < 2.0


def test_schema_ranges_follow_the_rules():
    st = placing()
    g = st.game
    d = saved(st)
    d["sheets"][0][GR] = 9  # GB-R24: 8 grandma boxes
    assert "0..8" in refused(g, d, f"sheets[0][{GR}]")
    d = saved(st)
    d["sheets"][0][TZ] = 6  # GB-R15: 5 turn-zone boxes
    assert "0..5" in refused(g, d, f"sheets[0][{TZ}]")
    d = saved(st)
    d["sheets"][0][TR] = 20  # GB-R21: 19 traffic boxes
    assert "0..19" in refused(g, d, f"sheets[0][{TR}]")
    d = saved(st)
    d["used"] = [5, 5]  # GB-R6: a new ticket every round
    assert "distinct" in refused(g, d, "used")
    d = saved(st)
    d["marks"][0] = 4  # two players: seat bits 1 and 2
    refused(g, d, "marks[0]")
    d = saved(st)
    d["extra"] = 1  # a bool, not an int
    refused(g, d, "extra")
    d = saved(st)
    d["rroads"][0] = d["rroads"][0] * 2  # GB-R16: never an own road twice
    refused(g, d, "rroads[0]")


# ---------------------------------------------------------------- invariants: setup
def test_GB_R2_sheet_types_and_personal_objectives_without_repetition():
    st = start(n=2)
    g = st.game
    d = saved(st)
    d["sheet_type"] = [2, 2]
    assert "GB-R2" in refused(g, d, "sheet_type")
    d = saved(st)
    d["personal"] = [3, 3]
    assert "GB-R2" in refused(g, d, "personal")


def test_GB_R2_GB_R3_deal_gives_exactly_what_the_schedule_has_dealt():
    g = make_game("get_on_board_v0")
    st = g.new_initial_state(2)
    for o in (1, 2, 0):  # sheet types of P0 and P1, P0's personal objective
        st.apply_action(o)
    d = saved(st)
    d["personal"][1] = 1  # not dealt yet
    refused(g, d, "personal[1]")
    d = saved(st)
    d["common"] = [0]  # the common objectives come after the personal ones
    assert "GB-R3" in refused(g, d, "common")
    d = saved(st)
    d["tickets"][0] = [1]
    refused(g, d, "tickets[0]")


def test_GB_R4_departure_tickets_distinct_and_chosen_in_seat_order():
    st = start(n=2)
    g = st.game
    d = saved(st)
    d["tickets"] = [[1, 2], [1, 2]]
    assert "GB-R4" in refused(g, d, "tickets")
    d = saved(st)
    d["choice"][0] = 1  # P0 chose ticket 2 (#2 = 36), but its pawn stands on #1 (23)
    assert "GB-R4" in refused(g, d, "route[0]")
    st = g.new_initial_state(2)
    for o in (1, 2, 0, 1, 0, 1, 1, 2, 3, 4, 0):
        st.apply_action(o)
    assert st.ph == P_DEPART
    st.apply_action(4)  # P0 chooses; P1 has not yet
    d = saved(st)
    d["choice"][1] = 0
    refused(g, d, "choice[1]")
    d = saved(st)
    d["cur"] = 1 - d["cur"]
    refused(g, d, "choice[0]")


# ---------------------------------------------------------------- invariants: routes and board
def test_GB_R10_markers_join_the_route_and_the_board_agrees():
    st = force_route(start(n=2), 0, [23, 33, 43])
    g = st.game
    d = saved(st)
    d["rroads"][0][1] = d["rroads"][0][0] + 1
    assert "GB-R10" in refused(g, d, "rroads[0][1]")
    d = saved(st)
    d["route"][0][-1] = g.map.idx[44]
    refused(g, d, "rroads[0][1]")
    d = saved(st)
    d["marks"][d["rroads"][0][0]] |= 2  # a P1 marker that is not on P1's route
    refused(g, d, "marks")
    d = saved(st)
    d["log"] = d["log"][::-1]
    refused(g, d, "log")


def test_GB_R19_GB_R20_revisit_means_elimination_and_elimination_needs_a_reason():
    st = force_route(start(n=3), 2, LOOP_FROM_97)
    g = st.game
    assert st.elim[2] and st.sheets[2][ELIM] == 1
    d = saved(st)
    d["elim"][2] = False
    d["sheets"][2][ELIM] = 0
    assert "GB-R19" in refused(g, d, "route[2]")
    d = saved(st)
    d["sheets"][2][ELIM] = 0
    refused(g, d, f"sheets[2][{ELIM}]")
    d = saved(start(n=3))
    d["elim"][1] = True
    d["sheets"][1][ELIM] = 1  # P1 stands on its departure: nothing eliminated it
    assert "GB-R17" in refused(g, d, "elim[1]")


def test_GB_R21_traffic_replays_from_the_board_order():
    st = force_route(start(n=2), 1, [61, 51, 41, 31, 21, 22, 23, 24])
    st = force_route(st, 0, [23, 24])  # on P1's marker: one traffic box
    assert st.sheets[0][TR] == 1
    d = saved(st)
    d["sheets"][0][TR] = 2
    assert "GB-R21" in refused(st.game, d, f"sheets[0][{TR}]")
    d = saved(st)  # P0's marker first on the board: then P1 would pay, not P0
    d["log"] = d["log"][-1:] + d["log"][:-1]
    refused(st.game, d, f"sheets[0][{TR}]")


def test_GB_R24_to_GB_R34_sheet_replays_from_the_route():
    st = force_route(start(n=2), 0, [23, 33])  # one grandma
    d = saved(st)
    d["sheets"][0][GR] = 5
    assert "grandmas" in refused(st.game, d, f"sheets[0][{GR}]")


# ---------------------------------------------------------------- invariants: turn order and the turn
def test_GB_R8_turn_order_clockwise_from_the_inspector():
    st = start(n=3, inspector=1)
    st.apply_action(5)
    assert st.order == [1, 2, 0] and st.cur == 1
    g = st.game
    d = saved(st)
    d["order"] = [1, 0, 2]
    assert "GB-R8" in refused(g, d, "order")
    d = saved(st)
    d["cur"] = 2
    refused(g, d, "cur")
    d = saved(st)
    d["opos"] = 1
    refused(g, d, "cur")


def test_GB_R9_the_inspector_is_never_an_eliminated_seat_between_rounds():
    st = force_route(start(n=3, inspector=1), 2, LOOP_FROM_97)
    d = saved(st)
    d["inspector"] = 2
    assert "GB-R9" in refused(st.game, d, "inspector")


def test_GB_R13_previous_direction_is_that_of_the_last_marker():
    st = placing()  # P0 went South
    assert st.k == 1 and st.prev == 2
    d = saved(st)
    d["prev"] = 1
    assert "GB-R13" in refused(st.game, d, "prev")
    d = saved(st)
    d["k"] = 2  # two markers of this turn, but only one on the route
    refused(st.game, d, "k")


def test_GB_R22_green_light_extra_only_after_a_green_light():
    st = start()
    st.apply_action(1)  # S2
    go(st, "EE")  # ends on the green light 25
    assert st.phase() == "green_light"
    d = saved(st)
    assert st.game.state_from_dict(d).to_dict() == d
    s = start()
    s.apply_action(1)
    go(s, "S")  # first marker of S2, onto 33 (no green light)
    d = saved(s)
    d["k"], d["extra"] = 2, True
    assert "GB-R22" in refused(s.game, d, "extra")


def test_GB_R11_GB_R18_a_placing_seat_has_a_legal_marker():
    st = force_route(start(n=2), 0, [23, 22, 32])
    st.apply_action(5)  # S3
    go(st, "E")  # 32 -> 33; straight on would be 33-34, which does not exist
    assert st.cur == 0 and legal_dirs(st) == "S"  # a turn (one turn-zone box); North would loop to 23
    d = saved(st)
    d["sheets"][0][TZ] = 4
    assert legal_dirs(st.game.state_from_dict(d)) == "S"
    d["sheets"][0][TZ] = 5  # every marker would need a sixth box: the turn would have ended (GB-R18)
    assert "GB-R11" in refused(st.game, d, "cur")


# ---------------------------------------------------------------- invariants: objectives and the end
def test_GB_R35_GB_R36_common_objectives_scored_at_round_end():
    st = force_route(start(n=2, commons=(0, 1)), 0, FIVE_GRANDMAS_FROM_23)
    st.apply_action(4)
    finish_round(st)
    assert st.ph == P_REVEAL and st.sheets[0][C0] == 10 and st.claimed[0]
    g = st.game
    d = saved(st)
    d["sheets"][0][C0], d["claimed"][0] = 0, False  # met at the round end but not scored
    assert "GB-R35" in refused(g, d, f"sheets[0][{C0}]")
    d = saved(st)
    d["sheets"][0][C0] = 6  # the first to meet it score 10
    assert "GB-R36" in refused(g, d, "claimed[0]")
    d = saved(st)
    d["sheets"][0][C0] = 7
    assert "GB-R36" in refused(g, d, f"sheets[0][{C0}]")
    d = saved(st)
    d["claimed"][1] = True
    refused(g, d, "claimed[1]")
    d = saved(st)
    d["sheets"][1][C0 + 1] = 10  # P1 has no students
    refused(g, d, f"sheets[1][{C0 + 1}]")


def test_GB_R38_game_ends_after_twelve_rounds_or_when_all_are_eliminated():
    st = placing()
    d = saved(st)
    d.update(ph=int(P_END), cur=-1, order=[], opos=0, k=0, prev=-1)
    assert "GB-R38" in refused(st.game, d, "used")
    d["used"] = list(range(1, 13))
    end = st.game.state_from_dict(d)
    assert end.is_terminal() and end.to_dict() == d
    d = saved(start(n=2))
    d["used"] = list(range(1, 13))  # reveal with no ticket left
    assert "GB-R38" in refused(st.game, d, "used")


def test_phase_fields_outside_a_turn_are_at_rest():
    st = start(n=2)
    assert st.ph == P_REVEAL
    d = saved(st)
    d["k"] = 1
    refused(st.game, d, "k")
    d = saved(st)
    d["order"] = [0, 1]
    refused(st.game, d, "order")
    d = saved(st)
    d["cur"] = 0
    refused(st.game, d, "cur")


# ---------------------------------------------------------------- integer-like actions on the fast paths
def test_fast_paths_accept_integer_like_actions_like_the_base_class():
    st = placing()
    legal = int(np.flatnonzero(st.legal_mask())[0])
    for act in (np.int64(legal), np.uint8(legal), np.array(legal), np.array(legal, dtype=np.int16)):
        assert st.is_legal(act)
        s = st.clone()
        s.apply_action(act)
        ref = st.clone()
        ref.apply_action(legal)
        assert s.to_dict() == ref.to_dict()
    for bad in (True, float(legal), np.float32(legal), np.array([legal]), np.array(True), "0", None):
        assert not st.is_legal(bad)
        before = st.to_dict()
        with pytest.raises(IllegalActionError):
            st.apply_action(bad)
        assert st.to_dict() == before
    # chance outcomes given as numpy ints are stored as plain ints (the saved state stays JSON)
    g = make_game("get_on_board_v0")
    s = g.new_initial_state(2)
    s.apply_action(np.int64(3))
    assert s.sheet_type[0].__class__ is int and json.loads(s.to_json())["sheet_type"][0] == 3
    assert not s.is_legal(np.int64(3)) and not s.is_legal(True)


# ---------------------------------------------------------------- observation layout
def _rules_md_table() -> list[tuple[str, int, int]]:
    rows = re.findall(r"^\| `([^`]+)` \| (\d+) \| (\d+) \|", RULES_MD.read_text(), flags=re.M)
    return [(name, int(off), int(length)) for name, off, length in rows]


def test_observation_layout_matches_rules_md_and_covers_the_observation():
    for opts in ({}, {"solo_practice": True}, {"green_light_optional": True, "mask_elimination_moves": False}):
        g = make_game("get_on_board_v0", **opts)
        layout = g.observation_layout()
        assert layout == _rules_md_table()
        at = 0
        for _, off, length in layout:
            assert off == at and length > 0
            at += length
        assert at == g.observation_size


def test_observation_layout_names_what_the_encoder_writes():
    st = force_route(start(n=3), 1, [61, 62])  # P1 has a grandma
    st.apply_action(5)  # ticket 5: P0 (sheet 1) places S3
    go(st, "S")
    g = st.game
    blocks = {name: (off, length) for name, off, length in g.observation_layout()}

    def block(obs, name):
        off, length = blocks[name]
        return obs[off : off + length]

    o = st.observation(0)
    assert np.flatnonzero(block(o, "step.phase")).tolist() == [P_PLACE]
    assert np.flatnonzero(block(o, "step.current_player")).tolist() == [0]
    assert np.flatnonzero(block(o, "step.marker_index")).tolist() == [1]
    assert np.flatnonzero(block(o, "step.previous_direction")).tolist() == [1 + 2]  # none, N, E, S, W
    assert np.flatnonzero(block(o, "round.number")).tolist() == [1]
    assert np.flatnonzero(block(o, "round.current_ticket")).tolist() == [5 - 1]
    assert np.flatnonzero(block(o, "route.end.p0")).tolist() == [g.map.idx[33]]
    assert np.flatnonzero(block(o, "own.departure_tickets")).tolist() == [0, 1]  # tickets 1 and 2
    assert np.flatnonzero(block(o, "own.departure_choice")).tolist() == [0]
    assert block(o, "personal_objective").sum() == 3
    assert block(o, "sheet_type.p1")[2 - 1] == 1  # P1 (next clockwise) has sheet type 2
    assert block(o, "running_total.p1")[0] == np.float32(0.01)  # its grandma
    o2 = st.observation(2)  # from P2's seat, P0 is the next clockwise
    assert np.flatnonzero(block(o2, "route.end.p1")).tolist() == [g.map.idx[33]]
    assert np.flatnonzero(block(o2, "step.current_player")).tolist() == [1]
    assert not block(o2, "step.marker_index").any()  # only the placing seat sees its sub-step
