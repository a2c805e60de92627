"""Heuristic Downforce policy ``policy(state, seat, rng) -> action``.

It sees a determinized state (other hands, the set-aside cards and others' secret commits
re-dealt by ``resample_hidden``), so it plays only on what its seat knows.

- Auction: value a car by its grid position and by how much speed of that colour the bot holds;
  bid the cheapest card that reaches a modest target, never overpaying (a car's average prize is
  about $5.5M).
- Race: try every card on a copy of the state (sub-steps answered greedily) and keep the one that
  moves its own cars furthest relative to the others.
- Steering (DF-R20, manual steering, the default): it steers like a player. Every remaining step of
  the car being moved is planned at once (a small search over the lanes, the other cars standing
  still): its own cars and the cars it bet on go as far as they can, ending where they have free
  lanes ahead; every other car goes as short as it can, into a blocked or slow lane, unless that
  leaves it directly in front of one of its own cars (then that costs the bot too).
  Style ``steer="auto"`` steers by the fixed rule of automatic steering instead (the old behaviour).
- Bets: the car leading the race (ties: its own car).
"""

from __future__ import annotations

import numpy as np

from .rules import A_BET, A_COLOR, A_NO, A_POWER, A_STEER, A_YES, NUM_CARS, DownforceState

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


def _finish_turn(st: DownforceState, seat: int, steer: str = "player") -> None:
    """Answer the sub-steps of the current card greedily (the heuristic's own rules, YES to own
    extra movement) until the turn's card is resolved or a bet/another turn comes up. Only
    ``seat``'s own bets are read (another seat's, e.g. a Cunning holder's, are hidden from it)."""
    guard = 0
    while st.stage == "race" and st.dec_type not in ("play", "") and guard < 400:
        guard += 1
        st._apply(_greedy_substep(st, st.dec_seat, steer, seat))  # legal by construction
        st._mask = None


def _greedy_substep(st: DownforceState, seat: int, steer: str = "player", viewer: int | None = None) -> int:
    t = st.dec_type
    if t == "steer":
        if steer == "auto":
            return A_STEER + st.dec_args[3]  # DF-R20's fixed rule: the first in its order
        return _choose_steer(st, seat, viewer is None or viewer == seat)
    if t == "yesno":
        return A_YES
    legal = np.flatnonzero(st.legal_mask())
    if t == "wild":
        return _choose_wild(st, seat, legal)
    if t == "color":
        return _choose_color(st, seat, legal)
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
    if st.dec_args and st.dec_args[0] == 0:  # Strategic: ignore the best opponent car
        others = [c for c in cands if st.owner[c] != seat]
        if others:
            return A_COLOR + max(others, key=lambda c: _progress(st, c))
        return A_COLOR + cands[0]
    return A_COLOR + max(cands, key=lambda c: _progress(st, c))  # Defensive: push the leader


def friendly_cars(st: DownforceState, seat: int, with_bets: bool = True) -> list[bool]:
    """The cars ``seat`` wants to go far: its own and (``with_bets``) those it bet on."""
    f = [o == seat for o in st.owner]
    if with_bets:
        for b in st.bets:
            if b[seat] >= 0:
                f[b[seat]] = True
    return f


def steer_scores(st: DownforceState, seat: int, with_bets: bool = True) -> dict[int, float]:
    """For the STEER decision now: each legal lane choice's value for ``seat`` after the car's
    remaining movement (planned over every later fork the same way; the other cars stand still),
    higher is better. A friendly car (``friendly_cars``): rows reached plus a small bonus for free
    lanes ahead of where it stops. Any other car: minus that (short, boxed in, stuck), less a cost if
    it stops right in front of a friendly car (it would block that car too)."""
    g = st.game
    args = st.dec_args
    car, m = args[0], args[1] - 1  # after the first step, m steps are left
    occ = st.occ
    steps = g.steps
    exists = g.exists
    last = g.last_row
    friendly = friendly_cars(st, seat, with_bets)
    mine = friendly[car]
    behind = [st.pos[c] for c in range(len(friendly)) if friendly[c] and c != car and st.pos[c] >= 0]
    row0, lane0 = divmod(st.pos[car], 3)
    fin = last + 10.0 if mine else -(last + 10.0)

    def leaf(sid: int) -> float:  # where the car stops
        free = 0
        for _, s2 in steps[sid]:
            if occ[s2] < 0:
                free += 1
        v = sid // 3 + 0.2 * free
        if mine:
            return v
        r, ln = divmod(sid, 3)
        for b in behind:  # it would stand in a friendly car's way
            if b // 3 == r - 1 and -1 <= b % 3 - ln <= 1:
                v += 0.6
        return -v

    # every step goes one row up, so plan row by row from the furthest reachable row down to
    # the first step's row: the best value of standing on (row, lane) with the steps left there
    nxt: list = [None, None, None]
    r = min(row0 + 1 + m, last)
    while r > row0:
        k = m - (r - row0 - 1)
        cur: list = [None, None, None]
        for lane in range(3):
            sid = r * 3 + lane
            if not exists[sid] or occ[sid] >= 0:
                continue
            if k == 0:
                v = leaf(sid)
            elif r == last:  # DF-R21: finishes
                v = fin
            else:
                v = None
                for _, s2 in steps[sid]:
                    if occ[s2] < 0:
                        w = nxt[s2 % 3]
                        if v is None or w > v:
                            v = w
                if v is None:  # blocked (DF-R18)
                    v = leaf(sid)
            cur[lane] = v
        nxt = cur
        r -= 1
    return {A_STEER + k: nxt[lane0 + k - 1] for k in args[3:]}


