"""The optional action-feature block (``action_features=True``): for the seat to move, the 1-ply
lookahead of every race card, lane choice (STEER) and wild car, the speed of every card for the car
being auctioned, the race position of every car for bets; zeros for everybody else and for illegal
actions."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import ConfigError, make_game
from boardzoo.envs.core.game import CHANCE
from boardzoo.envs.downforce import bot
from boardzoo.envs.downforce import rules as R
from boardzoo.envs.downforce.rules import A_BET, NUM_ACTIONS, Dec, Stage


def _walk(game, n, games, seed):
    rng = np.random.default_rng(seed)
    for _ in range(games):
        st = game.new_initial_state(n)
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            yield st, p
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))


def test_option_adds_the_block_and_default_has_none():
    plain, feat = make_game("downforce_v0"), make_game("downforce_v0", action_features=True)
    assert plain.action_feature_offset is None
    assert feat.action_feature_offset == plain.observation_size
    assert feat.observation_size == plain.observation_size + NUM_ACTIONS
    with pytest.raises(ConfigError, match="action_features"):
        make_game("downforce_v0", action_features="yes")


@pytest.mark.parametrize("n", [2, 4])
def test_features_match_the_lookahead_and_stay_private(n):
    game = make_game("downforce_v0", action_features=True)
    plain = make_game("downforce_v0")
    off = game.action_feature_offset
    kinds = set()
    for st, p in _walk(game, n, 4, seed=n):
        legal = np.flatnonzero(st.legal_mask())
        obs = st.observation(p)
        f = obs[off:]
        assert not np.delete(f, legal).any(), "features on illegal actions"
        for q in range(n):
            if q != p:
                assert not st.observation(q)[off:].any(), "features for a seat not to move"
        if st.stage == Stage.RACE and st.dec_type in (Dec.PLAY, Dec.STEER, Dec.WILD):
            base = R.race_value(st, p)
            np.testing.assert_allclose(f[legal], np.array(R.play_values(st, p, legal)) - base, rtol=1e-5, atol=1e-6)
            kinds.add(Dec(st.dec_type).name.lower())
        elif st.stage == Stage.AUCTION:
            car = st.auction_order[st.auction_idx]
            assert [round(float(f[c]) * 5) for c in legal] == [st.game.bid_value[c][car] for c in legal]
            kinds.add("bid")
        elif st.dec_type == Dec.BET:
            order = st.race_order()
            top = max(legal, key=lambda a: f[a])
            assert order.index(int(top) - A_BET) == min(order.index(int(a) - A_BET) for a in legal)
            kinds.add("bet")
        # the rest of the observation is the plain encoding
        d = st.to_dict()
        d["options"]["action_features"] = False
        np.testing.assert_array_equal(obs[:off], plain.state_from_dict(d).observation(p))
    assert kinds == {"play", "steer", "wild", "bid", "bet"}


def test_heuristic_race_choice_is_the_best_feature_with_its_speed8_penalty():
    game = make_game("downforce_v0", action_features=True)
    off = game.action_feature_offset
    checked = 0
    for st, p in _walk(game, 4, 3, seed=9):
        if st.stage == Stage.RACE and st.dec_type == Dec.PLAY:
            legal = np.flatnonzero(st.legal_mask())
            f = st.observation(p)[off:]
            z = f[legal] - 0.8 * (legal >= 42)
            assert legal[int(np.argmax(z))] == bot._play(st, p, legal)
            checked += 1
    assert checked > 50


def test_heuristic_variants_for_imitation_teachers():
    """``heuristic_bot(**style)``: bet_own bets on the best-placed own car; unknown styles fail."""
    game = make_game("downforce_v0")
    with pytest.raises(ConfigError, match="unknown style.*bet_everything"):
        game.heuristic_bot(0, 0, bet_everything=True)
    seen = 0
    for st, p in _walk(game, 4, 6, seed=5):
        if st.dec_type != Dec.BET:
            continue
        legal = set(int(a) for a in np.flatnonzero(st.legal_mask()))
        order = st.race_order()
        own = [c for c in order if st.owner[c] == p and A_BET + c in legal]
        std = game.heuristic_bot(p, 1).act_state(st, p)
        var = game.heuristic_bot(p, 1, bet_own=True).act_state(st, p)
        assert std == A_BET + next(c for c in order if A_BET + c in legal)
        assert var == (A_BET + own[0] if own else std)
        seen += 1
    assert seen > 5
    # keep_speed8 only changes which race card is played
    st = next(s for s, _ in _walk(game, 4, 1, seed=1) if s.stage == Stage.RACE and s.dec_type == Dec.PLAY)
    p = st.current_player()
    assert game.heuristic_bot(p, 0, keep_speed8=0.8).act_state(st, p) == game.heuristic_bot(p, 0).act_state(st, p)


def test_race_value_lead_weights_the_best_placed_car_of_each_side():
    """``race_value(lead, rival_lead)``: 0 is the difference of the mean progress, 1 that of the
    best-placed car of each side; in between a linear mix (the teacher style of the shipped bot)."""
    game = make_game("downforce_v0")
    seen = 0
    for st, p in _walk(game, 4, 2, seed=3):
        if st.stage != Stage.RACE or seen >= 40:
            continue
        own = [R.progress(st, c) for c in range(R.NUM_CARS) if st.owner[c] == p]
        other = [R.progress(st, c) for c in range(R.NUM_CARS) if st.owner[c] != p]
        mean = np.mean(own) - np.mean(other)
        best = max(own) - max(other)
        assert R.race_value(st, p) == pytest.approx(mean, abs=1e-9)
        assert R.race_value(st, p, 1.0, 1.0) == pytest.approx(best, abs=1e-9)
        mixed = 0.5 * max(own) + 0.5 * np.mean(own) - (0.25 * np.mean(other) + 0.75 * max(other))
        assert R.race_value(st, p, 0.5, 0.75) == pytest.approx(mixed, abs=1e-9)
        seen += 1
    assert seen == 40


def test_heuristic_lead_styles_play_the_card_their_evaluation_prefers():
    """Styles ``lead`` / ``rival_lead`` change only the race evaluation: the variant plays the card
    with the best ``play_values(lead, rival_lead)`` (speed-8 cards discounted by keep_speed8), and
    a bid or bet is the standard heuristic's."""
    game = make_game("downforce_v0")
    style = {"lead": 0.5, "rival_lead": 0.75}
    played = bids = 0
    for st, p in _walk(game, 4, 2, seed=9):
        var = game.heuristic_bot(p, 0, **style).act_state(st, p)
        if st.dec_type == Dec.PLAY:
            legal = np.flatnonzero(st.legal_mask()).tolist()
            v = np.array(R.play_values(st, p, legal, "player", 0.5, 0.75)) - 0.8 * (np.array(legal) >= R.NUM_REGULAR)
            assert var == legal[int(np.argmax(v))]
            played += 1
        elif st.dec_type in (Dec.BID, Dec.BET):
            assert var == game.heuristic_bot(p, 0).act_state(st, p)
            bids += 1
    assert played > 20 and bids > 10


