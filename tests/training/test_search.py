"""The network-guided search bot (``neural+search``) and the value head in exported bots (issue 19)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from checks import assert_bot_decisions_legal

from boardzoo.envs import make_game, names
from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import CHANCE
from boardzoo.training.policy import NumpyPolicy, NumpyValue
from boardzoo.training.search import SearchBot


def _random_net(game, rng, hidden=16, value=True):
    n, a = game.observation_size, game.num_actions
    pol = NumpyPolicy(
        [
            rng.normal(0, 0.1, (hidden, n)).astype(np.float32),
            np.zeros(hidden, np.float32),
            rng.normal(0, 0.1, (a, hidden)).astype(np.float32),
            np.zeros(a, np.float32),
        ]
    )
    val = NumpyValue(
        [
            rng.normal(0, 0.1, (hidden, n)).astype(np.float32),
            np.zeros(hidden, np.float32),
            rng.normal(0, 0.1, (1, hidden)).astype(np.float32),
            np.zeros(1, np.float32),
        ]
    )
    return pol, (val if value else None)


@pytest.mark.parametrize("env_id", names())
def test_search_never_chooses_a_masked_action(env_id):
    game = make_game(env_id)
    rng = np.random.default_rng(1)
    pol, val = _random_net(game, rng)
    bots = [
        SearchBot(pol, val, simulations=6, seed=2),
        SearchBot(pol, None, simulations=3, rollout_steps=20, seed=3),
        SearchBot(pol, val, simulations=8, root="gumbel", gumbel_scale=1.0, seed=4),
    ]
    assert_bot_decisions_legal(game, bots, rng, decisions=12, every=3, label="search")


def _nim(tiny_games, pile):
    game = make_game("tinynim_v0")
    return game, game.state_from_dict({"n": 2, "pile": pile, "turn": 0, "cards": [0, 1], "last": -1})


def _uniform(game):
    n, a = game.observation_size, game.num_actions
    pol = NumpyPolicy([np.zeros((a, n), np.float32), np.zeros(a, np.float32)])  # uniform prior
    val = NumpyValue([np.zeros((1, n), np.float32), np.zeros(1, np.float32)])  # knows nothing
    return pol, val


@pytest.mark.parametrize("root", ["puct", "gumbel"])
@pytest.mark.parametrize("pile,best", [(5, 0), (6, 1), (7, 2), (9, 0)])
def test_search_finds_the_winning_move(tiny_games, pile, best, root):
    """Nim, take 1-3, last stone wins: leave a multiple of 4. A search that knows nothing but the
    rules (uniform prior, zero value) finds it from the game's end."""
    game, st = _nim(tiny_games, pile)
    bot = SearchBot(*_uniform(game), simulations=400, root=root, seed=0)
    assert bot.act_state(st, 0) == best
    assert bot.last_simulations == 400


@pytest.mark.parametrize("root", ["puct", "gumbel"])
def test_search_respects_its_budget(tiny_games, root):
    game, st = _nim(tiny_games, 15)
    bot = SearchBot(*_uniform(game), simulations=37, root=root, seed=0)
    bot.act_state(st, 0)
    assert bot.last_simulations == 37
    assert sum(bot.last_visits.values()) == (36 if root == "puct" else 37)  # puct: the first evaluates the root
    capped = SearchBot(*_uniform(game), simulations=10**9, seconds=0.05, root=root, seed=0)
    t = time.perf_counter()
    capped.act_state(st, 0)
    assert time.perf_counter() - t < 1.0 and 1 <= capped.last_simulations < 10**9
    with pytest.raises(ValueError):
        SearchBot(*_uniform(game), simulations=0)
    for bad in ({"root": "alphabeta"}, {"considered": 1}, {"prior_temperature": 0.0}):
        with pytest.raises(ValueError):
            SearchBot(*_uniform(game), **bad)


def _sure_of(game, action, pile, logit=8.0):
    """A policy whose prior puts nearly all its mass on ``action`` at ``pile`` stones (the
    observation's one-hot pile) and is uniform elsewhere; a zero value."""
    pol, val = _uniform(game)
    ((w, b),) = pol.layers
    w = w.T.copy()
    w[action, pile] = logit
    return NumpyPolicy([w, b]), val


