"""Observation encoder of Voll verplant (flat float32, seat-relative, fixed size for every map).

The blocks (declared once in :func:`declare`; the same table is in RULES.md, "Observation layout",
and in the shipped bot's card) are the header, then one block group per seat slot, the observer
first and the others in turn order (slots of absent seats are zero):

========================  ==========================================================================
``card_type``             revealed card type one-hot (number, express, transfer, free ride)
``card_value``            card value / 6
``card_shuffle``          the card shows the shuffle symbol
``unseen_cards``          unseen cards by class / 4: number 1-6, express 1-6, transfer, free ride,
                          and how many unseen cards carry the shuffle symbol
``progress``              windows filled / windows on a sheet
``num_players``           number of players / 6
``deciding``              1 if the observing seat is to choose now
``first_bonus_struck``    per line: the first bonus is struck (someone completed it)
``map_lines``             per line, 10 each: exists, bonus first / 10, bonus other / 10,
                          windows / 4, stations / 16
``map_stations``          per station id: lines through it / 3 (0 = not on the map)
``<slot>.marked``         per station id: marked on that seat's sheet
``<slot>.transfer_numbers``  per station id: transfer number / 3
``<slot>.windows_used``   per line: windows used / 4
``<slot>.first_bonus``    per line: first bonus claimed
``<slot>.other_bonus``    per line: other bonus claimed
``<slot>.points``         points so far (bonuses + transfers) / 50
``<slot>.empty_stations`` empty stations / 64
``<slot>.present``        the seat is in the game
========================  ==========================================================================

Slots: ``me``, ``next1`` .. ``next5``. With ``observe_opponent_sheets=False`` (VV-V4) only the
claimed bonuses (announced completions, VV-R30) and the presence flag of the other seats are
shown. Pending commits of other seats are never shown (VV-R10).

The encoder keeps the blocks incrementally: the state's ``encoder_cache`` (a :class:`_Blocks`,
read and written only here; the rules never touch it) holds the header and every seat's block
with the (turn, card) they were built for. A card reveal and a resolved turn are applied from what
the rules record (the revealed card; the last card, actions and completions); anything else (a
clone, a loaded state, a jump) rebuilds the blocks from the sheets.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .data import EXPRESS, FREE, MAX_LINES, MAX_PLAYERS, MAX_STATIONS, MAX_VALUE, NUMBER, TRANSFER, MapData
from .rules import A_FREE, A_TRANSFER, FIRST_BONUS, OTHER_BONUS, VollVerplantGame, VollVerplantState, transfer_value

NUM_CARD_TYPES = 4
DECK_CLASSES = 2 * MAX_VALUE + 3  # number 1-6, express 1-6, transfer, free ride, shuffle count
SHUFFLE_CLASS = DECK_CLASSES - 1
MAP_LINE_FIELDS = 5  # exists, bonus first, bonus other, windows, stations

# scales (value / scale)
CARD_SCALE = 4.0  # cards per class
PLAYERS_SCALE = float(MAX_PLAYERS)
VALUE_SCALE = float(MAX_VALUE)
BONUS_SCALE = 10.0
WINDOWS_SCALE = 4.0
LINE_STATIONS_SCALE = 16.0
LINES_THROUGH_SCALE = 3.0  # lines through a station, transfer numbers
POINTS_SCALE = 50.0
EMPTY_SCALE = float(MAX_STATIONS)

HEADER_BLOCKS = (
    ("card_type", NUM_CARD_TYPES),
    ("card_value", 1),
    ("card_shuffle", 1),
    ("unseen_cards", DECK_CLASSES),
    ("progress", 1),
    ("num_players", 1),
    ("deciding", 1),
    ("first_bonus_struck", MAX_LINES),
    ("map_lines", MAP_LINE_FIELDS * MAX_LINES),
    ("map_stations", MAX_STATIONS),
)
SEAT_BLOCKS = (
    ("marked", MAX_STATIONS),
    ("transfer_numbers", MAX_STATIONS),
    ("windows_used", MAX_LINES),
    ("first_bonus", MAX_LINES),
    ("other_bonus", MAX_LINES),
    ("points", 1),
    ("empty_stations", 1),
    ("present", 1),
)
SEAT_SLOTS = ("me",) + tuple(f"next{i}" for i in range(1, MAX_PLAYERS))
"""Seat slots: the observer, then the k-th seat after it in turn order."""


def declare(L: Layout) -> None:
    """The blocks, in order: the header, then every seat slot's blocks (``me.marked``, ...,
    ``next5.present``); the same for every option set and map."""
    for name, length in HEADER_BLOCKS:
        L.block(name, length)
    for slot in SEAT_SLOTS:
        for name, length in SEAT_BLOCKS:
            L.block(f"{slot}.{name}", length)


LAYOUT = Layout()
declare(LAYOUT)
_at = LAYOUT.offset

H_TYPE = _at("card_type")
H_VALUE = _at("card_value")
H_SHUFFLE = _at("card_shuffle")
H_DECK = _at("unseen_cards")
H_PROGRESS = _at("progress")
H_PLAYERS = _at("num_players")
H_DECIDING = _at("deciding")
H_FIRST_GONE = _at("first_bonus_struck")
H_STATIC = _at("map_lines")
H_STATION = _at("map_stations")
HEADER = _at("me.marked")
BLOCK = _at("next1.marked") - HEADER

P_MARK = _at("me.marked") - HEADER
P_NUM = _at("me.transfer_numbers") - HEADER
P_WUSED = _at("me.windows_used") - HEADER
P_FIRST = _at("me.first_bonus") - HEADER
P_OTHER = _at("me.other_bonus") - HEADER
P_SCORE = _at("me.points") - HEADER
P_EMPTY = _at("me.empty_stations") - HEADER
P_PRESENT = _at("me.present") - HEADER

OBS_SIZE = LAYOUT.size

HIDDEN_IN_BLOCK = np.r_[P_MARK:P_FIRST, P_SCORE, P_EMPTY]
"""Block entries an opponent's sheet hides when observe_opponent_sheets is False."""


