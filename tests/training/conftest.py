"""Fixtures of the training tests: tiny games registered only while a test that asks for them runs.

Under ``pytest -n 2`` one worker runs training tests and conformance tests in turn, and the
conformance suite checks every *registered* game; the tiny games (which do not meet those
contracts) must not be registered then, so ``tiny_games`` registers them for one test at a time
and the session's tiny training run registers them only while it trains."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

TINY = {"tinynim_v0": "tinygames:TinyNimGame", "claim_v0": "tinygames:ClaimGame"}


@contextmanager
def _registered() -> Iterator[list[str]]:
    from boardzoo.envs import register
    from boardzoo.envs.core import registry

    added = [k for k in TINY if k not in registry._ENTRIES]
    for k, v in TINY.items():
        register(k, v)
    try:
        yield list(TINY)
    finally:
        for k in added:
            registry._ENTRIES.pop(k, None)
            registry._LOADED.pop(k, None)


@pytest.fixture
def tiny_games():
    """The tiny test games, registered for this test (and removed again, so no other suite sees them)."""
    with _registered() as ids:
        yield ids


@pytest.fixture
def tiny_run(_tiny_run_dir, tiny_games):
    """A tiny end-to-end training run on tinynim_v0 (trained once per session), its games registered."""
    return _tiny_run_dir


@pytest.fixture(scope="session")
def _tiny_run_dir(tmp_path_factory):
    """A tiny end-to-end training run on tinynim_v0 (a few hundred steps, imitation warm start)."""
    from boardzoo.training.config import config_from_dict
    from boardzoo.training.train import train

    with _registered():
        cfg = config_from_dict(
            {
                "env_id": "tinynim_v0",
                "total_steps": 512,
                "n_envs": 2,
                "vec": "subproc",
                "seed": 3,
                "net": {"hidden": [32, 32]},
                "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 2},
                "pool": {
                    "snapshot_every": 256,
                    "schedule": [
                        {"start": 0.0, "snapshot": 0.5, "heuristic": 0.25, "random": 0.25},
                        {"start": 0.5, "snapshot": 0.8, "heuristic": 0.1, "random": 0.1},
                    ],
                },
                "eval": {"every": 256, "games": 20},
                "bc": {"games": 30, "epochs": 2},
            }
        )
        run = tmp_path_factory.mktemp("runs") / "tinynim"
        train(cfg, run_dir=run, progress=False, log=lambda s: None)
    return run
