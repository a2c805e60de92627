"""Observation encoder of Downforce: a flat float32 vector, seat-relative ("me" first, then the
others in turn order), holding only what the observing seat may know (spec 7 "Information").

Secret commits: other seats' pending bids appear only as "has committed" flags; bets of other
seats appear only once the game has ended (DF-R26); set-aside cards never appear; other hands
appear only as their size and the cards publicly known to be in them (revealed bids, speed-8 cards).

Blocks, offsets and true ranges are declared once in ``DownforceEncoder.build`` (core ``Layout``;
the table is in RULES.md, "Observation layout", and the shipped bot's card lists the same blocks).

Speed: outside the race stage every entry is written as a small integer into a bytearray (cheap
per-element writes), converted once and multiplied by a per-entry scale. The slowly changing part
(auction results, powers, publicly known cards) comes first in the layout and is cached per seat,
keyed by what can change it (``static_key``). In the race stage the observation is joined from
float32 pieces: the head and the cards cached per seat, the decision and the current card from the
encoder's tables, the cars from precomputed pieces per space and race position. The caches live in
``state.encoder_cache``, read and written only here; ``tests/downforce/test_encoder_reference.py``
compares the result with a plain reference encoder.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .rules import (
    A_BET,
    AUCTION,
    BET,
    COLOR_KINDS,
    D_COLOR,
    D_PLAY,
    D_STEER,
    D_WILD,
    D_YESNO,
    DEC_TYPES,
    END,
    GRID,
    LANES,
    NUM_ACTIONS,
    NUM_CARS,
    POWER,
    RACE,
    YESNO_KINDS,
    DownforceGame,
    DownforceState,
    Stage,
    play_values,
    race_value,
)

MAXP = 6
NC = NUM_CARS  # cars
NK = 48  # cards
NPOW = 12
STAGES = ("setup", "auction", "power", "race", "bet", "end")  # the ``stage`` block
STAGE_INDEX = (0, 0, 0, 0, 1, 2, 3, 4, 5)  # by Stage: its entry of the ``stage`` block
assert len(STAGE_INDEX) == len(Stage)
CAR_STATIC = 21  # owner (6 relative seats + unowned), price, paired power (12), auctioned now
CAR_DYN = 20  # row, lane (3), on track, place (6), race position (6), subject, moved, curve
# scales: entries are written as small integers, then multiplied by these
PRICE_SCALE = 1.0 / 8.0
MOVED_SCALE = 1.0 / 4.0  # spaces moved this turn
SUBJECT_SCALE = 1.0 / 8.0  # the subject car (8); STEER: movement left
BID_SCALE = 1.0 / 9.0
HAND_SIZE_SCALE = 1.0 / 21.0
MONEY_SCALE = 1.0 / 30.0  # paid, money
PLACE_SCALE = 1.0 / 6.0  # round_pos, final_place
# a car's entries within its CAR_DYN (the ``cars`` block) and CAR_STATIC (``car_static``)
CAR_ROW, CAR_SUBJECT, CAR_MOVED = 0, 17, 18
CAR_UNOWNED, CAR_PRICE, CAR_POWER, CAR_AUCTIONED = 6, 7, 8, 20


class DownforceEncoder(Encoder):
    """The observation's blocks (``build``) and ``encode``; the precomputed pieces of the race
    stage. The attribute named after each block holds its offset."""

    game: DownforceGame

    def build(self, layout: Layout) -> None:
        game = self.game
        block = layout.block
        # the true ranges (Layout.block's low/high; default 0..1) of the entries that leave 0..1:
        # a seat's money (``paid``, ``money``), hand sizes, spaces moved this turn
        money_low, money_high = game.money_range(2)  # (two players: the most cars per seat)
        most_cards = max(game.hand_size(n) + game.most_cars(n) for n in range(game.min_players, MAXP + 1))
        car_high = np.ones(CAR_DYN, np.float32)
        car_high[CAR_MOVED] = (game.last_row + 1) * MOVED_SCALE  # (a finish counts as a step)
        # ---- static region (cached)
        self.nplayers = block("nplayers", MAXP - 1)
        self.car_static = block("car_static", NC * CAR_STATIC)
        self.auction_idx = block("auction_idx", NC + 1)
        self.auction_order = block("auction_order", NC * NC)
        self.bid_hist = block("bid_hist", NC * MAXP)
        self.held = block("held", MAXP * NPOW)
        self.paid = block("paid", MAXP, high=max(1.0, -money_low * MONEY_SCALE))
        self.static_end = layout.size
        # ---- betting region (cached per seat while no bet changes)
        self.triggered = block("triggered", 3)
        self.round_held = block("round_held", 3)
        self.round_pos = block("round_pos", 3 * NC)
        self.round_open = block("round_open", 3 * NC)
        self.bets = block("bets", MAXP * 3 * NC)
        self.bet_committed = block("bet_committed", MAXP)
        self.bet_current = block("bet_current", 3)
        self.semi_end = layout.size
        # ---- dynamic region
        self.stage = block("stage", len(STAGES))
        self.dec = block("dec", len(DEC_TYPES))
        self.yesno = block("yesno", len(YESNO_KINDS))
        self.color = block("color", len(COLOR_KINDS))
        self.decider = block("decider", MAXP)
        self.me_deciding = block("me_deciding", 1)
        self.turn = block("turn", MAXP)
        self.cars = block("cars", NC * CAR_DYN, high=np.tile(car_high, NC))
        self.eligible = block("eligible", MAXP)
        self.committed = block("committed", MAXP)
        self.my_bid = block("my_bid", NK)
        self.hand = block("hand", NK)
        self.played = block("played", NK)
        self.revealed = block("revealed", MAXP * NK)
        self.hand_size = block("hand_size", MAXP, high=max(1.0, most_cards * HAND_SIZE_SCALE))
        self.cur_card = block("cur_card", NK)
        self.reversed = block("reversed", 1)
        self.ignored = block("ignored", NC)
        self.money = block("money", MAXP, low=money_low * MONEY_SCALE, high=money_high * MONEY_SCALE)
        self.final_place = block("final_place", NC)
        self.base_size = off = layout.size  # the observation without the action features
        if game.options["action_features"]:  # one feature per action (``action_features``)
            self.action_features = "action_features"
            block("action_features", NUM_ACTIONS, low=-np.inf, high=np.inf)  # race: rows gained or lost
        self.last_row = game.last_row
        # a car's entries in three pieces, joined by _encode_cars: 0-10 (row, lane one-hot, on track,
        # place one-hot) per space id / per finishing place, 11-16 race position one-hot, 17-19
        # (subject, spaces moved this turn, curve entered)
        self.space_bytes = [
            bytes([sid // LANES] + [int(sid % LANES == k) for k in range(LANES)] + [1] + [0] * 6)
            for sid in range(game.num_spaces)
        ]
        self.place_bytes = [bytes(11)] + [
            bytes([game.last_row, 0, 0, 0, 0] + [int(p == q) for q in range(1, 7)]) for p in range(1, 7)
        ]
        self.rank_bytes = [bytes(int(i == j) for j in range(6)) for i in range(6)] + [bytes(6)]
        # entries 0-16 by (space id, or finishing place q at index q - 7) and race position (6 = none)
        self.car_bytes = [[a + r for r in self.rank_bytes] for a in self.space_bytes + self.place_bytes]
        self.no_rank = [6] * NC
        self.moved_bytes = [[bytes((0, m, nr)) for nr in (0, 1)] for m in range(256)]
        self.space_rank = [-(sid // LANES) * 1_000_000 for sid in range(game.num_spaces)]  # + entry stamp
        # the race stage's car codes: a space id, or (finished) num_spaces + place, indexing both
        # ``car_floats`` and ``race_rank`` (a race-order key less the entry stamp, DF-R27: finished
        # cars first by place, then higher rows; entry stamps stay below 1000)
        ns = game.num_spaces
        self.finish_code = [ns + q for q in range(7)]
        self.race_rank = self.space_rank + [q * 1000 - 99_000_000 for q in range(7)]
        # per-entry scale: entries are written as small integers, then scaled
        sc = np.ones(off, dtype=np.float32)
        for c in range(NC):
            sc[self.car_static + c * CAR_STATIC + CAR_PRICE] = PRICE_SCALE
            b = self.cars + c * CAR_DYN
            sc[b + CAR_ROW] = 1.0 / max(1, game.last_row)  # row (finished cars: 1.0)
            sc[b + CAR_MOVED] = MOVED_SCALE
            sc[b + CAR_SUBJECT] = SUBJECT_SCALE
        sc[self.bid_hist : self.bid_hist + NC * MAXP] = BID_SCALE
        sc[self.hand_size : self.hand_size + MAXP] = HAND_SIZE_SCALE
        sc[self.paid : self.paid + MAXP] = MONEY_SCALE
        sc[self.round_pos : self.round_pos + 3 * NC] = PLACE_SCALE
        sc[self.final_place : self.final_place + NC] = PLACE_SCALE
        self.scale = sc
        # the race stage assembles floats (encode): the car pieces as float32 bytes, already scaled
        csc = sc[self.cars : self.cars + CAR_DYN]

        def floats(b: bytes, s: np.ndarray) -> bytes:
            return np.multiply(np.frombuffer(b, dtype=np.uint8), s, dtype=np.float32).tobytes()

        self.car_floats = [[floats(x, csc[:17]) for x in row] for row in self.car_bytes]
        # entries 17-19 as float32 by (subject value 0..8 / 8, spaces moved this turn, curve entered)
        most = game.last_row + 2  # (a car moves at most to the finish in one turn)
        grid = np.array([[[(k, m, nr) for nr in (0, 1)] for m in range(most)] for k in range(9)], dtype=np.uint8)
        moved = np.multiply(grid, csc[CAR_SUBJECT:], dtype=np.float32)
        self.moved_floats = [[[moved[k, m, nr].tobytes() for nr in (0, 1)] for m in range(most)] for k in range(9)]
        self.cards_scale = sc[self.hand : self.cur_card].copy()
        # float32 pieces of the race stage's observation (encode): the region stage .. turn by
        # decision, cur_card .. ignored by card, zeros between
        self.dec_pieces: dict[tuple[int, ...], bytes] = {}
        self.card_pieces: dict[tuple[int, bool, int], bytes] = {}
        self.no_card_piece = bytes(4 * (self.money - self.cur_card))
        self.zeros_auction_f = bytes(4 * (self.hand - self.eligible))
        self.zeros_end_f = bytes(4 * (off - self.money))
        self.zeros_dyn = bytes(off - self.semi_end)
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

    def decision_piece(self, dt: int, kind: int, decider: int, me: bool, turn: int) -> bytes:
        """The blocks ``stage`` .. ``turn`` in the race stage as float32 bytes: the decision type
        and prompt kind, the deciding and the turn seat (relative, -1 none), ``me`` deciding."""
        o = np.zeros(self.cars - self.stage, dtype=np.float32)
        base = self.stage
        o[self.stage - base + STAGE_INDEX[RACE]] = 1.0
        if dt:
            o[self.dec - base + dt - 1] = 1.0
            if dt == D_YESNO:
                o[self.yesno - base + kind] = 1.0
            elif dt == D_COLOR:
                o[self.color - base + kind] = 1.0
        if decider >= 0:
            o[self.decider - base + decider] = 1.0
            if me:
                o[self.me_deciding - base] = 1.0
        if turn >= 0:
            o[self.turn - base + turn] = 1.0
        return o.tobytes()

    def card_piece(self, card: int, reversed_: bool, ignored: int) -> bytes:
        """The blocks ``cur_card`` .. ``ignored`` as float32 bytes: the card being resolved, its
        lines in reverse order (Tricky), the colour Strategic ignores (-1 none)."""
        o = np.zeros(self.money - self.cur_card, dtype=np.float32)
        o[card] = 1.0
        if reversed_:
            o[self.reversed - self.cur_card] = 1.0
        if ignored >= 0:
            o[self.ignored - self.cur_card + ignored] = 1.0
        return o.tobytes()

    def encode(self, st: DownforceState, seat: int) -> np.ndarray:
        """What ``seat`` sees of ``st`` (see the module doc)."""
        L = self
        cache = st.encoder_cache
        if cache is None:
            cache = st.encoder_cache = {}
        if st.stage == RACE:
            # During a race turn only the cars and the decision change from one sub-step to the next,
            # and the cards with each card played: the observation is joined from float32 pieces,
            # the head (static and betting regions) cached per seat (keyed by what can change it within
            # the race stage), the cards and the cars with caches of their own, the decision and the
            # current card from the encoder's tables of those pieces.
            tr = st.triggered
            rk = (len(st.bet_k), tr[0], tr[1], tr[2])
            rb = cache.get(-11 - seat)
            if rb is None or rb[0] != rk:
                head = np.multiply(
                    np.frombuffer(_encode_rest(st, seat, L, True), dtype=np.uint8), L.scale, dtype=np.float32
                )
                rb = cache[-11 - seat] = (rk, head[: L.semi_end].tobytes())
            hc = cache.get(-21 - seat)  # in a race only a play changes the cards block
            if hc is None or hc[0] != len(st.played):
                cards = np.multiply(
                    np.frombuffer(_cards(st, seat, L)[1], dtype=np.uint8), L.cards_scale, dtype=np.float32
                )
                hc = cache[-21 - seat] = (len(st.played), cards.tobytes())
            rel = L.rel[st.num_players][seat]
            dt = st.dec_type
            args = st.dec_args
            kind = args[0] if dt == D_YESNO or dt == D_COLOR else -1
            ds = st.dec_seat
            tp = st.turn_player
            dkey = (dt, kind, rel[ds] if ds >= 0 else -1, ds == seat, rel[tp] if tp >= 0 else -1)
            dp = L.dec_pieces.get(dkey)
            if dp is None:
                dp = L.dec_pieces[dkey] = L.decision_piece(*dkey)
            cur = st.cur_card
            if cur >= 0:
                lo = st.line_order
                ckey2 = (cur, len(lo) > 1 and lo[0] > lo[-1], st.ignored)
                cp = L.card_pieces.get(ckey2)
                if cp is None:
                    cp = L.card_pieces[ckey2] = L.card_piece(*ckey2)
            else:
                cp = L.no_card_piece
            ckey = (st.stamp_counter, len(st.finish_order), len(st.played))
            cc = cache.get("carsF")
            if cc is None or cc[0] != ckey:
                cc = cache["carsF"] = (ckey, _race_car_pieces(st, L))
            parts = [rb[1], dp, *cc[1], L.zeros_auction_f, hc[1], cp, L.zeros_end_f]
            subject = -1
            if dt == D_STEER:
                subject = args[0]
            elif kind >= 2 and dt == D_YESNO:  # prompts about one car (see rules.YESNO_KINDS)
                subject = args[2] if kind == 2 else args[1]
            if subject >= 0:  # the subject car; for a STEER its movement left / 8 (8 / 8 otherwise)
                sv = min(args[1], 8) if dt == D_STEER else 8
                parts[3 + 2 * subject] = L.moved_floats[sv][st.turn_moved[subject]][st.turn_nonrect[subject]]
            buf = bytearray().join(parts)
            obs = np.frombuffer(buf, np.float32)  # (writable: it views a new bytearray)
        else:
            obs = _encode_other(st, seat, L)
        if self.action_feature_offset is None:
            return obs
        return np.concatenate([obs, action_features(st, seat)])


def _cache(st: DownforceState) -> dict[Any, Any]:
    """The encoder's cache of ``st`` (``State.encoder_cache``: read and written only here)."""
    cache = st.encoder_cache
    if cache is None:
        cache = st.encoder_cache = {}
    return cache


