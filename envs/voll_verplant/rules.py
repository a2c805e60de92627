"""Voll verplant / Metro X (``voll_verplant_v0``): the flip-and-write subway game, rules layer.

Each turn one card is revealed (a chance node dealing the next card from the unseen ones, VV-R4),
then every seat commits one action on its own sheet, simultaneously (VV-R10): in the AEC form the
seats commit one after another in seat order as hidden commits (``deciders()``), and nothing of a
commit is visible to the others until the last seat has chosen; ``parallel_env`` asks all of them
in one step. The turn is then resolved in the order of VV-R37.

Action space (Discrete 144, spec section 6): ``7*l + k`` = line ``l`` (0-9), ``k`` crosses (0-6)
for Number and Express cards; ``70 + l`` = line ``l`` for a Transfer card; ``80 + (id - 1)`` =
cross station ``id`` for a Free ride (80 alone means "nothing" on a full sheet).

Chance: the deck is dealt card by card (outcome = card kind index of the deck data, probability
= its share of the unseen cards), so there is no stored deck order to hide.

Version history: v0 first release. Data files moved to ``data/maps/<name>.json`` and
``data/decks/<name>.json`` (issue 12); options ``map``/``deck`` are resolved by core
``resolve_data``: a bare name (lower-case letters, digits, ``_``) is bundled, anything else is a
path, a relative one against the working directory as before (a path without ``.json`` is now a
path too, and a name with other characters is no longer looked up as bundled). Behaviour unchanged.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import CHANCE, TERMINAL, Game, Option, State, as_action
from ..core.schema import Bool, Dict, Int, List, Map, Spec, Str, Tuple
from . import encoder as E
from .data import (EXPRESS, FREE, MAX_LINES, MAX_PLAYERS, MAX_STATIONS, NUMBER, TRANSFER, load_deck,
                         load_map)

NUM_ACTIONS = 144
A_TRANSFER = 70
A_FREE = 80
_RANGES = [[list(range(7 * li, 7 * li + k + 1)) for k in range(7)] for li in range(MAX_LINES)]
W_TRANSFER = 20   # window code of the transfer symbol; express v is 10 + v; number v is v


class VollVerplantGame(Game):
    """Voll verplant (Metro X), 1-6 players; see RULES.md."""

    env_id = "voll_verplant_v0"
    name = "Voll verplant (Metro X)"
    version = 0
    min_players = 1
    max_players = 6
    default_players = 4
    options_spec = {
        "penalty_rounding": Option("floor", "VV-V1: empty stations / 2 rounded down or up",
                                   choices=("floor", "ceil")),
        "allow_short_moves": Option(True, "VV-V2: cross fewer than the card value (official)"),
        "map": Option("metro1", "VV-V3: bundled map name (data/maps/<name>.json) or a path to a map file",
                      type=str),
        "deck": Option("standard", "VV-V3: bundled deck name (data/decks/<name>.json) or a path to a deck file",
                       type=str),
        "observe_opponent_sheets": Option(True, "VV-V4: observations show the other sheets"),
    }
    score_scale = 1.0 / 50.0
    simultaneous = True
    conformance_options = [
        {},
        {"penalty_rounding": "ceil", "allow_short_moves": False, "observe_opponent_sheets": False},
    ]
    num_actions = NUM_ACTIONS
    observation_size = E.OBS_SIZE

    def check_options(self) -> None:
        self.map = load_map(self.options["map"])
        self.deck = load_deck(self.options["deck"])
        m, d = self.map, self.deck
        self.ceil_penalty = self.options["penalty_rounding"] == "ceil"
        self.short_moves = bool(self.options["allow_short_moves"])
        self.observe_others = bool(self.options["observe_opponent_sheets"])
        self.static_header = E.static_header(m)
        self.kind_class = [E.deck_class(t, v) for t, v in zip(d.kind_type, d.kind_value)]
        self._rot = {n: E.rotations(n) for n in range(1, self.max_players + 1)}
        self._hidden = {n: E.hidden_indices(n) for n in range(1, self.max_players + 1)}
        hist = np.zeros(15, dtype=np.float32)
        for k, c in enumerate(d.kind_count):
            hist[self.kind_class[k]] += c * 0.25
            if d.kind_shuffle[k]:
                hist[14] += c * 0.25
        self.full_deck_hist = hist
        # hot-path tables (computed once per Game)
        L = m.num_lines
        self._seg = ([bytes([1] * (k + 1) + [0] * (6 - k)) for k in range(7)] if self.short_moves
                     else [bytes([0] * k + [1] + [0] * (6 - k)) for k in range(7)])  # mask bytes of a line
        self._seg_closed = bytes(7)
        self._num_tail = bytes(NUM_ACTIONS - 7 * L)
        self._tr_head = bytes(A_TRANSFER)
        self._tr_tail = bytes(NUM_ACTIONS - A_TRANSFER - L)
        self._free_head = bytes(A_FREE)
        self._onmap = [1 if m.st_lines[s] else 0 for s in range(MAX_STATIONS)]
        # per value v: mask bytes of a line by its cap (run or unmarked count; -1 = no window left)
        maxlen = max(len(st) for st in m.line_st)
        self._segtab = [[self._seg[min(v, r)] for r in range(maxlen + 1)] + [self._seg_closed]
                        for v in range(7)]
        self._line_len = [len(st) for st in m.line_st]
        self._lp = [tuple((li, 1 << m.line_st[li].index(s)) for li in m.st_lines[s])
                    for s in range(MAX_STATIONS)]   # (line, bit of the station's position on it)
        self._tails = {n: np.zeros((MAX_PLAYERS - n) * E.BLOCK, dtype=np.float32)
                       for n in range(1, self.max_players + 1)}
        self._hide = not self.observe_others
        self._templates: dict[int, VollVerplantState] = {}
        # saved states: the window code each card kind writes (VV-R11/R18; None = free ride, no
        # window), and how long a game can be (free rides between window turns, VV-R21)
        self.kind_code = [None if t == FREE else (W_TRANSFER if t == TRANSFER else (v if t == NUMBER else 10 + v))
                          for t, v in zip(d.kind_type, d.kind_value)]
        self.codes = sorted({c for c in self.kind_code if c is not None})
        self.free_per_cycle = sum(c for c, t in zip(d.kind_count, d.kind_type) if t == FREE)
        # every reshuffle follows a window turn unless a free ride carries the shuffle symbol
        self.free_shuffles = any(sh and t == FREE for sh, t in zip(d.kind_shuffle, d.kind_type))
        W = m.total_windows
        self.max_turn = 10 ** 6 if self.free_shuffles else W + self.free_per_cycle * (W + 1)
        self._schemas: dict[int, Spec] = {}

    # ---------------------------------------------------------------- api
    def new_initial_state(self, num_players: int) -> "VollVerplantState":
        self.check_players(num_players)
        n = int(num_players)
        t = self._templates.get(n)
        if t is None:   # the empty position is the same every game: build it once, clone it
            t = self._templates[n] = VollVerplantState(self, n)
        return t.clone()

    def state_schema(self, num_players: int) -> Spec:
        """Every field of a saved state with the tightest range the map, the deck and the player
        count allow; consistency between fields is ``check_invariants``."""
        sch = self._schemas.get(num_players)
        if sch is not None:
            return sch
        n, m, d = num_players, self.map, self.deck
        L, K = m.num_lines, d.num_kinds
        ids = [s + 1 for s in m.stations]
        station = Int(min(ids), max(ids))
        sch = Dict({
            "turn": Int(0, self.max_turn),
            "card": Int(-1, K - 1),
            "deck": Tuple(*[Int(0, c) for c in d.kind_count]),                   # unseen per kind
            "discard": List(Int(0, K - 1), max_len=d.size),
            "cur": Int(0, n - 1),
            "commits": List(Int(-1, NUM_ACTIONS - 1), length=n),
            "first_gone": List(Bool(), length=L),
            "over": Bool(),
            "marks": List(List(station, max_len=m.num_stations, unique=True, sorted_=True), length=n),
            "nums": List(Map(Str([str(i) for i in ids]), Int(1, max(m.n_lines_through)), max_len=m.num_stations),
                         length=n),
            "wins": List(Tuple(*[List(Int(self.codes[0], self.codes[-1]), max_len=w) for w in m.windows]),
                         length=n),
            "scored": List(List(Int(0, 1 if n == 1 else 2), length=L), length=n),     # VV-R29 solo: first only
            "last_card": Int(-1, K - 1),
            "last_actions": List(Int(0, NUM_ACTIONS - 1), max_len=n),
            "last_completed": List(List(Int(0, L - 1), max_len=L, unique=True, sorted_=True), length=n),
        })
        self._schemas[n] = sch
        return sch

    def _state_from_dict(self, data: dict) -> "VollVerplantState":
        """Build the state from a dict that passed ``state_schema`` (types, ranges and sizes are
        exact); ``check_invariants`` then checks the fields against each other."""
        st = VollVerplantState(self, data["num_players"], _blank=True)
        st._load(data)
        return st

    def observation_layout(self) -> list[tuple[str, int, int]]:
        """Named observation blocks, from encoder.py's offsets (the same for every option set)."""
        return E.layout()

    def renderer(self) -> Callable[[State], np.ndarray]:
        from .render import render_rgb
        return render_rgb

    def heuristic_bot(self, seat: int, seed: int | None = None) -> HeuristicBot:
        from .bot import policy
        return HeuristicBot(policy, seed, name="voll_verplant_heuristic")

    def penalty(self, empty: int) -> int:
        """VV-R34 / VV-V1: empty stations halved, rounded down (default) or up."""
        return (empty + 1) // 2 if self.ceil_penalty else empty // 2


