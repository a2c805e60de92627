"""The arena command: heuristic vs random, vs a heuristic variant, clear errors."""

import pytest

from boardzoo.envs.core.arena import main, parse_pairs


def test_parse_pairs_reads_literals():
    assert parse_pairs(["a=1", "b=x,c=True", "d=false"], "--x") == {"a": 1, "b": "x", "c": True, "d": False}
    with pytest.raises(SystemExit, match="expected KEY=VALUE"):
        parse_pairs(["oops"], "--vs")


def test_arena_against_random(capsys):
    assert main(["hydropolis_v0", "--games", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "4 games" in out and "vs random" in out and "win rate" in out


def test_arena_against_a_heuristic_variant(capsys):
    assert main(["downforce_v0", "--games", "4", "--vs", "steer=auto"]) == 0
    assert "vs steer=auto" in capsys.readouterr().out


def test_arena_unknown_style_fails_clearly():
    with pytest.raises(SystemExit, match="hydropolis_v0.*nope"):
        main(["hydropolis_v0", "--games", "2", "--vs", "nope=1"])


def test_arena_variant_against_the_standard_heuristic(capsys):
    assert main(["downforce_v0", "--games", "4", "--style", "lead=0.5,bet_own=true", "--vs", "default"]) == 0
    out = capsys.readouterr().out
    assert "vs default" in out and "'lead': 0.5" in out and "'bet_own': True" in out
    with pytest.raises(SystemExit, match="downforce_v0.*lead"):
        main(["downforce_v0", "--games", "2", "--style", "lead=2", "--vs", "default"])
