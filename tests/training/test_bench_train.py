"""benchmarks/bench_train.py --time-to-bar: trains a config until it clears the strength bar."""

from __future__ import annotations

import json
from pathlib import Path

from checks import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


def _bench():
    return load_benchmark("bench_train")


def test_time_to_bar_reports_the_first_evaluation_that_clears_it(tiny_games, tmp_path, capsys):
    bench = _bench()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "tinynim_v0.yaml").write_text(
        "env_id: tinynim_v0\ntotal_steps: 2048\nn_envs: 2\nvec: dummy\nseed: 3\nnet: {hidden: [16]}\n"
        "ppo: {n_steps: 64, batch_size: 64, n_epochs: 1}\nbc: {games: 40, epochs: 3}\n"
    )
    bench.ROOT = tmp_path
    out = tmp_path / "ttb.json"
    run = tmp_path / "run"
    argv = ["--time-to-bar", "tinynim_v0", "--bar-every", "256", "--bar-games", "60", "--margin", "-0.5"]
    assert bench.main(argv + ["--run-dir", str(run), "--out", str(out)]) == 0
    r = json.loads(out.read_text())
    # a margin of -0.5 puts the bar at 0 for two players: the first evaluation (step 0) clears it
    assert r["reached"] and r["steps"] == 0 and r["wall_s_to_bar"] >= 0
    assert "after 0 learner steps" in capsys.readouterr().out
    state = json.loads((run / "state.json").read_text())
    assert state["bar"]["steps"] == 0 and state["steps"] == 0 and r["layout"] == "dummy x2"
