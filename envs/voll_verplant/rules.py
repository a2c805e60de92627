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
0.1.0 dev: faster heuristic bot (same decisions): ``bot.policy`` reads the sheet and its potential
once per decision and re-adds only the changed lines' terms per action (behaviour and observations
unchanged; golden identical).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

import numpy as np

from ..core.game import CHANCE, TERMINAL, Game, Option, State
from ..core.schema import Bool, Dict, Int, List, Map, Spec, Str, Tuple
from .data import EXPRESS, FREE, MAX_LINES, MAX_STATIONS, NUMBER, TRANSFER, load_deck, load_map

NUM_ACTIONS = 144
A_TRANSFER = 70
A_FREE = 80
_RANGES = [[list(range(7 * li, 7 * li + k + 1)) for k in range(7)] for li in range(MAX_LINES)]
W_TRANSFER = 20  # window code of the transfer symbol; express v is 10 + v; number v is v
W_EXPRESS = 10
NO_BONUS, FIRST_BONUS, OTHER_BONUS = 0, 1, 2  # scored[p][line] (VV-R27, VV-R28)


class Phase(IntEnum):
    """What a position asks for: a reveal (chance), a commit on the revealed card's type, or nothing."""

    REVEAL = 0
    NUMBER = 1  # NUMBER + card type (data.CardType)
    EXPRESS = 2
    TRANSFER = 3
    FREE_RIDE = 4
    GAME_OVER = 5


def transfer_value(number: int) -> int:
    """VV-R33: transfer numbers score twice their value."""
    return 2 * number


