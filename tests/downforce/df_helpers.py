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
    """A race position built by ``DownforceGame.position`` (unchecked, so it need not be reachable).

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
    owner = list(owners) if owners is not None else [c % n for c in range(6)]
    place = [0] * 6
    finish_order: list[int] = []
    for c in finished or []:
        finish_order.append(c)
        place[c] = len(finish_order)
    pos = [-1] * 6
    occ = [-1] * game.num_spaces
    stamp = [0] * 6
    for k, (c, (row, lane)) in enumerate((cars or {}).items()):
        sid = row * 3 + lane
        assert game.exists[sid], (row, lane)
        pos[c] = sid
        occ[sid] = c
        stamp[c] = k + 1
    hands = hands if hands is not None else {s: [36 + s] for s in range(n)}
    hand_lists = [sorted(hands.get(s, [])) for s in range(n)]
    used = {c for h in hand_lists for c in h}
    held: list[list[int]] = [[] for _ in range(n)]
    power_of_car = [-1] * 6
    for s, name in (powers or {}).items():
        held[s] = [POWER[name]]
        power_of_car[[c for c in range(6) if owner[c] == s][0]] = POWER[name]
    return game.position(
        n,
        grid_cars=list(range(6)),
        deal_pool=[],
        auction_order=list(range(6)),
        auction_idx=6,
        owner=owner,
        price=[0] * 6,
        occ=occ,
        pos=pos,
        place=place,
        finish_order=finish_order,
        stamp=stamp,
        stamp_counter=100,
        hands=hand_lists,
        revealed=[[] for _ in range(n)],
        setaside=[],
        played=[c for c in range(48) if c not in used],
        held=held,
        power_of_car=power_of_car,
        stage="race",
        turn_player=turn,
        dec_type="play",
        dec_seat=turn,
    )


def fields(st) -> dict:
    """A state's own fields in their saved form (``to_dict`` without the envelope)."""
    return {k: v for k, v in st.to_dict().items() if k not in ("env_id", "version", "options", "num_players")}


def rebuild(st, **changes):
    """The position ``st`` with some fields changed (saved form), built by ``DownforceGame.position``."""
    return st.game.position(st.num_players, **{**fields(st), **changes})


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
    f = fields(st)
    order = [car] + [c for c in range(6) if c != car]
    if owners:
        done = list(owners)
        order = done + [car] + [c for c in range(6) if c != car and c not in done]
    f["auction_order"] = order
    f["owner"] = [-1] * 6
    for c in owners or {}:
        f["owner"][c] = owners[c]
    f["auction_idx"] = idx if not owners else len(owners)
    if hands is not None:
        f["hands"] = [sorted(hands.get(s, [])) for s in range(n)]
        used = {c for h in f["hands"] for c in h}
        f["setaside"] = []
        f["deal_pool"] = []
        f["played"] = [c for c in range(42) if c not in used]
    f["revealed"] = [[] for _ in range(n)]
    # DF-R6: when as many cars are left as players without one, only those bid
    carless = [0 if s in f["owner"] else 1 for s in range(n)]
    eligible = carless if 6 - f["auction_idx"] == sum(carless) else [1] * n
    f.update(stage="auction", eligible=eligible, pending=[-1] * n, dec_type="bid", dec_seat=eligible.index(1))
    return game.position(n, **f)


def play_all(st, rng=None, stop=None):
    """Random legal play until the end (or until ``stop(st)`` is true)."""
    rng = rng or np.random.default_rng(0)
    while not st.is_terminal() and not (stop and stop(st)):
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(legal(st))))
    return st


__all__ = [
    "K",
    "B",
    "G",
    "Y",
    "O",
    "RED",
    "POWER",
    "R",
    "card",
    "race",
    "fields",
    "rebuild",
    "at",
    "legal",
    "auction",
    "play_all",
]
