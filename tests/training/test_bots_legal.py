"""Every bot type (random, heuristic, mcts, neural) plays every registered game without ever
choosing a masked action (tiny test games included). A game whose module is not importable yet is
skipped with its import error."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import game_class, make_game, names
from boardzoo.envs.core.bots import RandomBot, choose
from boardzoo.envs.core.mcts import MCTSBot
from boardzoo.training.bots import default_options
from boardzoo.training.export import CheckpointError, load_bot, write_policy

REAL = names()


def _game_or_skip(env_id):
    try:
        game_class(env_id)
    except ImportError as e:
        pytest.skip(f"{env_id} is not importable yet: {e}")
    try:  # the options the shipped bot plays with (e.g. an observation option)
        return make_game(env_id, **default_options(env_id, ["neural"]))
    except CheckpointError:  # no shipped bot (the tiny test games)
        return make_game(env_id)


def _neural(game, tmp_path):
    """The shipped bot when there is one, else an untrained exported policy (same code path)."""
    try:
        return load_bot(game.env_id, options=game.options)
    except CheckpointError as e:
        assert "no shipped bot" in str(e), e
        rng = np.random.default_rng(0)
        sizes = [game.observation_size, 16, game.num_actions]
        params = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            params += [rng.normal(size=(b, a)).astype(np.float32), rng.normal(size=b).astype(np.float32)]
        card = {
            "env_id": game.env_id,
            "version": type(game).version,
            "options": dict(game.options),
            "observation_shape": [game.observation_size],
            "num_actions": game.num_actions,
        }
        write_policy(params, "tanh", card, tmp_path / game.env_id, onnx=False)
        return load_bot(tmp_path / game.env_id, env_id=game.env_id)


def _play(env_id, tmp_path, games, sims):
    game = _game_or_skip(env_id)
    g = type(game)
    rng = np.random.default_rng(7)
    neural = _neural(game, tmp_path)
    counts = {}
    for k in range(games):
        n = (g.min_players, g.default_players, g.max_players)[k % 3]
        st = game.new_initial_state(n)
        kinds = ["random", "heuristic", "mcts", "neural"]
        bots = []
        for s in range(n):
            kind = kinds[(k + s) % 4]
            bots.append(
                {
                    "random": lambda s=s: RandomBot(s),
                    "heuristic": lambda s=s: game.heuristic_bot(s, s),
                    "mcts": lambda s=s: MCTSBot(sims, rollout_steps=40, seed=s),
                    "neural": lambda: neural,
                }[kind]()
            )
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            a = choose(bots[p], st, p, rng)
            name = type(bots[p]).__name__
            assert st.legal_mask()[a], f"{name} chose masked action {a} in {env_id} ({st.phase()})"
            counts[name] = counts.get(name, 0) + 1
            st.apply_action(a)
    return counts


@pytest.mark.parametrize("env_id", REAL)
def test_every_bot_type_plays_legally(env_id, tmp_path):
    counts = _play(env_id, tmp_path, games=4, sims=4)
    assert set(counts) >= {"RandomBot", "HeuristicBot", "MCTSBot", "NeuralBot"} or len(counts) >= 3


@pytest.mark.parametrize("env_id", ["tinynim_v0", "claim_v0"])
def test_every_bot_type_plays_legally_tiny(env_id, tiny_games, tmp_path):
    counts = _play(env_id, tmp_path, games=24, sims=20)
    assert set(counts) == {"RandomBot", "HeuristicBot", "MCTSBot", "NeuralBot"}


def test_mcts_beats_random_and_respects_its_interface(tiny_games):
    from boardzoo.training.tournament import run_tournament

    res = run_tournament("tinynim_v0", ["mcts:40", "random"], 60, workers=1, progress=False, seed=1)
    row = res.table()[0]
    assert row["ci95"][0] > 0.5, res.format()
    with pytest.raises(TypeError, match="act_state"):
        MCTSBot(5).act({"observation": None, "action_mask": np.ones(3)})
    with pytest.raises(ValueError):
        MCTSBot(0)
