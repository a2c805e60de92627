"""Tournaments: line-ups, Wilson intervals and OpenSkill ratings on a rigged match."""

from __future__ import annotations

import json
import math

import pytest

from boardzoo.training.tournament import lineup, run_tournament, save_results, wilson


class Always:
    """Claims the win at once (claim_v0 action 0)."""

    name = "always"
    needs_state = False

    def __init__(self, game=None, seat=0, seed=0):
        pass

    def act(self, obs):
        return 0


class Never(Always):
    """Always passes: never wins."""

    name = "never"

    def act(self, obs):
        return 1


def test_wilson_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    z2 = 1.959963984540054**2
    assert wilson(1000, 1000) == (pytest.approx(1000 / (1000 + z2)), 1.0)
    assert wilson(0, 1000) == (0.0, pytest.approx(z2 / (1000 + z2)))


@pytest.mark.parametrize("k,n", [(2, 2), (2, 4), (3, 4), (4, 4), (5, 3)])
def test_lineups_rotate_seats(k, n):
    games = 4 * n * k
    seen = {}
    for g in range(games):
        lu = lineup(g, k, n)
        assert len(lu) == n and all(0 <= b < k for b in lu)
        if k < n:
            assert lu.count(0) == 1
        for s, b in enumerate(lu):
            seen[(b, s)] = seen.get((b, s), 0) + 1
    for b in range(k):  # every bot visits every seat
        assert all(seen.get((b, s), 0) > 0 for s in range(n))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rigged_match(tiny_games, tmp_path, n):
    games = 1000
    res = run_tournament("claim_v0", [Always, Never], games, num_players=n, workers=2, progress=False)
    rows = {r["bot"]: r for r in res.table()}
    a, b = rows["always"], rows["never"]
    assert a["seat_games"] == games and b["seat_games"] == games * (n - 1)
    assert a["win_rate"] == 1.0 and b["win_rate"] == 0.0
    z2 = 1.959963984540054**2
    assert a["ci95"][0] == pytest.approx(games / (games + z2)) and a["ci95"][1] == 1.0
    assert b["ci95"][0] == 0.0 and b["ci95"][1] == pytest.approx(z2 / (b["seat_games"] + z2))
    assert a["above_even_share"] and not b["above_even_share"] and a["even_share"] == pytest.approx(1 / n)
    # ratings: the winner far above, both confident
    assert a["mu"] > 25 + 5 and b["mu"] < 25 - 5 and a["ordinal"] > b["ordinal"] + 10
    assert a["sigma"] < 25 / 3 and b["sigma"] < 25 / 3
    jp, pp = save_results(res, tmp_path / "rigged")
    data = json.loads(jp.read_text())
    assert data["num_games"] == games and len(data["games"]) == games and pp.stat().st_size > 1000


def test_even_match_is_even(tiny_games):
    res = run_tournament("claim_v0", [Never, Never], 200, num_players=2, workers=1, progress=False)
    for r in res.table():  # every game ends in a shared win: half a win per seat
        assert r["win_rate"] == pytest.approx(0.5) and r["ci95"][0] < 0.5 < r["ci95"][1]
        assert math.isclose(r["mu"], 25.0)


def test_options_default_to_the_neural_bots_own(tiny_games, tmp_path):
    """A bot trained with non-default options (e.g. downforce's action_features) gets them in a
    tournament that names no options; explicit options still win."""
    import numpy as np

    from boardzoo.envs import make_game
    from boardzoo.training.bots import default_options
    from boardzoo.training.export import write_policy

    game = make_game("tinynim_v0", max_pile=6)
    rng = np.random.default_rng(0)
    params = [
        rng.normal(size=(8, game.observation_size)).astype(np.float32),
        np.zeros(8, np.float32),
        rng.normal(size=(game.num_actions, 8)).astype(np.float32),
        np.zeros(game.num_actions, np.float32),
    ]
    card = {
        "env_id": "tinynim_v0",
        "version": 0,
        "options": dict(game.options),
        "observation_shape": [game.observation_size],
        "num_actions": game.num_actions,
    }
    bot = tmp_path / "bot"
    write_policy(params, "tanh", card, bot, onnx=False)
    assert default_options("tinynim_v0", ["random", f"neural:{bot}"]) == {"max_pile": 6}
    assert default_options("tinynim_v0", ["random", "heuristic"]) == {}
    res = run_tournament("tinynim_v0", [f"neural:{bot}", "random"], 6, workers=1, progress=False)
    assert res.options == {"max_pile": 6} and res.to_json()["options"] == {"max_pile": 6}
    res = run_tournament(
        "tinynim_v0", [f"neural:{bot}", "random"], 6, options={"max_pile": 9}, workers=1, progress=False
    )
    assert res.options == {"max_pile": 9}
    # options that change what the bot reads are refused before any game, naming the option to set
    from boardzoo.training.export import CheckpointError

    with pytest.raises(CheckpointError, match="set action_features=True"):
        run_tournament("downforce_v0", ["neural", "random"], 2, options={}, workers=1, progress=False)


