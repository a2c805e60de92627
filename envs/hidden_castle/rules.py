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
0..5 of the die in ``components.json``, each 1/6, HC-R5). A Hugo face resolves automatically
(HC-R6), as does a number rolled in the variant by a player with no guest on the gallery (HC-V9).

Version history:
    v0: first release.
"""
from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import CHANCE, TERMINAL, Game, Option, State
from . import board as B
from .board import GALLERY, MAX_GUESTS, MAX_ROOMS, NUM_PLACES, ROOM0, STEP0, UNPLACED

START, SETUP, ROLL, MOVE, REPLACE, END = range(6)
PHASES = ("start", "setup", "roll", "move", "replace", "end")

ENC_COUNTS = MAX_GUESTS * NUM_PLACES

NUM_TARGETS = MAX_ROOMS + 1
PLACE0 = 0
MOVE0 = GALLERY
DECLINE = MOVE0 + MAX_GUESTS * NUM_TARGETS
NUM_ACTIONS = DECLINE + 1

_COMPONENTS: dict | None = None


def components() -> dict:
    """The validated component data (loaded once)."""
    global _COMPONENTS
    if _COMPONENTS is None:
        _COMPONENTS = B.load_components()
    return _COMPONENTS


class HiddenCastleGame(Game):
    """Escape from the Hidden Castle for 2-8 players (``midnight_party`` = the 1989 rules)."""

    env_id: ClassVar[str] = "hidden_castle_v0"
    name: ClassVar[str] = "Escape from the Hidden Castle"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 8
    default_players: ClassVar[int] = 4
    options_spec: ClassVar[dict[str, Option]] = {
        "midnight_party": Option(False, "HC-V1..V16: the three-round Midnight Party rules", type=bool),
    }
    score_scale: ClassVar[float] = 1.0 / 40.0
    lower_score_wins: ClassVar[bool] = True  # spooky points are penalties (HC-R29)
    simultaneous: ClassVar[bool] = False
    conformance_options: ClassVar[list[dict]] = [{}, {"midnight_party": True}]

    num_actions = NUM_ACTIONS

    def __init__(self, **options: Any):
        super().__init__(**options)
        data = components()
        self.variant: bool = bool(self.options["midnight_party"])
        side_key = "midnight_side" if self.variant else "hugo_side"
        self.data = data[side_key]
        self.side = B.build_side(side_key, self.data)
        self.die: list[int] = list(data["die"])
        self.gpp_table = {int(k): v for k, v in data["guests_per_player"].items()}
        if self.variant:
            self.clock_labels: list[str] = []
            self.clock_speed: list[int] = []
            self.rounds = self.data["rounds"]
            self.variant_speed = {int(k): v for k, v in self.data["hugo_speed"].items()}
            self.start_score = 0
            self.end_score = 10 ** 9
        else:
            self.clock_labels = [c["label"] for c in self.data["clock"]]
            self.clock_speed = [c["speed"] for c in self.data["clock"]]
            self.rounds = 1
            self.variant_speed = {}
            self.start_score = self.data["start_trail"]
            self.end_score = self.data["end_trail"]
        self.observation_size = _OBS_SIZE

    def guests_per_player(self, num_players: int) -> int:
        """HC-R1: 6/5/4/3/2/2/2 guests for 2..8 players (components.json)."""
        return self.gpp_table[num_players]

    def new_initial_state(self, num_players: int) -> "HiddenCastleState":
        self.check_players(num_players)
        return HiddenCastleState(self, int(num_players))

    def _state_from_dict(self, data: dict) -> "HiddenCastleState":
        return HiddenCastleState.from_dict(self, data)

    def renderer(self) -> Callable[[State], np.ndarray]:
        from .render import render_rgb
        return render_rgb

    def heuristic_bot(self, seat: int, seed: int | None = None) -> HeuristicBot:
        from .bot import policy
        return HeuristicBot(policy, seed, name="hidden_castle_heuristic")


class HiddenCastleState(State):
    """One position of Escape from the Hidden Castle."""

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
        self.spooky: list[int] = [game.start_score] * n        # HC-R2 (trail 10) / HC-V1 (totals 0)
        self.hugo: int = -self.side.hugo_path                   # HC-R2 / HC-V1
        self.clock: int = 0                                      # 23:45
        self.phase_id: int = START
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
        self.step_cnt: list[int] = [0] * B.MAX_STEPS
        self._init_enc()

    def _init_enc(self) -> None:
        """Incremental encoder planes, kept in step with ``loc`` by :meth:`_set`:
        ``enc_me[p]`` is the one-hot place of each of seat p's guest slots (6 x 61), and
        ``enc_cnt`` holds each seat's guest count per place (61 per seat) twice over, so the
        seat-relative order starting at any seat is one contiguous slice."""
        g, n = self.gpp, self.num_players
        me = np.zeros((n, ENC_COUNTS), dtype=np.float32)
        cnt = np.zeros(2 * n * NUM_PLACES, dtype=np.float32)
        off2 = n * NUM_PLACES
        for gi, l in enumerate(self.loc):
            p, i = divmod(gi, g)
            me[p, i * NUM_PLACES + l] = 1.0
            cnt[p * NUM_PLACES + l] += 1.0
            cnt[off2 + p * NUM_PLACES + l] += 1.0
        self.enc_me = me
        self.enc_cnt = cnt

    def _set(self, gi: int, new: int) -> None:
        """Move guest ``gi`` to location ``new`` (keeps the encoder planes in step)."""
        old = self.loc[gi]
        self.loc[gi] = new
        p, i = divmod(gi, self.gpp)
        row = self.enc_me[p]
        row[i * NUM_PLACES + old] = 0.0
        row[i * NUM_PLACES + new] = 1.0
        cnt = self.enc_cnt
        o = p * NUM_PLACES
        cnt[o + old] -= 1.0
        cnt[o + new] += 1.0
        o += self.num_players * NUM_PLACES
        cnt[o + old] -= 1.0
        cnt[o + new] += 1.0

    # ------------------------------------------------------------------ copy / JSON
    _LISTS = ("loc", "spooky", "queue", "cap_pts", "cap_cnt", "plus_pts", "green_cnt", "green_off",
              "room_occ", "step_cnt")
    _INTS = ("hugo", "clock", "phase_id", "turn", "start", "roll", "placed", "round")

    def clone(self) -> "HiddenCastleState":
        s = HiddenCastleState(self.game, self.num_players, _blank=True)
        d, o = s.__dict__, self.__dict__
        for k in self._INTS:
            d[k] = o[k]
        for k in self._LISTS:
            d[k] = o[k][:]
        s.round_scores = [r[:] for r in self.round_scores]
        s.enc_me = self.enc_me.copy()
        s.enc_cnt = self.enc_cnt.copy()
        return s

    def _to_dict(self) -> dict:
        out: dict[str, Any] = {"num_players": self.num_players}
        for k in self._INTS:
            out[k] = self.__dict__[k]
        for k in self._LISTS:
            if k not in ("room_occ", "step_cnt"):
                out[k] = list(self.__dict__[k])
        out["round_scores"] = [list(r) for r in self.round_scores]
        return out

    @classmethod
    def from_dict(cls, game: HiddenCastleGame, data: dict) -> "HiddenCastleState":
        s = cls(game, int(data["num_players"]))
        for k in cls._INTS:
            setattr(s, k, int(data[k]))
        for k in cls._LISTS:
            if k in data:
                setattr(s, k, [int(x) for x in data[k]])
        s.round_scores = [[int(x) for x in r] for r in data["round_scores"]]
        s._rebuild_counts()
        return s

    def _rebuild_counts(self) -> None:
        self.room_occ = [-1] * (MAX_ROOMS + 1)
        self.step_cnt = [0] * B.MAX_STEPS
        for gi, l in enumerate(self.loc):
            if ROOM0 <= l < STEP0:
                self.room_occ[l - ROOM0 + 1] = gi
            elif STEP0 <= l < UNPLACED:
                self.step_cnt[l - STEP0] += 1
        self._init_enc()
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
            return [(f, 1.0 / 6.0) for f in range(6)]
        return []

    def is_legal_chance(self, outcome: Any) -> bool:
        if isinstance(outcome, (bool, np.bool_)) or not isinstance(outcome, (int, np.integer)):
            return False
        if self.phase_id == START:
            return 0 <= outcome < self.num_players
        return self.phase_id == ROLL and 0 <= outcome < 6

    def sample_chance(self, rng: np.random.Generator) -> int:
        # rng.random() is several times faster than rng.integers() on the hot path
        if self.phase_id == START:
            return min(int(rng.random() * self.num_players), self.num_players - 1)
        return min(int(rng.random() * 6.0), 5)

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
            for l in self.loc:
                if l < GALLERY:
                    m[l] = 0          # HC-R4 / HC-V12: empty gallery spaces only
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
                l = loc[base + i]
                if STEP0 <= l < best_step:
                    best_step = l
        on_gallery = 0
        for i in range(g):
            l = loc[base + i]
            if l < GALLERY:
                on_gallery += 1
            elif variant:
                continue                        # HC-V15: guests never leave rooms or the cellar
            elif l >= STEP0 and l != best_step:
                continue                        # HC-R10: highest-valued step first
            a0 = MOVE0 + i * NUM_TARGETS
            m[a0] = 1                           # HC-R7/R14: walking all n steps is always legal
            if rooms_open:
                for k, entry in side.reach[l][n]:
                    o = occ[k]
                    if o < 0:
                        if entry == n or not exact[k]:     # HC-R14, HC-R15 / HC-V8
                            m[a0 + k] = 1
                    elif not variant and entry == n and o // g != p:  # HC-R16 (HC-V5: never)
                        m[a0 + k] = 1
        if variant and on_gallery == 1:
            m[DECLINE] = 1                      # HC-V9
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
            self._set(p * self.gpp + self.placed // n, a)   # HC-R30
            self.placed += 1
            if self.placed == n * self.gpp:
                self.phase_id = ROLL
                self.turn = self.start
        elif ph == REPLACE:
            gi = self.queue.pop(0)
            self.step_cnt[self.loc[gi] - STEP0] -= 1
            self._set(gi, a)
            if not self.queue:
                self.phase_id = ROLL
                self.turn = self.start
        elif ph == START:
            self.start = a                     # HC-R3
            self.turn = a
            self.phase_id = SETUP

    def _roll(self, face: int) -> None:
        n = self.game.die[face]
        self.roll = n
        if n == 0:                              # HC-R6: Hugo face
            if not self._hugo_move():
                self._after_hugo()
            return
        if self.variant:
            base = self.turn * self.gpp
            if not any(l < GALLERY for l in self.loc[base:base + self.gpp]):
                self._next_turn()               # HC-V9: no guest on the gallery, no effect
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
            self.phase_id = END                 # HC-R28
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
            self.step_cnt[origin - STEP0] -= 1          # HC-R26
        elif origin >= ROOM0:
            self.room_occ[origin - ROOM0 + 1] = -1
        if t == 0:
            dest = self.side.dest[origin][self.roll]
            self._set(gi, dest)
            if dest == self.hugo:
                self._capture([gi])                      # HC-R9
            return
        side = self.side
        occ = self.room_occ[t]
        self._set(gi, ROOM0 + t - 1)
        self.room_occ[t] = gi
        if not self.variant:
            self._room_effect(gi // self.gpp, t)          # HC-R19
            if occ >= 0:                                  # HC-R16: expel to the door space
                door = side.doors[t]
                self._set(occ, door)
                if door == self.hugo:
                    self._capture([occ])                  # HC-R17

    def _room_effect(self, p: int, k: int) -> None:
        pts = self.side.room_points[k]
        if pts > 0:
            self.spooky[p] += pts
            self.plus_pts[p] += pts
        elif pts < 0:
            self.green_cnt[p] += 1
            off = min(-pts, self.spooky[p])              # never below 0
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
            self._set(gi, code)
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
                    continue                     # still on the cellar steps (HC-R18: no captures)
            else:
                h = (h + 1) % G
                self.hugo = h
            if h in loc:
                self._capture([gi for gi, l in enumerate(loc) if l == h])   # HC-R23/R24
                if self.variant and self._round_over():
                    self._end_round()            # HC-V10: the rest of the move is dropped
                    return True
            if h == 0 and not self.variant:
                self.clock += 1                  # HC-R22
                if self.clock == last_clock:
                    return False                 # HC-R27
        return False

    # ------------------------------------------------------------------ variant rounds
    def _round_over(self) -> bool:
        """HC-V10: no guest on the gallery, or every room occupied."""
        if all(o >= 0 for o in self.room_occ[1:self.side.num_rooms + 1]):
            return True
        return not any(l < GALLERY for l in self.loc)

    def round_points(self) -> list[int]:
        """HC-V11: this round's spooky points per player (steps |k|, rooms +1 / -3)."""
        side = self.side
        out = [0] * self.num_players
        g = self.gpp
        for gi, l in enumerate(self.loc):
            if STEP0 <= l < UNPLACED:
                out[gi // g] += abs(side.steps[l - STEP0])
            elif ROOM0 <= l < STEP0:
                out[gi // g] += side.room_points[l - ROOM0 + 1]
        return out

    def _end_round(self) -> None:
        side = self.side
        loc = self.loc
        over = STEP0 + side.overflow
        for gi, l in enumerate(loc):
            if l < GALLERY:
                self._set(gi, over)              # HC-V10: the rest go to step -2
                self.step_cnt[side.overflow] += 1
        pts = self.round_points()
        self.round_scores.append(pts)
        for p in range(self.num_players):
            self.spooky[p] += pts[p]
        self.roll = 0
        if self.round >= self.game.rounds:
            self.phase_id = END                  # HC-V2
            return
        n = self.num_players
        old = self.start
        order = sorted(range(n), key=lambda p: (-self.spooky[p], (p - old) % n))
        queue = []
        for j in range(len(side.steps)):         # HC-V12: -10 first, ... -2 last
            code = STEP0 + j
            for p in order:
                for i in range(self.gpp):
                    if loc[p * self.gpp + i] == code:
                        queue.append(p * self.gpp + i)
        for k in range(1, side.num_rooms + 1):   # HC-V12: rooms empty onto their doors
            gi = self.room_occ[k]
            if gi >= 0:
                self._set(gi, side.doors[k])
                self.room_occ[k] = -1
        self.hugo = -side.hugo_path              # HC-V12: Hugo back to -10
        self.start = order[0]                    # HC-V13
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

    # ------------------------------------------------------------------ observation
    def observation(self, seat: int) -> np.ndarray:
        return _encode(self, seat)

    # ------------------------------------------------------------------ strings
    def place_name(self, l: int) -> str:
        side = self.side
        if l < GALLERY:
            return f"g{l}"
        if l < STEP0:
            k = l - ROOM0 + 1
            return f"room {k} ({side.room_names[k]})" if k <= side.num_rooms else f"room {k} (none)"
        if l < UNPLACED:
            return f"step {side.steps[l - STEP0]:+d}"
        return "start"

    def action_to_string(self, a: Any) -> str:
        ph = self.phase_id
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
            l = self.loc[self.turn * self.gpp + i]
            if l != UNPLACED and self.roll:
                to = self.place_name(self.side.dest[l][self.roll] if t == 0 else ROOM0 + t - 1)
                s += f" ({self.place_name(l)} -> {to})"
        return s

    def __str__(self) -> str:
        from .render import render_text
        return render_text(self)

    # ------------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        n, g = self.num_players, self.gpp
        side = self.side
        assert len(self.loc) == n * g
        placed_phase = self.phase_id not in (START, SETUP)
        rooms = [0] * (MAX_ROOMS + 1)
        steps = [0] * B.MAX_STEPS
        gallery = [0] * GALLERY
        for gi, l in enumerate(self.loc):
            assert 0 <= l < NUM_PLACES, f"guest {gi} at bad location {l}"
            if l == UNPLACED:
                assert not placed_phase, f"guest {gi} unplaced in phase {self.phase()}"
            elif l < GALLERY:
                gallery[l] += 1
            elif l < STEP0:
                assert l - ROOM0 < side.num_rooms, f"guest {gi} in a room that does not exist"
                rooms[l - ROOM0 + 1] += 1
                assert self.room_occ[l - ROOM0 + 1] == gi
            else:
                assert l - STEP0 < len(side.steps), f"guest {gi} on a step that does not exist"
                steps[l - STEP0] += 1
        assert max(rooms) <= 1, "a room holds two guests"
        assert steps == self.step_cnt, "step counts out of sync"
        for k in range(1, MAX_ROOMS + 1):
            assert (self.room_occ[k] >= 0) == (rooms[k] == 1)
        if self.phase_id == SETUP:
            assert max(gallery) <= 1, "two guests on one space during setup"
            assert sum(1 for l in self.loc if l != UNPLACED) == self.placed
        if self.hugo >= 0 and self.phase_id != END:
            assert gallery[self.hugo] == 0, "a guest stands on Hugo's space"
        assert -side.hugo_path <= self.hugo < GALLERY
        if self.variant:
            assert len(self.round_scores) == self.round - (0 if self.phase_id == END else 1)
            for p in range(n):
                assert self.spooky[p] == sum(r[p] for r in self.round_scores), "totals != round scores"
            if self.phase_id not in (REPLACE, END, START, SETUP):
                assert self.queue == []
        else:
            for p in range(n):
                assert self.spooky[p] >= 0
                assert self.spooky[p] == (self.game.start_score + self.cap_pts[p] + self.plus_pts[p]
                                          - self.green_off[p]), "trail != scoring events"
                assert self.green_off[p] <= 3 * self.green_cnt[p]
                lo, hi = min(side.steps), max(side.steps)
                assert lo * self.cap_cnt[p] <= self.cap_pts[p] <= hi * self.cap_cnt[p]
                on_steps = sum(1 for l in self.loc[p * g:(p + 1) * g] if STEP0 <= l < UNPLACED)
                assert on_steps <= self.cap_cnt[p]
            assert 0 <= self.clock < len(self.game.clock_speed)
            if self.clock > 0:
                assert self.hugo >= 0


from .encoder import OBS_SIZE as _OBS_SIZE, encode as _encode  # noqa: E402  (the encoder needs components())
