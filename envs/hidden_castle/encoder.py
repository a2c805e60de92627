"""Observation encoder of Escape from the Hidden Castle (seat-relative, fixed size for 2-8 players).

The game has perfect information, so every seat sees the whole board; only the ordering is
relative ("me" first, then the others clockwise). Layout (``OBS_SIZE`` floats):

=============================  =====================================================================
my guests                      6 slots x 61 places, one-hot (40 gallery, 11 rooms, 9 steps, unplaced)
guest counts                   8 relative players x 61 places (number of that player's guests)
players present                8
spooky points                  8 relative players, value / 50
Hugo                           one-hot: 10 cellar positions (steps left to gallery 0) + 40 gallery
clock                          one-hot over the clock track (base game)
roll                           one-hot 1..5 (the number to move in the move phase)
phase                          one-hot start, setup, roll, move, replace, end
round                          one-hot 1..3 (Midnight Party)
slot being placed              one-hot 6 (setup and between-round placement)
Hugo's speed                   spaces per move / 7
player to act                  one-hot 8, relative
=============================  =====================================================================
"""
from __future__ import annotations

import numpy as np

from .board import MAX_GUESTS, MAX_PLAYERS, NUM_PLACES, UNPLACED
from .rules import components

_D = components()
HUGO_CELLAR = max(_D["hugo_side"]["hugo_path"], _D["midnight_side"]["hugo_path"])
CLOCK_LEN = len(_D["hugo_side"]["clock"])
ROUNDS = max(1, _D["midnight_side"]["rounds"])

O_ME = 0
O_COUNTS = O_ME + MAX_GUESTS * NUM_PLACES
O_PRESENT = O_COUNTS + MAX_PLAYERS * NUM_PLACES
O_SCORE = O_PRESENT + MAX_PLAYERS
O_HUGO = O_SCORE + MAX_PLAYERS
O_CLOCK = O_HUGO + HUGO_CELLAR + 40
O_ROLL = O_CLOCK + CLOCK_LEN
O_PHASE = O_ROLL + 5
O_ROUND = O_PHASE + 6
O_SLOT = O_ROUND + ROUNDS
O_SPEED = O_SLOT + MAX_GUESTS
O_ACTOR = O_SPEED + 1
OBS_SIZE = O_ACTOR + MAX_PLAYERS

# Named blocks (Game.observation_layout, RULES.md "Observation layout"): (name, offset, length),
# each block running up to the next block's offset.
_STARTS = [("my_guests", O_ME), ("guest_counts", O_COUNTS), ("players_present", O_PRESENT),
           ("spooky_points", O_SCORE), ("hugo", O_HUGO), ("clock", O_CLOCK), ("roll", O_ROLL),
           ("phase", O_PHASE), ("round", O_ROUND), ("slot_being_placed", O_SLOT), ("hugo_speed", O_SPEED),
           ("player_to_act", O_ACTOR)]
LAYOUT: tuple[tuple[str, int, int], ...] = tuple(
    (name, off, (_STARTS[i + 1][1] if i + 1 < len(_STARTS) else OBS_SIZE) - off)
    for i, (name, off) in enumerate(_STARTS))


def encode(state, seat: int) -> np.ndarray:
    """The flat float32 observation of ``state`` for ``seat`` (layout in the module docstring).

    The guest planes are kept incrementally by the state (``enc_me``, ``enc_cnt``, see
    ``HiddenCastleState._init_enc``); here they are only copied in seat-relative order."""
    n = state.num_players
    obs = _TEMPLATE[n].copy()                      # zeros with the players-present flags set
    obs[O_ME:O_COUNTS] = state.enc_me[seat]
    w = n * NUM_PLACES
    o = seat * NUM_PLACES
    obs[O_COUNTS:O_COUNTS + w] = state.enc_cnt[o:o + w]
    spooky = state.spooky
    for r in range(n):
        obs[O_SCORE + r] = spooky[(seat + r) % n] * 0.02
    h = state.hugo
    obs[O_HUGO + (HUGO_CELLAR + h if h >= 0 else -h - 1)] = 1.0
    ph = state.phase_id
    obs[O_PHASE + ph] = 1.0
    obs[O_ROUND + state.round - 1] = 1.0
    if state.variant:
        obs[O_SPEED] = state.game.variant_speed[n] / 7.0
    else:
        obs[O_CLOCK + state.clock] = 1.0
        obs[O_SPEED] = state.game.clock_speed[state.clock] / 7.0
    if ph == _MOVE:
        obs[O_ROLL + state.roll - 1] = 1.0
        obs[O_ACTOR + (state.turn - seat) % n] = 1.0
    elif ph != _ROLL:
        slot = state.guest_slot()
        if slot >= 0:
            obs[O_SLOT + slot] = 1.0
        cp = state.current_player()
        if cp >= 0:
            obs[O_ACTOR + (cp - seat) % n] = 1.0
    return obs


def _template(n: int) -> np.ndarray:
    t = np.zeros(OBS_SIZE, dtype=np.float32)
    t[O_PRESENT:O_PRESENT + n] = 1.0
    return t


_TEMPLATE = {n: _template(n) for n in range(1, MAX_PLAYERS + 1)}
_MOVE, _ROLL = 3, 2   # rules.MOVE, rules.ROLL (checked in the tests)


def encode_reference(state, seat: int) -> np.ndarray:
    """A plain, slow re-statement of :func:`encode` for the tests."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    n, g = state.num_players, state.gpp
    for r in range(n):
        p = (seat + r) % n
        for i in range(g):
            l = state.loc[p * g + i]
            assert 0 <= l <= UNPLACED
            if r == 0:
                obs[O_ME + i * NUM_PLACES + l] = 1
            obs[O_COUNTS + r * NUM_PLACES + l] += 1
        obs[O_PRESENT + r] = 1
        obs[O_SCORE + r] = state.spooky[p] / 50.0
    if state.hugo >= 0:
        obs[O_HUGO + HUGO_CELLAR + state.hugo] = 1
    else:
        obs[O_HUGO + (-state.hugo) - 1] = 1
    if not state.variant:
        obs[O_CLOCK + state.clock] = 1
    if state.phase() == "move":
        obs[O_ROLL + state.roll - 1] = 1
    obs[O_PHASE + state.phase_id] = 1
    obs[O_ROUND + state.round - 1] = 1
    if state.guest_slot() >= 0:
        obs[O_SLOT + state.guest_slot()] = 1
    obs[O_SPEED] = state.speed() / 7
    if state.current_player() >= 0:
        obs[O_ACTOR + (state.current_player() - seat) % n] = 1
    return obs
