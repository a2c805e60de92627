"""A tiny training run end to end: train, resume, export, reload; the exported bot matches the
in-memory policy; loading errors are clear (more in test_bot_format.py)."""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest
import torch

from boardzoo.envs import make_game
from boardzoo.training.export import CheckpointError, export_run, load_bot, load_policy, write_policy
from boardzoo.training.policy import NumpyPolicy


def test_run_writes_log_curve_and_checkpoint(tiny_run):
    for f in (
        "config.yaml",
        "log.csv",
        "curve.png",
        "model.zip",
        "policy.npz",
        "best_policy.npz",
        "pool.npz",
        "state.json",
    ):
        assert (tiny_run / f).is_file(), f
    rows = list(csv.DictReader(open(tiny_run / "log.csv")))
    assert len(rows) >= 2 and {"win_random", "lo_heuristic", "hi_heuristic"} <= set(rows[0])
    state = json.loads((tiny_run / "state.json").read_text())
    assert state["steps"] >= 512 and state["imitation"]["decisions"] > 0


def test_resume_continues_the_run(tiny_run, tmp_path):
    from boardzoo.envs import ConfigError
    from boardzoo.training.config import load_config
    from boardzoo.training.train import train

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    cfg = load_config(run / "config.yaml")
    with pytest.raises(ConfigError, match="--resume"):
        train(cfg, run_dir=run, progress=False, log=lambda s: None)
    cfg.total_steps = 1024
    cfg.vec = "dummy"
    train(cfg, run_dir=run, resume=True, progress=False, log=lambda s: None)
    state = json.loads((run / "state.json").read_text())
    assert state["steps"] >= 1024
    rows = list(csv.DictReader(open(run / "log.csv")))
    assert float(rows[-1]["steps"]) >= 1024 and float(rows[0]["steps"]) <= 512


