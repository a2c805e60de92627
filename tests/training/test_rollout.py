"""The rollout bot (``rollout[:N]``): Monte-Carlo rollout improvement of a game's heuristic, and its
use as an imitation teacher (``bc.teacher_bot``)."""

from __future__ import annotations

import numpy as np
import pytest
from checks import assert_bot_decisions_legal
from tinygames import TinyNimGame

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


@pytest.mark.parametrize("spec", ["rollout:0", "rollout:x", "rollout:-1"])
def test_rollout_spec_errors(spec):
    with pytest.raises(ConfigError, match="number of playouts"):
        check_spec(spec)


def test_teacher_bot_config_is_checked():
    from boardzoo.training.config import config_from_dict

    base = {"env_id": "metromania_v0", "total_steps": 10}
    config_from_dict({**base, "bc": {"games": 1, "teacher_bot": "rollout:2"}})
    with pytest.raises(ConfigError, match="bc.teacher_bot"):
        config_from_dict({**base, "bc": {"games": 1, "teacher_bot": "rolout"}})