def _choose_steer(st: DownforceState, seat: int, with_bets: bool = True) -> int:
    sc = steer_scores(st, seat, with_bets)
    best = None
    for k in st.dec_args[3:]:  # ties: DF-R20's automatic order
        if best is None or sc[A_STEER + k] > sc[best]:
            best = A_STEER + k
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
        target += 1.5  # must get a car soon
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


def play_values(st: DownforceState, seat: int, legal, steer: str = "player") -> list[float]:
    """1-ply lookahead: the race evaluation ``_value`` for ``seat`` after each action of ``legal``
    (a race card, a lane choice, a wild's car) on a copy, the rest of the card answered greedily.
    Reads only the board, the card played and ``seat``'s own bets, so it is public information plus
    the seat's own hand and bets (the observation's action features use it)."""
    out = []
    for a in legal:
        sim = st.clone()
        sim.apply_action(int(a))
        _finish_turn(sim, seat, steer)
        out.append(_value(sim, seat))
    return out


def _play(st: DownforceState, seat: int, legal, keep_speed8: float = 0.8, steer: str = "player") -> int:
    best, best_v = int(legal[0]), -1e9
    for a, v in zip(legal, play_values(st, seat, legal, steer)):
        if int(a) >= 42:
            v -= keep_speed8  # keep speed-8 cards for later
        if v > best_v:
            best, best_v = int(a), v
    return best


def _bet(st: DownforceState, seat: int, legal, bet_own: bool = False) -> int:
    order = st.race_order()
    if bet_own:  # the best-placed own car first, else the leader
        order = [c for c in order if st.owner[c] == seat] + [c for c in order if st.owner[c] != seat]
    for c in order:
        if A_BET + c in legal:
            return A_BET + c
    return int(legal[0])


def policy(
    st: DownforceState,
    seat: int,
    rng: np.random.Generator,
    bet_own: bool = False,
    keep_speed8: float = 0.8,
    steer: str = "player",
) -> int:
    """The heuristic's action. The defaults are the suite's heuristic bot; ``bet_own`` (bet on the
    best-placed own car rather than the leader), ``keep_speed8`` (how many rows of lookahead a
    speed-8 card must gain to be played) and ``steer="auto"`` (steer by the fixed rule of automatic
    steering, the heuristic before manual steering became the default) make the variants
    ``DownforceGame.heuristic_bot`` offers (imitation teachers, baselines)."""
    t = st.dec_type
    if t == "steer":
        return _greedy_substep(st, seat, steer)
    legal = np.flatnonzero(st.legal_mask())
    if t == "bid":
        return _bid(st, seat, legal)
    if t == "play":
        return _play(st, seat, legal, keep_speed8, steer)
    if t == "bet":
        return _bet(st, seat, set(int(a) for a in legal), bet_own)
    if t == "power":
        return max((int(a) for a in legal), key=lambda a: _POWER_PREF[st.power_of_car[a - A_POWER]])
    if t == "yesno":
        kind = st.dec_args[0]
        if kind == 0:  # Tricky: compare both orders
            best, best_v = A_NO, -1e9
            for a in (A_NO, A_YES):
                sim = st.clone()
                sim.apply_action(a)
                _finish_turn(sim, seat, steer)
                v = _value(sim, seat)
                if v > best_v:
                    best, best_v = a, v
            return best
        return A_YES
    return _greedy_substep(st, seat, steer)


def main(argv: list[str] | None = None) -> int:
    """The heuristic (default style) against random bots or against a style variant, seats rotated:
    ``python -m boardzoo.envs.downforce.bot --vs steer=auto --games 1000`` (the old auto-steering
    heuristic), ``--vs random``; prints the win rate with its Wilson 95% interval."""
    import argparse
    import time

    from boardzoo.envs.core.arena import match
    from boardzoo.envs.core.bots import RandomBot

    from .rules import DownforceGame

    ap = argparse.ArgumentParser(description=main.__doc__.splitlines()[0])
    ap.add_argument("--vs", default="random", help="random, or a heuristic style as KEY=VALUE[,KEY=VALUE]")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="game option")
    args = ap.parse_args(argv)
    opts: dict = {}
    for kv in args.option:
        k, _, v = kv.partition("=")
        opts[k] = {"true": True, "false": False}.get(v.lower(), v)
    game = DownforceGame(**opts)
    if args.vs == "random":
        other = lambda s, sd: RandomBot(sd)  # noqa: E731
    else:
        style: dict = {}
        for kv in args.vs.split(","):
            k, _, v = kv.partition("=")
            style[k] = {"true": True, "false": False}.get(v.lower(), v)
            if k == "keep_speed8":
                style[k] = float(v)
        game.heuristic_bot(0, 0, **style)  # checks the style
        other = lambda s, sd: game.heuristic_bot(s, seed=sd, **style)  # noqa: E731
    t = time.time()
    m = match(game, args.players, lambda s, sd: game.heuristic_bot(s, seed=sd), other, args.games, args.seed)
    lo, hi = m.ci95
    print(
        f"downforce_v0 {opts or ''} {args.players} players, {m.games} games: heuristic win rate {m.rate:.3f} "
        f"[95% CI {lo:.3f}, {hi:.3f}] vs {args.vs} (even share {1 / args.players:.3f}); mean score "
        f"{m.hero_score:.1f} vs {m.others_score:.1f}; {time.time() - t:.0f}s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
