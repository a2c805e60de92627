"""Fixtures of the training tests: tiny games registered for the duration of the session only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

TINY = {"tinynim_v0": "tinygames:TinyNimGame", "claim_v0": "tinygames:ClaimGame"}


@pytest.fixture(scope="session")
def tiny_games():
    """Register the tiny test games (and remove them again, so no other suite sees them)."""
    from boardzoo.envs import register
    from boardzoo.envs.core import registry

    added = [k for k in TINY if k not in registry._ENTRIES]
    for k, v in TINY.items():
        register(k, v)
    yield list(TINY)
    for k in added:
        registry._ENTRIES.pop(k, None)
        registry._LOADED.pop(k, None)


@pytest.fixture(scope="session")
def tiny_run(tiny_games, tmp_path_factory):
    """A tiny end-to-end training run on tinynim_v0 (a few hundred steps, imitation warm start)."""
    from boardzoo.training.config import config_from_dict
    from boardzoo.training.train import train

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