def static_key(st: DownforceState) -> tuple[int, int, int]:
    """Everything the static region depends on changes one of these (auction results, powers and
    the power choice change only during setup and the auction)."""
    stage = st.stage
    return (st.chance_k, st.auction_idx, RACE if stage >= RACE else stage)


def _encode_static(st: DownforceState, seat: int, rel: list[int], L: DownforceEncoder) -> bytes:
    g = st.game
    n = st.num_players
    o = bytearray(L.static_end)
    o[L.nplayers + n - 2] = 1
    owner = st.owner
    price = st.price
    stage = st.stage
    auction_car = st.auction_order[st.auction_idx] if stage in (AUCTION, POWER) and st.auction_idx < NC else -1
    for c in range(NC):
        b = L.car_static + c * CAR_STATIC
        w = owner[c]
        if w >= 0:
            o[b + rel[w]] = 1
            o[b + CAR_PRICE] = price[c]
        else:
            o[b + CAR_UNOWNED] = 1
        if st.power_of_car[c] >= 0:
            o[b + CAR_POWER + st.power_of_car[c]] = 1
        if c == auction_car:
            o[b + CAR_AUCTIONED] = 1
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


def _encode_bets_public(st: DownforceState, L: DownforceEncoder) -> bytes:
    """Triggered lines, held rounds, recorded positions and open cars (the same for every seat)."""
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