def test_search_gumbel_root_overrules_a_sure_wrong_prior(tiny_games):
    """Sequential halving at the root (``root="gumbel"``) searches every considered action, however
    sure the prior, and plays the one whose value is clearly better: at a pile of 5 the prior takes 2
    (probability 0.999, a loss against best play) but taking 1 wins. PUCT at the same budget
    visits what the prior likes and keeps the losing move."""
    game, st = _nim(tiny_games, 5)
    pol, val = _sure_of(game, 1, 5)
    gumbel = SearchBot(pol, val, simulations=200, root="gumbel", seed=0)
    assert gumbel.act_state(st, 0) == 0
    assert sorted(gumbel.last_visits) == [0, 1, 2] and min(gumbel.last_visits.values()) >= 200 // 6
    puct = SearchBot(pol, val, simulations=200, seed=0)
    assert puct.act_state(st, 0) == 1


def test_search_prior_temperature_softens_the_prior(tiny_games):
    game, st = _nim(tiny_games, 5)
    pol, val = _sure_of(game, 1, 5, logit=4.0)
    sure = SearchBot(pol, val, seed=0)._prior(st, 0)
    soft = SearchBot(pol, val, prior_temperature=4.0, seed=0)._prior(st, 0)
    assert sure[1] > soft[1] > 1 / 3 and np.isclose(soft[:3].sum(), 1.0)
    np.testing.assert_allclose(soft[[0, 2]], (1 - soft[1]) / 2)