def layout() -> list[tuple[str, int, int]]:
    """``[(name, offset, length), ...]`` (``Game.observation_layout()``)."""
    return LAYOUT.table()


def deck_class(card_type: int, value: int) -> int:
    """Index of a card in the ``unseen_cards`` histogram (shuffle counted separately at the end)."""
    if card_type == NUMBER:
        return value - 1
    if card_type == EXPRESS:
        return MAX_VALUE + value - 1
    return 2 * MAX_VALUE if card_type == TRANSFER else 2 * MAX_VALUE + 1


def static_header(game_map: MapData) -> np.ndarray:
    """The map part of the header (computed once per Game)."""
    h = np.zeros(HEADER, dtype=np.float32)
    exists, first, other, windows, stations = (H_STATIC + j * MAX_LINES for j in range(MAP_LINE_FIELDS))
    for li in range(game_map.num_lines):
        h[exists + li] = 1.0
        h[first + li] = game_map.bonus_first[li] / BONUS_SCALE
        h[other + li] = game_map.bonus_other[li] / BONUS_SCALE
        h[windows + li] = game_map.windows[li] / WINDOWS_SCALE
        h[stations + li] = len(game_map.line_st[li]) / LINE_STATIONS_SCALE
    for s in game_map.stations:
        h[H_STATION + s] = game_map.n_lines_through[s] / LINES_THROUGH_SCALE
    return h


class _Blocks:
    """One state's observation parts: ``header`` and the seat blocks, which live twice in a row in
    ``buf`` (rows ``n..2n-1`` repeat rows ``0..n-1``) so every seat's rotated view is one
    contiguous slice of ``flat``; ``hflat`` is the same with the hidden entries zeroed (VV-V4 off).
    ``turn`` and ``card`` say which position they show; ``lm`` the marks (per seat and line, as the
    rules' position bitmasks) the ``marked`` blocks were last updated from. ``mv``/``hmv``/``hdr``
    are float memoryviews of ``flat``/``hflat``/``header`` (item writes several times faster than
    numpy scalar indexing)."""

    __slots__ = ("turn", "card", "header", "buf", "flat", "hbuf", "hflat", "lm", "mv", "hmv", "hdr")
    lm: list[list[int]]
    mv: Any  # memoryview of float32 items (typeshed types item writes as int)
    hmv: Any
    hdr: Any

    def __init__(
        self, n: int, hide: bool, header: np.ndarray, buf: np.ndarray | None = None, hbuf: np.ndarray | None = None
    ):
        self.turn = -1
        self.card = -1
        self.header = header
        self.hdr = header.data
        self.buf = np.zeros((2 * n, BLOCK), dtype=np.float32) if buf is None else buf
        self.flat = self.buf.reshape(-1)
        self.mv = self.flat.data
        if hide:
            self.hbuf = np.zeros((2 * n, BLOCK), dtype=np.float32) if hbuf is None else hbuf
            self.hflat = self.hbuf.reshape(-1)
            self.hmv = self.hflat.data

    def __reduce__(self) -> tuple:
        """Copies and pickles rebuild the memoryviews (which cannot be copied themselves)."""
        hbuf = getattr(self, "hbuf", None)
        return (_restore, (self.turn, self.card, self.header, self.buf, hbuf, self.lm))


