"""Rule-based policy for Voll verplant: one-ply greedy evaluation of each legal action.

Value of an action = immediate points (completed line bonuses, 2 x transfer numbers, half a point
per station crossed, since empty stations cost half a point each) + the change of a potential
that rewards lines which the remaining wagon windows can still complete, minus a small cost for
crossing a station in the middle of another line's empty run (it would stop a later Number card
there, VV-R14). It reads only its own sheet and public bonus strikes.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .data import FREE, NUMBER, TRANSFER, MapData
from .rules import A_FREE, A_TRANSFER, VollVerplantGame, VollVerplantState, transfer_value

AVG_CROSSES = 3.6  # expected crosses a future window yields
BLOCK_COST = 1.0  # crossing into another line's empty run


class _Sheet:
    """What ``evaluate`` reads of ``seat``'s sheet on the revealed card, gathered once per decision
    (it is the same for every action): the unmarked stations and wagon windows left per line, each
    line's potential term and the running sums of the potential over the lines."""

    def __init__(self, state: VollVerplantState, seat: int):
        g = state.game
        m = g.map
        self.state = state
        self.seat = seat
        self.map = m
        self.kind = g.deck.kind_type[state.card]
        self.marks = mk = state.marks[seat]
        self.first = first = state.first[seat]
        self.index = _station_index(m)
        # per line: the (position, station) of its unmarked stations from its first open one on
        self.gaps = [
            [(q, x) for q, x in enumerate(st) if q >= first[li] and not mk[x]] for li, st in enumerate(m.line_st)
        ]
        self.done = done = state.scored[seat]
        self.unm = unm = state.unm[seat]
        wins = state.wins[seat]
        self.wleft = wleft = [m.windows[li] - len(wins[li]) for li in range(m.num_lines)]
        solo = state.num_players == 1
        fg = state.first_gone
        # the bonus a line completed now scores
        self.bonus = bonus = [
            m.bonus_first[li] if solo or not fg[li] else m.bonus_other[li] for li in range(m.num_lines)
        ]
        # potential: lines the remaining windows can still complete; terms[li] None where the line
        # adds nothing (done or fully marked); sums[li] the potential of the lines before li, added
        # up in line order as ``_potential`` does
        self.terms: list[float | None] = []
        self.sums = [0.0]
        total = 0.0
        for li in range(m.num_lines):
            t = None if done[li] or unm[li] == 0 else _term(bonus[li], wleft[li], unm[li])
            self.terms.append(t)
            if t is not None:
                total += t
            self.sums.append(total)

    def potential_after(self, unm: list[int], wleft: list[int], changed: set[int]) -> float:
        """``_potential`` with ``unm`` and ``wleft`` differing from the sheet's only on the lines
        ``changed``: the same terms added in the same order (the unchanged lines' terms reused)."""
        lo = min(changed)
        total = self.sums[lo]
        done = self.done
        terms = self.terms
        bonus = self.bonus
        for li in range(lo, len(terms)):
            if li in changed:
                if done[li] or unm[li] == 0:
                    continue
                total += _term(bonus[li], wleft[li], unm[li])
            else:
                t = terms[li]
                if t is not None:
                    total += t
        return total

    def evaluate(self, a: int) -> float:
        """Heuristic value of action ``a`` (``evaluate``)."""
        m = self.map
        t = self.kind
        mk = self.marks
        first = self.first
        index = self.index
        gaps = self.gaps
        unm = self.unm[:]
        wleft = self.wleft[:]
        changed: set[int] = set()
        crossed: list[int] = []
        value = 0.0
        if t == FREE:
            s = a - A_FREE
            if m.st_lines[s] and not mk[s]:
                crossed.append(s)
        elif t == TRANSFER:
            li = a - A_TRANSFER
            wleft[li] -= 1
            changed.add(li)
            i = first[li]
            st = m.line_st[li]
            if i < len(st):
                crossed.append(st[i])
                value += transfer_value(m.n_lines_through[st[i]])
        else:
            li, k = divmod(a, 7)
            wleft[li] -= 1
            changed.add(li)
            st = m.line_st[li]
            if t == NUMBER:
                i = first[li]
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
                # (an unmarked station of lj between its first open one and s, not crossed now)
                if wleft[lj] > 0:
                    pos = index[lj][s]
                    for q, x in gaps[lj]:
                        if q >= pos:
                            break
                        if x not in cset:
                            value -= BLOCK_COST
                            break
        done = self.done
        bonus = self.bonus
        for lj in touched:
            if unm[lj] == 0 and not done[lj]:
                value += bonus[lj]
        changed |= touched
        after = self.potential_after(unm, wleft, changed) if changed else self.sums[-1]
        return value + after - self.sums[-1]


@cache
def _station_index(m: MapData) -> list[dict[int, int]]:
    """Per line of map ``m``: each station's position on it."""
    return [{x: q for q, x in enumerate(st)} for st in m.line_st]


def _term(bonus: int, wleft: int, unm: int) -> float:
    """A line's potential: its bonus times the squared share (at most 1) of its unmarked stations
    the windows left can be expected to cross."""
    x = wleft * AVG_CROSSES / unm
    return bonus * (x if x < 1.0 else 1.0) ** 2


def evaluate(state: VollVerplantState, seat: int, a: int) -> float:
    """Heuristic value of action ``a`` for ``seat`` on the revealed card: immediate points plus
    the change of the potential (``policy`` gathers the sheet once for all actions)."""
    return _Sheet(state, seat).evaluate(a)


def policy(state: VollVerplantState, seat: int, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(state.legal_mask())
    if len(legal) == 1:
        return int(legal[0])
    sheet = _Sheet(state, seat)
    best, best_v = [], -1e18
    for a in legal.tolist():
        v = sheet.evaluate(a)
        if v > best_v + 1e-9:
            best, best_v = [a], v
        elif v > best_v - 1e-9:
            best.append(a)
    return best[int(rng.integers(len(best)))] if len(best) > 1 else best[0]


def heuristic(game: VollVerplantGame, seat: int, seed: int | None = None, **style: Any) -> HeuristicBot:
    """The game's heuristic bot (GameSpec.heuristic); it has no style variants."""
    if style:
        raise ConfigError(f"{game.env_id} heuristic has no style {sorted(style)}")
    return HeuristicBot(policy, seed, name="voll_verplant_heuristic")
