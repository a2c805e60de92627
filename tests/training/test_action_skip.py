"""The action-feature skip (``net.action_skip``): games that put one feature per action into their
observation (``Game.action_feature_offset``) get ``logits = mlp(obs) + gain * features``, the same in
the SB3 policy, the numpy copy the opponent pool plays, and the exported bot (torch module, ONNX)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from boardzoo.envs import make_game
from boardzoo.envs.core.game import CHANCE
from boardzoo.training.export import build_module, export_run, load_bot
from boardzoo.training.policy import NumpyPolicy, policy_params, split_params


@pytest.fixture(scope="module")
def skip_run(tmp_path_factory):
    """A tiny hydropolis_v0 run (its action_features option on) with the skip: a few hundred steps."""
    from boardzoo.training.config import config_from_dict
    from boardzoo.training.train import train

    cfg = config_from_dict(
        {
            "env_id": "hydropolis_v0",
            "options": {"action_features": True},
            "total_steps": 256,
            "n_envs": 1,
            "vec": "dummy",
            "seed": 5,
            "reward": "score",
            "net": {"hidden": [16], "action_skip": 10.0},
            "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1},
            "pool": {
                "snapshot_every": 128,
                "schedule": [{"start": 0.0, "snapshot": 0.5, "heuristic": 0.5, "random": 0.0}],
            },
            "eval": {"every": 256, "games": 4, "opponents": ["heuristic"]},
            "bc": {"games": 0},
        }
    )
    run = tmp_path_factory.mktemp("runs") / "hydro"
    train(cfg, run_dir=run, progress=False, log=lambda s: None)
    return run


def _decisions(game, n_games=3, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n_games):
        st = game.new_initial_state(2)
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            yield st.observation(p), st.legal_mask()
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))


def test_skip_policy_numpy_copy_and_export_agree(skip_run, tmp_path):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(skip_run / "model.zip", device="cpu")
    params = policy_params(model.policy)
    pairs, skip = split_params(params)
    game = make_game("hydropolis_v0", action_features=True)
    assert skip is not None and skip[0] == game.action_feature_offset and len(skip[1]) == game.num_actions
    npol = NumpyPolicy(params, "tanh")
    out = export_run(skip_run, out=tmp_path / "bot", which="last", progress=False, log=lambda s: None)
    card = json.loads((out / "card.json").read_text())
    assert card["training"]["net"]["action_skip"] == 10.0
    assert card["architecture"]["action_skip"] == {"offset": game.action_feature_offset}
    bot = load_bot(out, env_id="hydropolis_v0")
    checked = 0
    for obs, mask in _decisions(game):
        ob = torch.from_numpy(obs)[None]
        with torch.no_grad():
            dist = model.policy.get_distribution(ob, action_masks=mask[None].astype(bool))
            z = dist.distribution.logits[0].numpy()
        legal = mask > 0
        np.testing.assert_allclose(
            npol.logits(obs)[legal],
            model.policy.action_net(model.policy.mlp_extractor.forward_actor(ob))[0].detach().numpy()[legal],
            rtol=1e-4,
            atol=1e-4,
        )
        want = int(np.flatnonzero(legal)[np.argmax(z[legal])])
        assert npol.act(obs, mask) == want
        assert bot.act({"observation": obs, "action_mask": mask}) == want
        checked += 1
    assert checked > 100
    # the ONNX copy computes the same skip
    ort = pytest.importorskip("onnxruntime")
    sess = ort.InferenceSession(str(out / "policy.onnx"))
    obs = np.stack([o for o, _ in _decisions(game, n_games=1, seed=4)][:64])
    masks = np.stack([m for _, m in _decisions(game, n_games=1, seed=4)][:64]).astype(np.int8)
    got = sess.run(None, {"observation": obs, "action_mask": masks})[0]
    assert got.tolist() == [npol.act(o, m) for o, m in zip(obs, masks)]


def test_skip_makes_the_features_count():
    """With a zero MLP, the logits are exactly gain x features: the greedy choice is the best play."""
    game = make_game("hydropolis_v0", action_features=True)
    sizes = [game.observation_size, 8, game.num_actions]
    params = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        params += [np.zeros((b, a), np.float32), np.zeros(b, np.float32)]
    params += [np.full(game.num_actions, 3.0, np.float32), np.array([game.action_feature_offset], np.float32)]
    npol = NumpyPolicy(params)
    module = build_module(params)
    off = game.action_feature_offset
    seen = 0
    for obs, mask in _decisions(game, n_games=2, seed=3):
        feats = obs[off:]
        np.testing.assert_allclose(npol.logits(obs), 3.0 * feats, atol=1e-6)
        a = npol.act(obs, mask)
        assert feats[a] == feats[mask > 0].max()
        assert feats[int(module(torch.from_numpy(obs), torch.from_numpy(mask)))] == feats[a]
        seen += 1
    assert seen > 50


def test_malformed_skip_params_are_rejected():
    w, b = np.zeros((4, 6), np.float32), np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="skip pair"):
        NumpyPolicy([w, b, np.zeros(3, np.float32), np.array([0], np.float32)])
    with pytest.raises(ValueError, match="must be"):
        NumpyPolicy([w, b, w])
