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
    side = state.side
    g = state.gpp
    v = _speed(state)
    cap = _next_step_value(state)
    out = [float(x) for x in state.spooky]
    if state.is_terminal():
        return out
    variant = state.variant
    for gi, lc in enumerate(state.loc):
        p = gi // g
        if lc < GALLERY:
            m = -(-_hugo_distance(state, lc) // v)
            out[p] += cap * (_RISK[m] if m < len(_RISK) else 0.02)
            if variant:
                out[p] += 0.5  # will end the round on -2 if it never gets in
        elif variant and ROOM0 <= lc < STEP0:
            out[p] += side.room_points[lc - ROOM0 + 1]
        elif variant and STEP0 <= lc < UNPLACED:
            out[p] += abs(side.steps[lc - STEP0])
    return out


def _value(state: HiddenCastleState, seat: int) -> float:
    proj = projected(state)
    n = len(proj)
    others = (sum(proj) - proj[seat]) / max(1, n - 1)
    return proj[seat] - 0.3 * others


def _place_score(state: HiddenCastleState, s: int) -> float:
    side = state.side
    d = _hugo_distance(state, s)
    score = min(d, 30) * 1.0
    for k in range(1, side.num_rooms + 1):
        ahead = (side.doors[k] - s) % GALLERY
        if ahead <= 4 and state.room_occ[k] < 0:
            score += 6.0 if side.room_points[k] < 0 else 4.0 if side.room_points[k] == 0 else 2.0
    return score


def policy(state: HiddenCastleState, seat: int, rng: np.random.Generator) -> int:
    """Choose ``seat``'s action in ``state`` (called through core.bots.HeuristicBot)."""
    legal = np.flatnonzero(state.legal_mask())
    if len(legal) == 1:
        return int(legal[0])
    ph = state.phase_id
    if ph in (SETUP, REPLACE):
        scores = [_place_score(state, int(a)) + 0.01 * rng.random() for a in legal]
        return int(legal[int(np.argmax(scores))])
    if ph != MOVE:
        return int(legal[rng.integers(len(legal))])
    best, best_v = int(legal[0]), float("inf")
    for act in legal:
        a = int(act)
        s = state.clone()
        s.apply_action(a)
        v = _value(s, seat) + 0.001 * rng.random()
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
