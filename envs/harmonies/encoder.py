"""Observation of Harmonies, seat-relative ("me" first, then the others in turn order), holding only
what the seat may know: every board, card and cube, the central board, the display, the bag's
counts (public, spec 7), the seat's own spirit offers (HA-V2; never another seat's, nor a discarded
spirit). With ``action_features=True`` it ends with one 1-ply feature per action (``features``).

The layout is declared once in ``build``; RULES.md shows the table."""

from __future__ import annotations

import struct
from array import array

import numpy as np

from ..core.encoder import Encoder, Layout
from .board import EMPTY, NUM_STACKS
from .evaluate import action_values
from .rules import (
    HEXES,
    NUM_ACTIONS,
    PLACES,
    TABLE_DECK,
    TABLE_DISPLAY,
    TABLE_OFFERS,
    TAKEN,
    HarmoniesGame,
    HarmoniesState,
    Phase,
)

MAX_PLAYERS = 4
SPACES = 5
DISPLAY = 5
CARDS = 42  # animal 1..32, spirit 33..42
HEX_FEATURES = NUM_STACKS + 1  # stack one-hot, cube
PLACE_FEATURES = CARDS + 1  # card one-hot, cubes left / 5
SCORE_PARTS = 7
SCORE_SCALE = 1 / 20
FEATURE_SCALE = 0.1  # action features: points x this
BAG_VALUES = np.arange(24, dtype=np.float32) / 23  # bag block: tokens left per colour / 23 (float32)
BAG_FLOATS = BAG_VALUES.tolist()  # the same values as Python floats (exact: they are float32 values)
NUM_PHASES = len(Phase)
# float32 runs written in one call (the same float32 roundings as an item write)
PACK_BAG = struct.Struct("6f").pack
PACK_POINTS = struct.Struct(f"{SCORE_PARTS}f").pack
MEMO_LIMIT = 20_000  # entries per memo of packed runs below (bounded memory)
BAG_BYTES: dict[tuple[int, ...], bytes] = {}  # bag counts -> the bag block's float32 bytes
POINT_BYTES: dict[tuple[int, ...], bytes] = {}  # ``state.points`` -> a scores block's float32 bytes
TOKEN_BYTES: dict[tuple[int, ...], bytes] = {}  # a space's or the taken tokens -> their one-hot rows' bytes
HEX_ROW = 4 * HEX_FEATURES  # bytes of a hex's row in a board block
# a hex's row (stack one-hot, cube) as float32 bytes: stack st at index st, with a cube at NUM_STACKS + st
HEX_BYTES = tuple(
    struct.pack(f"{HEX_FEATURES}f", *[float(i == st or (i == NUM_STACKS and cube)) for i in range(HEX_FEATURES)])
    for cube in (False, True)
    for st in range(NUM_STACKS)
)


def zeros(k: int) -> array:
    """``k`` float32 zeros (the observation is written as an ``array('f')``: its item writes cost
    far less than numpy's, and the values stored are the same float32 roundings)."""
    return array("f", bytes(4 * k))


def tokens_row(tokens: tuple[int, ...]) -> bytes:
    """The float32 bytes of the one-hot rows (6 per slot, 3 slots) of a central space's tokens or
    of the taken tokens (-1: none); memoised in ``TOKEN_BYTES`` (at most 7 ** 3 of them)."""
    row = zeros(18)
    for i, c in enumerate(tokens):
        if c >= 0:
            row[6 * i + c] = 1
    out = TOKEN_BYTES[tokens] = row.tobytes()
    return out


def bag_bytes(bag: tuple[int, ...]) -> bytes:
    """The bag block's float32 bytes (tokens left per colour / 23), memoised in ``BAG_BYTES``."""
    if len(BAG_BYTES) >= MEMO_LIMIT:
        BAG_BYTES.clear()
    out = BAG_BYTES[bag] = PACK_BAG(*map(BAG_FLOATS.__getitem__, bag))
    return out


def point_bytes(points: tuple[int, ...]) -> bytes:
    """A seat's scores block's float32 bytes (each part x ``SCORE_SCALE``), memoised in ``POINT_BYTES``."""
    if len(POINT_BYTES) >= MEMO_LIMIT:
        POINT_BYTES.clear()
    out = POINT_BYTES[points] = PACK_POINTS(*map(SCORE_SCALE.__mul__, points))  # x * SCORE_SCALE
    return out


ZERO_OFFERS = zeros(20)


