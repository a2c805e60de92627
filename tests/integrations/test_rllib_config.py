"""``backend: rllib`` in the training config (no Ray needed): strict validation, shipped configs load."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardzoo.envs import ConfigError, names
from boardzoo.training.config import config_from_dict, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "rllib"


def _shipped_games() -> list[str]:
    """The registered games of the package (test fixtures may register tiny games for a while)."""
    from boardzoo.envs.core import registry

    return sorted(
        n for n in names() if registry._ENTRIES[n].startswith("boardzoo.envs.") and "._" not in registry._ENTRIES[n]
    )


def test_every_game_has_an_rllib_config_that_loads():
    assert sorted(p.stem for p in CONFIGS.glob("*.yaml")) == _shipped_games()
    for p in CONFIGS.glob("*.yaml"):
        cfg = load_config(p)
        assert cfg.backend == "rllib" and cfg.env_id == p.stem and cfg.rllib.address is None


@pytest.mark.parametrize(
    "bad,key",
    [
        ({"backend": "jax"}, "backend"),
        ({"backend": "rllib", "bc": {"games": 10}}, "bc.games"),
        ({"rllib": {"num_env_runners": -1}}, "rllib.num_env_runners"),
        ({"rllib": {"learner_seats": "two"}}, "rllib.learner_seats"),
        ({"rllib": {"mode": "async"}}, "rllib.mode"),
        ({"rllib": {"address": "cluster"}}, "rllib.address"),
        ({"rllib": {"num_runners": 2}}, "rllib.num_runners"),
    ],
)
def test_bad_rllib_settings_name_the_key(bad, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        config_from_dict({"env_id": "hidden_castle_v0", **bad})


def test_defaults_keep_sb3_and_local_ray():
    cfg = config_from_dict({"env_id": "hidden_castle_v0"})
    assert cfg.backend == "sb3" and cfg.rllib.address is None and cfg.rllib.num_env_runners == 1
    cfg = config_from_dict(
        {
            "env_id": "hidden_castle_v0",
            "backend": "rllib",
            "rllib": {"address": "ray://head:10001", "num_env_runners": 8},
        }
    )
    assert cfg.rllib.address == "ray://head:10001"


def test_cli_names_the_extra_when_ray_is_missing(tmp_path, capsys):
    try:
        import ray.rllib  # noqa: F401

        pytest.skip("ray[rllib] is installed")
    except ImportError:
        pass
    from boardzoo.training.cli import main

    cfg = tmp_path / "c.yaml"
    cfg.write_text("env_id: hidden_castle_v0\nbackend: rllib\n")
    assert main(["train", str(cfg), "--run-dir", str(tmp_path / "run")]) == 2
    assert "boardzoo[rllib]" in capsys.readouterr().err
