"""Escape from the Hidden Castle (Hugo - das Schlossgespenst), rules per ../shared/rules/hidden_castle.md.

Guests walk clockwise round the castle gallery; Hugo climbs out of the cellar and captures every
guest on a space he enters, locking them on the cellar steps for spooky points. Fewest points win.
The option ``midnight_party`` plays the older three-round "Mitternachtsparty" rules (HC-V*).

Actions (113, the same for every player count and option set):

====== ========================================================================
0-39   PLACE(g): put the next guest on empty gallery space g (setup, HC-R4; between rounds, HC-V12)
40-111 MOVE(slot i, target t) = 40 + 12*i + t: t = 0 walks all n steps, t = k ends in room k
112    DECLINE (Midnight Party only, HC-V9)
====== ========================================================================

Chance nodes: the start player (outcome = seat, HC-R3) and every die roll (outcome = face index
0..5 of the die in ``data/components.json``, each 1/6, HC-R5). A Hugo face resolves automatically
(HC-R6), as does a number rolled in the variant by a player with no guest on the gallery (HC-V9).

Phases are :class:`Phase` (an ``IntEnum``, saved as its int in ``phase_id``).

Version history:
    v0: first release.
    v0 (issue 12, no change of play, observations or saved states): the folder in the shared shape
        (data/components.json loaded by data.py, the wiring in the package's GameSpec); the encoder
        keeps its guest planes itself (the rules no longer write them); phases are an IntEnum. A
        saved state's ``phase_id`` stays a plain int (an IntEnum member is refused like a bool).
    0.1.0 dev: faster heuristic bot (same decisions): ``bot.policy`` draws its tie-breaks with one
        ``rng.random(n)`` (the same numbers), applies each move to its copy without re-checking the
        mask, reads the free rooms once per placement (behaviour and observations unchanged; golden
        identical).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, ClassVar

import numpy as np

from ..core.game import CHANCE, TERMINAL, Game, Option, State, as_action
from ..core.schema import Dict, Int, List, OneOf, Spec
from . import data
from .data import DIE_FACES, GALLERY, MAX_GUESTS, MAX_PLAYERS, MAX_ROLL, MAX_ROOMS, MAX_STEPS


class Phase(IntEnum):
    """Where the game stands (saved as its int in ``phase_id``)."""

    START = 0  # chance: the start player (HC-R3)
    SETUP = 1  # players place their guests in turn (HC-R4, HC-R30)
    ROLL = 2  # chance: the die of the player to move (HC-R5)
    MOVE = 3  # the player to move moves a guest by the number rolled (HC-R7)
    REPLACE = 4  # Midnight Party: guests from the cellar are placed again between rounds (HC-V12)
    END = 5


# The members by name at module level: the hot paths compare against these (a module global is
# several times faster than ``Phase.MOVE``); bot, renderer and tests use them too.
START, SETUP, ROLL, MOVE, REPLACE, END = Phase
PHASES = tuple(p.name.lower() for p in Phase)  # phase() names, by phase id

# Location codes (one int per guest, shared by rules, encoder, bot and renderer):
#   0 .. G-1                      gallery space g (0 = the arrow space by the cellar door)
#   ROOM0 + k - 1                 room k (1-based room id, k <= MAX_ROOMS)
#   STEP0 + j                     cellar step j (index into the side's ``steps`` list)
#   UNPLACED                      not yet placed (before setup placement)
# Hugo's position is one int: -r while he is still on his cellar path with r steps left to
# gallery space 0, 0 .. G-1 once he is on the gallery (HC-R20, HC-V4).
ROOM0 = GALLERY
STEP0 = ROOM0 + MAX_ROOMS
UNPLACED = STEP0 + MAX_STEPS
NUM_PLACES = UNPLACED + 1

# Saved states: bound of each seat's scoring-event tallies (captures, +1 rooms, green rooms). The
# rules set none (a guest may be captured, leave the cellar and be captured again any number of
# times), but Hugo moves at most 48 times in a base game and a Hugo face comes up in a third of
# the rolls, so a game that reaches 10,000 events of one kind needs about 10,000 turns: its
# probability is below 1e-1000. Larger tallies are refused as damaged.
MAX_EVENTS = 10_000

NUM_TARGETS = MAX_ROOMS + 1
PLACE0 = 0
MOVE0 = GALLERY
DECLINE = MOVE0 + MAX_GUESTS * NUM_TARGETS
NUM_ACTIONS = DECLINE + 1


def _int_set(values: Iterable[int]) -> Spec:
    """Schema of an int that must be one of ``values``: one ``Int`` range per run of consecutive values."""
    vs = sorted(set(values))
    runs: list[list[int]] = []
    for v in vs:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    specs = [Int(lo, hi) for lo, hi in runs]
    return specs[0] if len(specs) == 1 else OneOf(*specs)


def _need(cond: bool, msg: str) -> None:
    """check_invariants: raise AssertionError(msg) (not an ``assert``, so it holds under ``python -O``)."""
    if not cond:
        raise AssertionError(msg)


@dataclass
class Side:
    """One side of the board with precomputed move tables."""

    name: str
    G: int
    steps: list[int]
    limited: int
    overflow: int
    hugo_path: int
    rooms: list[dict]
    doors: list[int]  # doors[k] for room k (index 0 unused)
    room_points: list[int]  # per room id (index 0 unused)
    room_exact: list[bool]
    room_names: list[str]
    room_kinds: list[str]
    dest: list[list[int]]  # dest[loc][n]: gallery space reached by walking n steps
    reach: list[list[tuple]]  # reach[loc][n]: ((room, entry_step), ...) rooms reachable within n

    @property
    def num_rooms(self) -> int:
        return len(self.rooms)


def build_side(name: str, s: dict) -> Side:
    G = s["gallery_size"]
    rooms = s["rooms"]
    doors = [-1] + [r["door"] for r in rooms]
    door_room = {d: k for k, d in enumerate(doors) if k > 0}
    dest: list[list[int]] = [[-1] * (MAX_ROLL + 1) for _ in range(NUM_PLACES)]
    reach: list[list[tuple]] = [[()] * (MAX_ROLL + 1) for _ in range(NUM_PLACES)]
    for loc in range(NUM_PLACES):
        if loc < G:
            pos, min_s, left = loc, 0, 0  # a gallery guest may step in from its own door
        elif ROOM0 <= loc < ROOM0 + len(rooms):
            k = loc - ROOM0 + 1
            pos, min_s, left = doors[k] - 1, 1, k  # the door counts as the first step (HC-R11)
        elif STEP0 <= loc < STEP0 + len(s["steps"]):
            pos, min_s, left = -1, 1, 0  # the arrow space counts as the first step (HC-R10)
        else:
            continue
        for n in range(1, MAX_ROLL + 1):
            dest[loc][n] = (pos + n) % G
            out = []
            for step in range(min_s, n):  # reach the door after `step` steps, enter on step+1
                room = door_room.get((pos + step) % G)
                if room is not None and room != left:
                    out.append((room, step + 1))
            reach[loc][n] = tuple(out)
    return Side(
        name=name,
        G=G,
        steps=list(s["steps"]),
        limited=s["limited_steps"],
        overflow=s["overflow_step"],
        hugo_path=s["hugo_path"],
        rooms=rooms,
        doors=doors,
        room_points=[0] + [r["points"] for r in rooms],
        room_exact=[False] + [r["exact"] for r in rooms],
        room_names=[""] + [r["name"] for r in rooms],
        room_kinds=[""] + [r["kind"] for r in rooms],
        dest=dest,
        reach=reach,
    )


class HiddenCastleGame(Game):
    """Escape from the Hidden Castle for 2-8 players (``midnight_party`` = the 1989 rules)."""

    env_id: ClassVar[str] = "hidden_castle_v0"
    name: ClassVar[str] = "Escape from the Hidden Castle"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = MAX_PLAYERS
    default_players: ClassVar[int] = 4
    options_spec: ClassVar[dict[str, Option]] = {
        "midnight_party": Option(False, "HC-V1..V16: the three-round Midnight Party rules", type=bool),
    }
    score_scale: ClassVar[float] = 1.0 / 40.0
    lower_score_wins: ClassVar[bool] = True  # spooky points are penalties (HC-R29)
    simultaneous: ClassVar[bool] = False
    conformance_options: ClassVar[list[dict]] = [{}, {"midnight_party": True}]

    num_actions = NUM_ACTIONS

    def setup(self) -> None:
        """The chosen side's tables (data/components.json), precomputed once per option set."""
        comp = data.components()
        self.components: dict[str, Any] = comp  # both sides (the encoder sizes its blocks for either)
        self.variant: bool = bool(self.options["midnight_party"])
        side_key = "midnight_side" if self.variant else "hugo_side"
        self.data: dict[str, Any] = comp[side_key]
        self.side = build_side(side_key, self.data)
        self.die: list[int] = list(comp["die"])
        self.gpp_table: dict[int, int] = {int(k): v for k, v in comp["guests_per_player"].items()}
        self.clock_labels: list[str]
        self.clock_speed: list[int]
        self.variant_speed: dict[int, int]
        if self.variant:
            self.clock_labels = []
            self.clock_speed = []
            self.rounds: int = self.data["rounds"]
            self.variant_speed = {int(k): v for k, v in self.data["hugo_speed"].items()}
            self.start_score: int = 0
            self.end_score: int = 10**9
        else:
            self.clock_labels = [c["label"] for c in self.data["clock"]]
            self.clock_speed = [c["speed"] for c in self.data["clock"]]
            self.rounds = 1
            self.variant_speed = {}
            self.start_score = self.data["start_trail"]
            self.end_score = self.data["end_trail"]

    def guests_per_player(self, num_players: int) -> int:
        """HC-R1: 6/5/4/3/2/2/2 guests for 2..8 players (data/components.json)."""
        return self.gpp_table[num_players]

    def new_initial_state(self, num_players: int) -> HiddenCastleState:
        self.check_players(num_players)
        return HiddenCastleState(self, int(num_players))

    def state_schema(self, num_players: int) -> Spec:
        """Saved-state fields (``HiddenCastleState._to_dict``) with ranges as tight as the rules
        allow for this player count and side; consistency between fields is ``check_invariants``."""
        n = num_players
        g = self.guests_per_player(n)
        N = n * g
        side = self.side
        seats = Int(0, n - 1)
        locs = [*range(0, ROOM0 + side.num_rooms), *range(STEP0, STEP0 + len(side.steps)), UNPLACED]
        phases = [START, SETUP, ROLL, MOVE, END] + ([REPLACE] if self.variant else [])
        big = 10 * MAX_EVENTS
        top_step = max(abs(v) for v in side.steps)
        if self.variant:
            # HC-V11: per round and seat, |k| <= 10 per guest on a step, rooms +1 / -3 (one guest each)
            lo_r = sum(min(0, v) for v in sorted(side.room_points[1:])[:g])
            hi_r = g * max(top_step, max(side.room_points))
            score = Int(self.rounds * lo_r, self.rounds * hi_r)
            tally = List(Int(0, 0), length=n)  # the base game's scoring events only
            tallies = {"cap_pts": tally, "cap_cnt": tally, "plus_pts": tally, "green_cnt": tally, "green_off": tally}
            queue = List(Int(0, N - 1), max_len=N, unique=True)
            round_scores = List(List(Int(lo_r, hi_r), length=n), max_len=self.rounds)
            clock = Int(0, 0)
        else:
            # HC-R28: every trail is below 46 until the move that ends the game, which adds at
            # most one capture on the top step per guest of a seat (HC-R24/R25)
            score = Int(0, self.end_score - 1 + g * top_step)
            tallies = {
                "cap_pts": List(Int(0, big), length=n),
                "cap_cnt": List(Int(0, MAX_EVENTS), length=n),
                "plus_pts": List(Int(0, MAX_EVENTS), length=n),
                "green_cnt": List(Int(0, MAX_EVENTS), length=n),
                "green_off": List(Int(0, 3 * MAX_EVENTS), length=n),
            }
            queue = List(Int(0, 0), max_len=0)
            round_scores = List(List(Int(0, 0), length=n), max_len=0)
            clock = Int(0, len(self.clock_speed) - 1)
        return Dict(
            {
                "hugo": Int(-side.hugo_path, GALLERY - 1),
                "clock": clock,
                "phase_id": _int_set(phases),
                "turn": seats,
                "start": seats,
                "roll": _int_set(sorted(set(self.die))),
                "placed": Int(0, N),
                "round": Int(1, self.rounds),
                "loc": List(_int_set(locs), length=N),
                "spooky": List(score, length=n),
                "queue": queue,
                **tallies,
                "round_scores": round_scores,
            }
        )

    def _state_from_dict(self, data: dict) -> HiddenCastleState:
        return HiddenCastleState.from_dict(self, data)