def action_features(state: HarmoniesState, seat: int) -> np.ndarray:
    """Per legal action of ``seat`` in its turn, the heuristic's one-ply value of it x 0.1
    (``evaluate.action_values``: a token's points now plus potential, a cube's points, a card's
    worth, a central space's best placements); 0 for every other action and illegal actions."""
    return (action_values(state, seat) * FEATURE_SCALE).astype(np.float32)


class _Seat:
    """What one seat's blocks of a view (``_View.seats``) were last written from: how much of the
    seat's ``state.hex_log`` (the hexes whose stack or cube changed, in order) it has written, its
    card places and points. ``encode`` rewrites the hexes logged since (each hex's whole row) and
    compares the card places and points by value. It also holds the seat it shows (``p``) and
    where its blocks lie in the view (fixed per observing seat and position, worked out once when
    the view is made)."""

    __slots__ = ("p", "board_at", "places_at", "points_at", "cubes_at", "seen", "places", "points")

    def __init__(self, p: int, board_at: int, places_at: int, points_at: int, cubes_at: int) -> None:
        self.p = p  # the seat shown at this position
        self.board_at = board_at  # byte offset of its board block (``HEX_BYTES``)
        self.places_at = places_at  # offset of its card places block
        self.points_at = points_at  # byte offset of its scores (``point_bytes``)
        self.cubes_at = cubes_at  # offset of its "cubes on board / 20" entry
        self.seen = 0  # entries of the seat's hex log written (a view starts from the empty board)
        self.places = [[0, 0] for _ in range(PLACES)]
        self.points: tuple | None = None  # ``state.points`` as written (the rules keep the tuple)


class _View:
    """One seat's cached observation (``HarmoniesEncoder.encode``): the array and what its blocks
    were last written from (None: not yet written)."""

    __slots__ = (
        "o",
        "ob",
        "arr",
        "shared",
        "turn",
        "turn_rows",
        "bag",
        "table",
        "taken",
        "display",
        "seats",
        "movers",
    )

    def __init__(self, template: array, seats: list[_Seat], turn_rows: dict[int, array]):
        # a copy of the encoder's starting array for n players, written through a memoryview (its item
        # writes skip the argument parsing of array('f')'s; the same float32 roundings)
        buf = template[:]
        self.ob = memoryview(buf).cast("B")  # its bytes: float32 runs packed once (memoised) go in as bytes
        self.o: memoryview[float] = self.ob.cast("f")  # (typed as float items)
        self.arr = np.frombuffer(buf, np.float32)  # the same memory, for the copies handed out
        self.shared = -1  # ``state.shared_ver`` when last written (-1: never)
        self.turn = -1  # ``_turn_row``'s key: phase, took, took_card, end_triggered (-1: none)
        self.turn_rows = turn_rows  # the encoder's phase and flags rows for this player count (``_turn_row``)
        self.bag: tuple[int, ...] = ()
        self.table = 0  # entries of ``state.table_log`` (central spaces, display slots changed) written
        self.taken: tuple[int, ...] = ()  # (never the taken tokens)
        self.display: list[int] = [0] * DISPLAY
        self.seats = seats  # per position k (me first)
        # per seat m: (its ``_Seat``,): the only blocks PLACE and PLACE_CUBE by m (to move) can change
        self.movers: list[tuple[_Seat, ...]] = [()] * len(seats)
        for w in seats:
            self.movers[w.p] = (w,)