def test_value_head_matches_the_training_critic(tiny_run, tmp_path):
    """The exported value head computes what the run's SB3 critic computes (numpy and torch)."""
    import torch
    from sb3_contrib import MaskablePPO

    from boardzoo.training.botformat import read_bot
    from boardzoo.training.botnet import build
    from boardzoo.training.export import export_run

    out = export_run(tiny_run, tmp_path / "bot", which="last", progress=False, log=lambda s: None)
    bot = read_bot(out)
    assert bot.arch["value_head"] == {"hidden": [32, 32]} and bot.card["training"]["value_head"] is True
    model = MaskablePPO.load(tiny_run / "model.zip", device="cpu")
    game = make_game("tinynim_v0")
    rng = np.random.default_rng(0)
    obs = []
    for _ in range(20):
        st = game.new_initial_state(2)
        while st.current_player() == CHANCE:
            st.apply_action(st.sample_chance(rng))
        obs.append(st.observation(0))
    obs = np.stack(obs)
    with torch.no_grad():
        want = model.policy.predict_values(torch.from_numpy(obs)).numpy()[:, 0]
    np.testing.assert_allclose(NumpyValue(bot.value_params).value(obs), want, rtol=1e-5, atol=1e-5)
    with torch.no_grad():
        got = build(bot.arch, bot.tensors).value(torch.from_numpy(obs)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_neural_search_bot_spec(tiny_run, tmp_path):
    from boardzoo.envs import ConfigError
    from boardzoo.training.bots import check_spec, make_bot
    from boardzoo.training.export import export_run

    out = export_run(tiny_run, tmp_path / "bot", progress=False, log=lambda s: None)
    game, st = _nim(None, 5)
    bot = make_bot(f"neural+search:50:{out}", game, 0, seed=1)
    assert isinstance(bot, SearchBot) and bot.simulations == 50 and bot.value_net is not None
    assert st.legal_mask()[choose(bot, st, 0, np.random.default_rng(0))]
    assert bot.root == "puct" and bot.name == "neural+search"
    gumbel = make_bot(f"neural+gumbel:40:{out}", game, 0, seed=1)
    assert isinstance(gumbel, SearchBot) and gumbel.root == "gumbel" and gumbel.simulations == 40
    assert gumbel.name == "neural+gumbel"
    assert st.legal_mask()[choose(gumbel, st, 0, np.random.default_rng(0))]
    for bad in ("neural+search:0", "neural+search:x", "neural+search:-3", "neural+gumbel:0", "neural+gumbel:y"):
        with pytest.raises(ConfigError, match="search budget"):
            check_spec(bad)
    mixed = make_bot(f"neural+search:30:mix=0.25:{out}", game, 0, seed=1)
    assert mixed.rollout_mix == 0.25 and mixed.simulations == 30 and bot.rollout_mix == 0.0
    assert st.legal_mask()[choose(mixed, st, 0, np.random.default_rng(0))]
    assert make_bot(f"neural+gumbel:30:mix=1:{out}", game, 0, seed=1).rollout_mix == 1.0
    for bad in ("neural+search:30:mix=1.5", "neural+search:30:mix=-0.1", "neural+gumbel:30:mix=abc"):
        with pytest.raises(ConfigError, match="rollout mix must be a number between 0 and 1"):
            check_spec(bad)


def _affine(val, scale, shift):
    """The value head ``scale * v + shift`` (its last layer rescaled)."""
    (w1, b1), (w2, b2) = val.layers
    return NumpyValue([w1.T, b1, (w2 * scale).T, b2 * scale + shift])


def test_search_normalized_values_ignore_the_value_scale(tiny_games):
    """``normalize``: Q is min-max normalized over the values seen in the tree (MuZero), so a value
    head trained on scores (any scale) searches as one trained on wins. Deep in a game, where no
    simulation reaches the end, an affine change of the value head leaves every visit count as it was;
    without normalizing it changes them."""
    game, st = _nim(tiny_games, 15)
    rng = np.random.default_rng(5)
    pol, val = _random_net(game, rng)
    val = _affine(val, 8.0, 0.0)  # values spread enough to steer a few simulations
    visits = {}
    for norm in (True, False):
        for label, v in (("as is", val), ("scaled", _affine(val, 0.02, 0.1))):
            bot = SearchBot(pol, v, simulations=10, c_puct=0.5, normalize=norm, seed=0)
            bot.act_state(st, 0)
            assert sum(bot.last_visits.values()) == 9  # the first simulation evaluates the root
            visits[norm, label] = bot.last_visits
    assert visits[True, "as is"] == visits[True, "scaled"]
    assert visits[False, "as is"] != visits[False, "scaled"]


def test_search_first_play_urgency_from_the_parent(tiny_games):
    """``fpu_reduction``: an unvisited child scores the parent's mean value for the mover minus the
    reduction. A reduction larger than any normalized Q keeps a weak-prior search on the first child
    it tried; without it the search tries the others too."""
    game, st = _nim(tiny_games, 15)
    pol, val = _uniform(game)
    deep = SearchBot(pol, val, simulations=30, c_puct=0.1, normalize=True, fpu_reduction=2.0, seed=0)
    deep.act_state(st, 0)
    assert len(deep.last_visits) == 1 and sum(deep.last_visits.values()) == 29
    wide = SearchBot(pol, val, simulations=30, c_puct=0.1, normalize=True, seed=0)
    wide.act_state(st, 0)
    assert len(wide.last_visits) == 3


def test_search_rollout_mix_blends_playouts_into_the_leaf_value(tiny_games):
    """``rollout_mix``: a leaf's value is (1 - mix) * value head + mix * a random playout's outcome.
    At 1 the head is ignored (same visits as the playout-only search, same random stream); at 0 the
    playout is never run; a misleading head that knows the rest of the game is corrected by it."""
    game, st = _nim(tiny_games, 9)
    pol, val = _uniform(game)
    n = game.observation_size
    liar = NumpyValue([np.zeros((1, n), np.float32), np.full(1, 0.9, np.float32)])  # "every seat wins"
    only_playout = SearchBot(pol, None, simulations=150, seed=4)
    mixed_full = SearchBot(pol, liar, simulations=150, rollout_mix=1.0, seed=4)
    assert only_playout.act_state(st, 0) == mixed_full.act_state(st, 0)
    assert only_playout.last_visits == mixed_full.last_visits
    plain, zero = (
        SearchBot(pol, val, simulations=150, seed=4),
        SearchBot(pol, val, simulations=150, rollout_mix=0.0, seed=4),
    )
    assert plain.act_state(st, 0) == zero.act_state(st, 0) and plain.last_visits == zero.last_visits
    game, st = _nim(tiny_games, 7)  # best: take 3, leave 4; 60 simulations do not solve it from the tree alone
    head_only = [SearchBot(pol, liar, simulations=60, seed=s).act_state(st, 0) for s in range(6)]
    blended = [SearchBot(pol, liar, simulations=60, rollout_mix=0.5, seed=s).act_state(st, 0) for s in range(6)]
    assert 2 not in head_only and blended == [2] * 6
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="rollout_mix"):
            SearchBot(pol, val, rollout_mix=bad)


