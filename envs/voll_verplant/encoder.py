"""Observation layout of Voll verplant (flat float32, seat-relative, fixed size for every map).

Header (``HEADER`` floats):

====================  =====  ==============================================================
offset                size   content
====================  =====  ==============================================================
``H_TYPE``            4      revealed card type one-hot (number, express, transfer, free ride)
``H_VALUE``           1      card value / 6
``H_SHUFFLE``         1      the card shows the shuffle symbol
``H_DECK``            15     unseen cards by class / 4: number 1-6, express 1-6, transfer,
                             free ride, and how many unseen cards carry the shuffle symbol
``H_PROGRESS``        1      windows filled / windows on a sheet
``H_PLAYERS``         1      number of players / 6
``H_DECIDING``        1      1 if the observing seat is to choose now
``H_FIRST_GONE``      10     per line: the first bonus is struck (someone completed it)
``H_STATIC``          50     per line: exists, bonus first / 10, bonus other / 10,
                             windows / 4, stations / 16
``H_STATION``         64     per station id: lines through it / 3 (0 = not on the map)
====================  =====  ==============================================================

Then one block of ``BLOCK`` floats per seat, the observer first and the others in turn order
(slots of absent seats are zero): station marked (64), transfer number / 3 (64), windows used
per line / 4 (10), first bonus claimed (10), other bonus claimed (10), points so far (bonuses +
transfers) / 50, empty stations / 64, present. With ``observe_opponent_sheets=False`` (VV-V4)
only the claimed bonuses (announced completions, VV-R30) and the presence flag of the other
seats are shown. Pending commits of other seats are never shown (VV-R10).
"""
from __future__ import annotations

import numpy as np

from .data import MAX_LINES, MAX_PLAYERS, MAX_STATIONS

H_TYPE = 0
H_VALUE = 4
H_SHUFFLE = 5
H_DECK = 6
H_PROGRESS = 21
H_PLAYERS = 22
H_DECIDING = 23
H_FIRST_GONE = 24
H_STATIC = 34
H_STATION = 84
HEADER = H_STATION + MAX_STATIONS  # 148

P_MARK = 0
P_NUM = 64
P_WUSED = 128
P_FIRST = 138
P_OTHER = 148
P_SCORE = 158
P_EMPTY = 159
P_PRESENT = 160
BLOCK = 161

OBS_SIZE = HEADER + MAX_PLAYERS * BLOCK  # 1114

# named blocks, in offset order (the layout table of RULES.md and Game.observation_layout())
HEADER_BLOCKS = (("card_type", H_TYPE), ("card_value", H_VALUE), ("card_shuffle", H_SHUFFLE),
                 ("unseen_cards", H_DECK), ("progress", H_PROGRESS), ("num_players", H_PLAYERS),
                 ("deciding", H_DECIDING), ("first_bonus_struck", H_FIRST_GONE), ("map_lines", H_STATIC),
                 ("map_stations", H_STATION))
SEAT_BLOCKS = (("marked", P_MARK), ("transfer_numbers", P_NUM), ("windows_used", P_WUSED),
               ("first_bonus", P_FIRST), ("other_bonus", P_OTHER), ("points", P_SCORE),
               ("empty_stations", P_EMPTY), ("present", P_PRESENT))
SEAT_SLOTS = ("me",) + tuple(f"next{i}" for i in range(1, MAX_PLAYERS))
"""Seat slots: the observer, then the k-th seat after it in turn order."""


def _spans(blocks, end: int) -> list[tuple[str, int, int]]:
    offs = [o for _, o in blocks] + [end]
    return [(name, o, offs[i + 1] - o) for i, (name, o) in enumerate(blocks)]


def layout() -> list[tuple[str, int, int]]:
    """``[(name, offset, length), ...]``: the header blocks, then every seat slot's blocks
    (``me.marked``, ..., ``next5.present``); the same for every option set and map."""
    out = _spans(HEADER_BLOCKS, HEADER)
    for slot, name in enumerate(SEAT_SLOTS):
        base = HEADER + slot * BLOCK
        out += [(f"{name}.{b}", base + o, ln) for b, o, ln in _spans(SEAT_BLOCKS, BLOCK)]
    return out


HIDDEN_IN_BLOCK = np.r_[0:P_FIRST, P_SCORE, P_EMPTY]
"""Block entries an opponent's sheet hides when observe_opponent_sheets is False."""


def deck_class(card_type: int, value: int) -> int:
    """Index of a card in the H_DECK histogram (shuffle counted separately at 14)."""
    if card_type == 0:
        return value - 1
    if card_type == 1:
        return 6 + value - 1
    return 12 if card_type == 2 else 13


def static_header(game_map) -> np.ndarray:
    """The map part of the header (computed once per Game)."""
    h = np.zeros(HEADER, dtype=np.float32)
    for li in range(game_map.num_lines):
        h[H_STATIC + li] = 1.0
        h[H_STATIC + 10 + li] = game_map.bonus_first[li] / 10.0
        h[H_STATIC + 20 + li] = game_map.bonus_other[li] / 10.0
        h[H_STATIC + 30 + li] = game_map.windows[li] / 4.0
        h[H_STATIC + 40 + li] = len(game_map.line_st[li]) / 16.0
    for s in game_map.stations:
        h[H_STATION + s] = game_map.n_lines_through[s] / 3.0
    return h


def rotations(n: int) -> list[np.ndarray]:
    """Seat order seen by each observer: me first, then the others in turn order."""
    return [np.array([(seat + i) % n for i in range(n)], dtype=np.intp) for seat in range(n)]


def hidden_indices(n: int) -> np.ndarray:
    """Observation indices of the opponents' hidden sheet entries for ``n`` seats (VV-V4 off)."""
    idx = [HEADER + slot * BLOCK + HIDDEN_IN_BLOCK for slot in range(1, n)]
    return np.concatenate(idx) if idx else np.zeros(0, dtype=np.intp)


assert MAX_LINES == 10 and MAX_STATIONS == 64
