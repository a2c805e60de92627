"""The template game (envs/_template, the pattern for new games) passes the whole conformance
suite, so a game copied from it starts green (its rule tests are in test_template_rules.py).

It is registered as ``template_v0`` only while these tests run (not a shipped env).
"""

from __future__ import annotations

import pytest
import test_all_registered as C
import test_robustness as R

from boardzoo.envs.core import registry

ENV = "template_v0"


@pytest.fixture
def registered():
    registry.register(ENV, "boardzoo.envs._template:SPEC")
    try:
        yield
    finally:
        registry._ENTRIES.pop(ENV, None)
        registry._LOADED.pop(ENV, None)


PER_CASE = [
    C.test_api,
    C.test_determinism_and_replay,
    C.test_clone_and_json_roundtrip,
    C.test_random_games_invariants,
    C.test_illegal_action_keeps_env_usable,
    C.test_hidden_information_does_not_leak,
    R.test_rewards_never_rank_a_non_winner_above_a_winner,
]
PER_ENV = [
    C.test_bots_choose_legal_actions,
    C.test_renders,
    C.test_bad_options_fail_clearly,
    C.test_spaces_and_masks,
    R.test_handed_out_arrays_are_copies,
    R.test_integer_like_actions,
    R.test_lifecycle_errors,
    R.test_penalised_game_record_replays_to_its_outcome,
    R.test_observation_layout_covers_the_observation,
    R.test_options_refuse_arrays_and_objects,
]


@pytest.mark.parametrize("check", PER_CASE, ids=lambda f: f.__name__)
def test_template_conformance_per_case(registered, check):
    from boardzoo.envs import game_class

    g = game_class(ENV)
    for opts in g.conformance_options:
        for n in range(g.min_players, g.max_players + 1):
            check(ENV, opts, n)


@pytest.mark.parametrize("check", PER_ENV, ids=lambda f: f.__name__)
def test_template_conformance_per_env(registered, check):
    check(ENV)


def test_template_state_fuzz(registered):
    from boardzoo.envs import game_class

    for opts in game_class(ENV).conformance_options:
        for n in (2, 4):
            R.test_state_fuzz(ENV, opts, n)