def _encode_cars(st: DownforceState, L: DownforceEncoder) -> bytes:
    """The cars block as small integers (before scaling)."""
    return b"".join(_car_pieces(st, L, False))


def _race_car_pieces(st: DownforceState, L: DownforceEncoder) -> list[bytes]:
    """``_car_pieces(st, L, True)`` in the race stage, written out for its six cars (one car moves
    at every step, so this runs at almost every encode)."""
    codes = st.pos
    if st.finish_order:
        place = st.place
        fc = L.finish_code
        codes = [p if p >= 0 else fc[place[c]] for c, p in enumerate(codes)]
    rr = L.race_rank
    s = st.stamp
    c0, c1, c2, c3, c4, c5 = codes
    k0, k1, k2, k3, k4, k5 = rr[c0] + s[0], rr[c1] + s[1], rr[c2] + s[2], rr[c3] + s[3], rr[c4] + s[4], rr[c5] + s[5]
    ix = sorted((k0, k1, k2, k3, k4, k5)).index  # race position = index in the sorted keys
    cb = L.car_floats
    mb = L.moved_floats[0]
    m = st.turn_moved
    n = st.turn_nonrect
    return [
        cb[c0][ix(k0)],
        mb[m[0]][n[0]],
        cb[c1][ix(k1)],
        mb[m[1]][n[1]],
        cb[c2][ix(k2)],
        mb[m[2]][n[2]],
        cb[c3][ix(k3)],
        mb[m[3]][n[3]],
        cb[c4][ix(k4)],
        mb[m[4]][n[4]],
        cb[c5][ix(k5)],
        mb[m[5]][n[5]],
    ]


