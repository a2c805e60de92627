"""The rollout bot (``rollout[:N]``): Monte-Carlo rollout improvement of a game's heuristic, and its
use as an imitation teacher (``bc.teacher_bot``)."""

from __future__ import annotations

import numpy as np
import pytest
from checks import assert_bot_decisions_legal
from tinygames import TinyNimGame, TinyNimState

from boardzoo.envs import ConfigError, make_game, names
from boardzoo.envs.core.bots import HeuristicBot
from boardzoo.envs.core.game import CHANCE
from boardzoo.envs.core.rollout import RolloutBot
from boardzoo.training.bots import check_spec, make_bot


class TakeOneNim(TinyNimGame):
    """Tiny Nim (take 1-3, the last stone wins) with a poor heuristic: always take one."""

    def heuristic_bot(self, seat, seed=None):
        return HeuristicBot(lambda st, p, rng: 0, seed)


def _nim(pile):
    game = TakeOneNim()
    return game, game.state_from_dict({"n": 2, "pile": pile, "turn": 0, "cards": [0, 1], "last": -1})


@pytest.mark.parametrize("pile,best", [(6, 1), (10, 1)])
def test_rollout_improves_on_its_heuristic(pile, best):
    """From 6 (10) stones the heuristic takes one, but playing it out shows that taking 2 and
    leaving 4 (8) wins; the rollout bot finds that move."""
    game, st = _nim(pile)
    assert game.heuristic_bot(0, 0).act_state(st, 0) == 0
    assert RolloutBot(game, playouts=1, candidates=3, seed=0).act_state(st, 0) == best


def test_rollout_keeps_the_heuristic_move_when_nothing_beats_it():
    """From 5 stones taking one (the heuristic's move) leaves 4 and wins: it stays the choice."""
    game, st = _nim(5)
    for seed in range(5):
        assert RolloutBot(game, playouts=2, candidates=3, seed=seed).act_state(st, 0) == 0


def test_rollout_with_one_candidate_plays_the_heuristic():
    game = make_game("metromania_v0")
    st = game.new_initial_state(2)
    rng = np.random.default_rng(0)
    while st.current_player() == CHANCE:
        st.apply_action(st.sample_chance(rng))
    p = st.current_player()
    bot = RolloutBot(game, playouts=1, candidates=1, seed=3)
    assert st.legal_mask()[bot.act_state(st, p)]
    with pytest.raises(ValueError):
        RolloutBot(game, playouts=0)


@pytest.mark.parametrize("env_id", names())
def test_rollout_never_chooses_a_masked_action(env_id):
    game = make_game(env_id)
    rng = np.random.default_rng(1)
    bot = make_bot("rollout:1", game, 0, seed=2)
    bot.candidates = 2  # keep it cheap: two candidates, one playout each
    assert_bot_decisions_legal(game, [bot], rng, decisions=9, every=4, label="rollout")


@pytest.mark.parametrize("spec", ["rollout:0", "rollout:x", "rollout:-1", "rollout:x:ties"])
def test_rollout_spec_errors(spec):
    with pytest.raises(ConfigError, match="number of playouts"):
        check_spec(spec)


def test_teacher_bot_config_is_checked():
    from boardzoo.training.config import config_from_dict

    base = {"env_id": "metromania_v0", "total_steps": 10}
    config_from_dict({**base, "bc": {"games": 1, "teacher_bot": "rollout:2"}})
    with pytest.raises(ConfigError, match="bc.teacher_bot"):
        config_from_dict({**base, "bc": {"games": 1, "teacher_bot": "rolout"}})


class _FeatureNim(TakeOneNim):
    """TakeOneNim whose observation ends with one-ply action features (take 1, 2, 3) = FEATS."""

    FEATS = (0.5, 0.2, 0.5)
    observation_size = TakeOneNim.observation_size + 3
    action_feature_offset = TakeOneNim.observation_size

    def state_from_dict(self, d):
        s = super().state_from_dict(d)
        s.__class__ = _FeatureNimState
        return s


class _FeatureNimState(TinyNimState):
    def observation(self, seat):
        o = super().observation(seat)
        o[self.game.action_feature_offset :] = self.game.FEATS
        return o


@pytest.mark.parametrize(
    "feats,pile,expected", [((0.5, 0.5, 0.0), 6, 1), ((0.5, 0.2, 0.5), 6, 0), ((0.2, 0.2, 0.5), 6, 2)]
)
def test_rollout_ties_chooses_only_among_the_best_featured(feats, pile, expected):
    """``rollout:N:ties``: from 6 stones only taking 2 wins (the take-one playouts leave the last
    stone to the mover after an even remainder). With features (0.5, 0.5, 0) taking 2 is tied with
    the heuristic's take-one, and the bot finds it; with (0.5, 0.2, 0.5) it is valued lower, so the
    bot keeps to the tie {take 1, take 3} (both lose: the heuristic's own choice stays) where the
    plain rollout bot would take 2. With (0.2, 0.2, 0.5) the features rank take-3 alone first, above
    the heuristic's take-one: the bot follows the features (features that look further than the
    heuristic, like Metromania's two-ply values, lead)."""
    game = _FeatureNim()
    game.FEATS = feats
    st = game.state_from_dict({"n": 2, "pile": pile, "turn": 0, "cards": [0, 1], "last": -1})
    assert game.heuristic_bot(0, 0).act_state(st, 0) == 0
    for seed in range(3):
        assert RolloutBot(game, playouts=1, candidates=3, seed=seed, ties=True).act_state(st, 0) == expected
        assert RolloutBot(game, playouts=1, candidates=3, seed=seed).act_state(st, 0) == 1


def test_rollout_ties_needs_action_features():
    with pytest.raises(ValueError, match="no one-ply action features"):
        RolloutBot(make_game("metromania_v0"), ties=True)
    with pytest.raises(ConfigError, match="no one-ply action features"):
        make_bot("rollout:2:ties", make_game("metromania_v0"), 0, seed=1)
    bot = make_bot("rollout:2:ties", make_game("metromania_v0", action_features=True), 0, seed=1)
    assert bot.ties and bot.playouts == 2


def test_rollout_ties_plays_a_best_valued_action_in_metromania():
    """Metromania's heuristic plays a best one-ply value (its action features): so does the ties bot."""
    game = make_game("metromania_v0", action_features=True)
    off = game.action_feature_offset
    bot = RolloutBot(game, playouts=1, candidates=3, seed=4, ties=True)
    rng = np.random.default_rng(5)
    st = game.new_initial_state(2)
    checked = 0
    while not st.is_terminal() and checked < 12:
        p = st.current_player()
        if p == CHANCE:
            st.apply_action(st.sample_chance(rng))
            continue
        legal = np.flatnonzero(st.legal_mask())
        feats = st.observation(p)[off + legal]
        a = bot.act_state(st, p)
        assert st.legal_mask()[a] and feats[legal == a][0] == feats.max()
        checked += len(legal) > 1
        st.apply_action(a)
    assert checked == 12


def test_rollout_mode_spec_error():
    with pytest.raises(ConfigError, match="only mode is 'ties'"):
        check_spec("rollout:2:tie")
    check_spec("rollout:2:ties")