def test_heuristic_grid_bonus_raises_bids_for_front_row_cars_only():
    game = make_game("downforce_v0")
    front = other = 0
    for st, p in _walk(game, 4, 6, seed=11):
        if st.dec_type != Dec.BID:
            continue
        car = st.auction_order[st.auction_idx]
        std = game.heuristic_bot(p, 0).act_state(st, p)
        hi = game.heuristic_bot(p, 0, grid_bonus=4.0).act_state(st, p)
        if st.grid_cars.index(car) < 2:
            assert game.bid_value[hi][car] >= game.bid_value[std][car]
            front += game.bid_value[hi][car] > game.bid_value[std][car]
        else:
            assert hi == std
            other += 1
    assert front > 0 and other > 0


@pytest.mark.parametrize(
    "style, match",
    [
        ({"lead": 1.5}, "lead=1.5 must lie in"),
        ({"rival_lead": -0.1}, "rival_lead=-0.1 must lie in"),
        ({"lead": "half"}, "lead='half' must be a number"),
        ({"grid_bonus": True}, "grid_bonus=True must be a number"),
        ({"keep_speed8": None}, "keep_speed8=None must be a number"),
    ],
)
def test_heuristic_style_values_are_checked(style, match):
    with pytest.raises(ConfigError, match=match):
        make_game("downforce_v0").heuristic_bot(0, 0, **style)
