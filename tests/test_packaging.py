"""The distribution maps envs/ -> boardzoo.envs, training/ -> boardzoo.training and checkpoints/ ->
boardzoo.checkpoints (the shipped bots), with their data files; an installed wheel plays every
shipped bot from anywhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


SHIPPED = sorted(p.name for p in (ROOT / "checkpoints").iterdir() if (p / "card.json").is_file())
BOT_FILES = {"card.json", "weights.safetensors", "policy.onnx"}
# Seven shipped bots (weights + ONNX each): 18.9 MB at harmonies_v0's arrival, whose 2,827-input net
# with its value head is 9.2 MB of float32 on its own (float16 weights would halve it; not in the
# format yet); eight: 25.7 MB at metromania_v0's arrival (a 6,317-input [64, 64] net with its value
# head: 3.3 MB of weights + 1.7 MB ONNX). The cap still catches a stray run folder or evaluation
# record in the wheel.
MAX_WHEEL_BYTES = 30_000_000


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """A wheel built from a copy of the checkout (an in-tree build shares build/ and *.egg-info with
    anyone else building in the same checkout at the same time)."""
    out = tmp_path_factory.mktemp("wheel")
    src = out / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "runs", "*.egg-info", "__pycache__", ".pytest_cache", "eval_*"
        ),
    )
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{r.stderr[-2000:]}")
    (whl,) = out.glob("boardzoo-*.whl")
    return whl


@pytest.fixture(scope="module")
def wheel_files(wheel):
    return set(zipfile.ZipFile(wheel).namelist())


def test_wheel_maps_folders_onto_boardzoo_namespace(wheel_files):
    assert "boardzoo/envs/core/game.py" in wheel_files
    assert "boardzoo/training/__init__.py" in wheel_files
    assert not any(f.startswith(("envs/", "training/", "tests/")) for f in wheel_files)


def test_wheel_carries_every_game_with_its_data(wheel_files):
    for game_dir in sorted(p for p in (ROOT / "envs").iterdir() if (p / "__init__.py").exists() and p.name != "core"):
        assert f"boardzoo/envs/{game_dir.name}/__init__.py" in wheel_files
        for data in game_dir.rglob("*.json"):
            assert f"boardzoo/envs/{game_dir.name}/{data.relative_to(game_dir).as_posix()}" in wheel_files
        if (game_dir / "RULES.md").exists():
            assert f"boardzoo/envs/{game_dir.name}/RULES.md" in wheel_files


def test_imports_only_under_boardzoo_names():
    # the top-level folders are not importable as 'envs'/'training' from an installed package
    r = subprocess.run(
        [sys.executable, "-c", "import boardzoo.envs, boardzoo.envs.core.adapter; print('ok')"],
        capture_output=True,
        text=True,
        cwd="/",
    )
    assert r.stdout.strip() == "ok", r.stderr


def test_wheel_ships_every_bot_without_its_evaluation_records(wheel, wheel_files):
    assert SHIPPED, "no shipped bots found in checkpoints/"
    for env_id in SHIPPED:
        listed = set(json.loads((ROOT / "checkpoints" / env_id / "card.json").read_text())["files"]) | {"card.json"}
        have = {f.rsplit("/", 1)[1] for f in wheel_files if f.startswith(f"boardzoo/checkpoints/{env_id}/")}
        assert have == listed <= BOT_FILES, (env_id, have, listed)
    assert not any("/eval_" in f for f in wheel_files)
    assert wheel.stat().st_size < MAX_WHEEL_BYTES, f"wheel is {wheel.stat().st_size} bytes"


_PLAY_EVERY_SHIPPED_BOT = """
import json, os, sys
import numpy as np
import boardzoo.envs, boardzoo.training
from boardzoo.envs import make_game
from boardzoo.envs.core.game import CHANCE
from boardzoo.training.export import load_bot, shipped_bot_dir

site = sys.argv[1]
for mod in (boardzoo.envs, boardzoo.training):
    assert mod.__file__.startswith(site), (mod.__file__, site)   # the wheel, not the checkout
out = {}
for env_id in sys.argv[2:]:
    folder = shipped_bot_dir(env_id)
    assert str(folder).startswith(site), folder
    bot = load_bot(env_id)                                      # by env id, from an unrelated cwd
    game = make_game(env_id, **bot.card["options"])
    rng = np.random.default_rng(0)
    st = game.new_initial_state(type(game).default_players)
    moves = 0
    while not st.is_terminal():
        p = st.current_player()
        if p == CHANCE:
            st.apply_action(st.sample_chance(rng))
            continue
        mask = st.legal_mask()
        a = bot.act({"observation": st.observation(p), "action_mask": mask})
        assert mask[a], (env_id, a)
        st.apply_action(a)
        moves += 1
    out[env_id] = moves
print(json.dumps(out))
"""


def test_installed_wheel_plays_every_shipped_bot_from_anywhere(wheel, tmp_path):
    """A fresh venv gets the wheel (its dependencies come from this venv through a .pth line, so
    torch is not installed again); from a directory outside the checkout, every shipped bot loads by
    env id from the installed package and plays a legal game."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # this venv's packages (torch, safetensors, numpy, ...) after the fresh site-packages; the
    # editable install's own .pth is not processed from there, so the checkout is not importable
    (Path(site) / "_deps_from_test_venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "BOARDZOO_CHECKPOINTS", "PYTHONHOME")}
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()
    r = subprocess.run(
        [str(py), "-c", textwrap.dedent(_PLAY_EVERY_SHIPPED_BOT), site, *SHIPPED],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    moves = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(moves) == set(SHIPPED) and all(m > 0 for m in moves.values()), moves
