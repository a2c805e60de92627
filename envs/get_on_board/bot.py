"""Heuristic policy for Get on Board: searches every way to finish the current turn (all markers
of the shape and green-light extras; at most a few dozen sequences) and scores the resulting
position: own total with unscored rows at half value, progress towards the personal and the
common objectives, room left to move (avoids dead ends that force elimination); traffic and
turn-zone costs are already in the total. Departure: the ticket nearest to the personal objective.

The search of a turn's first decision is kept for its later ones (``_NEXT``: the subtree below the
chosen action, checked against the state field by field): they read the values instead of
searching again (same moves; in heuristic self-play 1.4x faster).
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


_NBRS: dict[int, list[tuple[int, ...]]] = {}


def _neighbours(m) -> list[tuple[int, ...]]:
    """Per intersection, the intersections one road away (cached per map)."""
    key = id(m)
    if key not in _NBRS:
        _NBRS[key] = [tuple(v for _, _, v in m.exits[u]) for u in range(m.n)]
    return _NBRS[key]


def _room(st: GetOnBoardState, p: int, cap: int = 40) -> int:
    """Unvisited intersections reachable from the route end, counted up to ``cap`` (a flood fill
    that stops there: ``evaluate`` reads the count only below ``cap``, where it is exact)."""
    nbrs = _neighbours(st.game.map)
    seen = bytearray(st.visl[p])  # the visited ones count as seen: never entered
    start = st.route[p][-1]
    seen[start] = 1
    stack = [start]
    cnt = 0
    while stack:
        for v in nbrs[stack.pop()]:
            if not seen[v]:
                seen[v] = 1
                cnt += 1
                if cnt >= cap:
                    return cnt
                stack.append(v)
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


# A search node: [value, cut, children]; children (a decision of the searching seat) is a list
# of (action, state after it, node), else None (an evaluated leaf); cut: the depth limit stopped
# the search somewhere below, so the value holds only at this depth.
Node = list


def _search(st: GetOnBoardState, p: int, depth: int) -> Node:
    """Best ``evaluate`` over every way to finish seat p's turn from ``st`` (the turn search)."""
    if st.ph != P_PLACE or st.cur != p:
        return [evaluate(st, p), False, None]
    if depth > 8:
        return [evaluate(st, p), True, None]
    best, cut, kids = -1e9, False, []
    for a in np.flatnonzero(st.legal_mask()).tolist():
        c = st.clone()
        c.apply_action(a)
        node = _search(c, p, depth + 1)
        kids.append((a, c if node[2] is not None else None, node))  # a leaf's state is not needed again
        cut = cut or node[1]
        if node[0] > best:
            best = node[0]
    return [best, cut, kids]


# The turn search's tree below the action just chosen, per state object (``id``): the next
# decision of the same turn (the same state object, one action on) reads its children's values
# instead of searching again. Checked by comparing the saved state field by field, so a state
# object that changed otherwise (or a new object at a reused id) only misses.
_NEXT: dict[int, tuple[int, GetOnBoardState, Node]] = {}


def _same(a: GetOnBoardState, b: GetOnBoardState) -> bool:
    """Whether two states are the same position (every canonical field; the rest derives from them)."""
    if a.game is not b.game or a.num_players != b.num_players:
        return False
    return all(getattr(a, f) == getattr(b, f) for f in a._FIELDS)


def _recall(state: GetOnBoardState, seat: int) -> list | None:
    """The children (action, state, node) of ``state`` remembered from the previous decision."""
    entry = _NEXT.pop(id(state), None)
    if entry is None:
        return None
    p, saved, node = entry
    if p != seat or not _same(saved, state):
        return None
    return node[2]


def policy(state: GetOnBoardState, seat: int, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(state.legal_mask())
    if len(legal) == 1:
        _NEXT.pop(id(state), None)
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
    kids = _recall(state, seat)
    if kids is None or [a for a, _, _ in kids] != legal.tolist():
        kids = []
        for a_ in legal.tolist():
            c = state.clone()
            c.apply_action(a_)
            node = _search(c, seat, 1)
            kids.append((a_, c if node[2] is not None else None, node))
    vals = [node[0] + rng.random() * 1e-3 for _, _, node in kids]
    i = int(np.argmax(vals))
    _, chosen, node = kids[i]
    if node[2] is None or node[1]:  # the turn ends (or the search was cut): nothing to reuse
        _NEXT.pop(id(state), None)
    else:
        if len(_NEXT) > 256:  # states of finished games, or of many games at once
            _NEXT.clear()
        _NEXT[id(state)] = (seat, chosen, node)
    return int(legal[i])


def heuristic(game: GetOnBoardGame, seat: int, seed: int | None = None, **style) -> HeuristicBot:
    """The game's heuristic bot (no style variants)."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="get_on_board_heuristic")
