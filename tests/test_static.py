"""Static checks of the sources: ruff lint, ruff format check and mypy, configured in pyproject.toml
(ruff on every Python folder, mypy on the installed packages). Part of the test run, so CI holds them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
FOLDERS = ("envs", "training", "integrations", "web", "tests", "scripts", "benchmarks")


def _tool(name: str) -> str:
    exe = BIN / name
    if exe.exists():
        return str(exe)
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed (it is in the dev extra: pip install -e '.[dev]')")
    return found


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=900)


def test_ruff_lint_is_clean():
    r = _run(_tool("ruff"), "check", *FOLDERS)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_ruff_format_is_clean():
    r = _run(_tool("ruff"), "format", "--check", *FOLDERS)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


def test_mypy_is_clean():
    r = _run(_tool("mypy"))  # files and settings: [tool.mypy] in pyproject.toml
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
