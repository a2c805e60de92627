"""Heuristic Downforce policy ``policy(state, seat, rng) -> action``.

It sees a determinized state (other hands, the set-aside cards and others' secret commits
re-dealt by ``resample_hidden``), so it plays only on what its seat knows.

- Auction: value a car by its grid position and by how much speed of that colour the bot holds;
  bid the cheapest card that reaches a modest target, never overpaying (a car's average prize is
  about $5.5M).
- Race: try every card on a copy of the state (sub-steps answered greedily) and keep the one that
  moves its own cars furthest relative to the others.
- Steering: keeps its own cars free, steers others toward dead ends.
- Bets: the car leading the race (ties: its own car).
"""
from __future__ import annotations

import numpy as np

from .rules import (A_BET, A_COLOR, A_NO, A_POWER, A_STEER, A_YES, NUM_CARS, DownforceState)

# preference when keeping one of two powers (higher = better)
_POWER_PREF = [5, 3, 4, 2, 2, 3, 4, 3, 3, 6, 4, 3]


def _progress(st: DownforceState, car: int) -> float:
    """Distance of a car along the race (finished cars beyond the last row, by place)."""
    if st.place[car]:
        return st.game.num_rows + 10 - st.place[car]
    return st.pos[car] // 3 + 0.01 * (3 - st.stamp[car] / max(1, st.stamp_counter))


def _value(st: DownforceState, seat: int) -> float:
    """Evaluation of a race position for ``seat``: own cars' progress minus the others'."""
    own = 0.0
    other = 0.0
    nother = 0
    for c in range(NUM_CARS):
        p = _progress(st, c)
        if st.owner[c] == seat:
            own += p
        else:
            other += p
            nother += 1
    nown = max(1, NUM_CARS - nother)
    return own / nown - other / max(1, nother)


def _finish_turn(st: DownforceState, seat: int) -> None:
    """Answer the sub-steps of the current card greedily (auto: first legal option, YES to own
    extra movement) until the turn's card is resolved or a bet/another turn comes up."""
    guard = 0
    while st.stage == "race" and st.dec_type not in ("play", "") and guard < 200:
        guard += 1
        st.apply_action(_greedy_substep(st, st.dec_seat))


def _greedy_substep(st: DownforceState, seat: int) -> int:
    m = st.legal_mask()
    legal = np.flatnonzero(m)
    t = st.dec_type
    if t == "yesno":
        return A_YES
    if t == "wild":
        return _choose_wild(st, seat, legal)
    if t == "color":
        return _choose_color(st, seat, legal)
    if t == "steer":
        return _choose_steer(st, seat, legal)
    return int(legal[0])


def _choose_wild(st: DownforceState, seat: int, legal) -> int:
    cands = [int(a) - A_COLOR for a in legal]
    mine = [c for c in cands if st.owner[c] == seat]
    if mine:
        return A_COLOR + max(mine, key=lambda c: -_progress(st, c))
    # help the car that is worst for the opponents: the last one
    return A_COLOR + min(cands, key=lambda c: _progress(st, c))


def _choose_color(st: DownforceState, seat: int, legal) -> int:
    cands = [int(a) - A_COLOR for a in legal]
    if st.dec_args and st.dec_args[0] == 0:     # Strategic: ignore the best opponent car
        others = [c for c in cands if st.owner[c] != seat]
        if others:
            return A_COLOR + max(others, key=lambda c: _progress(st, c))
        return A_COLOR + cands[0]
    return A_COLOR + max(cands, key=lambda c: _progress(st, c))   # Defensive: push the leader


def _choose_steer(st: DownforceState, seat: int, legal) -> int:
    car = st.dec_args[0]
    g = st.game
    row, lane = divmod(st.pos[car], 3)
    best, best_score = int(legal[0]), None
    for a in legal:
        nsid = (row + 1) * 3 + lane + int(a) - A_STEER - 1
        free = sum(1 for _, s2 in g.steps[nsid] if st.occ[s2] < 0) if nsid // 3 < g.last_row else 3
        score = free if st.owner[car] == seat else -free
        if best_score is None or score > best_score:
            best, best_score = int(a), score
    return best


