"""Loading saved Hidden Castle states (untrusted input): the declared schema and the invariants,
each refusal a StateError naming the field (and the rule it enforces), built from readable positions
(``hc_setup.build``). Hugo-side rooms: 1@2, 2@3, 3@8, 4 armory@13, 5@18, 6 ballroom@22, 7@27,
8 banqueting@32, 9@36; Midnight-Party side: 11 rooms, steps -10..-3 (one group each) and -2.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hc_setup import BASE, MIDNIGHT, build, mv, place

from boardzoo.envs.core.errors import StateError
from boardzoo.envs.hidden_castle.rules import END, PHASES, REPLACE, SETUP

RULES_MD = Path(__file__).resolve().parents[2] / "envs" / "hidden_castle" / "RULES.md"


def saved(st) -> dict:
    return json.loads(st.to_json())


def load(st_or_dict, game=None):
    d = st_or_dict if isinstance(st_or_dict, dict) else saved(st_or_dict)
    game = game or (MIDNIGHT if d["options"]["midnight_party"] else BASE)
    return game.state_from_dict(d)


def refused(d: dict, *words: str) -> str:
    """Loading ``d`` raises a StateError whose message contains every one of ``words``."""
    with pytest.raises(StateError) as e:
        load(d)
    msg = str(e.value)
    for w in words:
        assert w in msg, f"{w!r} not in {msg!r}"
    return msg


def base_pos(**kw):
    """Two players on the Hugo side, Hugo on g20 at 24:00, red to move a 4."""
    guests = {0: ["g5", "g6", "r1", "g9", "g10", "g11"], 1: ["g12", "g14", "s+10", "g15", "g16", "g17"]}
    return build(guests, hugo=20, clock=1, roll=4, spooky=[10, 20], **kw)


def midnight_pos(**kw):
    guests = {0: ["g5", "r1", "r3", "s-10", "g8", "r4"], 1: ["s-9", "g12", "r5", "r6", "r7", "g30"]}
    return build(guests, variant=True, hugo=20, roll=2, **kw)


# ------------------------------------------------------------------ valid positions load
@pytest.mark.parametrize("make", [base_pos, midnight_pos])
def test_readable_positions_load_and_round_trip(make):
    st = make()
    st.check_invariants()
    back = load(st)
    assert back.to_dict() == st.to_dict()
    np.testing.assert_array_equal(back.legal_mask(), st.legal_mask())
    for p in range(st.num_players):
        np.testing.assert_array_equal(back.observation(p), st.observation(p))


def test_saved_fields_are_the_games_own():
    d = base_pos()._to_dict()
    assert not {"env_id", "version", "options", "num_players"} & set(d)
    assert set(d) == set(BASE.state_schema(2).fields)


def test_integer_like_chance_outcomes_are_stored_as_ints():
    st = BASE.new_initial_state(3)
    st.apply_action(np.array(2))  # the start player as a 0-d array
    assert st.start == 2 and st.start.__class__ is int
    for a in (np.int64(4), np.array(5)):  # setup placements
        st.apply_action(a)
    json.dumps(st.to_dict())
    assert load(st).to_dict() == st.to_dict()
    assert not st.is_legal(True) and not st.is_legal(1.0)


# ------------------------------------------------------------------ schema (ranges per count/side)
def test_schema_ranges_follow_players_and_side():
    d = saved(base_pos())
    refused(dict(d, turn=2), "'turn'", "0..1")
    refused(dict(d, loc=d["loc"][:-1]), "'loc'", "12 items")
    room10 = 40 + 10 - 1  # room 10 exists only on the Midnight-Party side
    refused(dict(d, loc=[room10] + d["loc"][1:]), "'loc[0]'")
    refused(dict(d, phase_id=int(REPLACE)), "'phase_id'")  # no between-rounds phase in the base game
    refused(dict(d, queue=[0]), "'queue'")
    refused(dict(d, roll=3), "'roll'")  # the die has 1, 2, 4, 5 and Hugo
    refused(dict(d, spooky=[10, 45 + 6 * 10 + 1]), "'spooky[1]'")
    refused(dict(d, round=2), "'round'")
    refused(dict(d, cap_cnt=[True, 1]), "'cap_cnt[0]'")
    m = saved(midnight_pos())
    refused(dict(m, clock=1), "'clock'")
    refused(dict(m, cap_pts=[0, 2]), "'cap_pts[1]'")  # the variant keeps no scoring events
    refused(dict(m, round=4), "'round'")


# ------------------------------------------------------------------ positions (base game)
def test_HC_R16_one_guest_per_room():
    d = saved(base_pos())
    d["loc"][1] = d["loc"][2]  # two of red's guests in room 1
    refused(d, "loc[2]", "room 1 already holds", "HC-R16")


def test_HC_R9_R23_no_guest_on_hugos_space():
    d = saved(base_pos())
    d["loc"][0] = 20  # Hugo stands on g20
    refused(d, "loc:", "Hugo's space g20", "HC-R23")


def test_HC_R12_rooms_closed_while_hugo_in_the_cellar():
    st = build({0: ["g5", "g6", "r1", "g9", "g10", "g11"], 1: ["g12"] * 6}, hugo="c4", roll=2)
    assert st.clock == 0
    refused(saved(st), "loc[2]", "room 1", "HC-R12")


def test_HC_R20_hugo_climbs_three_steps_per_move():
    st = build({0: ["g5"] * 6, 1: ["g12"] * 6}, hugo="c4", roll=2)
    load(st)  # -10, -7, -4: reachable
    d = saved(st)
    d["hugo"] = -5
    refused(d, "hugo", "HC-R20")


def test_HC_R22_clock_starts_with_hugos_first_step_onto_space_0():
    st = build({0: ["g5"] * 6, 1: ["g12"] * 6}, hugo="c4", roll=2)
    refused(dict(saved(st), clock=1), "clock", "HC-R22")
    refused(dict(saved(base_pos()), clock=0), "clock", "HC-R22")


def test_HC_R27_hugo_stops_on_space_0_at_five():
    d = saved(base_pos())
    refused(dict(d, clock=6, phase_id=int(END)), "hugo", "HC-R27")


def test_HC_R28_phase_agrees_with_the_end_condition():
    d = saved(base_pos())
    d["spooky"][1] += 26  # 46: the game is over
    d["plus_pts"][1] += 26
    refused(d, "phase_id", "HC-R28")
    refused(dict(saved(base_pos()), phase_id=int(END)), "phase_id", "HC-R28")


def test_HC_R19_R24_trail_equals_its_scoring_events():
    d = saved(base_pos())
    d["spooky"][0] = 11
    refused(d, "spooky[0]", "HC-R19/R24")
    d = saved(base_pos())
    assert (d["cap_cnt"][1], d["cap_pts"][1], d["plus_pts"][1]) == (1, 10, 0)
    d["cap_pts"][1] = 11  # one capture is worth 2..10
    d["spooky"][1] = 21
    refused(d, "cap_pts[1]", "HC-R24")
    d = saved(base_pos())
    d["cap_cnt"][1] = d["cap_pts"][1] = 0  # blue has a guest on +10 but was never captured
    d["plus_pts"][1] = 10
    refused(d, "cap_cnt[1]")


def test_HC_R7_move_phase_needs_a_rolled_number():
    refused(dict(saved(base_pos()), roll=0), "roll", "HC-R7")
    d = saved(base_pos())
    d["phase_id"] = PHASES.index("roll")  # the roll is cleared when the turn passes
    refused(d, "roll", "phase roll")


def test_HC_R4_R30_setup_places_slots_in_order():
    st = BASE.new_initial_state(2)
    st.apply_action(1)  # blue starts
    for g in (10, 20, 11):  # blue slot 0, red slot 0, blue slot 1
        st.apply_action(g)
    assert st.phase_id == SETUP and load(st).to_dict() == st.to_dict()
    d = saved(st)
    d["loc"][1], d["loc"][0] = d["loc"][0], d["loc"][1]  # red's slot 1 placed instead of slot 0
    refused(d, "loc[0]", "HC-R30")
    d = saved(st)
    d["loc"][0] = 10  # red's guest on blue's space
    refused(d, "loc:", "HC-R4")
    refused(dict(saved(st), placed=4), "loc[1]", "HC-R30")
    refused(dict(saved(st), turn=0), "turn", "HC-R3")


def test_start_phase_is_a_new_game():
    d = saved(BASE.new_initial_state(2))
    load(d)
    refused(dict(d, start=1), "start", "HC-R3")
    refused(dict(d, hugo=-7), "hugo", "HC-R2")


# ------------------------------------------------------------------ Midnight Party
def test_HC_V10_a_finished_round_cannot_be_saved_as_running():
    # nobody on the gallery: a Hugo roll would capture nobody and the round would never end
    st = build(
        {0: ["r1", "r3", "s-10", "r2", "r4", "r5"], 1: ["s-9", "r6", "r7", "r8", "r9", "r10"]},
        variant=True,
        hugo=20,
        phase="roll",
    )
    refused(saved(st), "loc:", "no guest is on the gallery", "HC-V10")
    st = build(
        {0: ["r1", "r2", "r3", "r4", "r5", "r6"], 1: ["r7", "r8", "r9", "r10", "r11", "g4"]},
        variant=True,
        hugo=20,
        phase="roll",
    )
    refused(saved(st), "loc:", "every room is occupied", "HC-V10")


def test_HC_V7_steps_fill_from_minus_10():
    d = saved(midnight_pos())
    d["loc"][3] = place(MIDNIGHT.new_initial_state(2), "s-8")  # -8 taken while -10 is free
    refused(d, "loc:", "HC-V7")
    d = saved(midnight_pos())
    d["loc"][6] = place(MIDNIGHT.new_initial_state(2), "s-2")  # -2 before -8..-3 are full
    refused(d, "loc:", "HC-V7")


def test_HC_V9_the_player_to_move_has_a_guest_on_the_gallery():
    st = build(
        {0: ["s-10", "r1", "r3", "r2", "r8", "r4"], 1: ["s-9", "g12", "r5", "r6", "r7", "g30"]},
        variant=True,
        hugo=20,
        phase="roll",
    )
    load(st)
    refused(dict(saved(st), phase_id=PHASES.index("move"), roll=2), "turn", "HC-V9")


def test_HC_V11_totals_are_the_sum_of_round_scores():
    st = midnight_pos(round_=2)
    d = saved(st)
    d["round_scores"] = [[4, 7]]
    refused(d, "spooky[0]", "HC-V11")
    d["spooky"] = [4, 7]
    refused(d, "start", "HC-V13")  # seat 0 starts but seat 1 has more points
    d["start"] = 1
    load(d)
    refused(dict(d, round_scores=[]), "round_scores", "HC-V2")


def test_HC_V11_final_scores_match_the_final_position():
    st = build({0: ["g6"] + ["s-2"] * 5, 1: ["s-3"] * 6}, variant=True, roll=4, hugo=10, round_=3)
    st.apply_action(mv(0, 0))
    assert st.is_terminal()
    d = saved(st)
    load(d)
    d["round_scores"][-1] = [d["round_scores"][-1][0] - 1, d["round_scores"][-1][1]]
    d["spooky"][0] -= 1
    refused(d, "round_scores", "HC-V11")


def _between_rounds():
    guests = {0: ["g5", "r1", "r3", "s-2", "s-2", "r4"], 1: ["s-10", "s-9", "r5", "r6", "r7", "r9"]}
    st = build(guests, variant=True, roll=1, hugo=6, start=0)
    st.apply_action(mv(0, 0))  # captured on -8: the gallery is empty, round 1 scored
    assert st.phase_id == REPLACE
    return st


def test_HC_V12_queue_holds_the_cellar_guests_in_placing_order():
    st = _between_rounds()
    d = saved(st)
    load(d)
    assert d["queue"] == [6, 7, 0, 3, 4]  # -10 blue 0, -9 blue 1, -8 red 0, -2 red 3 and 4
    q = d["queue"]
    refused(dict(d, queue=[q[1], q[0]] + q[2:]), "queue", "HC-V12")
    refused(dict(d, queue=q[:-1]), "queue", "HC-V12")
    refused(dict(d, queue=q + [1]), "queue", "guest 1")
    st.apply_action(0)  # blue 0 placed on g0
    d = saved(st)
    load(d)
    refused(dict(d, hugo=-6), "hugo", "HC-V12")
    d["loc"][1] = d["loc"][6]  # a second guest on g0 while placing
    refused(d, "loc", "HC-V12")


def test_HC_V13_start_player_between_rounds():
    d = saved(_between_rounds())
    refused(dict(d, start=1 - d["start"], turn=1 - d["start"]), "start", "HC-V13")


# ------------------------------------------------------------------ observation layout
def test_observation_layout_is_the_encoders_and_the_rules_md_table():
    for game in (BASE, MIDNIGHT):
        layout = game.observation_layout()
        assert layout[0][1] == 0 and sum(k for _, _, k in layout) == game.observation_size
        starts = {name: off for name, off, _ in layout}
        enc = game.encoder
        assert starts["my_guests"] == enc.my_guests and starts["guest_counts"] == enc.guest_counts
        assert starts["hugo"] == enc.hugo and starts["player_to_act"] == enc.actor
    text = RULES_MD.read_text(encoding="utf-8")
    section = text.split("## Observation layout", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", section, flags=re.M)
    assert [(a, int(b), int(c)) for a, b, c in rows] == list(BASE.observation_layout())
    assert f"{BASE.observation_size} floats" in section
