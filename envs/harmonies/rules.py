"""Harmonies (``harmonies_v0``; Libellud 2024): draft three terrain tokens, stack them on a personal
hex board into trees, mountains, fields, buildings and water, and place animal cubes where a card's
habitat pattern is met. Rules HA-R1..R35 and variants HA-V1..V3 of ``../shared/rules/harmonies.md``
(users' rules in RULES.md).

Actions: Discrete(192) for every player count and option set (spec section 7):

=========  ================================================================
0-4        TAKE central space s (HA-R1)
5-79       PLACE taken token t (0-2) on hex h (0-24): 5 + 25t + h (HA-R4)
80-84      TAKE_CARD from display slot i (HA-R13)
85-184     PLACE_CUBE from card place c (0-3) on hex h: 85 + 25c + h (HA-R15)
185        END_TURN (HA-R3)
186-187    CHOOSE_SPIRIT: keep offered spirit 0 or 1 (HA-V2)
188-190    solo: discard display slot i; 191 solo: decline (HA-V3)
=========  ================================================================

A turn is a run of sub-steps by the same seat until END_TURN. Chance (explicit nodes, exact
``chance_outcomes``): every token drawn from the bag (outcome = colour 0-5 with probability
count/total; the bag's counts are public), every animal card dealt (outcome = card id, uniform
over the deck), every spirit card dealt (HA-V2; uniform over the spirit deck), and the first
player (uniform). Hidden: the spirits offered to a seat until it chooses, and the one it
discarded (for good).

Version history:
    v0: first release.
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): per-seat stack
        bitmasks kept with the boards (``sbits``), the legal mask built as an int, bitmask scoring in
        ``local_points``, board points and the PLACE_CUBE mask bits cached per seat until its stacks
        change, cube targets memoised, ``place_gains`` for many hexes at once; the encoder writes
        only the blocks that changed into a cached array per seat.
    0.1.0 dev: ``action_features=True`` now gives the heuristic's one-ply value of every legal
        action (``evaluate.action_values``: points plus potential for tokens, cubes, cards and the
        central spaces), not only the points of token and cube placements; the default
        observation is unchanged.
    0.1.0 dev: faster rules (behaviour and observations unchanged; golden identical): the moves keep,
        per seat, the pattern-code bitmasks (``cbits``), every card place's cube targets and the
        mask's PLACE_CUBE bits (``targets``, ``cube_mask``; a token re-reads only the cards whose
        pattern reads a code it changed) and the board points (a token counts again only the parts
        it can change); ``_recount`` builds them on creation and load. The encoder writes the
        changed hexes, card places and points straight into each seat's cached observation (no
        per-seat blocks copied in). A token re-reads a card's cube targets only at the cube hexes
        with a placement over its hex (``game.reach``); legal masks are memoised as read-only arrays
        (``game.mask_array``: about half of them recur). Phases and chance kinds are read as module
        names (``P_TURN``, ``K_TOKEN``) in the hot paths (an enum member looked up on its class costs a
        metaclass ``__getattr__`` call). ``points`` kept per seat until it places a token or a cube;
        the encoder writes into an ``array('f')`` (cheaper item writes, same float32 values) and
        only the point parts that changed. The moves log the hexes they change per seat (``hex_log``):
        the encoder rewrites the hexes logged since it last wrote (no board diff), starts each view
        from a per-player-count template, writes only the bag colours, central spaces and point
        parts that changed, and hands out copies of a numpy view of its array. The card part of the
        points is kept apart (a token changes it only with a completed spirit); river lengths are
        memoised per group of blue hexes; token draws skip the chance_kind call; a full display
        gives its TAKE_CARD bits at once. The encoder writes a central space's or the taken tokens'
        one-hot rows as one cached row (``tokens_row``) and the bag in one slice. Masks lie on the
        bytes they are decoded from (read-only without a copy); the encoder no longer copies each
        seat's completed cards (a completion always comes with a logged cube).
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): every move but PLACE
        and PLACE_CUBE bumps ``shared_ver``; the encoder compares the phase, turn flags, bag, central
        spaces, display, offers, first player and deck, and the other seats' card places, only after
        a bump, and writes its array through a memoryview (cheaper item writes, same float32 values);
        the points and the bag are written with one ``struct`` call each. ``HarmoniesState`` keeps
        its fields in ``__slots__`` (slot reads instead of lookups in a large instance dict). The
        moves keep every colour's placeable hexes per seat in one int (``placeable``: only the hex a
        token or cube goes on changes); ``can_place`` and the legal mask read it. ``phase_id`` holds a
        plain int (equal to its ``Phase`` member: the interpreter's int fast paths apply). ``mask_of``
        uses a prebuilt format spec; the legal mask reads ``mask_array``'s memo itself (no call on a hit).
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): each encoder view
        holds per position the seat it shows and its blocks' offsets (worked out once) and writes a
        seat's cube count only after a cube; the moves log the central spaces and display slots they
        change (``table_log``, like ``hex_log``), so the encoder rewrites those instead of comparing
        every space and slot. The legal mask's PLACE part unrolled over the 3 taken slots; a token
        draw skips ``chance_kind``; ``_place`` calls ``targets_among`` only with candidate hexes and
        rebuilds the PLACE_CUBE bits only when a card's targets changed, and skips ``_settle`` while
        an empty space is left; ``_apply`` tests the TURN phase first; the encoder writes the phase
        one-hot and the flags as one cached row. ``current_player()`` reads ``player``, kept by the
        moves that change the phase; the encoder asks a seat's points only after a logged hex. The
        cards held per seat are kept (``held``: ``unfinished``, the mask's free-place test). The
        encoder compares a seat's card places only after a cube or a shared_ver bump. ``table_log``
        also logs the deck's size, the spirit offers and the first player (the encoder compares
        them no more). The legal mask gives a full central board's TAKE bits at once; a token's
        building check reads the 3 building stacks unrolled.
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): the encoder writes
        the points, the bag and the token rows as float32 bytes memoised per value (one slice
        write each, no per-call packing); ``new_initial_state`` clones the game's first state for
        the player count (made once). Without a ``shared_ver`` bump the encoder visits only the
        blocks of the seat to move (only its PLACE and PLACE_CUBE came since) and reads the bag only
        after a logged table change; a drawn token is placed by ``_apply`` itself; ``_place`` updates
        only the pattern codes a hex stops or starts matching (``codes_off``, ``codes_on``), re-reads
        cube targets only for the codes that changed and only while the seat holds cards, counts
        trees by the hex's own change (``tree_value``) and keeps ``points`` (``kept_points``, read by
        the encoder) when the cards' part is kept; masks are made with a dtype instance. The encoder
        rewrites a logged hex's whole row from one of 30 prebuilt rows (``HEX_BYTES``; no board
        copy per view); ``place_gains`` makes its per-hex dict only when it runs. The encoder keeps
        the taken tokens it wrote as the tuple it looks their rows up by. ``is_legal_chance`` tests a
        token draw without the ``chance_kind`` call. A yellow or blue token updates the fields and
        the water from the hex's neighbours where they decide it (``fields_after``: no yellow
        neighbour, one lone one, or neighbours in one unbroken arc, ``arcs``; ``water_after``: side
        A, a blue hex without blue neighbours beside another river), else counts them in full.
        ``mask_of`` reads the digits from ``bin`` (no fixed-width format); the legal mask tests the
        TURN phase first. A token that changes no part of the board points keeps the points tuple
        (``_points_after`` hands back the one before): the kept points and the encoder's copy hold on.
        The encoder keys its phase and flags rows by one int.
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from typing import Any, ClassVar

import numpy as np

from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State
from ..core.schema import Bool, Dict, Int, List, Spec, Tuple
from . import data
from .board import (
    COLOURS,
    EMPTY,
    HEIGHT,
    IS_BUILDING,
    IS_MOUNTAIN,
    IS_TREE,
    NUM_STACKS,
    PLACE_ON,
    STACKS,
    TOP,
    Geometry,
)
from .board import W as BLUE
from .board import Y as YELLOW

HEXES = 25  # hex slots of the action layout (side B has 25 spaces, side A 23)
TAKEN = 3  # taken token slots (HA-R33)
PLACES = 4  # card places (HA-R32)
A_TAKE = 0
A_PLACE = 5
A_CARD = 80
A_CUBE = 85
A_END = 185
A_SPIRIT = 186
A_DISCARD = 188
A_DECLINE = 191
NUM_ACTIONS = 192
MASK_TOP = 1 << NUM_ACTIONS  # bin(bits | MASK_TOP): "0b1", then every action's digit (mask_of)
MASK_DIGITS = bytes.maketrans(b"01", b"\x00\x01")  # the legal mask is built as an int (bit a = action a)
MASK_DTYPE = np.dtype(np.int8)  # (a dtype instance: np.frombuffer converts a type on every call)
# ``HarmoniesState.table_log`` entries: central space s is s, display slot i is TABLE_DISPLAY + i,
# then the deck's size, the spirit offers and the first player
TABLE_DISPLAY = 8
TABLE_DECK, TABLE_OFFERS, TABLE_FIRST = 16, 17, 18
MEMO_LIMIT = 20_000  # entries per memo of landscape points (bounded memory)
ALLOWED = tuple(tuple(st for st in range(NUM_STACKS) if PLACE_ON[st][c] >= 0) for c in range(len(COLOURS)))
# ``HarmoniesState.placeable``: every colour's placeable hexes in one int, colour c at bits HEXES*c ..
HEX_BITS = (1 << HEXES) - 1
EVERY_COLOUR = sum(1 << (HEXES * c) for c in range(len(COLOURS)))  # hex 0 of every colour (<< h: hex h)
PLACEABLE_ON = tuple(sum(1 << (HEXES * c) for c in range(len(COLOURS)) if st in ALLOWED[c]) for st in range(NUM_STACKS))
# stacks by scoring kind (HA-R34) and by top colour, for the bitmask scoring of ``local_points``
TREE_STACKS = tuple(st for st in range(NUM_STACKS) if IS_TREE[st])
MOUNTAIN_STACKS = tuple(st for st in range(NUM_STACKS) if IS_MOUNTAIN[st])
BUILDING_STACKS = tuple(st for st in range(NUM_STACKS) if IS_BUILDING[st])
TOP_STACKS = tuple(tuple(st for st in range(NUM_STACKS) if TOP[st] == c) for c in range(len(COLOURS)))


def mask_of(bits: int) -> np.ndarray:
    """The int8 legal mask whose action ``a`` is set where bit ``a`` of ``bits`` is (via the binary
    digits, lowest bit first: the fastest conversion measured); read-only (it lies on a bytes
    object: ``mask_array`` shares it between states)."""
    digits = bin(bits | MASK_TOP)[:2:-1].encode().translate(MASK_DIGITS)  # reversed, without "0b1"
    return np.frombuffer(digits, MASK_DTYPE)


def top_bits(sb: list[int], colour: int) -> int:
    """Bitmask of the hexes whose top token has ``colour``, from per-stack bitmasks ``sb``."""
    bits = 0
    for st in TOP_STACKS[colour]:
        bits |= sb[st]
    return bits


class Phase(IntEnum):
    """Where the game stands (saved as its int)."""

    SETUP = 0  # chance: central tokens, display, spirits (HA-V2), first player (section 3)
    TURN = 1  # the seat to move takes / places / takes a card / places cubes / ends (HA-R1)
    CHOOSE_SPIRIT = 2  # start of a seat's first turn: keep one of two spirits (HA-V2)
    SOLO_DISCARD = 3  # solo, after END_TURN without a card: discard a display card or decline (HA-V3)
    REFILL = 4  # chance: refill the central board and the display (HA-R20, HA-R21)
    END = 5


# the members' values as module names, plain ints (the hot paths): ``Phase.TURN`` calls the enum
# metaclass's __getattr__, and an int subclass misses the interpreter's int fast paths (compare,
# tuple index, add); ``phase_id`` holds these ints (equal to the members)
P_SETUP, P_TURN, P_CHOOSE_SPIRIT, P_SOLO_DISCARD, P_REFILL, P_END = map(int, Phase)

POINT_PARTS = ("trees", "mountains", "fields", "buildings", "water", "cards", "spirit")  # breakdown's keys
# current_player() by phase: CHANCE, TERMINAL, or None for the seat to move
PHASE_PLAYER: tuple[int | None, ...] = (CHANCE, None, None, None, CHANCE, TERMINAL)


class Kind(IntEnum):
    """What the pending chance node draws."""

    TOKEN = 0
    CARD = 1
    SPIRIT = 2
    FIRST = 3


K_TOKEN, K_CARD, K_SPIRIT, K_FIRST = Kind  # the members as module names (see P_SETUP)


def place_action(t: int, h: int) -> int:
    """PLACE taken token ``t`` on hex ``h``."""
    return A_PLACE + HEXES * t + h


def cube_action(c: int, h: int) -> int:
    """PLACE_CUBE from card place ``c`` on hex ``h``."""
    return A_CUBE + HEXES * c + h


Placements = dict[int, tuple[int, tuple[int, ...], dict[int, list[tuple[tuple[int, int], ...]]]]]


@cache
def side_tables(side: str) -> tuple[Geometry, list[str], Placements]:
    """The board side's geometry and, per card (HA-R15, HA-R16), the cube hex's code index, every
    code index the pattern needs, and per cube hex the placements (each a tuple of (code index, hex
    bitmask) requirements); computed once per side."""
    geo = Geometry(data.components()["board_sides"][side]["columns"])
    codes = data.pattern_codes()
    code_list = sorted(codes)
    index = {c: i for i, c in enumerate(code_list)}
    placements: Placements = {}
    for cid, card in data.cards().items():
        by_hex = geo.placements(card.pattern)
        placements[cid] = (
            index[card.pattern.codes[card.pattern.cube]],
            tuple(sorted({index[c] for c in card.pattern.codes})),
            {h: [tuple((index[code], bits) for code, bits in req) for req in reqs] for h, reqs in by_hex.items()},
        )
    return geo, code_list, placements


@cache
def side_reach(side: str) -> dict[int, list[int]]:
    """Per card and hex h, the cube hexes having a placement that covers h (where a token on h can
    change whether a cube may go); computed once per side."""
    out: dict[int, list[int]] = {}
    for cid, (_, _, by_hex) in side_tables(side)[2].items():
        reach = [0] * HEXES
        for cube_hex, reqs in by_hex.items():
            for req in reqs:
                for _, bits in req:
                    while bits:
                        low = bits & -bits
                        bits ^= low
                        reach[low.bit_length() - 1] |= 1 << cube_hex
        out[cid] = reach
    return out


class HarmoniesGame(Game):
    """Harmonies for 1-4 players (one player = the solo mode, HA-V3)."""

    env_id: ClassVar[str] = "harmonies_v0"
    name: ClassVar[str] = "Harmonies"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 2
    options_spec: ClassVar[dict[str, Option]] = {
        "board_side": Option(
            "A", "HA-V1: personal board side A (23 spaces, rivers) or B (25 spaces, islands)", choices=("A", "B")
        ),
        "spirits": Option(False, "HA-V2: deal 2 Nature's Spirit cards to each player; keep one on the first turn"),
        "solo": Option(False, "HA-V3: solo mode (requires num_players=1; one player always plays solo)"),
        "action_features": Option(
            False, "observation ends with one 1-ply feature per action (points the action gains now); slower"
        ),
    }
    score_scale: ClassVar[float] = 0.01  # spec 7: the one-player reward scale is 1/100
    conformance_options: ClassVar[list[dict]] = [{}, {"board_side": "B", "spirits": True, "action_features": True}]

    num_actions = NUM_ACTIONS

    def setup(self) -> None:
        comp = data.components()
        self.comp = comp
        self.side: str = self.options["board_side"]
        self.spirits: bool = bool(self.options["spirits"])
        self.geo, self.code_list, self.placements = side_tables(self.side)
        self.size = self.geo.size
        self.bag0: tuple[int, ...] = tuple(comp["bag"][c] for c in COLOURS)
        self.cards = data.cards()
        self.codes = data.pattern_codes()
        self.code_stacks = [sorted(self.codes[c]) for c in self.code_list]
        self.stack_codes = [tuple(i for i, st in enumerate(self.code_stacks) if s in st) for s in range(NUM_STACKS)]
        self.tree_pts = comp["tree_points"]
        self.mountain_pts = comp["mountain_points"]
        self.river_pts = comp["river_points"]
        self.end_empty = comp["end_empty_spaces"]
        self.river_extra = comp["river_extra_per_hex"]
        self.field_pts, self.field_min = comp["field_points"], comp["field_min_group"]
        self.building_pts, self.building_colours = comp["building_points"], comp["building_min_colours"]
        self.island_pts = comp["island_points"]
        self.all_hexes = tuple(range(self.size))
        self._water_memo: dict[int, int] = {}  # blue bitmask -> water points (pure function of the side)
        self._fields_memo: dict[int, int] = {}
        self._diameter_memo: dict[int, int] = {}  # group bitmask -> geo.diameter
        self._targets_memo: dict[tuple[int, ...], int] = {}  # (card, free cube hexes, needed codes' bits) -> targets
        self.nbr_bits = tuple(sum(1 << n for n in self.geo.adjacent[h]) for h in range(self.size))
        self.around_bits = tuple(b | 1 << h for h, b in enumerate(self.nbr_bits))  # a hex and its neighbours
        self.arcs = [self._arcs(h) for h in range(self.size)]  # ``fields_after``
        # bitmasks over code indices: the codes a stack matches, the codes a card's pattern needs (a
        # token placed changes a card's cube targets only if the old or new stack matches one of them)
        self.stack_code_mask = tuple(sum(1 << i for i in codes) for codes in self.stack_codes)
        self.card_code_mask = {cid: sum(1 << i for i in needs) for cid, (_, needs, _) in self.placements.items()}
        # per (old, new) stack: the codes a hex stops / starts matching (``HarmoniesState._place``)
        self.codes_off = tuple(
            tuple(tuple(c for c in self.stack_codes[a] if c not in self.stack_codes[b]) for b in range(NUM_STACKS))
            for a in range(NUM_STACKS)
        )
        self.codes_on = tuple(
            tuple(tuple(c for c in self.stack_codes[b] if c not in self.stack_codes[a]) for b in range(NUM_STACKS))
            for a in range(NUM_STACKS)
        )
        # HA-R25: the points of a tree of each stack (0: not a tree); ``trees_in`` sums them
        self.tree_value = tuple(self.tree_pts[HEIGHT[st] - 1] if IS_TREE[st] else 0 for st in range(NUM_STACKS))
        self.reach = side_reach(self.side)
        self._masks: dict[int, np.ndarray] = {}  # legal mask bits -> the (read-only) mask array
        self._starts: dict[int, HarmoniesState] = {}  # player count -> the first state (new_initial_state)

    def _arcs(self, h: int) -> dict[int, int]:
        """Per set of h's neighbours (a bitmask), in how many unbroken arcs around h they lie (two
        neighbours in consecutive directions are next to each other: an arc is one group)."""
        ring = self.geo.neighbours[h]  # by direction, -1 off the board
        out = {}
        for sub in range(1 << 6):
            inside = [ring[d] >= 0 and bool(sub >> d & 1) for d in range(6)]
            if any(sub >> d & 1 and ring[d] < 0 for d in range(6)):
                continue  # not a set of neighbours on the board
            starts = sum(1 for d in range(6) if inside[d] and not inside[d - 1])
            out[sum(1 << ring[d] for d in range(6) if inside[d])] = starts or int(any(inside))
        return out

    def mask_array(self, bits: int) -> np.ndarray:
        """``mask_of(bits)``, memoised: masks recur (about half of them in random play), so states
        share one read-only array per mask (callers never write it; the adapter hands out copies)."""
        m = self._masks.get(bits)
        if m is None:
            m = mask_of(bits)  # read-only
            if len(self._masks) >= MEMO_LIMIT:
                self._masks.clear()
            self._masks[bits] = m
        return m

    # ------------------------------------------------------------ scoring
    def local_points(self, sb: list[int], region: int) -> tuple[int, int, int]:
        """Trees (HA-R25), mountains (HA-R26) and buildings (HA-R28) of the hexes in ``region`` (a
        bitmask), from a board's per-stack bitmasks ``sb`` (``HarmoniesState.stack_bits``): each
        depends only on its hex and its neighbours."""
        return self.trees_in(sb, region), self.mountains_in(sb, region), self.buildings_in(sb, region)

    def trees_in(self, sb: list[int], region: int) -> int:
        """HA-R25: trees of the hexes in ``region`` (see ``local_points``)."""
        trees = 0
        for st in TREE_STACKS:
            bits = sb[st] & region
            if bits:
                trees += self.tree_pts[HEIGHT[st] - 1] * bits.bit_count()
        return trees

    def mountains_in(self, sb: list[int], region: int) -> int:
        """HA-R26: mountains of the hexes in ``region`` next to another mountain (see ``local_points``)."""
        nbr = self.nbr_bits
        mountains = 0
        any_mountain = sb[MOUNTAIN_STACKS[0]] | sb[MOUNTAIN_STACKS[1]] | sb[MOUNTAIN_STACKS[2]]
        for st in MOUNTAIN_STACKS:
            bits = sb[st] & region
            while bits:
                low = bits & -bits
                bits ^= low
                if nbr[low.bit_length() - 1] & any_mountain:  # next to another mountain
                    mountains += self.mountain_pts[HEIGHT[st] - 1]
        return mountains

    def buildings_in(self, sb: list[int], region: int) -> int:
        """HA-R28: buildings of the hexes in ``region`` with 3 top colours around (see ``local_points``)."""
        buildings = 0
        bits = 0
        for st in BUILDING_STACKS:
            bits |= sb[st]
        bits &= region
        if bits:
            nbr = self.nbr_bits
            tops = []  # per colour, the hexes it tops (top_bits, inlined: the hot path of place_gains)
            for stacks in TOP_STACKS:
                t = 0
                for st in stacks:
                    t |= sb[st]
                tops.append(t)
            while bits:
                low = bits & -bits
                bits ^= low
                around = nbr[low.bit_length() - 1]
                if sum(1 for t in tops if around & t) >= self.building_colours:  # top colours around
                    buildings += self.building_pts
        return buildings

    def board_points_of(self, sb: list[int]) -> tuple[int, int, int, int, int]:
        """Trees, mountains, fields, buildings and water (HA-R25..R29, HA-V1) of a board's per-stack
        bitmasks ``sb``, counted in full (``HarmoniesState._place`` keeps them up to date)."""
        trees, mountains, buildings = self.local_points(sb, self.geo.all_bits)
        return trees, mountains, self.fields_of(top_bits(sb, YELLOW)), buildings, self.water_of(top_bits(sb, BLUE))

    def members(self, board: list[int], colour: int) -> int:
        """Bitmask of the hexes whose top token has ``colour``."""
        bits = 0
        for h in range(self.size):
            if TOP[board[h]] == colour:
                bits |= 1 << h
        return bits

    def fields_of(self, yellow: int) -> int:
        """HA-R27: each group of at least 2 yellows scores 5; ``yellow``: the yellow hexes (a
        bitmask; memoised)."""
        v = self._fields_memo.get(yellow)
        if v is None:
            groups = self.geo.groups(yellow)
            v = sum(self.field_pts for grp in groups if grp.bit_count() >= self.field_min)
            if len(self._fields_memo) < MEMO_LIMIT:
                self._fields_memo[yellow] = v
        return v

    def fields_after(self, fields: int, h: int, yellow: int) -> int:
        """``fields_of(yellow)`` where ``fields`` is ``fields_of`` of the same hexes without ``h`` (a
        yellow token just placed there): decided from h's yellow neighbours where they tell (no
        neighbour: a group of 1; one lone neighbour: a new group of 2; neighbours in one unbroken
        arc around h: one group, already scoring, that h joins), else counted in full."""
        if self.field_min != 2:  # (the cases below hold for groups of 2)
            return self.fields_of(yellow)
        near = self.nbr_bits[h] & yellow
        if not near:
            return fields
        arcs = self.arcs[h][near]
        if arcs == 1 and near & (near - 1):  # 2+ neighbours, each next to the next: one group of 2+
            return fields
        if arcs == 1:  # one neighbour n: a new field unless n already had a yellow neighbour
            return fields if self.nbr_bits[near.bit_length() - 1] & yellow & ~(1 << h) else fields + self.field_pts
        return self.fields_of(yellow)  # neighbours in 2+ arcs: maybe several groups joined

    def water_after(self, water: int, h: int, blue: int) -> int:
        """``water_of(blue)`` where ``water`` is ``water_of`` of the same hexes without ``h`` (a blue
        token just placed there): side A, h without a blue neighbour while another blue hex lies
        on the board: a river of 1 beside a river at least as long, the same points; else counted."""
        if self.side == "A" and not self.nbr_bits[h] & blue and blue & ~(1 << h):
            return water
        return self.water_of(blue)

    def water_of(self, blue: int) -> int:
        """HA-R29 (side A): the longest river; HA-V1 (side B): islands; ``blue``: the blue hexes (a
        bitmask; memoised)."""
        v = self._water_memo.get(blue)
        if v is None:
            if self.side == "A":
                length = 0
                for grp in self.geo.groups(blue):  # a river's length, memoised per group of blue hexes
                    d = self._diameter_memo.get(grp)
                    if d is None:
                        d = self.geo.diameter(grp)
                        if len(self._diameter_memo) < MEMO_LIMIT:
                            self._diameter_memo[grp] = d
                    if d > length:
                        length = d
                v = self.river_points(length)
            else:
                v = self.island_pts * len(self.geo.groups(self.geo.all_bits & ~blue))
            if len(self._water_memo) < MEMO_LIMIT:
                self._water_memo[blue] = v
        return v

    def river_points(self, length: int) -> int:
        """HA-R29 table: 0, 0, 2, 5, 8, 11, 15 for lengths 0..6, +4 per hex beyond 6."""
        pts = self.river_pts
        if length < len(pts):
            return pts[length]
        return pts[-1] + self.river_extra * (length - len(pts) + 1)

    def spirit_points(self, board: list[int], cid: int) -> int:
        """HA-V2 / spec 2.3: a completed spirit's condition over every matching stack or group."""
        card = self.cards[cid]
        size = self.size
        subj = card.subject
        if subj in ("tree", "mountain"):
            kind = IS_TREE if subj == "tree" else IS_MOUNTAIN
            items = [HEIGHT[board[h]] for h in range(size) if kind[board[h]]]
        elif subj == "blue_token":
            items = [1 for h in range(size) if TOP[board[h]] == BLUE]
        else:
            if subj == "building_group":
                members = sum(1 << h for h in range(size) if IS_BUILDING[board[h]])
            else:
                members = self.members(board, YELLOW if subj == "yellow_group" else BLUE)
            items = [grp.bit_count() for grp in self.geo.groups(members)]
        total = 0
        for v in items:
            for lo, hi, pts in card.table:
                if lo <= v <= hi:
                    total += pts
                    break
        return total

    def check_players(self, num_players: int) -> None:
        super().check_players(num_players)
        if self.options["solo"] and num_players != 1:
            raise ConfigError(f"option solo=True needs num_players=1, got num_players={num_players}")

    def spaces(self, n: int) -> int:
        return self.comp["central_spaces"]["solo" if n == 1 else "multi"]

    def display_size(self, n: int) -> int:
        return self.comp["display_size"]["solo" if n == 1 else "multi"]

    def new_initial_state(self, num_players: int) -> HarmoniesState:
        """A clone of the game's first state for ``num_players`` (made and counted once per count:
        every game starts the same before its chance draws)."""
        self.check_players(num_players)
        start = self._starts.get(num_players)
        if start is None:
            start = HarmoniesState(self, int(num_players))
            start._advance()
            self._starts[num_players] = start
        return start.clone()

    # ------------------------------------------------------------ saved states
    def state_schema(self, n: int) -> Spec:
        S, D = self.spaces(n), self.display_size(n)
        colour = Int(0, 5)
        card = Int(0, 42)
        return Dict(
            {
                "phase": Int(0, len(Phase) - 1),
                "bag": List(Int(0, 23), length=6),
                "central": List(List(colour, max_len=3), length=S),
                "filling": List(Int(0, S - 1), max_len=S, unique=True),
                "refill_cards": Bool(),
                "deck": List(Int(1, 32), max_len=32, unique=True, sorted_=True),
                "display": List(Int(0, 32), length=D),
                "spirit_deck": List(Int(33, 42), max_len=10, unique=True, sorted_=True),
                "offers": List(List(Int(33, 42), max_len=2), length=n),
                "spirit_discard": List(card, length=n),
                "first": Int(-1, n - 1),
                "to_move": Int(0, n - 1),
                "boards": List(List(Int(0, NUM_STACKS - 1), length=HEXES), length=n),
                "cubes": List(List(card, length=HEXES), length=n),
                "places": List(List(Tuple(card, Int(0, 5)), length=PLACES), length=n),
                "completed": List(List(Int(1, 42), max_len=42, unique=True), length=n),
                "taken": List(Int(-1, 5), length=TAKEN),
                "took": Bool(),
                "took_card": Bool(),
                "taken_from": Int(-1, S - 1),
                "turns": List(Int(0, 120), length=n),
                "end_triggered": Bool(),
                "discarded": List(Int(0, 23), length=6),
                "solo_discards": List(Int(1, 32), max_len=32, unique=True),
            }
        )

    def _state_from_dict(self, d: dict) -> HarmoniesState:
        st = HarmoniesState(self, d["num_players"])
        st.phase_id = int(Phase(d["phase"]))
        st.bag = list(d["bag"])
        st.central = [list(c) for c in d["central"]]
        st.filling = list(d["filling"])
        st.refill_cards = d["refill_cards"]
        st.deck = list(d["deck"])
        st.display = list(d["display"])
        st.spirit_deck = list(d["spirit_deck"])
        st.offers = [list(o) for o in d["offers"]]
        st.spirit_discard = list(d["spirit_discard"])
        st.first, st.to_move = d["first"], d["to_move"]
        st.boards = [list(b) for b in d["boards"]]
        st.cubes = [list(c) for c in d["cubes"]]
        st.places = [[list(p) for p in pl] for pl in d["places"]]
        st.completed = [list(c) for c in d["completed"]]
        st.taken = list(d["taken"])
        st.took, st.took_card, st.taken_from = d["took"], d["took_card"], d["taken_from"]
        st.turns = list(d["turns"])
        st.end_triggered = d["end_triggered"]
        st.discarded = list(d["discarded"])
        st.solo_discards = list(d["solo_discards"])
        st._recount()
        return st