class VollVerplantGame(Game):
    """Voll verplant (Metro X), 1-6 players; see RULES.md."""

    env_id = "voll_verplant_v0"
    name = "Voll verplant (Metro X)"
    version = 0
    min_players = 1
    max_players = 6
    default_players = 4
    options_spec = {
        "penalty_rounding": Option("floor", "VV-V1: empty stations / 2 rounded down or up", choices=("floor", "ceil")),
        "allow_short_moves": Option(True, "VV-V2: cross fewer than the card value (official)"),
        "map": Option("metro1", "VV-V3: bundled map name (data/maps/<name>.json) or a path to a map file", type=str),
        "deck": Option(
            "standard", "VV-V3: bundled deck name (data/decks/<name>.json) or a path to a deck file", type=str
        ),
        "observe_opponent_sheets": Option(True, "VV-V4: observations show the other sheets"),
    }
    score_scale = 1.0 / 50.0
    simultaneous = True
    conformance_options = [
        {},
        {"penalty_rounding": "ceil", "allow_short_moves": False, "observe_opponent_sheets": False},
    ]
    num_actions = NUM_ACTIONS

    def setup(self) -> None:
        self.map = load_map(self.options["map"])
        self.deck = load_deck(self.options["deck"])
        m, d = self.map, self.deck
        self.ceil_penalty = self.options["penalty_rounding"] == "ceil"
        self.short_moves = bool(self.options["allow_short_moves"])
        self.observe_others = bool(self.options["observe_opponent_sheets"])
        # hot-path tables (computed once per Game)
        L = m.num_lines
        self._seg = (
            [bytes([1] * (k + 1) + [0] * (6 - k)) for k in range(7)]
            if self.short_moves
            else [bytes([0] * k + [1] + [0] * (6 - k)) for k in range(7)]
        )  # mask bytes of a line
        self._seg_closed = bytes(7)
        self._num_tail = bytes(NUM_ACTIONS - 7 * L)
        self._tr_head = bytes(A_TRANSFER)
        self._tr_tail = bytes(NUM_ACTIONS - A_TRANSFER - L)
        self._free_head = bytes(A_FREE)
        self._onmap = [1 if m.st_lines[s] else 0 for s in range(MAX_STATIONS)]
        # per value v: mask bytes of a line by its cap (run or unmarked count; -1 = no window left)
        maxlen = max(len(st) for st in m.line_st)
        self._segtab = [[self._seg[min(v, r)] for r in range(maxlen + 1)] + [self._seg_closed] for v in range(7)]
        self._line_len = [len(st) for st in m.line_st]
        self._lp = [
            tuple((li, 1 << m.line_st[li].index(s)) for li in m.st_lines[s]) for s in range(MAX_STATIONS)
        ]  # (line, bit of the station's position on it)
        self._templates: dict[int, VollVerplantState] = {}
        # saved states: the window code each card kind writes (VV-R11/R18; None = free ride, no
        # window), and how long a game can be (free rides between window turns, VV-R21)
        self.kind_code: list[int | None] = [
            None if t == FREE else (W_TRANSFER if t == TRANSFER else (v if t == NUMBER else W_EXPRESS + v))
            for t, v in zip(d.kind_type, d.kind_value)
        ]
        self.codes = sorted({c for c in self.kind_code if c is not None})
        self.free_per_cycle = sum(c for c, t in zip(d.kind_count, d.kind_type) if t == FREE)
        # every reshuffle follows a window turn unless a free ride carries the shuffle symbol
        self.free_shuffles = any(sh and t == FREE for sh, t in zip(d.kind_shuffle, d.kind_type))
        W = m.total_windows
        self.max_turn = 10**6 if self.free_shuffles else W + self.free_per_cycle * (W + 1)
        self._schemas: dict[int, Spec] = {}

    # ---------------------------------------------------------------- api
    def new_initial_state(self, num_players: int) -> VollVerplantState:
        self.check_players(num_players)
        n = int(num_players)
        t = self._templates.get(n)
        if t is None:  # the empty position is the same every game: build it once, clone it
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
        sch = Dict(
            {
                "turn": Int(0, self.max_turn),
                "card": Int(-1, K - 1),
                "deck": Tuple(*[Int(0, c) for c in d.kind_count]),  # unseen per kind
                "discard": List(Int(0, K - 1), max_len=d.size),
                "cur": Int(0, n - 1),
                "commits": List(Int(-1, NUM_ACTIONS - 1), length=n),
                "first_gone": List(Bool(), length=L),
                "over": Bool(),
                "marks": List(List(station, max_len=m.num_stations, unique=True, sorted_=True), length=n),
                "nums": List(
                    Map(Str([str(i) for i in ids]), Int(1, max(m.n_lines_through)), max_len=m.num_stations), length=n
                ),
                "wins": List(
                    Tuple(*[List(Int(self.codes[0], self.codes[-1]), max_len=w) for w in m.windows]), length=n
                ),
                "scored": List(List(Int(0, 1 if n == 1 else 2), length=L), length=n),  # VV-R29 solo: first only
                "last_card": Int(-1, K - 1),
                "last_actions": List(Int(0, NUM_ACTIONS - 1), max_len=n),
                "last_completed": List(List(Int(0, L - 1), max_len=L, unique=True, sorted_=True), length=n),
            }
        )
        self._schemas[n] = sch
        return sch

    def _state_from_dict(self, data: dict) -> VollVerplantState:
        """Build the state from a dict that passed ``state_schema`` (types, ranges and sizes are
        exact); ``check_invariants`` then checks the fields against each other."""
        st = VollVerplantState(self, data["num_players"], _blank=True)
        st._load(data)
        return st

    def penalty(self, empty: int) -> int:
        """VV-R34 / VV-V1: empty stations halved, rounded down (default) or up."""
        return (empty + 1) // 2 if self.ceil_penalty else empty // 2