def _restore(
    turn: int, card: int, header: np.ndarray, buf: np.ndarray, hbuf: np.ndarray | None, lm: list[list[int]]
) -> _Blocks:
    c = _Blocks(len(buf) // 2, hbuf is not None, header.copy(), buf.copy(), None if hbuf is None else hbuf.copy())
    c.turn, c.card, c.lm = turn, card, [row[:] for row in lm]
    return c


class VollVerplantEncoder(Encoder):
    """Header + one block per seat slot (see the module docstring)."""

    game: VollVerplantGame

    def build(self, L: Layout) -> None:
        declare(L)
        g = self.game
        d = g.deck
        self.hide = not g.observe_others
        self.static_header = static_header(g.map)
        self.kind_class = [deck_class(t, v) for t, v in zip(d.kind_type, d.kind_value)]
        hist = np.zeros(DECK_CLASSES, dtype=np.float32)
        for k, c in enumerate(d.kind_count):
            hist[self.kind_class[k]] += c / CARD_SCALE
            if d.kind_shuffle[k]:
                hist[SHUFFLE_CLASS] += c / CARD_SCALE
        self.full_deck_hist = hist
        self.tails = {n: np.zeros((MAX_PLAYERS - n) * BLOCK, dtype=np.float32) for n in range(1, g.max_players + 1)}

    # ------------------------------------------------------------ encode
    def encode(self, state: VollVerplantState, seat: int) -> np.ndarray:
        c = state.encoder_cache
        if c is None or c.turn != state.turn or c.card != state.card:
            c = self._blocks(state)
        n = state.num_players
        B = BLOCK
        if self.hide and n > 1:  # VV-V4 off: the other seats' blocks from the hidden view
            obs = np.concatenate(
                (c.header, c.flat[seat * B : (seat + 1) * B], c.hflat[(seat + 1) * B : (seat + n) * B], self.tails[n])
            )
        else:
            obs = np.concatenate((c.header, c.flat[seat * B : (seat + n) * B], self.tails[n]))
        if state.cur == seat and state.card >= 0 and not state.over:
            obs[H_DECIDING] = 1.0
        return obs

    def _blocks(self, state: VollVerplantState) -> _Blocks:
        """The state's blocks, brought up to date (incrementally when one reveal or one turn on)."""
        c: Any = state.encoder_cache
        turn, card = state.turn, state.card
        if c is not None and c.turn == turn and c.card == card:
            return c
        if c is not None and c.turn == turn and c.card < 0:
            self._reveal(c, card)
        elif c is not None and c.turn == turn - 1 and c.card >= 0 and c.card == state.last_card:
            self._resolved(c, state)
            if card >= 0:
                self._reveal(c, card)
        else:
            c = state.encoder_cache = self._full(state)
        c.turn, c.card = turn, card
        return c

    # ------------------------------------------------------------ rebuild
    def _full(self, state: VollVerplantState) -> _Blocks:
        """Every block from the sheets and the deck."""
        g = self.game
        m, d = g.map, g.deck
        n = state.num_players
        c = _Blocks(n, self.hide, self.static_header.copy())
        c.lm = [row[:] for row in state.lm]
        blk = c.buf[:n]
        for p in range(n):
            row = blk[p]
            mk, nm, wins, scored = state.marks[p], state.nums[p], state.wins[p], state.scored[p]
            for s in m.stations:
                if mk[s]:
                    row[P_MARK + s] = 1.0
                if nm[s]:
                    row[P_NUM + s] = nm[s] / LINES_THROUGH_SCALE
            for li in range(m.num_lines):
                row[P_WUSED + li] = len(wins[li]) / WINDOWS_SCALE
                if scored[li] == FIRST_BONUS:
                    row[P_FIRST + li] = 1.0
                elif scored[li] == OTHER_BONUS:
                    row[P_OTHER + li] = 1.0
            row[P_SCORE] = (state.bonus[p] + transfer_value(state.tsum[p])) / POINTS_SCALE
            row[P_EMPTY] = state.empty[p] / EMPTY_SCALE
            row[P_PRESENT] = 1.0
        self._sync(c, n)
        h = c.header
        if state.card >= 0:
            self._show_card(h, state.card)
        hist = [0.0] * DECK_CLASSES
        kc, ks = self.kind_class, d.kind_shuffle
        for k, cnt in enumerate(state.deck):
            if cnt:
                hist[kc[k]] += cnt / CARD_SCALE
                if ks[k]:
                    hist[SHUFFLE_CLASS] += cnt / CARD_SCALE
        h[H_DECK : H_DECK + DECK_CLASSES] = hist
        h[H_PROGRESS] = state.wused[0] / m.total_windows
        h[H_PLAYERS] = n / PLAYERS_SCALE
        h[H_FIRST_GONE : H_FIRST_GONE + len(state.first_gone)] = state.first_gone
        return c

    def _sync(self, c: _Blocks, n: int) -> None:
        """Refresh the second copy of the blocks (and the hidden view) after the first changed."""
        buf = c.buf
        buf[n:] = buf[:n]
        if self.hide:
            hb = c.hbuf
            hb[...] = buf
            hb[:, HIDDEN_IN_BLOCK] = 0.0

    # -------------------------------------------------------- incremental
    def _show_card(self, h: Any, card: int) -> None:
        d = self.game.deck
        h[H_TYPE + d.kind_type[card]] = 1.0
        h[H_VALUE] = d.kind_value[card] / VALUE_SCALE
        if d.kind_shuffle[card]:
            h[H_SHUFFLE] = 1.0

    def _reveal(self, c: _Blocks, card: int) -> None:
        """A card revealed: shown, and one card fewer unseen."""
        h = c.hdr
        self._show_card(h, card)
        h[H_DECK + self.kind_class[card]] -= 1 / CARD_SCALE
        if self.game.deck.kind_shuffle[card]:
            h[H_DECK + SHUFFLE_CLASS] -= 1 / CARD_SCALE

    def _resolved(self, c: _Blocks, state: VollVerplantState) -> None:
        """The turn of ``c.card`` resolved: a seat's new marks are all on the line its action named
        (a free ride: its one station; found from the rules' position bitmasks of that line), its
        transfer number on the one station a transfer crosses; then completions, points, empties.
        Every entry is written to both copies of the seat's block (and of the hidden view)."""
        g = self.game
        m, d = g.map, g.deck
        n = state.num_players
        card = state.last_card
        t = d.kind_type[card]
        line_st = m.line_st
        mv = c.mv
        hmv = c.hmv if self.hide else None  # the hidden view shows only the bonuses of a sheet
        B = BLOCK
        second = n * B  # offset of the second copy
        marks, empty, actions, completed = state.marks, state.empty, state.last_actions, state.last_completed
        for p in range(n):
            a = actions[p]
            base = p * B
            if t == FREE:
                s = a - A_FREE
                if marks[p][s]:  # off the map or a full sheet: nothing new (idempotent)
                    i = base + P_MARK + s
                    mv[i] = mv[i + second] = 1.0
            else:
                li = a - A_TRANSFER if t == TRANSFER else a // 7
                x = state.lm[p][li]
                new = x & ~c.lm[p][li]
                c.lm[p][li] = x
                if new:
                    st = line_st[li]
                    at = base + P_MARK
                    while new:
                        b = new & -new
                        s = st[b.bit_length() - 1]
                        mv[at + s] = mv[at + s + second] = 1.0
                        if t == TRANSFER:  # VV-R19: the crossed station holds the number
                            j = base + P_NUM + s
                            mv[j] = mv[j + second] = state.nums[p][s] / LINES_THROUGH_SCALE
                        new ^= b
                i = base + P_WUSED + li
                mv[i] = mv[i + second] = len(state.wins[p][li]) / WINDOWS_SCALE
            if completed[p]:
                scored = state.scored[p]
                for li in completed[p]:
                    i = base + (P_FIRST if scored[li] == FIRST_BONUS else P_OTHER) + li
                    mv[i] = mv[i + second] = 1.0
                    if hmv is not None:
                        hmv[i] = hmv[i + second] = 1.0
            i = base + P_SCORE
            mv[i] = mv[i + second] = (state.bonus[p] + transfer_value(state.tsum[p])) / POINTS_SCALE
            i = base + P_EMPTY
            mv[i] = mv[i + second] = empty[p] / EMPTY_SCALE
        h = c.hdr
        for i in range(H_TYPE, H_DECK):  # no card shown
            h[i] = 0.0
        if d.kind_shuffle[card]:  # VV-R6: the whole deck unseen again
            c.header[H_DECK : H_DECK + DECK_CLASSES] = self.full_deck_hist
        if any(completed):  # VV-R37 (4): first bonuses struck
            c.header[H_FIRST_GONE : H_FIRST_GONE + len(state.first_gone)] = state.first_gone
        h[H_PROGRESS] = state.wused[0] / m.total_windows
