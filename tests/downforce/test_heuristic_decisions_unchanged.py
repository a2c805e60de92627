"""The Downforce heuristic's decisions on a fixed set of seeded games (heuristic in every seat and
against random bots; several player counts, option sets and heuristic styles) hash to stored
values: a speed change to the heuristic or the race evaluation it reads (``rules.play_values``,
``steer_scores``) must leave every action and every draw of the bot's generator unchanged. Each
record is the action and the generator's state after the decision."""

from __future__ import annotations

from heuristic_pins import pin_test  # tests/core/heuristic_pins.py

from boardzoo.envs.downforce.rules import DownforceGame

# (options, heuristic style, players, heuristic in every seat, seed, first 16 hex digits of the
# SHA-256 of the decision records)
test_heuristic_decisions_unchanged = pin_test(
    DownforceGame,
    [
        ({}, {}, 4, True, 1, "1a5070a907844228"),
        ({"action_features": True}, {}, 2, False, 2, "086fdb43f59413eb"),
        ({"powers": True, "extra_powers": True, "odds_betting": True}, {}, 3, True, 3, "5a3f7ae45327383f"),
        (
            {"powers": True, "odds_winner_only": True, "track": "sprint", "steering": "auto"},
            {},
            5,
            False,
            4,
            "e3b78b6e39b6f160",
        ),
        ({}, {"bet_own": True, "keep_speed8": 2.0}, 6, True, 5, "7e28272a6026a297"),
        ({"powers": True}, {"steer": "auto"}, 4, True, 6, "24fc6be485c3723b"),
        # the shipped bot's imitation teacher (configs/downforce_v0.yaml, bc.teacher)
        (
            {"action_features": True},
            {"bet_own": True, "keep_speed8": 2.0, "lead": 0.5, "rival_lead": 0.75, "grid_bonus": 2.0},
            4,
            True,
            7,
            "0e0eaff4f1158e97",
        ),
    ],
)
