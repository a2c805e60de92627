"""Hydropolis (``hydropolis_v0``): all players build one shared pipe network of upright cards.

Rules: ``../shared/rules/hydropolis.md`` (rule IDs HY-R1..R26, variants HY-V1..V5); the users'
version with every choice made here is RULES.md beside this module.

Chance is dealt card by card: every draw (the deal, the start card, each turn's draw) is a chance
node whose outcome is the drawn card *type*, with probability proportional to the copies left in
the draw pile, so the pile never needs a hidden order. The start player is one more chance node.

This module holds the rules only (it imports core and data, never the encoder, bot or renderer;
``__init__.SPEC`` puts them together). A cell's *context* packs what its four neighbours show
towards it into 8 bits (2 bits per side: 0 no card / table edge, 1 NONE, 2 PIPE, 3 CAP); legality
of every (card type, rotation) depends only on that context (HY-R11 to HY-R14), so it is
precomputed once per (deck, table) as :class:`Geometry` (``HydropolisGame.setup``).

Version history:
    v0: first release (before any release: the optional action-feature block).
    v0, one folder shape (issue 12): the deck files moved to ``data/decks/<name>.json`` and the
        ``deck`` option is resolved by core ``resolve_data``: a bare name (lower-case letters,
        digits, ``_``) is a bundled deck, anything else is a path, and a relative path is now
        relative to the current working directory (before: relative to this package's folder, and
        a name could also hold upper-case letters and ``-``, read as ``deck_<name>.json`` beside
        this module). The observation moved to encoder.py (same blocks, same values: the golden
        transcripts are unchanged); play is unchanged.
"""

from __future__ import annotations

import re
from enum import IntEnum
from functools import cache
from typing import Any

import numpy as np

from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State
from ..core.schema import Dict, Int, List, Spec, Str, Tuple
from .data import CAP, NONE, PIPE, Deck, load_deck

START_HAND = 3  # HY-R2
WRENCH_POINTS = 15  # HY-V1
WRENCHES_TO_WIN = 3  # HY-V1
OVERLAY_BONUS = 5  # HY-R19
MIN_SIDE, MAX_SIDE = 3, 31  # HY-V4: table columns and rows


class Phase(IntEnum):
    """Turn phases (saved by name, lower case: ``PHASE_NAMES``)."""

    DEAL = 0
    START_CARD = 1
    START_PLAYER = 2
    PLAY = 3
    PLACE = 4
    DRAW = 5
    OVER = 6


DEAL, START_CARD, START_PLAYER, PLAY, PLACE, DRAW, OVER = Phase  # the hot paths read module names
PHASE_NAMES = tuple(p.name.lower() for p in Phase)