class Slow(Always):
    """Claims the win, slowly: games that outlast a deadline."""

    name = "slow"

    def act(self, obs):
        import time

        time.sleep(0.02)
        return 0


@pytest.mark.parametrize("n,bots", [(2, [Slow, Never]), (4, [Slow, Never, Never])])
def test_deadline_keeps_a_seat_balanced_prefix(tiny_games, n, bots):
    import time

    res = run_tournament("claim_v0", bots, 2000, num_players=n, workers=2, progress=False, deadline=time.time() + 1.0)
    m = len(res.games)
    assert res.truncated and res.to_json()["truncated"] and 0 < m < 2000
    assert [r["game"] for r in res.games] == list(range(m))  # the first m game numbers, none skipped
    cycle = n * (len(bots) - 1) if len(bots) < n else len(bots)
    assert m % cycle == 0  # whole seat rotations: the measured bot sat in every seat equally often
    seats = [r["seats"].index(0) for r in res.games]
    assert all(seats.count(s) == m // n for s in range(n))
    slow = res.table()[0]
    assert slow["seat_games"] == m and slow["win_rate"] == 1.0


def test_no_deadline_hit_plays_every_game(tiny_games):
    import time

    res = run_tournament("claim_v0", [Always, Never], 50, workers=2, progress=False, deadline=time.time() + 600)
    assert not res.truncated and len(res.games) == 50


def test_one_thread_limits_torch_and_blas_in_the_process():
    """Workers run the bots' numpy products on one BLAS thread (a spinning pool slowed searches ~3x)."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json, numpy, threadpoolctl, torch\n"
        "from boardzoo.training.tournament import one_thread\n"
        "one_thread()\n"
        "pools = [i['num_threads'] for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']\n"
        "print(json.dumps([torch.get_num_threads(), pools]))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    torch_threads, pools = json.loads(out.stdout)
    assert torch_threads == 1
    assert pools and set(pools) == {1}  # numpy's BLAS was found, and limited


def test_resume_plays_the_missing_games_as_the_whole_run_would(tiny_games, tmp_path):
    from boardzoo.training.tournament import Results

    full = run_tournament(
        "claim_v0", ["random", "random", "random"], 24, num_players=3, workers=2, seed=7, progress=False
    )
    part = Results.from_json(full.to_json())
    keep = [r for r in part.games if r["game"] % 5 != 2][:15]  # a gap-ridden subset, as a stopped run leaves
    part.games, part.truncated = keep, True
    save_results(part, tmp_path / "part")
    res = run_tournament(
        "claim_v0", ["random", "random", "random"], 24, num_players=3, workers=2, seed=7, progress=False,
        resume=Results.load(tmp_path / "part.json"),
    )  # fmt: skip
    assert not res.truncated and res.games == full.games and res.seed == 7 and res.planned == 24
    assert res.table() == full.table()
    # more games than the earlier run: its 24 kept, 25..29 played
    more = run_tournament(
        "claim_v0", ["random", "random", "random"], 30, num_players=3, workers=1, seed=7, progress=False, resume=res
    )
    assert more.games[:24] == full.games and [r["game"] for r in more.games] == list(range(30))


@pytest.mark.parametrize(
    "change,field",
    [
        ({"seed": 8}, "seed"),
        ({"bots": ["random", "random"]}, "bots"),
        ({"num_players": 2}, "players"),
        ({"games": 10}, "game 1"),
    ],
)
def test_resume_refuses_another_tournament(tiny_games, change, field):
    from boardzoo.envs import BoardZooError

    base = {"bots": ["random", "random", "random"], "num_players": 3, "seed": 7, "games": 12}
    first = run_tournament("claim_v0", base["bots"], 12, num_players=3, workers=1, seed=7, progress=False)
    first.games = first.games[1:]
    kw = {**base, **change}
    games = kw.pop("games")
    with pytest.raises(BoardZooError, match=field):
        run_tournament("claim_v0", games=games, workers=1, progress=False, resume=first, **kw)


def test_results_without_a_seed_key_take_the_commands(tiny_games, tmp_path):
    from boardzoo.envs import BoardZooError
    from boardzoo.training.tournament import Results

    res = run_tournament(
        "claim_v0", [Always, Never], 4, workers=1, seed=3, progress=False, command="boardzoo eval x --seed 3"
    )
    data = res.to_json()
    del data["seed"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert Results.load(tmp_path / "old.json").seed == 3
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(BoardZooError, match="bad.json: not a tournament results file"):
        Results.load(tmp_path / "bad.json")


def test_chunks_spread_the_games_left_to_play_over_the_workers():
    from boardzoo.training.tournament import chunk_size

    assert chunk_size(10, 2, None) == 1  # a resume with 10 of 200 games left: not one chunk on one worker
    assert chunk_size(200, 2, None) == 12 and chunk_size(100_000, 2, None) == 16
    assert chunk_size(200, 2, deadline=1.0) == 1