def _car_pieces(st: DownforceState, L: DownforceEncoder, floats: bool) -> list[bytes]:
    """The cars block as precomputed pieces, two per car (entries 0-16 and 17-19; the subject
    entry 0): small integers, or (``floats``) scaled float32."""
    pos = st.pos
    if st.stage == GRID:  # setup: cars not placed yet, no race positions
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
    mb = L.moved_floats[0] if floats else L.moved_bytes
    return [x for p, r, m, n in zip(codes, rank, st.turn_moved, st.turn_nonrect) for x in (cb[p][r], mb[m][n])]


def _encode_other(st: DownforceState, seat: int, L: DownforceEncoder) -> np.ndarray:
    """The observation outside the race stage (without the action features)."""
    o = _encode_rest(st, seat, L)
    _encode_decision(st, seat, o, L)
    out = np.multiply(np.frombuffer(o, dtype=np.uint8), L.scale, dtype=np.float32)
    if st.stage == END:
        rel = L.rel[st.num_players][seat]
        for s in range(st.num_players):
            out[L.money + rel[s]] = st.money[s] * MONEY_SCALE
    return out


def _encode_decision(st: DownforceState, seat: int, o: bytearray, L: DownforceEncoder) -> None:
    """The decision (type, prompt kind, decider, subject car) and the cars, into ``o``."""
    rel = L.rel[st.num_players][seat]
    dt = st.dec_type
    subject = -1
    if dt:
        o[L.dec + dt - 1] = 1
        if dt == D_STEER:
            subject = st.dec_args[0]
        elif dt == D_YESNO:
            args = st.dec_args
            o[L.yesno + args[0]] = 1
            if args[0] >= 2:  # prompts about one car (see rules.YESNO_KINDS)
                subject = args[2] if args[0] == 2 else args[1]
        elif dt == D_COLOR:
            o[L.color + st.dec_args[0]] = 1
    ds = st.dec_seat
    if ds >= 0:
        o[L.decider + rel[ds]] = 1
        if ds == seat:
            o[L.me_deciding] = 1
    # ---- cars (seat-independent; cached until a car moves or a card is played)
    ckey = (st.stamp_counter, len(st.finish_order), len(st.played), st.chance_k, st.stage == GRID)
    cache = _cache(st)
    cc = cache.get("cars")
    if cc is None or cc[0] != ckey:
        cc = cache["cars"] = (ckey, _encode_cars(st, L))
    oc = L.cars
    o[oc : oc + NC * CAR_DYN] = cc[1]
    if subject >= 0:  # the subject car; for a STEER its movement left / 8
        o[oc + subject * CAR_DYN + CAR_SUBJECT] = min(st.dec_args[1], 8) if dt == D_STEER else 8