class HarmoniesState(State):
    """One position of Harmonies."""

    game: HarmoniesGame
    # every field in a slot: an attribute read is a slot read (an instance dict of this many keys is
    # no longer a shared-keys dict, and its reads cost a hash lookup); ``clone`` sets them all
    __slots__ = (
        "game",
        "num_players",
        "phase_id",
        "bag",
        "central",
        "filling",
        "refill_cards",
        "deck",
        "display",
        "spirit_deck",
        "offers",
        "spirit_discard",
        "first",
        "to_move",
        "boards",
        "cubes",
        "places",
        "completed",
        "taken",
        "took",
        "took_card",
        "taken_from",
        "turns",
        "end_triggered",
        "discarded",
        "solo_discards",
        "_mask",
        "encoder_cache",
        "sbits",
        "hex_log",
        "cbits",
        "targets",
        "cube_mask",
        "_points_cache",
        "kept_points",
        "_card_points",
        "shared_ver",
        "table_log",
        "player",
        "held",
        "placeable",
    )

    def __init__(self, game: HarmoniesGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        S, D = game.spaces(n), game.display_size(n)
        self.phase_id = P_SETUP
        self.bag = list(game.bag0)  # tokens left per colour (public)
        self.central: list[list[int]] = [[] for _ in range(S)]  # tokens in drawn order (HA-R33)
        self.filling: list[int] = list(range(S))  # central spaces waiting for tokens, head first
        self.refill_cards = True  # the display is refilled at this chance phase (HA-R21)
        self.deck = list(data.ANIMAL_IDS)  # animal cards not yet dealt (a set, sorted)
        self.display = [0] * D  # card id per display slot, 0 = empty
        self.spirit_deck: list[int] = list(data.SPIRIT_IDS) if game.spirits else []
        self.offers: list[list[int]] = [[] for _ in range(n)]  # spirits offered, not yet chosen (hidden)
        self.spirit_discard = [0] * n  # the spirit each seat did not keep (hidden for good)
        self.first = -1
        self.to_move = 0
        self.boards = [[EMPTY] * HEXES for _ in range(n)]  # stack id per hex
        self.cubes = [[0] * HEXES for _ in range(n)]  # card id whose cube is on the hex, 0 = none
        self.places = [[[0, 0] for _ in range(PLACES)] for _ in range(n)]  # [card id, cubes left]
        self.completed: list[list[int]] = [[] for _ in range(n)]  # completed cards (HA-R19)
        self.taken = [-1] * TAKEN  # colours taken this turn still to place, -1 = none (HA-R33)
        self.took = False  # this turn's TAKE is done (or skipped, HA-R24)
        self.took_card = False  # this turn's card is taken (HA-R13)
        self.taken_from = -1  # central space emptied this turn
        self.turns = [0] * n  # turns completed per seat
        self.end_triggered = False  # HA-R22
        self.discarded = [0] * 6  # tokens out of the game per colour (HA-R12, HA-V3)
        self.solo_discards: list[int] = []  # display cards discarded in solo (HA-V3)
        self._mask = None
        self.encoder_cache = None
        self._recount()

    def _recount(self) -> None:
        """Count from the boards, cubes and card places what the moves then keep up to date (``_place``,
        ``_place_cube``, ``_to_place``), per seat:

        * ``sbits``: per stack id the bitmask of the hexes holding it, then the bitmask of the hexes
          holding a cube (see ``stack_bits``);
        * ``hex_log``: the hexes whose stack or cube changed, in order (here the non-empty ones; a
          cache that starts from an empty board and rewrites these hexes is up to date: the encoder);
          ``table_log`` the same for the central spaces and display slots (one log for the table;
          entries s and ``TABLE_DISPLAY`` + i, and ``TABLE_DECK``, ``TABLE_OFFERS``, ``TABLE_FIRST``
          for the deck's size, the spirit offers and the first player: here all three);
        * ``cbits``: per pattern code (``game.code_list`` order), the hexes whose stack matches it;
        * ``targets``: per card place, the hexes where its next cube may go (0: empty place), and
          ``cube_mask``: the PLACE_CUBE bits of the legal mask made of them;
        * ``_points_cache``: (``board_points``, {hex: local points of the hex and its neighbours},
          made and filled in by ``place_gains``, None until then); replaced, never modified, on a
          change, so clones share it.
        """
        n = self.num_players
        g = self.game
        self.sbits = [self._count_bits(p) for p in range(n)]
        self.hex_log = [[h for h in range(HEXES) if self.boards[p][h] != EMPTY or self.cubes[p][h]] for p in range(n)]
        self.cbits = [self.code_bits(p, self.stack_bits(p)) for p in range(n)]
        self.targets = [
            [self.cube_targets(p, cid, self.cbits[p]) if left else 0 for cid, left in self.places[p]] for p in range(n)
        ]
        self.cube_mask = [0] * n
        for p in range(n):
            self._set_cube_mask(p)
        self.placeable = [self._count_placeable(p) for p in range(n)]
        self.held = [self._count_held(p) for p in range(n)]  # ``unfinished``: cards in the seat's places
        self._points_cache: list[tuple[tuple[int, int, int, int, int], dict[int, int] | None]] = [
            (g.board_points_of(self.sbits[p]), None) for p in range(n)
        ]
        # per seat: ``points``, None until asked (``_place`` sets it when the cards' part is kept)
        self.kept_points: list[tuple[int, ...] | None] = [None] * n
        # bumped by every move but PLACE and PLACE_CUBE: the only moves that leave the phase, the turn
        # flags, the bag, central spaces, display, deck, spirit offers, first player and card places as
        # they were (they change the taken tokens and, logged in ``hex_log``, a board, cubes, a card
        # place and the points); the encoder skips those blocks while it is unchanged
        self.shared_ver = 0
        # ``current_player()``, kept by the moves that change the phase (to_move changes only with one)
        who = PHASE_PLAYER[self.phase_id]
        self.player = self.to_move if who is None else who
        self.table_log = [s for s, toks in enumerate(self.central) if toks]
        self.table_log += [TABLE_DISPLAY + i for i, c in enumerate(self.display) if c]
        self.table_log += [TABLE_DECK, TABLE_OFFERS, TABLE_FIRST]
        self._card_points: list[tuple[int, int] | None] = [None] * n  # per seat: (cards, spirit), None until asked

    def clone(self) -> HarmoniesState:
        c = object.__new__(HarmoniesState)
        c.game, c.num_players, c.phase_id, c.player = self.game, self.num_players, self.phase_id, self.player
        c.bag, c.central, c.filling = self.bag[:], [x[:] for x in self.central], self.filling[:]
        c.refill_cards, c.deck, c.display = self.refill_cards, self.deck[:], self.display[:]
        c.spirit_deck, c.offers, c.spirit_discard = (
            self.spirit_deck[:],
            [x[:] for x in self.offers],
            self.spirit_discard[:],
        )
        c.first, c.to_move = self.first, self.to_move
        c.boards, c.cubes = [x[:] for x in self.boards], [x[:] for x in self.cubes]
        c.sbits = [x[:] for x in self.sbits]
        c.hex_log = [x[:] for x in self.hex_log]
        c.cbits = [x[:] for x in self.cbits]
        c.targets = [x[:] for x in self.targets]
        c.cube_mask = self.cube_mask[:]
        c.placeable = self.placeable[:]
        c.held = self.held[:]
        c.places = [[q[:] for q in pl] for pl in self.places]
        c.completed = [x[:] for x in self.completed]
        c.taken, c.took, c.took_card, c.taken_from = self.taken[:], self.took, self.took_card, self.taken_from
        c.turns, c.end_triggered = self.turns[:], self.end_triggered
        c.discarded, c.solo_discards = self.discarded[:], self.solo_discards[:]
        c._mask = self._mask
        c._points_cache = self._points_cache[:]  # entries are replaced, never modified
        c.kept_points = self.kept_points[:]
        c._card_points = self._card_points[:]
        c.shared_ver = self.shared_ver
        c.table_log = self.table_log[:]
        c.encoder_cache = None
        return c

    # ------------------------------------------------------------------ turns
    def current_player(self) -> int:
        return self.player  # PHASE_PLAYER[phase_id], or to_move where that is None (kept with the phase)

    def phase(self) -> str:
        return Phase(self.phase_id).name.lower()

    @property
    def solo(self) -> bool:
        return self.num_players == 1

    def chance_kind(self) -> Kind | None:
        """What the chance node draws now (None when nothing is pending)."""
        if self.filling:
            return K_TOKEN
        if self.refill_cards and self.deck and 0 in self.display:
            return K_CARD
        if self.phase_id == P_SETUP:
            if self.game.spirits and any(len(o) < 2 for o in self.offers) and self.first < 0:
                return K_SPIRIT
            if self.first < 0:
                return K_FIRST
        return None

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        k = self.chance_kind()
        if k == K_TOKEN:  # one token drawn from the bag (spec 7)
            total = sum(self.bag)
            return [(c, n / total) for c, n in enumerate(self.bag) if n]
        if k == K_CARD:  # HA-R21: uniform over the deck
            p = 1.0 / len(self.deck)
            return [(c, p) for c in self.deck]
        if k == K_SPIRIT:  # HA-V2
            p = 1.0 / len(self.spirit_deck)
            return [(c, p) for c in self.spirit_deck]
        n = self.num_players  # section 3.4: the first player at random
        return [(s, 1.0 / n) for s in range(n)]

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is not int:
            return False
        if self.filling:  # chance_kind() == K_TOKEN (its first test, the usual node)
            return 0 <= outcome < 6 and self.bag[outcome] > 0
        k = self.chance_kind()
        if k == K_CARD:
            return outcome in self.deck
        if k == K_SPIRIT:
            return outcome in self.spirit_deck
        return 0 <= outcome < self.num_players

    def sample_chance(self, rng: np.random.Generator) -> Any:
        if self.filling:  # chance_kind() == K_TOKEN (its first test, the usual node)
            bag = self.bag
            r = int(rng.integers(sum(bag)))
            for c, left in enumerate(bag):
                if r < left:
                    return c
                r -= left
        k = self.chance_kind()
        if k == K_CARD:
            return self.deck[int(rng.integers(len(self.deck)))]
        if k == K_SPIRIT:
            return self.spirit_deck[int(rng.integers(len(self.spirit_deck)))]
        return int(rng.integers(self.num_players))

    # ---------------------------------------------------------------- legality
    def _count_bits(self, seat: int) -> list[int]:
        """``self.sbits[seat]`` counted from the board and cubes (kept up to date by the moves)."""
        sb = [0] * (NUM_STACKS + 1)
        cubes = self.cubes[seat]
        for h, st in enumerate(self.boards[seat]):
            sb[st] |= 1 << h
            if cubes[h]:
                sb[NUM_STACKS] |= 1 << h
        sb[EMPTY] &= self.game.geo.all_bits  # slots beyond the board side are never spaces
        return sb

    def stack_bits(self, seat: int) -> tuple[list[int], int]:
        """Per stack id, the bitmask of the seat's hexes holding it; and the bitmask of its cubes
        (kept incrementally; do not modify)."""
        sb = self.sbits[seat]
        return sb, sb[NUM_STACKS]

    def can_place(self, seat: int, colour: int, bits: tuple[list[int], int] | None = None) -> int:
        """Bitmask of the hexes where ``seat`` may place a ``colour`` token (HA-R5..R12): read from
        ``placeable`` (kept by the moves), or counted from the given ``stack_bits``."""
        if bits is None:
            return (self.placeable[seat] >> (HEXES * colour)) & HEX_BITS
        sb, cb = bits
        out = 0
        for st in ALLOWED[colour]:
            out |= sb[st]
        return out & ~cb

    def _count_placeable(self, seat: int) -> int:
        """``placeable[seat]`` counted from the stack bitmasks: ``can_place`` of colour c at bits
        HEXES*c .. HEXES*c + 24 (the moves keep it up to date: only the hex a token or cube goes on changes)."""
        bits = self.stack_bits(seat)
        return sum(self.can_place(seat, c, bits) << (HEXES * c) for c in range(len(COLOURS)))

    def code_bits(self, seat: int, bits: tuple[list[int], int] | None = None) -> list[int]:
        """Per pattern code (``game.code_list`` order): bitmask of hexes whose stack matches it (a
        copy of ``cbits``, or counted from the given ``stack_bits``)."""
        if bits is None:
            return self.cbits[seat][:]
        sb = bits[0]
        have = [0] * len(self.game.code_stacks)
        for st, codes in enumerate(self.game.stack_codes):
            if sb[st]:
                for code in codes:
                    have[code] |= sb[st]
        return have

    def cube_targets(self, seat: int, card: int, have: list[int] | None = None) -> int:
        """Bitmask of the hexes where a cube of ``card`` may go now (HA-R15..R17)."""
        if have is None:
            have = self.code_bits(seat)
        g = self.game
        cube_code, needs, _ = g.placements[card]
        for code in needs:
            if not have[code]:
                return 0
        cand = have[cube_code] & ~self.sbits[seat][NUM_STACKS]  # HA-R17: the target holds no cube
        key = (card, cand, *map(have.__getitem__, needs))  # all the answer depends on
        out = g._targets_memo.get(key)
        if out is not None:
            return out
        out = self.targets_among(card, have, cand)
        if len(g._targets_memo) >= MEMO_LIMIT:
            g._targets_memo.clear()  # keys rarely recur across games: keep the recent ones
        g._targets_memo[key] = out
        return out

    def targets_among(self, card: int, have: list[int], cand: int) -> int:
        """The hexes of ``cand`` (free of cubes, holding the cube hex's code) where some placement
        of ``card``'s pattern with its cube there is met by the code bitmasks ``have`` (HA-R15, HA-R16)."""
        by_hex = self.game.placements[card][2]
        out = 0
        while cand:
            low = cand & -cand
            cand ^= low
            for req in by_hex.get(low.bit_length() - 1, ()):
                for code, bits in req:
                    if bits & ~have[code]:
                        break
                else:
                    out |= low
                    break
        return out

    def unfinished(self, seat: int) -> int:
        """Cards (animal or spirit) in the seat's places (HA-R13, HA-R19; kept by the moves)."""
        return self.held[seat]

    def _count_held(self, seat: int) -> int:
        """``held[seat]`` counted from the card places (``_to_place`` and a completion keep it)."""
        return sum(1 for cid, _ in self.places[seat] if cid)

    def _legal_mask(self) -> np.ndarray:
        bits = 0  # bit a = action a (mask_of)
        p = self.to_move
        if self.phase_id != P_TURN:  # the two other decisions
            if self.phase_id == P_CHOOSE_SPIRIT:
                return self.game.mask_array(((1 << len(self.offers[p])) - 1) << A_SPIRIT)
            for i, c in enumerate(self.display):  # P_SOLO_DISCARD
                if c:
                    bits |= 1 << (A_DISCARD + i)
            return self.game.mask_array(bits | 1 << A_DECLINE)
        if not self.took:  # HA-R1, HA-R2: TAKE first, from a non-empty space
            central = self.central
            if all(central):  # the usual full central board (HA-R20): every space
                bits |= ((1 << len(central)) - 1) << A_TAKE
            else:
                for s, toks in enumerate(central):
                    if toks:
                        bits |= 1 << (A_TAKE + s)
        else:  # HA-R4: any remaining token, any legal hex (can_place(p, c) read from ``placeable``)
            placeable = self.placeable[p]
            t0, t1, t2 = self.taken  # TAKEN == 3 slots, unrolled
            if t0 >= 0:
                bits |= ((placeable >> (HEXES * t0)) & HEX_BITS) << A_PLACE
            if t1 >= 0:
                bits |= ((placeable >> (HEXES * t1)) & HEX_BITS) << (A_PLACE + HEXES)
            if t2 >= 0:
                bits |= ((placeable >> (HEXES * t2)) & HEX_BITS) << (A_PLACE + 2 * HEXES)
            if t0 < 0 and t1 < 0 and t2 < 0:
                bits |= 1 << A_END  # HA-R3
        if not self.took_card and self.held[p] < PLACES:  # HA-R13: a free place
            display = self.display
            if 0 not in display:  # the usual full display (HA-R21): every slot
                bits |= ((1 << len(display)) - 1) << A_CARD
            else:
                for i, c in enumerate(display):
                    if c:
                        bits |= 1 << (A_CARD + i)
        bits |= self.cube_mask[p]
        m = self.game._masks.get(bits)  # mask_array's memo read here: the usual hit costs no call
        return m if m is not None else self.game.mask_array(bits)

    def _set_cube_mask(self, p: int) -> None:
        """``cube_mask[p]`` from ``targets[p]``: the PLACE_CUBE part of the seat's mask (HA-R15..R18)."""
        tg = self.targets[p]  # PLACES == 4 places
        self.cube_mask[p] = (
            tg[0] << A_CUBE | tg[1] << (A_CUBE + HEXES) | tg[2] << (A_CUBE + 2 * HEXES) | tg[3] << (A_CUBE + 3 * HEXES)
        )

    # ------------------------------------------------------------------ moves
    def _apply(self, a: Any) -> None:
        ph = self.phase_id
        if ph == P_TURN:  # the usual decision first
            if a < A_PLACE:
                self.shared_ver += 1
                self._take(a - A_TAKE)
            elif a < A_CARD:  # no shared_ver bump: changes the taken tokens and the seat's board (logged)
                t, h = divmod(a - A_PLACE, HEXES)
                self._place(t, h)
            elif a < A_CUBE:
                self.shared_ver += 1
                self._take_card(a - A_CARD)
            elif a < A_END:  # no shared_ver bump: changes the seat's board (logged) and card place
                c, h = divmod(a - A_CUBE, HEXES)
                self._place_cube(c, h)
            else:  # A_END
                self.shared_ver += 1
                if self.num_players == 1 and not self.took_card and any(self.display):  # solo (no property call)
                    self.phase_id = P_SOLO_DISCARD  # HA-V3: the extra decision before the refill (same player)
                else:
                    self._end_turn()
        elif ph == P_REFILL or ph == P_SETUP:
            self.shared_ver += 1
            if self.filling:  # a token drawn (chance_kind() == K_TOKEN: its first test, the usual node)
                self.bag[a] -= 1
                s = self.filling[0]
                space = self.central[s]
                space.append(a)  # HA-R33: kept in drawn order
                self.table_log.append(s)
                if len(space) == 3:  # else the same space fills on: the next node is again a token draw
                    self.filling.pop(0)
                    self._advance()
            else:
                self._chance(a)
        elif ph == P_CHOOSE_SPIRIT:
            self.shared_ver += 1
            self._choose_spirit(a - A_SPIRIT)
        else:  # P_SOLO_DISCARD
            self.shared_ver += 1
            if a != A_DECLINE:  # HA-V3: the card leaves the game
                i = a - A_DISCARD
                self.solo_discards.append(self.display[i])
                self.display[i] = 0
                self.table_log.append(TABLE_DISPLAY + i)
            self._end_turn()

    def _chance(self, a: int) -> None:
        """A card, spirit or first player drawn (``_apply`` places a drawn token itself)."""
        k = self.chance_kind()
        if k == K_CARD:
            self.deck.remove(a)
            i = self.display.index(0)  # lowest empty slot first
            self.display[i] = a
            self.table_log += (TABLE_DISPLAY + i, TABLE_DECK)
        elif k == K_SPIRIT:
            self.spirit_deck.remove(a)
            next(o for o in self.offers if len(o) < 2).append(a)  # 2 each, in seat order
            self.table_log.append(TABLE_OFFERS)
        else:
            self.first = self.to_move = a
            self.table_log.append(TABLE_FIRST)
        self._advance()

    def _advance(self) -> None:
        """Run the automatic steps until a decision or a chance node is pending."""
        if self.phase_id not in (P_SETUP, P_REFILL):
            return
        # HA-R20 / HA-V3: a space is filled only while the bag holds 3 tokens; partial refills never happen
        while self.filling and not self.central[self.filling[0]] and sum(self.bag) < 3:
            self.filling.clear()
        if self.chance_kind() is not None:
            return
        self.refill_cards = False
        if self.phase_id == P_SETUP:
            self._start_turn()
        else:
            self._finish_turn()

    def _start_turn(self) -> None:
        self.taken = [-1] * TAKEN
        self.took = self.took_card = False
        self.taken_from = -1
        if self.offers[self.to_move]:  # HA-V2: the choice opens the seat's first turn
            self.phase_id = P_CHOOSE_SPIRIT
            self.player = self.to_move
            return
        self.phase_id = P_TURN
        self.player = self.to_move
        if not any(self.central):  # HA-R24: nothing to take
            self.took = True

    def _finish_turn(self) -> None:
        """After the refills: HA-R22 trigger, HA-R23 final round, next seat."""
        p, n = self.to_move, self.num_players
        self.turns[p] += 1
        empty = self.sbits[p][EMPTY].bit_count()  # empty spaces of the board side
        if sum(self.bag) < 3 or empty <= self.game.end_empty:
            self.end_triggered = True
        if self.end_triggered and p == (self.first - 1) % n:
            self.phase_id = P_END
            self.player = TERMINAL
            self.taken = [-1] * TAKEN
            self.took = self.took_card = False
            self.taken_from = -1
            return
        self.to_move = (p + 1) % n
        self._start_turn()

    def _choose_spirit(self, i: int) -> None:
        p = self.to_move
        keep = self.offers[p][i]
        self.spirit_discard[p] = self.offers[p][1 - i]
        self.offers[p] = []
        self.table_log.append(TABLE_OFFERS)
        self._to_place(p, keep)
        self._start_turn()

    def _to_place(self, p: int, card: int) -> None:
        """HA-R32: into the lowest free place, filled with its cubes (HA-R14)."""
        for c, pl in enumerate(self.places[p]):
            if not pl[0]:
                pl[0], pl[1] = card, self.game.cards[card].cubes
                self.held[p] += 1
                self.targets[p][c] = self.cube_targets(p, card, self.cbits[p])
                self._set_cube_mask(p)
                return
        raise AssertionError("no free card place")  # pragma: no cover - masked by HA-R13

    def _take(self, s: int) -> None:
        self.taken = self.central[s] + [-1] * (TAKEN - len(self.central[s]))
        self.central[s] = []
        self.table_log.append(s)
        self.took = True
        self.taken_from = s
        self._settle()

    def _place(self, t: int, h: int) -> None:
        p = self.to_move
        g = self.game
        colour = self.taken[t]
        board = self.boards[p]
        old = board[h]
        new = board[h] = PLACE_ON[old][colour]
        bit = 1 << h
        sb = self.sbits[p]
        sb[old] ^= bit
        sb[new] |= bit
        self.placeable[p] = (self.placeable[p] & ~(EVERY_COLOUR << h)) | PLACEABLE_ON[new] << h  # h holds no cube
        self.hex_log[p].append(h)
        cb = self.cbits[p]
        for code in g.codes_off[old][new]:  # the codes h no longer matches
            cb[code] ^= bit
        for code in g.codes_on[old][new]:  # the codes h now matches
            cb[code] |= bit
        changed = g.stack_code_mask[old] ^ g.stack_code_mask[new]  # the codes whose hexes changed
        if changed and self.held[p]:  # cards in places (``held``) whose targets may change
            tg = self.targets[p]
            touched = False
            for c, (cid, left) in enumerate(self.places[p]):
                if left and g.card_code_mask[cid] & changed:  # only cards whose pattern reads them
                    # only the cube hexes with a placement over h can change: count those again
                    near = g.reach[cid][h]
                    cand = cb[g.placements[cid][0]] & ~sb[NUM_STACKS] & near
                    now = (tg[c] & ~near) | self.targets_among(cid, cb, cand) if cand else tg[c] & ~near
                    if now != tg[c]:
                        tg[c] = now
                        touched = True
            if touched:  # the mask's PLACE_CUBE bits, only when a card's targets changed
                self._set_cube_mask(p)
        before = self._points_cache[p][0]
        board_points = self._points_after(p, h, old, new, colour)  # ``before`` itself when no part changed
        self._points_cache[p] = (board_points, None)  # (``place_gains`` makes the dict when it needs one)
        if g.spirits:  # a completed spirit scores the board
            self._card_points[p] = self.kept_points[p] = None
        elif board_points is not before or self.kept_points[p] is None:  # else the kept tuple holds on
            cards = self._card_points[p]  # ``points`` now (``_count_points``), unless the cards' part waits
            self.kept_points[p] = None if cards is None else board_points + cards
        self.taken[t] = -1
        if not sb[EMPTY]:  # ``_settle``'s own test (``took`` is set): an empty space takes any token
            self._settle()

    def _points_after(self, p: int, h: int, old: int, new: int, colour: int) -> tuple[int, int, int, int, int]:
        """``board_points`` of seat ``p`` after its hex ``h`` went from stack ``old`` to ``new`` (a
        ``colour`` token; ``sbits`` already updated): the parts the token can change are counted
        again in full, the others kept; the tuple before itself when no part changed (the points
        kept, and the encoder's copy of them, hold on)."""
        g = self.game
        sb = self.sbits[p]
        before = self._points_cache[p][0]
        trees, mountains, fields, buildings, water = before
        every = g.geo.all_bits
        trees += g.tree_value[new] - g.tree_value[old]  # HA-R25: a tree scores by its own height alone
        if IS_MOUNTAIN[old] or IS_MOUNTAIN[new]:
            mountains = g.mountains_in(sb, every)
        if colour == YELLOW:  # HA-R6, HA-R7: yellow lies on an empty space, and nothing on it
            fields = g.fields_after(fields, h, top_bits(sb, YELLOW))
        elif colour == BLUE:  # the same for blue
            water = g.water_after(water, h, top_bits(sb, BLUE))
        if IS_BUILDING[old] or IS_BUILDING[new]:
            buildings = g.buildings_in(sb, every)
        elif TOP[old] != TOP[new]:  # a building next to h sees another top colour
            near = sb[BUILDING_STACKS[0]] | sb[BUILDING_STACKS[1]] | sb[BUILDING_STACKS[2]]  # the 3 building stacks
            if near & g.nbr_bits[h]:
                buildings = g.buildings_in(sb, every)
        after = (trees, mountains, fields, buildings, water)
        return before if after == before else after

    def _take_card(self, i: int) -> None:
        p = self.to_move
        card = self.display[i]
        self.display[i] = 0
        self.table_log.append(TABLE_DISPLAY + i)
        self.took_card = True
        self._to_place(p, card)

    def _place_cube(self, c: int, h: int) -> None:
        p = self.to_move
        pl = self.places[p][c]
        self.cubes[p][h] = pl[0]
        bit = 1 << h
        self.sbits[p][NUM_STACKS] |= bit
        self.placeable[p] &= ~(EVERY_COLOUR << h)  # HA-R12: no token on a cube
        self.hex_log[p].append(h)
        tg = self.targets[p]
        for i in range(PLACES):  # HA-R17: no cube on a hex holding one
            tg[i] &= ~bit
        pl[1] -= 1
        self.kept_points[p] = self._card_points[p] = None
        if not pl[1]:  # HA-R19: complete; the place is free again (HA-R32)
            self.completed[p].append(pl[0])
            pl[0] = 0
            self.held[p] -= 1
            tg[c] = 0
        self._set_cube_mask(p)
        if self.took and not self.sbits[p][EMPTY]:  # ``_settle``'s own first test, before the call
            self._settle()

    def _settle(self) -> None:
        """HA-R12: when no unplaced taken token has a legal space, all of them are discarded."""
        p = self.to_move
        if not self.took or self.sbits[p][EMPTY]:  # HA-R5: an empty space takes any token (never a cube)
            return
        left = [c for c in self.taken if c >= 0]
        if not left:
            return
        if any(self.can_place(p, c) for c in set(left)):
            return
        for c in left:
            self.discarded[c] += 1
        self.taken = [-1] * TAKEN

    def _end_turn(self) -> None:
        """END_TURN: HA-R20 refill (HA-V3: clear and refill every space), HA-R21 display refill."""
        if self.num_players == 1:  # solo (no property call)
            for s, toks in enumerate(self.central):
                for c in toks:
                    self.discarded[c] += 1
                self.central[s] = []
                self.table_log.append(s)
            self.filling = list(range(len(self.central)))
        elif self.taken_from >= 0:
            self.filling = [self.taken_from]
        self.taken_from = -1
        self.took = self.took_card = False
        self.refill_cards = True
        self.phase_id = P_REFILL
        self.player = CHANCE
        self._advance()

    # ---------------------------------------------------------------- scoring
    def breakdown(self, seat: int) -> dict[str, int]:
        """Points of ``seat`` by category (HA-R25..R30, HA-V1, HA-V2)."""
        return dict(zip(POINT_PARTS, self.points(seat)))

    def points(self, seat: int) -> tuple[int, ...]:
        """:meth:`breakdown`'s values, in ``POINT_PARTS`` order (kept until the seat places a token
        or a cube: nothing else changes them)."""
        pts = self.kept_points[seat]
        if pts is None:
            pts = self.kept_points[seat] = self._count_points(seat)
        return pts

    def _count_points(self, seat: int) -> tuple[int, ...]:
        """``points``: the board's (``_points_cache``) and the cards' (``_card_points``, kept until
        the seat places a cube, or a token while it holds a completed spirit)."""
        cp = self._card_points[seat]
        if cp is None:
            cp = self._card_points[seat] = self._count_card_points(seat)
        return self._points_cache[seat][0] + cp

    def _count_card_points(self, seat: int) -> tuple[int, int]:
        """Animal cards (HA-R30) and the completed spirit (HA-V2) of ``seat``."""
        g = self.game
        board = self.boards[seat]
        cards = 0
        spirit = 0
        for cid in self.completed[seat]:
            card = g.cards[cid]
            if card.spirit:
                spirit += g.spirit_points(board, cid)
            else:
                cards += card.points[-1]
        for cid, left in self.places[seat]:  # HA-R30
            if cid:
                card = g.cards[cid]
                placed = len(card.points) - left  # cubes placed (``card.cubes - left``)
                if placed and not card.spirit:
                    cards += card.points[placed - 1]
        return cards, spirit

    def board_points(self, seat: int) -> tuple[int, int, int, int, int]:
        """Trees, mountains, fields, buildings and water of ``seat`` (HA-R25..R29, HA-V1): what its
        stacks alone score; kept up to date by ``_place`` (``_points_cache``)."""
        return self._points_cache[seat][0]

    def place_gain(self, seat: int, colour: int, h: int) -> int:
        """Points ``seat`` gains now by placing a ``colour`` token on hex ``h`` (legal there)."""
        return self.place_gains(seat, colour, 1 << h)[h]

    def place_gains(self, seat: int, colour: int, hexes: int) -> dict[int, int]:
        """:meth:`place_gain` for every hex of the bitmask ``hexes``, recomputing only what the
        token can change (its hex and neighbours; fields for yellow, water for blue; completed
        spirits)."""
        g = self.game
        board = self.boards[seat]
        sb = self.sbits[seat]
        now, local_now = self._points_cache[seat]  # the points before, kept while the stacks stay
        if local_now is None:
            local_now = {}
            self._points_cache[seat] = (now, local_now)
        spirits = [cid for cid in self.completed[seat] if cid >= 33]
        out = {}
        while hexes:
            bit = hexes & -hexes
            hexes ^= bit
            h = bit.bit_length() - 1
            old, new = board[h], PLACE_ON[board[h]][colour]
            region = g.around_bits[h]
            before = local_now.get(h)
            if before is None:
                before = local_now[h] = sum(g.local_points(sb, region))
            nsb = sb[:]  # the stack bitmasks after the placement
            nsb[old] &= ~bit
            nsb[new] |= bit
            d = sum(g.local_points(nsb, region)) - before
            if colour == YELLOW:
                d += g.fields_of(top_bits(nsb, YELLOW)) - now[2]
            elif colour == BLUE:
                d += g.water_of(top_bits(nsb, BLUE)) - now[4]
            for cid in spirits:
                nb = board[:]
                nb[h] = new
                d += g.spirit_points(nb, cid) - g.spirit_points(board, cid)
            out[h] = d
        return out

    def cube_gain(self, seat: int, c: int) -> int:
        """Points ``seat`` gains now by placing the next cube of card place ``c``."""
        g = self.game
        cid, left = self.places[seat][c]
        card = g.cards[cid]
        if card.spirit:
            return g.spirit_points(self.boards[seat], cid)
        placed = card.cubes - left
        return card.points[placed] - (card.points[placed - 1] if placed else 0)

    def score(self, seat: int) -> int:
        """HA-R31 total of ``seat``."""
        return sum(self.breakdown(seat).values())

    def cubes_on_board(self, seat: int) -> int:
        return self.sbits[seat][NUM_STACKS].bit_count()

    def scores(self) -> list[float]:
        return [float(self.score(p)) for p in range(self.num_players)]  # HA-R35

    def winners(self) -> list[int]:
        """HA-R31: the highest total; tie: the most cubes on the board; still tied: shared."""
        s = self.scores()
        best = max(s)
        tied = [p for p in range(self.num_players) if s[p] == best]
        cubes = {p: self.cubes_on_board(p) for p in tied}
        most = max(cubes.values())
        return [p for p in tied if cubes[p] == most]

    def suns(self) -> int:
        """HA-V3 solo suns of seat 0 (information only, HA-R35)."""
        ss = self.game.comp["solo_suns"]
        pts = self.score(0)
        suns = sum(1 for t in ss["thresholds"] if pts >= t)
        if self.game.side == "A":
            suns += ss["side_a_bonus"]
        if not self.game.spirits:
            suns += ss["no_spirit_bonus"]
        else:
            kept = [c for c in self.completed[0] + [c for c, _ in self.places[0]] if c >= 33]
            if kept and kept[0] in ss["spirit_bonus_ids"]:
                suns += ss["spirit_bonus"]
        return suns

    # ------------------------------------------------------ hidden information
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> HarmoniesState:
        """Re-deal the spirits ``seat`` cannot see: other seats' offers and discarded spirits."""
        s = self.clone()
        if not self.game.spirits:
            return s
        others = [p for p in range(s.num_players) if p != seat]
        unseen = list(s.spirit_deck)
        for p in others:
            unseen += s.offers[p]
            if s.spirit_discard[p]:
                unseen.append(s.spirit_discard[p])
        perm = [int(x) for x in rng.permutation(len(unseen))]
        pool = [unseen[i] for i in perm]
        for p in others:
            k = len(s.offers[p])
            s.offers[p], pool = pool[:k], pool[k:]
            if s.spirit_discard[p]:
                s.spirit_discard[p], pool = pool[0], pool[1:]
        s.spirit_deck = sorted(pool)
        s._mask = None
        return s

    # ------------------------------------------------------------ saved states
    def _to_dict(self) -> dict:
        return {
            "phase": int(self.phase_id),
            "bag": list(self.bag),
            "central": [list(c) for c in self.central],
            "filling": list(self.filling),
            "refill_cards": self.refill_cards,
            "deck": sorted(self.deck),
            "display": list(self.display),
            "spirit_deck": sorted(self.spirit_deck),
            "offers": [list(o) for o in self.offers],
            "spirit_discard": list(self.spirit_discard),
            "first": self.first,
            "to_move": self.to_move,
            "boards": [list(b) for b in self.boards],
            "cubes": [list(c) for c in self.cubes],
            "places": [[list(p) for p in pl] for pl in self.places],
            "completed": [list(c) for c in self.completed],
            "taken": list(self.taken),
            "took": self.took,
            "took_card": self.took_card,
            "taken_from": self.taken_from,
            "turns": list(self.turns),
            "end_triggered": self.end_triggered,
            "discarded": list(self.discarded),
            "solo_discards": list(self.solo_discards),
        }

    def check_invariants(self) -> None:  # noqa: C901 - one list of conservation laws
        g = self.game
        n = self.num_players
        size = g.size
        ph = self.phase_id
        who = PHASE_PLAYER[ph]
        assert self.player == (self.to_move if who is None else who), "the current player kept follows the phase"
        # tokens: every token in exactly one place, per colour (spec 2)
        count = [0] * 6
        for toks in self.central:
            assert len(toks) <= 3, "a central space holds at most 3 tokens"
            for c in toks:
                count[c] += 1
        for c in self.taken:
            if c >= 0:
                count[c] += 1
        for p in range(n):
            b = self.boards[p]
            assert all(s == EMPTY for s in b[size:]), "no token outside the board side"
            assert self.sbits[p] == self._count_bits(p), "the stack bitmasks follow the board and cubes"
            assert self.placeable[p] == self._count_placeable(p), "the placeable hexes follow the board and cubes"
            assert self.held[p] == self._count_held(p), "the cards held follow the card places"
            assert self.cbits[p] == self.code_bits(p, self.stack_bits(p)), "the code bitmasks follow the board"
            assert self.targets[p] == [
                self.cube_targets(p, cid, self.cbits[p]) if left else 0 for cid, left in self.places[p]
            ], "cube targets follow the board"
            assert self._points_cache[p][0] == g.board_points_of(self.sbits[p]), "board points follow the board"
            logged = set(self.hex_log[p])
            assert all(h in logged for h in range(HEXES) if self.boards[p][h] or self.cubes[p][h]), "changes logged"
            assert self.kept_points[p] in (None, self._count_points(p)), "the points kept follow the cards and board"
            assert self._card_points[p] in (None, self._count_card_points(p)), "the card points kept follow the cards"
            assert all(not c for c in self.cubes[p][size:]), "no cube outside the board side"
            for s in b:
                for ch in STACKS[s]:
                    count[COLOURS.index(ch)] += 1
        for c in range(6):
            assert self.bag[c] + count[c] + self.discarded[c] == g.bag0[c], f"tokens of colour {COLOURS[c]} conserved"
        # central board: full spaces, except the one being filled or emptied (HA-R20, HA-R33)
        S = len(self.central)
        table = set(self.table_log)
        assert all(s in table for s in range(S) if self.central[s]), "central changes logged"
        assert all(TABLE_DISPLAY + i in table for i, c in enumerate(self.display) if c), "display changes logged"
        assert {TABLE_DECK, TABLE_OFFERS, TABLE_FIRST} <= table, "deck, offers and first player logged"
        for s in range(S):
            k = len(self.central[s])
            if self.filling and s == self.filling[0]:
                assert k < 3, "the space being filled is not full"
            elif s in self.filling:
                assert k == 0, "spaces wait for tokens empty"
            else:
                assert k in (0, 3), "a central space holds 0 or 3 tokens"
                if k == 0 and s != self.taken_from:
                    assert sum(self.bag) < 3 and (self.end_triggered or ph == P_REFILL), (
                        "an empty central space means the bag ran low (HA-R20, HA-R22)"
                    )
        if ph in (P_SETUP, P_REFILL):
            assert self.chance_kind() is not None, "a chance node has something to draw"
            assert self.refill_cards or self.chance_kind() != K_CARD
        else:
            assert not self.filling and not self.refill_cards, "refills happen only at chance nodes"
        if self.filling:
            assert self.filling == list(range(self.filling[0], self.filling[0] + len(self.filling))), "filled in order"
            assert self.central[self.filling[0]] or sum(self.bag) >= 3, "a fill starts with 3 tokens in the bag"
            assert self.solo or len(self.filling) == 1 or ph == P_SETUP, "one space refilled per turn"
            if ph == P_SETUP or self.solo:
                assert self.filling[-1] == S - 1, "spaces filled in order 0, 1, 2 ..."
        # cards: every animal card in exactly one place
        animals: list[int] = list(self.deck) + [c for c in self.display if c] + list(self.solo_discards)
        spirits: list[int] = list(self.spirit_deck) + [c for o in self.offers for c in o]
        spirits += [c for c in self.spirit_discard if c]
        for p in range(n):
            kept = 0
            for cid, left in self.places[p]:
                if cid == 0:
                    assert left == 0, "an empty place holds no cubes"
                    continue
                assert 1 <= left <= g.cards[cid].cubes, "a card in a place has cubes left (HA-R19)"
                (spirits if cid >= 33 else animals).append(cid)
                kept += cid >= 33
            for cid in self.completed[p]:
                (spirits if cid >= 33 else animals).append(cid)
                kept += cid >= 33
            assert kept <= 1, "a seat keeps at most one spirit"
            if g.spirits and ph != P_SETUP:
                assert (kept == 1 and self.spirit_discard[p]) or (
                    kept == 0 and len(self.offers[p]) == 2 and not self.spirit_discard[p]
                ), "a seat holds its 2 offers or has kept one and discarded the other"
            # cubes on the board: as many as placed from each card, on stacks
            on_board: dict[int, int] = {}
            for h in range(size):
                cid = self.cubes[p][h]
                if cid:
                    assert self.boards[p][h] != EMPTY, "a cube lies on a stack"
                    on_board[cid] = on_board.get(cid, 0) + 1
            placed = {cid: g.cards[cid].cubes - left for cid, left in self.places[p] if cid}
            placed.update({cid: g.cards[cid].cubes for cid in self.completed[p]})
            assert {k: v for k, v in placed.items() if v} == on_board, "cubes on the board match the cards"
            assert all(0 < c <= 32 or (g.spirits and c >= 33) for c in on_board)
        assert sorted(animals) == list(data.ANIMAL_IDS), "32 animal cards, each in one place"
        if g.spirits:
            assert sorted(spirits) == list(data.SPIRIT_IDS), "10 spirit cards"
        else:
            assert not spirits, "no spirits without HA-V2"
        if self.solo_discards:
            assert self.solo, "only solo discards display cards"
        # seats and turns
        if ph == P_SETUP:
            assert self.first < 0 and self.to_move == 0 and not any(self.turns), "nothing happens before the start"
            assert not any(any(b) for b in self.boards) and not self.end_triggered
            assert all(not c for pl in self.places for c, _ in pl) and not any(self.completed)
            if g.spirits:
                dealt = [len(o) for o in self.offers]
                k = sum(dealt)
                assert dealt == [min(2, max(0, k - 2 * p)) for p in range(n)], "spirits dealt 2 each in seat order"
                if k:
                    assert not self.filling and all(self.display), "spirits are dealt after the display"
            dealt_cards = [c for c in self.display if c]
            assert self.display[: len(dealt_cards)] == dealt_cards, "the display is dealt slot by slot"
            if dealt_cards:
                assert not self.filling, "the display is dealt after the central board"
            assert self.taken == [-1] * TAKEN and not self.took and not self.took_card and self.taken_from < 0
            assert self.refill_cards
            return
        assert self.first >= 0, "the first player is drawn at setup"
        r = (self.to_move - self.first) % n
        base = self.turns[self.to_move]
        if ph == P_END:
            assert self.end_triggered and all(t == base for t in self.turns), "HA-R23: equal turns at the end"
            assert self.taken == [-1] * TAKEN and not self.took and not self.took_card and self.taken_from < 0
            return
        assert all(self.turns[(self.first + i) % n] == base + (i < r) for i in range(n)), "turns in seat order"
        if ph == P_REFILL:
            assert self.taken == [-1] * TAKEN and not self.took and not self.took_card and self.taken_from < 0
            assert self.refill_cards
            return
        p = self.to_move
        holes = self.display.count(0)
        if self.deck:
            assert holes == int(self.took_card), "the display is refilled between turns (HA-R21)"
        else:
            assert holes >= int(self.took_card)
        if ph == P_CHOOSE_SPIRIT:
            assert g.spirits and len(self.offers[p]) == 2 and self.turns[p] == 0
            assert self.taken == [-1] * TAKEN and not self.took and not self.took_card and self.taken_from < 0
            return
        assert not self.offers[p], "the spirit is chosen before the turn goes on"
        if not self.took:
            assert self.taken == [-1] * TAKEN and self.taken_from < 0, "TAKE comes before placements (HA-R2)"
            assert any(self.central), "HA-R24: with nothing to take the TAKE is skipped"
        elif self.taken_from >= 0:
            assert not self.central[self.taken_from], "the taken space is empty"
        else:
            assert self.taken == [-1] * TAKEN and not any(self.central), "HA-R24: the skipped TAKE takes nothing"
        pending = [c for c in self.taken if c >= 0]
        if pending:
            assert any(self.can_place(p, c) for c in set(pending)), "HA-R12: unplaceable tokens are discarded"
        if ph == P_SOLO_DISCARD:
            assert self.solo and not self.took_card and any(self.display) and self.took and not pending

    def action_to_string(self, a: Any) -> str:
        if self.is_chance_node():
            k = self.chance_kind()
            if k == K_TOKEN:
                return f"draw {COLOURS[a]} token"
            if k == K_CARD:
                return f"deal animal card {a}"
            if k == K_SPIRIT:
                return f"deal spirit card {a}"
            return f"first player {a}"
        geo = self.game.geo
        if a < A_PLACE:
            return f"take space {a}"
        if a < A_CARD:
            t, h = divmod(a - A_PLACE, HEXES)
            c = self.taken[t]
            where = geo.spaces[h] if h < geo.size else h
            return f"place {COLOURS[c] if c >= 0 else '?'} (slot {t}) on {where}"
        if a < A_CUBE:
            return f"take card {self.display[a - A_CARD]} (slot {a - A_CARD})"
        if a < A_END:
            c, h = divmod(a - A_CUBE, HEXES)
            where = geo.spaces[h] if h < geo.size else h
            return f"cube of card {self.places[self.to_move][c][0]} (place {c}) on {where}"
        if a == A_END:
            return "end turn"
        if a < A_DISCARD:
            i = a - A_SPIRIT
            o = self.offers[self.to_move]
            return f"keep spirit {o[i] if i < len(o) else '?'}"
        if a < A_DECLINE:
            return f"discard card {self.display[a - A_DISCARD]} (slot {a - A_DISCARD})"
        return "decline"
