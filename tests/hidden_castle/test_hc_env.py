"""Encoder, serialisation, action names, data validation, bot and renders of hidden_castle_v0."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hc_setup import BASE, MIDNIGHT, build

from boardzoo.envs import ConfigError, make
from boardzoo.envs.core.bots import RandomBot, choose
from boardzoo.envs.core.data import validate
from boardzoo.envs.hidden_castle import data as D
from boardzoo.envs.hidden_castle.rules import NUM_ACTIONS, NUM_PLACES, UNPLACED


def encode_reference(state, seat: int) -> np.ndarray:
    """A plain, slow re-statement of the encoder (no incremental planes), offsets by block name."""
    at = {name: off for name, off, _ in state.game.observation_layout()}
    obs = np.zeros(state.game.observation_size, dtype=np.float32)
    cellar = max(state.game.components[s]["hugo_path"] for s in ("hugo_side", "midnight_side"))
    n, g = state.num_players, state.gpp
    for r in range(n):
        p = (seat + r) % n
        for i in range(g):
            lc = state.loc[p * g + i]
            assert 0 <= lc <= UNPLACED
            if r == 0:
                obs[at["my_guests"] + i * NUM_PLACES + lc] = 1
            obs[at["guest_counts"] + r * NUM_PLACES + lc] += 1
        obs[at["players_present"] + r] = 1
        obs[at["spooky_points"] + r] = state.spooky[p] / 50.0
    if state.hugo >= 0:
        obs[at["hugo"] + cellar + state.hugo] = 1
    else:
        obs[at["hugo"] + (-state.hugo) - 1] = 1
    if not state.variant:
        obs[at["clock"] + state.clock] = 1
    if state.phase() == "move":
        obs[at["roll"] + state.roll - 1] = 1
    obs[at["phase"] + state.phase_id] = 1
    obs[at["round"] + state.round - 1] = 1
    if state.guest_slot() >= 0:
        obs[at["slot_being_placed"] + state.guest_slot()] = 1
    obs[at["hugo_speed"]] = state.speed() / 7
    if state.current_player() >= 0:
        obs[at["player_to_act"] + (state.current_player() - seat) % n] = 1
    return obs


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
            np.testing.assert_array_equal(st.observation(p), encode_reference(st, p))
    assert game.observation_size == 956


def test_encoder_cache_follows_clones_and_loaded_states():
    """The encoder's planes stay right on a clone, on the original after the clone moves on, and
    on a state loaded from a dict, each encoded at every step."""
    for game in (BASE, MIDNIGHT):
        rng = np.random.default_rng(7)
        st = game.new_initial_state(3)
        k = 0
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
                continue
            c = st.clone()
            a = int(rng.choice(np.flatnonzero(st.legal_mask())))
            c.apply_action(a)
            for s in (st, c):
                for p in range(3):
                    np.testing.assert_array_equal(s.observation(p), encode_reference(s, p))
            st = c if k % 2 else game.state_from_dict(c.to_dict())
            k += 1


def test_observation_is_seat_relative():
    st = build({0: ["g5"] * 6, 1: ["g9"] * 6}, roll=2, hugo=20)
    a, b = st.observation(0), st.observation(1)
    swapped = build({0: ["g9"] * 6, 1: ["g5"] * 6}, roll=2, hugo=20, turn=1)
    counts = {name: off for name, off, _ in st.game.observation_layout()}["guest_counts"]
    both = slice(counts, counts + 2 * NUM_PLACES)  # the two players' guest counts
    np.testing.assert_array_equal(a[both], swapped.observation(1)[both])
    assert not np.array_equal(a, b)


def test_action_names_distinct_in_every_phase():
    for game in (BASE, MIDNIGHT):
        for st in _states(game, 3, seed=4, every=7):
            if st.is_terminal():
                continue
            names = [st.action_to_string(a) for a in range(NUM_ACTIONS)]
            assert len(set(names)) == NUM_ACTIONS


def test_json_roundtrip_keeps_observations():
    for st in _states(MIDNIGHT, 4, seed=2, every=11):
        back = MIDNIGHT.state_from_dict(json.loads(json.dumps(st.to_dict())))
        for p in range(4):
            np.testing.assert_array_equal(back.observation(p), st.observation(p))
        assert back.to_dict() == st.to_dict()


def test_components_validated_on_load():
    data = D.components()
    assert D.components() is data  # loaded once
    assert data["guests_per_player"]["4"] == 4
    bad = json.loads(json.dumps(data))
    bad["hugo_side"]["rooms"][0]["door"] = "two"
    with pytest.raises(ConfigError, match="door"):
        validate(bad, D.SCHEMA, "components.json")
    bad = json.loads(json.dumps(data))
    del bad["midnight_side"]["hugo_speed"]
    with pytest.raises(ConfigError, match="hugo_speed"):
        validate(bad, D.SCHEMA, "components.json")


def test_bad_option_type():
    with pytest.raises(ConfigError, match="midnight_party"):
        make("hidden_castle_v0", midnight_party="yes")


def test_renders_are_pictures():
    from boardzoo.envs.hidden_castle.render import render_rgb

    for game in (BASE, MIDNIGHT):
        for st in _states(game, 8, seed=1, every=40):
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
