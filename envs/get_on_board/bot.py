"""Heuristic policy for Get on Board: searches every way to finish the current turn (all markers
of the shape and green-light extras; at most a few dozen sequences) and scores the resulting
position: own total with unscored rows at half value, progress towards the personal and the
common objectives, room left to move (avoids dead ends that force elimination); traffic and
turn-zone costs are already in the total. Departure: the ticket nearest to the personal objective.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .rules import A_TICKET_HIGH, A_TICKET_LOW, C0, P_DEPART, P_PLACE, GetOnBoardGame, GetOnBoardState

_DIST: dict[int, list[list[int]]] = {}


def _distances(m) -> list[list[int]]:
    key = id(m)
    if key not in _DIST:
        out = []
        for s in range(m.n):
            d = [99] * m.n
            d[s] = 0
            dq = deque([s])
            while dq:
                u = dq.popleft()
                for _, _, v in m.exits[u]:
                    if d[v] == 99:
                        d[v] = d[u] + 1
                        dq.append(v)
            out.append(d)
        _DIST[key] = out
    return _DIST[key]


def _room(st: GetOnBoardState, p: int, cap: int = 40) -> int:
    """Unvisited intersections reachable from the route end (capped flood fill)."""
    m = st.game.map
    vis = st.visl[p]
    start = st.route[p][-1]
    seen = {start}
    dq = deque([start])
    cnt = 0
    while dq and cnt < cap:
        u = dq.popleft()
        for _, _, v in m.exits[u]:
            if v not in seen and not vis[v]:
                seen.add(v)
                cnt += 1
                dq.append(v)
    return cnt


def evaluate(st: GetOnBoardState, p: int) -> float:
    if st.elim[p]:
        return -1000.0
    g = st.game
    m = g.map
    val = float(g.rules.total(st.sheets[p], True))
    rounds_left = g.rounds - len(st.used)
    if st.personal[p] >= 0:
        objs = m.objectives[st.personal[p]]
        vis = st.visl[p]
        left = [q for q in objs if not vis[q]]
        if not left:
            val += g.rules.personal_value
        elif rounds_left > 0:
            dist = _distances(m)
            end = st.route[p][-1]
            near = min(dist[end][q] for q in left)
            val += (3 - len(left)) * 2.5 - 0.4 * near
    sh = st.sheets[p]
    for j, c in enumerate(st.common):  # progress towards unclaimed common objectives
        if not sh[C0 + j]:
            obj = g.commons[c]
            x = min(1.0, g.rules.counter(sh, obj["counter"]) / obj["threshold"])
            val += (6 if st.claimed[j] else 10) * 0.6 * x * x
    if rounds_left > 0:
        room = _room(st, p)
        if room == 0:
            return -500.0 + val  # the next marker is forced onto the own route
        if room < 4:
            val -= 60.0 * (4 - room)  # a 2-3 marker shape next turn may not fit
        need = min(40, 3 * rounds_left + 2)
        if room < need:
            val -= (need - room) * 3.0
    return val


def _best(st: GetOnBoardState, p: int, depth: int) -> float:
    if st.ph != P_PLACE or st.cur != p or depth > 8:
        return evaluate(st, p)
    best = -1e9
    for a in np.flatnonzero(st.legal_mask()):
        c = st.clone()
        c.apply_action(int(a))
        v = _best(c, p, depth + 1)
        if v > best:
            best = v
    return best


def policy(state: GetOnBoardState, seat: int, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(state.legal_mask())
    if len(legal) == 1:
        return int(legal[0])
    if state.ph == P_DEPART:
        m = state.game.map
        dist = _distances(m)
        objs = m.objectives[state.personal[seat]] if state.personal[seat] >= 0 else []
        best, pick = None, int(legal[0])
        for a in (A_TICKET_LOW, A_TICKET_HIGH):
            q = m.dep_node[state.tickets[seat][a - A_TICKET_LOW]]
            v = sum(dist[q][o] for o in objs) + rng.random() * 0.1
            if best is None or v < best:
                best, pick = v, a
        return pick
    vals = []
    for a_ in legal:
        c = state.clone()
        c.apply_action(int(a_))
        vals.append(_best(c, seat, 1) + rng.random() * 1e-3)
    return int(legal[int(np.argmax(vals))])


def heuristic(game: GetOnBoardGame, seat: int, seed: int | None = None, **style) -> HeuristicBot:
    """The game's heuristic bot (no style variants)."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="get_on_board_heuristic")