class HarmoniesEncoder(Encoder):
    game: HarmoniesGame

    def build(self, L: Layout) -> None:
        self.phase = L.block("phase", len(Phase))
        self.flags = L.block("flags", 6)  # took, took_card, solo, spirits, side B, end triggered
        self.bag = L.block("bag", 6)  # tokens left per colour / 23
        self.central = L.block("central", SPACES * 3 * 6)  # space, slot, colour one-hot
        self.taken = L.block("taken", TAKEN * 6)  # taken slot, colour one-hot (unplaced tokens)
        self.taken_at = 4 * self.taken  # (in bytes)
        self.display = L.block("display", DISPLAY * 32)  # slot, animal card one-hot
        self.offers = L.block("my_spirit_offers", 2 * 10)  # own offers (HA-V2)
        self.boards = L.block("boards", MAX_PLAYERS * HEXES * HEX_FEATURES)  # me first
        self.places = L.block("card_places", MAX_PLAYERS * PLACES * PLACE_FEATURES)  # me first
        self.scores = L.block("scores", MAX_PLAYERS * SCORE_PARTS, high=np.inf)  # breakdown / 20, me first
        self.seats = L.block("seats", MAX_PLAYERS * 3, high=2.0)  # present, first player, cubes on board / 20
        self.deck = L.block("deck", 1)  # animal cards left in the deck / 32
        self.features: int | None = None
        if self.game.options["action_features"]:
            self.features = L.block("action_features", NUM_ACTIONS, low=-np.inf, high=np.inf)
            self.action_features = "action_features"
        self._hex_index = np.arange(HEXES) * HEX_FEATURES  # offset of each hex in a board block
        self._templates: dict[int, array] = {}  # per player count: a view's array before any write
        assert self.flags == self.phase + NUM_PHASES  # one run: the phase one-hot, then the flags
        self._turn_rows: dict[int, dict[int, array]] = {}  # per player count: ``_turn_row``'s rows

    def _template(self, n: int) -> array:
        """The observation before anything of a state is written: the game's fixed flags, every
        seat present and its board empty."""
        t = self._templates.get(n)
        if t is None:
            t = self._templates[n] = zeros(self.size)
            g = self.game
            for i, flag in enumerate((n == 1, g.spirits, g.side == "B")):  # fixed for the game
                t[self.flags + 2 + i] = flag
            for k in range(n):
                t[self.seats + 3 * k] = 1
                for h in range(HEXES):
                    t[self.boards + (k * HEXES + h) * HEX_FEATURES + EMPTY] = 1
        return t

    def _turn_row(self, n: int, key: int) -> array:
        """The phase one-hot and the flags block (one run of floats) for ``key`` = phase x 8 + took
        x 4 + took_card x 2 + end_triggered with ``n`` players, cached (``_View.turn_rows``)."""
        row = zeros(NUM_PHASES + 6)
        phase, took, took_card, end_triggered = key >> 3, key >> 2 & 1, key >> 1 & 1, key & 1
        row[phase] = 1
        g = self.game
        for i, flag in enumerate((took, took_card, n == 1, g.spirits, g.side == "B", end_triggered)):
            row[NUM_PHASES + i] = flag
        self._turn_rows[n][key] = row
        return row

    def _seats(self, n: int, seat: int) -> list[_Seat]:
        """A new view's ``_Seat`` per position k (me first: seat + k mod n) and its offsets."""
        return [
            _Seat(
                (seat + k) % n,
                4 * (self.boards + k * HEXES * HEX_FEATURES),
                self.places + k * PLACES * PLACE_FEATURES,
                4 * (self.scores + SCORE_PARTS * k),
                self.seats + 3 * k + 2,
            )
            for k in range(n)
        ]

    def encode(self, state: HarmoniesState, seat: int) -> np.ndarray:
        """Writes only what changed since the last call into the seat's cached observation and
        returns a copy. The cache (``state.encoder_cache``, read and written only here; a clone or a
        loaded state starts without one) keeps per seat a ``_View``: the array and copies of what
        each block was written from, compared by value; the blocks that only the moves other than
        PLACE and PLACE_CUBE change are compared only after such a move (``state.shared_ver``)."""
        views = state.encoder_cache
        if views is None:
            views = state.encoder_cache = [None] * state.num_players
        v = views[seat]
        if v is None:
            n = state.num_players
            v = views[seat] = _View(self._template(n), self._seats(n, seat), self._turn_rows.setdefault(n, {}))
        # the blocks below change only when ``state.shared_ver`` does (PLACE and PLACE_CUBE leave them)
        shared = v.shared != state.shared_ver
        if shared:
            v.shared = state.shared_ver
            self._shared_blocks(state, seat, v)
        taken = tuple(state.taken)
        if v.taken != taken:
            v.taken = taken
            at = self.taken_at
            v.ob[at : at + 72] = TOKEN_BYTES.get(taken) or tokens_row(taken)  # TAKEN x 6 float32
        logs, all_places = state.hex_log, state.places
        # without a shared_ver bump since, only PLACE and PLACE_CUBE came: moves of the seat to move
        # (to_move changes only with a bump), so only its blocks can differ
        for w in v.seats if shared else v.movers[state.to_move]:
            log = logs[w.p]
            logged = w.seen != len(log)
            # nothing new for this seat: its card places and points change only with a logged hex
            # (PLACE, PLACE_CUBE) or a shared_ver bump (cards taken); completed cards come with a cube
            if not (logged or shared):
                continue
            p = w.p
            cubed = False
            if logged:  # the hexes changed since: their row (stack one-hot and cube) rewritten whole
                base = w.board_at
                board, cubes, ob = state.boards[p], state.cubes[p], v.ob
                for h in log[w.seen :]:
                    at = base + HEX_ROW * h
                    if cubes[h]:
                        ob[at : at + HEX_ROW] = HEX_BYTES[NUM_STACKS + board[h]]
                        cubed = True
                    else:
                        ob[at : at + HEX_ROW] = HEX_BYTES[board[h]]
                w.seen = len(log)
                if cubed:  # the count changes only with a cube (logged)
                    v.o[w.cubes_at] = state.cubes_on_board(p) / 20
            # the card places change only with a cube (logged) or a shared_ver bump (a card taken)
            if (shared or cubed) and w.places != all_places[p]:
                places = all_places[p]
                o = v.o
                base = w.places_at
                for c, (cid, left) in enumerate(places):
                    was = w.places[c]
                    if was[0] != cid or was[1] != left:
                        at = base + c * PLACE_FEATURES
                        if was[0]:
                            o[at + was[0] - 1] = 0
                        if cid:
                            o[at + cid - 1] = 1
                        o[at + CARDS] = left / 5
                        was[0], was[1] = cid, left
            if logged or w.points is None:  # the points change only with a logged hex (PLACE, PLACE_CUBE)
                points = state.kept_points[p] or state.points(p)  # (kept by the moves: no call as a rule)
                if w.points is not points:  # a new tuple (the rules keep it until it changes)
                    at = w.points_at
                    v.ob[at : at + 4 * SCORE_PARTS] = POINT_BYTES.get(points) or point_bytes(points)
                    w.points = points
        if self.features is not None:
            v.o[self.features : self.features + NUM_ACTIONS] = array("f", action_features(state, seat).tobytes())
        return v.arr.copy()

    def _shared_blocks(self, state: HarmoniesState, seat: int, v: _View) -> None:
        """``encode``'s blocks that PLACE and PLACE_CUBE leave as they are: phase and turn flags, bag,
        central spaces, display, the seat's spirit offers, first player, deck (the phase and flags
        compared by value with what they were written from; the others: those logged in
        ``state.table_log`` since, and the bag, by value, when something was: a token drawn logs
        its central space)."""
        o = v.o
        key = state.phase_id * 8 + state.took * 4 + state.took_card * 2 + state.end_triggered  # (bools: 0, 1)
        if v.turn != key:  # the phase one-hot and the flags: one cached row
            v.turn = key
            row = v.turn_rows.get(key)
            if row is None:
                row = self._turn_row(state.num_players, key)
            o[self.phase : self.flags + 6] = row
        table = state.table_log
        if v.table != len(table):  # what changed on the table since, each once
            bag = tuple(state.bag)  # the bag changes only with a token drawn (its space logged)
            if v.bag != bag:
                v.bag = bag
                at = 4 * self.bag
                v.ob[at : at + 24] = BAG_BYTES.get(bag) or bag_bytes(bag)
            for e in set(table[v.table :]):
                if e < TABLE_DISPLAY:  # central space e: its 3 x 6 entries
                    at = 4 * (self.central + 18 * e)
                    toks = tuple(state.central[e])
                    v.ob[at : at + 72] = TOKEN_BYTES.get(toks) or tokens_row(toks)
                elif e < TABLE_DECK:  # display slot i
                    i = e - TABLE_DISPLAY
                    was, c = v.display[i], state.display[i]
                    if was != c:
                        if was:
                            o[self.display + 32 * i + was - 1] = 0
                        if c:
                            o[self.display + 32 * i + c - 1] = 1
                        v.display[i] = c
                elif e == TABLE_DECK:
                    o[self.deck] = len(state.deck) / 32
                elif e == TABLE_OFFERS:  # the seat's own offers (HA-V2)
                    o[self.offers : self.offers + 2 * 10] = ZERO_OFFERS
                    for i, c in enumerate(state.offers[seat]):
                        o[self.offers + 10 * i + c - 33] = 1
                else:  # TABLE_FIRST
                    n = state.num_players
                    for k in range(n):
                        o[self.seats + 3 * k + 1] = 1.0 if (seat + k) % n == state.first else 0.0
            v.table = len(table)
