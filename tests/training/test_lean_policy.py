"""The lean masked head (``sb3_policy.LeanMaskedPolicy``): the rollout's ``forward`` and the update's
``evaluate_actions`` give bit for bit what sb3-contrib's ``MaskableActorCriticPolicy`` gives (the same
actions under the same torch generator, log-probabilities, entropies, values and gradients), with
and without the action-feature skip, masked or not."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

N_OBS, N_ACT, B = 40, 9, 64


def _policy(skip: bool):
    import gymnasium as gym
    from stable_baselines3.common.utils import ConstantSchedule

    from boardzoo.training.sb3_policy import ActionSkipPolicy, LeanMaskedPolicy

    torch.manual_seed(3)
    kw = dict(action_feature_offset=N_OBS - N_ACT, action_skip=5.0) if skip else {}
    cls = ActionSkipPolicy if skip else LeanMaskedPolicy
    obs_space = gym.spaces.Box(-1.0, 1.0, (N_OBS,), np.float32)
    pol = cls(obs_space, gym.spaces.Discrete(N_ACT), ConstantSchedule(1e-3), net_arch=[16, 16], **kw)
    with torch.no_grad():  # logits far from SB3's near-uniform start, so that masking and sampling matter
        for p in pol.parameters():
            p.mul_(4.0)
    return pol


def _batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    obs = torch.as_tensor(rng.uniform(-1, 1, (B, N_OBS)).astype(np.float32))
    masks = rng.random((B, N_ACT)) < 0.4
    masks[np.arange(B), rng.integers(N_ACT, size=B)] = True  # at least one legal action
    masks[:4] = False
    masks[:4, 2] = True  # rows with a single legal action
    return obs, masks


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("masked", [True, False])
def test_rollout_forward_is_sb3_contribs(skip, masked):
    pol = _policy(skip)
    obs, masks = _batch()
    m = masks if masked else None
    for deterministic in (False, True):
        with torch.no_grad():
            torch.manual_seed(11)
            got = pol.forward(obs, deterministic=deterministic, action_masks=m)
            torch.manual_seed(11)
            want = MaskableActorCriticPolicy.forward(pol, obs, deterministic=deterministic, action_masks=m)
        for g, w in zip(got, want):
            assert g.shape == w.shape and g.dtype == w.dtype and torch.equal(g, w)
        if masked:
            assert masks[np.arange(B), got[0].numpy()].all()  # never a masked action
    with torch.no_grad():  # sampled, not the argmax: the draws vary with the generator
        draws = {tuple(pol.forward(obs, action_masks=m)[0].tolist()) for _ in range(5)}
    assert len(draws) > 1


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("masked", [True, False])
def test_update_evaluation_and_gradients_are_sb3_contribs(skip, masked):
    pol = _policy(skip)
    obs, masks = _batch(1)
    m = torch.as_tensor(masks) if masked else None  # the rollout buffer hands the update tensors
    actions = torch.as_tensor(
        [np.random.default_rng(i).choice(np.flatnonzero(r)) for i, r in enumerate(masks)], dtype=torch.float32
    )

    def run(fn):
        pol.zero_grad()
        values, log_prob, entropy = fn(pol, obs, actions, action_masks=m)
        (values.sum() + (log_prob * torch.linspace(-1, 1, B)).sum() - 0.3 * entropy.sum()).backward()
        return [values, log_prob, entropy], [p.grad.clone() for p in pol.parameters()]

    got, got_grads = run(type(pol).evaluate_actions)
    want, want_grads = run(MaskableActorCriticPolicy.evaluate_actions)
    for g, w in zip(got + got_grads, want + want_grads):
        assert g.shape == w.shape and torch.equal(g, w)
    assert torch.isfinite(got[2]).all() and (got[2][:4] == 0).all() == masked  # one legal action: no entropy


def test_new_runs_use_the_lean_head(tiny_games, tmp_path):
    from types import SimpleNamespace

    from boardzoo.training.config import config_from_dict
    from boardzoo.training.run import RunSeeds
    from boardzoo.training.sb3_policy import ActionSkipPolicy, LeanMaskedPolicy
    from boardzoo.training.train import build_model, make_vec_env

    cfg = config_from_dict({"env_id": "tinynim_v0", "n_envs": 1, "vec": "dummy", "ppo": {"n_steps": 16}})
    seeds = RunSeeds(cfg.seed)
    vec = make_vec_env(cfg, seeds)
    folder = SimpleNamespace(resume=False, path=lambda name: tmp_path / name)
    try:
        model = build_model(cfg, vec, folder, seeds)
        assert type(model.policy) is LeanMaskedPolicy and not isinstance(model.policy, ActionSkipPolicy)
    finally:
        vec.close()
