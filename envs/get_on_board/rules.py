"""Get on Board: New York (``get_on_board_v0``): rules layer (Game + State).

Spec: ../shared/rules/get_on_board.md (rule IDs GB-R*, variants GB-V*); users' rules: RULES.md.

Decisions are single markers: a turn is a sequence of sub-steps by the same seat (one per
marker, green-light extras included). Actions (Discrete 7):

* 0-3 place the next marker North/East/South/West (id -10/+1/+10/-1);
* 4-5 choose the lower/higher of one's two departure tickets (setup, secret simultaneous commit);
* 6   decline a green-light extra (only with ``green_light_optional``).

Chance: the setup is dealt card by card (sheet types, personal objectives, common objectives,
departure tickets, first inspector); each round's ticket is drawn uniformly from the tickets not
yet revealed (so the deck order is never fixed in advance and nothing about it can leak).

Forced non-choices resolve automatically (documented in RULES.md): when no legal marker exists
the turn ends (GB-R18, green-light extra of GB-R22) or the player is eliminated (GB-R17); with
``green_light_optional`` an extra whose only non-eliminating option is "decline" is declined.

Saved states are validated (``state_schema``, ``_check_fields``, ``check_invariants``); see
RULES.md ("Saved states" in the environment notes; "Observation layout").

The rules know nothing of the observation: encoder.py (``GetOnBoardEncoder``) reads the state and
owns the observation layout and its incremental cache; bot.py and render.py read the rules; the
package ``__init__`` puts them together in ``SPEC``.

Version history:
    v0: first version.
    v0 (one game shape, issue 12): data files moved to ``data/components.json`` and
        ``data/maps/<name>.json``; a relative ``map`` path (GB-V3) is now resolved against the
        current working directory (core ``resolve_data``), no longer against the package folder.
        Play, saved states and observations are unchanged.
    0.1.0 dev: faster observation (behaviour and observations unchanged; golden identical): the rules
        signal sheet writes (per-seat version ``sver`` and the fields written, ``sfields``, via
        ``_sheet_written``; ``Rules.REACH_FIELDS`` declares what ``reach`` may write) and cache
        each seat's running total (``running_total``: the one ``Rules.total`` formula, recomputed
        only after a write). The encoder re-reads only the named fields of written sheets, keeps
        its buffer in ``State.encoder_cache``, writes the per-step blocks as one cached slice and
        checks the round-level blocks once per phase or round; the State has ``__slots__`` and
        ``ph`` holds plain ints (``Phase`` values).
    0.1.0 dev: faster observation (behaviour and observations unchanged; golden identical): the encoder
        re-reads a seat's running total only when a field the total reads changed
        (``Rules.RUNNING_TOTAL_READS``: sight counts never, a tourist/worker count only once its row
        is scored, students and internships only with a school), so filling an unscored row or a
        write that changes nothing costs no recompute; ``Rules.points`` spells max(0, ★ box) as
        comparisons (no builtin calls), as do the traffic cap in ``_place`` and the encoder's
        marker-log split; ``is_legal_chance`` takes a plain int without isinstance checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import Any

import numpy as np

from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State, StateError
from ..core.schema import Bool, Dict, Int, List, Spec, Tuple
from . import data as D
from .data import (
    C_DARK,
    C_GRANDMA,
    C_LIGHT,
    C_OFFICE,
    C_SCHOOL,
    C_STUDENT,
    C_TOURIST,
    C_WORKER,
    DIR_NAMES,
    REQ_ANY,
    REQ_NAMES,
    REQ_STRAIGHT,
    REQ_TURN,
)

NUM_ACTIONS = 7
A_TICKET_LOW, A_TICKET_HIGH, A_DECLINE = 4, 5, 6
DECLINE_BIT = 16  # mask index bit for A_DECLINE (bits 0-3: the directions)
MAX_SHAPE = 3  # markers per shape at most (the encoder's marker index one-hot)


class Phase(IntEnum):
    """Where the game stands (saved as its int in field ``ph``)."""

    DEAL = 0  # chance: the setup deal, card by card (GB-R2..GB-R4)
    DEPART = 1  # secret simultaneous departure choice (GB-R4)
    REVEAL = 2  # chance: the round's ticket (GB-R6)
    PLACE = 3  # the current seat places a marker (GB-R10..GB-R22)
    END = 4


# the phases as plain ints, stored in ``ph`` (CPython compares exact ints on a fast path, IntEnum members not)
P_DEAL, P_DEPART, P_REVEAL, P_PLACE, P_END = (int(p) for p in Phase)
PHASE_NAMES = ("deal", "departure", "reveal", "place", "end")  # phase() names, in Phase order

# setup deal kinds
K_SHEET, K_PERSONAL, K_COMMON, K_TICKET, K_INSPECTOR = range(5)

# score-sheet layout: one flat int list per player
(
    GR,
    ST,
    IN,
    SC,
    SSTAR,
    T0,
    T1,
    T2,
    TS0,
    TS1,
    TS2,
    SL,
    SD,
    NL,
    ND,
    B0,
    B1,
    B2,
    BS0,
    BS1,
    BS2,
    OSTAR,
    TZ,
    TR,
    C0,
    C1,
    ELIM,
) = range(27)
SHEET_LEN = 27
ALL_FIELDS = tuple(range(SHEET_LEN))
SHEET_FIELDS = (
    "grandmas",
    "students",
    "internships",
    "schools",
    "star_school",
    "tourists_row1",
    "tourists_row2",
    "tourists_row3",
    "tourist_row1_scored",
    "tourist_row2_scored",
    "tourist_row3_scored",
    "star_light_sight",
    "star_dark_sight",
    "light_sights",
    "dark_sights",
    "workers_row1",
    "workers_row2",
    "workers_row3",
    "worker_row1_scored",
    "worker_row2_scored",
    "worker_row3_scored",
    "star_office",
    "turn_zone",
    "traffic",
    "common1",
    "common2",
    "eliminated",
)


def _need(ok: Any, field: str, why: str) -> None:
    """An invariant of a state: AssertionError naming the saved field when ``ok`` is false."""
    if not ok:
        raise AssertionError(f"state field {field!r}: {why}")


def new_sheet() -> list[int]:
    sh = [0] * SHEET_LEN
    sh[SSTAR] = sh[SL] = sh[SD] = sh[OSTAR] = -1  # -1: ★ box not written
    return sh


def _running_total_reads() -> tuple[int, ...]:
    """``Rules.RUNNING_TOTAL_READS`` (see there)."""
    reads = [-2] * SHEET_LEN
    reads[NL] = reads[ND] = -1  # sight counts: common objectives only
    for i in range(3):
        reads[T0 + i], reads[B0 + i] = TS0 + i, BS0 + i  # an unscored row counts 0
    reads[ST] = reads[IN] = SC  # (students + internships) x schools
    return tuple(reads)


class Rules:
    """Sheet arithmetic shared by the State, the invariant check and the tests (one per Game)."""

    def __init__(self, comp: dict, row_overflow: bool):
        sh = comp["sheet"]
        self.grandma_values = sh["grandma_values"]
        self.grandma_cum = [sum(self.grandma_values[:k]) for k in range(len(self.grandma_values) + 1)]
        self.max_students = sh["student_boxes"]
        self.max_intern = sh["internship_boxes"]
        self.max_schools = sh["school_boxes"]
        self.t_rows, self.t_box, self.t_val = sh["tourist_rows"], sh["tourist_row_boxes"], sh["tourist_row_values"]
        self.o_rows, self.o_box, self.o_val = sh["office_rows"], sh["office_row_boxes"], sh["office_row_values"]
        if self.t_rows != 3 or self.o_rows != 3:
            raise ConfigError("components.json: the sheet layout has exactly 3 tourist and 3 office-worker rows")
        self.bonus = sh["office_bonus"]
        self.tz_values = sh["turn_zone_values"]
        self.tz_cum = [sum(self.tz_values[:k]) for k in range(len(self.tz_values) + 1)]
        self.tz_max = len(self.tz_values)
        self.tr_values = sh["traffic_values"]
        self.tr_cum = [sum(self.tr_values[:k]) for k in range(len(self.tr_values) + 1)]
        self.tr_max = len(self.tr_values)
        self.personal_value = sh["personal_objective_value"]
        self.overflow = row_overflow

    # -- passengers and buildings (GB-R24..GB-R34), in the spec's order
    def grandma(self, sh: list[int]) -> None:
        if sh[GR] < len(self.grandma_values):  # GB-R24: a ninth grandma has no effect
            sh[GR] += 1

    def _fill_row(self, sh: list[int], count: int, scored: int, box: int) -> None:
        """One passenger into the first unscored row of a three-row track (counts at ``count``,
        scored flags at ``scored``): GB-V5 on lets a full row overflow into the next one; off, a full
        unscored row ignores the passenger. GB-R34: no filling row -> nothing."""
        for i in range(3):
            if not sh[scored + i]:
                if sh[count + i] < box:
                    sh[count + i] += 1
                    return
                if not self.overflow:
                    return

    def tourist(self, sh: list[int]) -> None:
        """GB-R28 (filling row; GB-V5 off: the scoring row only)."""
        self._fill_row(sh, T0, TS0, self.t_box)

    def worker(self, sh: list[int]) -> None:
        """GB-R31."""
        self._fill_row(sh, B0, BS0, self.o_box)

    # the sheet fields reach(sh, code, star) may write, per code (tests/get_on_board checks every
    # write falls inside): readers of the state's change signal (``sfields``) compare only these
    REACH_FIELDS = {
        C_GRANDMA: (GR,),
        C_STUDENT: (ST,),
        C_SCHOOL: (SC, SSTAR),
        C_TOURIST: (T0, T1, T2),
        C_LIGHT: (TS0, TS1, TS2, NL, SL),
        C_DARK: (TS0, TS1, TS2, ND, SD),
        C_WORKER: (B0, B1, B2),
        C_OFFICE: (BS0, BS1, BS2, GR, T0, T1, T2, IN, OSTAR),  # GB-R32 bonuses: grandma, tourist, internship
    }

    def reach(self, sh: list[int], code: int, star: bool) -> None:
        """Apply the effects of reaching an intersection with ``code`` (GB-R24..GB-R33)."""
        if code == C_GRANDMA:
            self.grandma(sh)
        elif code == C_STUDENT:
            if sh[ST] < self.max_students:  # GB-R25
                sh[ST] += 1
        elif code == C_SCHOOL:
            if sh[SC] < self.max_schools:  # GB-R26
                sh[SC] += 1
            if star and sh[SSTAR] < 0:  # GB-R27
                sh[SSTAR] = sh[ST] + sh[IN]
        elif code == C_TOURIST:
            self.tourist(sh)
        elif code == C_LIGHT or code == C_DARK:
            for i in range(3):  # GB-R29: the scoring row is the topmost unscored row
                if not sh[TS0 + i]:
                    if sh[T0 + i] > 0:
                        sh[TS0 + i] = 1
                    break
            if code == C_LIGHT:
                sh[NL] += 1
                if star and sh[SL] < 0:  # GB-R30
                    sh[SL] = sh[T0] + sh[T1] + sh[T2]
            else:
                sh[ND] += 1
                if star and sh[SD] < 0:
                    sh[SD] = sh[T0] + sh[T1] + sh[T2]
        elif code == C_WORKER:
            self.worker(sh)
        elif code == C_OFFICE:
            for i in range(3):  # GB-R32
                if not sh[BS0 + i]:
                    c = sh[B0 + i]
                    if c > 0:
                        sh[BS0 + i] = 1
                        b = self.bonus[c]
                        if b == "grandma":
                            self.grandma(sh)
                        elif b == "tourist":
                            self.tourist(sh)
                        elif b == "internship" and sh[IN] < self.max_intern:
                            sh[IN] += 1
                    break
            if star and sh[OSTAR] < 0:  # GB-R33
                sh[OSTAR] = sh[B0] + sh[B1] + sh[B2]

    # -- counters for common objectives
    def counter(self, sh: list[int], name: str) -> int:
        if name == "grandmas":
            return sh[GR]
        if name == "students":
            return sh[ST] + sh[IN]
        if name == "tourists":
            return sh[T0] + sh[T1] + sh[T2]
        if name == "workers":
            return sh[B0] + sh[B1] + sh[B2]
        if name == "light_sights":
            return sh[NL]
        return sh[ND]

    # -- scoring (GB-R39..GB-R42): the one formula
    SCORE_CATEGORIES = (
        "grandmas",
        "students",
        "tourist_rows",
        "star_sight",
        "office_rows",
        "star_office",
        "common",
        "personal",
        "turn_zone",
        "traffic",
    )

    def points(self, sh: Sequence[int], final: bool, personal_met: bool = False) -> tuple[int, ...]:
        """Points of a sheet per category (``SCORE_CATEGORIES`` order). Before the end (``final``
        false) this is the running public total: unscored tourist/worker rows count 0 and the
        personal objective is not scored; at the end unscored rows count half (GB-R39) and a met
        personal objective counts (GB-R37)."""
        tv, ov = self.t_val, self.o_val
        if final:  # GB-R39: an unscored row counts half
            t0, t1, t2, b0, b1, b2 = tv[sh[T0]], tv[sh[T1]], tv[sh[T2]], ov[sh[B0]], ov[sh[B1]], ov[sh[B2]]
            tour = (t0 if sh[TS0] else t0 // 2) + (t1 if sh[TS1] else t1 // 2) + (t2 if sh[TS2] else t2 // 2)
            off = (b0 if sh[BS0] else b0 // 2) + (b1 if sh[BS1] else b1 // 2) + (b2 if sh[BS2] else b2 // 2)
        else:  # the running total: scored rows only
            tour = (tv[sh[T0]] if sh[TS0] else 0) + (tv[sh[T1]] if sh[TS1] else 0) + (tv[sh[T2]] if sh[TS2] else 0)
            off = (ov[sh[B0]] if sh[BS0] else 0) + (ov[sh[B1]] if sh[BS1] else 0) + (ov[sh[B2]] if sh[BS2] else 0)
        # ★ boxes count max(0, value) (-1: not written), spelt as comparisons (no builtin call: hot path)
        sight = sh[SL] if sh[SL] > sh[SD] else sh[SD]
        return (
            self.grandma_cum[sh[GR]],
            (sh[ST] + sh[IN]) * sh[SC] + (sh[SSTAR] if sh[SSTAR] > 0 else 0),
            tour,
            sight if sight > 0 else 0,
            off,
            sh[OSTAR] if sh[OSTAR] > 0 else 0,
            sh[C0] + sh[C1],
            self.personal_value if (final and personal_met) else 0,
            self.tz_cum[sh[TZ]],
            self.tr_cum[sh[TR]],
        )

    # which sheet fields the running total (``total(sh, False)``, 0 once ELIM is set) reads, per field:
    # RT_ALWAYS, RT_NEVER (sight counts), or the index of a field that must be nonzero for it to count:
    # the scored flag of a tourist/worker row (an unscored row counts 0 before the end), the school
    # count for students and internships (students x schools). Readers that know which fields changed
    # skip recomputing the total when none it reads did (tests/get_on_board checks the table).
    RT_ALWAYS, RT_NEVER = -2, -1
    RUNNING_TOTAL_READS = _running_total_reads()

    def breakdown(self, sh: Sequence[int], final: bool, personal_met: bool = False) -> dict[str, int]:
        """:meth:`points` by category name."""
        return dict(zip(self.SCORE_CATEGORIES, self.points(sh, final, personal_met)))

    def total(self, sh: Sequence[int], final: bool, personal_met: bool = False) -> int:
        """Sum of :meth:`points` (the running public total before the end, GB-R42 at the end)."""
        return sum(self.points(sh, final, personal_met))


class GetOnBoardGame(Game):
    """Get on Board: New York (Saashi, Iello 2021): route-building flip-and-write."""

    env_id = "get_on_board_v0"
    name = "Get on Board: New York"
    version = 0
    min_players = 2
    max_players = 3
    default_players = 2
    simultaneous = True  # departure choice is a secret simultaneous commit (spec section 6)
    score_scale = 0.01
    options_spec = {
        "mask_elimination_moves": Option(True, "GB-V1: mask eliminating markers unless they are the only legal ones"),
        "green_light_optional": Option(False, "GB-V2: the green-light extra marker may be declined (action 6)"),
        "map": Option("new_york", "GB-V3: map data file (name in maps/ or a .json path)", type=str),
        "solo_practice": Option(False, "GB-V4: allow one player (practice); common objectives always worth 10"),
        "row_overflow": Option(True, "GB-V5: a full tourist/worker row passes marks to the row below (false: ignored)"),
    }
    conformance_options = [
        {},
        {"mask_elimination_moves": False, "green_light_optional": True, "row_overflow": False},
        {"solo_practice": True},
    ]
    num_actions = NUM_ACTIONS

    def setup(self) -> None:
        """Component data, map geometry and the per-option-set tables (GB-V1..GB-V5)."""
        comp = D.components()
        self.comp = comp
        self.map = D.load_map(self.options["map"])  # ConfigError names the option "map"
        m = self.map
        self.rules = Rules(comp, bool(self.options["row_overflow"]))
        self.mask_elim = bool(self.options["mask_elimination_moves"])
        self.green_optional = bool(self.options["green_light_optional"])
        self.solo = bool(self.options["solo_practice"])
        # the player range comes from the map (GB-V3) and solo practice (GB-V4)
        self.min_players = 1 if self.solo else min(m.players)  # type: ignore[misc]
        self.max_players = max(m.players)  # type: ignore[misc]
        self.rounds = comp["rounds"]
        self.tickets = comp["tickets"]
        self.dep_per_player = comp["departure_tickets_per_player"]
        self.sheet_types = len(comp["ticket_shapes"])
        self.shape_names = comp["shape_order"]
        self.shape_steps = {k: tuple(REQ_NAMES[s] for s in v) for k, v in comp["shapes"].items()}
        # shape of ticket t on sheet type s: ticket_shape[s][t] -> (name, steps) (s, t from 1)
        none: tuple[str, tuple[int, ...]] = ("", ())
        self.ticket_shape: list[list[tuple[str, tuple[int, ...]]]] = [[]]
        self.ticket_shape += [
            [none] + [(nm, self.shape_steps[nm]) for nm in comp["ticket_shapes"][str(s)]]
            for s in range(1, self.sheet_types + 1)
        ]
        self.max_shape = max(len(v) for v in self.shape_steps.values())
        if self.max_shape > MAX_SHAPE:
            raise ConfigError(f"components.json: a shape has at most {MAX_SHAPE} markers (observation layout)")
        if self.rounds > self.tickets:
            raise ConfigError("components.json: more rounds than tickets")
        self.commons = comp["common_objectives"]
        self.commons_in_play = comp["common_objectives_in_play"]
        if self.commons_in_play != 2:
            raise ConfigError("components.json: the sheet has exactly 2 common-objective boxes")
        if len(m.objectives) < self.max_players or self.sheet_types < self.max_players:
            raise ConfigError(
                f"option map={self.options['map']!r}: too few sheets or personal objectives for "
                f"{self.max_players} players"
            )
        if m.departures < self.dep_per_player * self.max_players:
            raise ConfigError(f"option map={self.options['map']!r}: too few departures")
        self.maxp = max(self.max_players, 1)
        self._schedules: dict[int, list[tuple[int, int]]] = {}
        self._schemas: dict[int, Spec] = {}  # per player count: state_schema
        self.popcount = [bin(i).count("1") for i in range(1 << self.maxp)]
        # masks: index = direction bits | decline << 4
        self._masks = []
        for k in range(32):
            mk = np.zeros(NUM_ACTIONS, dtype=np.int8)
            for d in range(4):
                if k >> d & 1:
                    mk[d] = 1
            if k & DECLINE_BIT:
                mk[A_DECLINE] = 1
            self._masks.append(mk)
        self._dep_masks = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._dep_masks[A_TICKET_LOW] = self._dep_masks[A_TICKET_HIGH] = 1
        # common objectives: (sheet fields summed by Rules.counter, threshold)
        cidx = {
            "grandmas": (GR,),
            "students": (ST, IN),
            "tourists": (T0, T1, T2),
            "workers": (B0, B1, B2),
            "light_sights": (NL,),
        }
        self.common_sum = [(cidx.get(c["counter"], (ND,)), c["threshold"]) for c in self.commons]
        self.tz_max, self.tr_max = self.rules.tz_max, self.rules.tr_max
        # the sheet fields one marker may write (GetOnBoardState._place): index code << 2 | traffic << 1 | deviation
        self.place_fields = [
            ((TZ,) if w & 1 else ()) + ((TR,) if w & 2 else ()) + Rules.REACH_FIELDS.get(w >> 2, ())
            for w in range(len(D.CODES) << 2)
        ]
        # the seat order clockwise from each inspector (GB-R8)
        self.rotation = {n: [tuple((i0 + i) % n for i in range(n)) for i0 in range(n)] for n in range(1, self.maxp + 1)}

    def check_players(self, num_players: int) -> None:
        if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)):
            raise ConfigError(f"{self.env_id}: num_players must be an int, got {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise ConfigError(
                f"{self.env_id}: num_players={num_players} is outside "
                f"{self.min_players}..{self.max_players}"
                + ("" if self.solo else " (one player needs solo_practice=True)")
            )

    def schedule(self, n: int) -> list[tuple[int, int]]:
        """The setup deal, card by card (spec section 3)."""
        s = self._schedules.get(n)
        if s is not None:
            return s
        if n not in self._schedules:
            s = [(K_SHEET, p) for p in range(n)] + [(K_PERSONAL, p) for p in range(n)]
            s += [(K_COMMON, i) for i in range(self.commons_in_play)]
            s += [(K_TICKET, p) for p in range(n) for _ in range(self.dep_per_player)]
            s.append((K_INSPECTOR, 0))
            self._schedules[n] = s
        return self._schedules[n]

    def new_initial_state(self, num_players: int) -> GetOnBoardState:
        self.check_players(num_players)
        return GetOnBoardState(self, int(num_players))

    # ------------------------------------------------------------ saved states
    def sheet_ranges(self) -> list[tuple[int, int]]:
        """(lowest, highest) value of every score-sheet field (SHEET_FIELDS order) under these
        components and this map: box counts, ★ values (-1 = not written), sight counts, turn zone,
        traffic, objective points, the eliminated flag."""
        rl, m = self.rules, self.map
        rg = [(0, 0)] * SHEET_LEN
        rg[GR] = (0, len(rl.grandma_values))
        rg[ST], rg[IN], rg[SC] = (0, rl.max_students), (0, rl.max_intern), (0, rl.max_schools)
        rg[SSTAR] = (-1, rl.max_students + rl.max_intern)  # GB-R27
        for i in range(3):
            rg[T0 + i], rg[TS0 + i] = (0, rl.t_box), (0, 1)
            rg[B0 + i], rg[BS0 + i] = (0, rl.o_box), (0, 1)
        rg[SL] = rg[SD] = (-1, 3 * rl.t_box)  # GB-R30
        rg[NL], rg[ND] = (0, m.code.count(C_LIGHT)), (0, m.code.count(C_DARK))
        rg[OSTAR] = (-1, 3 * rl.o_box)  # GB-R33
        rg[TZ], rg[TR] = (0, rl.tz_max), (0, rl.tr_max)  # GB-R15, GB-R21
        rg[C0] = rg[C1] = (0, max(self.comp["common_first_value"], self.comp["common_later_value"]))
        rg[ELIM] = (0, 1)
        return rg

    def state_schema(self, num_players: int) -> Spec:
        """The saved state (``GetOnBoardState._to_dict``): every field with the tightest range the
        components, the map and the player count allow; consistency between fields is
        ``GetOnBoardState.check_invariants``."""
        sc = self._schemas.get(num_players)
        if sc is not None:
            return sc
        n, m = num_players, self.map
        N, R = m.n, m.r
        sheet = Tuple(*(Int(lo, hi) for lo, hi in self.sheet_ranges()))
        sc = self._schemas[n] = Dict(
            {
                "ph": Int(0, len(PHASE_NAMES) - 1),
                "deal_i": Int(0, len(self.schedule(n))),
                "sheet_type": List(Int(0, self.sheet_types), length=n),  # 0 = not dealt yet
                "personal": List(Int(-1, len(m.objectives) - 1), length=n),  # -1 = not dealt yet
                "common": List(Int(0, len(self.commons) - 1), max_len=self.commons_in_play, unique=True),
                "tickets": List(
                    List(Int(1, m.departures), max_len=self.dep_per_player, unique=True, sorted_=True), length=n
                ),
                "choice": List(Int(-1, self.dep_per_player - 1), length=n),  # -1 = not chosen yet
                "inspector": Int(-1, n - 1),
                "used": List(Int(1, self.tickets), max_len=self.rounds, unique=True),
                "order": List(Int(0, n - 1), max_len=n, unique=True),
                "opos": Int(0, n - 1),
                "cur": Int(-1, n - 1),
                "k": Int(0, self.max_shape),
                "prev": Int(-1, len(DIR_NAMES) - 1),
                "extra": Bool(),
                # a route visits each intersection once, except the last marker of an eliminated seat (GB-R19)
                "route": List(List(Int(0, N - 1), max_len=N + 1), length=n),
                "rroads": List(List(Int(0, R - 1), max_len=N, unique=True), length=n),  # GB-R16
                "elim": List(Bool(), length=n),
                "sheets": List(sheet, length=n),
                "marks": List(Int(0, (1 << n) - 1), length=R),
                "claimed": List(Bool(), length=self.commons_in_play),
                "log": List(Int(0, n * R - 1), max_len=n * N),
            }
        )
        return sc

    def _state_from_dict(self, data: dict) -> GetOnBoardState:
        """Build a state from a dict that passed ``state_schema``: the canonical fields are checked
        for consistency (StateError naming the field) before any cache is built from them."""
        st = self._build(data)
        try:
            st._check_fields()
        except AssertionError as e:
            raise StateError(f"saved {self.env_id} state breaks an invariant of the game: {e}") from None
        st._finish_load()
        return st

    def _build(self, data: dict) -> GetOnBoardState:
        st = GetOnBoardState(self, data["num_players"], _blank=True)
        for f in GetOnBoardState._FIELDS:
            v = data[f]
            setattr(st, f, [x[:] if isinstance(x, list) else x for x in v] if isinstance(v, list) else v)
        return st


class GetOnBoardState(State):
    """One position of Get on Board."""

    # slots: attribute access is a hot path of every step (a State has no fixed attribute set of
    # its own; ``_mask`` and ``encoder_cache`` are the core's, set here on every new state)
    __slots__ = (
        "game",
        "num_players",
        "_mask",
        "encoder_cache",
        "_cl",  # cached chance outcomes (until the next action)
        "_di",  # cached dir_info() (until the next action)
        *(
            "ph deal_i sheet_type personal common tickets choice inspector used order opos cur k prev extra "
            "route rroads elim sheets marks claimed log shape shape_name visl sver sfields _rt"
        ).split(),
    )
    game: GetOnBoardGame
    _cl: list[int] | None
    _di: tuple[int, int, int, int] | None

    def __init__(self, game: GetOnBoardGame, num_players: int, _blank: bool = False):
        self.game = game
        self.num_players = n = num_players
        self._mask = None
        self.encoder_cache = None
        self._cl = self._di = None
        if _blank:
            return
        m = game.map
        self.ph = P_DEAL
        self.deal_i = 0
        self.sheet_type = [0] * n
        self.personal = [-1] * n
        self.common: list[int] = []
        self.tickets: list[list[int]] = [[] for _ in range(n)]
        self.choice = [-1] * n
        self.inspector = -1
        self.used: list[int] = []
        self.order: list[int] = []
        self.opos = 0
        self.cur = -1
        self.k = 0
        self.prev = -1
        self.extra = False
        self.route: list[list[int]] = [[] for _ in range(n)]
        self.rroads: list[list[int]] = [[] for _ in range(n)]
        self.elim = [False] * n
        self.sheets = [new_sheet() for _ in range(n)]
        self.marks = [0] * m.r
        self.claimed = [False] * game.commons_in_play
        self.log: list[int] = []  # every marker in board order: seat * n_roads + road
        self.shape: tuple = ()
        self.shape_name = ""
        self.visl = [bytearray(m.n) for _ in range(n)]  # visited intersections per seat (GB-R19)
        self._di = None
        self._sheets_reset()

    # ------------------------------------------------------------ caches
    def _sheets_reset(self) -> None:
        """Sheet change signal and running totals of a new or loaded state (see ``_sheet_written``)."""
        n = self.num_players
        self.sver = [0] * n  # per seat: bumped whenever the rules write that seat's sheet
        self.sfields = [ALL_FIELDS] * n  # per seat: the fields that write may have changed (all: a new sheet)
        self._rt: list[int | None] = [None] * n  # per seat: running_total() cached (None: to compute)

    def _sheet_written(self, p: int, fields: tuple[int, ...]) -> None:
        """Seat p's sheet was written, only (at most) ``fields``: bump its version and drop its cached
        running total. Readers such as the encoder compare the version with the one they last saw:
        one version later, only ``sfields[p]`` can differ; further behind, any field. Every write to
        ``sheets`` is followed by a call (_place, _eliminate, _round_end)."""
        self.sver[p] += 1
        self.sfields[p] = fields
        self._rt[p] = None

    def running_total(self, p: int) -> int:
        """Seat p's running public total (``Rules.total(sheet, False)``; 0 once eliminated, GB-R20),
        cached until the sheet is written again."""
        t = self._rt[p]
        if t is None:
            t = self._rt[p] = 0 if self.elim[p] else sum(self.game.rules.points(self.sheets[p], False))  # total()
        return t

    def _rebuild(self) -> None:
        """Recompute the derived fields from the canonical ones (after loading)."""
        g = self.game
        self._sheets_reset()
        self.visl = [bytearray(g.map.n) for _ in range(self.num_players)]
        for p in range(self.num_players):
            for q in self.route[p]:
                self.visl[p][q] = 1
        self._di = None
        if self.ph == P_PLACE and self.cur >= 0:
            t = self.used[-1]
            self.shape_name, self.shape = g.ticket_shape[self.sheet_type[self.cur]][t]

    def clone(self) -> GetOnBoardState:
        c = GetOnBoardState(self.game, self.num_players, _blank=True)
        c.ph, c.deal_i = self.ph, self.deal_i
        c.sheet_type = self.sheet_type[:]
        c.personal = self.personal[:]
        c.common = self.common[:]
        c.tickets = [t[:] for t in self.tickets]
        c.choice = self.choice[:]
        c.inspector = self.inspector
        c.used = self.used[:]
        c.order = self.order[:]
        c.opos, c.cur, c.k, c.prev, c.extra = self.opos, self.cur, self.k, self.prev, self.extra
        c.route = [r[:] for r in self.route]
        c.rroads = [r[:] for r in self.rroads]
        c.elim = self.elim[:]
        c.sheets = [s[:] for s in self.sheets]
        c.marks = self.marks[:]
        c.claimed = self.claimed[:]
        c.log = self.log[:]
        c.shape, c.shape_name = self.shape, self.shape_name
        c.visl = [bytearray(v) for v in self.visl]
        c._di = self._di
        c.sver = self.sver[:]
        c.sfields = self.sfields[:]
        c._rt = self._rt[:]
        return c

    _FIELDS = (
        "ph",
        "deal_i",
        "sheet_type",
        "personal",
        "common",
        "tickets",
        "choice",
        "inspector",
        "used",
        "order",
        "opos",
        "cur",
        "k",
        "prev",
        "extra",
        "route",
        "rroads",
        "elim",
        "sheets",
        "marks",
        "claimed",
        "log",
    )

    def _to_dict(self) -> dict:
        """The canonical fields (the core adds env id, version, options and num_players)."""
        d: dict[str, Any] = {}
        for f in self._FIELDS:
            v = getattr(self, f)
            d[f] = [x[:] if isinstance(x, list) else x for x in v] if isinstance(v, list) else v
        d["ph"] = int(self.ph)
        return d

    def _finish_load(self) -> None:
        """Derived fields and caches of a state whose canonical fields are set (and checked)."""
        self.shape, self.shape_name = (), ""
        self._rebuild()

    # ------------------------------------------------------------ flow
    def current_player(self) -> int:
        ph = self.ph
        if ph == P_PLACE or ph == P_DEPART:
            return self.cur
        if ph == P_END:
            return TERMINAL
        return CHANCE

    def phase(self) -> str:
        if self.ph == P_PLACE and self.extra:
            return "green_light"
        return PHASE_NAMES[self.ph]

    def deciders(self) -> list[int]:
        if self.ph == P_DEPART:
            return [p for p in range(self.num_players) if self.choice[p] < 0]
        p = self.current_player()
        return [p] if p >= 0 else []

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        out = self._chance_list()
        if not out:
            return []
        p = 1.0 / len(out)
        return [(o, p) for o in out]

    def _chance_list(self) -> list[int]:
        """The equally likely outcomes of this chance node (a card dealt, a ticket revealed);
        cached until the next action (do not modify the returned list)."""
        out = self._cl
        if out is None:
            out = self._cl = self._chance_list_plain()
        return out

    def _chance_list_plain(self) -> list[int]:
        g = self.game
        if self.ph == P_DEAL:
            kind = g.schedule(self.num_players)[self.deal_i][0]
            if kind == K_SHEET:
                out = [t for t in range(1, g.sheet_types + 1) if t not in self.sheet_type]
            elif kind == K_PERSONAL:
                out = [c for c in range(len(g.map.objectives)) if c not in self.personal]
            elif kind == K_COMMON:
                out = [c for c in range(len(g.commons)) if c not in self.common]
            elif kind == K_TICKET:
                dealt = {t for ts in self.tickets for t in ts}
                out = [t for t in range(1, g.map.departures + 1) if t not in dealt]
            else:
                out = list(range(self.num_players))
        elif self.ph == P_REVEAL:
            used = self.used
            out = [t for t in range(1, g.tickets + 1) if t not in used]
        else:
            return []
        return out

    def sample_chance(self, rng: np.random.Generator) -> Any:
        out = self._chance_list()
        return out[int(rng.integers(len(out)))]

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is int:  # the usual case (is_legal normalises): no isinstance checks
            return outcome in self._chance_list()
        if isinstance(outcome, (bool, np.bool_)) or not isinstance(outcome, (int, np.integer)):
            return False
        return outcome in self._chance_list()

    def _legal_mask(self) -> np.ndarray:
        g = self.game
        if self.ph == P_DEPART:
            return g._dep_masks.copy()
        return g._masks[self.dir_info()[3]].copy()

    def requirement(self) -> int:
        """REQ_* of the marker to place now (GB-R12; a green-light extra is free of the shape)."""
        return REQ_ANY if self.extra else self.shape[self.k]

    def dir_info(self) -> tuple[int, int, int, int]:
        """(legal direction bits, eliminating direction bits, non-own road bits, mask index) for
        the marker to place now (GB-R11, GB-R13..GB-R16, GB-R19); cached until the next action.
        The mask index holds the legal directions after GB-V1 plus the decline bit (GB-V2)."""
        di = self._di
        if di is not None:
            return di
        g = self.game
        p = self.cur
        e = self.route[p][-1]
        bit = 1 << p
        marks = self.marks
        vis = self.visl[p]
        extra = self.extra
        req = REQ_ANY if extra else self.shape[self.k]
        prev = self.prev
        tz_ok = self.sheets[p][TZ] < g.tz_max
        legal = elim = free = 0
        for d, r, q in g.map.exits[e]:
            if marks[r] & bit:
                continue  # GB-R16: never an own road
            free |= 1 << d
            if not tz_ok and ((req == REQ_STRAIGHT and d != prev) or (req == REQ_TURN and d == prev)):
                continue  # GB-R15: no sixth deviation
            legal |= 1 << d
            if vis[q]:
                elim |= 1 << d
        eff = legal
        decline = extra and g.green_optional
        if elim and g.mask_elim:
            safe = legal & ~elim
            if safe or decline:  # GB-V1: eliminating markers only when nothing else is legal
                eff = safe
        if decline:
            eff |= DECLINE_BIT
        di = self._di = (legal, elim, free, eff)
        return di

    def _apply(self, a: Any) -> None:
        self._di = None
        self._cl = None
        ph = self.ph
        if ph == P_PLACE:
            self._place(a)
        elif ph == P_DEPART:
            self._depart(a)
        elif ph == P_REVEAL:
            self._reveal(a)
        else:
            self._deal(a)

    def _deal(self, o: int) -> None:
        g = self.game
        sched = g.schedule(self.num_players)
        kind, p = sched[self.deal_i]
        if kind == K_SHEET:
            self.sheet_type[p] = o
        elif kind == K_PERSONAL:
            self.personal[p] = o
        elif kind == K_COMMON:
            self.common.append(o)
        elif kind == K_TICKET:
            self.tickets[p].append(o)
            self.tickets[p].sort()
        else:
            self.inspector = o
        self.deal_i += 1
        if self.deal_i == len(sched):
            self.ph = P_DEPART
            self.cur = 0

    def _depart(self, a: int) -> None:
        """GB-R4: secret simultaneous departure choice, collected in seat order."""
        p = self.cur
        self.choice[p] = a - A_TICKET_LOW
        self.cur += 1
        if self.cur < self.num_players:
            return
        m = self.game.map
        for p in range(self.num_players):  # reveal all pawns together
            q = m.dep_node[self.tickets[p][self.choice[p]]]
            self.route[p] = [q]
            self.visl[p][q] = 1
        self.cur = -1
        self.ph = P_REVEAL

    def _reveal(self, t: int) -> None:
        """GB-R6/GB-R8: reveal the round's ticket; players act clockwise from the inspector."""
        n = self.num_players
        used = self.used
        used.append(t)
        elim = self.elim
        g = self.game
        rot = g.rotation[n][self.inspector]
        self.order = [p for p in rot if not elim[p]] if True in elim else list(rot)
        self.opos = -1
        self.ph = P_PLACE
        self._next_turn()

    def _next_turn(self) -> None:
        order, elim = self.order, self.elim
        no = len(order)
        i = self.opos + 1
        while i < no and elim[order[i]]:
            i += 1
        self.opos = i
        if i >= no:
            self._round_end()
            return
        p = self.cur = order[i]
        self.k, self.prev, self.extra = 0, -1, False
        self.shape_name, self.shape = self.game.ticket_shape[self.sheet_type[p]][self.used[-1]]  # GB-R7
        self._settle()

    def _settle(self) -> None:
        """Resolve non-choices: no legal marker ends the turn (GB-R18, GB-R22) or eliminates (GB-R17)."""
        self._di = None
        if self.dir_info()[3] & 15:
            return  # a marker can be placed: a real decision (decline alone is never asked)
        p = self.cur
        if not self.extra:
            free = self.dir_info()[2]
            if not free:  # GB-R17: every road from the end is already an own road
                self._eliminate(p)
        self._next_turn()

    def _eliminate(self, p: int) -> None:
        self.elim[p] = True
        self.sheets[p][ELIM] = 1
        self._sheet_written(p, (ELIM,))

    def _place(self, a: int) -> None:
        if a == A_DECLINE:  # GB-V2
            self._next_turn()
            return
        g = self.game
        m = g.map
        p = self.cur
        route = self.route[p]
        e = route[-1]
        r = m.nb_road[e][a]
        q = m.nb_node[e][a]
        sh = self.sheets[p]
        extra = self.extra
        written = 0  # what this marker writes on sheet p: g.place_fields[written] (see _sheet_written)
        if not extra:
            req = self.shape[self.k]
            if (req == REQ_STRAIGHT and a != self.prev) or (req == REQ_TURN and a == self.prev):
                sh[TZ] += 1  # GB-R14: a deviation checks the next turn-zone box
                written = 1
        marks = self.marks
        c = g.popcount[marks[r]] + m.black[r]  # GB-R21
        if c:
            t = sh[TR] + c
            sh[TR] = t if t < g.tr_max else g.tr_max  # min(), without the builtin call
            written |= 2
        marks[r] |= 1 << p
        route.append(q)
        self.rroads[p].append(r)
        self.log.append(p * m.r + r)
        self._di = None
        vis = self.visl[p]
        if vis[q]:  # GB-R19: back on the own route -> eliminated at once
            if written:
                self._sheet_written(p, g.place_fields[written])
            self._eliminate(p)
            self._next_turn()
            return
        vis[q] = 1
        code = m.code[q]
        if code:
            g.rules.reach(sh, code, m.star[q])
            written |= code << 2
        if written:  # _sheet_written(p, g.place_fields[written]), inlined on this hot path
            self.sver[p] += 1
            self.sfields[p] = g.place_fields[written]
            self._rt[p] = None
        if extra:
            if m.green[q]:  # GB-R22: chained extras
                self._settle()
            else:
                self._next_turn()
            return
        k = self.k = self.k + 1
        self.prev = a
        if k < len(self.shape):
            self._settle()
        elif m.green[q]:  # GB-R22: all shape markers placed, ends on a green light
            self.extra = True
            self._settle()
        else:
            self._next_turn()

    def _round_end(self) -> None:
        """GB-R35/GB-R36 common objectives, GB-R9 inspector, GB-R38 end."""
        g = self.game
        n = self.num_players
        elim, sheets, claimed = self.elim, self.sheets, self.claimed
        for j, obj in enumerate(self.common):
            idxs, thr = g.common_sum[obj]  # Rules.counter(sheet, counter) >= threshold
            met = []
            for p in range(n):
                if not elim[p]:
                    sh = sheets[p]
                    if not sh[C0 + j]:
                        cnt = 0
                        for i in idxs:
                            cnt += sh[i]
                        if cnt >= thr:
                            met.append(p)
            if met:
                val = g.comp["common_first_value"] if (g.solo or not claimed[j]) else g.comp["common_later_value"]
                for p in met:
                    sheets[p][C0 + j] = val
                    self._sheet_written(p, (C0 + j,))
                claimed[j] = True
        self.cur = -1
        self.order = []
        self.opos = 0
        self.k, self.prev, self.extra = 0, -1, False
        self.shape, self.shape_name = (), ""
        alive = False in elim
        if alive:
            i = self.inspector
            for _ in range(n):
                i = (i + 1) % n
                if not elim[i]:
                    break
            self.inspector = i
        if not alive or len(self.used) >= g.rounds:
            self.ph = P_END
        else:
            self.ph = P_REVEAL

    # ------------------------------------------------------------ results
    def personal_met(self, p: int) -> bool:
        """GB-R37: the route reached all three lettered intersections of the card."""
        if self.personal[p] < 0:
            return False
        vis = self.visl[p]
        return all(vis[q] for q in self.game.map.objectives[self.personal[p]])

    def breakdown(self, p: int) -> dict[str, int]:
        final = self.ph == P_END
        return self.game.rules.breakdown(self.sheets[p], final, final and self.personal_met(p))

    def scores(self) -> list[float]:
        """GB-R42 totals (GB-R20: eliminated players score 0); before the end, the running public
        total (unscored rows at 0, no personal objective)."""
        if self.ph != P_END:
            return [float(self.running_total(p)) for p in range(self.num_players)]
        rules = self.game.rules
        return [
            0.0 if self.elim[p] else float(rules.total(self.sheets[p], True, self.personal_met(p)))
            for p in range(self.num_players)
        ]

    def winners(self) -> list[int]:
        """GB-R43: highest total among non-eliminated players, ties shared; if every player was
        eliminated, nobody beats anybody (all seats share the result)."""
        s = self.scores()
        alive = [p for p in range(self.num_players) if not self.elim[p]]
        if not alive:
            return list(range(self.num_players))
        best = max(s[p] for p in alive)
        return [p for p in alive if s[p] == best]

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> GetOnBoardState:
        """Re-deal what ``seat`` cannot know: the others' personal objectives, the others'
        departure tickets (only their chosen ticket is public once the pawns are revealed) and
        their pending departure commits. The round deck is drawn ticket by ticket, so it holds
        no fixed hidden order."""
        s = self.clone()
        if self.ph == P_END:
            return s
        n = self.num_players
        g = self.game
        others = [j for j in range(n) if j != seat]
        # personal objectives (GB-R2: distinct)
        dealt = [j for j in others if s.personal[j] >= 0]
        pool = [c for c in range(len(g.map.objectives)) if c != s.personal[seat]]
        rng.shuffle(pool)
        for j, c in zip(dealt, pool):
            s.personal[j] = int(c)
        # departure tickets
        own = set(s.tickets[seat])
        revealed = self.ph not in (P_DEAL, P_DEPART)
        if revealed:
            chosen = {j: s.tickets[j][s.choice[j]] for j in others}
            pool = [t for t in range(1, g.map.departures + 1) if t not in own and t not in chosen.values()]
            rng.shuffle(pool)
            k = 0
            for j in others:
                ts = [chosen[j]]
                for _ in range(len(s.tickets[j]) - 1):
                    ts.append(int(pool[k]))
                    k += 1
                ts.sort()
                s.tickets[j] = ts
                s.choice[j] = ts.index(chosen[j])
        else:
            pool = [t for t in range(1, g.map.departures + 1) if t not in own]
            rng.shuffle(pool)
            k = 0
            for j in others:
                cnt = len(s.tickets[j])
                s.tickets[j] = sorted(int(t) for t in pool[k : k + cnt])
                k += cnt
                if s.choice[j] >= 0:
                    s.choice[j] = int(rng.integers(len(s.tickets[j])))
        s._cl = None
        return s

    # ------------------------------------------------------------ checks and text
    def _dir_of(self, p: int, i: int) -> int:
        """Direction of seat p's marker i (from route[p][i] to route[p][i + 1])."""
        a, b = self.route[p][i], self.route[p][i + 1]
        nb = self.game.map.nb_node[a]
        for d in range(4):
            if nb[d] == b:
                return d
        return -1

    def _check_fields(self) -> None:
        """Consistency of the canonical (saved) fields, checked before any cache is built from them
        (AssertionError naming the field). Together with the schema it admits exactly the states
        the game can reach, up to the history it does not record (how past rounds split into turns,
        so how many markers and turn-zone boxes they allow: the rule tests start from such "as if
        played earlier" positions), so a state that passes plays legally to the end."""
        g = self.game
        m = g.map
        rules = g.rules
        n = self.num_players
        ph = self.ph
        phase = PHASE_NAMES[ph]
        # --- setup deal (GB-R2..GB-R4): exactly the cards the deal schedule has dealt so far
        sched = g.schedule(n)
        if ph == P_DEAL:
            _need(
                self.deal_i < len(sched),
                "deal_i",
                f"{self.deal_i}: the setup deal has {len(sched)} cards, the last one ends phase 'deal'",
            )
        else:
            _need(
                self.deal_i == len(sched),
                "deal_i",
                f"{self.deal_i}: all {len(sched)} setup cards are dealt before phase {phase!r}",
            )
        got_sheet, got_personal, got_tickets = [False] * n, [False] * n, [0] * n
        got_common = got_inspector = 0
        for kind, p in sched[: self.deal_i]:
            if kind == K_SHEET:
                got_sheet[p] = True
            elif kind == K_PERSONAL:
                got_personal[p] = True
            elif kind == K_COMMON:
                got_common += 1
            elif kind == K_TICKET:
                got_tickets[p] += 1
            else:
                got_inspector = 1
        for p in range(n):
            _need(
                (self.sheet_type[p] > 0) == got_sheet[p],
                f"sheet_type[{p}]",
                f"{self.sheet_type[p]} (a sheet type 1..{g.sheet_types} once dealt, 0 before)",
            )
            _need(
                (self.personal[p] >= 0) == got_personal[p],
                f"personal[{p}]",
                f"{self.personal[p]} (an objective card once dealt, -1 before)",
            )
            _need(
                len(self.tickets[p]) == got_tickets[p],
                f"tickets[{p}]",
                f"{len(self.tickets[p])} tickets, the deal has given {got_tickets[p]}",
            )
        dealt = [t for t in self.sheet_type if t]
        _need(len(set(dealt)) == len(dealt), "sheet_type", "GB-R2: sheet types are dealt without repetition")
        dealt = [c for c in self.personal if c >= 0]
        _need(len(set(dealt)) == len(dealt), "personal", "GB-R2: personal objectives are dealt without repetition")
        _need(
            len(self.common) == got_common,
            "common",
            f"{len(self.common)} common objectives, the deal has drawn {got_common} (GB-R3)",
        )
        dealt = [t for ts in self.tickets for t in ts]
        _need(len(set(dealt)) == len(dealt), "tickets", "GB-R4: departure tickets are dealt without repetition")
        _need(
            (self.inspector >= 0) == bool(got_inspector),
            "inspector",
            f"{self.inspector} (a seat once the setup is dealt, -1 before)",
        )
        # --- departure choice (GB-R4): collected in seat order, then all pawns revealed
        if ph == P_DEPART:
            _need(self.cur >= 0, "cur", f"{self.cur}: the seat choosing its departure")
            for p in range(n):
                _need(
                    (self.choice[p] >= 0) == (p < self.cur),
                    f"choice[{p}]",
                    f"{self.choice[p]}: seats before cur={self.cur} have chosen, the others not",
                )
        else:
            for p in range(n):
                _need(
                    (self.choice[p] >= 0) == (ph != P_DEAL),
                    f"choice[{p}]",
                    f"{self.choice[p]}: chosen after the departure phase, -1 before",
                )
        # --- rounds (GB-R6, GB-R38)
        nu = len(self.used)
        alive = [p for p in range(n) if not self.elim[p]]
        if ph in (P_DEAL, P_DEPART):
            _need(nu == 0, "used", f"no ticket is revealed before the rounds (phase {phase!r})")
        elif ph == P_REVEAL:
            _need(nu < g.rounds, "used", f"{nu} tickets revealed: the game ends after {g.rounds} rounds (GB-R38)")
            _need(bool(alive), "elim", "the game ends when every player is eliminated (GB-R38)")
        elif ph == P_PLACE:
            _need(nu >= 1, "used", "a ticket is revealed in phase 'place'")
        else:
            _need(
                nu >= 1 and (nu == g.rounds or not alive),
                "used",
                f"{nu} rounds played: the game ends after {g.rounds} rounds or when every player is "
                "eliminated (GB-R38)",
            )
        if ph != P_PLACE:
            _need(self.cur == -1 or ph == P_DEPART, "cur", f"{self.cur}: nobody places a marker in phase {phase!r}")
            _need(
                not self.order and self.opos == 0,
                "order",
                f"no turn order outside phase 'place' (order {self.order}, opos {self.opos})",
            )
            _need(
                self.k == 0 and self.prev == -1 and not self.extra,
                "k",
                f"no marker in progress in phase {phase!r} (k {self.k}, prev {self.prev}, extra {self.extra})",
            )
        if ph in (P_REVEAL, P_END) and alive:  # GB-R9: the inspector passes to a non-eliminated seat
            _need(not self.elim[self.inspector], "inspector", f"{self.inspector} is eliminated (GB-R9)")
        # --- routes (GB-R10, GB-R16, GB-R17, GB-R19) and board markers
        started = ph in (P_REVEAL, P_PLACE, P_END)
        marks = [0] * m.r
        for p in range(n):
            rt, rr = self.route[p], self.rroads[p]
            if not started:
                _need(
                    not rt and not rr and not self.elim[p],
                    f"route[{p}]",
                    f"no route (nor elimination) before the pawns are revealed (phase {phase!r})",
                )
                continue
            _need(
                bool(rt) and rt[0] == m.dep_node[self.tickets[p][self.choice[p]]],
                f"route[{p}]",
                "a route starts at the chosen departure (GB-R4, GB-R10)",
            )
            _need(len(rr) == len(rt) - 1, f"rroads[{p}]", f"{len(rr)} roads for a route of {len(rt)} intersections")
            for i, r in enumerate(rr):
                a, b = m.roads[r]
                if not ((a == rt[i] and b == rt[i + 1]) or (b == rt[i] and a == rt[i + 1])):
                    _need(
                        False,
                        f"rroads[{p}][{i}]",
                        f"road {r} does not join route[{p}][{i}] and route[{p}][{i + 1}] (GB-R10)",
                    )
                marks[r] |= 1 << p
            seen = set(rt)
            if len(seen) == len(rt):
                if self.elim[p]:  # GB-R17: eliminated with every road from the end already an own road
                    _need(
                        all(marks[r] >> p & 1 for _, r, _ in m.exits[rt[-1]]),
                        f"elim[{p}]",
                        "eliminated without returning to its route (GB-R19) or running out of roads (GB-R17)",
                    )
            else:
                _need(self.elim[p], f"route[{p}]", "revisits an intersection without elimination (GB-R19)")
                _need(
                    len(seen) == len(rt) - 1 and rt[-1] in rt[:-1],
                    f"route[{p}]",
                    "only the last marker, which eliminates, may return to the route (GB-R19)",
                )
        _need(marks == self.marks, "marks", "the board markers differ from the routes")
        # every marker in board order: each seat's in route order; traffic replays from it (GB-R21)
        R = m.r
        mine: list[list[int]] = [[] for _ in range(n)]
        counts = [0] * R
        traffic = [0] * n
        black = m.black
        for x in self.log:
            p, r = divmod(x, R)
            mine[p].append(r)
            traffic[p] += counts[r] + black[r]
            counts[r] += 1
        for p in range(n):
            _need(mine[p] == self.rroads[p], "log", f"seat {p}'s markers in the log differ from rroads[{p}]")
        # --- score sheets: passengers and buildings replay from the route (GB-R24..GB-R34)
        completed = nu if ph in (P_REVEAL, P_END) else (nu - 1 if ph == P_PLACE else 0)
        first, later = g.comp["common_first_value"], g.comp["common_later_value"]
        values = (0, first) if g.solo else (0, first, later)
        for p in range(n):
            rt, real = self.route[p], self.sheets[p]
            sh = new_sheet()
            for q in rt[1:-1] if (self.elim[p] and rt and rt[-1] in rt[:-1]) else rt[1:]:
                if m.code[q]:
                    rules.reach(sh, m.code[q], m.star[q])
            if sh[:TZ] != real[:TZ]:
                f = next(f for f in range(TZ) if sh[f] != real[f])
                _need(
                    False,
                    f"sheets[{p}][{f}]",
                    f"{SHEET_FIELDS[f]} is {real[f]}, the route gives {sh[f]} (GB-R24..GB-R34)",
                )
            _need(
                real[TR] == min(rules.tr_max, traffic[p]),
                f"sheets[{p}][{TR}]",
                f"traffic {real[TR]}, the board order of the markers gives {min(rules.tr_max, traffic[p])} (GB-R21)",
            )
            _need(real[ELIM] == int(self.elim[p]), f"sheets[{p}][{ELIM}]", f"eliminated box differs from elim[{p}]")
            for j in range(g.commons_in_play):
                v = real[C0 + j]
                _need(
                    v in values,
                    f"sheets[{p}][{C0 + j}]",
                    f"common objective {j + 1} is worth one of {values} (GB-R36, GB-V4)",
                )
                if not v:
                    continue
                _need(j < len(self.common), f"sheets[{p}][{C0 + j}]", "scored before it is drawn")
                idxs, thr = g.common_sum[self.common[j]]
                _need(
                    sum(real[i] for i in idxs) >= thr,
                    f"sheets[{p}][{C0 + j}]",
                    f"common objective {g.commons[self.common[j]]['name']!r} scored but not met (GB-R36)",
                )
        # --- common objectives (GB-R35, GB-R36): checked at every round end for non-eliminated seats
        for j in range(g.commons_in_play):
            vals = [self.sheets[p][C0 + j] for p in range(n)]
            _need(
                self.claimed[j] == any(vals),
                f"claimed[{j}]",
                "claimed exactly when a player has scored the objective (GB-R36)",
            )
            if self.claimed[j]:
                _need(completed >= 1, f"claimed[{j}]", "objectives are checked at the end of a round (GB-R35)")
                _need(
                    max(vals) == first,
                    f"claimed[{j}]",
                    f"the first players to meet an objective score {first} (GB-R36)",
                )
            if ph in (P_REVEAL, P_END) and completed and j < len(self.common):
                idxs, thr = g.common_sum[self.common[j]]
                for p in alive:
                    met = sum(self.sheets[p][i] for i in idxs) >= thr
                    _need(
                        met == bool(vals[p]),
                        f"sheets[{p}][{C0 + j}]",
                        f"common objective {g.commons[self.common[j]]['name']!r} {'met' if met else 'not met'} "
                        f"at the end of the round but {'not ' if met else ''}scored (GB-R35)",
                    )
        if ph != P_PLACE:
            return
        # --- the turn in progress (GB-R7, GB-R8, GB-R11..GB-R14, GB-R22)
        order, cur = self.order, self.cur
        rot = g.rotation[n][self.inspector]
        _need(
            bool(order) and order[0] == self.inspector and [p for p in rot if p in order] == order,
            "order",
            f"{order}: the non-eliminated seats clockwise from the inspector {self.inspector} (GB-R8)",
        )
        for p in range(n):
            _need(p in order or self.elim[p], "order", f"seat {p} is neither in the turn order nor eliminated (GB-R8)")
        _need(
            self.opos < len(order) and order[self.opos] == cur,
            "cur",
            f"{cur}: the seat at position opos={self.opos} of the turn order {order}",
        )
        for p in order[self.opos :]:
            _need(not self.elim[p], f"elim[{p}]", "a seat still to act this round (or acting) is not eliminated")
        steps = g.ticket_shape[self.sheet_type[cur]][self.used[-1]][1]
        rr = self.rroads[cur]
        if not self.extra:
            _need(self.k < len(steps), "k", f"{self.k}: the shape {steps} has {len(steps)} markers")
            _need(self.k <= len(rr), "k", f"{self.k} markers placed this turn, {len(rr)} in the route")
            want = self._dir_of(cur, len(rr) - 1) if self.k else -1
            _need(
                self.prev == want,
                "prev",
                f"{self.prev}: the direction of the previous marker of this turn is {want} (GB-R13)",
            )
        else:  # GB-R22: all shape markers placed, then extras while they end on green lights
            _need(self.k == len(steps), "k", f"{self.k}: a green-light extra follows all {len(steps)} shape markers")
            rt = self.route[cur]
            ok = False
            for x in range(len(rr) - len(steps) + 1):  # x extras placed already
                j = len(rr) - 1 - x  # the last shape marker
                if not m.green[rt[j + 1]]:
                    break
                if self.prev == self._dir_of(cur, j):
                    ok = True
                    break
            _need(
                ok,
                "extra",
                "a green-light extra needs the shape and every extra so far to end on green lights, "
                f"and prev={self.prev} the direction of the last shape marker (GB-R22)",
            )

    def check_invariants(self) -> None:
        """The canonical fields (``_check_fields``), a marker to place in phase 'place', the derived
        fields (visited intersections, the turn's shape: equal to a rebuild from the saved fields)
        and the scores."""
        self._check_fields()
        g = self.game
        m = g.map
        n = self.num_players
        for p in range(n):
            assert bytes(self.visl[p]) == bytes(1 if q in set(self.route[p]) else 0 for q in range(m.n))
        if self.ph == P_PLACE:  # GB-R11, GB-R18: a turn with no legal marker has ended by itself
            _need(self.dir_info()[3] & 15, "cur", f"seat {self.cur} has no legal marker to place (GB-R11)")
        # the derived fields equal a rebuild from the saved ones
        fresh = g._build(dict(self._to_dict(), num_players=n))
        fresh._finish_load()
        assert fresh.visl == self.visl and fresh.shape == self.shape, "derived fields differ from a rebuild"
        for p in range(n):  # the cached running totals are those of the sheets
            assert self._rt[p] is None or self._rt[p] == fresh.running_total(p), "cached running total is stale"
        sc = self.scores()
        for p in range(n):
            if self.elim[p]:
                assert sc[p] == 0
            else:
                assert sc[p] == sum(self.breakdown(p).values())

    def action_to_string(self, a: Any) -> str:
        if self.ph == P_DEAL or self.ph == P_REVEAL:
            return f"chance {a}"
        if a in (A_TICKET_LOW, A_TICKET_HIGH):
            if self.ph == P_DEPART and self.cur >= 0 and len(self.tickets[self.cur]) > a - 4:
                t = self.tickets[self.cur][a - 4]
                return f"depart from ticket #{t} ({self.game.map.ids[self.game.map.dep_node[t]]})"
            return "lower ticket" if a == A_TICKET_LOW else "higher ticket"
        if a == A_DECLINE:
            return "decline green-light extra"
        if 0 <= a < 4:
            if self.ph == P_PLACE and self.cur >= 0:
                m = self.game.map
                e = self.route[self.cur][-1]
                q = m.nb_node[e][a]
                if q >= 0:
                    return f"{DIR_NAMES[a]} to {m.ids[q]}"
            return DIR_NAMES[a]
        return f"action {a}"