def test_exported_bot_matches_in_memory_policy(tiny_run, tmp_path):
    from sb3_contrib import MaskablePPO

    out = export_run(tiny_run, out=tmp_path / "bot", which="last", progress=False, log=lambda s: None)
    card = json.loads((out / "card.json").read_text())
    assert card["env_id"] == "tinynim_v0" and card["version"] == 0
    assert card["observation_shape"] == [make_game("tinynim_v0").observation_size]
    assert card["training"]["steps"] >= 512 and "boardzoo train" in card["reproduce"]
    assert (out / "weights.safetensors").stat().st_size < 5_000_000 and not (out / "policy.pt").exists()
    assert card["format"] == "boardzoo-bot" and card["architecture"]["hidden"] == [32, 32]
    assert card["observation_layout"] == [
        {"name": n, "offset": o, "length": k} for n, o, k in make_game("tinynim_v0").observation_layout()
    ]
    model = MaskablePPO.load(tiny_run / "model.zip", device="cpu")
    module, _ = load_policy(out, env_id="tinynim_v0")
    bot = load_bot(out, env_id="tinynim_v0")
    game = make_game("tinynim_v0")
    rng = np.random.default_rng(0)
    checked = 0
    for g in range(20):
        st = game.new_initial_state(2 + g % 2)
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            p = st.current_player()
            obs, mask = st.observation(p), st.legal_mask()
            want, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
            assert bot.act({"observation": obs, "action_mask": mask}) == int(want)
            assert int(module(torch.from_numpy(obs), torch.from_numpy(mask))) == int(want)
            checked += 1
            st.apply_action(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 50
    # batched call and the numpy copy agree too
    obs = torch.from_numpy(rng.normal(size=(16, game.observation_size)).astype(np.float32))
    mask = torch.from_numpy((rng.random((16, game.num_actions)) < 0.6).astype(np.int8))
    mask[:, 0] = 1
    acts = module(obs, mask)
    npol = NumpyPolicy([np.load(tiny_run / "policy.npz")[f"arr_{i}"] for i in range(6)])
    assert [npol.act(o, m) for o, m in zip(obs.numpy(), mask.numpy())] == acts.tolist()
    if (out / "policy.onnx").is_file():
        ort = pytest.importorskip("onnxruntime")
        sess = ort.InferenceSession(str(out / "policy.onnx"))
        got = sess.run(None, {"observation": obs.numpy(), "action_mask": mask.numpy()})[0]
        assert got.tolist() == acts.tolist()


def _random_params(game, rng, hidden=(8,)):
    sizes = [game.observation_size, *hidden, game.num_actions]
    out = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        out += [rng.normal(size=(b, a)).astype(np.float32), rng.normal(size=b).astype(np.float32)]
    return out


def _card(game, **kw):
    c = {
        "env_id": game.env_id,
        "version": type(game).version,
        "options": dict(game.options),
        "observation_shape": [game.observation_size],
        "num_actions": game.num_actions,
    }
    c.update(kw)
    return c


def test_loading_errors_are_clear(tiny_games, tmp_path):
    nim, claim = make_game("tinynim_v0"), make_game("claim_v0")
    rng = np.random.default_rng(1)
    good = tmp_path / "good"
    write_policy(_random_params(nim, rng), "tanh", _card(nim), good, onnx=False)
    load_bot(good, env_id="tinynim_v0")
    # a bot for another env
    with pytest.raises(CheckpointError, match="bot for tinynim_v0, not for claim_v0"):
        load_bot(good, env_id="claim_v0")
    # another version
    old = tmp_path / "old"
    write_policy(_random_params(nim, rng), "tanh", _card(nim, version=7), old, onnx=False)
    with pytest.raises(CheckpointError, match="version 7.*installed version is 0"):
        load_bot(old, env_id="tinynim_v0")
    # shapes that do not fit the game (e.g. other options)
    bad = tmp_path / "shape"
    write_policy(
        _random_params(claim, rng),
        "tanh",
        _card(claim, env_id="tinynim_v0", num_actions=claim.num_actions, observation_shape=[claim.observation_size]),
        bad,
        onnx=False,
    )
    with pytest.raises(CheckpointError, match="field 'observation_shape': the bot reads 4 values"):
        load_bot(bad, env_id="tinynim_v0")
    # a damaged file: hash mismatch with the card, and a folder without a card
    dmg = tmp_path / "damaged"
    shutil.copytree(good, dmg)
    data = (dmg / "weights.safetensors").read_bytes()
    (dmg / "weights.safetensors").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="damaged"):
        load_bot(dmg, env_id="tinynim_v0")
    (dmg / "card.json").unlink()
    with pytest.raises(CheckpointError, match="card.json is missing"):
        load_bot(dmg, env_id="tinynim_v0")
    (dmg / "card.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="card.json is damaged"):
        load_bot(dmg, env_id="tinynim_v0")
    # a card that is not a bot card
    other = tmp_path / "other"
    other.mkdir()
    (other / "card.json").write_text('{"hello": 1}')
    with pytest.raises(CheckpointError, match="field 'format' is missing"):
        load_bot(other)
    # nothing there / no shipped bot
    with pytest.raises(CheckpointError, match="no exported bot"):
        load_bot(tmp_path / "nowhere")
    with pytest.raises(CheckpointError, match="no shipped bot for tinynim_v0"):
        load_bot("tinynim_v0")


def test_pickle_is_never_used(tiny_games, tmp_path, monkeypatch):
    """Loading reads data only: torch.load, torch.jit.load and pickle are never called."""
    import pickle

    nim = make_game("tinynim_v0")
    write_policy(_random_params(nim, np.random.default_rng(2)), "relu", _card(nim), tmp_path, onnx=False)

    def forbidden(*a, **k):
        raise AssertionError("unpickling during load")

    monkeypatch.setattr(torch, "load", forbidden)
    monkeypatch.setattr(torch.jit, "load", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    bot = load_bot(tmp_path, env_id="tinynim_v0")
    st = nim.new_initial_state(2)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(np.random.default_rng(0)))
    assert st.legal_mask()[bot.act({"observation": st.observation(0), "action_mask": st.legal_mask()})]


def test_stop_at_bar_ends_the_run_at_the_first_evaluation_that_clears_it(tiny_games, tmp_path):
    """eval.stop_at_bar: the run stops at the first evaluation whose lower bounds all clear
    1/n + margin, and records its steps and wall time (imitation included) in state.json."""
    from boardzoo.training.config import config_from_dict
    from boardzoo.training.train import train

    def cfg(margin):
        return config_from_dict(
            {
                "env_id": "tinynim_v0",
                "total_steps": 4096,
                "n_envs": 2,
                "vec": "dummy",
                "seed": 3,
                "net": {"hidden": [16]},
                "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
                "eval": {"every": 256, "games": 60, "opponents": ["random"], "stop_at_bar": margin},
                "bc": {"games": 40, "epochs": 3},
            }
        )

    lines: list[str] = []
    run = train(cfg(0.0), run_dir=tmp_path / "easy", progress=False, log=lines.append)
    state = json.loads((run / "state.json").read_text())
    rows = list(csv.DictReader(open(run / "log.csv")))
    bar = state["bar"]
    assert bar["margin"] == 0.0 and state["steps"] == bar["steps"] < 4096  # stopped early, at that row
    assert float(rows[-1]["lo_random"]) >= 0.5 and all(float(r["lo_random"]) < 0.5 for r in rows[:-1])
    assert bar["wall_s"] == round(float(rows[-1]["wall_s"]), 1) and any("stop_at_bar" in s for s in lines)
    # a margin no bot can clear: the run goes to total_steps and records no bar
    run = train(cfg(0.99), run_dir=tmp_path / "hard", progress=False, log=lambda s: None)
    state = json.loads((run / "state.json").read_text())
    assert "bar" not in state and state["steps"] >= 4096
