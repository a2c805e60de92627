"""Rule tests of the template game, one per rule ID of its RULES.md (TT-R*, TT-V*), built from
readable positions through the public API (apply_action, from_dict), never private caches.
``scripts/new_game.py`` copies this file as the new game's tests/<name>/test_rules.py.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from boardzoo.envs import BoardZooError, ConfigError
from boardzoo.envs._template import TemplateGame


def _dealt(game, n=2, seed=0):
    st = game.new_initial_state(n)
    rng = np.random.default_rng(seed)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    return st


def test_TT_R1_components_and_deck_option(tmp_path):
    assert TemplateGame().values == (1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 7)
    assert TemplateGame(deck="short").values == tuple(range(1, 11))
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"name": "mine", "values": [9] * 9}))
    assert TemplateGame(deck=str(f)).values == (9,) * 9
    with pytest.raises(ConfigError, match="deck"):
        TemplateGame(deck="nope")
    f.write_text(json.dumps({"name": "small", "values": [1] * 8}))
    with pytest.raises(ConfigError, match="the deal needs 9"):
        TemplateGame(deck=str(f))
    f.write_text(json.dumps({"name": "bad", "values": [1]}))
    with pytest.raises(ConfigError, match="4..60"):
        TemplateGame(deck=str(f))


def test_TT_R2_deal_round_the_table():
    game = TemplateGame()
    st = game.new_initial_state(3)
    st.apply_action(2)  # seat 2 starts
    for card in (0, 5, 7, 1, 2, 3, 4, 6, 8):
        st.apply_action(card)
    assert st.hands[2] == [0, 1, 4]
    assert st.hands[0] == [5, 2, 6] and st.hands[1] == [7, 3, 8]
    assert st.current_player() == 2 and st.phase() == "play"


def test_TT_R3_R4_play_then_draw_or_stop():
    st = _dealt(TemplateGame())
    p = st.current_player()
    card = st.hands[p][0]
    st.apply_action(0)
    assert st.piles[p] == [card] and st.phase() == "draw"
    assert set(np.flatnonzero(st.legal_mask())) == {12, 13}
    st.apply_action(12)
    assert st.is_chance_node()
    st.apply_action(st.deck[0])
    assert len(st.hands[p]) == 3 and st.current_player() == 1 - p


def test_TT_R5_R6_end_and_winner():
    game = TemplateGame()
    st = _dealt(game)
    rng = np.random.default_rng(1)
    while not st.is_terminal():
        st.apply_action(
            st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
        )
    assert not any(st.hands)
    s = st.scores()
    assert st.winners() == [i for i, x in enumerate(s) if x == max(s)]


def test_TT_V1_saved_state_of_another_deck_is_refused():
    short = _dealt(TemplateGame(deck="short"))
    with pytest.raises(BoardZooError, match="options"):
        TemplateGame().state_from_dict(short.to_dict())


def test_heuristic_plays_its_highest_card():
    game = TemplateGame()
    st = _dealt(game)
    p = st.current_player()
    bot = game.heuristic_bot(p, seed=1)
    best = max(range(len(st.hands[p])), key=lambda i: (game.values[st.hands[p][i]], -i))
    assert bot.act_state(st, p) == best
