"""The terminal player (bad input re-asked) and the CLI commands on a tiny game."""

from __future__ import annotations

import json

from boardzoo.training.cli import main
from boardzoo.training.play import play


def test_play_reasks_bad_input_and_finishes(tiny_games):
    answers = iter(["", "x", "-1", "99", "0"] + ["0"] * 50)
    out = []
    res = play(
        "tinynim_v0", players=2, seat=1, vs="random", seed=3, input_fn=lambda prompt: next(answers), print_fn=out.append
    )
    text = "\n".join(out)
    assert res is not None and res["winners"]
    assert "Tiny Nim: pile" in text and "[0] take 1" in text
    assert text.count("is not a move number") == 4
    assert "seat 0 (random) plays: take" in text


def test_play_quit(tiny_games):
    out = []
    assert play("tinynim_v0", seat=0, vs="heuristic", seed=1, input_fn=lambda p: "q", print_fn=out.append) is None


def test_cli_eval_and_errors(tiny_games, tmp_path, capsys):
    stem = tmp_path / "res"
    assert (
        main(
            [
                "eval",
                "tinynim_v0",
                "--bots",
                "heuristic,random,mcts:10",
                "--games",
                "30",
                "--workers",
                "1",
                "--out",
                str(stem),
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "95% CI" in printed and "heuristic" in printed
    data = json.loads(stem.with_suffix(".json").read_text())
    assert data["num_games"] == 30 and stem.with_suffix(".png").is_file()
    assert main(["eval", "tinynim_v0", "--bots", "alphago", "--games", "3"]) == 2
    assert "unknown bot 'alphago'" in capsys.readouterr().err
    assert main(["eval", "nosuch_v0", "--bots", "random"]) == 2
    assert "unknown env id" in capsys.readouterr().err
    assert main(["eval", "tinynim_v0", "--bots", "neural", "--games", "3"]) == 2
    assert "no shipped bot for tinynim_v0" in capsys.readouterr().err
    base = ["eval", "tinynim_v0", "--bots", "heuristic,random,mcts:10", "--workers", "1", "--no-progress"]
    more = tmp_path / "more"
    assert main([*base, "--games", "36", "--resume", str(stem.with_suffix(".json")), "--out", str(more)]) == 0
    grown = json.loads(more.with_suffix(".json").read_text())
    assert grown["num_games"] == 36 and grown["games"][:30] == data["games"]
    assert main([*base, "--games", "36", "--seed", "1", "--resume", str(stem.with_suffix(".json"))]) == 2
    assert "another tournament: seed 0 there, 1 here" in capsys.readouterr().err


def test_cli_train_bad_config(tiny_games, tmp_path, capsys):
    p = tmp_path / "bad.yaml"
    p.write_text("env_id: tinynim_v0\ntotal_steps: lots\n")
    assert main(["train", str(p)]) == 2
    assert "total_steps: must be an integer" in capsys.readouterr().err


def test_cli_train_export_play(tiny_games, tmp_path, capsys, monkeypatch):
    cfg = tmp_path / "tinynim_v0.yaml"
    cfg.write_text(
        "env_id: tinynim_v0\ntotal_steps: 256\nn_envs: 1\nvec: dummy\nnet: {hidden: [16]}\n"
        "ppo: {n_steps: 128, batch_size: 64, n_epochs: 1}\neval: {every: 256, games: 4}\n"
    )
    run = tmp_path / "run"
    assert main(["train", str(cfg), "--run-dir", str(run), "--no-progress"]) == 0
    assert (
        main(
            [
                "export",
                str(run),
                "--out",
                str(tmp_path / "bot"),
                "--eval-games",
                "10",
                "--workers",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    card = json.loads((tmp_path / "bot" / "card.json").read_text())
    assert set(card["strength"]["results"]) == {"random", "heuristic"}
    assert card["strength"]["results"]["random"]["games"] == 10
    for r in card["strength"]["results"].values():  # issue 19's margin, recorded per opponent and overall
        assert r["clears_margin"] == (r["ci95"][0] >= card["strength"]["even_share"] + 0.05)
    assert card["strength"]["clears_margin"] == all(r["clears_margin"] for r in card["strength"]["results"].values())
    monkeypatch.setattr("builtins.input", lambda prompt: "0")
    assert main(["play", "tinynim_v0", "--seat", "0", "--vs", f"neural:{tmp_path / 'bot'}", "--seed", "1"]) == 0
    assert "winners" in capsys.readouterr().out
