"""Expert iteration (``boardzoo distill``): the bot's search teaches its policy and value head."""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardzoo.envs import ConfigError, make_game
from boardzoo.training.botformat import read_bot
from boardzoo.training.cli import main
from boardzoo.training.distill import collect, distill
from boardzoo.training.export import write_policy
from boardzoo.training.policy import NumpyPolicy, NumpyValue
from boardzoo.training.search import search_bot

# Nim (take 1-3, the last stone wins): from these piles the only winning move leaves a multiple of 4
WINNING = {2: 1, 3: 2, 6: 1, 7: 2}


@pytest.fixture
def blank_bot(tiny_games, tmp_path):
    """A tinynim_v0 bot that knows nothing: all weights zero (uniform policy; ties go to action 0)."""
    game = make_game("tinynim_v0")
    n, a, h = game.observation_size, game.num_actions, 8
    params = [
        np.zeros((h, n), np.float32),
        np.zeros(h, np.float32),
        np.zeros((a, h), np.float32),
        np.zeros(a, np.float32),
    ]
    card = {
        "env_id": game.env_id,
        "version": type(game).version,
        "options": dict(game.options),
        "observation_shape": [n],
        "num_actions": a,
        "training": {"reward": "win"},
    }
    folder = tmp_path / "blank"
    write_policy(params, "tanh", card, folder, onnx=False)
    return folder


def _greedy(folder, pile):
    bot = read_bot(folder)
    game = bot.game
    st = game.state_from_dict({"n": 2, "pile": pile, "turn": 0, "cards": [0, 1], "last": -1})
    return NumpyPolicy(bot.params, bot.arch["activation"]).act(st.observation(0), st.legal_mask()), bot, st


def test_distill_teaches_the_policy_the_search_moves(blank_bot, tmp_path):
    """The blank bot takes one stone everywhere (wrong from piles 3, 6 and 7); its search (random
    playouts) finds the winning moves, and one distillation round puts them into the policy."""
    assert sum(_greedy(blank_bot, p)[0] == m for p, m in WINNING.items()) <= 1
    out = tmp_path / "distilled"
    card = distill(
        str(blank_bot),
        out,
        games=80,
        opponents=["random"],
        simulations=200,
        epochs=40,
        lr=1e-2,
        workers=1,
        seed=0,
        progress=False,
        log=lambda s: None,
    )
    right = {p: _greedy(out, p)[0] == m for p, m in WINNING.items()}
    assert sum(right.values()) >= 3, right
    (d,) = card["training"]["distill"]
    assert d["teacher"] == "neural+search:200" and d["games"] == 80 and d["opponents"] == ["random"]
    assert d["fit"]["held_out"]["after"]["policy_ce"] < d["fit"]["held_out"]["before"]["policy_ce"]
    assert card["architecture"]["value_head"] == {"hidden": [128, 128]}  # a new value head, fitted
    _, bot, st = _greedy(out, 3)  # the mover wins from 3 stones, loses from 4
    val = NumpyValue(bot.value_params, "tanh")
    lose = bot.game.state_from_dict({"n": 2, "pile": 4, "turn": 0, "cards": [0, 1], "last": -1})
    assert val.value(st.observation(0)) > val.value(lose.observation(0))
    assert "strength" not in card  # the source bot's figures are not the new bot's


def test_distill_value_only_keeps_the_policy_exactly(blank_bot, tmp_path):
    src = read_bot(blank_bot)
    src.tensors["layers.0.weight"][:] = np.random.default_rng(0).normal(size=src.tensors["layers.0.weight"].shape)
    folder = tmp_path / "nonblank"
    card = {k: src.card[k] for k in ("env_id", "version", "options", "observation_shape", "num_actions", "training")}
    card["strength"] = {"results": {"heuristic": {"win_rate": 0.6}}}
    write_policy(src.params, "tanh", card, folder, onnx=False)
    out = tmp_path / "valued"
    kw = dict(games=20, opponents=["random"], teacher="neural", epochs=2, workers=1, progress=False, log=lambda s: None)
    distill(str(folder), out, policy_weight=0.0, **kw)
    old, new = read_bot(folder), read_bot(out)
    for k, v in old.tensors.items():
        assert np.array_equal(new.tensors[k], v), k
    # the same policy plays as before: its measured strength stands; a policy fit drops it
    assert new.card["strength"] == card["strength"]
    distill(str(folder), tmp_path / "refit", **kw)
    assert "strength" not in read_bot(tmp_path / "refit").card
    assert new.value_params is not None and old.value_params is None
    # the search reads what the fitted head estimates, not the policy's training reward
    assert new.card["training"]["value_reward"] == "win"
    new.card["training"].update(reward="score", value_reward="win")
    assert search_bot(new).reward == "win"
    new.card["training"].pop("value_reward")
    assert search_bot(new).reward == "score"


def test_collect_records_the_teacher_seat_only_for_the_policy(blank_bot):
    data = collect(str(blank_bot), 6, ["random", "heuristic"], simulations=20, workers=1, seed=1, progress=False)
    assert len(data["pol_obs"]) == len(data["pol_target"]) == len(data["pol_mask"]) > 0
    assert np.allclose(data["pol_target"].sum(1), 1.0)
    assert not np.any(data["pol_target"][data["pol_mask"] == 0])  # visits only on legal actions
    assert len(data["val_obs"]) > len(data["pol_obs"])  # every seat's decisions are value targets
    assert set(np.unique(data["val_target"])) <= {-1.0, 1.0}  # tinynim: one winner, returns +-1
    assert sorted(np.unique(data["pol_game"]).tolist()) == list(range(6))