def test_value_check_scores_the_head_against_outcomes(tiny_run, tmp_path, monkeypatch):
    """``boardzoo export --value-games``: the value head's error on real games against the outcomes'
    variance (the best constant's error), recorded in the card; a constant head has no skill."""
    from boardzoo.envs import ConfigError
    from boardzoo.training import policy
    from boardzoo.training.botformat import read_bot
    from boardzoo.training.distill import collect
    from boardzoo.training.export import export_run, measure_value

    out = export_run(tiny_run, tmp_path / "bot", which="last", progress=False, log=lambda s: None)
    lines: list[str] = []
    check = measure_value(out, 12, workers=1, seed=5, progress=False, log=lines.append)
    assert read_bot(out).card["value_check"] == check
    data = collect(str(out), 12, ("heuristic", f"neural:{out}"), teacher="neural", workers=1, seed=5, progress=False)
    bot = read_bot(out)
    pred = policy.NumpyValue(bot.value_params, bot.arch["activation"]).value(data["val_obs"])
    mse = float(np.mean((pred - data["val_target"]) ** 2))
    var = float(np.var(data["val_target"]))
    assert check["decisions"] == len(data["val_target"]) > 12 and check["games"] == 12
    assert check["mse"] == pytest.approx(mse, abs=1e-5) and check["outcome_variance"] == pytest.approx(var, abs=1e-5)
    assert check["skill"] == pytest.approx(1 - mse / var, abs=1e-3)
    assert check["informative"] == (check["skill"] > 0) and "value head over 12 games" in lines[-1]

    mean = float(np.mean(data["val_target"]))  # the best constant guess has no skill
    monkeypatch.setattr(policy.NumpyValue, "value", lambda self, obs: np.full(len(obs), mean + 0.3))
    const = measure_value(out, 12, workers=1, seed=5, progress=False, log=lines.append)
    assert const["skill"] <= 0 and const["informative"] is False and "no better than a constant" in lines[-1]
    with pytest.raises(ConfigError, match="games must be >= 1"):
        measure_value(out, 0, progress=False, log=lines.append)

    from boardzoo.training import distill

    def drawn(*args, **kwargs):  # every outcome equal: no skill to measure, and the card stays strict JSON
        d = collect(*args, **kwargs)
        d["val_target"] = np.zeros_like(d["val_target"])
        return d

    monkeypatch.setattr(distill, "collect", drawn)
    flat = measure_value(out, 4, workers=1, seed=5, progress=False, log=lines.append)
    assert flat["skill"] is None and flat["informative"] is False and "skill undefined" in lines[-1]
    assert read_bot(out).card["value_check"]["outcome_variance"] == 0.0


def test_value_check_needs_a_value_head_and_a_count(tiny_run, tmp_path, capsys):
    from boardzoo.envs import ConfigError
    from boardzoo.training.botformat import read_bot
    from boardzoo.training.cli import main
    from boardzoo.training.export import export_run, measure_value, write_policy

    out = export_run(tiny_run, tmp_path / "bot", which="last", progress=False, log=lambda s: None)
    assert main(["export", str(out), "--measure-only"]) == 2
    assert "give --eval-games N, --value-games N or both" in capsys.readouterr().err
    bot = read_bot(out)
    card = {k: v for k, v in bot.card.items() if k not in ("architecture", "format", "format_version", "files")}
    bare = write_policy(bot.params, bot.arch["activation"], card, tmp_path / "bare", onnx=False)
    assert bare["architecture"]["value_head"] is None
    with pytest.raises(ConfigError, match="no value head"):
        measure_value(tmp_path / "bare", 5, progress=False, log=lambda s: None)