def _played_bits(st: DownforceState, cache: dict[Any, Any]) -> bytearray:
    """The played pile as 48 bytes (0/1), brought up to date incrementally (the pile only grows
    within one state; a shorter pile rebuilds it)."""
    pb = cache.get("pb")
    p = st.played
    if pb is None or len(p) < pb[0]:
        pb = cache["pb"] = [0, bytearray(NK)]
    if len(p) != pb[0]:
        bits = pb[1]
        for c in p[pb[0] :]:
            bits[c] = 1
        pb[0] = len(p)
    return pb[1]


def _cards(st: DownforceState, seat: int, L: DownforceEncoder) -> tuple[Any, bytes]:
    """(key, bytes) of the cards block (own hand, played pile, publicly known cards, hand sizes):
    byte mirrors of the state, cached per seat until a deal, an auction or a play changes them."""
    cache = _cache(st)
    hkey = (st.stage, st.chance_k, st.auction_idx, len(st.played))
    hc = cache.get(-1 - seat)
    if hc is None or hc[0] != hkey:
        n = st.num_players
        order = L.seat_order[n][seat]  # the seats in relative order ("me" first)
        h = b"".join(
            [
                st.hand_bits[seat],
                _played_bits(st, cache),
                *map(st.known_bits.__getitem__, order),
                L.cards_pad[n][0],
                bytes(map(len, map(st.hands.__getitem__, order))),
                L.cards_pad[n][1],
            ]
        )
        hc = cache[-1 - seat] = (hkey, h)
    return hc


