"""Readable position builders for the Downforce rule tests.

Cars: K(Black)=0, B(Blue)=1, G(Green)=2, Y(Yellow)=3, O(Orange)=4, R(Red)=5.
Spaces are (row, lane); lane 0 is the inner lane. Default track rows (DF 2.2):
0-2 grid {0,1}; 3-8 straight; 9-13 curve (lane 0 rumble); 14-15 narrow {1}; 16-21 straight;
22-25 curve {0,1}; 26 narrow; 27-31 straight; 32-36 curve; 37-38 {1,2}; 39 narrow; 40-45 final.
Betting lines after rows 11, 23, 34.
"""

from __future__ import annotations

import numpy as np

from boardzoo.envs.downforce import rules as R
from boardzoo.envs.downforce.rules import DownforceGame

K, B, G, Y, O, RED = range(6)
POWER = {
    name: i
    for i, name in enumerate(
        (
            "Aggressive",
            "Cunning",
            "Determined",
            "Strategic",
            "Tricky",
            "Unpredictable",
            "Ambitious",
            "Experienced",
            "Tough",
            "Bold",
            "Defensive",
            "Reckless",
        )
    )
}


def card(*lines: str) -> int:
    """The id of the card whose lines read e.g. ``card("K6", "Y2")`` ("W3" = wild)."""
    want = tuple(("KBGYOR".index(s[0]) if s[0] != "W" else -1, int(s[1:])) for s in lines)
    deck = DownforceGame().deck
    for i, c in enumerate(deck):
        if c == want:
            return i
    raise KeyError(lines)


def race(
    n: int = 4,
    cars: dict | None = None,
    finished: list[int] | None = None,
    owners=None,
    hands: dict | None = None,
    turn: int = 0,
    powers: dict | None = None,
    steering: str | None = "auto",
    **options,
):
    """A race position built directly.

    Movement tests read the car positions right after a card, so positions are built with automatic
    steering (DF-V5) unless ``steering`` says otherwise (``"manual"``, the game's default, or ``None``
    for the game's default).

    Args:
        cars: {car: (row, lane)} for cars on the track (in stamp order: listed first = entered first).
        finished: cars already finished, in finishing order.
        owners: car -> seat list (default car c -> c % n).
        hands: {seat: [card ids]} (default: every seat holds card 36).
        turn: the seat whose turn it is (it must play a card now).
        powers: {seat: power name} (needs powers=True).
    """
    if powers:
        options.setdefault("powers", True)
        if any(POWER[p] >= 6 for p in powers.values()):
            options.setdefault("extra_powers", True)
    if steering is not None:
        options["steering"] = steering
    game = DownforceGame(**options)
    st = game.new_initial_state(n)
    st.grid_cars = list(range(6))
    st.deal_pool = []
    st.auction_order = list(range(6))
    st.auction_idx = 6
    st.owner = list(owners) if owners is not None else [c % n for c in range(6)]
    st.price = [0] * 6
    st.occ = [-1] * game.num_spaces
    st.pos = [-1] * 6
    st.place = [0] * 6
    st.finish_order = []
    for c in finished or []:
        st.finish_order.append(c)
        st.place[c] = len(st.finish_order)
    stamp = 1
    for c, (row, lane) in (cars or {}).items():
        sid = row * 3 + lane
        assert game.exists[sid], (row, lane)
        st.pos[c] = sid
        st.occ[sid] = c
        st.stamp[c] = stamp
        stamp += 1
    st.stamp_counter = 100
    hands = hands if hands is not None else {s: [36 + s] for s in range(n)}
    st.hands = [set(hands.get(s, [])) for s in range(n)]
    st.revealed = [set() for _ in range(n)]
    used = set().union(*st.hands)
    st.setaside = []
    st.played = [c for c in range(48) if c not in used]
    st.held = [[] for _ in range(n)]
    for s, name in (powers or {}).items():
        st.held[s] = [POWER[name]]
        st.power_of_car[[c for c in range(6) if st.owner[c] == s][0]] = POWER[name]
    st.stage = "race"
    st._rebuild_bits()
    st._start_turn(turn)
    st._mask = None
    return st


def at(st, car: int):
    """(row, lane) of a car, or 'F<place>' once finished."""
    if st.place[car]:
        return f"F{st.place[car]}"
    p = st.pos[car]
    return (p // 3, p % 3)


def legal(st) -> list[int]:
    return np.flatnonzero(st.legal_mask()).tolist()


def auction(n: int = 4, hands: dict | None = None, car: int = K, owners=None, idx: int = 0, **options):
    """An auction position: ``car`` is auctioned now (auction number ``idx``)."""
    game = DownforceGame(**options)
    st = game.new_initial_state(n)
    rng = np.random.default_rng(0)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    order = [car] + [c for c in range(6) if c != car]
    if owners:
        done = list(owners)
        order = done + [car] + [c for c in range(6) if c != car and c not in done]
    st.auction_order = order
    st.owner = [-1] * 6
    for _i, c in enumerate(owners or {}):
        st.owner[c] = owners[c]
    st.auction_idx = idx if not owners else len(owners)
    if hands is not None:
        pool = [c for c in range(42)]
        st.hands = [set(hands.get(s, [])) for s in range(n)]
        used = set().union(*st.hands)
        st.setaside = []
        st.played = []
        st.deal_pool = []
        st.played = [c for c in pool if c not in used]
    st.revealed = [set() for _ in range(n)]
    st._rebuild_bits()
    st._start_auction()
    st._mask = None
    return st


def play_all(st, rng=None, stop=None):
    """Random legal play until the end (or until ``stop(st)`` is true)."""
    rng = rng or np.random.default_rng(0)
    while not st.is_terminal() and not (stop and stop(st)):
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(legal(st))))
    return st


__all__ = ["K", "B", "G", "Y", "O", "RED", "POWER", "R", "card", "race", "at", "legal", "auction", "play_all"]
