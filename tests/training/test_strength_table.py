"""benchmarks/strength_table.py: the per-game table of neural, search, IS-MCTS and heuristic bots."""

from __future__ import annotations

import json

import pytest
from checks import load_benchmark


def _table():
    return load_benchmark("strength_table")


def test_rows_are_played_and_written(tmp_path, capsys):
    table = _table()
    out = tmp_path / "st"
    argv = ["--envs", "challengers_v0", "--rows", "search-neural,neural-heuristic,mcts-heuristic", "--search", "4"]
    argv += ["--search-games", "4", "--heuristic-games", "2", "--mcts", "3", "--mcts-games", "2", "--time-games", "1"]
    assert table.main(argv + ["--workers", "1", "--out", str(out), "--no-progress"]) == 0
    data = json.loads((out / "strength.json").read_text())
    rows = {r["row"]: r for r in data["rows"]}
    assert rows["search-neural"]["bots"] == ["neural+search:4", "neural"] and rows["search-neural"]["games"] == 4
    assert rows["neural-heuristic"]["bots"] == ["neural", "heuristic"] and rows["neural-heuristic"]["games"] == 2
    assert rows["mcts-heuristic"]["bots"] == ["mcts:3", "heuristic"]
    for r in rows.values():
        first = r["table"][0]
        assert not r["truncated"] and first["seat_games"] == r["games"] and 0 <= first["win_rate"] <= 1
        assert (out / f"challengers_v0__{r['row']}.json").is_file()
    t = data["search_timing"]["challengers_v0"]
    assert t["decisions"] > 0 and t["s_per_decision"] > 0
    md = (out / "table.md").read_text()
    assert "| challengers_v0 | search-neural | neural+search:4 vs neural | 4 |" in md
    assert "challengers_v0:" in md and "s over" in md


def test_slow_mcts_games_use_the_smaller_budget():
    table = _table()
    import argparse

    a = argparse.Namespace(
        search=50, search_games=10, mcts=1000, mcts_games=100, slow_mcts={"hydropolis_v0"}, slow_mcts_sims=300,
        slow_mcts_games=200, heuristic_games=7, search_kind="neural+search",
    )  # fmt: skip
    assert table.lineup_for("search-mcts", "hydropolis_v0", a) == (["neural+search:50", "mcts:300"], 200)
    assert table.lineup_for("search-mcts", "challengers_v0", a) == (["neural+search:50", "mcts:1000"], 100)
    assert table.lineup_for("search-heuristic", "challengers_v0", a) == (["neural+search:50", "heuristic"], 7)
    a.search_kind = "neural+gumbel"
    assert table.lineup_for("search-neural", "challengers_v0", a) == (["neural+gumbel:50", "neural"], 10)
    a.rollout_mix = 0.5
    assert table.lineup_for("search-mcts", "challengers_v0", a) == (["neural+gumbel:50:mix=0.5", "mcts:1000"], 100)


def test_past_the_deadline_rows_are_listed_as_not_run(tmp_path):
    table = _table()
    out = tmp_path / "st"
    assert table.main(["--envs", "challengers_v0", "--deadline-s", "1e-9", "--out", str(out), "--no-progress"]) == 0
    data = json.loads((out / "strength.json").read_text())
    assert [r["status"] for r in data["rows"]] == ["not run", "not run"] and data["search_timing"] == {}
    assert (
        "| challengers_v0 | search-mcts | neural+search:100 vs mcts:1000 | not run |" in (out / "table.md").read_text()
    )


def test_unknown_row_is_refused(tmp_path):
    with pytest.raises(SystemExit):
        _table().main(["--rows", "search-everything", "--out", str(tmp_path)])


def test_bench_search_times_each_bot_in_each_game(tmp_path, capsys):
    bench = load_benchmark("bench_search")
    out = tmp_path / "search.json"
    argv = ["--env", "get_on_board_v0", "--env", "hidden_castle_v0", "--bots", "mcts:5,neural+search:3"]
    assert bench.main(argv + ["--decisions", "3", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["env_id"] for r in data["rows"]] == ["get_on_board_v0", "hidden_castle_v0"]
    for r in data["rows"]:
        assert r["mcts:5"] > 0 and r["neural+search:3"] > 0
    assert "| `hidden_castle_v0` |" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        bench.main(["--decisions", "0"])


def test_resume_finishes_a_partial_row(tmp_path):
    table = _table()
    out = tmp_path / "st"
    argv = ["--envs", "challengers_v0", "--rows", "search-neural", "--search", "2", "--search-games", "4"]
    argv += ["--time-games", "0", "--workers", "1", "--out", str(out), "--no-progress"]
    assert table.main(argv) == 0
    path = out / "challengers_v0__search-neural.json"
    whole = json.loads(path.read_text())
    cut = dict(whole, games=whole["games"][:2], truncated=True)
    path.write_text(json.dumps(cut))
    assert table.main(argv + ["--resume"]) == 0
    again = json.loads(path.read_text())
    assert [g["game"] for g in again["games"]] == [0, 1, 2, 3] and not again["truncated"]
    assert again["games"] == whole["games"]  # the missing games are the ones the whole run played