class HiddenCastleState(State):
    """One position of Escape from the Hidden Castle."""

    game: HiddenCastleGame
    # The encoder's incremental cache for this state (encoder.py reads and writes it; the rules never
    # do, and a clone or a loaded state starts without one).
    encoder_cache: Any = None

    def __init__(self, game: HiddenCastleGame, num_players: int, _blank: bool = False):
        self.game = game
        self.num_players = n = num_players
        self.side = game.side
        self.variant = game.variant
        self.gpp = game.guests_per_player(n)
        self._mask = None
        if _blank:
            return
        self.loc: list[int] = [UNPLACED] * (n * self.gpp)
        self.spooky: list[int] = [game.start_score] * n  # HC-R2 (trail 10) / HC-V1 (totals 0)
        self.hugo: int = -self.side.hugo_path  # HC-R2 / HC-V1
        self.clock: int = 0  # 23:45
        self.phase_id: Phase = Phase.START
        self.turn: int = 0
        self.start: int = 0
        self.roll: int = 0
        self.placed: int = 0
        self.round: int = 1
        self.round_scores: list[list[int]] = []
        self.queue: list[int] = []
        # scoring events (check_invariants): capture points and counts, +1 rooms, green rooms
        self.cap_pts = [0] * n
        self.cap_cnt = [0] * n
        self.plus_pts = [0] * n
        self.green_cnt = [0] * n
        self.green_off = [0] * n
        self.room_occ: list[int] = [-1] * (MAX_ROOMS + 1)
        self.step_cnt: list[int] = [0] * MAX_STEPS

    # ------------------------------------------------------------------ copy / JSON
    _LISTS = (
        "loc",
        "spooky",
        "queue",
        "cap_pts",
        "cap_cnt",
        "plus_pts",
        "green_cnt",
        "green_off",
        "room_occ",
        "step_cnt",
    )
    _INTS = ("hugo", "clock", "phase_id", "turn", "start", "roll", "placed", "round")
    _SAVED_LISTS = ("loc", "spooky", "queue", "cap_pts", "cap_cnt", "plus_pts", "green_cnt", "green_off")

    def clone(self) -> HiddenCastleState:
        s = HiddenCastleState(self.game, self.num_players, _blank=True)
        d, o = s.__dict__, self.__dict__
        for k in self._INTS:
            d[k] = o[k]
        for k in self._LISTS:
            d[k] = o[k][:]
        s.round_scores = [r[:] for r in self.round_scores]
        return s

    def _to_dict(self) -> dict:
        d = self.__dict__
        out: dict[str, Any] = {k: d[k] for k in self._INTS}
        out["phase_id"] = int(self.phase_id)
        for k in self._SAVED_LISTS:
            out[k] = list(d[k])
        out["round_scores"] = [list(r) for r in self.round_scores]
        return out

    @classmethod
    def from_dict(cls, game: HiddenCastleGame, data: dict) -> HiddenCastleState:
        """Build a state from a dict already checked against ``game.state_schema`` (every saved
        field present, ints in range, lists of the right length); the derived tables (room
        occupants, step counts) are rebuilt from ``loc``. The caller runs
        :meth:`check_invariants`."""
        s = cls(game, data["num_players"], _blank=True)
        for k in cls._INTS:
            setattr(s, k, data[k])
        for k in cls._SAVED_LISTS:
            setattr(s, k, list(data[k]))
        s.phase_id = Phase(data["phase_id"])
        s.round_scores = [list(r) for r in data["round_scores"]]
        s._rebuild_counts()
        return s

    def _rebuild_counts(self) -> None:
        self.room_occ = [-1] * (MAX_ROOMS + 1)
        self.step_cnt = [0] * MAX_STEPS
        for gi, lc in enumerate(self.loc):
            if ROOM0 <= lc < STEP0:
                if self.room_occ[lc - ROOM0 + 1] < 0:  # a second guest is refused by check_invariants
                    self.room_occ[lc - ROOM0 + 1] = gi
            elif STEP0 <= lc < UNPLACED:
                self.step_cnt[lc - STEP0] += 1
        self._mask = None

    # ------------------------------------------------------------------ basics
    def current_player(self) -> int:
        ph = self.phase_id
        if ph == MOVE:
            return self.turn
        if ph == ROLL:
            return CHANCE
        if ph == SETUP:
            return (self.start + self.placed) % self.num_players
        if ph == REPLACE:
            return self.queue[0] // self.gpp
        if ph == END:
            return TERMINAL
        return CHANCE

    def phase(self) -> str:
        return PHASES[self.phase_id]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase_id == START:
            p = 1.0 / self.num_players
            return [(s, p) for s in range(self.num_players)]
        if self.phase_id == ROLL:
            p = 1.0 / DIE_FACES
            return [(f, p) for f in range(DIE_FACES)]
        return []

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is not int:  # the base class has normalised integer-likes
            return False
        if self.phase_id == START:
            return 0 <= outcome < self.num_players
        return self.phase_id == ROLL and 0 <= outcome < DIE_FACES

    def sample_chance(self, rng: np.random.Generator) -> int:
        # rng.random() is several times faster than rng.integers() on the hot path
        if self.phase_id == START:
            return min(int(rng.random() * self.num_players), self.num_players - 1)
        return min(int(rng.random() * DIE_FACES), DIE_FACES - 1)

    def speed(self) -> int:
        """Hugo's spaces per move now (HC-R21 / HC-V3)."""
        if self.variant:
            return self.game.variant_speed[self.num_players]
        return self.game.clock_speed[self.clock]

    def rooms_open(self) -> bool:
        """HC-R12 / HC-V16: rooms can be entered only once Hugo is on the gallery."""
        return self.hugo >= 0

    def guest_slot(self) -> int:
        """The guest slot placed by the next PLACE (HC-R30 in setup, HC-V12 between rounds)."""
        if self.phase_id == SETUP:
            return self.placed // self.num_players
        if self.phase_id == REPLACE:
            return self.queue[0] % self.gpp
        return -1

    # ------------------------------------------------------------------ mask
    def _legal_mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        ph = self.phase_id
        if ph == SETUP or ph == REPLACE:
            m[:GALLERY] = 1
            for lc in self.loc:
                if lc < GALLERY:
                    m[lc] = 0  # HC-R4 / HC-V12: empty gallery spaces only
            return m
        # MOVE phase
        p = self.turn
        g = self.gpp
        base = p * g
        loc = self.loc
        n = self.roll
        side = self.side
        variant = self.variant
        rooms_open = self.hugo >= 0
        occ = self.room_occ
        exact = side.room_exact
        best_step = UNPLACED
        if not variant:
            for i in range(g):
                lc = loc[base + i]
                if STEP0 <= lc < best_step:
                    best_step = lc
        on_gallery = 0
        for i in range(g):
            lc = loc[base + i]
            if lc < GALLERY:
                on_gallery += 1
            elif variant:
                continue  # HC-V15: guests never leave rooms or the cellar
            elif lc >= STEP0 and lc != best_step:
                continue  # HC-R10: highest-valued step first
            a0 = MOVE0 + i * NUM_TARGETS
            m[a0] = 1  # HC-R7/R14: walking all n steps is always legal
            if rooms_open:
                for k, entry in side.reach[lc][n]:
                    o = occ[k]
                    if o < 0:
                        if entry == n or not exact[k]:  # HC-R14, HC-R15 / HC-V8
                            m[a0 + k] = 1
                    elif not variant and entry == n and o // g != p:  # HC-R16 (HC-V5: never)
                        m[a0 + k] = 1
        if variant and on_gallery == 1:
            m[DECLINE] = 1  # HC-V9
        return m

    # ------------------------------------------------------------------ apply
    def _apply(self, a: int) -> None:
        ph = self.phase_id
        if ph == ROLL:
            self._roll(a)
        elif ph == MOVE:
            if a == DECLINE:
                self._next_turn()
            else:
                i, t = divmod(a - MOVE0, NUM_TARGETS)
                self._move_guest(self.turn * self.gpp + i, t)
                self._after_move()
        elif ph == SETUP:
            n = self.num_players
            p = (self.start + self.placed) % n
            self.loc[p * self.gpp + self.placed // n] = a  # HC-R30
            self.placed += 1
            if self.placed == n * self.gpp:
                self.phase_id = ROLL
                self.turn = self.start
        elif ph == REPLACE:
            gi = self.queue.pop(0)
            self.step_cnt[self.loc[gi] - STEP0] -= 1
            self.loc[gi] = a
            if not self.queue:
                self.phase_id = ROLL
                self.turn = self.start
        elif ph == START:
            self.start = a  # HC-R3 (apply_action passes a plain int)
            self.turn = a
            self.phase_id = SETUP

    def _roll(self, face: int) -> None:
        n = self.game.die[face]  # face: any integer-like chance outcome (__index__)
        self.roll = n
        if n == 0:  # HC-R6: Hugo face
            if not self._hugo_move():
                self._after_hugo()
            return
        if self.variant:
            base = self.turn * self.gpp
            if not any(lc < GALLERY for lc in self.loc[base : base + self.gpp]):
                self._next_turn()  # HC-V9: no guest on the gallery, no effect
                return
        self.phase_id = MOVE

    def _after_hugo(self) -> None:
        if not self.variant and self._base_game_over():
            self.phase_id = END
        else:
            self._next_turn()

    def _after_move(self) -> None:
        if self.variant:
            if self._round_over():
                self._end_round()
            else:
                self._next_turn()
        elif self._base_game_over():
            self.phase_id = END  # HC-R28
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        self.turn = (self.turn + 1) % self.num_players
        self.roll = 0
        self.phase_id = ROLL

    def _base_game_over(self) -> bool:
        """HC-R28: clock at 5:00 or a trail at 46 or more."""
        if self.clock == len(self.game.clock_speed) - 1:
            return True
        return max(self.spooky) >= self.game.end_score

    # ------------------------------------------------------------------ guests
    def _move_guest(self, gi: int, t: int) -> None:
        """HC-R31: walk; room effect then expel (HC-R19, R16, R17); or capture on Hugo's space (HC-R9)."""
        loc = self.loc
        origin = loc[gi]
        if origin >= STEP0:
            self.step_cnt[origin - STEP0] -= 1  # HC-R26
        elif origin >= ROOM0:
            self.room_occ[origin - ROOM0 + 1] = -1
        if t == 0:
            dest = self.side.dest[origin][self.roll]
            self.loc[gi] = dest
            if dest == self.hugo:
                self._capture([gi])  # HC-R9
            return
        side = self.side
        occ = self.room_occ[t]
        self.loc[gi] = ROOM0 + t - 1
        self.room_occ[t] = gi
        if not self.variant:
            self._room_effect(gi // self.gpp, t)  # HC-R19
            if occ >= 0:  # HC-R16: expel to the door space
                door = side.doors[t]
                self.loc[occ] = door
                if door == self.hugo:
                    self._capture([occ])  # HC-R17

    def _room_effect(self, p: int, k: int) -> None:
        pts = self.side.room_points[k]
        if pts > 0:
            self.spooky[p] += pts
            self.plus_pts[p] += pts
        elif pts < 0:
            self.green_cnt[p] += 1
            off = min(-pts, self.spooky[p])  # never below 0
            self.spooky[p] -= off
            self.green_off[p] += off

    def _capture(self, group: list[int]) -> None:
        """HC-R24/R25 (HC-V7): the group goes to the first free limited step, else the overflow step."""
        side = self.side
        cnt = self.step_cnt
        j = side.overflow
        for s in range(side.limited):
            if cnt[s] == 0:
                j = s
                break
        cnt[j] += len(group)
        code = STEP0 + j
        value = side.steps[j]
        g = self.gpp
        for gi in group:
            self.loc[gi] = code
            if not self.variant:
                p = gi // g
                self.spooky[p] += value
                self.cap_pts[p] += value
                self.cap_cnt[p] += 1

    # ------------------------------------------------------------------ Hugo
    def _hugo_move(self) -> bool:
        """HC-R20..R27 (HC-V3/V4/V10): move Hugo ``speed`` spaces, capturing on every space entered.

        Returns True when the move ended a Midnight Party round (the round end already ran)."""
        G = self.side.G
        loc = self.loc
        last_clock = len(self.game.clock_speed) - 1
        for _ in range(self.speed()):
            h = self.hugo
            if h < 0:
                h += 1
                self.hugo = h
                if h < 0:
                    continue  # still on the cellar steps (HC-R18: no captures)
            else:
                h = (h + 1) % G
                self.hugo = h
            if h in loc:
                self._capture([gi for gi, lc in enumerate(loc) if lc == h])  # HC-R23/R24
                if self.variant and self._round_over():
                    self._end_round()  # HC-V10: the rest of the move is dropped
                    return True
            if h == 0 and not self.variant:
                self.clock += 1  # HC-R22
                if self.clock == last_clock:
                    return False  # HC-R27
        return False

    # ------------------------------------------------------------------ variant rounds
    def _round_over(self) -> bool:
        """HC-V10: no guest on the gallery, or every room occupied."""
        if all(o >= 0 for o in self.room_occ[1 : self.side.num_rooms + 1]):
            return True
        return not any(lc < GALLERY for lc in self.loc)

    def round_points(self) -> list[int]:
        """HC-V11: this round's spooky points per player (steps |k|, rooms +1 / -3)."""
        side = self.side
        out = [0] * self.num_players
        g = self.gpp
        for gi, lc in enumerate(self.loc):
            if STEP0 <= lc < UNPLACED:
                out[gi // g] += abs(side.steps[lc - STEP0])
            elif ROOM0 <= lc < STEP0:
                out[gi // g] += side.room_points[lc - ROOM0 + 1]
        return out

    def _end_round(self) -> None:
        side = self.side
        loc = self.loc
        over = STEP0 + side.overflow
        for gi, lc in enumerate(loc):
            if lc < GALLERY:
                self.loc[gi] = over  # HC-V10: the rest go to step -2
                self.step_cnt[side.overflow] += 1
        pts = self.round_points()
        self.round_scores.append(pts)
        for p in range(self.num_players):
            self.spooky[p] += pts[p]
        self.roll = 0
        if self.round >= self.game.rounds:
            self.phase_id = END  # HC-V2
            return
        n = self.num_players
        old = self.start
        order = sorted(range(n), key=lambda p: (-self.spooky[p], (p - old) % n))
        queue = []
        for j in range(len(side.steps)):  # HC-V12: -10 first, ... -2 last
            code = STEP0 + j
            for p in order:
                for i in range(self.gpp):
                    if loc[p * self.gpp + i] == code:
                        queue.append(p * self.gpp + i)
        for k in range(1, side.num_rooms + 1):  # HC-V12: rooms empty onto their doors
            gi = self.room_occ[k]
            if gi >= 0:
                self.loc[gi] = side.doors[k]
                self.room_occ[k] = -1
        self.hugo = -side.hugo_path  # HC-V12: Hugo back to -10
        self.start = order[0]  # HC-V13
        self.turn = self.start
        self.round += 1
        self.queue = queue
        self.phase_id = REPLACE if queue else ROLL

    # ------------------------------------------------------------------ results
    def scores(self) -> list[float]:
        """Spooky points (trail, or Midnight Party totals): lower is better."""
        return [float(v) for v in self.spooky]

    def winners(self) -> list[int]:
        """HC-R29 / HC-V14: the lowest value wins; ties share the win."""
        best = min(self.spooky)
        return [p for p, v in enumerate(self.spooky) if v == best]

    # ------------------------------------------------------------------ strings
    def place_name(self, lc: int) -> str:
        side = self.side
        if lc < GALLERY:
            return f"g{lc}"
        if lc < STEP0:
            k = lc - ROOM0 + 1
            return f"room {k} ({side.room_names[k]})" if k <= side.num_rooms else f"room {k} (none)"
        if lc < UNPLACED:
            return f"step {side.steps[lc - STEP0]:+d}"
        return "start"

    def action_to_string(self, a: Any) -> str:
        ph = self.phase_id
        a = as_action(a)
        if ph == START and self.is_legal_chance(a):
            return f"start player {a}"
        if ph == ROLL and self.is_legal_chance(a):
            f = self.game.die[int(a)]
            return "roll Hugo" if f == 0 else f"roll {f}"
        a = int(a)
        if a < MOVE0:
            return f"place guest on g{a}"
        if a == DECLINE:
            return "decline to move"
        i, t = divmod(a - MOVE0, NUM_TARGETS)
        target = "walk" if t == 0 else f"room {t}"
        s = f"move guest {i} {target}"
        if ph == MOVE and self.turn * self.gpp + i < len(self.loc):
            lc = self.loc[self.turn * self.gpp + i]
            if lc != UNPLACED and self.roll:
                to = self.place_name(self.side.dest[lc][self.roll] if t == 0 else ROOM0 + t - 1)
                s += f" ({self.place_name(lc)} -> {to})"
        return s

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """Raise AssertionError, naming the saved field first, unless the position is one the rules
        can reach (as far as it can be told from the position) and can be played on to the end.

        Also run after every action of the conformance suite's random games; O(guests + seats)."""
        n, g = self.num_players, self.gpp
        N = n * g
        side, game = self.side, self.game
        variant = self.variant
        ph = self.phase_id
        loc = self.loc
        h = self.hugo
        path = side.hugo_path
        nr, ns = side.num_rooms, len(side.steps)
        _need(len(loc) == N, f"loc: {len(loc)} guests, expected {N} ({n} players x {g} guests, HC-R1)")
        _need(0 <= ph < len(PHASES) and (variant or ph != REPLACE), f"phase_id: {ph} is not a phase of this game")

        # ---- where the guests are
        room_of = [-1] * (MAX_ROOMS + 1)
        steps = [0] * MAX_STEPS
        gallery = [0] * GALLERY
        unplaced = 0
        for gi, lc in enumerate(loc):
            if 0 <= lc < GALLERY:
                gallery[lc] += 1
            elif ROOM0 <= lc < STEP0:
                k = lc - ROOM0 + 1
                _need(k <= nr, f"loc[{gi}]: guest {gi} is in room {k}; this side has rooms 1..{nr}")
                _need(
                    room_of[k] < 0,
                    f"loc[{gi}]: room {k} already holds guest {room_of[k]} (one guest per room, HC-R16/HC-V5)",
                )
                room_of[k] = gi
            elif STEP0 <= lc < UNPLACED:
                _need(lc - STEP0 < ns, f"loc[{gi}]: guest {gi} is on cellar step {lc - STEP0}; this side has {ns}")
                steps[lc - STEP0] += 1
            else:
                _need(lc == UNPLACED, f"loc[{gi}]: {lc} is not a location code (0..{UNPLACED})")
                unplaced += 1
        _need(room_of == self.room_occ, "room_occ (derived from loc) is out of step with loc")
        _need(steps == self.step_cnt, "step_cnt (derived from loc) is out of step with loc")
        on_gallery = N - unplaced - sum(steps) - sum(1 for o in room_of if o >= 0)

        # ---- before play: HC-R2 (start position), HC-R3 (start player), HC-R4/R30 (setup order)
        if ph == START:
            fresh = game.new_initial_state(n)._to_dict()
            mine = self._to_dict()
            for k, v in fresh.items():
                _need(
                    mine[k] == v,
                    f"{k}: {mine[k]!r} before the start player is drawn; a new game has {v!r} (HC-R2, HC-R3)",
                )
            return
        if ph == SETUP:
            _need(self.placed < N, f"placed: {self.placed} guests placed, but setup ends after {N} (HC-R4)")
            _need(
                self.turn == self.start,
                f"turn: {self.turn} during setup, expected the start player {self.start} (HC-R3)",
            )
            for gi, lc in enumerate(loc):
                p, i = divmod(gi, g)
                k = i * n + (p - self.start) % n  # this guest's placement number (HC-R30)
                if k < self.placed:
                    _need(
                        lc < GALLERY,
                        f"loc[{gi}]: seat {p}'s guest slot {i} was placed {k + 1}. in setup "
                        f"and must be on a gallery space (HC-R4, HC-R30)",
                    )
                else:
                    _need(
                        lc == UNPLACED,
                        f"loc[{gi}]: seat {p}'s guest slot {i} is only placed "
                        f"{k + 1}. in setup, after {self.placed} placements (HC-R30)",
                    )
            _need(self.round == 1, f"round: {self.round} during setup, expected 1")
        else:
            _need(
                self.placed == N, f"placed: {self.placed} in phase {PHASES[ph]}, expected all {N} guests placed (HC-R4)"
            )
            _need(unplaced == 0, f"loc: {unplaced} guests unplaced in phase {PHASES[ph]} (HC-R4)")
        if ph == SETUP or ph == REPLACE:
            for sp in range(GALLERY):
                _need(
                    gallery[sp] <= 1,
                    f"loc: {gallery[sp]} guests on g{sp} while guests are being placed "
                    f"(one per empty space, HC-R4/HC-V12)",
                )

        # ---- the roll: HC-R5/R7 (a number to move in phase move, cleared when the turn passes)
        numbers = sorted({f for f in game.die if f > 0})
        if ph == MOVE:
            _need(
                self.roll in numbers,
                f"roll: {self.roll} in phase move, expected a number of the die {numbers} (HC-R5, HC-R7)",
            )
        elif ph == END and not variant:
            _need(self.roll == 0 or self.roll in numbers, f"roll: {self.roll} is no number of the die {numbers}")
        else:
            _need(self.roll == 0, f"roll: {self.roll} in phase {PHASES[ph]}, expected 0 (no roll to move)")

        # ---- Hugo: HC-R2/HC-V1 start, HC-R20/HC-V3/V4 cellar path, HC-R12 rooms closed, HC-R23
        if ph in (SETUP, REPLACE):
            _need(
                h == -path,
                f"hugo: {h} in phase {PHASES[ph]}; Hugo waits on his start space ({-path}) "
                f"until play starts (HC-R2, HC-V1, HC-V12)",
            )
        if h < 0:
            speed0 = self.speed() if variant else game.clock_speed[0]
            _need(
                (h + path) % speed0 == 0,
                f"hugo: {h} ({-h} steps from the gallery) cannot be reached: "
                f"from {-path} Hugo climbs {speed0} steps per move (HC-R20/R21, HC-V3/V4)",
            )
            _need(ph != END, f"hugo: {h}: the game cannot have ended with Hugo still in the cellar")
            if ph != REPLACE and ph != SETUP:
                for gi, lc in enumerate(loc):
                    _need(
                        lc < GALLERY,
                        f"loc[{gi}]: guest {gi} is {self.place_name(lc)} while Hugo is still in "
                        f"the cellar (rooms are closed, HC-R12/HC-V16; nobody can be captured yet)",
                    )
        else:
            _need(
                gallery[h] == 0,
                f"loc: {gallery[h]} guests stand on Hugo's space g{h}; they would have been captured (HC-R9, HC-R23)",
            )

        if variant:
            self._check_variant(gallery, steps, room_of, on_gallery)
            return

        # ---- base game: clock (HC-R22/R27), end (HC-R28), trails and their scoring events
        last = len(game.clock_speed) - 1
        _need(
            self.queue == [] and self.round == 1 and self.round_scores == [],
            "queue/round/round_scores: only the Midnight Party variant has rounds",
        )
        _need(
            (self.clock == 0) == (h < 0),
            f"clock: {game.clock_labels[self.clock]} with Hugo at {h}; the "
            f"clock leaves 23:45 exactly when Hugo first steps onto space 0 (HC-R22)",
        )
        if self.clock == last:
            _need(h == 0, f"hugo: {h} at 5:00; Hugo stops on space 0 when the clock reaches 5:00 (HC-R27)")
        over = self.clock == last or max(self.spooky) >= game.end_score
        _need(
            over == (ph == END),
            f"phase_id: {PHASES[ph]}, but the game "
            f"{'is' if over else 'is not'} over (5:00 or a trail at 46 or more, HC-R28)",
        )
        lo, hi = min(side.steps), max(side.steps)
        for p in range(n):
            sp = self.spooky[p]
            _need(
                sp == game.start_score + self.cap_pts[p] + self.plus_pts[p] - self.green_off[p],
                f"spooky[{p}]: trail {sp} != 10 + captures {self.cap_pts[p]} + rooms {self.plus_pts[p]} "
                f"- green rooms {self.green_off[p]} (cap_pts/plus_pts/green_off, HC-R19/R24)",
            )
            _need(
                self.green_off[p] <= 3 * self.green_cnt[p],
                f"green_off[{p}]: {self.green_off[p]} taken off in {self.green_cnt[p]} green-room entries (HC-R19)",
            )
            _need(
                lo * self.cap_cnt[p] <= self.cap_pts[p] <= hi * self.cap_cnt[p],
                f"cap_pts[{p}]: {self.cap_pts[p]} points from {self.cap_cnt[p]} captures ({lo}..{hi} each, HC-R24)",
            )
            on_steps = sum(1 for lc in loc[p * g : (p + 1) * g] if STEP0 <= lc < UNPLACED)
            _need(
                on_steps <= self.cap_cnt[p],
                f"cap_cnt[{p}]: {self.cap_cnt[p]} captures, but {on_steps} of seat {p}'s guests are on the steps",
            )
            if h < 0:
                _need(
                    sp == game.start_score and self.cap_cnt[p] == self.plus_pts[p] == self.green_cnt[p] == 0,
                    f"spooky[{p}]: {sp} with scoring events before Hugo reached the gallery (HC-R12, HC-R18)",
                )

    def _check_variant(self, gallery: list[int], steps: list[int], room_of: list[int], on_gallery: int) -> None:
        """Midnight Party (HC-V*) part of :meth:`check_invariants`."""
        n, g = self.num_players, self.gpp
        side, game = self.side, self.game
        ph = self.phase_id
        loc = self.loc
        _need(self.clock == 0, "clock: the Midnight Party has no clock (HC-V1)")
        done = len(self.round_scores)
        _need(
            done == self.round - (0 if ph == END else 1),
            f"round_scores: {done} rounds scored in round {self.round}, phase {PHASES[ph]} (HC-V2)",
        )
        for p in range(n):
            _need(
                self.spooky[p] == sum(r[p] for r in self.round_scores),
                f"spooky[{p}]: total {self.spooky[p]} != the sum of its round scores (HC-V11)",
            )
        if ph != REPLACE:
            _need(self.queue == [], f"queue: guests waiting to be placed in phase {PHASES[ph]} (HC-V12)")
        if self.round >= 2 and ph != END:  # totals change only when a round is scored
            _need(
                self.spooky[self.start] == max(self.spooky),
                f"start: seat {self.start} has {self.spooky[self.start]} points; the player with the most "
                f"({max(self.spooky)}) starts the round (HC-V13)",
            )
        if ph == ROLL or ph == MOVE:
            # HC-V10: the round would already have ended (and a Hugo move captures nobody: no end)
            _need(on_gallery > 0, "loc: no guest is on the gallery, so the round is over (HC-V10)")
            _need(
                any(o < 0 for o in room_of[1 : side.num_rooms + 1]),
                "loc: every room is occupied, so the round is over (HC-V10)",
            )
            # HC-V6/V7: groups fill -10, -9, ... in turn; -2 only once -10..-3 are all taken
            lim = side.limited
            for j in range(1, lim):
                _need(
                    steps[j] == 0 or steps[j - 1] > 0,
                    f"loc: step {side.steps[j]:+d} is taken while {side.steps[j - 1]:+d} is free (HC-V7)",
                )
            for j in range(lim, len(side.steps)):
                _need(
                    steps[j] == 0 or steps[lim - 1] > 0,
                    f"loc: guests on step {side.steps[j]:+d} while a limited step is free (HC-V7)",
                )
            if ph == MOVE:
                base = self.turn * g
                _need(
                    any(lc < GALLERY for lc in loc[base : base + g]),
                    f"turn: seat {self.turn} has no guest on the gallery to move (HC-V9)",
                )
        elif ph == REPLACE:
            self._check_replace()
        elif ph == END:
            _need(self.round == game.rounds, f"round: the game ended in round {self.round} of {game.rounds} (HC-V2)")
            _need(on_gallery == 0, "loc: guests on the gallery after the last round (they go to -2, HC-V10)")
            _need(
                self.round_scores[-1] == self.round_points(),
                "round_scores: the last round's scores do not match the final position (HC-V11)",
            )

    def _check_replace(self) -> None:
        """HC-V12/V13: between rounds, the queue holds exactly the guests still in the cellar, in
        placing order, and ``start`` is the new start player."""
        n, g = self.num_players, self.gpp
        loc, q = self.loc, self.queue
        _need(self.round >= 2, f"round: {self.round}: guests are placed between rounds only (HC-V12)")
        _need(self.turn == self.start, f"turn: {self.turn} between rounds, expected the start player {self.start}")
        _need(len(q) > 0, "queue: empty in phase replace (HC-V12)")
        for gi in q:
            _need(
                STEP0 <= loc[gi] < UNPLACED,
                f"queue: guest {gi} is {self.place_name(loc[gi])}, not in the cellar (HC-V12)",
            )
        for gi, lc in enumerate(loc):
            _need(not ROOM0 <= lc < STEP0, f"loc[{gi}]: guest {gi} still in a room between rounds (HC-V12)")
            _need(not (STEP0 <= lc < UNPLACED) or gi in q, f"queue: guest {gi} in the cellar is not queued (HC-V12)")
        spooky = self.spooky
        for old in range(n):  # the start player of the round just scored (not saved)
            order = sorted(range(n), key=lambda p: (-spooky[p], (p - old) % n))
            if order[0] != self.start:
                continue
            rank = {p: r for r, p in enumerate(order)}
            if sorted(q, key=lambda gi: (loc[gi], rank[gi // g], gi)) == q:
                return
        raise AssertionError(
            "queue/start: not the placing order of HC-V12 (step -10 first; owners by total, "
            "highest first, ties clockwise; lowest slot first) with start as the HC-V13 start player"
        )