def _encode_rest(st: DownforceState, seat: int, L: DownforceEncoder, race_base: bool = False) -> bytearray:
    """Everything but ``_encode_decision``'s part (left zero there); with ``race_base`` also without
    the turn, the cards block and the current card (``encode``'s race stage writes those)."""
    n = st.num_players
    rel = L.rel[n][seat]  # seat -> relative index
    # ---- static region, cached per seat
    stage = st.stage
    key = static_key(st)
    cache = _cache(st)
    if cache.get("key") != key:
        for s in range(n):
            cache.pop(s, None)
        cache.pop("abs", None)
        cache["key"] = key
    head = cache.get(seat)
    if head is None:
        absolute = cache.get("abs")
        if absolute is None:
            absolute = cache["abs"] = np.frombuffer(_encode_static(st, 0, list(range(n)), L) + b"\0", np.uint8)
        head = cache[seat] = absolute[L.static_perm[n][seat]].tobytes()
    o = bytearray(head)
    # ---- betting region, cached per seat until a betting line, a bet or the end changes it
    if st.bet_k or st.triggered[0]:
        bkey = (len(st.bet_k), st.triggered[0], st.triggered[1], st.triggered[2])
        bc = cache.get("bets")
        if bc is None or bc[0] != bkey:
            bc = cache["bets"] = (bkey, _encode_bets_public(st, L))
        o += bc[1]
        o += L.zeros_bets_private
        ended = stage == END
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
        if stage == BET:
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
    o[o_stage + STAGE_INDEX[stage]] = 1
    if st.turn_player >= 0 and not race_base:
        o[o_turn + rel[st.turn_player]] = 1
    if stage == AUCTION:
        for s in range(n):
            r = rel[s]
            if st.eligible[s]:
                o[o_elig + r] = 1
            if st.pending[s] >= 0:
                o[o_comm + r] = 1
        if st.pending[seat] >= 0:
            o[o_mybid + st.pending[seat]] = 1
    if not race_base:
        o[o_hand:o_card] = _cards(st, seat, L)[1]
    if st.cur_card >= 0 and (stage == RACE or stage == BET) and not race_base:
        o[o_card + st.cur_card] = 1
        lo = st.line_order
        if len(lo) > 1 and lo[0] > lo[-1]:
            o[o_rev_flag] = 1
        if st.ignored >= 0:
            o[o_ign + st.ignored] = 1
    if stage == END:
        o[L.final_place : L.final_place + NC] = bytes(st.final_places())
    return o


