"""Strict config loading: bad configs fail at once with a message naming the entry."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardzoo.envs import ConfigError, game_class, names
from boardzoo.training.config import config_from_dict, load_config

CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def test_minimal_config_gets_defaults(tiny_games):
    cfg = config_from_dict({"env_id": "tinynim_v0"})
    assert cfg.players() == [2] and cfg.net.hidden == [128, 128] and cfg.ppo.learning_rate == 3e-4


@pytest.mark.parametrize(
    "data,match",
    [
        ({"env_id": "tinynim_v0", "learning_rate": 1e-3}, r"unknown key.*learning_rate"),
        ({"env_id": "tinynim_v0", "ppo": {"lr": 1e-3}}, r"unknown key.*ppo\.lr"),
        (
            {"env_id": "tinynim_v0", "pool": {"schedule": [{"start": 0, "snapshots": 1}]}},
            r"pool\.schedule\[0\]\.snapshots",
        ),
        ({"env_id": "no_such_game_v0"}, r"unknown env id 'no_such_game_v0'"),
        ({"env_id": "tinynim_v0", "total_steps": "many"}, r"total_steps: must be an integer"),
        ({"env_id": "tinynim_v0", "total_steps": 1.5}, r"total_steps: must be an integer"),
        ({"env_id": "tinynim_v0", "ppo": {"learning_rate": "fast"}}, r"ppo\.learning_rate: must be a number"),
        ({"env_id": "tinynim_v0", "bc": {"value": "yes"}}, r"bc\.value: must be true or false"),
        ({"env_id": "tinynim_v0", "net": {"hidden": 128}}, r"net\.hidden: must be a list"),
        ({"env_id": "tinynim_v0", "net": {"activation": "gelu"}}, r"net\.activation"),
        ({"env_id": "tinynim_v0", "num_players": [9]}, r"num_players"),
        ({"env_id": "tinynim_v0", "options": {"nope": 1}}, r"options:.*nope"),
        ({"env_id": "tinynim_v0", "eval": {"opponents": ["alphazero"]}}, r"eval\.opponents.*alphazero"),
        ({"env_id": "tinynim_v0", "eval": {"stop_at_bar": 1.5}}, r"eval\.stop_at_bar: must be in \[0, 1\)"),
        ({"env_id": "tinynim_v0", "eval": {"stop_at_bar": 0.0, "games": 0}}, r"eval\.stop_at_bar.*eval\.games > 0"),
        ({"ppo": {}}, r"missing required key 'env_id'"),
        ({"env_id": "downforce_v0", "bc": {"teacher": {"bet_everything": True}}}, r"bc\.teacher:.*bet_everything"),
        (
            {"env_id": "tinynim_v0", "bc": {"teacher": {"greedy": True}}},
            r"bc\.teacher: tinynim_v0's heuristic offers no variants",
        ),
        ({"env_id": "tinynim_v0", "net": {"action_skip": 5.0}}, r"net\.action_skip: needs a game with action features"),
        ({"env_id": "hydropolis_v0", "net": {"action_skip": -1.0}}, r"net\.action_skip: must be >= 0"),
        ({"env_id": "tinynim_v0", "update_threads": 0}, r"update_threads: must be >= 1"),
        (
            {"env_id": "hydropolis_v0", "net": {"action_skip": 5.0}},
            r"net\.action_skip: needs a game with action features",
        ),
    ],
)
def test_bad_config_fails_clearly(tiny_games, data, match):
    with pytest.raises(ConfigError, match=match):
        config_from_dict(data)


def test_yaml_errors_name_the_file(tiny_games, tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("env_id: tinynim_v0\nppo:\n  gama: 0.9\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml.*ppo\.gama"):
        load_config(p)
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.yaml")
    p.write_text("env_id: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(p)


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.stem)
def test_committed_configs_load(path):
    env_id = path.stem
    assert env_id in names(), f"{path.name} is named after no registered env"
    try:
        game_class(env_id)
    except ImportError as e:
        pytest.skip(f"{env_id} is not importable yet: {e}")
    cfg = load_config(path)
    assert cfg.env_id == env_id
