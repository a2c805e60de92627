"""Heuristic policy for Escape from the Hidden Castle.

One-ply look-ahead: every legal action is applied to a copy of the state and the result is scored
by a projected spooky total (lower is better):

* points already on the trail (base game) or this round's projected points (Midnight Party);
* for every guest on the gallery, the points of the step it would land on times a capture risk
  that falls off with the number of Hugo moves needed to reach it;
* a small bonus for hurting the opponents (their projected totals, weighted 0.3).

Placement (setup and between rounds) prefers spaces far ahead of Hugo and just before a free room
door, so the guest can dive into a room soon.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .rules import DECLINE, GALLERY, MOVE, REPLACE, ROOM0, SETUP, STEP0, UNPLACED, HiddenCastleGame, HiddenCastleState

_RISK = (0.0, 0.75, 0.4, 0.2, 0.1, 0.05)


def _hugo_distance(state: HiddenCastleState, s: int) -> int:
    """Spaces Hugo must travel to enter gallery space ``s``."""
    h = state.hugo
    if h < 0:
        return -h + s
    return (s - h) % GALLERY or GALLERY


def _next_step_value(state: HiddenCastleState) -> int:
    side = state.side
    for j in range(side.limited):
        if state.step_cnt[j] == 0:
            return abs(side.steps[j])
    return abs(side.steps[side.overflow])


def _speed(state: HiddenCastleState) -> int:
    v = state.speed()
    if v == 0:
        return 99
    return v


def projected(state: HiddenCastleState) -> list[float]:
    """Projected spooky totals per seat (lower is better)."""
    out = [float(x) for x in state.spooky]
    if state.is_terminal():
        return out
    side = state.side
    g = state.gpp
    v = _speed(state)
    cap = _next_step_value(state)
    variant = state.variant
    h = state.hugo
    nrisk = len(_RISK)
    for gi, lc in enumerate(state.loc):
        if lc < GALLERY:
            # the Hugo moves needed to reach it (_hugo_distance, inline)
            m = -(-((-h + lc) if h < 0 else ((lc - h) % GALLERY or GALLERY)) // v)
            out[gi // g] += cap * (_RISK[m] if m < nrisk else 0.02)
            if variant:
                out[gi // g] += 0.5  # will end the round on -2 if it never gets in
        elif variant and ROOM0 <= lc < STEP0:
            out[gi // g] += side.room_points[lc - ROOM0 + 1]
        elif variant and STEP0 <= lc < UNPLACED:
            out[gi // g] += abs(side.steps[lc - STEP0])
    return out


def _value(state: HiddenCastleState, seat: int) -> float:
    proj = projected(state)
    n = len(proj)
    others = (sum(proj) - proj[seat]) / max(1, n - 1)
    return proj[seat] - 0.3 * others


def _free_doors(state: HiddenCastleState) -> list[tuple[int, float]]:
    """The door space and placement bonus of each free room (``_place_score``), in room order."""
    side = state.side
    return [
        (side.doors[k], 6.0 if side.room_points[k] < 0 else 4.0 if side.room_points[k] == 0 else 2.0)
        for k in range(1, side.num_rooms + 1)
        if state.room_occ[k] < 0
    ]


def _place_score(state: HiddenCastleState, s: int, doors: list[tuple[int, float]] | None = None) -> float:
    """How good gallery space ``s`` is to place a guest on: far ahead of Hugo, a free room's door
    at most 4 spaces ahead. ``doors``: ``_free_doors(state)`` if the caller has it already."""
    score = min(_hugo_distance(state, s), 30) * 1.0
    for door, bonus in _free_doors(state) if doors is None else doors:
        if (door - s) % GALLERY <= 4:
            score += bonus
    return score


def policy(state: HiddenCastleState, seat: int, rng: np.random.Generator) -> int:
    """Choose ``seat``'s action in ``state`` (called through core.bots.HeuristicBot)."""
    legal = np.flatnonzero(state.legal_mask()).tolist()
    if len(legal) == 1:
        return legal[0]
    ph = state.phase_id
    if ph in (SETUP, REPLACE):
        # one tie-break draw per legal space, in order (rng.random(n) draws what n rng.random()
        # calls would); the first best score wins (as np.argmax)
        doors = _free_doors(state)
        best, best_v = legal[0], float("-inf")
        for a, r in zip(legal, rng.random(len(legal)).tolist()):
            v = _place_score(state, a, doors) + 0.01 * r
            if v > best_v:
                best, best_v = a, v
        return best
    if ph != MOVE:
        return legal[rng.integers(len(legal))]
    best, best_v = legal[0], float("inf")
    for a, r in zip(legal, rng.random(len(legal)).tolist()):  # one tie-break draw per action
        s = state.clone()
        s._apply(a)  # legal: from the mask (apply_action would check it again)
        s._mask = None
        v = _value(s, seat) + 0.001 * r
        if a == DECLINE:
            v += 0.01
        if v < best_v:
            best, best_v = a, v
    return best


def heuristic(game: HiddenCastleGame, seat: int, seed: int | None = None, **style: Any) -> HeuristicBot:
    """The game's heuristic bot (GameSpec.heuristic); it has no style variants."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="hidden_castle_heuristic")