def action_features(st: DownforceState, seat: int) -> np.ndarray:
    """The optional action-feature block (option ``action_features``): one float per action, for the
    seat to move only (zeros otherwise and for illegal actions).

    - race ``play``: how much the race evaluation of ``seat`` (own cars' progress minus the others',
      in rows, ``rules.race_value``) changes if that card is played now (1-ply lookahead,
      ``rules.play_values``);
    - race ``steer`` and ``wild``: the same for each lane choice (each car named), the rest of the
      card played out by ``rules.greedy_substep`` (the heuristic's steering; a 1-ply evaluation
      of each choice);
    - auction ``bid``: the card's speed for the car being auctioned / 5;
    - ``bet``: the car's current race position, 1 for the leader down to 1/6 for the last car.
    """
    out = np.zeros(NUM_ACTIONS, dtype=np.float32)
    if st.is_terminal() or st.current_player() != seat:
        return out
    legal = np.flatnonzero(st.legal_mask())
    t = st.dec_type
    if st.stage == RACE and (t == D_PLAY or t == D_STEER or t == D_WILD):
        base = race_value(st, seat)
        out[legal] = np.array(play_values(st, seat, legal.tolist()), dtype=np.float32) - base
    elif st.stage == AUCTION:
        car = st.auction_order[st.auction_idx]
        bv = st.game.bid_value
        out[legal] = [bv[int(c)][car] / 5.0 for c in legal]
    elif st.stage == BET:
        order = st.race_order()
        for a in legal:
            if A_BET <= a < A_BET + NUM_CARS:
                out[a] = 1.0 - order.index(int(a) - A_BET) / NUM_CARS
    return out
