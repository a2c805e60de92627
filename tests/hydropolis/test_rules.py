"""Hydropolis rule tests: one or more per rule ID of ../shared/rules/hydropolis.md.

Positions are built from readable setups: ``setup(table={(col, row): "IH lead", ...},
hands={0: ["LE copper", ...]})`` puts cards on the table (rotation 0 unless ``("LE lead", 1)``)
and in hands; all other cards stay in the draw pile unless ``pile=[...]`` is given (the rest is
then out of play). They are saved-state dicts loaded with the public ``HydropolisState.from_dict``
(which rebuilds the derived data but, unlike ``game.state_from_dict``, does not refuse positions
without a history that leads there).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardzoo.envs import ConfigError, IllegalActionError, make, make_game
from boardzoo.envs.core.game import CHANCE, TERMINAL
from boardzoo.envs.hydropolis.data import CAP, NONE, PIPE, deck_path
from boardzoo.envs.hydropolis.rules import DRAW, PLACE, HydropolisState, edges_fit

GAME = make_game("hydropolis_v0")
TY = {GAME.deck.type_name(t): t for t in range(GAME.num_types)}
CENTRE = (7, 5)


def cell(g, col: int, row: int) -> int:
    return row * g.geo.cols + col


def setup(
    g=GAME, n=2, table=None, hands=None, pile=None, to_move=0, scores=None, wrenches=None, passes=0, phase="play"
):
    """A state in the play phase (or ``phase``) built from a readable description."""
    d = g.new_initial_state(n).to_dict()
    T = g.num_types
    counts = np.array(g.deck.counts, dtype=np.int64)
    cell_t, cell_r = [-1] * g.num_cells, [0] * g.num_cells
    for (c, r), spec in (table or {}).items():
        name, rot = (spec, 0) if isinstance(spec, str) else spec
        cell_t[cell(g, c, r)] = TY[name]
        cell_r[cell(g, c, r)] = rot
        counts[TY[name]] -= 1
    hand = np.zeros((n, T), dtype=np.int64)
    for p, names in (hands or {}).items():
        for name in names:
            hand[p, TY[name]] += 1
            counts[TY[name]] -= 1
    assert (counts >= 0).all(), "setup uses more copies than the deck has"
    covered = [0] * T
    if pile is None:
        left = counts.tolist()
    else:
        left = [0] * T
        for name in pile:
            left[TY[name]] += 1
        covered = (counts - np.array(left)).tolist()  # the rest is out of play
    d.update(
        cell_type=cell_t,
        cell_rot=cell_r,
        hands=hand.tolist(),
        pile=left,
        covered=covered,
        deal_left=0,
        phase=phase,
        to_move=to_move,
        scores=list(scores or [0] * n),
        wrenches=list(wrenches or [0] * n),
        passes=passes,
    )
    return HydropolisState.from_dict(g, d)


def play(st, name: str, col: int, row: int, rot: int = 0) -> int:
    """Lay card ``name`` on (col, row); return the points scored."""
    g = st.game
    p = st.to_move
    before = st.score[p]
    st.apply_action(g.card_action(TY[name], rot))
    st.apply_action(g.cell_action(cell(g, col, row)))
    return st.score[p] - before


def fits(st, name: str, col: int, row: int, rot: int = 0) -> bool:
    """Whether laying ``name`` (in hand) on (col, row) is legal now (both steps)."""
    g = st.game
    a = g.card_action(TY[name], rot)
    if not st.legal_mask()[a]:
        return False
    probe = st.clone()
    probe.apply_action(a)
    return bool(probe.legal_mask()[g.cell_action(cell(g, col, row))])


def draw(st, name: str) -> None:
    assert st.current_player() == CHANCE
    st.apply_action(TY[name])


# ------------------------------------------------------------------ setup and turn
def test_HY_R1_deck_definition_88_cards_31_types():
    d = GAME.deck
    assert d.total == 88 and d.num_types == 31
    # ids follow the spec's table row by row: lead sound, lead leaky, copper
    assert [GAME.deck.type_name(t) for t in (0, 1, 2)] == ["IV lead", "IV lead leaky", "IV copper"]
    assert TY["CV lead"] == 21 and TY["CV copper"] == 22 and TY["TAP"] == 29 and TY["OUT"] == 30
    lead = sum(k for t, k in enumerate(d.counts) if d.colour[t] == 0 and d.kinds[t] == "pipe")
    leaky = sum(k for t, k in enumerate(d.counts) if d.leaky[t])
    copper = sum(k for t, k in enumerate(d.counts) if d.colour[t] == 1)
    assert (lead, leaky, copper) == (56, 11, 24)
    assert d.counts[TY["TAP"]] == 4 and d.counts[TY["OUT"]] == 4
    # the shuffle: every card, taps and outlets included, can be drawn with its share
    st = GAME.new_initial_state(2)
    out = dict(st.chance_outcomes())
    assert len(out) == 31 and out[TY["TAP"]] == pytest.approx(4 / 88) and out[TY["IV lead"]] == pytest.approx(6 / 88)


def test_HY_R2_three_cards_each_then_start_card_in_centre():
    st = GAME.new_initial_state(3)
    for k in range(9):
        assert st.phase() == "deal"
        st.apply_action(k)  # card type k
    assert st.hand_sizes == [3, 3, 3]
    assert st.hands[1].tolist()[:9] == [0, 1, 0, 0, 1, 0, 0, 1, 0]  # dealt round the table
    assert st.phase() == "start_card"
    st.apply_action(TY["LE lead"])
    c = cell(GAME, *CENTRE)
    assert st.cell_t[c] == TY["LE lead"] and st.cell_r[c] == 0
    assert st.pile_size == 88 - 9 - 1 and st.score == [0, 0, 0]  # the start card scores nothing
    assert st.phase() == "start_player"
    assert [o for o, _ in st.chance_outcomes()] == [0, 1, 2]
    st.apply_action(2)
    assert st.current_player() == 2


def test_HY_R3_must_play_when_a_play_exists():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH lead", "IV lead", "CV lead"]})
    assert not st.legal_mask()[GAME.pass_action]
    with pytest.raises(IllegalActionError):
        st.apply_action(GAME.pass_action)
    play(st, "IH lead", 8, 5)
    assert st.hand_sizes[0] == 2


def test_HY_R4_draw_one_card_after_playing():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH lead", "IV lead", "CV lead"]})
    play(st, "IH lead", 8, 5)
    assert st.current_player() == CHANCE and st.phase() == "draw"
    draw(st, "X lead")
    assert st.hand_sizes[0] == 3 and st.hands[0, TY["X lead"]] == 1
    assert st.current_player() == 1


def test_HY_R5_no_legal_play_pass_and_draw_hand_grows():
    # only an IV fits nowhere next to a lone IH (its N/S pipes would face the IH's empty sides)
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IV lead", "IV copper", "CV lead"]})
    m = st.legal_mask()
    assert np.flatnonzero(m).tolist() == [GAME.pass_action]
    st.apply_action(GAME.pass_action)
    draw(st, "TH lead")
    assert st.hand_sizes[0] == 4 and st.passes == 0  # a pass that draws resets the counter
    assert st.current_player() == 1


def test_HY_R6_empty_pile_play_continues_without_drawing():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH lead", "IH copper"], 1: ["IH lead"]}, pile=[])
    play(st, "IH lead", 8, 5)
    assert st.current_player() == 1 and st.phase() == "play"  # no draw node, next player
    assert st.hand_sizes[0] == 1


# ------------------------------------------------------------------ legal plays
def test_HY_R7_upright_only_rotation_0_or_180():
    d = GAME.deck
    le = TY["LE lead"]
    assert d.edges[le][0] == (NONE, PIPE, PIPE, NONE)  # S and E at rotation 0
    assert d.edges[le][1] == (PIPE, NONE, NONE, PIPE)  # N and W after 180 degrees
    # there is no 90-degree turn: a short-edge pipe never becomes a long-edge pipe
    for t in range(GAME.num_types):
        for r in range(2):
            e = d.edges[t][r]
            assert {e[0], e[2]} == {d.edges[t][0][0], d.edges[t][0][2]}
    # 180-symmetric cards have one action per distinct play
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH lead", "LE lead"]})
    m = st.legal_mask()
    assert m[GAME.card_action(TY["IH lead"], 0)] and not m[GAME.card_action(TY["IH lead"], 1)]
    # LE at 180 (N, W) connects west of... nothing; LE at 0 (S, E) fits left of the IH
    assert fits(st, "LE lead", 6, 5, 0)
    assert not fits(st, "LE lead", 6, 5, 1)
    assert fits(st, "LE lead", 8, 5, 1)


def test_HY_R8_add_only_next_to_a_card_inside_the_table():
    st = setup(table={CENTRE: "X lead"}, hands={0: ["X lead"]})
    st.apply_action(GAME.card_action(TY["X lead"], 0))
    cells = sorted(int(a) - GAME.cell_base for a in np.flatnonzero(st.legal_mask()))
    assert cells == sorted([cell(GAME, 7, 4), cell(GAME, 8, 5), cell(GAME, 7, 6), cell(GAME, 6, 5)])


def test_HY_R9_overlay_a_leaky_card_which_leaves_play():
    st = setup(table={CENTRE: "IH lead", (8, 5): "IH lead leaky"}, hands={0: ["IH lead leaky", "IH copper"]})
    assert fits(st, "IH lead leaky", 8, 5)  # a leaky card may cover a leaky card
    play(st, "IH copper", 8, 5)
    c = cell(GAME, 8, 5)
    assert st.cell_t[c] == TY["IH copper"]
    assert st.covered[TY["IH lead leaky"]] == 1 and st.on_table[TY["IH lead leaky"]] == 0


@pytest.mark.parametrize("covered", ["IH lead", "IH copper", "CH lead", "TAP", "OUT", "TH lead"])
def test_HY_R10_sound_copper_caps_taps_outlets_never_overlaid(covered):
    table = {(7, 5): covered, (7, 6): "IV lead leaky"}
    st = setup(table=table, hands={0: ["X lead", "X copper", "IH lead", "TH copper", "CH lead", "TAP"]})
    for t in range(GAME.num_types):
        for r in range(2):
            if st.hands[0, t] and st.legal_mask()[GAME.card_action(t, r)]:
                probe = st.clone()
                probe.apply_action(GAME.card_action(t, r))
                assert not probe.legal_mask()[GAME.cell_action(cell(GAME, 7, 5))]


@pytest.mark.parametrize(
    "mine,theirs,ok",
    [
        (PIPE, PIPE, True),
        (PIPE, CAP, True),
        (CAP, PIPE, True),
        (CAP, CAP, False),
        (PIPE, NONE, False),
        (NONE, PIPE, False),
        (CAP, NONE, None),
        (NONE, NONE, None),
    ],
)
def test_HY_R11_edge_compatibility_table(mine, theirs, ok):
    # a card touching one neighbour on its N side; None = fits but forms no connection (HY-R12)
    edges = (mine, NONE, NONE, NONE)
    slots = [theirs + 1, 0, 0, 0]
    if ok is None:
        assert not edges_fit(edges, slots)
        # with a second, connecting side it fits: the pair itself is allowed
        assert edges_fit((mine, PIPE, NONE, NONE), [theirs + 1, PIPE + 1, 0, 0])
    else:
        assert edges_fit(edges, slots) == ok


def test_HY_R11_on_the_table_cap_meets_cap_and_dead_ends():
    st = setup(table={CENTRE: "CV lead"}, hands={0: ["CV lead", "IV lead", "IH lead"]})
    assert fits(st, "IV lead", 7, 6)  # pipe meets the cap
    assert not fits(st, "CV lead", 7, 6, 1)  # 180: CAP N meets CAP S
    assert not fits(st, "IH lead", 7, 4)  # IH's NONE S side would meet the CV's pipe


def test_HY_R12_at_least_one_connection():
    # the IH below a cap: CAP-NONE is allowed but connects nothing
    st = setup(table={CENTRE: "CV lead"}, hands={0: ["IH lead", "IV lead"]})
    assert not fits(st, "IH lead", 7, 6)
    assert fits(st, "IV lead", 7, 6)


def test_HY_R13_table_edge_and_empty_cells_have_no_constraint():
    st = setup(table={(13, 5): "IH lead"}, hands={0: ["IH lead", "X lead"]})
    assert fits(st, "IH lead", 14, 5)  # E pipe faces the table edge
    assert fits(st, "X lead", 14, 5)  # N, S face empty cells, E the table edge
    st2 = setup(table={(13, 5): "IH lead"}, hands={0: ["IH lead"]})
    st2.apply_action(GAME.card_action(TY["IH lead"], 0))
    assert len(np.flatnonzero(st2.legal_mask())) == 2  # west and east only, never outside


def test_HY_R14_overlay_must_fit_its_neighbours():
    st = setup(table={CENTRE: "IH lead", (8, 5): "IH lead leaky"}, hands={0: ["LE lead", "LW lead"]})
    assert not fits(st, "LE lead", 8, 5)  # W side NONE would meet the centre's pipe
    assert fits(st, "LW lead", 8, 5)  # W pipe meets pipe, S faces an empty cell
    # an overlay also needs a connection: a leaky card alone is not enough
    st2 = setup(table={(8, 5): "IH lead leaky"}, hands={0: ["IV lead"]})
    assert not fits(st2, "IV lead", 8, 5)


def test_HY_R15_taps_and_outlets_are_single_ended_lead_pipes():
    d = GAME.deck
    assert d.edges[TY["TAP"]][0] == (NONE, PIPE, NONE, NONE) and d.colour[TY["TAP"]] == 0
    assert d.edges[TY["OUT"]][0] == (PIPE, NONE, NONE, NONE)
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["TAP"], 1: ["OUT"]})
    assert play(st, "TAP", 6, 5) == 1 + 3  # a lead pipe meeting a lead pipe
    st = setup(table={CENTRE: "IV copper"}, hands={0: ["OUT"]})
    assert play(st, "OUT", 7, 6) == 1 + 2  # lead outlet meets copper: +2


# ------------------------------------------------------------------ scoring
def test_HY_R16_one_point_per_card_in_the_eight_cells_around():
    st = setup(table={CENTRE: "IH lead", (7, 4): "IH lead", (9, 6): "IV lead"}, hands={0: ["IH lead"]})
    # (8,5): orthogonal (7,5), diagonals (7,4) and (9,6): 3 neighbours + 3 for the pipe pair
    assert play(st, "IH lead", 8, 5) == 3 + 3


def test_HY_R17_cap_pipe_same_colour_scores_one_whoever_holds_the_cap():
    st = setup(table={CENTRE: "CH lead"}, hands={0: ["IH lead"]})
    assert play(st, "IH lead", 8, 5) == 1 + 1  # the table card holds the cap
    st = setup(table={CENTRE: "CH lead"}, hands={0: ["IH copper"]})
    assert play(st, "IH copper", 8, 5) == 1 + 0  # colours differ
    st = setup(table={CENTRE: "IH copper"}, hands={0: ["CH copper"]})
    assert play(st, "CH copper", 8, 5, 1) == 1 + 1  # the new card holds the cap (CAP W at 180)


def test_HY_R18_pipe_pipe_three_same_colour_two_different():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH lead"]})
    assert play(st, "IH lead", 8, 5) == 1 + 3
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH copper"]})
    assert play(st, "IH copper", 8, 5) == 1 + 2


def test_HY_R19_cover_bonus_plus_placement_points():
    st = setup(table={CENTRE: "IH lead", (8, 5): "IH lead leaky"}, hands={0: ["IH lead"]})
    assert play(st, "IH lead", 8, 5) == 5 + 1 + 3


def test_HY_R20_a_pass_scores_nothing():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IV lead"]}, scores=[7, 3])
    st.apply_action(GAME.pass_action)
    assert st.score == [7, 3] and st.history[-1][4] == 0


# ------------------------------------------------------------------ end of game
def test_HY_R21_ends_when_all_pass_in_succession_with_empty_pile():
    st = setup(n=3, table={CENTRE: "IH lead"}, hands={0: ["IV lead"], 1: ["IV lead"], 2: ["IH lead"]}, pile=[])
    st.apply_action(GAME.pass_action)  # seat 0 cannot play: counter 1
    assert st.passes == 1 and st.current_player() == 1
    st.apply_action(GAME.pass_action)  # counter 2
    play(st, "IH lead", 8, 5)  # a play resets it
    assert st.passes == 0 and st.current_player() == 0
    st.apply_action(GAME.pass_action)
    st.apply_action(GAME.pass_action)
    assert not st.is_terminal()
    st.apply_action(GAME.pass_action)  # third pass in a row: everybody passed
    assert st.is_terminal()


def test_HY_R21_a_pass_that_draws_resets_the_counter():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IV lead"], 1: ["IV lead"]}, pile=["IV copper"], passes=1)
    st.apply_action(GAME.pass_action)
    assert st.passes == 0 and st.phase() == "draw"
    draw(st, "IV copper")
    st.apply_action(GAME.pass_action)  # seat 1, pile now empty
    assert st.passes == 1 and not st.is_terminal()
    st.apply_action(GAME.pass_action)
    assert st.is_terminal()


def test_HY_R22_target_score_ends_the_game_at_once():
    g = make_game("hydropolis_v0", target_score=10)
    st = setup(g, table={CENTRE: "IH lead"}, hands={0: ["IH lead"]}, scores=[6, 9])
    play(st, "IH lead", 8, 5)  # 6 + 4 = 10
    assert st.is_terminal() and st.winners() == [0]
    st = setup(g, table={CENTRE: "IH lead"}, hands={0: ["IH copper"]}, scores=[6, 9])
    play(st, "IH copper", 8, 5)  # 9 < 10: play on
    assert not st.is_terminal()


def test_HY_R23_highest_total_wins_ties_share():
    st = setup(scores=[10, 12], phase="over")
    assert st.is_terminal() and st.winners() == [1] and st.returns() == [-1.0, 1.0]
    st = setup(scores=[12, 12], phase="over")
    assert st.winners() == [0, 1] and st.returns() == [0.0, 0.0]


def test_HY_R24_each_connection_scored_once_at_most_four():
    table = {(7, 4): "IV lead", (7, 6): "IV copper", (6, 5): "IH lead", (8, 5): "CH lead"}
    st = setup(table=table, hands={0: ["X lead"]})
    # 4 neighbours; N lead pipe 3, S copper pipe 2, W lead pipe 3; E: pipe meets the CH's... W pipe 3
    assert play(st, "X lead", 7, 5) == 4 + 3 + 2 + 3 + 3
    table = {(7, 4): "IV lead", (7, 6): "IV lead", (6, 5): "IH lead", (8, 5): ("CH lead", 1)}
    st = setup(table=table, hands={0: ["X lead"]})
    # E side now meets the CH's cap (rotated: CAP W): +1 instead of +3
    assert play(st, "X lead", 7, 5) == 4 + 3 + 3 + 3 + 1


def test_HY_R25_end_checks_wrenches_before_target_score():
    g = make_game("hydropolis_v0", wrench=True, target_score=20)
    table = {(7, 4): "IV lead", (7, 6): "IV lead", (6, 5): "IH lead", (8, 5): "IH lead"}
    # seat 0 has 2 wrenches and scores 16 this turn: its third wrench ends the game, and it wins
    # although seat 1 has more points; the target (reached too) does not decide the winner
    st = setup(g, table=table, hands={0: ["X lead"]}, scores=[10, 50], wrenches=[2, 0])
    assert play(st, "X lead", 7, 5) == 16
    assert st.is_terminal() and st.wrenches[0] == 3 and st.winners() == [0]
    # without the wrench variant the target ends it and the higher total wins
    g2 = make_game("hydropolis_v0", target_score=20)
    st = setup(g2, table=table, hands={0: ["X lead"]}, scores=[10, 50])
    play(st, "X lead", 7, 5)
    assert st.is_terminal() and st.winners() == [1]


def test_HY_R26_closed_network_ends_the_game_at_once():
    st = setup(table={CENTRE: "TAP"}, hands={0: ["TAP", "IH lead"]})
    assert st.pile_size > 0
    play(st, "TAP", 8, 5, 1)  # two taps valve to valve: nothing is open any more
    assert st.is_terminal() and st.current_player() == TERMINAL
    # an open network goes on
    st = setup(table={CENTRE: "TAP"}, hands={0: ["IH lead"]})
    play(st, "IH lead", 8, 5)
    assert not st.is_terminal()


# ------------------------------------------------------------------ variants
def test_HY_V1_wrench_for_15_points_three_win():
    table = {(7, 4): "IV lead", (7, 6): "IV lead", (6, 5): "IH lead", (8, 5): "IH lead"}
    g = make_game("hydropolis_v0", wrench=True)
    st = setup(g, table=table, hands={0: ["X lead"]})
    play(st, "X lead", 7, 5)
    assert st.wrenches == [1, 0] and not st.is_terminal()
    st = setup(GAME, table=table, hands={0: ["X lead"]})  # variant off: no wrenches
    play(st, "X lead", 7, 5)
    assert st.wrenches == [0, 0]
    st = setup(g, table={CENTRE: "IH lead"}, hands={0: ["IH lead"]}, wrenches=[2, 0])
    play(st, "IH lead", 8, 5)  # 4 points: no wrench
    assert st.wrenches == [2, 0] and not st.is_terminal()


def test_HY_V2_target_score_option_validated():
    assert GAME.options["target_score"] == 0 and GAME.target == 0
    with pytest.raises(ConfigError, match="target_score"):
        make_game("hydropolis_v0", target_score=-5)
    with pytest.raises(ConfigError, match="target_score"):
        make_game("hydropolis_v0", target_score="high")


def test_HY_V3_overlay_scoring_bonus_only():
    g = make_game("hydropolis_v0", overlay_scoring="bonus_only")
    st = setup(g, table={CENTRE: "IH lead", (8, 5): "IH lead leaky"}, hands={0: ["IH lead", "IH copper"]})
    assert play(st, "IH lead", 8, 5) == 5
    st = setup(g, table={CENTRE: "IH lead"}, hands={0: ["IH lead"]})
    assert play(st, "IH lead", 8, 5) == 4  # adds score as usual
    with pytest.raises(ConfigError, match="overlay_scoring"):
        make_game("hydropolis_v0", overlay_scoring="double")


def test_HY_V4_table_size_option():
    g = make_game("hydropolis_v0", table_size="5x3")
    assert g.num_cells == 15 and g.num_actions == 2 * 31 + 15 + 1
    assert g.geo.centre == cell(g, 2, 1)
    st = setup(g, table={(2, 1): "IH lead", (3, 1): "IH lead"}, hands={0: ["IH lead"]})
    st.apply_action(g.card_action(TY["IH lead"], 0))
    assert np.flatnonzero(st.legal_mask()).tolist() == [g.cell_action(cell(g, 1, 1)), g.cell_action(cell(g, 4, 1))]
    for bad in ("15", "2x11", "15x40", "axb"):
        with pytest.raises(ConfigError, match="table_size"):
            make_game("hydropolis_v0", table_size=bad)


def test_HY_V4_deck_option_reads_a_data_file(tmp_path):
    d = json.loads(_deck_file().read_text())
    small = dict(d, name="tiny", types=[dict(t, count=1) for t in d["types"]])
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(small))
    g = make_game("hydropolis_v0", deck=str(p))
    assert g.deck.total == 31 and g.num_types == 31
    st = g.new_initial_state(4)
    assert st.pile_size == 31
    bad = dict(d, types=[dict(d["types"][2], leaky=True)])  # copper never leaks
    p2 = tmp_path / "bad.json"
    p2.write_text(json.dumps(bad))
    with pytest.raises(ConfigError, match="deck"):
        make_game("hydropolis_v0", deck=str(p2))
    missing = dict(d, types=[{k: v for k, v in d["types"][0].items() if k != "edges"}])
    p3 = tmp_path / "missing.json"
    p3.write_text(json.dumps(missing))
    with pytest.raises(ConfigError, match="edges"):
        make_game("hydropolis_v0", deck=str(p3))
    with pytest.raises(ConfigError, match="deck"):
        make_game("hydropolis_v0", deck="no_such_deck")


def _deck_file():
    return deck_path("waterworks_88")


def test_HY_V5_solo_score_attack():
    g = make_game("hydropolis_v0", solo=True)
    with pytest.raises(ConfigError, match="solo"):
        g.new_initial_state(2)
    with pytest.raises(ConfigError, match="solo"):
        make("hydropolis_v0", solo=True)  # the default 2 players contradict solo
    env = make("hydropolis_v0", solo=True, num_players=1)
    env.reset(seed=0)
    st = setup(g, n=1, table={CENTRE: "IH lead"}, hands={0: ["IH lead", "IV lead"]}, pile=[])
    play(st, "IH lead", 8, 5)
    assert st.current_player() == 0  # the lone player keeps going
    st.apply_action(GAME.pass_action)  # first pass with an empty pile ends it
    assert st.is_terminal() and st.returns() == [pytest.approx(4 * g.score_scale)]


# ------------------------------------------------------------------ masks and encodings
def _reference_plays(st):
    """Brute force over every cell of the table (the spec's definition, no incremental data)."""
    g = st.game
    out = set()
    for c in range(g.num_cells):
        t_here = st.cell_t[c]
        if t_here >= 0 and not g.deck.leaky[t_here]:
            continue
        slots = []
        for d, nb in enumerate(g.geo.nb[c]):
            if nb < 0 or st.cell_t[nb] < 0:
                slots.append(0)
            else:
                slots.append(g.deck.edges[st.cell_t[nb]][st.cell_r[nb]][(d + 2) % 4] + 1)
        for t in range(g.num_types):
            if st.hands[st.to_move, t] == 0:
                continue
            for r in range(2):
                if r == 1 and g.deck.symmetric[t]:
                    continue
                if edges_fit(g.deck.edges[t][r], slots):
                    out.add((t, r, c))
    return out


@pytest.mark.parametrize("opts", [{}, {"table_size": "5x5"}])
def test_HY_R8_R14_incremental_masks_equal_a_full_rescan(opts):
    g = make_game("hydropolis_v0", **opts)
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(6):
        st = g.new_initial_state(3)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            if st.phase() == "play":
                ref = _reference_plays(st)
                m = st.legal_mask()
                cards = {(t, r) for t, r, _ in ref}
                got = {divmod(int(a), 2) for a in np.flatnonzero(m[: g.cell_base])}
                assert got == cards
                assert bool(m[g.pass_action]) == (not ref)
                for t, r in cards:
                    probe = st.clone()
                    probe.apply_action(g.card_action(t, r))
                    cells = {int(a) - g.cell_base for a in np.flatnonzero(probe.legal_mask())}
                    assert cells == {c for tt, rr, c in ref if (tt, rr) == (t, r)}
                checked += 1
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert checked > 50


def test_observation_is_seat_relative_and_hides_hands():
    st = setup(n=3, table={CENTRE: "IH lead"}, hands={0: ["IH lead"], 1: ["X copper"], 2: ["TAP"]}, scores=[1, 2, 3])
    g = st.game
    o1 = st.observation(1)
    o = g.encoder.layout.offset("own_hand")
    assert o1[o + TY["X copper"]] == 0.25 and o1[o + TY["IH lead"]] == 0
    seats = g.encoder.layout.offset("seats")
    assert [o1[seats + 1 + 4 * i] for i in range(3)] == pytest.approx([0.02, 0.03, 0.01])
    other = st.resample_hidden(1, np.random.default_rng(0))
    np.testing.assert_array_equal(other.observation(1), o1)
    assert other.hands[1].tolist() == st.hands[1].tolist()
    assert (other.hands.sum(axis=0) + np.array(other.pile) == st.hands.sum(axis=0) + np.array(st.pile)).all()


def test_selected_card_is_kept_by_resample_hidden():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH copper", "IV lead"]})
    st.apply_action(GAME.card_action(TY["IH copper"], 0))
    assert st.phase() == "place"
    for k in range(10):
        other = st.resample_hidden(1, np.random.default_rng(k))
        assert other.hands[0, TY["IH copper"]] >= 1 and other.hand_sizes == st.hand_sizes
        np.testing.assert_array_equal(other.legal_mask(), st.legal_mask())


def test_json_round_trip_and_invariants_mid_game():
    rng = np.random.default_rng(1)
    st = GAME.new_initial_state(4)
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
        if rng.random() < 0.2:
            st.check_invariants()
            back = GAME.state_from_dict(json.loads(json.dumps(st.to_dict())))
            assert back.to_dict() == st.to_dict()
            np.testing.assert_array_equal(back.observation(0), st.observation(0))
    st.check_invariants()


def test_action_names_and_renders():
    st = setup(table={CENTRE: "IH lead", (8, 5): "IH lead leaky"}, hands={0: ["IH copper"]})
    a = GAME.card_action(TY["IH copper"], 0)
    assert st.action_to_string(a) == "select IH copper 0deg"
    st.apply_action(a)
    assert st.action_to_string(GAME.cell_action(cell(GAME, 8, 5))) == "lay IH copper 0deg at c8r5 (cover leaky)"
    text = str(st)
    assert "player 0" in text and "~" in text and "laying IH copper" in text
    img = GAME.renderer()(st)
    assert img.dtype == np.uint8 and img.shape[2] == 3 and img.std() > 10


def test_phase_names():
    st = setup(table={CENTRE: "IH lead"}, hands={0: ["IH lead"]})
    assert st.phase() == "play"
    st.apply_action(GAME.card_action(TY["IH lead"], 0))
    assert st.phase_id == PLACE
    st.apply_action(GAME.cell_action(cell(GAME, 8, 5)))
    assert st.phase_id == DRAW


def _reference_observation(st, seat):
    """A plain encoder written from RULES.md, to compare with the incremental one."""
    g = st.game
    d = g.deck
    n = st.num_players
    T = g.num_types
    out = []
    for c in range(g.num_cells):
        t = st.cell_t[c]
        row = [0.0] * 12
        if t >= 0:
            row[0], row[1], row[2] = 1.0, float(d.leaky[t]), float(d.colour[t] == 1)
            for k, e in enumerate(d.edges[t][st.cell_r[c]]):
                if e == PIPE:
                    row[3 + 2 * k] = 1.0
                elif e == CAP:
                    row[4 + 2 * k] = 1.0
            row[11] = float(d.leaky[t])
        else:
            facing = [g.geo.nb[c][k] for k in range(4)]
            row[11] = float(
                any(
                    nb >= 0 and st.cell_t[nb] >= 0 and d.edges[st.cell_t[nb]][st.cell_r[nb]][(k + 2) % 4] != NONE
                    for k, nb in enumerate(facing)
                )
            )
        out += row
    table = [0] * T
    for t in st.cell_t:
        if t >= 0:
            table[t] += 1
    own = st.hands[seat].tolist()
    out += [k * 0.25 for k in own]
    out += [(d.counts[t] - table[t] - int(st.covered[t]) - own[t]) * 0.25 for t in range(T)]
    sel = [0.0] * (2 * T)
    if st.selected >= 0:
        sel[st.selected] = 1.0
    out += sel
    out.append(st.pile_size / d.total)
    blocks = [0.0] * 24
    for i in range(n):
        s = (seat + i) % n
        blocks[4 * i : 4 * i + 4] = [1.0, st.score[s] * 0.01, st.hand_sizes[s] * 0.1, st.wrenches[s] / 3]
    out += blocks
    out.append(st.passes / n)
    turn = [0.0] * 6
    if st.phase() in ("play", "place", "draw"):
        turn[(st.to_move - seat) % n] = 1.0
    out += turn
    # action features: points of each legal play of the seat to move (HY-R16 to R19), x 0.1
    if not g.options["action_features"]:
        return np.array(out, dtype=np.float32)
    acts = [0.0] * g.num_actions
    if seat == st.to_move and st.phase() in ("play", "place"):
        fits = st.playable(seat)
        for a in np.flatnonzero(st.legal_mask()):
            if st.phase() == "place":
                t, r = divmod(st.selected, 2)
                acts[a] = reference_points(st, t, int(a) - g.cell_base, r) * 0.1
            elif a < g.cell_base:
                t, r = divmod(int(a), 2)
                acts[a] = max(reference_points(st, t, int(c), r) for c in np.flatnonzero(fits[:, t, r])) * 0.1
    out += acts
    return np.array(out, dtype=np.float32)


@pytest.mark.parametrize(
    "n,options",
    [
        (1, {"wrench": True}),
        (2, {"wrench": True}),
        (5, {"wrench": True}),
        (2, {"wrench": True, "action_features": True}),
        (2, {"overlay_scoring": "bonus_only", "table_size": "7x5", "action_features": True}),
    ],
)
def test_observation_matches_a_plain_reference_encoder(n, options):
    g = make_game("hydropolis_v0", **options)
    rng = np.random.default_rng(n)
    checked = 0
    for _ in range(2):
        st = g.new_initial_state(n)
        while not st.is_terminal():
            if rng.random() < 0.3:
                for p in range(n):
                    np.testing.assert_allclose(st.observation(p), _reference_observation(st, p), rtol=1e-6)
                checked += 1
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert checked > 20


def reference_points(st, t, cell, rot):
    """Points of a play written straight from the spec (HY-R16 to HY-R19, HY-V3), no tables."""
    g = st.game
    cell_t, cell_r = st.cell_t, st.cell_r
    overlay = cell_t[cell] >= 0
    if overlay and g.options["overlay_scoring"] == "bonus_only":
        return 5  # HY-V3
    pts = sum(1 for nb in g.geo.nb8[cell] if cell_t[nb] >= 0)  # HY-R16
    edges, colour = g.deck.edges, g.deck.colour
    for d, nb in enumerate(g.geo.nb[cell]):
        if nb < 0 or cell_t[nb] < 0:
            continue
        e, f = edges[t][rot][d], edges[cell_t[nb]][cell_r[nb]][(d + 2) % 4]
        same = colour[t] == colour[cell_t[nb]]
        if e == PIPE and f == PIPE:
            pts += 3 if same else 2  # HY-R18
        elif {e, f} == {PIPE, CAP}:
            pts += 1 if same else 0  # HY-R17
    return pts + (5 if overlay else 0)  # HY-R19


@pytest.mark.parametrize("options", [{}, {"overlay_scoring": "bonus_only", "table_size": "7x5"}])
def test_HY_R16_R19_points_table_matches_the_plain_rules(options):
    """``points()`` reads a precomputed connection table; over random positions it equals the plain
    reading of the rules for every legal play, and the action features give the best of them."""
    g = make_game("hydropolis_v0", **options)
    rng = np.random.default_rng(11)
    plays = 0
    for _ in range(6):
        st = g.new_initial_state(2)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            fits = st.playable(p)
            for c, t, r in zip(*np.nonzero(fits)):
                assert st.points(int(t), int(c), int(r)) == reference_points(st, int(t), int(c), int(r))
                plays += 1
            feats = g.encoder.action_points(st)
            if st.phase() == "play":
                for t, r in {(int(t), int(r)) for _, t, r in zip(*np.nonzero(fits))}:
                    assert feats[2 * t + r] == max(
                        reference_points(st, t, int(c), r) for c in np.flatnonzero(fits[:, t, r])
                    )
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    assert plays > 500


def test_HY_V4_deck_names_and_relative_paths(tmp_path, monkeypatch):
    """A bare name is a bundled deck (data/decks/<name>.json); anything else is a path, a relative
    one against the working directory (version history: before issue 12, against the package)."""
    assert _deck_file().parent.name == "decks" and _deck_file().name == "waterworks_88.json"
    d = json.loads(_deck_file().read_text())
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "tiny.json").write_text(
        json.dumps(dict(d, name="tiny", types=[dict(t, count=1) for t in d["types"]]))
    )
    monkeypatch.chdir(tmp_path)
    assert make_game("hydropolis_v0", deck="mine/tiny.json").deck.total == 31
    with pytest.raises(ConfigError, match="deck"):
        make_game("hydropolis_v0", deck="tiny.json")  # not in the working directory
    with pytest.raises(ConfigError, match="waterworks_88"):
        make_game("hydropolis_v0", deck="no_such_deck")  # the message lists the bundled decks


def test_encoder_cache_follows_clones_and_loaded_states():
    """The encoder keeps the table planes on the state (``encoder_cache``); a clone that plays on
    differently, the original and a loaded copy each see their own table."""
    g = make_game("hydropolis_v0", action_features=True)
    rng = np.random.default_rng(5)
    for _ in range(3):
        st = g.new_initial_state(3)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            st.observation(p)
            if rng.random() < 0.2:
                other = st.clone()
                other.apply_action(int(rng.choice(np.flatnonzero(other.legal_mask()))))
                other.observation(other.current_player() if other.current_player() >= 0 else p)
                for x in (st, other):
                    fresh = g.state_from_dict(x.to_dict())  # no cache: built from scratch
                    for q in range(3):
                        np.testing.assert_array_equal(x.observation(q), fresh.observation(q))
                        np.testing.assert_allclose(x.observation(q), _reference_observation(x, q), rtol=1e-6)
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
