"""The heuristic bot's turn search, remembered between the decisions of one turn."""

from __future__ import annotations

import numpy as np
from heuristic_pins import self_play_actions  # tests/core/heuristic_pins.py

from boardzoo.envs import make_game
from boardzoo.envs.get_on_board import bot


def _play(games: int) -> list[list[int]]:
    """The actions of ``games`` seeded self-play games of the heuristic on live states (its game
    declares it fair, so ``play_to_end`` hands it the state itself, one action on each time)."""
    game = make_game("get_on_board_v0")
    return self_play_actions(
        game, lambda g: [game.heuristic_bot(s, seed=10 * g + s) for s in range(2 + g % 2)], games, 100
    )


def test_heuristic_reuses_its_turn_search_and_plays_what_a_fresh_search_plays(monkeypatch):
    """A turn's later decisions read the values searched at its first (the same state object one
    action on): the games are those of a bot that searches afresh at every decision."""
    hits = []
    recall = bot._recall

    def counting(state, seat):
        kids = recall(state, seat)
        hits.append(kids is not None)
        return kids

    monkeypatch.setattr(bot, "_recall", counting)
    remembered = _play(6)
    assert sum(hits) > 50, "the turn search was never reused"
    monkeypatch.setattr(bot, "_recall", lambda state, seat: None)
    assert _play(6) == remembered


def test_heuristic_does_not_reuse_a_search_for_a_changed_state():
    """The remembered tree is checked against the state field by field: a state object changed
    otherwise than by the chosen action gets a new search."""
    game = make_game("get_on_board_v0")
    rng = np.random.default_rng(5)
    bots = [bot.heuristic(game, s, seed=s) for s in range(2)]
    st = game.new_initial_state(2)
    checked = 0
    while not st.is_terminal() and checked < 5:
        p = st.current_player()
        if p < 0:
            st.apply_action(st.sample_chance(rng))
            continue
        a = bots[p].act_state(st, p)
        st.apply_action(a)
        if id(st) in bot._NEXT and st.current_player() == p:  # the turn goes on: a tree to reuse
            saved = bot._NEXT[id(st)]
            assert bot._recall(st.clone(), p) is None  # another object
            bot._NEXT[id(st)] = saved
            st.k += 1  # not the position the search saw after its action
            assert bot._recall(st, p) is None
            st.k -= 1
            bot._NEXT[id(st)] = saved
            assert bot._recall(st, p) is not None  # the position it saw
            bot._NEXT[id(st)] = saved
            checked += 1
    assert checked == 5
