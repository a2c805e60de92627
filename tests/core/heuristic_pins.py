"""One pin for a heuristic's decisions, shared by every game's ``test_heuristic_decisions_unchanged``:
a speed change to a heuristic (its ``bot.py`` and what it reads of the rules) must leave every action
and every draw of the bot's generator (its tie breaks) unchanged on a fixed set of seeded games,
heuristic in every seat and against random bots. A game's test module holds only its cases and
their stored hashes (:func:`pin_test`); :func:`self_play_actions` is the plain action record of
seeded heuristic games for tests that compare two versions of a heuristic directly."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from boardzoo.envs.core.arena import play_to_end
from boardzoo.envs.core.bots import HeuristicBot, RandomBot
from boardzoo.envs.core.game import CHANCE


def decisions_hash(game: Any, style: dict, n: int, all_heuristic: bool, seed: int, games: int = 3) -> str:
    """First 16 hex digits of the SHA-256 of ``games`` seeded games of ``game`` at ``n`` players:
    the heuristic (with ``style``) in every seat, or in one rotating seat against random bots. Each
    record is the seat, the action and the heuristic generator's state after the decision; each
    game ends with its scores."""
    h = hashlib.sha256()
    for gi in range(games):
        sd = seed * 1000 + gi
        rng = np.random.default_rng(sd)
        bots = [
            game.heuristic_bot(s, seed=sd * 10 + s, **style) if all_heuristic or s == gi % n else RandomBot(sd + s)
            for s in range(n)
        ]
        st = game.new_initial_state(n)
        while not st.is_terminal():
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            b = bots[p]
            if isinstance(b, HeuristicBot):
                a = int(b.act_state(st.resample_hidden(p, rng), p))
                g = b.rng.bit_generator.state
                h.update(f"{p}:{a}:{g['state']['state']}:{g['has_uint32']};".encode())
            else:
                a = int(b.act({"action_mask": st.legal_mask()}))
            st.apply_action(a)
        h.update(repr(st.scores()).encode())
    return h.hexdigest()[:16]


def pin_test(game_class: Any, cases: list[tuple]) -> Any:
    """The pytest test of a game's pins: ``cases`` are ``(options, heuristic style, players, heuristic
    in every seat, seed, expected hash)``; each asserts :func:`decisions_hash` of
    ``game_class(**options)`` equals the stored first 16 hex digits."""

    @pytest.mark.parametrize(
        "options,style,n,all_heuristic,seed,expected", cases, ids=[f"case{i}" for i in range(len(cases))]
    )
    def test_heuristic_decisions_unchanged(options, style, n, all_heuristic, seed, expected):
        assert decisions_hash(game_class(**options), style, n, all_heuristic, seed) == expected

    return test_heuristic_decisions_unchanged


def self_play_actions(game: Any, bots_for: Any, games: int, seed: int) -> list[list[int]]:
    """The actions of ``games`` seeded games of ``game`` on live states (``arena.play_to_end``):
    game ``g`` between ``bots_for(g)``, chance from ``seed + g``."""
    out = []
    for g in range(games):
        seq: list[int] = []
        bots = bots_for(g)
        play_to_end(
            game.new_initial_state(len(bots)),
            bots,
            np.random.default_rng(seed + g),
            on_decision=lambda st, p, a, seq=seq: seq.append(a),
        )
        out.append(seq)
    return out