class VollVerplantState(State):
    """One position: the deck, the revealed card, the pending commits and every sheet."""

    def __init__(self, game: VollVerplantGame, num_players: int, _blank: bool = False):
        self.game = game
        self.num_players = n = num_players
        self._mask = None
        if _blank:
            return
        m = game.map
        self.turn = 0
        self.card = -1                                   # revealed card kind, -1 before the reveal
        self.deck = list(game.deck.kind_count)           # unseen cards per kind (VV-R3)
        self.discard: list[int] = []                     # revealed since the last shuffle (VV-R5)
        self.cur = 0                                     # next seat to commit
        self.commits = [-1] * n                          # hidden until the turn resolves (VV-R10)
        self.first_gone = [False] * m.num_lines          # VV-R27/R28
        self.over = False
        # sheets (VV-R1: identical, empty)
        self.marks = [[0] * MAX_STATIONS for _ in range(n)]
        self.nums = [[0] * MAX_STATIONS for _ in range(n)]
        self.wins = [[[] for _ in range(m.num_lines)] for _ in range(n)]
        self.scored = [[0] * m.num_lines for _ in range(n)]   # 0 no, 1 first bonus, 2 other bonus
        self.last_card = -1
        self.last_actions: list[int] = []
        self.last_completed: list[list[int]] = [[] for _ in range(n)]
        self._derive()

    # ------------------------------------------------------- derived data
    def _derive(self) -> None:
        """Rebuild the caches (line stats, points, observation blocks) from the sheets."""
        g, m, n = self.game, self.game.map, self.num_players
        L = m.num_lines
        self.unm = [[0] * L for _ in range(n)]
        self.first = [[0] * L for _ in range(n)]
        self.run = [[0] * L for _ in range(n)]
        self.empty = [0] * n
        self.bonus = [0] * n
        self.tsum = [0] * n
        self.wused = [0] * n
        self._new_buffers()
        for p in range(n):
            mk, blk = self.marks[p], self.blk[p]
            for li in range(L):
                self._line_stat(p, li)
                self.unm[p][li] = sum(1 for s in m.line_st[li] if not mk[s])
            self.empty[p] = sum(1 for s in m.stations if not mk[s])
            for s in m.stations:
                if mk[s]:
                    blk[E.P_MARK + s] = 1.0
                if self.nums[p][s]:
                    blk[E.P_NUM + s] = self.nums[p][s] / 3.0
            self.tsum[p] = sum(self.nums[p])
            for li in range(L):
                blk[E.P_WUSED + li] = len(self.wins[p][li]) / 4.0
                sc = self.scored[p][li]
                if sc == 1:
                    self.bonus[p] += m.bonus_first[li]
                    blk[E.P_FIRST + li] = 1.0
                elif sc == 2:
                    self.bonus[p] += m.bonus_other[li]
                    blk[E.P_OTHER + li] = 1.0
            self.wused[p] = sum(len(w) for w in self.wins[p])
            blk[E.P_SCORE] = (self.bonus[p] + 2 * self.tsum[p]) / 50.0
            blk[E.P_EMPTY] = self.empty[p] / 64.0
            blk[E.P_PRESENT] = 1.0
        self._sync_blocks()
        # hot-path caches: marked positions per line as a bitmask, open lines (a window left),
        # the mask caps (run / unmarked count of an open line, else -1), free-ride stations
        line_st = m.line_st
        self.lm = [[sum(1 << i for i, s in enumerate(line_st[li]) if mk[s]) for li in range(L)]
                   for mk in self.marks]
        self.opn = [[1 if len(self.wins[p][li]) < m.windows[li] else 0 for li in range(L)] for p in range(n)]
        self.capr = [[r if o else -1 for r, o in zip(self.run[p], self.opn[p])] for p in range(n)]
        self.capu = [[u if o else -1 for u, o in zip(self.unm[p], self.opn[p])] for p in range(n)]
        self.freeb = [bytearray(1 if on and not x else 0 for on, x in zip(g._onmap, mk)) for mk in self.marks]
        h = g.static_header.copy()
        self.header = h
        self._header_dynamic()

    def _new_buffers(self, src: "VollVerplantState | None" = None) -> None:
        """The seat blocks live twice in a row in ``_buf`` (rows ``n..2n-1`` repeat rows
        ``0..n-1``), so every seat's rotated view is one contiguous slice of ``_flat``;
        ``blk`` is the first copy. ``_hflat`` is the same with the hidden entries zeroed
        (observe_opponent_sheets off)."""
        n = self.num_players
        self._buf = buf = (np.zeros((2 * n, E.BLOCK), dtype=np.float32) if src is None else src._buf.copy())
        self.blk = buf[:n]
        self._flat = buf.reshape(-1)
        if self.game._hide:
            self._hbuf = (np.zeros((2 * n, E.BLOCK), dtype=np.float32) if src is None else src._hbuf.copy())
            self._hflat = self._hbuf.reshape(-1)

    def _sync_blocks(self) -> None:
        """Refresh the second copy of the blocks (and the hidden view) after ``blk`` changed."""
        buf = self._buf
        n = self.num_players
        buf[n:] = buf[:n]
        if self.game._hide:
            hb = self._hbuf
            hb[...] = buf
            hb[:, E.HIDDEN_IN_BLOCK] = 0.0

    def _header_dynamic(self) -> None:
        g, h = self.game, self.header
        d = g.deck
        h[:E.H_PLAYERS] = 0.0
        if self.card >= 0:
            h[E.H_TYPE + d.kind_type[self.card]] = 1.0
            h[E.H_VALUE] = d.kind_value[self.card] / 6.0
            h[E.H_SHUFFLE] = 1.0 if d.kind_shuffle[self.card] else 0.0
        hist = [0.0] * 15
        kc, ks = g.kind_class, d.kind_shuffle
        for k, c in enumerate(self.deck):
            if c:
                hist[kc[k]] += c * 0.25
                if ks[k]:
                    hist[14] += c * 0.25
        h[E.H_DECK:E.H_DECK + 15] = hist
        h[E.H_PROGRESS] = self.wused[0] / g.map.total_windows
        h[E.H_PLAYERS] = self.num_players / 6.0
        h[E.H_FIRST_GONE:E.H_FIRST_GONE + len(self.first_gone)] = self.first_gone

    def _line_stat(self, p: int, li: int) -> None:
        """First unmarked position and run of unmarked stations from it (VV-R13)."""
        st = self.game.map.line_st[li]
        mk = self.marks[p]
        ln = len(st)
        i = 0
        while i < ln and mk[st[i]]:
            i += 1
        j = i
        while j < ln and not mk[st[j]]:
            j += 1
        self.first[p][li] = i
        self.run[p][li] = j - i

    # ----------------------------------------------------------- core API
    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        if self.card < 0:
            return CHANCE
        return self.cur

    def deciders(self) -> list[int]:
        """The seats still to commit on this card, in commit order (VV-R10)."""
        if self.over or self.card < 0:
            return []
        return list(range(self.cur, self.num_players))

    def phase(self) -> str:
        if self.over:
            return "game_over"
        if self.card < 0:
            return "reveal"
        return ("number", "express", "transfer", "free_ride")[self.game.deck.kind_type[self.card]]

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        total = sum(self.deck)
        return [(k, c / total) for k, c in enumerate(self.deck) if c]

    def sample_chance(self, rng: np.random.Generator) -> int:
        r = int(rng.integers(sum(self.deck)))
        for k, c in enumerate(self.deck):
            if r < c:
                return k
            r -= c
        raise AssertionError("empty deck")  # VV-R7: cannot happen

    def is_legal_chance(self, outcome: Any) -> bool:
        o = as_action(outcome)   # plain, numpy or 0-d array ints; never bools or floats
        return type(o) is int and 0 <= o < len(self.deck) and self.deck[o] > 0

    # The three below are the base class's, with a fast path for plain ints (what the adapter
    # passes). Integer-like actions (numpy ints, 0-d int arrays) go through ``as_action`` as in
    # the base class, chance outcomes included (so only plain ints are ever stored); bools,
    # floats and anything else are illegal and take the base route for the error.
    def legal_mask(self) -> np.ndarray:
        m = self._mask
        if m is None:
            m = np.zeros(NUM_ACTIONS, dtype=np.int8) if self.over or self.card < 0 else self.mask_for(self.cur)
            self._mask = m
        return m

    def is_legal(self, action: Any) -> bool:
        if type(action) is not int:
            action = as_action(action)
            if type(action) is not int:     # bools, floats, arrays, ... (as the base class)
                return False
        if self.over:
            return False
        if self.card < 0:
            return 0 <= action < len(self.deck) and self.deck[action] > 0
        if 0 <= action < NUM_ACTIONS:
            m = self._mask
            if m is None:
                m = self.legal_mask()
            return bool(m[action])
        return False

    def apply_action(self, action: Any) -> None:
        a = action if type(action) is int else as_action(action)
        if type(a) is int and not self.over:
            if self.card < 0:
                if 0 <= a < len(self.deck) and self.deck[a] > 0:
                    self._apply(a)
                    self._mask = None
                    return
            elif 0 <= a < NUM_ACTIONS:
                m = self._mask
                if m is None:
                    m = self.legal_mask()
                if m[a]:
                    p = self.cur                # a hidden commit (VV-R10)
                    self.commits[p] = a
                    self.cur = p + 1
                    if p + 1 == self.num_players:
                        self._resolve()
                    self._mask = None
                    return
        State.apply_action(self, action)        # illegal: raises IllegalActionError, state unchanged

    def _legal_mask(self) -> np.ndarray:
        return self.mask_for(self.cur)

    def mask_for(self, p: int) -> np.ndarray:
        """The legal actions of seat ``p`` on the revealed card (its sheet is not changed by
        the other commits of the same turn, VV-R37 (1)). Built as bytes from per-line
        segments precomputed on the Game and the seat's cached line caps."""
        g = self.game
        card = self.card
        t = g.deck.kind_type[card]
        if t == NUMBER or t == EXPRESS:   # VV-R8, VV-R13 / VV-R17; k = 0..min(v, cap) (VV-V2 off: k = min)
            tab = g._segtab[g.deck.kind_value[card]]
            caps = self.capr[p] if t == NUMBER else self.capu[p]
            data = b"".join([tab[r] for r in caps]) + g._num_tail
        elif t == TRANSFER:   # VV-R8, VV-R18
            data = g._tr_head + bytes(self.opn[p]) + g._tr_tail
        else:   # FREE, VV-R21/R22: the unmarked stations; 80 alone means "nothing" on a full sheet
            fb = self.freeb[p]
            data = g._free_head + (fb if 1 in fb else b"\x01" + fb[1:])
        return np.frombuffer(bytearray(data), dtype=np.int8)

    def _apply(self, a: int) -> None:
        if self.card < 0:   # chance: reveal the top card (VV-R4, VV-R5)
            self.card = a
            self.deck[a] -= 1
            self.discard.append(a)
            self.cur = 0
            g, h = self.game, self.header   # header: the card, one card fewer unseen
            d = g.deck
            h[E.H_TYPE + d.kind_type[a]] = 1.0
            h[E.H_VALUE] = d.kind_value[a] / 6.0
            h[E.H_DECK + g.kind_class[a]] -= 0.25
            if d.kind_shuffle[a]:
                h[E.H_SHUFFLE] = 1.0
                h[E.H_DECK + 14] -= 0.25
            return
        p = self.cur
        self.commits[p] = a
        self.cur = p + 1
        if self.cur == self.num_players:
            self._resolve()

    # -------------------------------------------------------------- turn
    def _resolve(self) -> None:
        """End of turn, VV-R37: actions, completions, bonuses, strikes, reshuffle, end check."""
        g = self.game
        m = g.map
        d = g.deck
        n = self.num_players
        card = self.card
        t = d.kind_type[card]
        v = d.kind_value[card]
        code = W_TRANSFER if t == TRANSFER else (v if t == NUMBER else 10 + v)   # VV-R11, VV-R18
        mv = memoryview(self._flat)     # float32 view of the seat blocks
        B = E.BLOCK
        line_st, line_len, lp, windows = m.line_st, g._line_len, g._lp, m.windows
        commits, marks, wins_all, wused = self.commits, self.marks, self.wins, self.wused
        firsts, runs, unms, lms = self.first, self.run, self.unm, self.lm
        opns, caprs, capus, frees = self.opn, self.capr, self.capu, self.freeb
        completed: list[list[int]] = [[] for _ in range(n)]
        any_done = False
        for p in range(n):              # (1) every action on its own sheet
            a = commits[p]
            mk = marks[p]
            base = p * B
            first = firsts[p]
            crossed: Any = ()
            if t == FREE:               # VV-R21: no window; VV-R22: nothing on a full sheet
                s = a - A_FREE
                if lp[s] and not mk[s]:
                    crossed = (s,)
            else:
                if t == TRANSFER:
                    li = a - A_TRANSFER
                    k = 0
                else:
                    li, k = divmod(a, 7)
                w = wins_all[p][li]
                w.append(code)
                wused[p] += 1
                nw = len(w)
                mv[base + E.P_WUSED + li] = nw * 0.25
                if nw >= windows[li]:   # no window left on this line (VV-R8)
                    opns[p][li] = 0
                    caprs[p][li] = capus[p][li] = -1
                st = line_st[li]
                i = first[li]
                if t == TRANSFER:
                    if i < len(st):                        # VV-R19 (else VV-R20)
                        s = st[i]
                        nl = m.n_lines_through[s]
                        self.nums[p][s] = nl
                        self.tsum[p] += nl
                        mv[base + E.P_NUM + s] = nl / 3.0
                        crossed = (s,)
                elif k:
                    if t == NUMBER:     # VV-R12..R15: k consecutive stations from the first unmarked
                        crossed = st[i:i + k]
                    else:               # VV-R16/R17: the first k unmarked stations, skipping marked ones
                        crossed = []
                        for s in st[i:]:
                            if not mk[s]:
                                crossed.append(s)
                                if len(crossed) == k:
                                    break
            if not crossed:
                continue
            unm, lmp, fb = unms[p], lms[p], frees[p]
            touched = set()
            for s in crossed:           # VV-R23: a station is marked for every line through it
                mk[s] = 1
                fb[s] = 0
                mv[base + s] = 1.0      # P_MARK block starts at 0
                for li, bit in lp[s]:
                    lmp[li] |= bit
                    unm[li] -= 1
                    touched.add(li)
            self.empty[p] -= len(crossed)
            run, opn, capr, capu, scored = runs[p], opns[p], caprs[p], capus[p], self.scored[p]
            for li in touched:          # VV-R13: first unmarked position and the run from it
                x = lmp[li]
                f = (~x & (x + 1)).bit_length() - 1
                y = x >> f
                r = (y & -y).bit_length() - 1 if y else line_len[li] - f
                first[li] = f
                run[li] = r
                u = unm[li]
                if opn[li]:
                    capr[li] = r
                    capu[li] = u
                if u == 0 and scored[li] == 0:    # (2) VV-R25, VV-R26, VV-R38
                    completed[p].append(li)
                    any_done = True
        h = self.header
        if any_done:
            solo = n == 1
            lines_done = set()
            for p in range(n):                      # (3) VV-R27/R28/R29
                done = completed[p]
                if not done:
                    continue
                done.sort()
                base = p * B
                for li in done:
                    if solo or not self.first_gone[li]:
                        self.scored[p][li] = 1
                        self.bonus[p] += m.bonus_first[li]
                        mv[base + E.P_FIRST + li] = 1.0
                    else:
                        self.scored[p][li] = 2
                        self.bonus[p] += m.bonus_other[li]
                        mv[base + E.P_OTHER + li] = 1.0
                    lines_done.add(li)
            for li in lines_done:                   # (4) strike the first bonus for the others
                self.first_gone[li] = True
                h[E.H_FIRST_GONE + li] = 1.0
        bonus, tsum, empty = self.bonus, self.tsum, self.empty
        for p in range(n):
            base = p * B
            mv[base + E.P_SCORE] = (bonus[p] + 2 * tsum[p]) / 50.0
            mv[base + E.P_EMPTY] = empty[p] / 64.0
        mv.release()
        self._sync_blocks()
        self.last_card = card
        self.last_actions = commits
        self.last_completed = completed             # VV-R30: announced
        h[:E.H_DECK] = 0.0                          # no card shown
        if d.kind_shuffle[card]:                    # (5) VV-R6
            self.deck = list(d.kind_count)
            self.discard = []
            h[E.H_DECK:E.H_DECK + 15] = g.full_deck_hist
        self.turn += 1
        self.card = -1
        self.cur = 0
        self.commits = [-1] * n
        if wused[0] == m.total_windows:             # (6) VV-R31
            self.over = True
        h[E.H_PROGRESS] = wused[0] / m.total_windows

    # -------------------------------------------------------- observation
    def observation(self, seat: int) -> np.ndarray:
        n = self.num_players
        g = self.game
        B = E.BLOCK
        if g._hide and n > 1:   # VV-V4 off: the other seats' blocks from the hidden view
            obs = np.concatenate((self.header, self._flat[seat * B:(seat + 1) * B],
                                  self._hflat[(seat + 1) * B:(seat + n) * B], g._tails[n]))
        else:
            obs = np.concatenate((self.header, self._flat[seat * B:(seat + n) * B], g._tails[n]))
        if self.cur == seat and self.card >= 0 and not self.over:
            obs[E.H_DECIDING] = 1.0
        return obs

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> "VollVerplantState":
        """Re-deal what ``seat`` cannot know: the other seats' pending commits of this turn
        (each a uniformly random legal action of that seat). The unseen deck has no stored order
        (cards are dealt one by one at chance nodes). With observe_opponent_sheets=False the
        other sheets are kept as they are (not re-dealt); see RULES.md."""
        st = self.clone()
        for q in range(st.cur if st.card >= 0 and not st.over else 0):
            if q != seat:
                legal = np.flatnonzero(st.mask_for(q))
                st.commits[q] = int(legal[rng.integers(len(legal))])
        return st

    # --------------------------------------------------------------- scores
    def line_points(self, p: int) -> int:
        return self.bonus[p]

    def transfer_points(self, p: int) -> int:
        return 2 * self.tsum[p]                      # VV-R33

    def penalty_points(self, p: int) -> int:
        return self.game.penalty(self.empty[p])      # VV-R34

    def scores(self) -> list[float]:
        """VV-R35: line bonuses + 2 x transfer numbers - halved empty stations (final at the end)."""
        return [float(self.bonus[p] + 2 * self.tsum[p] - self.game.penalty(self.empty[p]))
                for p in range(self.num_players)]

    # ------------------------------------------------------------ strings
    def action_to_string(self, a: Any) -> str:
        m = self.game.map
        a = int(a)
        if a < A_TRANSFER:
            li, k = divmod(a, 7)
            name = m.line_names[li] if li < m.num_lines else f"#{li}"
            kind = ""
            if self.card >= 0 and self.game.deck.kind_type[self.card] == EXPRESS:
                kind = " express"
            return f"line {name}: {k} cross{'es' if k != 1 else ''}{kind}"
        if a < A_FREE:
            li = a - A_TRANSFER
            return f"line {m.line_names[li] if li < m.num_lines else li}: transfer"
        s = a - A_FREE
        if (a == A_FREE and self.card >= 0 and not self.over and 0 <= self.cur < self.num_players
                and all(self.marks[self.cur][x] for x in m.stations)):
            return "free ride: nothing to cross (sheet full)"
        return f"free ride: cross station {s + 1}"

    def _sheet_lines(self, p: int) -> list[str]:
        m = self.game.map
        mk, nums = self.marks[p], self.nums[p]
        out = []
        for li in range(m.num_lines):
            ws = []
            for c in self.wins[p][li]:
                ws.append("*" if c == W_TRANSFER else (f"({c - 10})" if c > 10 else str(c)))
            ws += ["_"] * (m.windows[li] - len(self.wins[p][li]))
            cells = []
            for s in m.line_st[li]:
                if nums[s]:
                    c = f"*{nums[s]}"
                elif mk[s]:
                    c = "X"
                else:
                    c = "."
                cells.append(f"{s + 1}{c}")
            sc = self.scored[p][li]
            tag = "" if not sc else (f"  done +{m.bonus_first[li]} (first)" if sc == 1
                                     else f"  done +{m.bonus_other[li]}")
            gone = "-" if self.first_gone[li] and sc != 1 else " "
            out.append(f"  {m.line_names[li]} {gone}{m.bonus_first[li]}/{m.bonus_other[li]} "
                       f"[{' '.join(ws)}] " + " ".join(cells) + tag)
        return out

    def __str__(self) -> str:
        g = self.game
        d = g.deck
        lines = [f"Voll verplant  map {g.map.name}  turn {self.turn + 1}  phase {self.phase()}"]
        if self.card >= 0:
            lines.append(f"card: {d.card_name(self.card)}")
        lines.append(f"unseen cards: {sum(self.deck)}  revealed since shuffle: "
                     + (", ".join(d.card_name(k) for k in self.discard) or "-"))
        if self.last_card >= 0 and self.last_actions:
            lines.append(f"last turn ({d.card_name(self.last_card)}): "
                         + "; ".join(f"P{p} {self._describe_last(p)}" for p in range(self.num_players)))
        sc = self.scores()
        for p in range(self.num_players):
            flag = ""
            if self.card >= 0 and not self.over:
                flag = "  (has chosen)" if p < self.cur else ("  (to choose)" if p == self.cur else "")
            lines.append(f"Player {p}: {sc[p]:g} points (lines {self.bonus[p]}, transfers "
                         f"{2 * self.tsum[p]}, empty {self.empty[p]} -> -{self.penalty_points(p)}){flag}")
            lines.extend(self._sheet_lines(p))
        if self.over:
            lines.append(f"game over; winners: {', '.join(f'P{w}' for w in self.winners())}")
        return "\n".join(lines)

    def _describe_last(self, p: int) -> str:
        a = self.last_actions[p]
        t = self.game.deck.kind_type[self.last_card]
        m = self.game.map
        if t == FREE:
            s = a - A_FREE
            return f"crossed {s + 1}" if m.st_lines[s] else "nothing"
        if t == TRANSFER:
            return f"transfer on {m.line_names[a - A_TRANSFER]}"
        li, k = divmod(a, 7)
        done = "".join(f" completed {m.line_names[x]}" for x in self.last_completed[p])
        return f"{m.line_names[li]} x{k}{done}"

    # ------------------------------------------------------ serialisation
    def _to_dict(self) -> dict:
        return {
            "turn": self.turn, "card": self.card,
            "deck": list(self.deck), "discard": list(self.discard), "cur": self.cur,
            "commits": list(self.commits), "first_gone": list(self.first_gone), "over": self.over,
            "marks": [[s + 1 for s in range(MAX_STATIONS) if mk[s]] for mk in self.marks],
            "nums": [{str(s + 1): v for s, v in enumerate(nm) if v} for nm in self.nums],
            "wins": [[list(w) for w in ws] for ws in self.wins],
            "scored": [list(x) for x in self.scored],
            "last_card": self.last_card, "last_actions": list(self.last_actions),
            "last_completed": [list(x) for x in self.last_completed],
        }

    def _load(self, d: dict) -> None:
        """Fields from a dict checked by ``state_schema`` (exact types, ranges, sizes); the caches
        and observation blocks are rebuilt from them (``_derive``). Copies only: nothing of the
        caller's dict is kept."""
        n = self.num_players
        self.turn = d["turn"]
        self.card = d["card"]
        self.deck = list(d["deck"])
        self.discard = list(d["discard"])
        self.cur = d["cur"]
        self.commits = list(d["commits"])
        self.first_gone = list(d["first_gone"])
        self.over = d["over"]
        self.marks = [[0] * MAX_STATIONS for _ in range(n)]
        for p, ids in enumerate(d["marks"]):
            for s in ids:
                self.marks[p][s - 1] = 1
        self.nums = [[0] * MAX_STATIONS for _ in range(n)]
        for p, nm in enumerate(d["nums"]):
            for s, v in nm.items():
                self.nums[p][int(s) - 1] = v
        self.wins = [[list(w) for w in ws] for ws in d["wins"]]
        self.scored = [list(x) for x in d["scored"]]
        self.last_card = d["last_card"]
        self.last_actions = list(d["last_actions"])
        self.last_completed = [list(x) for x in d["last_completed"]]
        self._mask = None
        self._derive()

    def clone(self) -> "VollVerplantState":
        c = VollVerplantState(self.game, self.num_players, _blank=True)
        c.turn, c.card, c.cur, c.over = self.turn, self.card, self.cur, self.over
        c.deck = self.deck[:]
        c.discard = self.discard[:]
        c.commits = self.commits[:]
        c.first_gone = self.first_gone[:]
        c.marks = [x[:] for x in self.marks]
        c.nums = [x[:] for x in self.nums]
        c.wins = [[w[:] for w in ws] for ws in self.wins]
        c.scored = [x[:] for x in self.scored]
        c.last_card = self.last_card
        c.last_actions = self.last_actions[:]
        c.last_completed = [x[:] for x in self.last_completed]
        c.unm = [x[:] for x in self.unm]
        c.first = [x[:] for x in self.first]
        c.run = [x[:] for x in self.run]
        c.lm = [x[:] for x in self.lm]
        c.opn = [x[:] for x in self.opn]
        c.capr = [x[:] for x in self.capr]
        c.capu = [x[:] for x in self.capu]
        c.freeb = [bytearray(x) for x in self.freeb]
        c.empty = self.empty[:]
        c.bonus = self.bonus[:]
        c.tsum = self.tsum[:]
        c.wused = self.wused[:]
        c._new_buffers(self)
        c.header = self.header.copy()
        c._mask = self._mask
        return c

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """Every law of a reachable position that loading and play rely on (a saved state is
        refused through these, with the field named first in the message): cards conserved and
        the discard pile consistent with the reveals and reshuffles, the phase fields consistent,
        pending commits legal, the same cards written on every sheet, transfer numbers, completions,
        bonuses and strikes as the rules give them, the last turn's record consistent with its card
        and the sheets, every cache and observation block equal to a fresh rebuild, and (between
        checks of one state) marks only ever added."""
        g = self.game
        m, d = g.map, g.deck
        n, L = self.num_players, m.num_lines
        card, cur, over = self.card, self.cur, self.over
        # --- cards: unseen + revealed since the last shuffle = the whole deck (VV-R3, VV-R5)
        assert len(self.deck) == d.num_kinds, "deck: one count per card kind"
        for k in range(d.num_kinds):
            assert 0 <= self.deck[k] and self.deck[k] + self.discard.count(k) == d.kind_count[k], (
                f"deck/discard: card {d.card_name(k)!r} is not conserved: {self.deck[k]} unseen + "
                f"{self.discard.count(k)} revealed, the deck has {d.kind_count[k]} (VV-R3, VV-R5)")
        # --- phase: reveal (card -1), a card being played, or the end
        assert -1 <= card < d.num_kinds, "card: no such card kind"
        assert 0 <= cur < n, "cur: no such seat"
        if over:
            assert card == -1, "card: a finished game shows no card (VV-R31)"
        if card < 0:
            assert cur == 0, "cur: no seat chooses before the card is revealed"
            resolved = self.discard
        else:
            assert self.discard and self.discard[-1] == card, (
                "discard: the revealed card must be the top of the discard pile (VV-R4, VV-R5)")
            resolved = self.discard[:-1]
        for k in resolved:   # a turn with the shuffle symbol reshuffles the whole deck after it
            assert not d.kind_shuffle[k], (f"discard: {d.card_name(k)!r} was played this deck, so the "
                                           f"deck was reshuffled after it (VV-R6)")
        assert sum(self.deck) > 0 or over or card >= 0, "deck: ran out (VV-R7)"
        # --- commits: earlier seats committed (legal actions), later ones not yet (VV-R10)
        assert len(self.commits) == n, "commits: one per seat"
        assert all(c == -1 for c in self.commits[cur:]), f"commits: seats {cur}.. have not chosen yet"
        for q in range(cur):
            c = self.commits[q]
            assert 0 <= c < NUM_ACTIONS and self.mask_for(q)[c], (
                f"commits[{q}]: {c} is not a legal action of seat {q} on {d.card_name(card)!r} "
                f"(VV-R8, VV-R13, VV-R17, VV-R21)")
        # --- windows: the same cards on every sheet (VV-R4), one window per window card (VV-R8)
        per = []
        for p in range(n):
            assert len(self.wins[p]) == L, f"wins[{p}]: one list per line"
            for li in range(L):
                w = self.wins[p][li]
                assert len(w) <= m.windows[li], f"wins[{p}][{li}]: more windows used than line {m.line_names[li]} has"
                for c in w:
                    assert c in g.codes, (f"wins[{p}][{li}]: {c} is no window code of this deck "
                                          f"(VV-R11, VV-R18; codes {g.codes})")
            per.append(sorted(c for w in self.wins[p] for c in w))
        for p in range(1, n):
            assert per[p] == per[0], (f"wins[{p}]: the sheets hold different cards ({per[p]} vs seat 0's "
                                      f"{per[0]}); every card applies to every sheet (VV-R4)")
        codes = per[0]
        wu = len(codes)
        assert self.wused == [wu] * n, "windows-used cache out of date"
        assert over == (wu == m.total_windows), (
            f"over: {over} but {wu} of {m.total_windows} windows are filled (VV-R31)")
        res_codes = sorted(g.kind_code[k] for k in resolved if g.kind_code[k] is not None)
        res_free = sum(1 for k in resolved if g.kind_code[k] is None)
        left = list(codes)
        for c in res_codes:   # the window cards played since the last shuffle are on the sheets
            assert c in left, f"discard: window code {c} of a played card is on no sheet (VV-R11, VV-R18)"
            left.remove(c)
        # --- turn counter: one turn per window card and per free ride played
        free_turns = self.turn - wu
        assert free_turns >= res_free, (f"turn: {self.turn} turns cannot hold {wu} window turns and "
                                        f"{res_free} free rides since the last shuffle")
        if not g.free_shuffles:   # each earlier deck ended with a window turn (the shuffle card)
            most = g.free_per_cycle * (wu - len(res_codes)) + res_free
            assert free_turns <= most, (f"turn: {self.turn} turns with {wu} windows filled means {free_turns} "
                                        f"free rides; the decks played hold at most {most} (VV-R6, VV-R21)")
        if self.turn == 0:
            assert self.last_card == -1, "last_card: no turn has been played"
        # --- sheets
        ref = self.clone()
        ref._derive()
        solo = n == 1
        for p in range(n):
            mk, nm = self.marks[p], self.nums[p]
            for s in range(MAX_STATIONS):
                assert mk[s] in (0, 1) and (not mk[s] or m.st_lines[s]), f"marks[{p}]: station {s + 1} is not on the map"
                if nm[s]:
                    assert mk[s], f"nums[{p}]: station {s + 1} holds a transfer number but is not marked (VV-R19)"
                    assert nm[s] == m.n_lines_through[s], (
                        f"nums[{p}]: station {s + 1} holds {nm[s]}, but {m.n_lines_through[s]} lines pass "
                        f"through it (VV-R19)")
                    assert any(W_TRANSFER in self.wins[p][li] for li in m.st_lines[s]), (
                        f"nums[{p}]: station {s + 1} holds a transfer number, but no line through it has a "
                        f"transfer window (VV-R18, VV-R19)")
            n_t = sum(1 for w in self.wins[p] for c in w if c == W_TRANSFER)
            assert sum(1 for x in nm if x) <= n_t, (
                f"nums[{p}]: more transfer numbers than transfer windows (VV-R18, VV-R19)")
            for li in range(L):
                assert ref.unm[p][li] == self.unm[p][li] and ref.first[p][li] == self.first[p][li] \
                    and ref.run[p][li] == self.run[p][li], "line cache out of date"
                complete = self.unm[p][li] == 0
                sc = self.scored[p][li]
                assert sc in ((0, 1) if solo else (0, 1, 2)), f"scored[{p}][{li}]: {sc} is no bonus (VV-R29)"
                assert complete == (sc != 0), (
                    f"scored[{p}][{li}]: line {m.line_names[li]} is {'' if complete else 'not '}complete but "
                    f"{'has' if sc else 'has not'} scored (VV-R25, VV-R26)")
            assert self.empty[p] == sum(1 for s in m.stations if not mk[s])
            assert self.bonus[p] == ref.bonus[p] and self.tsum[p] == ref.tsum[p]
            assert self.bonus[p] + 2 * self.tsum[p] - g.penalty(self.empty[p]) == self.scores()[p]
        for li in range(L):   # bonuses and strikes (VV-R27, VV-R28, VV-R37 (4))
            col = [self.scored[p][li] for p in range(n)]
            assert self.first_gone[li] == any(col), (
                f"first_gone[{li}]: the first bonus of line {m.line_names[li]} is struck exactly when someone "
                f"has completed it (VV-R37)")
            if 2 in col:
                assert 1 in col, (f"scored: line {m.line_names[li]} paid its other bonus, but nobody took its "
                                  f"first bonus before (VV-R27, VV-R28)")
        # --- the last turn's record (shown by str(); VV-R30 completions are announced)
        lc, la = self.last_card, self.last_actions
        assert len(self.last_completed) == n, "last_completed: one list per seat"
        if lc < 0:
            assert la == [], "last_card: -1 (no turn played yet) but last_actions are recorded"
            assert all(not x for x in self.last_completed), (
                "last_card: -1 (no turn played yet) but last_completed records completions")
        else:
            assert len(la) == n, f"last_actions: one action per seat, got {len(la)}"
            if d.kind_shuffle[lc]:
                assert not resolved, (f"discard: the last card {d.card_name(lc)!r} reshuffled the deck, "
                                      f"so nothing is played since (VV-R6)")
            else:
                assert resolved and resolved[-1] == lc, (
                    f"last_card: {d.card_name(lc)!r} is not the last card played on the discard pile (VV-R5)")
            t, v, code = d.kind_type[lc], d.kind_value[lc], g.kind_code[lc]
            for p in range(n):
                a = la[p]
                if t == FREE:
                    s = a - A_FREE
                    assert 0 <= s < MAX_STATIONS and (
                        (m.st_lines[s] and self.marks[p][s]) or (a == A_FREE and self.empty[p] == 0)), (
                        f"last_actions[{p}]: {a} is no free ride that left its station marked (VV-R21, VV-R22)")
                    continue
                if t == TRANSFER:
                    li = a - A_TRANSFER
                    ok = 0 <= li < L
                else:
                    li, k = divmod(a, 7)
                    ok = li < L and k <= v and len(m.line_st[li]) - self.unm[p][li] >= k
                assert ok and self.wins[p][li] and self.wins[p][li][-1] == code, (
                    f"last_actions[{p}]: {a} is not what {d.card_name(lc)!r} wrote on that sheet (VV-R8, VV-R11)")
            for li in range(L):   # VV-R27/R28: the completers of one turn all take the same bonus
                who = [p for p in range(n) if li in self.last_completed[p]]
                if not who:
                    continue
                got = {self.scored[p][li] for p in who}
                assert 0 not in got and len(got) == 1, (
                    f"last_completed: line {m.line_names[li]} was completed last turn by seats {who} with "
                    f"bonuses {sorted(got)} (VV-R25, VV-R27, VV-R28)")
                others = [self.scored[q][li] for q in range(n) if q not in who]
                if got == {1}:
                    assert not any(others), (
                        f"last_completed: line {m.line_names[li]} paid its first bonus last turn, but another "
                        f"seat had completed it before (VV-R27, VV-R28)")
                else:
                    assert 1 in others, (
                        f"last_completed: line {m.line_names[li]} paid its other bonus last turn, but nobody "
                        f"had taken its first bonus before (VV-R27, VV-R28)")
        # --- caches and observation blocks: equal to a fresh rebuild from the fields above
        assert np.array_equal(ref.blk, self.blk), "observation blocks out of date"
        assert (ref.lm, ref.opn, ref.capr, ref.capu, ref.freeb) == (
            self.lm, self.opn, self.capr, self.capu, self.freeb), "mask caches out of date"
        assert np.array_equal(self._buf[n:], self.blk), "second copy of the blocks out of date"
        if g._hide:
            assert np.array_equal(ref._hbuf, self._hbuf), "hidden view of the blocks out of date"
        assert np.array_equal(ref.header, self.header), "observation header out of date"
        # marks only ever added (VV-R24): compare with the last checked position of this state
        prev = getattr(self, "_inv_prev", None)
        if prev is not None and prev[0] <= self.turn:
            pm, pn, pw = prev[1:]
            for p in range(n):
                for s in range(MAX_STATIONS):
                    assert self.marks[p][s] >= pm[p][s], f"station {s + 1} unmarked (VV-R24)"
                    assert not pn[p][s] or self.nums[p][s] == pn[p][s], "transfer number changed"
                for li in range(m.num_lines):
                    assert self.wins[p][li][:len(pw[p][li])] == pw[p][li], "window changed"
        self._inv_prev = (self.turn, [x[:] for x in self.marks], [x[:] for x in self.nums],
                          [[w[:] for w in ws] for ws in self.wins])
