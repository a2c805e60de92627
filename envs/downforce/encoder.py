"""Observation encoder of Downforce: a flat float32 vector, seat-relative ("me" first, then the
others in turn order), holding only what the observing seat may know (spec 7 "Information").

Secret commits: other seats' pending bids appear only as "has committed" flags; bets of other
seats appear only once the game has ended (DF-R26); set-aside cards never appear; other hands
appear only as their size and the cards publicly known to be in them (revealed bids, speed-8 cards).

Speed: every entry is written as a small integer into a bytearray (cheap per-element writes),
converted once and multiplied by a per-entry scale. The slowly changing part (auction results,
powers, publicly known cards) comes first in the layout and is cached per seat, keyed by what can
change it (``static_key``).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

MAXP = 6
NC = 6  # cars
NK = 48  # cards
NPOW = 12
STAGES = ("setup", "auction", "power", "race", "bet", "end")
_STAGE_INDEX = {"grid": 0, "deal": 0, "order": 0, "powers": 0, "auction": 1, "power": 2, "race": 3, "bet": 4, "end": 5}
CAR_STATIC = 21  # owner (6 relative seats + unowned), price, paired power (12), auctioned now
CAR_DYN = 20  # row, lane (3), on track, place (6), race position (6), subject, moved, curve


class Layout:
    """Offsets of every block of the observation (computed once per Game)."""

    def __init__(self, game) -> None:
        from .rules import COLOR_KINDS, DEC_TYPES, YESNO_KINDS

        self.dec_index = {t: i for i, t in enumerate(DEC_TYPES)}
        off = 0

        def block(size: int) -> int:
            nonlocal off
            start = off
            off += size
            return start

        # ---- static region (cached)
        self.nplayers = block(5)
        self.car_static = block(NC * CAR_STATIC)
        self.auction_idx = block(NC + 1)
        self.auction_order = block(NC * NC)
        self.bid_hist = block(NC * MAXP)
        self.held = block(MAXP * NPOW)
        self.paid = block(MAXP)
        self.static_end = off
        # ---- betting region (cached per seat while no bet changes)
        self.triggered = block(3)
        self.round_held = block(3)
        self.round_pos = block(3 * NC)
        self.round_open = block(3 * NC)
        self.bets = block(MAXP * 3 * NC)
        self.bet_committed = block(MAXP)
        self.bet_current = block(3)
        self.semi_end = off
        # ---- dynamic region
        self.stage = block(len(STAGES))
        self.dec = block(len(DEC_TYPES))
        self.yesno = block(len(YESNO_KINDS))
        self.color = block(len(COLOR_KINDS))
        self.decider = block(MAXP)
        self.me_deciding = block(1)
        self.turn = block(MAXP)
        self.cars = block(NC * CAR_DYN)
        self.eligible = block(MAXP)
        self.committed = block(MAXP)
        self.my_bid = block(NK)
        self.hand = block(NK)
        self.played = block(NK)
        self.revealed = block(MAXP * NK)
        self.hand_size = block(MAXP)
        self.cur_card = block(NK)
        self.reversed = block(1)
        self.ignored = block(NC)
        self.money = block(MAXP)
        self.final_place = block(NC)
        self.size = off
        self.last_row = game.last_row
        # a car's entries in three pieces, joined by _encode_cars: 0-10 (row, lane one-hot, on track,
        # place one-hot) per space id / per finishing place, 11-16 race position one-hot, 17-19
        # (subject, spaces moved this turn, curve entered)
        self.space_bytes = [
            bytes([sid // 3] + [int(sid % 3 == k) for k in range(3)] + [1] + [0] * 6) for sid in range(game.num_spaces)
        ]
        self.place_bytes = [bytes(11)] + [
            bytes([game.last_row, 0, 0, 0, 0] + [int(p == q) for q in range(1, 7)]) for p in range(1, 7)
        ]
        self.rank_bytes = [bytes(int(i == j) for j in range(6)) for i in range(6)] + [bytes(6)]
        # entries 0-16 by (space id, or finishing place q at index q - 7) and race position (6 = none)
        self.car_bytes = [[a + r for r in self.rank_bytes] for a in self.space_bytes + self.place_bytes]
        self.no_rank = [6] * NC
        self.moved_bytes = [[bytes((0, m, nr)) for nr in (0, 1)] for m in range(256)]
        self.space_rank = [-(sid // 3) * 1_000_000 for sid in range(game.num_spaces)]  # + entry stamp
        # per-entry scale: entries are written as small integers, then scaled
        sc = np.ones(off, dtype=np.float32)
        for c in range(NC):
            sc[self.car_static + c * CAR_STATIC + 7] = 1.0 / 8.0  # price paid
            b = self.cars + c * CAR_DYN
            sc[b] = 1.0 / max(1, game.last_row)  # row (finished cars: 1.0)
            sc[b + 18] = 1.0 / 4.0  # spaces moved this turn
            sc[b + 17] = 1.0 / 8.0  # subject (8); STEER: movement left
        sc[self.bid_hist : self.bid_hist + NC * MAXP] = 1.0 / 9.0
        sc[self.hand_size : self.hand_size + MAXP] = 1.0 / 21.0
        sc[self.paid : self.paid + MAXP] = 1.0 / 30.0
        sc[self.round_pos : self.round_pos + 3 * NC] = 1.0 / 6.0
        sc[self.final_place : self.final_place + NC] = 1.0 / 6.0
        self.scale = sc
        # the race stage assembles floats (encode): the car pieces as float32 bytes, already scaled
        csc = sc[self.cars : self.cars + CAR_DYN]

        def floats(b: bytes, s: np.ndarray) -> bytes:
            return np.multiply(np.frombuffer(b, dtype=np.uint8), s, dtype=np.float32).tobytes()

        self.car_floats = [[floats(x, csc[:17]) for x in row] for row in self.car_bytes]
        self.moved_floats = [[floats(x, csc[17:]) for x in row] for row in self.moved_bytes]
        self.cards_scale = sc[self.hand : self.cur_card].copy()
        self.zeros_dyn = bytes(self.size - self.semi_end)
        self.zeros_bets = bytes(self.semi_end - self.static_end)
        self.zeros_bets_private = bytes(self.semi_end - self.bets)
        self.dyn_offsets = (
            self.stage,
            self.dec,
            self.yesno,
            self.color,
            self.decider,
            self.me_deciding,
            self.turn,
            self.cars,
            self.eligible,
            self.committed,
            self.my_bid,
            self.hand,
            self.played,
            self.revealed,
            self.hand_size,
            self.cur_card,
            self.reversed,
            self.ignored,
        )
        self.rel = {n: [[(s - seat) % n for s in range(n)] for seat in range(n)] for n in range(1, MAXP + 1)}
        self.seat_order = {n: [[(seat + r) % n for r in range(n)] for seat in range(n)] for n in range(1, MAXP + 1)}
        self.cards_pad = {n: (bytes((MAXP - n) * NK), bytes(MAXP - n)) for n in range(1, MAXP + 1)}
        # static region: encoded once per key with absolute seats, then gathered per seat
        se = self.static_end
        self.static_perm = {}
        for n in range(2, MAXP + 1):
            perms = []
            for seat in range(n):
                p = np.arange(se, dtype=np.intp)

                def seat_block(start: int, stride: int, width: int, p=p, seat=seat, n=n) -> None:
                    for r in range(MAXP):
                        for j in range(width):
                            p[start + r * stride + j] = (start + ((seat + r) % n) * stride + j) if r < n else se

                for c in range(NC):  # car owner one-hot
                    b = self.car_static + c * CAR_STATIC
                    seat_block(b, 1, 1)
                for i in range(NC):  # bid history per auction
                    seat_block(self.bid_hist + i * MAXP, 1, 1)
                seat_block(self.held, NPOW, NPOW)
                seat_block(self.paid, 1, 1)
                perms.append(p)
            self.static_perm[n] = perms


_RACE_STAGES = ("race", "bet", "end")


def static_key(st) -> tuple:
    """Everything the static region depends on changes one of these (auction results, powers and
    the power choice change only during setup and the auction)."""
    stage = st.stage
    return (st.chance_k, st.auction_idx, "R" if stage in _RACE_STAGES else stage)


def _encode_static(st, seat: int, rel: list[int]) -> bytes:
    g = st.game
    L = g.layout
    n = st.num_players
    o = bytearray(L.static_end)
    o[L.nplayers + n - 2] = 1
    owner = st.owner
    price = st.price
    stage = st.stage
    auction_car = st.auction_order[st.auction_idx] if stage in ("auction", "power") and st.auction_idx < NC else -1
    for c in range(NC):
        b = L.car_static + c * CAR_STATIC
        w = owner[c]
        if w >= 0:
            o[b + rel[w]] = 1
            o[b + 7] = price[c]
        else:
            o[b + 6] = 1
        if st.power_of_car[c] >= 0:
            o[b + 8 + st.power_of_car[c]] = 1
        if c == auction_car:
            o[b + 20] = 1
    o[L.auction_idx + min(st.auction_idx, NC)] = 1
    for i, c in enumerate(st.auction_order):
        o[L.auction_order + i * NC + c] = 1
    bv = g.bid_value
    for i, bids in enumerate(st.bid_history):
        car = st.auction_order[i]
        for s in range(n):
            if bids[s] >= 0:
                o[L.bid_hist + i * MAXP + rel[s]] = bv[bids[s]][car] + 1
    paid = [0] * n
    for c in range(NC):
        if owner[c] >= 0:
            paid[owner[c]] += price[c]
    for s in range(n):
        r = rel[s]
        for pw in st.held[s]:
            o[L.held + r * NPOW + pw] = 1
        o[L.paid + r] = paid[s]
    return bytes(o)


def _encode_bets_public(st) -> bytes:
    """Triggered lines, held rounds, recorded positions and open cars (the same for every seat)."""
    L = st.game.layout
    base = L.static_end
    o = bytearray(L.bets - base)
    trig = st.triggered
    for k in range(3):
        if trig[k]:
            o[L.triggered - base + k] = 1
    for r, kk in enumerate(st.bet_k):
        k = kk[0]
        o[L.round_held - base + k] = 1
        b0 = L.round_pos - base + k * NC
        o[b0 : b0 + NC] = bytes(st.bet_rounds_pos[r])
        b1 = L.round_open - base + k * NC
        o[b1 : b1 + NC] = bytes(st.bet_rounds_open[r])
    return bytes(o)


def _encode_cars(st, L: Layout, floats: bool = False) -> bytes:
    """The cars block, joined from precomputed pieces (``floats``: scaled float32 pieces)."""
    pos = st.pos
    if st.stage == "grid":  # setup: cars not placed yet, no race positions
        codes = [p if p >= 0 else -7 for p in pos]  # (index -7 of car_bytes: no place)
        rank: Any = L.no_rank
    else:  # race positions (DF-R27 order): finished cars by
        codes = pos  # place, then higher row, then entry stamp
        key = list(map(operator.add, map(L.space_rank.__getitem__, pos), st.stamp))
        fo = st.finish_order
        if fo:
            codes = list(pos)
            place = st.place
            for c in fo:
                key[c] = place[c] - 99_000_000
                codes[c] = place[c] - 7  # finished: the piece of its place
        order = sorted(key)  # keys are distinct (entry stamps are)
        rank = map(order.index, key)
    cb = L.car_floats if floats else L.car_bytes
    mb = L.moved_floats if floats else L.moved_bytes
    return b"".join([cb[p][r] + mb[m][n] for p, r, m, n in zip(codes, rank, st.turn_moved, st.turn_nonrect)])


def encode(st, seat: int) -> np.ndarray:
    """The observation of ``seat`` (see module doc)."""
    L = st.game.layout
    cache = st._ocache
    if st.stage == "race":
        # During a race turn only the cars and the decision change from one sub-step to the next,
        # and the cards with each card played: the rest is cached per seat (keyed by what can
        # change it within the race stage), the cards and the cars have caches of their own.
        tr = st.triggered
        rk = (len(st.bet_k), tr[0], tr[1], tr[2])
        rb = cache.get(-11 - seat)
        if rb is None or rb[0] != rk:
            rb = cache[-11 - seat] = (
                rk,
                np.multiply(np.frombuffer(_encode_rest(st, seat, True), dtype=np.uint8), L.scale, dtype=np.float32),
            )
        out = rb[1].copy()
        hc = cache.get(-21 - seat)  # in a race only a play changes the cards block
        if hc is None or hc[0] != len(st.played):
            hc = cache[-21 - seat] = (
                len(st.played),
                np.multiply(np.frombuffer(_cards(st, seat)[1], dtype=np.uint8), L.cards_scale, dtype=np.float32),
            )
        out[L.hand : L.cur_card] = hc[1]
        rel = L.rel[st.num_players][seat]
        if st.turn_player >= 0:
            out[L.turn + rel[st.turn_player]] = 1.0
        if st.cur_card >= 0:
            out[L.cur_card + st.cur_card] = 1.0
            lo = st.line_order
            if len(lo) > 1 and lo[0] > lo[-1]:
                out[L.reversed] = 1.0
            if st.ignored >= 0:
                out[L.ignored + st.ignored] = 1.0
        # the decision and the cars, as _encode_decision writes them
        dt = st.dec_type
        subject = -1
        if dt:
            out[L.dec + L.dec_index[dt]] = 1.0
            if dt == "steer":
                subject = st.dec_args[0]
            elif dt == "yesno":
                args = st.dec_args
                out[L.yesno + args[0]] = 1.0
                if args[0] >= 2:
                    subject = args[2] if args[0] == 2 else args[1]
            elif dt == "color":
                out[L.color + st.dec_args[0]] = 1.0
        ds = st.dec_seat
        if ds >= 0:
            out[L.decider + rel[ds]] = 1.0
            if ds == seat:
                out[L.me_deciding] = 1.0
        ckey = (st.stamp_counter, len(st.finish_order), len(st.played))
        cc = cache.get("carsF")
        if cc is None or cc[0] != ckey:
            cc = cache["carsF"] = (ckey, np.frombuffer(_encode_cars(st, L, True), dtype=np.float32))
        oc = L.cars
        out[oc : oc + NC * CAR_DYN] = cc[1]
        if subject >= 0:  # the subject car; for a STEER its movement left / 8
            out[oc + subject * CAR_DYN + 17] = min(st.dec_args[1], 8) * 0.125 if dt == "steer" else 1.0
        return out
    o = _encode_rest(st, seat)
    _encode_decision(st, seat, o, L)
    out = np.multiply(np.frombuffer(o, dtype=np.uint8), L.scale, dtype=np.float32)
    if st.stage == "end":
        rel = L.rel[st.num_players][seat]
        for s in range(st.num_players):
            out[L.money + rel[s]] = st.money[s] * (1.0 / 30.0)
    return out


def _encode_decision(st, seat: int, o: bytearray, L: Layout) -> None:
    """The decision (type, prompt kind, decider, subject car) and the cars, into ``o``."""
    rel = L.rel[st.num_players][seat]
    dt = st.dec_type
    subject = -1
    if dt:
        o[L.dec + L.dec_index[dt]] = 1
        if dt == "steer":
            subject = st.dec_args[0]
        elif dt == "yesno":
            args = st.dec_args
            o[L.yesno + args[0]] = 1
            if args[0] >= 2:  # prompts about one car (see rules.YESNO_KINDS)
                subject = args[2] if args[0] == 2 else args[1]
        elif dt == "color":
            o[L.color + st.dec_args[0]] = 1
    ds = st.dec_seat
    if ds >= 0:
        o[L.decider + rel[ds]] = 1
        if ds == seat:
            o[L.me_deciding] = 1
    # ---- cars (seat-independent; cached until a car moves or a card is played)
    ckey = (st.stamp_counter, len(st.finish_order), len(st.played), st.chance_k, st.stage == "grid")
    cache = st._ocache
    cc = cache.get("cars")
    if cc is None or cc[0] != ckey:
        cc = cache["cars"] = (ckey, _encode_cars(st, L))
    oc = L.cars
    o[oc : oc + NC * CAR_DYN] = cc[1]
    if subject >= 0:  # the subject car; for a STEER its movement left / 8
        o[oc + subject * CAR_DYN + 17] = min(st.dec_args[1], 8) if dt == "steer" else 8


def _cards(st, seat: int) -> tuple:
    """(key, bytes) of the cards block (own hand, played pile, publicly known cards, hand sizes):
    byte mirrors of the state, cached per seat until a deal, an auction or a play changes them."""
    L = st.game.layout
    cache = st._ocache
    hkey = (st.stage, st.chance_k, st.auction_idx, len(st.played))
    hc = cache.get(-1 - seat)
    if hc is None or hc[0] != hkey:
        n = st.num_players
        order = L.seat_order[n][seat]  # the seats in relative order ("me" first)
        h = b"".join(
            [
                st._hb[seat],
                st._pbits if len(st.played) == st._plen else st.played_bits(),
                *map(st._rb.__getitem__, order),
                L.cards_pad[n][0],
                bytes(map(len, map(st.hands.__getitem__, order))),
                L.cards_pad[n][1],
            ]
        )
        hc = cache[-1 - seat] = (hkey, h)
    return hc


def _encode_rest(st, seat: int, race_base: bool = False) -> bytearray:
    """Everything but ``_encode_decision``'s part (left zero there); with ``race_base`` also without
    the turn, the cards block and the current card (``encode``'s race stage writes those)."""
    g = st.game
    L = g.layout
    n = st.num_players
    rel = L.rel[n][seat]  # seat -> relative index
    # ---- static region, cached per seat
    stage = st.stage
    key = (st.chance_k, st.auction_idx, "R" if stage in _RACE_STAGES else stage)  # = static_key(st)
    cache = st._ocache
    if cache.get("key") != key:
        for s in range(n):
            cache.pop(s, None)
        cache.pop("abs", None)
        cache["key"] = key
    head = cache.get(seat)
    if head is None:
        absolute = cache.get("abs")
        if absolute is None:
            absolute = cache["abs"] = np.frombuffer(_encode_static(st, 0, list(range(n))) + b"\0", np.uint8)
        head = cache[seat] = absolute[L.static_perm[n][seat]].tobytes()
    o = bytearray(head)
    # ---- betting region, cached per seat until a betting line, a bet or the end changes it
    if st.bet_k or st.triggered[0]:
        bkey = (len(st.bet_k), st.triggered[0], st.triggered[1], st.triggered[2])
        bc = cache.get("bets")
        if bc is None or bc[0] != bkey:
            bc = cache["bets"] = (bkey, _encode_bets_public(st))
        o += bc[1]
        o += L.zeros_bets_private
        ended = stage == "end"
        ob = L.bets
        for r, kk in enumerate(st.bet_k):  # DF-R26: own bets; everybody's only at the end
            bb = st.bets[r]
            k = kk[0]
            if ended:
                for s in range(n):
                    if bb[s] >= 0:
                        o[ob + (rel[s] * 3 + k) * NC + bb[s]] = 1
            elif bb[seat] >= 0:
                o[ob + k * NC + bb[seat]] = 1
        if stage == "bet":
            bb = st.bets[st.bet_round]
            o[L.bet_current + st.bet_k[st.bet_round][0]] = 1
            for s in range(n):
                if bb[s] >= 0:
                    o[L.bet_committed + rel[s]] = 1
    else:  # no betting line crossed yet: all zero
        o += L.zeros_bets
    o += L.zeros_dyn
    (
        o_stage,
        o_dec,
        o_yesno,
        o_color,
        o_decider,
        o_me,
        o_turn,
        o_cars,
        o_elig,
        o_comm,
        o_mybid,
        o_hand,
        o_played,
        o_rev,
        o_hs,
        o_card,
        o_rev_flag,
        o_ign,
    ) = L.dyn_offsets
    o[o_stage + _STAGE_INDEX[stage]] = 1
    if st.turn_player >= 0 and not race_base:
        o[o_turn + rel[st.turn_player]] = 1
    if stage == "auction":
        for s in range(n):
            r = rel[s]
            if st.eligible[s]:
                o[o_elig + r] = 1
            if st.pending[s] >= 0:
                o[o_comm + r] = 1
        if st.pending[seat] >= 0:
            o[o_mybid + st.pending[seat]] = 1
    if not race_base:
        o[o_hand:o_card] = _cards(st, seat)[1]
    if st.cur_card >= 0 and (stage == "race" or stage == "bet") and not race_base:
        o[o_card + st.cur_card] = 1
        lo = st.line_order
        if len(lo) > 1 and lo[0] > lo[-1]:
            o[o_rev_flag] = 1
        if st.ignored >= 0:
            o[o_ign + st.ignored] = 1
    if stage == "end":
        o[L.final_place : L.final_place + NC] = bytes(st.final_places())
    return o


def action_features(st, seat: int) -> np.ndarray:
    """The optional action-feature block (option ``action_features``): one float per action, for the
    seat to move only (zeros otherwise and for illegal actions).

    - race ``play``: how much the race evaluation of ``seat`` (own cars' progress minus the others',
      in rows) changes if that card is played now (1-ply lookahead, ``bot.play_values``);
    - race ``steer`` and ``wild``: the same for each lane choice (each car named), the rest of the
      card played out by the heuristic's steering (a 1-ply evaluation of each choice);
    - auction ``bid``: the card's speed for the car being auctioned / 5;
    - ``bet``: the car's current race position, 1 for the leader down to 1/6 for the last car.
    """
    from .bot import _value, play_values
    from .rules import A_BET, NUM_ACTIONS, NUM_CARS

    out = np.zeros(NUM_ACTIONS, dtype=np.float32)
    if st.is_terminal() or st.current_player() != seat:
        return out
    legal = np.flatnonzero(st.legal_mask())
    t = st.dec_type
    if st.stage == "race" and (t == "play" or t == "steer" or t == "wild"):
        base = _value(st, seat)
        out[legal] = np.array(play_values(st, seat, legal), dtype=np.float32) - base
    elif st.stage == "auction":
        car = st.auction_order[st.auction_idx]
        bv = st.game.bid_value
        out[legal] = [bv[int(c)][car] / 5.0 for c in legal]
    elif t == "bet" or st.stage == "bet":
        order = st.race_order()
        for a in legal:
            if A_BET <= a < A_BET + NUM_CARS:
                out[a] = 1.0 - order.index(int(a) - A_BET) / NUM_CARS
    return out