def test_distill_errors(blank_bot, tmp_path):
    with pytest.raises(ConfigError, match="teacher"):
        collect(str(blank_bot), 2, ["random"], teacher="mcts", workers=1, progress=False)
    with pytest.raises(ConfigError, match="--opponents"):
        collect(str(blank_bot), 2, ["nonsense"], workers=1, progress=False)
    with pytest.raises(ConfigError, match="own folder"):
        distill(str(blank_bot), blank_bot, games=2, workers=1, progress=False, log=lambda s: None)


def test_distill_cli(blank_bot, tmp_path, capsys):
    out, data = tmp_path / "cli", tmp_path / "d.npz"
    args = [
        "distill",
        str(blank_bot),
        "--out",
        str(out),
        "--games",
        "4",
        "--simulations",
        "10",
        "--epochs",
        "1",
        "--opponents",
        "random",
        "--workers",
        "1",
        "--data",
        str(data),
        "--no-progress",
    ]
    assert main(args) == 0
    assert data.exists() and read_bot(out).value_params is not None
    card = json.loads((out / "card.json").read_text())
    (d,) = card["training"]["distill"]
    assert d["command"].startswith("boardzoo distill")
    assert card["reproduce"] == d["command"]  # the blank bot had no recipe
    again = tmp_path / "again"  # a second round from the first's data: both rounds recorded, recipe chained
    assert main(["distill", str(out), "--out", str(again), "--data", str(data), "--epochs", "1", "--no-progress"]) == 0
    card2 = json.loads((again / "card.json").read_text())
    assert [r["from"] for r in card2["training"]["distill"]] == [str(blank_bot), str(out)]
    assert card2["reproduce"].startswith(d["command"] + " && boardzoo distill " + str(out))
    assert main(args[:1] + [str(blank_bot), "--out", str(blank_bot), "--no-progress"]) == 2  # a clear error, no trace
    assert "own folder" in capsys.readouterr().err


def test_distill_policy_only_keeps_the_value_head_exactly(blank_bot, tmp_path):
    kw = dict(games=12, opponents=["random"], teacher="neural", epochs=2, workers=1, progress=False, log=lambda s: None)
    with pytest.raises(ConfigError, match="has none"):  # no value head to keep
        distill(str(blank_bot), tmp_path / "x", value_weight=0.0, **kw)
    valued, out = tmp_path / "valued", tmp_path / "policy"
    distill(str(blank_bot), valued, policy_weight=0.0, **kw)
    card = distill(str(valued), out, value_weight=0.0, lr=1e-2, **kw)
    old, new = read_bot(valued), read_bot(out)
    assert new.value_params is not None
    for k, v in old.tensors.items():
        if k.startswith("value_layers."):
            assert np.array_equal(new.tensors[k], v), k
    assert any(not np.array_equal(new.tensors[k], v) for k, v in old.tensors.items() if k.startswith("layers."))
    assert card["training"]["distill"][-1]["value_weight"] == 0.0
    with pytest.raises(ConfigError, match="nothing to fit"):
        distill(str(valued), tmp_path / "y", policy_weight=0.0, value_weight=0.0, **kw)


def test_distill_data_file_records_its_games_and_refuses_another_games(blank_bot, tmp_path):
    """``--data``: the file keeps what recorded its games (teacher, opponents, the bot's weights);
    a fit from it records that, not the command line's; a file of other observations or no data
    file is refused with a ConfigError naming it, before anything is written."""
    data = tmp_path / "d.npz"
    quiet = dict(workers=1, progress=False, log=lambda s: None, epochs=1)
    distill(str(blank_bot), tmp_path / "a", games=3, opponents=["random"], simulations=8, data_path=data, **quiet)
    with np.load(data, allow_pickle=False) as z:
        rec = json.loads(str(z["recorded_by"]))
    assert rec["teacher"] == "neural+search:8" and rec["opponents"] == ["random"]
    assert rec["env_id"] == "tinynim_v0" and rec["bot_weights_sha256"]
    # a second fit reads the file: its round names the games' teacher and opponents, not the defaults
    card = distill(str(blank_bot), tmp_path / "b", data_path=data, **quiet)
    last = card["training"]["distill"][-1]
    assert last["teacher"] == "neural+search:8" and last["opponents"] == ["random"]
    assert last["data"]["recorded_by"]["bot_weights_sha256"] == rec["bot_weights_sha256"]
    # observations of another width: refused, nothing written
    with np.load(data, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["pol_obs"] = np.zeros((len(arrays["pol_obs"]), 3), np.float32)
    bad = tmp_path / "bad.npz"
    np.savez(bad, **arrays)
    with pytest.raises(ConfigError, match=r"pol_obs.*the bot reads"):
        distill(str(blank_bot), tmp_path / "c", data_path=bad, **quiet)
    assert not (tmp_path / "c").exists()
    other = dict(
        arrays, pol_obs=np.load(data)["pol_obs"], recorded_by=np.array(json.dumps(dict(rec, env_id="claim_v0")))
    )
    np.savez(bad, **other)
    with pytest.raises(ConfigError, match="holds claim_v0 games; the bot plays tinynim_v0"):
        distill(str(blank_bot), tmp_path / "c", data_path=bad, **quiet)
    junk = tmp_path / "junk.npz"
    np.savez(junk, x=np.zeros(3))
    with pytest.raises(ConfigError, match=r"lacks \['pol_obs'"):
        distill(str(blank_bot), tmp_path / "c", data_path=junk, **quiet)
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(ConfigError, match="not a distill data file"):
        distill(str(blank_bot), tmp_path / "c", data_path=tmp_path / "text.npz", **quiet)
