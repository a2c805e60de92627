"""Downforce data files (DF 2.1 deck, DF 2.2 track, 2.3 tables), hidden information, the encoder's
caches, and saved states of the former fast card resolution."""

from __future__ import annotations

import json

import numpy as np
import pytest
from df_helpers import legal, play_all

from boardzoo.envs import make
from boardzoo.envs.downforce import data as D
from boardzoo.envs.downforce.rules import Dec, DownforceGame, Stage


def test_deck_matches_the_generated_templates():
    deck = D.load_deck()
    raw = json.loads((D.DATA / "deck.json").read_text())
    for tp in raw["templates"]:
        for o in range(6):
            cid = 6 * (tp["t"] - 1) + o
            j = 0
            want = []
            for sp, wild in zip(tp["speeds"], tp["wild"]):
                if wild:
                    want.append((-1, sp))
                else:
                    want.append(((o + j * tp["stride"]) % 6, sp))
                    j += 1
            assert deck[cid] == tuple(want)
    assert deck[7] == ((1, 5), (3, 3), (5, 1))  # Blue 5, Yellow 3, Red 1
    totals = [0] * 6
    for lines in deck[:42]:
        for c, s in lines:
            if c >= 0:
                totals[c] += s
    assert totals == [65] * 6
    assert all(deck[42 + c] == ((c, 8),) for c in range(6))


def test_default_track_matches_the_spec_table():
    g = DownforceGame()
    lanes = {r: [la for la in range(3) if g.exists[r * 3 + la]] for r in range(g.num_rows)}
    assert g.num_rows == 46
    assert lanes[0] == lanes[2] == [0, 1] and lanes[3] == [0, 1, 2] and lanes[14] == lanes[15] == [1]
    assert lanes[22] == lanes[25] == [0, 1] and lanes[26] == [1] and lanes[37] == lanes[38] == [1, 2]
    assert lanes[39] == [1] and lanes[45] == [0, 1, 2]
    assert [r for r in range(46) if g.bet_after[r] >= 0] == [11, 23, 34]
    assert g.rumble[9 * 3] and g.rumble[13 * 3] and not g.rumble[9 * 3 + 1] and g.rumble[22 * 3] and g.rumble[36 * 3]
    assert not g.rect[9 * 3 + 1] and g.rect[14 * 3 + 1] and g.narrow[14 * 3 + 1] and g.narrow[26 * 3 + 1]
    assert [divmod(s, 3) for s in g.grid] == [(2, 0), (2, 1), (1, 0), (1, 1), (0, 0), (0, 1)]
    comp = D.load_components()
    assert comp["prizes"] == [12, 9, 6, 4, 2, 0]
    assert comp["bets"] == [[9, 6, 3], [6, 4, 2], [3, 2, 1]]
    assert comp["odds"] == [[3, 2, 1], [2, 1, 0], [1, 0, 0]]


def test_odds_options_are_exclusive():
    from boardzoo.envs import ConfigError

    with pytest.raises(ConfigError, match="odds_winner_only"):
        DownforceGame(odds_betting=True, odds_winner_only=True)


@pytest.mark.parametrize("n", [4, 5])
def test_resample_keeps_public_knowledge_and_hides_the_rest(n):
    st = DownforceGame().new_initial_state(n)
    rng = np.random.default_rng(n)
    play_all(st, rng, stop=lambda s: s.stage == Stage.RACE and len(s.played) >= 6)
    seen_setaside = set()
    for i in range(20):
        r = st.resample_hidden(0, np.random.default_rng(i))
        r.check_invariants()
        assert r.hands[0] == st.hands[0]
        for s in range(1, n):
            assert st.revealed[s] <= r.hands[s] and len(r.hands[s]) == len(st.hands[s])
        seen_setaside |= set(r.setaside)
        np.testing.assert_array_equal(r.observation(0), st.observation(0))
    assert len(seen_setaside) > 2  # the set-aside cards really are re-dealt


def test_observation_caches_match_a_fresh_encoding():
    for opts in ({}, {"powers": True, "extra_powers": True}):
        game = DownforceGame(**opts)
        rng = np.random.default_rng(1)
        for _ in range(3):
            st = game.new_initial_state(4)
            while not st.is_terminal():
                if st.is_chance_node():
                    st.apply_action(st.sample_chance(rng))
                    continue
                for p in range(4):
                    fresh = game.state_from_dict(st.to_dict())
                    np.testing.assert_array_equal(st.observation(p), fresh.observation(p))
                st.apply_action(int(rng.choice(legal(st))))


@pytest.mark.parametrize("steering", ["manual", "auto"])
def test_a_wild_decision_saved_by_the_former_fast_resolution_loads_and_plays_on(steering):
    """Until issue 12 a game without powers resolved its cards in a separate fast loop, which kept
    no task stack at a wild decision; such a saved state still loads, saves back unchanged and
    plays on exactly as the same position saved now (the stack it lacked is rebuilt)."""
    game = DownforceGame(steering=steering)
    for seed in range(60):
        st = game.new_initial_state(4)
        play_all(st, np.random.default_rng(seed), stop=lambda s: s.dec_type == Dec.WILD)
        if st.dec_type == Dec.WILD:
            break
    d = json.loads(st.to_json())
    assert d["tasks"] == [["end_turn"], ["turn_end", 0], ["line", d["dec_args"][0] + 1]]
    old = dict(d, tasks=[])
    a, b = game.state_from_dict(d), game.state_from_dict(old)
    assert b.to_dict() == old
    rng = np.random.default_rng(5)
    while not a.is_terminal():
        o = a.sample_chance(rng) if a.is_chance_node() else int(rng.choice(legal(a)))
        a.apply_action(o)
        b.apply_action(o)
        assert a.to_dict() == b.to_dict()
    assert b.is_terminal()


def test_parallel_env_collects_secret_bids_in_one_step():
    env = make("downforce_v0", parallel=True, num_players=4)
    obs, _ = env.reset(seed=3)
    deciders = [a for a, o in obs.items() if o["action_mask"].any()]
    assert deciders == ["player_0", "player_1", "player_2", "player_3"]
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in deciders}
    obs, rew, term, trunc, _ = env.step(actions)
    assert env.state.auction_idx == 1 and len(env.state.bid_history) == 1


@pytest.mark.parametrize(
    "opts,decisions,finish,money",
    [
        ({}, 285, [1, 0, 3, 5, 2, 4], [21, 11, 7, 11]),  # manual steering (default)
        ({"steering": "auto"}, 77, [1, 0, 3, 4, 5, 2], [28, -4, 10, 8]),
        (
            {"powers": True, "extra_powers": True, "steering": "manual", "odds_betting": True},
            301,
            [5, 1, 3, 2, 0, 4],
            [10, 1, 7, 9],
        ),
    ],
)
def test_golden_playthrough(opts, decisions, finish, money):
    """A fixed game (seeded chance, the (k mod legal)-th legal action at decision k). A change here is a
    behaviour change: bump the env version."""
    st = DownforceGame(**opts).new_initial_state(4)
    rng = np.random.default_rng(2026)
    k = 0
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
            continue
        lg = legal(st)
        st.apply_action(lg[k % len(lg)])
        k += 1
    assert (k, st.finish_order, st.money) == (decisions, finish, money)
