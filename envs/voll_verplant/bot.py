"""Rule-based policy for Voll verplant: one-ply greedy evaluation of each legal action.

Value of an action = immediate points (completed line bonuses, 2 x transfer numbers, half a point
per station crossed, since empty stations cost half a point each) + the change of a potential
that rewards lines which the remaining wagon windows can still complete, minus a small cost for
crossing a station in the middle of another line's empty run (it would stop a later Number card
there, VV-R14). It reads only its own sheet and public bonus strikes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .data import FREE, NUMBER, TRANSFER
from .rules import A_FREE, A_TRANSFER, VollVerplantGame, VollVerplantState, transfer_value

AVG_CROSSES = 3.6  # expected crosses a future window yields
BLOCK_COST = 1.0  # crossing into another line's empty run


def _potential(state: VollVerplantState, seat: int, unm: list[int], wleft: list[int], done: list[int]) -> float:
    m = state.game.map
    solo = state.num_players == 1
    total = 0.0
    for li in range(m.num_lines):
        if done[li] or unm[li] == 0:
            continue
        bonus = m.bonus_first[li] if solo or not state.first_gone[li] else m.bonus_other[li]
        x = wleft[li] * AVG_CROSSES / unm[li]
        total += bonus * (x if x < 1.0 else 1.0) ** 2
    return total


def evaluate(state: VollVerplantState, seat: int, a: int) -> float:
    """Heuristic value of action ``a`` for ``seat`` on the revealed card."""
    g = state.game
    m = g.map
    t = g.deck.kind_type[state.card]
    mk = state.marks[seat]
    unm = state.unm[seat][:]
    wleft = [m.windows[li] - len(state.wins[seat][li]) for li in range(m.num_lines)]
    done = state.scored[seat]
    before = _potential(state, seat, unm, wleft, done)
    crossed: list[int] = []
    value = 0.0
    if t == FREE:
        s = a - A_FREE
        if m.st_lines[s] and not mk[s]:
            crossed.append(s)
    elif t == TRANSFER:
        li = a - A_TRANSFER
        wleft[li] -= 1
        i = state.first[seat][li]
        st = m.line_st[li]
        if i < len(st):
            crossed.append(st[i])
            value += transfer_value(m.n_lines_through[st[i]])
    else:
        li, k = divmod(a, 7)
        wleft[li] -= 1
        st = m.line_st[li]
        if t == NUMBER:
            i = state.first[seat][li]
            crossed.extend(st[i : i + k])
        else:
            for s in st:
                if len(crossed) == k:
                    break
                if not mk[s]:
                    crossed.append(s)
    touched = set()
    cset = set(crossed)
    for s in crossed:
        value += 0.5
        for lj in m.st_lines[s]:
            unm[lj] -= 1
            touched.add(lj)
            # crossing inside another line's empty run blocks its later Number cards
            stj = m.line_st[lj]
            pos = stj.index(s)
            fj = state.first[seat][lj]
            if pos > fj and not all((x in cset) or mk[x] for x in stj[fj:pos]) and wleft[lj] > 0:
                value -= BLOCK_COST
    solo = state.num_players == 1
    for lj in touched:
        if unm[lj] == 0 and not done[lj]:
            value += m.bonus_first[lj] if solo or not state.first_gone[lj] else m.bonus_other[lj]
    after = _potential(state, seat, unm, wleft, [d or (unm[i] == 0) for i, d in enumerate(done)])
    return value + after - before


def policy(state: VollVerplantState, seat: int, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(state.legal_mask())
    if len(legal) == 1:
        return int(legal[0])
    best, best_v = [], -1e18
    for a in legal:
        v = evaluate(state, seat, int(a))
        if v > best_v + 1e-9:
            best, best_v = [int(a)], v
        elif v > best_v - 1e-9:
            best.append(int(a))
    return best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]


def heuristic(game: VollVerplantGame, seat: int, seed: int | None = None, **style: Any) -> HeuristicBot:
    """The game's heuristic bot (GameSpec.heuristic); it has no style variants."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="voll_verplant_heuristic")
