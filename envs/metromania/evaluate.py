"""One-ply action values of Metromania (the heuristic bot) and two-ply ones within the mover's
turn (``turn_values``: the ``action_features`` observation block): for every legal action of the
seat to move, a rough value in points.

Digging is worth about a point; covering a destination (placing a marker) avoids the marker-in-
hand penalty and makes a trip possible; stations are worth the points they score; ending a line
avoids the unfinished-line penalty. Tunnels that approach an allowed black gate (when the tunnels
run short) or a destination of a type still in hand are preferred; dead ends are avoided.
"""

from __future__ import annotations

import numpy as np

from .geometry import LAKE
from .rules import (
    A_END,
    A_EXTEND,
    A_MARKER,
    A_NOOP,
    A_START,
    A_STATION,
    MetromaniaState,
    Phase,
    forbidden_sides,
)

DIG = 1.0
COVER = 3.0
END_LINE = 3.5
BUILD_COST = 0.6
TOWARD_GATE = 0.4
TOWARD_DEST = 0.25
DEAD_END = 2.5


def _gate_dist(state: MetromaniaState, li: int) -> list[int]:
    """Per vertex, the distance to the nearest target gate of line li: the free black gates on a
    side the line may end at (MM-R34), else any free one (empty list: none free)."""
    return state.gate_distance(forbidden_sides(state.start_side(li))) or state.gate_distance()


def action_values(state: MetromaniaState) -> dict[int, float]:
    """Value of every legal action of the seat to move (empty at chance and terminal nodes)."""
    if state.current_player() < 0:
        return {}
    legal = np.flatnonzero(state.legal_mask()).tolist()
    g = state.game.geo
    p = state.to_move
    out: dict[int, float] = {}
    dests = state.dest_distance(p)  # (distance to the nearest, how many within 3) per vertex, or None
    gate_dist: dict[int, list[int]] = {}  # per line
    steer: dict[tuple[int, int], tuple[float, float, float]] = {}  # per (line, direction): both sides share it
    for a in legal:
        if a < A_EXTEND:  # START
            v = g.white_gates[a % 15]
            out[a] = DIG + 0.05 * (dests[1][v] if dests else 0)
        elif a < A_MARKER:  # EXTEND
            r = a - A_EXTEND
            li = 2 * p + r // 12
            d, s = (r % 12) // 2, r % 2
            h = state.verts[li][-1]
            k = h * 6 + d
            w = g.nbr[k]
            t = (g.tri_right if s else g.tri_left)[k]
            val = DIG
            if state.kinds[t]:
                val += COVER
            # an automatic station at h scores the markers around it (MM-R28, R31)
            if h not in state.has_station and len(state.verts[li]) >= 2:
                if any(o != li for o in state.vert_lines.get(h, ())):
                    val += 0.5 * state.station_points(h) + (1.0 if state.kinds[t] and h in g.tris[t] else 0.0)
            terms = steer.get((li, d))
            if terms is None:
                gates = gate_dist.get(li)
                if gates is None:
                    gates = gate_dist[li] = _gate_dist(state, li)
                terms = steer[li, d] = _steer_terms(state, li, h, w, d, gates, dests)
            toward_gate, toward_dest, dead_end = terms
            val += toward_gate
            val += toward_dest
            val -= dead_end
            out[a] = val
        elif a < A_STATION:  # CHOOSE_MARKER
            m = a - A_MARKER
            partner = state.marker_tri[(m + 6) % 12]
            out[a] = 1.0 + (0.2 if partner >= 0 else 0.0)
        elif a < A_END:  # STATION
            v = a - A_STATION
            pts = state.station_points(v)
            out[a] = pts + (0.3 if state.phase_id == Phase.END_STATION else -BUILD_COST)
        elif a < A_NOOP:  # END
            out[a] = END_LINE
        else:
            out[a] = 0.0
    return out


def turn_values(state: MetromaniaState) -> dict[int, float]:
    """Two-ply values within the mover's own turn: ``action_values`` of each legal action plus the
    best ``action_values`` entry of the next decision when the same seat decides again (the Dig
    goes on, a marker choice, the free station after ending a line), else the one-ply value.

    A Dig is three tunnels chosen one at a time; this sees the next tunnel of the Dig (measured:
    the greedy player on these values beats the one-ply heuristic 0.570 of 1000 two-player
    games; three plies gain nothing more). The ``action_features`` observation block shows them.
    """
    p = state.current_player()
    vals = action_values(state)
    if p < 0:
        return vals
    out: dict[int, float] = {}
    for a, v in vals.items():
        if A_STATION <= a < A_END or a == A_NOOP:
            # a station (MM-R30, MM-R35) or a pass ends the action: the next seat moves (2+
            # players) or the game ends, so the one-ply value stands (no copy needed to see it)
            out[a] = v
            continue
        nxt = state.clone()
        nxt.apply_action(a)
        if nxt.current_player() == p:
            more = action_values(nxt)
            if more:
                v += max(more.values())
        out[a] = v
    return out


def _steer_terms(
    state: MetromaniaState,
    li: int,
    h: int,
    w: int,
    d: int,
    gates: list[int],
    dests: tuple[list[int], list[int]] | None,
) -> tuple[float, float, float]:
    """Points for line li's tunnel from its head h to w (direction d) that do not depend on its side:
    towards the gate targets (``gates``: ``_gate_dist``), towards the destination targets
    (``dests``: ``dest_distance``), and the dead-end penalty (0.0 where a term does not apply:
    adding it leaves a value exactly as it was)."""
    toward_gate = toward_dest = dead_end = 0.0
    if gates:
        dw = gates[w]
        urgency = 1.0 if state.unused(li) - 1 - dw < 4 else 0.3
        toward_gate = TOWARD_GATE * urgency * (gates[h] - dw)
    if dests and not state.covered:
        toward_dest = TOWARD_DEST * (dests[0][h] - dests[0][w])
    if (not gates or gates[w]) and _dead_end(state, w, d, li):  # w is no target gate
        dead_end = DEAD_END
    return toward_gate, toward_dest, dead_end


def _dead_end(state: MetromaniaState, w: int, d: int, li: int) -> bool:
    """Whether a line arriving at w in direction d would have no free step onward (rough)."""
    g = state.game.geo
    own = state.vset[li]
    for e in (d, (d + 1) % 6, (d + 5) % 6):
        k = w * 6 + e
        y = g.nbr[k]
        if y < 0 or y in own:
            continue
        for t in (g.tri_left[k], g.tri_right[k]):
            if t >= 0 and state.tri_line[t] < 0 and state.kinds[t] < LAKE:
                return False
    return True


__all__ = ["A_START", "action_values", "turn_values"]