def parse_table_size(value: str) -> tuple[int, int]:
    """``"15x11"`` -> (15, 11); both sides in 3..31 (the start card needs neighbours)."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", value)
    if not m:
        raise ConfigError(f"option table_size={value!r}: expected 'COLSxROWS' such as '15x11'")
    cols, rows = int(m.group(1)), int(m.group(2))
    if not (MIN_SIDE <= cols <= MAX_SIDE and MIN_SIDE <= rows <= MAX_SIDE):
        raise ConfigError(f"option table_size={value!r}: columns and rows must be in {MIN_SIDE}..{MAX_SIDE}")
    return cols, rows


def edges_fit(edges: tuple[int, ...], slots: list[int]) -> bool:
    """Whether a card with ``edges`` (NESW) fits neighbours showing ``slots`` (0 empty, else edge+1).

    HY-R11: PIPE-PIPE and PIPE-CAP fit (and connect), CAP-NONE and NONE-NONE fit, CAP-CAP and
    PIPE-NONE (either way round) do not; HY-R13: an empty side has no constraint; HY-R12: at least
    one connection is needed.
    """
    connected = False
    for d in range(4):
        s = slots[d]
        if s == 0:
            continue
        mine, theirs = edges[d], s - 1
        if mine == CAP and theirs == CAP:
            return False
        if (mine == PIPE and theirs == NONE) or (mine == NONE and theirs == PIPE):
            return False
        if mine != NONE and theirs != NONE:
            connected = True
    return connected


class Geometry:
    """Everything about one (deck, table) pair that never changes during a game (HY-V4): the
    neighbours of every cell, the legality table per context and the connection-points table."""

    def __init__(self, deck: Deck, cols: int, rows: int):
        self.deck = deck
        self.cols, self.rows = cols, rows
        self.num_cells = C = cols * rows
        self.centre = (rows // 2) * cols + cols // 2
        T = deck.num_types
        # orthogonal neighbours NB[c][d] (-1 = table edge, HY-R13) and the 8 cells around (HY-R16)
        nb, nb8 = [], []
        for c in range(C):
            r, q = divmod(c, cols)
            row = []
            for dr, dq in ((-1, 0), (0, 1), (1, 0), (0, -1)):
                rr, qq = r + dr, q + dq
                row.append(rr * cols + qq if 0 <= rr < rows and 0 <= qq < cols else -1)
            nb.append(tuple(row))
            nb8.append(
                tuple(
                    (r + dr) * cols + q + dq
                    for dr in (-1, 0, 1)
                    for dq in (-1, 0, 1)
                    if (dr or dq) and 0 <= r + dr < rows and 0 <= q + dq < cols
                )
            )
        self.nb = tuple(nb)
        self.nb8 = tuple(nb8)
        # legal[ctx, t, r]: HY-R11 (edge compatibility), HY-R12 (a connection), HY-R7 (one action per
        # distinct play: rotation 180 masked for symmetric cards); live[ctx]: a PIPE or CAP faces the cell
        legal = np.zeros((256, T, 2), dtype=bool)
        live = np.zeros(256, dtype=bool)
        for ctx in range(256):
            slots = [(ctx >> (2 * d)) & 3 for d in range(4)]
            live[ctx] = any(s >= 2 for s in slots)
            for t in range(T):
                for rot in range(2):
                    if rot == 1 and deck.symmetric[t]:
                        continue
                    legal[ctx, t, rot] = edges_fit(deck.edges[t][rot], slots)
        self.legal = legal
        self.live = live
        self.live_list = live.tolist()
        # bit (2 t + r) of legal_bits[ctx]: card t in rotation r fits a cell with that context
        self.legal_bits = [
            sum(1 << (2 * t + r) for t in range(T) for r in range(2) if legal[ctx, t, r]) for ctx in range(256)
        ]
        # legal_by_card[2 t + r][ctx]: the same table, read per selected card
        self.legal_by_card = [legal[:, t, r].tolist() for t in range(T) for r in range(2)]
        # slot code (2 bits) each (type, rotation) shows on side d: edge + 1
        self.slot = tuple(tuple(tuple(e + 1 for e in deck.edges[t][rot]) for rot in range(2)) for t in range(T))
        # conn[ctx | colours << 8, t, r]: connection points (HY-R17, HY-R18) of card t in rotation r
        # on a cell whose neighbours show the slot codes ``ctx`` and have the colours ``colours``
        # (bit d set: the neighbour on side d is copper); with the 8-neighbour count (HY-R16) and the
        # overlay bonus (HY-R19) this gives every play's points without a Python loop
        full = np.arange(256 * 16)
        conn = np.zeros((256 * 16, T, 2), dtype=np.int16)
        edge = np.array(deck.edges, dtype=np.int64)  # (T, 2, 4)
        own_col = np.array(deck.colour, dtype=np.int64)[None, :]  # (1, T)
        for d in range(4):
            s = (full >> (2 * d)) & 3  # 0 empty, else their edge + 1
            col = (full >> (8 + d)) & 1
            theirs = (s - 1)[:, None, None]
            mine = edge[None, :, :, d]
            same = (col[:, None] == own_col)[:, :, None]
            pp = (mine == PIPE) & (theirs == PIPE)
            pc = ((mine == PIPE) & (theirs == CAP)) | ((mine == CAP) & (theirs == PIPE))
            conn += np.where(s[:, None, None] == 0, 0, np.where(pp, 2 + same, np.where(pc, same, 0))).astype(np.int16)
        self.conn = conn
        # the same table per card as plain lists, conn_by_card[2 t + r][full context]
        self.conn_by_card = conn.reshape(256 * 16, 2 * T).T.tolist()


@cache
def geometry(deck: Deck, cols: int, rows: int) -> Geometry:
    """The tables of one (deck, table) pair, built once (shared between games: read only)."""
    return Geometry(deck, cols, rows)


class HydropolisGame(Game):
    """Hydropolis under one option set.

    Actions: the spec's two-step factorisation (section 6): first the card, ``type * 2 + rotation``
    (``2 * types`` actions, rotation 1 = 180 degrees), then its cell, ``2 * types + cell``
    (``cells`` actions), plus ``pass`` as the last index: 2 * 31 + 165 + 1 = 228 actions for the
    default deck and 15 x 11 table. A card is only selectable when it has a legal cell, so the
    second step never dead-ends; every distinct play is exactly one (card, cell) pair.
    """

    env_id = "hydropolis_v0"
    name = "Hydropolis"
    version = 0
    min_players = 1  # one player = solo score attack (HY-V5)
    max_players = 6
    default_players = 2
    options_spec = {
        "wrench": Option(False, "HY-V1: 15+ points in one turn earns a wrench; 3 wrenches win at once"),
        "target_score": Option(0, "HY-V2/HY-R22: a total that ends the game at once (0 = none)", type=int),
        "overlay_scoring": Option(
            "bonus_plus_placement",
            "HY-V3: covering a leaky card scores 5 plus placement points, or exactly 5",
            choices=("bonus_plus_placement", "bonus_only"),
        ),
        "table_size": Option("15x11", "HY-V4: table edge, 'COLSxROWS' (3..31 each)", type=str),
        "deck": Option(
            "waterworks_88",
            "HY-V4: deck data, a bundled name (data/decks/<name>.json) or a path "
            "to a .json file (relative to the working directory)",
            type=str,
        ),
        "solo": Option(False, "HY-V5: solo score attack (requires num_players=1; one player is always solo)"),
        "action_features": Option(
            False, "observation ends with the points each legal action scores now (one float per action); slower"
        ),
    }
    score_scale = 0.002
    simultaneous = False
    conformance_options = [
        {},
        {"wrench": True, "target_score": 60},
        {"overlay_scoring": "bonus_only", "table_size": "7x5", "action_features": True},
        {"action_features": True},
    ]

    geo: Geometry
    deck: Deck

    def check_options(self) -> None:
        if self.options["target_score"] < 0:
            raise ConfigError(f"option target_score={self.options['target_score']} must be >= 0 (0 = none)")

    def setup(self) -> None:
        """Load the deck, build the (deck, table) tables and the action layout (HY-V1 to HY-V4)."""
        cols, rows = parse_table_size(self.options["table_size"])
        self.deck = deck = load_deck(self.options["deck"])
        if deck.total < 2:
            raise ConfigError(f"option deck={self.options['deck']!r}: the deck is too small")
        self.geo = geometry(deck, cols, rows)
        self.num_types = T = deck.num_types
        self.num_cells = C = self.geo.num_cells
        self.cell_base = 2 * T
        self.pass_action = 2 * T + C
        self.num_actions = self.pass_action + 1
        self.wrench = bool(self.options["wrench"])
        self.target = int(self.options["target_score"])
        self.bonus_only = self.options["overlay_scoring"] == "bonus_only"
        self.deck_counts = np.array(deck.counts, dtype=np.int16)
        self.leaky = deck.leaky
        self.sound = np.array([not x for x in self.leaky])  # card types that can never be covered
        self.colour = deck.colour

    def check_players(self, num_players: int) -> None:
        super().check_players(num_players)
        if self.options["solo"] and num_players != 1:
            raise ConfigError(f"option solo=True needs num_players=1, got num_players={num_players}")
        if self.deck.total < START_HAND * num_players + 1:
            raise ConfigError(
                f"option deck={self.options['deck']!r} has {self.deck.total} cards, "
                f"too few for num_players={num_players}"
            )

    def new_initial_state(self, num_players: int) -> HydropolisState:
        self.check_players(num_players)
        return HydropolisState(self, int(num_players))

    def max_play_points(self) -> int:
        """The most one play can score: 8 cards around (HY-R16), the best four connections
        (HY-R17/R18) and the overlay bonus (HY-R19; with HY-V3 ``bonus_only`` a cover scores 5)."""
        add = 8 + int(self.geo.conn.max())
        return max(add, OVERLAY_BONUS) if self.bonus_only else add + OVERLAY_BONUS

    def state_schema(self, num_players: int) -> Spec:
        """Saved-state fields and their tightest ranges for ``num_players`` under these options;
        consistency between fields is :meth:`HydropolisState.check_invariants`."""
        n = num_players
        T, C = self.num_types, self.num_cells
        counts = self.deck.counts
        total = self.deck.total
        per_type = Tuple(*(Int(0, k) for k in counts))  # HY-R1: copies per type
        # HY-R9/R10: only leaky cards can ever be covered
        covered = Tuple(*(Int(0, k if self.leaky[t] else 0) for t, k in enumerate(counts)))
        top = self.max_play_points()
        plays = total - 1  # every card but the start card is played at most once
        pile0 = total - START_HAND * n - 1  # the draw pile after the deal and the start card
        max_score = top * plays if not self.target else min(top * plays, self.target - 1 + top)
        wrenches = WRENCHES_TO_WIN if self.wrench else 0
        # turns: every play, every pass that draws, at most n passes with an empty pile per play (+1)
        max_turns = plays + pile0 + n * (plays + 1)
        return Dict(
            {
                "phase": Str(PHASE_NAMES),
                "deal_left": Int(0, START_HAND * n),
                "to_move": Int(0, n - 1),
                "selected": Int(-1, 2 * T - 1),
                "hands": List(per_type, length=n),
                "pile": per_type,
                "cell_type": List(Int(-1, T - 1), length=C),
                "cell_rot": List(Int(0, 1), length=C),
                "covered": covered,
                "scores": List(Int(0, max_score), length=n),
                "wrenches": List(Int(0, wrenches), length=n),
                "passes": Int(0, n),
                "wrench_winner": Int(-1, n - 1 if self.wrench else -1),
                "history": List(
                    Tuple(Int(0, n - 1), Int(-1, T - 1), Int(-1, C - 1), Int(0, 1), Int(0, top)), max_len=max_turns
                ),
            }
        )

    def _state_from_dict(self, data: dict) -> HydropolisState:
        """Build the state from a dict that passed :meth:`state_schema` (types and sizes are exact)."""
        return HydropolisState.from_dict(self, data)

    # ------------------------------------------------------------------ actions
    def card_action(self, t: int, rot: int) -> int:
        """First step: select card type ``t`` in rotation ``rot`` (0, or 1 = 180 degrees)."""
        return 2 * t + rot

    def cell_action(self, cell: int) -> int:
        """Second step: lay the selected card on ``cell`` (index ``row * cols + col``)."""
        return self.cell_base + cell

    def cell_name(self, cell: int) -> str:
        r, c = divmod(cell, self.geo.cols)
        return f"c{c}r{r}"

    def play_name(self, t: int, cell: int, rot: int) -> str:
        return f"{self.deck.type_name(t)} {180 if rot else 0}deg at {self.cell_name(cell)}"


class HydropolisState(State):
    """One Hydropolis position.

    Public: the table (type and rotation per cell), covered cards, scores, wrenches, hand sizes,
    draw pile size, pass counter, the history of turns and the card the player to move selected.
    Private: each hand (counts per type). Hidden: the draw pile (a multiset; draws are chance nodes).
    """

    game: HydropolisGame
    ctx: list[int]
    colctx: list[int]
    n8: list[int]
    cand: set[int]
    on_table: np.ndarray
    hand_bits: list[int]

    def __init__(self, game: HydropolisGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        T, C = game.num_types, game.num_cells
        self.phase_id: Phase = DEAL
        self.deal_left = START_HAND * n  # HY-R2
        self.to_move = 0
        self.selected = -1  # type * 2 + rotation chosen in the first step
        self.hands = np.zeros((n, T), dtype=np.int16)
        self.hand_sizes = [0] * n
        self.pile = list(game.deck.counts)  # HY-R1: the whole deck, shuffled by drawing at random
        self.pile_size = sum(self.pile)
        self.cell_t = [-1] * C  # card type per cell, -1 = empty
        self.cell_r = [0] * C
        self.covered = np.zeros(T, dtype=np.int16)
        self.score = [0] * n
        self.wrenches = [0] * n
        self.passes = 0  # HY-R21 consecutive-pass counter
        self.wrench_winner = -1
        # (seat, type, cell, rotation, points) of every turn; type -1 = a pass
        self.history: list[tuple[int, int, int, int, int]] = []
        self._audit: _Replay | None = None  # check_invariants' replay of all but the last turn
        self._rebuild()

    @classmethod
    def from_dict(cls, game: HydropolisGame, data: dict) -> HydropolisState:
        """Build a state from a dict already checked against ``game.state_schema`` (every saved
        field present, ints in range, lists of the right length); the derived table data are
        rebuilt from the fields. Unlike ``game.state_from_dict`` it does not run
        :meth:`check_invariants` (the caller does), so rule tests can start from positions the
        rules cannot reach."""
        s = cls(game, data["num_players"])
        s.phase_id = Phase(PHASE_NAMES.index(data["phase"]))
        s.deal_left = data["deal_left"]
        s.to_move = data["to_move"]
        s.selected = data["selected"]
        s.hands = np.array(data["hands"], dtype=np.int16)
        s.hand_sizes = s.hands.sum(axis=1).tolist()
        s.pile = list(data["pile"])
        s.pile_size = sum(s.pile)
        s.cell_t = list(data["cell_type"])
        s.cell_r = list(data["cell_rot"])
        s.covered = np.array(data["covered"], dtype=np.int16)
        s.score = list(data["scores"])
        s.wrenches = list(data["wrenches"])
        s.passes = data["passes"]
        s.wrench_winner = data["wrench_winner"]
        s.history = [tuple(h) for h in data["history"]]
        s._rebuild()
        return s

    # ------------------------------------------------------------ derived data
    def _rebuild(self) -> None:
        """Recompute the derived table data (contexts, playable cells, cards per type on the table,
        hand bits) from scratch."""
        g = self.game
        C = g.num_cells
        self.ctx = [0] * C
        self.colctx = [0] * C  # bit d: the neighbour on side d is copper
        nb8 = g.geo.nb8
        self.n8 = n8 = [0] * C  # HY-R16: cards in the 8 cells around each cell
        for c, t in enumerate(self.cell_t):
            if t >= 0:
                for nb in nb8[c]:
                    n8[nb] += 1
        self.cand: set[int] = set()  # HY-R8/R9: the cells a card may be laid on
        self.on_table = np.zeros(g.num_types, dtype=np.int16)
        for c in range(C):
            if self.cell_t[c] >= 0:
                self.on_table[self.cell_t[c]] += 1
                self._place(c, self.cell_t[c], self.cell_r[c], new=False)
        self.hand_bits = [self._bits_of(p) for p in range(self.num_players)]

    def _bits_of(self, p: int) -> int:
        return sum(3 << (2 * t) for t, k in enumerate(self.hands[p].tolist()) if k > 0)

    def _place(self, c: int, t: int, r: int, new: bool = True) -> None:
        """Put card (t, r) on cell c and update the neighbours' contexts incrementally (``new``:
        the cell was empty, so the 8 cells around count one more card)."""
        geo = self.game.geo
        if new and self.cell_t[c] < 0:
            n8 = self.n8
            for nb in geo.nb8[c]:
                n8[nb] += 1
        self.cell_t[c] = t
        self.cell_r[c] = r
        slot = geo.slot[t][r]
        ctx, cand, cell_t, live = self.ctx, self.cand, self.cell_t, geo.live_list
        colctx, copper = self.colctx, self.game.colour[t]
        for d, nb in enumerate(geo.nb[c]):
            if nb < 0:
                continue
            opp = (d + 2) & 3  # the neighbour sees this card on its opposite side
            shift = 2 * opp
            v = (ctx[nb] & ~(3 << shift)) | (slot[d] << shift)
            ctx[nb] = v
            colctx[nb] = (colctx[nb] & ~(1 << opp)) | (copper << opp)
            if cell_t[nb] < 0:  # HY-R8: an empty cell a PIPE or CAP faces
                if live[v]:
                    cand.add(nb)
                else:  # an overlay can close a pipe end
                    cand.discard(nb)
        if self.game.leaky[t]:  # HY-R9/R10: only a leaky card can be covered
            cand.add(c)
        else:
            cand.discard(c)

    def playable(self, seat: int | None = None) -> np.ndarray:
        """bool (cells, types, 2): which card of ``seat``'s hand fits which cell (HY-R7-R15)."""
        g = self.game
        seat = self.to_move if seat is None else seat
        out = np.zeros((g.num_cells, g.num_types, 2), dtype=bool)
        cells = np.array(sorted(self.cand), dtype=np.int64)
        if len(cells):
            ctx = np.array([self.ctx[c] for c in cells], dtype=np.int64)
            out[cells] = g.geo.legal[ctx] & (self.hands[seat] > 0)[None, :, None]
        return out

    # ------------------------------------------------------------------ core API
    def current_player(self) -> int:
        ph = self.phase_id
        if ph == PLAY or ph == PLACE:
            return self.to_move
        if ph == OVER:
            return TERMINAL
        return CHANCE

    def phase(self) -> str:
        return PHASE_NAMES[self.phase_id]

    def _legal_mask(self) -> np.ndarray:
        g = self.game
        m = np.zeros(g.num_actions, dtype=np.int8)
        ctx = self.ctx
        if self.phase_id == PLACE:  # second step: the cells the selected card fits
            ok = g.geo.legal_by_card[self.selected]
            base = g.cell_base
            for c in self.cand:
                if ok[ctx[c]]:
                    m[base + c] = 1
            return m
        lb = g.geo.legal_bits
        bits = 0
        for c in self.cand:  # first step: cards with at least one legal cell
            bits |= lb[ctx[c]]  # HY-R7, R8/R9, R11-R14
        bits &= self.hand_bits[self.to_move]
        if bits:
            while bits:
                low = bits & -bits
                m[low.bit_length() - 1] = 1
                bits ^= low
            return m
        m[-1] = 1  # HY-R3/R5: pass only when nothing else is legal
        return m

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase_id == START_PLAYER:
            n = self.num_players
            return [(s, 1.0 / n) for s in range(n)]
        if self.phase_id in (DEAL, START_CARD, DRAW):
            tot = self.pile_size
            return [(t, int(k) / tot) for t, k in enumerate(self.pile) if k > 0]
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.phase_id == START_PLAYER:
            return int(rng.integers(self.num_players))
        k = int(rng.random() * self.pile_size)
        for t, cnt in enumerate(self.pile):
            k -= cnt
            if k < 0:
                return t
        raise AssertionError("empty draw pile at a draw")  # pragma: no cover

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is not int:  # the base class made integer-likes ints; never bools
            return False
        if self.phase_id == START_PLAYER:
            return 0 <= outcome < self.num_players
        if self.phase_id in (DEAL, START_CARD, DRAW):
            return 0 <= outcome < self.game.num_types and self.pile[outcome] > 0
        return False

    def _apply(self, a: int) -> None:
        ph = self.phase_id
        if ph == PLAY:
            if a == self.game.pass_action:
                self._pass()
            else:
                self.selected = a
                self.phase_id = PLACE
        elif ph == PLACE:
            t, r = divmod(self.selected, 2)
            self.selected = -1
            self._play(t, a - self.game.cell_base, r)
        elif ph == DRAW:  # HY-R4/R5: draw one card, then the next player
            self.pile[a] -= 1
            self.pile_size -= 1
            p = self.to_move
            self.hands[p, a] += 1
            self.hand_bits[p] |= 3 << (2 * a)
            self.hand_sizes[p] += 1
            self.to_move = (p + 1) % self.num_players
            self.phase_id = PLAY
        elif ph == DEAL:  # HY-R2: three cards each, dealt round the table
            n = self.num_players
            seat = (START_HAND * n - self.deal_left) % n
            self.pile[a] -= 1
            self.pile_size -= 1
            self.hands[seat, a] += 1
            self.hand_bits[seat] |= 3 << (2 * a)
            self.hand_sizes[seat] += 1
            self.deal_left -= 1
            if self.deal_left == 0:
                self.phase_id = START_CARD
        elif ph == START_CARD:  # setup 3: top card face up, rotation 0, centre cell
            self.pile[a] -= 1
            self.pile_size -= 1
            self.on_table[a] += 1
            self._place(self.game.geo.centre, a, 0, new=True)
            self.phase_id = START_PLAYER
        elif ph == START_PLAYER:
            self.to_move = a
            self.phase_id = PLAY

    def points(self, t: int, cell: int, rot: int) -> int:
        """Points a play of (t, rot) on ``cell`` scores now (HY-R16 to HY-R19, HY-V3)."""
        return self.play_points(cell, 2 * t + rot)

    def play_points(self, cell: int, tr: int) -> int:
        """:meth:`points` of card ``tr = 2 t + rot`` (the one scoring formula): the cards in the 8
        cells around (``n8``), one
        connection per side from the geometry's table (HY-R17, HY-R18, by the neighbours' facing
        edges and colours), and the overlay bonus (HY-R19, HY-V3)."""
        if self.cell_t[cell] >= 0:  # HY-R19 overlay
            if self.game.bonus_only:
                return OVERLAY_BONUS  # HY-V3 bonus_only
            extra = OVERLAY_BONUS
        else:
            extra = 0
        return self.n8[cell] + self.game.geo.conn_by_card[tr][self.ctx[cell] | self.colctx[cell] << 8] + extra

    def _pass(self) -> None:
        p = self.to_move
        n = self.num_players
        self.history.append((p, -1, -1, 0, 0))  # HY-R20: a pass scores 0
        if self.pile_size > 0:  # HY-R5: pass and draw
            self.passes = 0
            self.phase_id = DRAW
            return
        self.passes += 1  # HY-R6/R21: pass with an empty pile
        if self.passes >= n:
            self.phase_id = OVER
        else:
            self.to_move = (p + 1) % n
            self.phase_id = PLAY

    def _play(self, t: int, cell: int, rot: int) -> None:
        g = self.game
        p = self.to_move
        pts = self.points(t, cell, rot)
        old = self.cell_t[cell]
        if old >= 0:  # HY-R9: the covered card leaves play
            self.covered[old] += 1
            self.on_table[old] -= 1
        self.hands[p, t] -= 1
        if self.hands[p, t] == 0:
            self.hand_bits[p] &= ~(3 << (2 * t))
        self.hand_sizes[p] -= 1
        self.on_table[t] += 1
        self._place(cell, t, rot)
        self.score[p] += pts
        self.passes = 0
        self.history.append((p, t, cell, rot, pts))
        if g.wrench and pts >= WRENCH_POINTS:
            self.wrenches[p] += 1
        # HY-R25: end checks in order: wrenches, target score, (passes: just reset), closed network
        if g.wrench and self.wrenches[p] >= WRENCHES_TO_WIN:
            self.wrench_winner = p
            self.phase_id = OVER
        elif g.target and self.score[p] >= g.target:
            self.phase_id = OVER
        elif not self.cand:  # HY-R26: closed network
            self.phase_id = OVER
        elif self.pile_size > 0:  # HY-R4
            self.phase_id = DRAW
        else:  # HY-R6: play on from the hands
            self.to_move = (p + 1) % self.num_players
            self.phase_id = PLAY

    # ------------------------------------------------------------ information
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> HydropolisState:
        """Re-deal the other hands (same sizes) and the draw pile from the cards ``seat`` has not
        seen. (Passes reveal that a hand had no legal play; the re-deal ignores that, so a re-dealt
        state may give a seat of the current run of passes a playable card, which
        :meth:`check_invariants` refuses (HY-R3): it is a determinization for search, not a position.)"""
        s = self.clone()
        others = [p for p in range(self.num_players) if p != seat]
        if not others:
            return s
        pool = np.array(self.pile, dtype=np.int64)
        for p in others:
            pool = pool + self.hands[p]
        reserved = -1
        if self.selected >= 0 and self.to_move != seat:  # the selected card is public
            reserved = self.selected // 2
            pool[reserved] -= 1
        cards = np.repeat(np.arange(self.game.num_types), pool)
        rng.shuffle(cards)
        i = 0
        T = self.game.num_types
        for p in others:
            k = self.hand_sizes[p] - (p == self.to_move and reserved >= 0)
            s.hands[p] = np.bincount(cards[i : i + k], minlength=T)
            if p == self.to_move and reserved >= 0:
                s.hands[p, reserved] += 1
            s.hand_bits[p] = s._bits_of(p)
            i += k
        s.pile = np.bincount(cards[i:], minlength=T).tolist()
        s._mask = None  # the seat to move may hold other cards
        return s

    def scores(self) -> list[float]:
        return [float(x) for x in self.score]

    def winners(self) -> list[int]:
        if self.wrench_winner >= 0:  # HY-V1: three wrenches win regardless of points
            return [self.wrench_winner]
        best = max(self.score)  # HY-R23: shared win on a tie
        return [i for i, v in enumerate(self.score) if v == best]

    def action_to_string(self, a: Any) -> str:
        g = self.game
        a = int(a)
        ph = self.phase_id
        if ph == START_PLAYER:
            return f"start player {a}"
        if ph in (DEAL, START_CARD, DRAW):
            return f"draw {g.deck.type_name(a)}"
        if a == g.pass_action:
            return "pass"
        if a < g.cell_base:
            t, r = divmod(a, 2)
            return f"select {g.deck.type_name(t)} {180 if r else 0}deg"
        cell = a - g.cell_base
        what = " (cover leaky)" if self.cell_t[cell] >= 0 else ""
        if ph == PLACE:
            t, r = divmod(self.selected, 2)
            return f"lay {g.play_name(t, cell, r)}{what}"
        return f"lay at {g.cell_name(cell)}{what}"

    # ------------------------------------------------------------ copies
    def clone(self) -> HydropolisState:
        s = HydropolisState.__new__(HydropolisState)
        s.__dict__.update(self.__dict__)
        s.hands = self.hands.copy()
        s.hand_sizes = list(self.hand_sizes)
        s.pile = list(self.pile)
        s.cell_t = list(self.cell_t)
        s.cell_r = list(self.cell_r)
        s.covered = self.covered.copy()
        s.score = list(self.score)
        s.wrenches = list(self.wrenches)
        s.history = list(self.history)
        s.ctx = list(self.ctx)
        s.colctx = list(self.colctx)
        s.n8 = list(self.n8)
        s.cand = set(self.cand)
        s.on_table = self.on_table.copy()
        s.hand_bits = list(self.hand_bits)
        s.encoder_cache = None  # a clone starts without one (core.game.State)
        return s

    def _to_dict(self) -> dict:
        return {
            "phase": PHASE_NAMES[self.phase_id],
            "deal_left": self.deal_left,
            "to_move": self.to_move,
            "selected": self.selected,
            "hands": self.hands.tolist(),
            "pile": list(self.pile),
            "cell_type": list(self.cell_t),
            "cell_rot": list(self.cell_r),
            "covered": self.covered.tolist(),
            "scores": list(self.score),
            "wrenches": list(self.wrenches),
            "passes": self.passes,
            "wrench_winner": self.wrench_winner,
            "history": [list(h) for h in self.history],
        }

    def check_invariants(self) -> None:
        """Every field agrees with the others and with a game played by the rules from the deal.

        Saved states are checked with this before they load (each message starts with the saved
        field at fault), and the conformance suite runs it after every action. The turn phases
        replay the history's plays from the start card: each play must have been legal (HY-R7 to
        HY-R14) and scored what the rules give (HY-R16 to HY-R19); the table, the covered cards,
        the scores, wrenches, pile, hand sizes, pass counter and seat to move must be what that
        history leaves, and the game must be over exactly when an end rule says so."""
        g = self.game
        n = self.num_players
        T = g.num_types
        ph = self.phase_id
        # HY-R1: every card of the deck is in exactly one place: hands, pile, table or covered
        table = np.bincount(np.array(self.cell_t, dtype=np.int64) + 1, minlength=T + 1)[1:]
        pile = np.array(self.pile, dtype=np.int64)
        assert self.hands.min() >= 0, "hands: a negative count"
        assert pile.min() >= 0, "pile: a negative count"
        assert self.covered.min() >= 0, "covered: a negative count"
        tot = self.hands.sum(axis=0) + pile + table + self.covered
        bad = np.flatnonzero(tot != g.deck_counts)
        assert not len(bad), (
            f"hands/pile/cell_type/covered: {g.deck.type_name(int(bad[0]))} is there "
            f"{int(tot[bad[0]])} times, the deck has {int(g.deck_counts[bad[0]])} (HY-R1)"
        )
        assert not self.covered[g.sound].any(), "covered: only leaky cards can be covered (HY-R9, HY-R10)"
        assert (table == self.on_table).all(), "cell_type: the table counts are out of date"
        assert self.hand_sizes == self.hands.sum(axis=1).tolist(), "hands: the hand sizes are out of date"
        assert self.pile_size == int(pile.sum()), "pile: the pile size is out of date"
        assert 0 <= self.to_move < n, f"to_move: seat {self.to_move} of {n}"
        if ph in (DEAL, START_CARD, START_PLAYER):
            self._check_setup()
            fresh = self.clone()  # the incremental data equal a fresh rebuild
            fresh._rebuild()
        else:
            assert self.deal_left == 0, (
                f"deal_left: {self.deal_left} cards still to deal in phase {self.phase()!r} (HY-R2)"
            )
            fresh = self._check_turns()  # the table data equal the history's replay
            fresh.hand_bits = [self._bits_of(p) for p in range(n)]
        assert fresh.ctx == self.ctx and fresh.cand == self.cand and fresh.hand_bits == self.hand_bits
        assert fresh.colctx == self.colctx and fresh.n8 == self.n8

    def _replay_turn(self, R: _Replay, i: int, is_last: bool) -> None:
        """Replay turn ``history[i]`` on ``R`` (see :meth:`check_invariants`); ``is_last``: the
        state's phase tells whether its draw is still pending or it ended the game."""
        g = self.game
        ph = self.phase_id
        p, t, c, r, pts = entry = self.history[i]
        rp = R.rp
        if t < 0:  # HY-R5, HY-R21
            R.streak = 0 if R.pile > 0 else R.streak + 1
            R.won = False
            ending = "HY-R21: every seat passed with an empty draw pile" if R.streak == self.num_players else ""
        else:
            tr = 2 * t + r
            assert c in rp.cand and g.geo.legal_by_card[tr][rp.ctx[c]], (
                f"history[{i}]: {g.play_name(t, c, r)} is not a legal play there (HY-R7 to HY-R14)"
            )
            want = rp.play_points(c, tr)
            assert pts == want, f"history[{i}]: the play scored {pts}, the rules give {want} (HY-R16 to HY-R19)"
            rp._place(c, t, r)
            R.played[p] += 1
            R.score[p] += pts
            R.streak = 0
            if g.wrench and pts >= WRENCH_POINTS:
                R.wr[p] += 1
            R.won = won = g.wrench and R.wr[p] >= WRENCHES_TO_WIN
            # HY-R25: the end checks in order
            ending = (
                "HY-V1: three wrenches"
                if won
                else "HY-R22: the target score"
                if g.target and R.score[p] >= g.target
                else "HY-R26: the network is closed"
                if not rp.cand
                else ""
            )
        if ending:
            assert is_last, f"history[{i + 1}]: a turn after the end of the game ({ending})"
            assert ph == OVER, f"phase: {self.phase()!r}, but the last turn ended the game ({ending})"
        elif is_last and ph == OVER:
            raise AssertionError(
                "phase: 'over', but no end rule holds after the last turn (HY-R21, HY-R22, HY-R26, HY-V1)"
            )
        elif R.pile > 0:  # HY-R4, HY-R5: the turn ends with a draw
            if not (is_last and ph == DRAW):
                R.pile -= 1
                R.drawn[p] += 1
        else:
            assert not (is_last and ph == DRAW), "phase: 'draw', but the draw pile was empty (HY-R6)"
        R.k = i + 1
        R.last = entry

    def _check_setup(self) -> None:
        """Setup 1-4 (HY-R1, HY-R2): cards dealt round the table from seat 0, then the start card
        in the centre in rotation 0, then the start player; nothing else has happened."""
        g = self.game
        n = self.num_players
        ph = self.phase_id
        dealt = START_HAND * n - self.deal_left
        assert (self.deal_left > 0) == (ph == DEAL), (
            f"deal_left: {self.deal_left} cards left to deal in phase {self.phase()!r} (HY-R2)"
        )
        want = [dealt // n + (s < dealt % n) for s in range(n)]
        assert self.hand_sizes == want, (
            f"hands: sizes {self.hand_sizes} after {dealt} cards dealt round the table, expected {want} (HY-R2)"
        )
        assert not self.history, f"history: no turn is played before the start player (phase {self.phase()!r})"
        assert self.to_move == 0, f"to_move: {self.to_move} before the start player is drawn (setup 4)"
        on = [c for c, t in enumerate(self.cell_t) if t >= 0]
        assert not any(self.cell_r), "cell_rot: a rotated card before the first turn (setup 3: rotation 0)"
        if ph == START_PLAYER:
            assert on == [g.geo.centre], (
                "cell_type: after setup exactly the start card lies on the table, in the centre"
            )
        else:
            assert not on, f"cell_type: a card on the table before the start card (phase {self.phase()!r})"
        assert not self.covered.any(), "covered: no card is covered before the first turn"
        assert not any(self.score), "scores: points before the first turn"
        assert not any(self.wrenches), "wrenches: wrenches before the first turn"
        assert self.passes == 0, "passes: passes before the first turn"
        assert self.wrench_winner == -1, "wrench_winner: a winner before the first turn"
        assert self.selected == -1, "selected: a selected card before the first turn"

    def _check_turns(self) -> HydropolisState:
        """The turn phases: replay the history from the start card (see :meth:`check_invariants`);
        returns the replay (a bare state with the table data only)."""
        g = self.game
        n = self.num_players
        geo = g.geo
        C = g.num_cells
        ph = self.phase_id
        hist = self.history
        centre = geo.centre
        # the entries: (seat, type, cell, rotation, points), type -1 = a pass; seats in turn order
        for i, (p, t, c, r, pts) in enumerate(hist):
            if i:
                q = hist[i - 1][0]
                assert p == (q + 1) % n, f"history[{i}]: seat {p} plays after seat {q}; play goes round the table"
            if t < 0:
                assert c == -1 and r == 0 and pts == 0, f"history[{i}]: a pass is [seat, -1, -1, 0, 0] (HY-R20)"
            else:
                assert c >= 0, f"history[{i}]: a play of type {t} without a cell"
        # the start card: the centre card if no play covered it, else the one covered card that no
        # overlay of the history accounts for (a card is covered by the next play on its cell)
        laid: dict[int, int] = {}
        cov = np.zeros(g.num_types, dtype=np.int64)
        for _, t, c, _, _ in hist:
            if t >= 0:
                if c in laid:
                    cov[laid[c]] += 1
                laid[c] = t
        extra = self.covered.astype(np.int64) - cov
        if centre in laid:
            assert (extra >= 0).all() and int(extra.sum()) == 1, (
                "covered: not the cards the history's overlays covered plus the start card (HY-R9)"
            )
            start = int(np.flatnonzero(extra)[0])
        else:
            assert not extra.any(), "covered: not the cards the history's overlays covered (HY-R9)"
            start = self.cell_t[centre]
            assert start >= 0 and self.cell_r[centre] == 0, (
                f"cell_type[{centre}]: the start card lies in the centre in rotation 0 (setup 3)"
            )
        # replay the turns from the start card; all but the last turn as they were at the previous
        # check when this state's history only grew since (play appends to it, clones share it)
        L = len(hist)
        cached = self._audit
        valid = (
            cached is not None
            and cached.start == start
            and cached.k <= L - 1
            and (cached.k == 0 or hist[cached.k - 1] is cached.last)
        )
        R = cached.copy() if valid and cached is not None else _Replay(self, start)
        if R.k < L - 1 or not valid:
            for i in range(R.k, L - 1):
                self._replay_turn(R, i, False)
            self._audit = R.copy()
        if L:
            self._replay_turn(R, L - 1, True)
        rp, pile, streak, score, wr, drawn, played = R.rp, R.pile, R.streak, R.score, R.wr, R.drawn, R.played
        won = R.won
        assert hist or ph in (PLAY, PLACE), f"phase: {self.phase()!r} with no turn in the history"
        if rp.cell_t != self.cell_t or rp.cell_r != self.cell_r:
            for c in range(C):
                assert rp.cell_t[c] == self.cell_t[c], (
                    f"cell_type[{c}]: the history's plays leave another card on {g.cell_name(c)}"
                )
                assert rp.cell_r[c] == self.cell_r[c], (
                    f"cell_rot[{c}]: the history's plays leave another rotation on {g.cell_name(c)}"
                )
        assert self.score == score, (
            f"scores: {self.score}, but the history's points add up to {score} (HY-R16 to HY-R20)"
        )
        assert self.wrenches == wr, f"wrenches: {self.wrenches}, but the history's plays earn {wr} (HY-V1)"
        winner = hist[-1][0] if ph == OVER and won else -1
        assert self.wrench_winner == winner, f"wrench_winner: {self.wrench_winner}, expected {winner} (HY-V1)"
        assert self.pile_size == pile, (
            f"pile: {self.pile_size} cards, but the deal, the start card and the "
            f"history's draws leave {pile} (HY-R2, HY-R4, HY-R5)"
        )
        sizes = [START_HAND + drawn[p] - played[p] for p in range(n)]
        assert self.hand_sizes == sizes, (
            f"hands: sizes {self.hand_sizes}, but 3 cards each plus the history's "
            f"draws minus its plays give {sizes} (HY-R2, HY-R4, HY-R5)"
        )
        assert self.passes == streak, (
            f"passes: {self.passes}, but the history ends with {streak} passes made with an empty draw pile (HY-R21)"
        )
        if hist:
            q = hist[-1][0]
            want = q if ph in (DRAW, OVER) else (q + 1) % n
            assert self.to_move == want, (
                f"to_move: seat {self.to_move}, but after the last turn (seat {q}) it is seat {want}"
            )
        # HY-R3/R5: a seat that passed had no legal play, and nothing has changed since for the
        # seats of the current run of passes (and a pass still waiting for its draw)
        lb, ctx = geo.legal_bits, self.ctx
        avail = 0
        for c in self.cand:
            avail |= lb[ctx[c]]
        passers = [h[0] for h in hist[len(hist) - streak :]] if streak else []
        if ph == DRAW and hist[-1][1] < 0:
            passers.append(hist[-1][0])
        for q in passers:
            assert not avail & self.hand_bits[q], f"hands: seat {q} passed but holds a card it can play (HY-R3)"
        if ph == PLACE:  # the second step of a play
            sel = self.selected
            assert sel >= 0, "selected: no card selected in phase 'place'"
            assert self.hands[self.to_move, sel // 2] > 0, f"selected: seat {self.to_move} does not hold that card"
            ok = geo.legal_by_card[sel]
            assert any(ok[ctx[c]] for c in self.cand), "selected: the card fits no cell (HY-R7 to HY-R14)"
        else:
            assert self.selected == -1, f"selected: a selected card in phase {self.phase()!r}"
        return rp


class _Replay:
    """The table and the counters after replaying the first ``k`` turns of a history from the
    start card (:meth:`HydropolisState.check_invariants`); never changed once cached."""

    __slots__ = ("rp", "start", "k", "last", "pile", "streak", "won", "score", "wr", "drawn", "played")

    def __init__(self, state: HydropolisState, start: int):
        g = state.game
        C = g.num_cells
        n = state.num_players
        rp = HydropolisState.__new__(HydropolisState)  # a bare table: what _place and play_points use
        rp.game = g
        rp.cell_t, rp.cell_r = [-1] * C, [0] * C
        rp.ctx, rp.colctx, rp.n8 = [0] * C, [0] * C, [0] * C
        rp.cand = set()
        rp._place(g.geo.centre, start, 0)  # setup 3: the start card
        self.rp, self.start, self.k = rp, start, 0
        self.last: tuple[int, int, int, int, int] | None = None
        self.pile = g.deck.total - START_HAND * n - 1  # HY-R2: after the deal and the start card
        self.streak, self.won = 0, False
        self.score, self.wr, self.drawn, self.played = [0] * n, [0] * n, [0] * n, [0] * n

    def copy(self) -> _Replay:
        o = _Replay.__new__(_Replay)
        src = self.rp
        rp = HydropolisState.__new__(HydropolisState)
        rp.game = src.game
        rp.cell_t, rp.cell_r = list(src.cell_t), list(src.cell_r)
        rp.ctx, rp.colctx, rp.n8 = list(src.ctx), list(src.colctx), list(src.n8)
        rp.cand = set(src.cand)
        o.rp, o.start, o.k, o.last = rp, self.start, self.k, self.last
        o.pile, o.streak, o.won = self.pile, self.streak, self.won
        o.score, o.wr, o.drawn, o.played = list(self.score), list(self.wr), list(self.drawn), list(self.played)
        return o
