"""Encoder, serialisation, action names, data validation, bot and renders of hidden_castle_v0."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hc_setup import BASE, MIDNIGHT, build

from boardzoo.envs import ConfigError, make
from boardzoo.envs.core.bots import RandomBot, choose
from boardzoo.envs.core.data import validate
from boardzoo.envs.hidden_castle import board as B
from boardzoo.envs.hidden_castle.encoder import OBS_SIZE, encode, encode_reference
from boardzoo.envs.hidden_castle.rules import NUM_ACTIONS


def _states(game, n, seed, every=1):
    rng = np.random.default_rng(seed)
    st = game.new_initial_state(n)
    k = 0
    while not st.is_terminal():
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
            continue
        if k % every == 0:
            yield st
        k += 1
        st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    yield st


@pytest.mark.parametrize("game", [BASE, MIDNIGHT], ids=["base", "midnight"])
@pytest.mark.parametrize("n", [2, 5, 8])
def test_incremental_encoder_matches_reference(game, n):
    for st in _states(game, n, seed=n, every=3):
        for p in range(n):
            np.testing.assert_array_equal(encode(st, p), encode_reference(st, p))
    assert game.observation_size == OBS_SIZE


def test_encoder_phase_constants_match_rules():
    from boardzoo.envs.hidden_castle import encoder, rules
    assert (encoder._MOVE, encoder._ROLL) == (rules.MOVE, rules.ROLL)


def test_observation_is_seat_relative():
    st = build({0: ["g5"] * 6, 1: ["g9"] * 6}, roll=2, hugo=20)
    a, b = st.observation(0), st.observation(1)
    swapped = build({0: ["g9"] * 6, 1: ["g5"] * 6}, roll=2, hugo=20, turn=1)
    np.testing.assert_array_equal(a[366:366 + 122], swapped.observation(1)[366:366 + 122])
    assert not np.array_equal(a, b)


def test_action_names_distinct_in_every_phase():
    for game in (BASE, MIDNIGHT):
        for st in _states(game, 3, seed=4, every=7):
            if st.is_terminal():
                continue
            names = [st.action_to_string(a) for a in range(NUM_ACTIONS)]
            assert len(set(names)) == NUM_ACTIONS


def test_json_roundtrip_keeps_incremental_planes():
    for st in _states(MIDNIGHT, 4, seed=2, every=11):
        back = MIDNIGHT.state_from_dict(json.loads(json.dumps(st.to_dict())))
        np.testing.assert_array_equal(back.enc_cnt, st.enc_cnt)
        np.testing.assert_array_equal(back.enc_me, st.enc_me)
        assert back.to_dict() == st.to_dict()


def test_components_validated_on_load():
    data = B.load_components()
    assert data["guests_per_player"]["4"] == 4
    bad = json.loads(json.dumps(data))
    bad["hugo_side"]["rooms"][0]["door"] = "two"
    with pytest.raises(ConfigError, match="door"):
        validate(bad, B.SCHEMA, "components.json")
    bad = json.loads(json.dumps(data))
    del bad["midnight_side"]["hugo_speed"]
    with pytest.raises(ConfigError, match="hugo_speed"):
        validate(bad, B.SCHEMA, "components.json")


def test_bad_option_type():
    with pytest.raises(ConfigError, match="midnight_party"):
        make("hidden_castle_v0", midnight_party="yes")


def test_renders_are_pictures():
    from boardzoo.envs.hidden_castle.render import render_rgb
    for game in (BASE, MIDNIGHT):
        for k, st in enumerate(_states(game, 8, seed=1, every=40)):
            img = render_rgb(st)
            assert img.shape == (760, 900, 3) and img.dtype == np.uint8 and img.std() > 10
            assert "Hugo" in str(st)


def test_heuristic_beats_random_quickly():
    """A small sample only (the report gives the long measurement)."""
    wins = 0
    games = 24
    rng = np.random.default_rng(0)
    for g in range(games):
        st = BASE.new_initial_state(2)
        hero = g % 2
        bots = {hero: BASE.heuristic_bot(hero, seed=g), 1 - hero: RandomBot(g)}
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
            else:
                p = st.current_player()
                st.apply_action(choose(bots[p], st, p, rng))
        wins += hero in st.winners()
    assert wins >= 15
