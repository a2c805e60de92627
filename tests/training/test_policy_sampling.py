"""NumpyPolicy's sampled actions (the snapshot opponents of self-play) are exactly what
``rng.choice(len(p), p=p)`` over the masked softmax would draw, with the same use of the generator:
the fast inverse-CDF draw must not change what a seeded run learns against."""

from __future__ import annotations

import numpy as np

from boardzoo.training.policy import NEG, NumpyPolicy


def _reference_sample(policy: NumpyPolicy, obs, mask, rng) -> int:
    z = np.where(np.asarray(mask) > 0, policy.logits(obs), NEG)
    z = z - z.max()
    p = np.exp(z) * (np.asarray(mask) > 0)
    p /= p.sum()
    return int(rng.choice(len(p), p=p))


def test_sampling_matches_rng_choice_draw_for_draw():
    r = np.random.default_rng(0)
    for trial in range(60):
        n_obs, n_act = int(r.integers(3, 40)), int(r.integers(2, 120))
        scale = [0.1, 1.0, 5.0][trial % 3]  # flat, moderate and near-greedy policies
        params = [
            r.normal(0, scale, (16, n_obs)).astype(np.float32),
            r.normal(0, 0.1, 16).astype(np.float32),
            r.normal(0, scale, (n_act, 16)).astype(np.float32),
            r.normal(0, 0.1, n_act).astype(np.float32),
        ]
        pol = NumpyPolicy(params)
        seed = int(r.integers(1 << 31))
        fast, ref = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(50):
            obs = r.random(n_obs).astype(np.float32)
            mask = (r.random(n_act) < 0.3).astype(np.int8)
            mask[r.integers(n_act)] = 1
            a = pol.act(obs, mask, fast)
            assert mask[a] == 1
            assert a == _reference_sample(pol, obs, mask, ref)
        assert fast.random() == ref.random()  # the generators stayed in step
