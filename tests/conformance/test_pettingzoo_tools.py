"""PettingZoo's own checkers and converters on every registered game (DESIGN.md, PettingZoo
adapter): seed_test, parallel_seed_test, render_test (human/ansi/rgb_array), ``is_parallelizable``
only where ``aec_to_parallel`` works (no game declares it, so no converter round trip is promised;
the Parallel form of a simultaneous game is native).
"""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test, render_test, seed_test
from pettingzoo.utils.conversions import aec_to_parallel

from boardzoo.envs import game_class, make, names

SIMULTANEOUS = [e for e in names() if game_class(e).simultaneous]


@pytest.mark.parametrize("env_id", names())
def test_seed_test(env_id):
    seed_test(lambda: make(env_id), num_cycles=200)


@pytest.mark.parametrize("env_id", SIMULTANEOUS)
def test_parallel_seed_test(env_id):
    # PettingZoo's parallel_seed_test samples unmasked actions: with illegal="penalize" the first
    # illegal one ends the game the same way in both copies, which is what it compares
    parallel_seed_test(lambda: make(env_id, parallel=True, illegal="penalize"), num_cycles=200)


@pytest.mark.parametrize("env_id", names())
def test_render_test(env_id, capsys):
    render_test(lambda render_mode=None: make(env_id, render_mode=render_mode))
    assert len(capsys.readouterr().out) > 20  # "human" printed the text rendering


@pytest.mark.parametrize("env_id", names())
def test_is_parallelizable_only_where_aec_to_parallel_works(env_id):
    env = make(env_id)
    declared = env.metadata["is_parallelizable"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parallel_api_test(aec_to_parallel(make(env_id)), num_cycles=200)
        works = True
    except Exception:
        works = False
    assert declared == works