class VollVerplantState(State):
    """One position: the deck, the revealed card, the pending commits and every sheet."""

    game: VollVerplantGame

    def __init__(self, game: VollVerplantGame, num_players: int, _blank: bool = False):
        self.game = game
        self.num_players = n = num_players
        self._mask = None
        if _blank:
            return
        m = game.map
        self.turn = 0
        self.card = -1  # revealed card kind, -1 before the reveal
        self.deck = list(game.deck.kind_count)  # unseen cards per kind (VV-R3)
        self.discard: list[int] = []  # revealed since the last shuffle (VV-R5)
        self.cur = 0  # next seat to commit
        self.commits = [-1] * n  # hidden until the turn resolves (VV-R10)
        self.first_gone = [False] * m.num_lines  # VV-R27/R28
        self.over = False
        # sheets (VV-R1: identical, empty)
        self.marks = [[0] * MAX_STATIONS for _ in range(n)]
        self.nums = [[0] * MAX_STATIONS for _ in range(n)]
        self.wins: list[list[list[int]]] = [[[] for _ in range(m.num_lines)] for _ in range(n)]
        self.scored = [[0] * m.num_lines for _ in range(n)]  # 0 no, 1 first bonus, 2 other bonus
        self.last_card = -1
        self.last_actions: list[int] = []
        self.last_completed: list[list[int]] = [[] for _ in range(n)]
        self._derive()

    # ------------------------------------------------------- derived data
    def _derive(self) -> None:
        """Rebuild the caches (line stats, points, mask caches) from the sheets."""
        g, m, n = self.game, self.game.map, self.num_players
        L = m.num_lines
        self.unm = [[0] * L for _ in range(n)]
        self.first = [[0] * L for _ in range(n)]
        self.run = [[0] * L for _ in range(n)]
        self.empty = [0] * n
        self.bonus = [0] * n
        self.tsum = [0] * n
        self.wused = [0] * n
        for p in range(n):
            mk = self.marks[p]
            for li in range(L):
                self._line_stat(p, li)
                self.unm[p][li] = sum(1 for s in m.line_st[li] if not mk[s])
            self.empty[p] = sum(1 for s in m.stations if not mk[s])
            self.tsum[p] = sum(self.nums[p])
            for li in range(L):
                sc = self.scored[p][li]
                if sc == FIRST_BONUS:
                    self.bonus[p] += m.bonus_first[li]
                elif sc == OTHER_BONUS:
                    self.bonus[p] += m.bonus_other[li]
            self.wused[p] = sum(len(w) for w in self.wins[p])
        # hot-path caches: marked positions per line as a bitmask, open lines (a window left),
        # the mask caps (run / unmarked count of an open line, else -1), free-ride stations
        line_st = m.line_st
        self.lm = [[sum(1 << i for i, s in enumerate(line_st[li]) if mk[s]) for li in range(L)] for mk in self.marks]
        self.opn = [[1 if len(self.wins[p][li]) < m.windows[li] else 0 for li in range(L)] for p in range(n)]
        self.capr = [[r if o else -1 for r, o in zip(self.run[p], self.opn[p])] for p in range(n)]
        self.capu = [[u if o else -1 for u, o in zip(self.unm[p], self.opn[p])] for p in range(n)]
        self.freeb = [bytearray(1 if on and not x else 0 for on, x in zip(g._onmap, mk)) for mk in self.marks]

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

    def phase_id(self) -> Phase:
        """The decision this position asks for (derived from ``over`` and ``card``; not saved)."""
        if self.over:
            return Phase.GAME_OVER
        if self.card < 0:
            return Phase.REVEAL
        return Phase(Phase.NUMBER + self.game.deck.kind_type[self.card])

    def phase(self) -> str:
        return self.phase_id().name.lower()

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
        # the base class has normalised integer-like outcomes (as_action); bools, floats, ... stay
        return type(outcome) is int and 0 <= outcome < len(self.deck) and self.deck[outcome] > 0

    def mask_for(self, p: int | None = None) -> np.ndarray:
        """The legal actions of seat ``p`` (default: the seat to commit) on the revealed card (its
        sheet is not changed by the other commits of the same turn, VV-R37 (1)). Built as bytes
        from per-line segments precomputed on the Game and the seat's cached line caps."""
        if p is None:
            p = self.cur
        g = self.game
        card = self.card
        t = g.deck.kind_type[card]
        if t == NUMBER or t == EXPRESS:  # VV-R8, VV-R13 / VV-R17; k = 0..min(v, cap) (VV-V2 off: k = min)
            tab = g._segtab[g.deck.kind_value[card]]
            caps = self.capr[p] if t == NUMBER else self.capu[p]
            data = b"".join([tab[r] for r in caps]) + g._num_tail
        elif t == TRANSFER:  # VV-R8, VV-R18
            data = g._tr_head + bytes(self.opn[p]) + g._tr_tail
        else:  # FREE, VV-R21/R22: the unmarked stations; 80 alone means "nothing" on a full sheet
            fb = self.freeb[p]
            data = g._free_head + (fb if 1 in fb else b"\x01" + fb[1:])
        return np.frombuffer(bytearray(data), dtype=np.int8)

    _legal_mask = mask_for  # the base class's hook: the seat to commit

    def _apply(self, a: int) -> None:
        if self.card < 0:  # chance: reveal the top card (VV-R4, VV-R5)
            self.card = a
            self.deck[a] -= 1
            self.discard.append(a)
            self.cur = 0
            return
        p = self.cur  # a hidden commit (VV-R10)
        self.commits[p] = a
        self.cur = p + 1
        if p + 1 == self.num_players:
            self._resolve()

    # -------------------------------------------------------------- turn
    def _resolve(self) -> None:
        """End of turn, VV-R37: (1) every action on its own sheet, (2) completions, (3) bonuses,
        (4) strikes, (5) reshuffle, (6) end check."""
        g = self.game
        d = g.deck
        n = self.num_players
        card = self.card
        t, code = d.kind_type[card], g.kind_code[card]
        commits = self.commits
        completed = [self._play(p, t, code, commits[p]) for p in range(n)]  # (1), (2)
        if any(completed):
            self._award(completed)  # (3), (4)
        self.last_card = card
        self.last_actions = commits
        self.last_completed = completed  # VV-R30: announced
        if d.kind_shuffle[card]:  # (5) VV-R6
            self.deck = list(d.kind_count)
            self.discard = []
        self.turn += 1
        self.card = -1
        self.cur = 0
        self.commits = [-1] * n
        if self.wused[0] == g.map.total_windows:  # (6) VV-R31
            self.over = True

    def _play(self, p: int, t: int, code: Any, a: int) -> list[int]:
        """Seat ``p``'s action ``a`` on a card of type ``t`` (window code ``code``, VV-R11/R18):
        the window it fills and the stations it crosses; returns the lines it completes."""
        if t == FREE:  # VV-R21: no window; VV-R22: nothing on a full sheet
            s = a - A_FREE
            if self.game._lp[s] and not self.marks[p][s]:
                return self._cross(p, (s,))
            return []
        if t == TRANSFER:
            li, k = a - A_TRANSFER, 0
        else:
            li, k = divmod(a, 7)
        w = self.wins[p][li]  # VV-R8, VV-R11, VV-R18: the card in the line's next window
        w.append(code)
        self.wused[p] += 1
        if len(w) >= self.game.map.windows[li]:  # no window left on this line (VV-R8)
            self.opn[p][li] = 0
            self.capr[p][li] = self.capu[p][li] = -1
        if t == TRANSFER:
            return self._transfer(p, li)
        if not k:
            return []
        if t == NUMBER:  # VV-R12..R15: k consecutive stations from the first unmarked
            i = self.first[p][li]
            return self._cross(p, self.game.map.line_st[li][i : i + k])
        return self._cross(p, self._express_stations(p, li, k))

    def _express_stations(self, p: int, li: int, k: int) -> list[int]:
        """VV-R16/R17: the first k unmarked stations, skipping marked ones."""
        mk = self.marks[p]
        crossed = []
        for s in self.game.map.line_st[li][self.first[p][li] :]:
            if not mk[s]:
                crossed.append(s)
                if len(crossed) == k:
                    break
        return crossed

    def _transfer(self, p: int, li: int) -> list[int]:
        """VV-R19: the first unmarked station gets the number of lines through it (VV-R20: none
        left, nothing written)."""
        st = self.game.map.line_st[li]
        i = self.first[p][li]
        if i >= len(st):
            return []
        s = st[i]
        nl = self.game.map.n_lines_through[s]
        self.nums[p][s] = nl
        self.tsum[p] += nl
        return self._cross(p, (s,))

    def _cross(self, p: int, crossed: Any) -> list[int]:
        """VV-R23: mark the stations for every line through them; VV-R13 line stats; returns the
        lines this completes (VV-R25, VV-R26, VV-R38)."""
        g = self.game
        lp, line_len = g._lp, g._line_len
        mk, unm, lmp, fb = self.marks[p], self.unm[p], self.lm[p], self.freeb[p]
        touched = set()
        for s in crossed:
            mk[s] = 1
            fb[s] = 0
            for li, bit in lp[s]:
                lmp[li] |= bit
                unm[li] -= 1
                touched.add(li)
        self.empty[p] -= len(crossed)
        first, run, opn, capr, capu, scored = (
            self.first[p],
            self.run[p],
            self.opn[p],
            self.capr[p],
            self.capu[p],
            self.scored[p],
        )
        done = []
        for li in touched:  # VV-R13: first unmarked position and the run from it
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
            if u == 0 and scored[li] == NO_BONUS:
                done.append(li)
        done.sort()
        return done

    def _award(self, completed: list[list[int]]) -> None:
        """VV-R27/R28/R29: the first bonus to every seat completing a line nobody had completed
        before (solo: always), the other bonus otherwise; then the first bonus is struck (VV-R37 (4))."""
        m = self.game.map
        solo = self.num_players == 1
        lines_done = set()
        for p, done in enumerate(completed):
            for li in done:
                if solo or not self.first_gone[li]:
                    self.scored[p][li] = FIRST_BONUS
                    self.bonus[p] += m.bonus_first[li]
                else:
                    self.scored[p][li] = OTHER_BONUS
                    self.bonus[p] += m.bonus_other[li]
                lines_done.add(li)
        for li in lines_done:
            self.first_gone[li] = True

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> VollVerplantState:
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
        return transfer_value(self.tsum[p])  # VV-R33

    def penalty_points(self, p: int) -> int:
        return self.game.penalty(self.empty[p])  # VV-R34

    def scores(self) -> list[float]:
        """VV-R35: line bonuses + 2 x transfer numbers - halved empty stations (final at the end)."""
        return [
            float(self.line_points(p) + self.transfer_points(p) - self.penalty_points(p))
            for p in range(self.num_players)
        ]

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
        if (
            a == A_FREE
            and self.card >= 0
            and not self.over
            and 0 <= self.cur < self.num_players
            and all(self.marks[self.cur][x] for x in m.stations)
        ):
            return "free ride: nothing to cross (sheet full)"
        return f"free ride: cross station {s + 1}"

    # ------------------------------------------------------ serialisation
    def _to_dict(self) -> dict:
        return {
            "turn": self.turn,
            "card": self.card,
            "deck": list(self.deck),
            "discard": list(self.discard),
            "cur": self.cur,
            "commits": list(self.commits),
            "first_gone": list(self.first_gone),
            "over": self.over,
            "marks": [[s + 1 for s in range(MAX_STATIONS) if mk[s]] for mk in self.marks],
            "nums": [{str(s + 1): v for s, v in enumerate(nm) if v} for nm in self.nums],
            "wins": [[list(w) for w in ws] for ws in self.wins],
            "scored": [list(x) for x in self.scored],
            "last_card": self.last_card,
            "last_actions": list(self.last_actions),
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

    def clone(self) -> VollVerplantState:
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
        c._mask = self._mask
        return c

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """Every law of a reachable position that loading and play rely on (a saved state is
        refused through these, with the field named first in the message): cards conserved and
        the discard pile consistent with the reveals and reshuffles, the phase fields consistent,
        pending commits legal, the same cards written on every sheet, transfer numbers, completions,
        bonuses and strikes as the rules give them, the last turn's record consistent with its card
        and the sheets, every cache equal to a fresh rebuild, and (between
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
                f"{self.discard.count(k)} revealed, the deck has {d.kind_count[k]} (VV-R3, VV-R5)"
            )
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
                "discard: the revealed card must be the top of the discard pile (VV-R4, VV-R5)"
            )
            resolved = self.discard[:-1]
        for k in resolved:  # a turn with the shuffle symbol reshuffles the whole deck after it
            assert not d.kind_shuffle[k], (
                f"discard: {d.card_name(k)!r} was played this deck, so the deck was reshuffled after it (VV-R6)"
            )
        assert sum(self.deck) > 0 or over or card >= 0, "deck: ran out (VV-R7)"
        # --- commits: earlier seats committed (legal actions), later ones not yet (VV-R10)
        assert len(self.commits) == n, "commits: one per seat"
        assert all(c == -1 for c in self.commits[cur:]), f"commits: seats {cur}.. have not chosen yet"
        for q in range(cur):
            c = self.commits[q]
            assert 0 <= c < NUM_ACTIONS and self.mask_for(q)[c], (
                f"commits[{q}]: {c} is not a legal action of seat {q} on {d.card_name(card)!r} "
                f"(VV-R8, VV-R13, VV-R17, VV-R21)"
            )
        # --- windows: the same cards on every sheet (VV-R4), one window per window card (VV-R8)
        per = []
        for p in range(n):
            assert len(self.wins[p]) == L, f"wins[{p}]: one list per line"
            for li in range(L):
                w = self.wins[p][li]
                assert len(w) <= m.windows[li], f"wins[{p}][{li}]: more windows used than line {m.line_names[li]} has"
                for c in w:
                    assert c in g.codes, (
                        f"wins[{p}][{li}]: {c} is no window code of this deck (VV-R11, VV-R18; codes {g.codes})"
                    )
            per.append(sorted(c for w in self.wins[p] for c in w))
        for p in range(1, n):
            assert per[p] == per[0], (
                f"wins[{p}]: the sheets hold different cards ({per[p]} vs seat 0's "
                f"{per[0]}); every card applies to every sheet (VV-R4)"
            )
        codes = per[0]
        wu = len(codes)
        assert self.wused == [wu] * n, "windows-used cache out of date"
        assert over == (wu == m.total_windows), (
            f"over: {over} but {wu} of {m.total_windows} windows are filled (VV-R31)"
        )
        res_codes = sorted(c for c in (g.kind_code[k] for k in resolved) if c is not None)
        res_free = sum(1 for k in resolved if g.kind_code[k] is None)
        left = list(codes)
        for c in res_codes:  # the window cards played since the last shuffle are on the sheets
            assert c in left, f"discard: window code {c} of a played card is on no sheet (VV-R11, VV-R18)"
            left.remove(c)
        # --- turn counter: one turn per window card and per free ride played
        free_turns = self.turn - wu
        assert free_turns >= res_free, (
            f"turn: {self.turn} turns cannot hold {wu} window turns and {res_free} free rides since the last shuffle"
        )
        if not g.free_shuffles:  # each earlier deck ended with a window turn (the shuffle card)
            most = g.free_per_cycle * (wu - len(res_codes)) + res_free
            assert free_turns <= most, (
                f"turn: {self.turn} turns with {wu} windows filled means {free_turns} "
                f"free rides; the decks played hold at most {most} (VV-R6, VV-R21)"
            )
        if self.turn == 0:
            assert self.last_card == -1, "last_card: no turn has been played"
        # --- sheets
        ref = self.clone()
        ref._derive()
        solo = n == 1
        for p in range(n):
            mk, nm = self.marks[p], self.nums[p]
            for s in range(MAX_STATIONS):
                assert mk[s] in (0, 1) and (not mk[s] or m.st_lines[s]), (
                    f"marks[{p}]: station {s + 1} is not on the map"
                )
                if nm[s]:
                    assert mk[s], f"nums[{p}]: station {s + 1} holds a transfer number but is not marked (VV-R19)"
                    assert nm[s] == m.n_lines_through[s], (
                        f"nums[{p}]: station {s + 1} holds {nm[s]}, but {m.n_lines_through[s]} lines pass "
                        f"through it (VV-R19)"
                    )
                    assert any(W_TRANSFER in self.wins[p][li] for li in m.st_lines[s]), (
                        f"nums[{p}]: station {s + 1} holds a transfer number, but no line through it has a "
                        f"transfer window (VV-R18, VV-R19)"
                    )
            n_t = sum(1 for w in self.wins[p] for c in w if c == W_TRANSFER)
            assert sum(1 for x in nm if x) <= n_t, (
                f"nums[{p}]: more transfer numbers than transfer windows (VV-R18, VV-R19)"
            )
            for li in range(L):
                assert (
                    ref.unm[p][li] == self.unm[p][li]
                    and ref.first[p][li] == self.first[p][li]
                    and ref.run[p][li] == self.run[p][li]
                ), "line cache out of date"
                complete = self.unm[p][li] == 0
                sc = self.scored[p][li]
                assert sc in ((0, 1) if solo else (0, 1, 2)), f"scored[{p}][{li}]: {sc} is no bonus (VV-R29)"
                assert complete == (sc != 0), (
                    f"scored[{p}][{li}]: line {m.line_names[li]} is {'' if complete else 'not '}complete but "
                    f"{'has' if sc else 'has not'} scored (VV-R25, VV-R26)"
                )
            assert self.empty[p] == sum(1 for s in m.stations if not mk[s])
            assert self.bonus[p] == ref.bonus[p] and self.tsum[p] == ref.tsum[p]
        for li in range(L):  # bonuses and strikes (VV-R27, VV-R28, VV-R37 (4))
            col = [self.scored[p][li] for p in range(n)]
            assert self.first_gone[li] == any(col), (
                f"first_gone[{li}]: the first bonus of line {m.line_names[li]} is struck exactly when someone "
                f"has completed it (VV-R37)"
            )
            if 2 in col:
                assert 1 in col, (
                    f"scored: line {m.line_names[li]} paid its other bonus, but nobody took its "
                    f"first bonus before (VV-R27, VV-R28)"
                )
        # --- the last turn's record (shown by str(); VV-R30 completions are announced)
        lc, la = self.last_card, self.last_actions
        assert len(self.last_completed) == n, "last_completed: one list per seat"
        if lc < 0:
            assert la == [], "last_card: -1 (no turn played yet) but last_actions are recorded"
            assert all(not x for x in self.last_completed), (
                "last_card: -1 (no turn played yet) but last_completed records completions"
            )
        else:
            assert len(la) == n, f"last_actions: one action per seat, got {len(la)}"
            if d.kind_shuffle[lc]:
                assert not resolved, (
                    f"discard: the last card {d.card_name(lc)!r} reshuffled the deck, "
                    f"so nothing is played since (VV-R6)"
                )
            else:
                assert resolved and resolved[-1] == lc, (
                    f"last_card: {d.card_name(lc)!r} is not the last card played on the discard pile (VV-R5)"
                )
            t, v, code = d.kind_type[lc], d.kind_value[lc], g.kind_code[lc]
            for p in range(n):
                a = la[p]
                if t == FREE:
                    s = a - A_FREE
                    assert 0 <= s < MAX_STATIONS and (
                        (m.st_lines[s] and self.marks[p][s]) or (a == A_FREE and self.empty[p] == 0)
                    ), f"last_actions[{p}]: {a} is no free ride that left its station marked (VV-R21, VV-R22)"
                    continue
                if t == TRANSFER:
                    li = a - A_TRANSFER
                    ok = 0 <= li < L
                else:
                    li, k = divmod(a, 7)
                    ok = li < L and k <= v and len(m.line_st[li]) - self.unm[p][li] >= k
                assert ok and self.wins[p][li] and self.wins[p][li][-1] == code, (
                    f"last_actions[{p}]: {a} is not what {d.card_name(lc)!r} wrote on that sheet (VV-R8, VV-R11)"
                )
            for li in range(L):  # VV-R27/R28: the completers of one turn all take the same bonus
                who = [p for p in range(n) if li in self.last_completed[p]]
                if not who:
                    continue
                got = {self.scored[p][li] for p in who}
                assert 0 not in got and len(got) == 1, (
                    f"last_completed: line {m.line_names[li]} was completed last turn by seats {who} with "
                    f"bonuses {sorted(got)} (VV-R25, VV-R27, VV-R28)"
                )
                others = [self.scored[q][li] for q in range(n) if q not in who]
                if got == {1}:
                    assert not any(others), (
                        f"last_completed: line {m.line_names[li]} paid its first bonus last turn, but another "
                        f"seat had completed it before (VV-R27, VV-R28)"
                    )
                else:
                    assert 1 in others, (
                        f"last_completed: line {m.line_names[li]} paid its other bonus last turn, but nobody "
                        f"had taken its first bonus before (VV-R27, VV-R28)"
                    )
        # --- caches: equal to a fresh rebuild from the fields above
        assert (ref.lm, ref.opn, ref.capr, ref.capu, ref.freeb) == (
            self.lm,
            self.opn,
            self.capr,
            self.capu,
            self.freeb,
        ), "mask caches out of date"
        # marks only ever added (VV-R24): compare with the last checked position of this state
        prev = getattr(self, "_inv_prev", None)
        if prev is not None and prev[0] <= self.turn:
            pm, pn, pw = prev[1:]
            for p in range(n):
                for s in range(MAX_STATIONS):
                    assert self.marks[p][s] >= pm[p][s], f"station {s + 1} unmarked (VV-R24)"
                    assert not pn[p][s] or self.nums[p][s] == pn[p][s], "transfer number changed"
                for li in range(m.num_lines):
                    assert self.wins[p][li][: len(pw[p][li])] == pw[p][li], "window changed"
        self._inv_prev = (
            self.turn,
            [x[:] for x in self.marks],
            [x[:] for x in self.nums],
            [[w[:] for w in ws] for ws in self.wins],
        )
