"""The optimized encoder (byte buffers, caches, byte mirrors) against a plain reference encoder
written directly from the layout, over random games of every option set."""

from __future__ import annotations

import numpy as np
import pytest
from df_helpers import legal

from boardzoo.envs.downforce.encoder import CAR_DYN, CAR_STATIC, STAGES
from boardzoo.envs.downforce.rules import DEC_NAMES, DEC_TYPES, STAGE_NAMES, DownforceGame

SETUP = ("grid", "deal", "order", "powers")


def reference(st, seat: int) -> np.ndarray:
    g = st.game
    L = g.encoder  # the offsets of the blocks
    n = st.num_players
    stage = STAGE_NAMES[st.stage]
    dec = DEC_NAMES[st.dec_type]
    o = np.zeros(L.size, np.float32)
    rel = [(s - seat) % n for s in range(n)]
    o[L.nplayers + n - 2] = 1
    # static region
    auction_car = st.auction_order[st.auction_idx] if stage in ("auction", "power") and st.auction_idx < 6 else -1
    for c in range(6):
        b = L.car_static + c * CAR_STATIC
        if st.owner[c] >= 0:
            o[b + rel[st.owner[c]]] = 1
            o[b + 7] = st.price[c] / 8
        else:
            o[b + 6] = 1
        if st.power_of_car[c] >= 0:
            o[b + 8 + st.power_of_car[c]] = 1
        o[b + 20] = c == auction_car
    o[L.auction_idx + min(st.auction_idx, 6)] = 1
    for i, c in enumerate(st.auction_order):
        o[L.auction_order + i * 6 + c] = 1
    for i, bids in enumerate(st.bid_history):
        for s in range(n):
            if bids[s] >= 0:
                o[L.bid_hist + i * 6 + rel[s]] = (g.bid_value[bids[s]][st.auction_order[i]] + 1) / 9
    for s in range(n):
        for pw in st.held[s]:
            o[L.held + rel[s] * 12 + pw] = 1
        o[L.paid + rel[s]] = sum(st.price[c] for c in range(6) if st.owner[c] == s) / 30
    # betting
    ended = stage == "end"
    for k in range(3):
        o[L.triggered + k] = st.triggered[k]
    for r, (k,) in enumerate(st.bet_k):
        o[L.round_held + k] = 1
        for c in range(6):
            o[L.round_pos + k * 6 + c] = st.bet_rounds_pos[r][c] / 6
            o[L.round_open + k * 6 + c] = st.bet_rounds_open[r][c]
        for s in range(n):
            car = st.bets[r][s]
            if car >= 0 and (s == seat or ended):
                o[L.bets + (rel[s] * 3 + k) * 6 + car] = 1
    if stage == "bet":
        o[L.bet_current + st.bet_k[st.bet_round][0]] = 1
        for s in range(n):
            if st.bets[st.bet_round][s] >= 0:
                o[L.bet_committed + rel[s]] = 1
    # dynamic region
    o[L.stage + STAGES.index("setup" if stage in SETUP else stage)] = 1
    subject = -1
    if dec:
        o[L.dec + DEC_TYPES.index(dec)] = 1
        a = st.dec_args
        if dec == "yesno":
            o[L.yesno + a[0]] = 1
            if a[0] >= 2:
                subject = a[2] if a[0] == 2 else a[1]
        elif dec == "color":
            o[L.color + a[0]] = 1
        elif dec == "steer":
            subject = a[0]
    if st.dec_seat >= 0:
        o[L.decider + rel[st.dec_seat]] = 1
        o[L.me_deciding] = st.dec_seat == seat
    if st.turn_player >= 0:
        o[L.turn + rel[st.turn_player]] = 1
    for c in range(6):
        b = L.cars + c * CAR_DYN
        if st.pos[c] >= 0:
            o[b] = (st.pos[c] // 3) / g.last_row
            o[b + 1 + st.pos[c] % 3] = 1
            o[b + 4] = 1
        elif st.place[c]:
            o[b] = 1
            o[b + 4 + st.place[c]] = 1
        if c == subject:  # a STEER's subject shows its movement left / 8
            o[b + 17] = min(st.dec_args[1], 8) / 8 if dec == "steer" else 1
        o[b + 18] = min(st.turn_moved[c], 255) / 4
        o[b + 19] = st.turn_nonrect[c]
    if stage != "grid":
        for i, c in enumerate(st.race_order()):
            o[L.cars + c * CAR_DYN + 11 + i] = 1
    if stage == "auction":
        for s in range(n):
            o[L.eligible + rel[s]] = st.eligible[s]
            o[L.committed + rel[s]] = st.pending[s] >= 0
        if st.pending[seat] >= 0:
            o[L.my_bid + st.pending[seat]] = 1
    for c in st.hands[seat]:
        o[L.hand + c] = 1
    for c in st.played:
        o[L.played + c] = 1
    for s in range(n):
        for c in st.revealed[s]:
            o[L.revealed + rel[s] * 48 + c] = 1
        o[L.hand_size + rel[s]] = len(st.hands[s]) / 21
    if st.cur_card >= 0 and stage in ("race", "bet"):
        o[L.cur_card + st.cur_card] = 1
        o[L.reversed] = len(st.line_order) > 1 and st.line_order[0] > st.line_order[-1]
        if st.ignored >= 0:
            o[L.ignored + st.ignored] = 1
    if ended:
        fp = st.final_places()
        for c in range(6):
            o[L.final_place + c] = fp[c] / 6
        for s in range(n):
            o[L.money + rel[s]] = st.money[s] / 30
    return o


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"steering": "auto"},
        {"powers": True, "extra_powers": True},
        {"powers": True, "odds_winner_only": True, "track": "sprint", "steering": "auto"},
    ],
)
def test_encoder_matches_the_reference(opts):
    game = DownforceGame(**opts)
    rng = np.random.default_rng(7)
    for n in (2, 4, 6):
        st = game.new_initial_state(n)
        while True:
            for p in range(n):  # chance nodes too (the caches' keys)
                np.testing.assert_allclose(
                    st.observation(p), reference(st, p), rtol=1e-6, atol=1e-7, err_msg=f"seat {p} in {st.phase()}"
                )
            if st.is_terminal():
                break
            if st.is_chance_node():
                st.apply_action(st.sample_chance(rng))
            else:
                st.apply_action(int(rng.choice(legal(st))))
