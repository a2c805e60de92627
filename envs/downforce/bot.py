"""Heuristic Downforce policy ``policy(state, seat, rng) -> action``.

It sees a determinized state (other hands, the set-aside cards and others' secret commits
re-dealt by ``resample_hidden``), so it plays only on what its seat knows.

- Auction: value a car by its grid position and by how much speed of that colour the bot holds;
  bid the cheapest card that reaches a modest target, never overpaying (a car's average prize is
  about $5.5M).
- Race: try every card on a copy of the state (sub-steps answered greedily) and keep the one that
  moves its own cars furthest relative to the others (``rules.race_value``: the difference of the
  mean progress; the styles ``lead`` and ``rival_lead`` weight the best-placed car of each side).
- Steering (DF-R20, manual steering, the default): it steers like a player. Every remaining step of
  the car being moved is planned at once (a small search over the lanes, the other cars standing
  still): its own cars and the cars it bet on go as far as they can, ending where they have free
  lanes ahead; every other car goes as short as it can, into a blocked or slow lane, unless that
  leaves it directly in front of one of its own cars (then that costs the bot too).
  Style ``steer="auto"`` steers by the fixed rule of automatic steering instead (the old behaviour).
- Bets: the car leading the race (ties: its own car).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import ConfigError
from .rules import (
    A_BET,
    A_NO,
    A_POWER,
    A_YES,
    D_BET,
    D_BID,
    D_PLAY,
    D_POWER,
    D_STEER,
    D_YESNO,
    NUM_CARS,
    NUM_REGULAR,
    Y_TRICKY,
    DownforceGame,
    DownforceState,
    finish_turn,
    greedy_substep,
    play_values,
    race_value,
)

# preference when keeping one of two powers (higher = better)
_POWER_PREF = [5, 3, 4, 2, 2, 3, 4, 3, 3, 6, 4, 3]
KEEP_SPEED8 = 0.8  # rows of lookahead a speed-8 card must gain to be played (style keep_speed8)


def _bid(st: DownforceState, seat: int, legal: Sequence[int], grid_bonus: float = 1.0) -> int:
    g = st.game
    car = st.auction_order[st.auction_idx]
    hand = [int(a) for a in legal]
    strength = sum(g.bid_value[c][car] for c in hand if c < NUM_REGULAR)
    grid_pos = st.grid_cars.index(car)
    target = 1 + strength / 8.0 + (grid_bonus if grid_pos < 2 else 0.0)
    n = st.num_players
    carless = [s for s in range(n) if s not in st.owner]
    if seat not in st.owner and NUM_CARS - st.auction_idx <= len(carless) + 1:
        target += 1.5  # must get a car soon
    if seat in st.owner and sum(1 for o in st.owner if o == seat) >= 2:
        target -= 2
    target = min(target, 5.0)
    # the highest bid not above target; otherwise bid 0 with the card least useful for the race
    best, best_v = -1, -1
    for c in hand:
        v = g.bid_value[c][car]
        if v <= target and (v > best_v or (v == best_v and g.bid_line[c][car] < g.bid_line[best][car])):
            best, best_v = c, v
    return int(best if best >= 0 else hand[0])


def _play(
    st: DownforceState,
    seat: int,
    legal: Sequence[int],
    keep_speed8: float = KEEP_SPEED8,
    steer: str = "player",
    lead: float = 0.0,
    rival_lead: float = 0.0,
) -> int:
    best, best_v = int(legal[0]), -1e9
    for a, v in zip(legal, play_values(st, seat, legal, steer, lead, rival_lead)):
        if int(a) >= NUM_REGULAR:
            v -= keep_speed8  # keep speed-8 cards for later
        if v > best_v:
            best, best_v = int(a), v
    return best


def _bet(st: DownforceState, seat: int, legal: set[int], bet_own: bool = False) -> int:
    order = st.race_order()
    if bet_own:  # the best-placed own car first, else the leader
        order = [c for c in order if st.owner[c] == seat] + [c for c in order if st.owner[c] != seat]
    for c in order:
        if A_BET + c in legal:
            return A_BET + c
    return min(legal)


def policy(
    st: DownforceState,
    seat: int,
    rng: np.random.Generator,
    bet_own: bool = False,
    keep_speed8: float = KEEP_SPEED8,
    steer: str = "player",
    lead: float = 0.0,
    rival_lead: float = 0.0,
    grid_bonus: float = 1.0,
) -> int:
    """The heuristic's action. The defaults are the suite's heuristic bot; ``bet_own`` (bet on the
    best-placed own car rather than the leader), ``keep_speed8`` (how many rows of lookahead a
    speed-8 card must gain to be played), ``steer="auto"`` (steer by the fixed rule of automatic
    steering, the heuristic before manual steering became the default), ``lead`` and
    ``rival_lead`` (0..1: the weight of each side's best-placed car in the race evaluation,
    ``rules.race_value``) and ``grid_bonus`` (how much more it bids for a car on the front row of
    the grid) make the variants ``heuristic`` offers (imitation teachers, baselines)."""
    t = st.dec_type
    if t == D_STEER:
        return greedy_substep(st, seat, steer)
    legal = np.flatnonzero(st.legal_mask()).tolist()
    if t == D_BID:
        return _bid(st, seat, legal, grid_bonus)
    if t == D_PLAY:
        return _play(st, seat, legal, keep_speed8, steer, lead, rival_lead)
    if t == D_BET:
        return _bet(st, seat, set(legal), bet_own)
    if t == D_POWER:
        return max(legal, key=lambda a: _POWER_PREF[st.power_of_car[a - A_POWER]])
    if t == D_YESNO:
        if st.dec_args[0] == Y_TRICKY:  # compare both orders
            best, best_v = A_NO, -1e9
            for a in (A_NO, A_YES):
                sim = st.clone()
                sim.apply_action(a)
                finish_turn(sim, seat, steer)
                v = race_value(sim, seat, lead, rival_lead)
                if v > best_v:
                    best, best_v = a, v
            return best
        return A_YES
    return greedy_substep(st, seat, steer)


_FLOAT_STYLES = ("keep_speed8", "lead", "rival_lead", "grid_bonus")
STYLES = ("bet_own", "steer", *_FLOAT_STYLES)


def heuristic(game: DownforceGame, seat: int, seed: int | None = None, **style: Any) -> HeuristicBot:
    """The heuristic bot; ``style`` picks a variant (``bet_own=True``: bet on the best-placed own
    car; ``keep_speed8=x``: the lookahead a speed-8 card must gain, default 0.8 rows;
    ``steer="auto"``: steer by automatic steering's fixed rule, the old heuristic; default
    ``"player"``: its own and bet-on cars far, the others into blocked or slow lanes;
    ``lead=x``, ``rival_lead=x`` in [0, 1]: the weight of the best-placed own / other car in the
    race evaluation, default 0 (means only); ``grid_bonus=x``: the extra bid target for a car on
    the front row of the grid, default 1)."""
    unknown = sorted(set(style) - set(STYLES))
    if unknown:
        raise ConfigError(f"downforce heuristic: unknown style {unknown}; use {', '.join(STYLES)}")
    if style.get("steer", "player") not in ("player", "auto"):
        raise ConfigError(f"downforce heuristic: style steer={style['steer']!r}; use 'player' or 'auto'")
    for k in _FLOAT_STYLES:
        v = style.get(k, 0.0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
            raise ConfigError(f"downforce heuristic: style {k}={v!r} must be a number")
    for k in ("lead", "rival_lead"):
        if not 0.0 <= float(style.get(k, 0.0)) <= 1.0:
            raise ConfigError(f"downforce heuristic: style {k}={style[k]!r} must lie in [0, 1]")
    if not style:
        return HeuristicBot(policy, seed, name="downforce-heuristic")
    return HeuristicBot(
        partial(
            policy,
            bet_own=bool(style.get("bet_own", False)),
            keep_speed8=float(style.get("keep_speed8", KEEP_SPEED8)),
            steer=str(style.get("steer", "player")),
            lead=float(style.get("lead", 0.0)),
            rival_lead=float(style.get("rival_lead", 0.0)),
            grid_bonus=float(style.get("grid_bonus", 1.0)),
        ),
        seed,
        name="downforce-heuristic-variant",
    )
