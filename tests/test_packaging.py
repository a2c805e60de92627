"""The distribution maps envs/ -> boardzoo.envs and training/ -> boardzoo.training, with data files."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(out), str(ROOT)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail(f"pip wheel failed:\n{r.stderr[-2000:]}")
    (whl,) = out.glob("boardzoo-*.whl")
    return set(zipfile.ZipFile(whl).namelist())


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
    r = subprocess.run([sys.executable, "-c", "import boardzoo.envs, boardzoo.envs.core.adapter; print('ok')"],
                       capture_output=True, text=True, cwd="/")
    assert r.stdout.strip() == "ok", r.stderr