def _bid(st: DownforceState, seat: int, legal) -> int:
    g = st.game
    car = st.auction_order[st.auction_idx]
    hand = [int(a) for a in legal]
    strength = sum(g.bid_value[c][car] for c in hand if c < 42)
    grid_pos = st.grid_cars.index(car)
    target = 1 + strength / 8.0 + (1.0 if grid_pos < 2 else 0.0)
    n = st.num_players
    carless = [s for s in range(n) if s not in st.owner]
    if seat not in st.owner and NUM_CARS - st.auction_idx <= len(carless) + 1:
        target += 1.5                                     # must get a car soon
    if seat in st.owner and sum(1 for o in st.owner if o == seat) >= 2:
        target -= 2
    target = min(target, 5.0)
    # the highest bid not above target; otherwise bid 0 with the card least useful for the race
    best, best_v = None, -1
    for c in hand:
        v = g.bid_value[c][car]
        if v <= target and (v > best_v or (v == best_v and g.bid_line[c][car] < g.bid_line[best][car])):
            best, best_v = c, v
    return int(best if best is not None else hand[0])


def play_values(st: DownforceState, seat: int, legal) -> list[float]:
    """1-ply lookahead: the race evaluation ``_value`` for ``seat`` after each card of ``legal`` is
    played on a copy (its sub-steps answered greedily). Reads only the board and the card played,
    so it is public information plus the seat's own hand (the observation's action features use it)."""
    out = []
    for a in legal:
        sim = st.clone()
        sim.apply_action(int(a))
        _finish_turn(sim, seat)
        out.append(_value(sim, seat))
    return out


def _play(st: DownforceState, seat: int, legal, keep_speed8: float = 0.8) -> int:
    best, best_v = int(legal[0]), -1e9
    for a, v in zip(legal, play_values(st, seat, legal)):
        if int(a) >= 42:
            v -= keep_speed8              # keep speed-8 cards for later
        if v > best_v:
            best, best_v = int(a), v
    return best


def _bet(st: DownforceState, seat: int, legal, bet_own: bool = False) -> int:
    order = st.race_order()
    if bet_own:                           # the best-placed own car first, else the leader
        order = [c for c in order if st.owner[c] == seat] + [c for c in order if st.owner[c] != seat]
    for c in order:
        if A_BET + c in legal:
            return A_BET + c
    return int(legal[0])


def policy(st: DownforceState, seat: int, rng: np.random.Generator, bet_own: bool = False,
           keep_speed8: float = 0.8) -> int:
    """The heuristic's action. The defaults are the suite's heuristic bot; ``bet_own`` (bet on the
    best-placed own car rather than the leader) and ``keep_speed8`` (how many rows of lookahead a
    speed-8 card must gain to be played) make the variants ``DownforceGame.heuristic_bot`` offers
    as imitation teachers."""
    legal = np.flatnonzero(st.legal_mask())
    t = st.dec_type
    if t == "bid":
        return _bid(st, seat, legal)
    if t == "play":
        return _play(st, seat, legal, keep_speed8)
    if t == "bet":
        return _bet(st, seat, set(int(a) for a in legal), bet_own)
    if t == "power":
        return max((int(a) for a in legal), key=lambda a: _POWER_PREF[st.power_of_car[a - A_POWER]])
    if t == "yesno":
        kind = st.dec_args[0]
        if kind == 0:       # Tricky: compare both orders
            best, best_v = A_NO, -1e9
            for a in (A_NO, A_YES):
                sim = st.clone()
                sim.apply_action(a)
                _finish_turn(sim, seat)
                v = _value(sim, seat)
                if v > best_v:
                    best, best_v = a, v
            return best
        return A_YES
    return _greedy_substep(st, seat)
