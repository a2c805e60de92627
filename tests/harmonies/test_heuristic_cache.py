"""The Harmonies heuristic computes each colour's placement values once per decision (shared by the
central spaces of a take and by the tokens of a placement): the same moves as valuing every action
on its own."""

from __future__ import annotations

from heuristic_pins import self_play_actions  # tests/core/heuristic_pins.py

from boardzoo.envs import make_game
from boardzoo.envs.core.bots import HeuristicBot
from boardzoo.envs.harmonies import bot
from boardzoo.envs.harmonies.evaluate import place_value, take_value
from boardzoo.envs.harmonies.rules import HEXES


def _play(policy_fn, games: int) -> list[list[int]]:
    """The actions of ``games`` seeded self-play games of the heuristic ``policy_fn`` on live states."""
    game = make_game("harmonies_v0")
    return self_play_actions(
        game, lambda g: [HeuristicBot(policy_fn, seed=10 * g + s) for s in range(2 + g % 3)], games, 200
    )


def test_heuristic_shared_colour_values_play_as_per_action_values(monkeypatch):
    calls = {"take": 0}
    real_take = take_value

    def take_alone(state, seat, space, cache=None):  # no sharing between spaces
        calls["take"] += 1
        return real_take(state, seat, space, None)

    def place_values_alone(state, seat, colour):  # every hex valued on its own
        return {h: place_value(state, seat, colour, h) for h in range(HEXES) if state.can_place(seat, colour) >> h & 1}

    shared = _play(bot.policy, 6)
    monkeypatch.setattr(bot, "take_value", take_alone)
    monkeypatch.setattr(bot, "place_values", place_values_alone)
    alone = _play(bot.policy, 6)
    assert calls["take"] > 100
    assert alone == shared
