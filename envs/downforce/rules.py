"""Downforce (Restoration Games, 2017) rules: auction, race and betting (spec ``rules/downforce.md``).

Version history:
    v0: first version (base game, powers, extra powers, odds betting, manual steering, tracks).
    v0, issue 13: manual steering is the default (DF-V5, as the seed says: the current player
    moves every car, opponents' included, and may steer one into a dead end); ``steering="auto"``
    stays as a simplification option. Games with default options therefore differ from before
    (more decisions: a STEER sub-step at every DF-R20 choice point); the env id stays ``_v0``.
    v0, issue 12: the canonical game shape; behaviour unchanged (the golden playthroughs are
    identical). ``SPEC`` in the package wires rules, encoder, heuristic and renders (the rules import
    none of them); the encoder is a core ``Encoder`` with the same named blocks and offsets, now
    with their true ranges; the data files moved under ``data/`` (``data.py``, core
    ``resolve_data``), so the ``track`` option also takes a path to a track JSON file (relative to
    the working directory); stages, decisions and tasks are IntEnums, saved by name as before; one
    card resolver (the separate fast resolution of games without powers is gone, its speed kept by
    running the common tasks inline). Saved states load as before; one saved form changed: a
    game without powers saved at a wild line now holds the task stack there, as games with powers
    always did (the stack-less form saved before still loads and plays on). The 1-ply race
    evaluation (``race_value``, ``steer_scores``, ``play_values``) moved from the heuristic to this
    module: the heuristic and the observation's action features share it.
    0.1.0 dev: faster heuristic bot (same decisions): the 1-ply race evaluation (``play_values``,
    ``finish_turn``) steers a lookahead copy's cars inside the movement (``_steer_by``) instead of
    pausing at every choice point, reuses a movement's steering plan at its later choice points
    and reads ``friendly_cars`` once per evaluation (same values; behaviour and observations
    unchanged; golden identical).
    0.1.0 dev, issue 19: ``race_value`` (and ``play_values``) take ``lead`` / ``rival_lead``, the
    weight of each side's best-placed car, default 0 (the former value exactly); the heuristic
    offers them, and ``grid_bonus``, as styles for imitation teachers. The standard heuristic, the
    action features and play are unchanged (heuristic pins identical).

Action layout (Discrete(71), masked):
    0-47 PLAY/BID card id; 48-53 BET car; 54-59 CHOOSE_POWER (keep the power paired with car c);
    60-62 STEER to lane l-1 / straight / l+1; 63 NO; 64 YES; 65-70 CHOOSE_COLOR car.

Chance is dealt item by item, so ``chance_outcomes`` is always exact and small: the grid (one car
per grid position), the deal (one card per deal slot; slot k goes to seat k mod n, the last two
slots of a 4-5 player deal are set aside), the auction order (one car per auction) and, with
powers, the power paired with each auctioned car (drawn from the 6 or 12 power pool).

A race card is resolved by a small explicit task stack (``State.tasks``) so that every sub-step
(wild naming, steering, optional powers) is a normal decision and the state stays JSON-safe. It is
the one resolver of a card (with and without powers); the common tasks run inline (a line's
movement right after its line, a STEER answer continuing the car's movement), so the stack is
written only where a decision pauses the card.

Phases are IntEnums (``Stage``, ``Dec``, ``Task``); saved states keep their names (``"race"``,
``"steer"``, ``["line", 2]``), so the saved form is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from functools import cache
from typing import Any

import numpy as np

from ..core import schema as S
from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State
from . import data as D

NUM_CARS = D.NUM_CARS
NUM_CARDS = D.NUM_CARDS
NUM_REGULAR = D.NUM_REGULAR
A_BET = 48
A_POWER = 54
A_STEER = 60
A_NO = 63
A_YES = 64
A_COLOR = 65
NUM_ACTIONS = 71

(
    AGGRESSIVE,
    CUNNING,
    DETERMINED,
    STRATEGIC,
    TRICKY,
    UNPREDICTABLE,
    AMBITIOUS,
    EXPERIENCED,
    TOUGH,
    BOLD,
    DEFENSIVE,
    RECKLESS,
) = range(12)
NO_POWER = -1


class Stage(IntEnum):
    """The stage of the game (saved by its name, ``STAGE_NAMES``)."""

    GRID = 0  # setup 1: the grid, one car per chance node
    DEAL = 1  # setup 2: the deal, one card per chance node
    ORDER = 2  # setup 3: the auction order
    POWERS = 3  # setup 3 (DF-V1): the power paired with each auctioned car
    AUCTION = 4  # DF-R4 .. DF-R10
    POWER = 5  # DF-V1: the buyer of a second car keeps one of two powers
    RACE = 6  # DF-R11 .. DF-R22
    BET = 7  # DF-R23 .. DF-R26
    END = 8


class Dec(IntEnum):
    """The decision asked now (saved by its name, ``DEC_NAMES``); the observation's ``dec`` block
    holds ``dec - 1`` one-hot."""

    NONE = 0  # chance node or the end
    BID = 1
    POWER = 2
    PLAY = 3
    WILD = 4
    STEER = 5
    YESNO = 6
    COLOR = 7
    BET = 8


class Task(IntEnum):
    """A pending step of the card being resolved (``State.tasks`` entries ``[Task, *args]``,
    saved as ``[name, *args]`` with the names of ``TASK_NAMES``)."""

    PRE = 0  # Tricky / Strategic prompts before the first line (DF-V1.4, DF-V1.5)
    LINE = 1  # [LINE, i]: the card's i-th line in line order (DF-R13)
    MOVE = 2  # [MOVE, car, spaces left, is_line]: movement (DF-R16 .. DF-R21)
    AFTER_LINE = 3  # [AFTER_LINE, car, start]: Ambitious / Tough / Reckless (DF-V7 3)
    EXPERIENCED = 4  # [EXPERIENCED, car, start, moved] (DF-V2.2)
    TURN_END = 5  # [TURN_END, j]: turn-end powers of seat turn_player + j (DF-V7 4)
    DETERMINED = 6  # [DETERMINED, seat, first car] (DF-V1.3)
    END_TURN = 7  # betting rounds, then the end check (DF-R24, DF-R28)


STAGE_NAMES = ("grid", "deal", "order", "powers", "auction", "power", "race", "bet", "end")
DEC_NAMES = ("", "bid", "power", "play", "wild", "steer", "yesno", "color", "bet")
TASK_NAMES = ("pre", "line", "move", "after_line", "experienced", "turn_end", "determined", "end_turn")
_STAGE_OF = {name: i for i, name in enumerate(STAGE_NAMES)}
_DEC_OF = {name: i for i, name in enumerate(DEC_NAMES)}
_TASK_OF = {name: i for i, name in enumerate(TASK_NAMES)}
# The state holds the members' values as plain ints (``state.stage == Stage.RACE`` holds): the hot
# paths compare them with these module-level names, and exact ints compare fastest.
GRID, DEAL, ORDER, POWERS, AUCTION, POWER, RACE, BET, END = map(int, Stage)
NONE, D_BID, D_POWER, D_PLAY, D_WILD, D_STEER, D_YESNO, D_COLOR, D_BET = map(int, Dec)
PRE, LINE, MOVE, AFTER_LINE, EXPERIENCED_T, TURN_END, DETERMINED_T, END_TURN = map(int, Task)

# decision types as the observation lists them (index = Dec - 1)
DEC_TYPES = DEC_NAMES[1:]
# yes/no prompt kinds and colour-choice kinds (dec_args[0] of a YESNO / COLOR decision)
YESNO_KINDS = ("tricky", "strategic", "aggressive", "ambitious", "tough", "reckless", "experienced", "determined")
(
    Y_TRICKY,
    Y_STRATEGIC,
    Y_AGGRESSIVE,
    Y_AMBITIOUS,
    Y_TOUGH,
    Y_RECKLESS,
    Y_EXPERIENCED,
    Y_DETERMINED,
) = range(len(YESNO_KINDS))
COLOR_KINDS = ("strategic", "defensive")
C_STRATEGIC, C_DEFENSIVE = range(len(COLOR_KINDS))
EXTRA_MOVE = 2  # DF-V1.3, DF-V2.1, DF-V2.3, DF-V2.6
DEFENSIVE_MOVE = 3  # DF-V2.5
BOLD_SPEED = 3  # DF-V2.4
NO_CAR = -1
LANES = 3  # space id = row * LANES + lane
_MASK_TAIL = bytes(NUM_ACTIONS - NUM_CARDS)


class DownforceGame(Game):
    """Downforce for 2-6 players (``downforce_v0``)."""

    env_id = "downforce_v0"
    name = "Downforce"
    version = 0
    min_players = 2
    max_players = 6
    default_players = 4
    simultaneous = True
    score_scale = 1.0 / 30.0
    options_spec = {
        "powers": Option(False, "DF-V1: each auctioned car comes with a power card"),
        "extra_powers": Option(False, "DF-V2: add the six Danger Circuit powers to the pool (needs powers)"),
        "odds_betting": Option(False, "DF-V3: bets pay recorded position x odds multiplier"),
        "odds_winner_only": Option(False, "DF-V4: odds betting where only the winning car pays"),
        "steering": Option(
            "manual",
            "DF-V5: who steers when several steps are legal: the current player "
            "(manual, the printed rule) or a fixed rule (auto, a simplification)",
            choices=("manual", "auto"),
        ),
        "track": Option(
            "default",
            "DF-V6: a bundled track (default, sprint) or a path to a track JSON file "
            "(relative to the working directory)",
            type=str,
        ),
        "action_features": Option(
            False,
            "observation ends with one feature per action (1-ply lookahead "
            "of each race card, bid speeds, car positions for bets); slower",
        ),
    }
    # both steering modes, each with and without powers, Cunning in both modes, both odds payouts,
    # the sprint track and the action features
    conformance_options = [
        {},
        {"powers": True, "extra_powers": True, "odds_betting": True},
        {"powers": True, "odds_winner_only": True, "track": "sprint", "steering": "auto"},
        {"action_features": True, "steering": "auto"},
    ]
    num_actions = NUM_ACTIONS

    def check_options(self) -> None:
        o = self.options
        if o["extra_powers"] and not o["powers"]:
            raise ConfigError("option extra_powers=True needs powers=True (DF-V2 extends DF-V1)")
        if o["odds_betting"] and o["odds_winner_only"]:
            raise ConfigError(
                "options odds_betting and odds_winner_only are alternative payout modes; "
                "set at most one of them (DF-V3, DF-V4)"
            )

    def setup(self) -> None:
        """The option set's data and precomputed tables (the encoder is built after this)."""
        o = self.options
        self.track: dict[str, Any] = D.load_track(o["track"])
        self.deck: D.Deck = D.load_deck()
        self.comp: dict[str, Any] = D.load_components()
        self._build_geometry()
        self.powers_on = bool(o["powers"])
        self.power_pool: list[int] = list(range(12 if o["extra_powers"] else 6)) if self.powers_on else []
        self.manual = o["steering"] == "manual"
        self.payout = "odds_winner" if o["odds_winner_only"] else "odds" if o["odds_betting"] else "standard"

    # ------------------------------------------------------------------ geometry
    def _build_geometry(self) -> None:
        rows = self.track["rows"]
        self.num_rows: int = len(rows)
        nr = self.num_rows
        self.last_row = nr - 1
        ns = nr * 3
        self.num_spaces = ns
        self.exists = [False] * ns
        self.rect = [False] * ns
        self.narrow = [False] * ns
        self.rumble = [False] * ns
        for r, row in enumerate(rows):
            for s in row["spaces"]:
                i = r * 3 + s["lane"]
                self.exists[i] = True
                self.rect[i] = s["rectangular"]
                self.narrow[i] = s["narrow"]
                self.rumble[i] = s["rumble"]
        # steps[sid]: [(steer index 0/1/2, next sid)] in automatic preference order (DF-R20):
        # straight, then the diagonal to the lower lane, then the other diagonal.
        self.steps: list[list[tuple[int, int]]] = [[] for _ in range(ns)]
        for r in range(nr - 1):
            for lane in range(3):
                i = r * 3 + lane
                if not self.exists[i]:
                    continue
                out = []
                for k in (1, 0, 2):
                    nl = lane + k - 1
                    if 0 <= nl < 3 and self.exists[(r + 1) * 3 + nl]:
                        out.append((k, (r + 1) * 3 + nl))
                self.steps[i] = out
        self.bet_after = [-1] * nr  # bet_after[r] = k if betting line k lies after row r
        for k, r in enumerate(self.track["betting_lines"]):
            self.bet_after[r] = k
        self.grid = [r * 3 + lane for r, lane in self.track["grid"]]
        # card facts
        self.card_cars = [frozenset(c for c, _ in lines if c >= 0) for lines in self.deck]
        self.card_has_wild = [any(c < 0 for c, _ in lines) for lines in self.deck]
        # bid value and line index per (card, car) (DF-R5: wild lines never bid)
        self.bid_value = [[0] * NUM_CARS for _ in range(NUM_CARDS)]
        self.bid_line = [[99] * NUM_CARS for _ in range(NUM_CARDS)]
        for i, lines in enumerate(self.deck):
            for j, (c, s) in enumerate(lines):
                if c >= 0:
                    self.bid_value[i][c] = s
                    self.bid_line[i][c] = j
        self.top_bid = max(max(v) for v in self.bid_value[:NUM_REGULAR])  # DF-R5 (speed-8 cards bid 0)

    # ------------------------------------------------------------------ API
    def hand_size(self, n: int) -> int:
        """Cards dealt to each of ``n`` players (DF 3.2)."""
        return int(self.comp["hand_sizes"][str(n)])

    @staticmethod
    def most_cars(n: int) -> int:
        """The most cars one of ``n`` players can own (DF-R10: everyone owns a car)."""
        return NUM_CARS - (n - 1)

    def money_range(self, n: int) -> tuple[int, int]:
        """The least and the most money a seat can end with among ``n`` players (DF-R30 .. DF-R32):
        every car it can own bought at the top bid and last, or first across the board with every
        bet paying its most."""
        comp = self.comp
        prizes = sum(sorted(comp["prizes"], reverse=True)[: self.most_cars(n)])
        if self.payout == "standard":
            betmax = sum(max(row) for row in comp["bets"])
        else:
            betmax = sum(NUM_CARS * max(row) for row in comp["odds"])
        return -self.most_cars(n) * self.top_bid, prizes + betmax

    def new_initial_state(self, num_players: int) -> DownforceState:
        self.check_players(num_players)
        return DownforceState(self, int(num_players))

    def _state_from_dict(self, data: dict) -> DownforceState:
        """Build the state from a dict the core has checked against ``state_schema``; the
        consistency between fields is ``DownforceState.check_invariants`` (run by the core next)."""
        st = DownforceState(self, data["num_players"])
        st._load(data)
        return st

    def position(self, num_players: int, **fields: Any) -> DownforceState:
        """A position built from field values in their saved form (``to_dict``: stage, decision and
        task kinds by name, sets as lists), the others as in a new state. Unchecked: for rule tests
        and analysis of positions that need not be reachable; a saved state from outside goes
        through ``state_from_dict``, which checks it."""
        self.check_players(num_players)
        d = DownforceState(self, int(num_players))._to_dict()
        unknown = sorted(set(fields) - set(d))
        if unknown:
            raise ConfigError(f"{self.env_id}: position(): unknown field(s) {unknown}")
        d.update(fields)
        st = DownforceState(self, int(num_players))
        st._load(d)
        return st

    def state_schema(self, num_players: int) -> S.Dict:
        """The saved state's own fields (``DownforceState._to_dict``), ranges as tight as this player
        count and option set allow. One entry per field: a new state field goes into the field lists
        (``_SCALARS`` ...), here, and into ``DownforceState.check_invariants``."""
        n = num_players
        ns = self.num_spaces
        hs = self.hand_size(n)
        aside = NUM_REGULAR - n * hs  # set-aside cards (DF 3.2)
        most_cars = self.most_cars(n)
        top_bid = self.top_bid
        start_rows = [sid // 3 for sid in self.grid]
        advance = sum(self.last_row - r for r in start_rows)  # rows all cars can still gain
        max_line = max(len(lines) for lines in self.deck)
        line_speed = max(max(s for _, s in lines) for lines in self.deck) + 1  # + Aggressive
        npow = len(self.power_pool)
        money_low, money_high = self.money_range(n)
        stages: tuple[str, ...] = STAGE_NAMES
        decs: tuple[str, ...] = DEC_NAMES
        if not self.powers_on:
            stages = tuple(s for s in stages if s not in ("powers", "power"))
            decs = tuple(d for d in decs if d not in ("power", "yesno", "color"))
            if not self.manual:
                decs = tuple(d for d in decs if d != "steer")
        car = S.Int(0, NUM_CARS - 1)
        seat = S.Int(0, n - 1)
        space = S.Int(0, ns - 1)
        card = S.Int(0, NUM_CARDS - 1)
        # the task stack at a decision (see _run): only these task kinds can be waiting there
        task = S.OneOf(
            S.Tuple(S.Const("end_turn")),
            S.Tuple(S.Const("turn_end"), S.Int(0, n)),
            S.Tuple(S.Const("line"), S.Int(0, max_line)),
            S.Tuple(S.Const("after_line"), car, space),
            S.Tuple(S.Const("experienced"), car, space, S.Int(0, line_speed)),
            S.Tuple(S.Const("determined"), seat, S.Int(1, NUM_CARS)),
        )
        hand = S.List(card, max_len=hs + most_cars, unique=True, sorted_=True)
        fields = {
            # ---- scalars
            "stage": S.Str(stages),
            "chance_k": S.Int(0, NUM_REGULAR - 1),
            "auction_idx": S.Int(0, NUM_CARS),
            "turn_player": S.Int(-1, n - 1),
            "stamp_counter": S.Int(NUM_CARS + 1, NUM_CARS + 1 + advance),
            "cur_card": S.Int(-1, NUM_CARDS - 1),
            "ignored": S.Int(NO_CAR, NUM_CARS - 1 if self.powers_on else NO_CAR),
            "dec_type": S.Str(decs),
            "dec_seat": S.Int(TERMINAL, n - 1),
            "bet_round": S.Int(-1, 2),
            # ---- flat lists
            "grid_cars": S.List(S.Int(NO_CAR, NUM_CARS - 1), length=NUM_CARS),
            "deal_pool": S.List(S.Int(0, NUM_REGULAR - 1), max_len=NUM_REGULAR, unique=True, sorted_=True),
            "setaside": S.List(S.Int(0, NUM_REGULAR - 1), max_len=aside, unique=True),
            "played": S.List(card, max_len=NUM_CARDS - aside, unique=True),
            "auction_order": S.List(car, max_len=NUM_CARS, unique=True),
            "power_of_car": S.List(S.Int(NO_POWER, npow - 1), length=NUM_CARS),
            "owner": S.List(S.Int(-1, n - 1), length=NUM_CARS),
            "price": S.List(S.Int(0, top_bid), length=NUM_CARS),
            "pos": S.List(S.Int(-1, ns - 1), length=NUM_CARS),
            "place": S.List(S.Int(0, NUM_CARS), length=NUM_CARS),
            "stamp": S.List(S.Int(0, NUM_CARS + advance), length=NUM_CARS),
            "occ": S.List(S.Int(NO_CAR, NUM_CARS - 1), length=ns),
            "finish_order": S.List(car, max_len=NUM_CARS, unique=True),
            "pending": S.List(S.Int(-1, NUM_CARDS - 1), length=n),
            "eligible": S.List(S.Int(0, 1), length=n),
            "triggered": S.List(S.Int(0, 1), length=3),
            "line_order": S.List(S.Int(0, max_line - 1), max_len=max_line, unique=True),
            "turn_moved": S.List(S.Int(0, self.last_row + 1), length=NUM_CARS),
            "turn_nonrect": S.List(S.Int(0, 1), length=NUM_CARS),
            "bet_queue": S.List(S.Int(0, 2), max_len=3, unique=True, sorted_=True),
            "dec_args": S.List(S.Int(0, ns - 1), max_len=NUM_CARS + 1),
            "money": S.List(S.Int(money_low, money_high), length=n),
            # car, start space, moved, betting lines crossed, narrow entered: per line with powers
            # (their rules read it); without powers only counts over the game (line finishes,
            # betting lines crossed by lines; see ``_line_move``)
            "line_track": (
                S.Tuple(S.Const(NO_CAR), S.Const(-1), S.Int(0, NUM_CARS + advance), S.Int(0, 3 * NUM_CARS), S.Int(0, 1))
                if not self.powers_on
                else S.Tuple(
                    S.Int(NO_CAR, NUM_CARS - 1), S.Int(-1, ns - 1), S.Int(0, line_speed), S.Int(0, 3), S.Int(0, 1)
                )
            ),
            # ---- nested lists
            "bid_history": S.List(S.List(S.Int(-1, NUM_CARDS - 1), length=n), max_len=NUM_CARS),
            "held": S.List(S.List(S.Int(0, npow - 1), max_len=2 if npow else 0), length=n),
            "tasks": S.List(task, max_len=4),
            "bet_rounds_pos": S.List(S.List(S.Int(1, NUM_CARS), length=NUM_CARS), max_len=3),
            "bet_rounds_open": S.List(S.List(S.Int(0, 1), length=NUM_CARS), max_len=3),
            "bets": S.List(S.List(S.Int(-1, NUM_CARS - 1), length=n), max_len=3),
            "bet_k": S.List(S.Tuple(S.Int(0, 2)), max_len=3),
            # ---- sets (saved sorted)
            "hands": S.List(hand, length=n),
            "revealed": S.List(hand, length=n),
        }
        return S.Dict(fields)


# JSON field lists (clone/to_dict): plain ints/strs, flat int lists, lists of lists, sets
_SCALARS = (
    "stage",
    "chance_k",
    "auction_idx",
    "turn_player",
    "stamp_counter",
    "cur_card",
    "ignored",
    "dec_type",
    "dec_seat",
    "bet_round",
)
_LISTS = (
    "grid_cars",
    "deal_pool",
    "setaside",
    "played",
    "auction_order",
    "power_of_car",
    "owner",
    "price",
    "pos",
    "place",
    "stamp",
    "occ",
    "finish_order",
    "pending",
    "eligible",
    "triggered",
    "line_order",
    "turn_moved",
    "turn_nonrect",
    "bet_queue",
    "dec_args",
    "money",
    "line_track",
)
_NESTED = ("bid_history", "held", "tasks", "bet_rounds_pos", "bet_rounds_open", "bets", "bet_k")
_SETS = ("hands", "revealed")


class DownforceState(State):
    """One Downforce position."""

    game: DownforceGame
    # set only on a lookahead copy (``finish_turn``): answers a STEER choice point at once,
    # ``(steering seat, the STEER decision's args) -> steer index``, instead of pausing for it
    _steer_by: Callable[[int, list[int]], int] | None = None

    def __init__(self, game: DownforceGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        self._mask = None
        self.stage: int = GRID  # a Stage
        self.chance_k = 0
        self.grid_cars = [NO_CAR] * NUM_CARS  # car on grid position k (P1 = 0)
        self.deal_pool = list(range(NUM_REGULAR))
        self.hands: list[set[int]] = [set() for _ in range(n)]
        self.revealed: list[set[int]] = [set() for _ in range(n)]  # publicly known cards in hand
        self.setaside: list[int] = []
        self.played: list[int] = []
        self.auction_order: list[int] = []
        self.power_of_car = [NO_POWER] * NUM_CARS
        self.owner = [-1] * NUM_CARS
        self.price = [0] * NUM_CARS
        self.held: list[list[int]] = [[] for _ in range(n)]
        self.auction_idx = 0
        self.pending = [-1] * n  # secret bids of the current auction
        self.eligible = [0] * n
        self.bid_history: list[list[int]] = []
        self.pos = [-1] * NUM_CARS  # space id, -1 = not on the track
        self.place = [0] * NUM_CARS  # finishing place 1..6, 0 = not finished
        self.finish_order: list[int] = []
        self.stamp = [0] * NUM_CARS
        self.stamp_counter = NUM_CARS + 1
        self.occ = [NO_CAR] * game.num_spaces
        self.turn_player = -1
        self.cur_card = -1
        self.line_order: list[int] = []
        self.ignored = NO_CAR
        self.turn_moved = [0] * NUM_CARS
        self.turn_nonrect = [0] * NUM_CARS
        self.line_track = [NO_CAR, -1, 0, 0, 0]  # car, start space, moved, betting lines crossed, narrow entered
        self.tasks: list[list[int]] = []  # [Task value, *args], the last runs next
        self.triggered = [0, 0, 0]
        self.bet_queue: list[int] = []
        self.bet_round = -1
        self.bet_k: list[list[int]] = []  # per held round: [k]
        self.bet_rounds_pos: list[list[int]] = []  # per held round: position 1..6 of each car (DF-R27)
        self.bet_rounds_open: list[list[int]] = []  # per held round: 1 if the car could be bet on
        self.bets: list[list[int]] = []  # per held round: car per seat (-1 not yet)
        self.dec_type: int = NONE  # a Dec
        self.dec_seat = CHANCE
        self.dec_args: list[int] = []
        self.money = [0] * n
        # byte mirrors (0/1 per card id) of ``hands`` and ``revealed``, kept in step with them: the
        # bid/play mask is a hand's mirror, and the encoder reads them (read-only outside the rules)
        self.hand_bits = [bytearray(NUM_CARDS) for _ in range(n)]
        self.known_bits = [bytearray(NUM_CARDS) for _ in range(n)]

    def _sync_bits(self) -> None:
        """Rebuild the byte mirrors of hands and publicly known cards from the sets."""
        self.hand_bits = [bytearray(NUM_CARDS) for _ in range(self.num_players)]
        self.known_bits = [bytearray(NUM_CARDS) for _ in range(self.num_players)]
        for s in range(self.num_players):
            for c in self.hands[s]:
                self.hand_bits[s][c] = 1
            for c in self.revealed[s]:
                self.known_bits[s][c] = 1

    # ================================================================== basics
    def current_player(self) -> int:
        return self.dec_seat

    def phase(self) -> str:
        if self.stage == RACE:
            return f"race:{DEC_NAMES[self.dec_type]}"
        return STAGE_NAMES[self.stage]

    def deciders(self) -> list[int]:
        if self.stage == AUCTION:
            return [s for s in range(self.num_players) if self.eligible[s] and self.pending[s] < 0]
        if self.stage == BET:
            b = self.bets[self.bet_round]
            return [s for s in range(self.num_players) if b[s] < 0]
        p = self.dec_seat
        return [p] if p >= 0 else []

    def power(self, seat: int) -> int:
        h = self.held[seat]
        return h[0] if len(h) == 1 else NO_POWER

    # ================================================================== chance
    def _chance_pool(self) -> list[int]:
        st = self.stage
        if st == GRID:
            return [c for c in range(NUM_CARS) if c not in self.grid_cars]
        if st == DEAL:
            return self.deal_pool
        if st == ORDER:
            return [c for c in range(NUM_CARS) if c not in self.auction_order]
        if st == POWERS:
            used = self.power_of_car
            return [p for p in self.game.power_pool if p not in used]
        return []

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        pool = sorted(self._chance_pool())
        if not pool or self.dec_seat != CHANCE:
            return []
        p = 1.0 / len(pool)
        return [(o, p) for o in pool]

    def sample_chance(self, rng: np.random.Generator) -> int:
        """One uniform outcome (``rng.random`` is several times cheaper than ``rng.integers``)."""
        pool = self._chance_pool()
        k = len(pool)
        i = int(rng.random() * k)
        return int(pool[i if i < k else k - 1])

    def is_legal_chance(self, outcome: Any) -> bool:
        # the core has turned integer-like outcomes into ints; anything else is refused here
        return outcome.__class__ is int and self.dec_seat == CHANCE and outcome in self._chance_pool()

    def _apply_chance(self, o: int) -> None:
        g = self.game
        st = self.stage
        k = self.chance_k
        if st == GRID:  # setup 1: grid permutation
            self.grid_cars[k] = o
            sid = g.grid[k]
            self.pos[o] = sid
            self.occ[sid] = o
            self.stamp[o] = k + 1  # DF-R27: grid stamps 1..6, P1 = 1
            k += 1
            if k == NUM_CARS:
                self.stage, k = DEAL, 0
        elif st == DEAL:  # setup 2: deal slot k
            self.deal_pool.remove(o)
            n = self.num_players
            if k < n * g.hand_size(n):
                self.hands[k % n].add(o)
                self.hand_bits[k % n][o] = 1
            else:
                self.setaside.append(o)
            k += 1
            if k == NUM_REGULAR:
                self.stage, k = ORDER, 0
        elif st == ORDER:  # setup 3: auction order
            self.auction_order.append(o)
            k += 1
            if k == NUM_CARS:
                k = 0
                if g.powers_on:
                    self.stage = POWERS
                else:
                    self._start_auction()
        elif st == POWERS:  # setup 3: power paired with the k-th auctioned car
            self.power_of_car[self.auction_order[k]] = o
            k += 1
            if k == NUM_CARS:
                k = 0
                self._start_auction()
        self.chance_k = k

    # ================================================================== auction
    def _start_auction(self) -> None:
        n = self.num_players
        self.stage = AUCTION
        remaining = NUM_CARS - self.auction_idx
        carless = [s for s in range(n) if s not in self.owner]
        if remaining == len(carless):  # DF-R6
            self.eligible = [1 if s in carless else 0 for s in range(n)]
        else:
            self.eligible = [1] * n
        self.pending = [-1] * n
        self._set_dec(D_BID, self.eligible.index(1), [])

    def _bid(self, seat: int, card: int) -> None:
        self.pending[seat] = card
        for s in range(seat + 1, self.num_players):
            if self.eligible[s]:
                self._set_dec(D_BID, s, [])
                return
        self._resolve_auction()

    def _resolve_auction(self) -> None:
        g = self.game
        car = self.auction_order[self.auction_idx]
        best = None
        winner = -1
        value = 0
        for s in range(self.num_players):  # DF-R5, DF-R7
            if not self.eligible[s]:
                continue
            c = self.pending[s]
            v = g.bid_value[c][car]
            if v <= 0:
                if winner < 0:
                    winner = s
                continue
            key = (v, -g.bid_line[c][car])
            if best is None or key > best:
                best, winner, value = key, s, v
        self.bid_history.append(list(self.pending))
        for s in range(self.num_players):  # DF-R9: bids return to hand, now publicly known
            if self.eligible[s]:
                self.revealed[s].add(self.pending[s])
                self.known_bits[s][self.pending[s]] = 1
        self.pending = [-1] * self.num_players
        self.owner[car] = winner  # DF-R8
        self.price[car] = value
        speed8 = NUM_REGULAR + car
        self.hands[winner].add(speed8)
        self.revealed[winner].add(speed8)
        self.hand_bits[winner][speed8] = 1
        self.known_bits[winner][speed8] = 1
        self.auction_idx += 1
        if g.powers_on:  # DF-V1
            self.held[winner].append(self.power_of_car[car])
            if len(self.held[winner]) == 2:
                self.stage = POWER
                self._set_dec(D_POWER, winner, [])
                return
        self._after_auction()

    def _after_auction(self) -> None:
        if self.auction_idx < NUM_CARS:
            self._start_auction()
        else:
            self.stage = RACE  # DF-R11: owner of P1 starts
            self._start_turn(self.owner[self.grid_cars[0]])

    def _choose_power(self, seat: int, car: int) -> None:
        keep = self.power_of_car[car]
        self.held[seat] = [keep]
        self.stage = AUCTION
        self._after_auction()

    # ================================================================== race
    def _set_dec(self, kind: int, seat: int, args: list[int]) -> None:
        self.dec_type = kind
        self.dec_seat = seat
        self.dec_args = args

    def _start_turn(self, seat: int) -> None:
        self.turn_player = seat
        self.cur_card = -1
        self._set_dec(D_PLAY, seat, [])

    def _play(self, card: int) -> None:
        s = self.turn_player
        self.hands[s].discard(card)  # DF-R12
        self.revealed[s].discard(card)
        self.hand_bits[s][card] = 0
        self.known_bits[s][card] = 0
        self.played.append(card)
        self.cur_card = card
        self.line_order = list(range(len(self.game.deck[card])))  # DF-R13: top to bottom
        self.ignored = NO_CAR
        self.turn_moved = [0] * NUM_CARS
        self.turn_nonrect = [0] * NUM_CARS
        self.bet_queue = []
        self.tasks = [[END_TURN], [TURN_END, 0], [LINE, 0]]
        if self.game.powers_on:
            self._t_pre()  # (the first task; without powers it has nothing to ask)
        self._run()

    def _run(self) -> None:
        """Process tasks until a decision is needed (or the turn is over)."""
        tasks = self.tasks
        run = _TASK_RUN
        while tasks and not self.dec_type:
            t = tasks.pop()
            run[t[0]](self, *t[1:])

    # ---- tasks (one method per Task, dispatched by ``_run``)
    def _t_pre(self) -> None:
        g = self.game
        p = self.power(self.turn_player)
        lines = g.deck[self.cur_card]
        if p == TRICKY and len(lines) >= 2:  # DF-V1.5
            self._set_dec(D_YESNO, self.turn_player, [Y_TRICKY])
        elif p == STRATEGIC and len(g.card_cars[self.cur_card]) == NUM_CARS:  # DF-V1.4
            self._set_dec(D_YESNO, self.turn_player, [Y_STRATEGIC])

    def _t_line(self, i: int) -> None:
        lo = self.line_order
        if i >= len(lo):
            return
        self.tasks.append([LINE, i + 1])
        li = lo[i]
        car = self.game.deck[self.cur_card][li][0]
        if car < 0:  # DF-R15 wild line
            cands = self._wild_candidates()
            if not cands:
                return
            if len(cands) > 1:
                self._set_dec(D_WILD, self.turn_player, [li, *cands])
                return
            car = cands[0]
        self._line_move(li, car)

    def _wild_candidates(self) -> list[int]:
        g = self.game
        printed = () if self.power(self.turn_player) == UNPREDICTABLE else g.card_cars[self.cur_card]  # DF-V1.6
        place = self.place
        return [c for c in range(NUM_CARS) if not place[c] and c not in printed]

    def _line_move(self, li: int, car: int, bonus: int = -1) -> None:
        """Line ``li`` moves ``car`` (task MOVE, run at once), then (task AFTER_LINE) the powers that
        follow it. ``bonus``: Aggressive's answer (-1: not asked yet). Without powers AFTER_LINE
        has nothing to do: it is put on the stack only when the movement pauses for a decision
        (where a saved state shows it). Without powers no rule reads ``line_track`` either: it is
        not reset per line and only counts the line finishes and the betting lines crossed by
        lines (the saved form such states have always had)."""
        if self.place[car] or car == self.ignored:  # DF-R14, DF-V1.4
            return
        speed = self.game.deck[self.cur_card][li][1]
        start = self.pos[car]
        powers = self.game.powers_on
        if powers:
            cur = self.turn_player
            p = self.power(cur) if self.owner[car] == cur else NO_POWER
            if bonus < 0:
                if li == 0 and p == AGGRESSIVE:  # DF-V1.1
                    self._set_dec(D_YESNO, cur, [Y_AGGRESSIVE, li, car])
                    return
                bonus = 0
            speed += bonus
            if p == BOLD and speed in (1, 2):  # DF-V2.4
                speed = BOLD_SPEED
            self.line_track = [car, start, 0, 0, 0]
        self._t_move(car, speed, 1)
        if powers or self.dec_type:
            self.tasks.append([AFTER_LINE, car, start])

    def _steerer(self, car: int) -> int:
        """Who chooses among several legal steps (DF-R20): -1 = automatic."""
        if self.game.powers_on:
            o = self.owner[car]
            if o >= 0 and self.power(o) == CUNNING:  # DF-V1.2
                return o
        return self.turn_player if self.game.manual else -1

    def _t_move(self, car: int, left: int, is_line: int, first: int = -1) -> None:
        """Move ``car`` up to ``left`` spaces (DF-R16 .. DF-R21): straight, else the lower lane's
        diagonal, else the other (DF-R20's automatic order); where several steps are free and a
        player steers, a STEER decision pauses it. ``first``: the space of a first step already
        chosen (a STEER answer, Experienced). Each step takes the next entry stamp (DF-R27) and
        may cross a betting line (DF-R23)."""
        g = self.game
        occ = self.occ
        pos = self.pos
        steps = g.steps
        last = g.last_row
        while left > 0:
            sid = pos[car]
            if sid < 0:
                return
            if sid // LANES == last:  # DF-R21
                self._finish(car, is_line)
                return
            if first >= 0:
                nsid = first
                first = -1
            else:
                nsid = -1
                for k, s2 in steps[sid]:  # DF-R16, DF-R17
                    if occ[s2] < 0:
                        if nsid < 0:
                            nsid = s2
                            k0 = k
                            continue
                        who = self._steerer(car)  # a second free step: a choice (DF-R20)
                        if who < 0:
                            break
                        args = [car, left, is_line, k0, k]
                        for k2, s3 in steps[sid]:
                            if k2 != k0 and k2 != k and occ[s3] < 0:
                                args.append(k2)
                        if self._steer_by is not None:  # a lookahead copy answers at once (finish_turn)
                            nsid = sid + LANES - 1 + self._steer_by(who, args)
                            break
                        self.dec_type = D_STEER
                        self.dec_seat = who
                        self.dec_args = args
                        return
                if nsid < 0:  # DF-R18: blocked
                    return
            occ[sid] = NO_CAR
            occ[nsid] = car
            pos[car] = nsid
            self.stamp[car] = self.stamp_counter  # DF-R27
            self.stamp_counter += 1
            self.turn_moved[car] += 1
            if not g.rect[nsid]:
                self.turn_nonrect[car] = 1
            if is_line and g.powers_on:
                lt = self.line_track
                lt[2] += 1
                if g.narrow[nsid]:
                    lt[4] = 1
            if g.bet_after[sid // LANES] >= 0:
                self._cross(sid // LANES, is_line)
            left -= 1

    def _cross(self, row: int, is_line: int) -> None:
        k = self.game.bet_after[row]
        if k >= 0:  # DF-R23
            if is_line:
                self.line_track[3] += 1
            if not self.triggered[k]:
                self.triggered[k] = 1
                self.bet_queue.append(k)

    def _finish(self, car: int, is_line: int) -> None:
        old = self.pos[car]
        self.occ[old] = NO_CAR
        self.pos[car] = -1
        self.finish_order.append(car)  # DF-R21, DF-R22
        self.place[car] = len(self.finish_order)
        self.turn_moved[car] += 1
        if is_line:
            self.line_track[2] += 1
        self._cross(old // LANES, is_line)

    def _t_after_line(self, car: int, start: int) -> None:
        """DF-V7 (3): the moved car's owner's Ambitious/Tough/Reckless, then Experienced."""
        if not self.game.powers_on:
            return
        moved = self.line_track[2]
        self.tasks.append([EXPERIENCED_T, car, start, moved])
        o = self.owner[car]
        if o < 0 or self.place[car]:
            return
        p = self.power(o)
        lt = self.line_track
        if p == AMBITIOUS and lt[3] > 0:  # DF-V2.1
            self._set_dec(D_YESNO, o, [Y_AMBITIOUS, car])
        elif p == TOUGH and moved > 0 and self.game.rumble[self.pos[car]]:  # DF-V2.3
            self._set_dec(D_YESNO, o, [Y_TOUGH, car])
        elif p == RECKLESS and o == self.turn_player and lt[4]:  # DF-V2.6
            self._set_dec(D_YESNO, o, [Y_RECKLESS, car])

    def _t_experienced(self, car: int, start: int, moved: int) -> None:
        """DF-V2.2: the car directly behind the vacated start space may step into it."""
        if not moved or not self.game.powers_on:
            return
        row = start // LANES
        if row == 0 or self.occ[start] >= 0:
            return
        behind = start - LANES
        x = self.occ[behind]
        if x < 0 or x == car:
            return
        o = self.owner[x]
        if o >= 0 and self.power(o) == EXPERIENCED:
            self._set_dec(D_YESNO, o, [Y_EXPERIENCED, x, start])

    def _t_turn_end(self, j: int) -> None:
        """DF-V7 (4): turn-end powers in seat order starting with the current player."""
        n = self.num_players
        if j >= n or not self.game.powers_on:
            return
        self.tasks.append([TURN_END, j + 1])
        s = (self.turn_player + j) % n
        p = self.power(s)
        if p == DETERMINED:
            self.tasks.append([DETERMINED_T, s, 0])
        elif p == DEFENSIVE and j == 0:  # DF-V2.5
            mine = [c for c in range(NUM_CARS) if self.owner[c] == s]
            if any(self.turn_moved[c] for c in mine):
                return
            cands = [c for c in mine if not self.place[c]]
            if len(cands) == 1:
                self.tasks.append([MOVE, cands[0], DEFENSIVE_MOVE, 0])
            elif cands:
                self._set_dec(D_COLOR, s, [C_DEFENSIVE, *cands])

    def _t_determined(self, s: int, c0: int) -> None:
        """DF-V1.3: each eligible car of the holder, in car index order."""
        for c in range(c0, NUM_CARS):
            if self.owner[c] == s and not self.place[c] and self.turn_moved[c] > 0 and not self.turn_nonrect[c]:
                self.tasks.append([DETERMINED_T, s, c + 1])
                self._set_dec(D_YESNO, s, [Y_DETERMINED, c])
                return

    def _t_end_turn(self) -> None:
        """DF-R24: triggered betting rounds in ascending k, then the end check (DF-R28)."""
        self.bet_queue.sort()
        self._next_bet_round()

    # ================================================================== betting
    def race_order(self) -> list[int]:
        """Cars in race position order (DF-R27): finished by finishing order, then higher row,
        then lower entry stamp."""
        pos = self.pos
        stamp = self.stamp
        place = self.place
        rest = sorted([(stamp[c] - (pos[c] // 3) * 1_000_000, c) for c in range(NUM_CARS) if not place[c]])
        return self.finish_order + [c for _, c in rest]

    def _next_bet_round(self) -> None:
        while self.bet_queue:
            k = self.bet_queue.pop(0)
            open_ = [0 if self.place[c] else 1 for c in range(NUM_CARS)]
            if not any(open_):  # DF-R25: skipped
                continue
            order = self.race_order()
            pos = [0] * NUM_CARS
            for i, c in enumerate(order):
                pos[c] = i + 1
            self.bet_k.append([k])
            self.bet_rounds_pos.append(pos)
            self.bet_rounds_open.append(open_)
            self.bets.append([-1] * self.num_players)
            self.bet_round = len(self.bets) - 1
            self.stage = BET
            self._set_dec(D_BET, 0, [])
            return
        self.stage = RACE
        self._end_check()

    def _bet(self, seat: int, car: int) -> None:
        b = self.bets[self.bet_round]
        b[seat] = car
        if seat + 1 < self.num_players:
            self._set_dec(D_BET, seat + 1, [])
        else:
            self._next_bet_round()

    # ================================================================== end
    def _end_check(self) -> None:
        n = self.num_players
        if len(self.finish_order) == NUM_CARS or not any(self.hands):  # DF-R28
            self._score()
            return
        s = self.turn_player
        for j in range(1, n + 1):  # DF-R12: skip empty hands
            t = (s + j) % n
            if self.hands[t]:
                self._start_turn(t)
                return

    def final_places(self) -> list[int]:
        order = self.race_order()  # DF-R29
        place = [0] * NUM_CARS
        for i, c in enumerate(order):
            place[c] = i + 1
        return place

    def bet_payout(self, r: int, car: int, place: list[int]) -> int:
        comp = self.game.comp
        k = self.bet_k[r][0]
        pl = place[car]
        if pl > 3:
            return 0
        mode = self.game.payout
        if mode == "standard":  # DF-R31
            return comp["bets"][k][pl - 1]
        if mode == "odds":  # DF-V3
            return self.bet_rounds_pos[r][car] * comp["odds"][k][pl - 1]
        return self.bet_rounds_pos[r][car] * comp["odds"][k][0] if pl == 1 else 0  # DF-V4

    def money_parts(self) -> tuple[list[int], list[int], list[int]]:
        """(race prizes, bet payouts, auction prices) per seat, with the final places."""
        n = self.num_players
        place = self.final_places()
        prizes = [0] * n
        betpay = [0] * n
        paid = [0] * n
        for c in range(NUM_CARS):
            o = self.owner[c]
            if o >= 0:
                prizes[o] += self.game.comp["prizes"][place[c] - 1]  # DF-R30
                paid[o] += self.price[c]
        for r, b in enumerate(self.bets):
            for s in range(n):
                if b[s] >= 0:
                    betpay[s] += self.bet_payout(r, b[s], place)
        return prizes, betpay, paid

    def _score(self) -> None:
        prizes, betpay, paid = self.money_parts()
        self.money = [prizes[s] + betpay[s] - paid[s] for s in range(self.num_players)]  # DF-R32
        self.stage = END
        self._set_dec(NONE, TERMINAL, [])

    def scores(self) -> list[float]:
        if self.stage != END:
            prizes, betpay, paid = self.money_parts()
            return [float(prizes[s] + betpay[s] - paid[s]) for s in range(self.num_players)]
        return [float(m) for m in self.money]

    def winners(self) -> list[int]:
        s = self.scores()
        best = max(s)
        tied = [i for i, v in enumerate(s) if v == best]
        if len(tied) == 1:
            return tied
        place = self.final_places()  # DF-R33
        return [min(tied, key=lambda t: min(place[c] for c in range(NUM_CARS) if self.owner[c] == t))]

    # ================================================================== actions
    def _legal_mask(self) -> np.ndarray:
        t = self.dec_type
        if t == D_STEER:  # few distinct masks: shared read-only arrays
            return _steer_mask(tuple(self.dec_args[3:]))
        s = self.dec_seat
        if t == D_BID or t == D_PLAY:  # the hand's byte mirror is the mask
            m = bytearray(self.hand_bits[s])
            m += _MASK_TAIL
            return np.frombuffer(m, dtype=np.int8)
        m = bytearray(NUM_ACTIONS)
        if t == D_BET:
            for c in range(NUM_CARS):
                if not self.place[c]:
                    m[A_BET + c] = 1
        elif t == D_POWER:
            for p in self.held[s]:
                m[A_POWER + self.power_of_car.index(p)] = 1
        elif t == D_YESNO:
            m[A_NO] = 1
            m[A_YES] = 1
        elif t == D_WILD or t == D_COLOR:
            for c in self.dec_args[1:]:
                m[A_COLOR + c] = 1
        return np.frombuffer(m, dtype=np.int8)

    def _apply(self, a: int) -> None:
        if self.dec_seat == CHANCE:
            self._apply_chance(a)
            return
        t = self.dec_type
        s = self.dec_seat
        self.dec_type = NONE
        if t == D_STEER:  # the most frequent decision: the chosen step, then the rest of the movement
            car, left, is_line = self.dec_args[:3]
            self._t_move(car, left, is_line, self.pos[car] + LANES - 1 + a - A_STEER)  # row + 1, lane - 1 .. + 1
            if not self.dec_type:
                self._run()
        elif t == D_PLAY:
            self._play(a)
        elif t == D_BID:
            self._bid(s, a)
        elif t == D_BET:
            self._bet(s, a - A_BET)
        elif t == D_POWER:
            self._choose_power(s, a - A_POWER)
        elif t == D_WILD:
            li = self.dec_args[0]
            if not self.tasks:  # a state saved by the former fast resolution (no powers, no Tricky)
                self.tasks = [[END_TURN], [TURN_END, 0], [LINE, li + 1]]
            self._line_move(li, a - A_COLOR)
            self._run()
        elif t == D_COLOR:
            c = a - A_COLOR
            if self.dec_args[0] == C_STRATEGIC:
                self.ignored = c
            else:
                self.tasks.append([MOVE, c, DEFENSIVE_MOVE, 0])
            self._run()
        elif t == D_YESNO:
            self._answer(a == A_YES)

    def _answer(self, yes: bool) -> None:
        args = self.dec_args
        kind = args[0]
        if kind == Y_TRICKY:
            if yes:
                self.line_order.reverse()
        elif kind == Y_STRATEGIC:
            if yes:
                cars = sorted(self.game.card_cars[self.cur_card])
                self._set_dec(D_COLOR, self.turn_player, [C_STRATEGIC, *cars])
                return
        elif kind == Y_AGGRESSIVE:
            self._line_move(args[1], args[2], 1 if yes else 0)
        elif kind in (Y_AMBITIOUS, Y_TOUGH, Y_RECKLESS, Y_DETERMINED):
            if yes:
                self.tasks.append([MOVE, args[1], EXTRA_MOVE, 0])
        elif kind == Y_EXPERIENCED:
            if yes:
                self._t_move(args[1], 1, 0, args[2])
        if not self.dec_type:
            self._run()

    def action_to_string(self, action: int) -> str:
        a = action
        cars = self.game.comp["cars"]
        if 0 <= a < NUM_CARDS:
            lines = self.game.deck[a]
            txt = " ".join(f"{cars[c] if c >= 0 else 'Wild'}{s}" for c, s in lines)
            return f"{'BID' if self.stage == AUCTION else 'PLAY'} #{a} [{txt}]"
        if A_BET <= a < A_POWER:
            return f"BET {cars[a - A_BET]}"
        if A_POWER <= a < A_STEER:
            c = a - A_POWER
            p = self.power_of_car[c]
            return f"KEEP {D.POWER_NAMES[p] if p >= 0 else '?'} (from {cars[c]})"
        if A_STEER <= a < A_NO:
            return ("STEER left (lane-1)", "STEER straight", "STEER right (lane+1)")[a - A_STEER]
        if a == A_NO:
            return "NO"
        if a == A_YES:
            return "YES"
        if A_COLOR <= a < NUM_ACTIONS:
            return f"CHOOSE {cars[a - A_COLOR]}"
        return f"?{a}"

    # ================================================================== hidden info
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> DownforceState:
        """Re-deal every card ``seat`` cannot see (the unknown part of the other hands, the set-aside
        cards, undealt cards) and re-draw the other seats' secret bids and bets."""
        st = self.clone()
        n = self.num_players
        others = [o for o in range(n) if o != seat]
        pool: list[int] = []
        need: list[int] = []
        for o in others:
            unknown = [c for c in st.hands[o] if c not in st.revealed[o]]
            pool.extend(unknown)
            need.append(len(unknown))
        pool.extend(st.setaside)
        pool.extend(st.deal_pool)
        pool.sort()
        perm = rng.permutation(len(pool)).tolist()
        pool = [pool[i] for i in perm]
        i = 0
        for o, k in zip(others, need):
            st.hands[o] = set(st.revealed[o]) | set(pool[i : i + k])
            i += k
        ns = len(st.setaside)
        st.setaside = pool[i : i + ns]
        i += ns
        st.deal_pool = sorted(pool[i:])
        st._sync_bits()
        if st.stage == AUCTION:
            for o in others:
                if st.pending[o] >= 0:
                    h = sorted(st.hands[o])
                    st.pending[o] = h[int(rng.integers(len(h)))]
        if st.stage != END:
            for r, b in enumerate(st.bets):
                cands = [c for c in range(NUM_CARS) if st.bet_rounds_open[r][c]]
                for o in others:
                    if b[o] >= 0:
                        b[o] = cands[int(rng.integers(len(cands)))]
        st._mask = None
        return st

    # ================================================================== invariants
    # stage -> setup step (0 grid, 1 deal, 2 order, 3 powers, 4 auction, 5 race/bets, 6 end), the
    # decision each stage allows (race: any of _RACE_DECS)
    _STAGE_STEP = {
        "grid": 0,
        "deal": 1,
        "order": 2,
        "powers": 3,
        "auction": 4,
        "power": 4,
        "race": 5,
        "bet": 5,
        "end": 6,
    }
    _STAGE_DEC = {"auction": "bid", "power": "power", "bet": "bet"}
    _RACE_DECS = ("play", "wild", "steer", "yesno", "color")

    def check_invariants(self) -> None:
        """Every law a position of this game satisfies; an AssertionError names the field that
        breaks one (saved states are untrusted: ``state_from_dict`` runs this after the schema, and
        each check guards the indexing done by the later ones, so nothing else is raised)."""
        g = self.game
        n = self.num_players
        stage = STAGE_NAMES[self.stage]  # the checks read the saved names
        dt = DEC_NAMES[self.dec_type]
        step = self._STAGE_STEP[stage]  # 0 grid, 1 deal, 2 order, 3 powers, 4 auction, 5 race, 6 end
        k = self.chance_k
        # ---- phase and decision
        if step <= 3:
            assert dt == "" and self.dec_seat == CHANCE and not self.dec_args, (
                f"dec_type: setup stage {stage!r} is a chance node"
            )
            assert k < (NUM_REGULAR if stage == "deal" else NUM_CARS), f"chance_k: {k} in stage {stage!r}"
        else:
            assert k == 0, "chance_k: setup is over"
            if stage == "end":
                assert dt == "" and self.dec_seat == TERMINAL and not self.dec_args, "dec_type: the game is over"
            else:
                want_dec = self._STAGE_DEC.get(stage)
                assert dt == want_dec if want_dec else dt in self._RACE_DECS, (
                    f"dec_type: {dt!r} cannot be decided in stage {stage!r}"
                )
                assert 0 <= self.dec_seat < n, f"dec_seat: {self.dec_seat} in stage {stage!r}"
                if dt in ("bid", "play", "bet", "power"):
                    assert not self.dec_args, "dec_args: this decision has no arguments"
        # ---- grid, auction order, powers paired with cars (setup 1, 3)
        placed = NUM_CARS if step > 0 else k
        gc = self.grid_cars
        assert (
            all(c >= 0 for c in gc[:placed])
            and all(c == NO_CAR for c in gc[placed:])
            and len(set(gc[:placed])) == placed
        ), "grid_cars: one car per grid position, filled in order"
        assert len(self.auction_order) == (k if stage == "order" else 0 if step < 2 else NUM_CARS), (
            "auction_order: every colour is auctioned exactly once (DF-R3)"
        )
        if g.powers_on:
            paired = k if stage == "powers" else 0 if step < 3 else NUM_CARS
            order = self.auction_order
            pc = self.power_of_car
            assert (
                all(pc[order[i]] >= 0 for i in range(paired))
                and sum(1 for p in pc if p >= 0) == paired
                and len({p for p in pc if p >= 0}) == paired
            ), "power_of_car: one distinct power per auctioned car, paired in auction order (DF-V1)"
        # ---- cards: every card exactly once (DF-R2)
        hs = g.hand_size(n)
        dealt = n * hs
        owner = self.owner
        groups = [(f"hand {s}", self.hands[s]) for s in range(n)] + [
            ("set aside", self.setaside),
            ("played", self.played),
            ("undealt", self.deal_pool),
            ("unsold speed-8", [NUM_REGULAR + c for c in range(NUM_CARS) if owner[c] < 0]),
        ]
        seen = [0] * NUM_CARDS
        for _, grp in groups:
            for c in grp:
                seen[c] += 1
        if seen.count(1) != NUM_CARDS:
            where: dict[int, str] = {}
            for w, grp in groups:
                for c in grp:
                    assert c not in where, f"hands/played/setaside/deal_pool: card {c} is both in {where[c]} and {w}"
                    where[c] = w
            raise AssertionError("hands/played/setaside/deal_pool: cards not conserved (DF-R2)")
        for car in range(NUM_CARS):
            c8 = NUM_REGULAR + car
            if owner[car] >= 0:
                assert c8 in self.hands[owner[car]] or c8 in self.played, (
                    f"hands: the speed-8 card of car {car} is not with its owner (DF-R8)"
                )
        dk = k if stage == "deal" else 0 if step == 0 else NUM_REGULAR  # deal slots done
        assert len(self.deal_pool) == NUM_REGULAR - dk, "deal_pool: does not match the deal slots done"
        assert len(self.setaside) == max(0, dk - dealt), "setaside: the last 2 slots of a 4-5 player deal"
        if step < 5:
            assert not self.played, "played: the race has not started"
        # ---- auction (DF-R3 .. DF-R10), recomputed from the revealed bids
        ai = self.auction_idx
        assert ai == (0 if step < 4 else NUM_CARS if step > 4 else ai), f"auction_idx: {ai} in stage {stage!r}"
        assert ai < NUM_CARS if stage == "auction" else ai > 0 if stage == "power" else True, (
            f"auction_idx: {ai} in stage {stage!r}"
        )
        assert len(self.bid_history) == ai, "bid_history: one row per finished auction"
        by = self._played_by(hs) if step >= 5 else []
        played_by = dict(zip(self.played, by))
        cars_of = [0] * n
        elig = [0] * n
        for i in range(ai):
            car = self.auction_order[i]
            elig = self._eligibility(cars_of, i)
            bids = self.bid_history[i]
            for s in range(n):
                c = bids[s]
                assert (c >= 0) == bool(elig[s]), f"bid_history[{i}][{s}]: a bid iff eligible (DF-R6)"
                if c >= 0:
                    assert c in self.hands[s] or played_by.get(c) == s, (
                        f"bid_history[{i}][{s}]: card {c} is neither in the bidder's hand nor played by them"
                    )
                    if c >= NUM_REGULAR:
                        assert owner[c - NUM_REGULAR] == s and self.auction_order.index(c - NUM_REGULAR) < i, (
                            f"bid_history[{i}][{s}]: speed-8 card {c} bid before its owner bought it"
                        )
            winner, value = self._auction_result(car, bids)
            assert owner[car] == winner, f"owner[{car}]: the auction's winner is seat {winner} (DF-R7)"
            assert self.price[car] == value, f"price[{car}]: the winning bid is {value} (DF-R8)"
            cars_of[winner] += 1
        sold = self.auction_order[:ai]
        for car in range(NUM_CARS):
            if car not in sold:
                assert owner[car] == -1 and self.price[car] == 0, f"owner[{car}]: the car is not sold yet"
        if ai == NUM_CARS:
            assert all(cars_of), "owner: a player owns no car (DF-R10)"
        if stage == "auction":
            elig = self._eligibility(cars_of, ai)
            assert self.eligible == elig, "eligible: DF-R6 decides who bids"
            ds = self.dec_seat
            assert elig[ds], "dec_seat: the bidder is not eligible (DF-R4)"
            for s in range(n):
                p = self.pending[s]
                if s < ds and elig[s]:
                    assert p >= 0 and p in self.hands[s], f"pending[{s}]: a committed bid is a card in hand (DF-R4)"
                else:
                    assert p == -1, f"pending[{s}]: bids are committed in seat order (DF-R4)"
        else:
            assert self.pending == [-1] * n, "pending: no auction is open"
            assert self.eligible == (elig if ai else [0] * n), "eligible: not the last auction's (DF-R6)"
        if g.powers_on:
            chooser = self.dec_seat if stage == "power" else -1
            for s in range(n):
                h = self.held[s]
                mine = [self.power_of_car[c] for c in range(NUM_CARS) if owner[c] == s]
                if s == chooser:
                    last = self.auction_order[ai - 1]
                    assert (
                        owner[last] == s
                        and len(h) == 2
                        and h[1] == self.power_of_car[last]
                        and h[0] != h[1]
                        and h[0] in mine
                    ), f"held[{s}]: the two powers to choose from (DF-V1)"
                else:
                    assert len(h) == min(1, len(mine)) and all(p in mine for p in h), (
                        f"held[{s}]: one power of an owned car (DF-V1)"
                    )
        # ---- hand sizes: the deal, then the speed-8 cards, then one card per turn (DF-R2, DF-R11, DF-R12)
        for s in range(n):
            if step <= 1:
                want = len(range(s, min(dk, dealt), n))
            elif step <= 4:
                want = hs + cars_of[s]
            else:
                want = len(self.hands[s])  # checked by _played_by
            assert len(self.hands[s]) == want, f"hands[{s}]: {len(self.hands[s])} cards, expected {want}"
            bid = {b[s] for b in self.bid_history}
            known = {c for c in self.hands[s] if c >= NUM_REGULAR or c in bid}
            assert self.revealed[s] == known, f"revealed[{s}]: the revealed bids and speed-8 cards in hand (DF-R9)"
        # ---- cars on the track (DF-R16 .. DF-R22, DF-R27)
        self._check_cars(step)
        # ---- the race turn, its pending sub-step and the betting rounds
        self._check_turn(step, by)
        self._check_bets(step)
        if stage == "end":
            assert len(self.finish_order) == NUM_CARS or not any(self.hands), (
                "stage: the race ends when all cars finished or no cards are left (DF-R28)"
            )
            prizes, betpay, paid = self.money_parts()
            for s in range(n):
                assert self.money[s] == prizes[s] + betpay[s] - paid[s], f"money[{s}]: prizes + bets - prices (DF-R32)"
        else:
            assert self.money == [0] * n, "money: scored only at the end"
        for s in range(n):  # the byte mirrors the encoder reads
            hb = bytearray(NUM_CARDS)
            for c in self.hands[s]:
                hb[c] = 1
            rb = bytearray(NUM_CARDS)
            for c in self.revealed[s]:
                rb[c] = 1
            assert hb == self.hand_bits[s] and rb == self.known_bits[s], f"hands[{s}]: hand mirror"

    def _eligibility(self, cars_of: list[int], i: int) -> list[int]:
        """DF-R6: who bids in auction ``i`` given the cars each seat owns."""
        carless = [0 if x else 1 for x in cars_of]
        if NUM_CARS - i == sum(carless):
            return carless
        return [1] * self.num_players

    def _auction_result(self, car: int, bids: list[int]) -> tuple[int, int]:
        """(winner, price) of an auction from its bids (-1 = not eligible), as ``_resolve_auction``."""
        g = self.game
        best = None
        winner, value = -1, 0
        for s, c in enumerate(bids):
            if c < 0:
                continue
            v = g.bid_value[c][car]
            if v <= 0:
                if winner < 0:
                    winner = s
                continue
            key = (v, -g.bid_line[c][car])
            if best is None or key > best:
                best, winner, value = key, s, v
        return winner, value

    def _played_by(self, hs: int) -> list[int]:
        """The seat that played each card of ``played``: the race starts with the owner of P1 and
        passes in seat order, skipping empty hands (DF-R11, DF-R12); checks the hand sizes and the
        seat to play against that."""
        n = self.num_players
        owner = self.owner
        assert all(o >= 0 for o in owner), "owner: the race starts after six auctions (DF-R10)"
        sizes = [hs] * n
        for o in owner:
            sizes[o] += 1
        cur = owner[self.grid_cars[0]]
        by = []
        for i, c in enumerate(self.played):
            assert cur >= 0, f"played[{i}]: a card was played after every hand was empty (DF-R28)"
            if c >= NUM_REGULAR:
                assert owner[c - NUM_REGULAR] == cur, f"played[{i}]: seat {cur} played another owner's speed-8 card"
            by.append(cur)
            sizes[cur] -= 1
            nxt = -1
            for j in range(1, n + 1):
                t = (cur + j) % n
                if sizes[t] > 0:
                    nxt = t
                    break
            cur = nxt
        for s in range(n):
            assert len(self.hands[s]) == sizes[s], (
                f"hands[{s}]: {len(self.hands[s])} cards, but turn order gives {sizes[s]} (DF-R11, DF-R12)"
            )
        if self.dec_type == D_PLAY:
            assert self.turn_player == cur, f"turn_player: seat {cur} plays next (DF-R11, DF-R12)"
        else:
            assert by and self.turn_player == by[-1], "turn_player: the seat that played the last card"
        return by

    def _check_cars(self, step: int) -> None:
        g = self.game
        pos, place, stamp, occ = self.pos, self.place, self.stamp, self.occ
        fo = self.finish_order
        assert all(place[c] == i + 1 for i, c in enumerate(fo)) and sum(1 for p in place if p) == len(fo), (
            "place: finishing places follow finish_order (DF-R21, DF-R22)"
        )
        if step < 5:
            assert not fo, "finish_order: the race has not started"
        gi = [-1] * NUM_CARS
        for i, c in enumerate(self.grid_cars):
            if c >= 0:
                gi[c] = i
        on = 0
        advance = 0
        for c in range(NUM_CARS):
            p = pos[c]
            if gi[c] < 0:
                assert p == -1 and stamp[c] == 0 and not place[c], f"pos[{c}]: the car is not on the grid yet"
                continue
            start = g.grid[gi[c]]
            if p >= 0:
                on += 1
                assert g.exists[p] and occ[p] == c, f"pos[{c}]: space {p} is not on the track or occ disagrees"
                assert not place[c], f"place[{c}]: a car on the track has not finished"
                rows = p // 3 - start // 3
                assert rows >= 0, f"pos[{c}]: behind its grid row (DF-R16: no backward steps)"
            else:
                assert place[c], f"pos[{c}]: a car off the track must have finished (DF-R21)"
                rows = g.last_row - start // 3
            if rows == 0:
                assert p == start and stamp[c] == gi[c] + 1, (
                    f"stamp[{c}]: a car that never moved keeps its grid stamp (DF-R27)"
                )
            else:
                assert NUM_CARS < stamp[c] < self.stamp_counter, f"stamp[{c}]: a moved car's entry stamp (DF-R27)"
            advance += rows
            assert self.turn_moved[c] <= rows + (1 if place[c] else 0), f"turn_moved[{c}]: more than it moved"
            assert self.turn_moved[c] or not self.turn_nonrect[c], f"turn_nonrect[{c}]: the car did not move"
        assert len(set(stamp)) == NUM_CARS or step == 0, "stamp: entry stamps are distinct (DF-R27)"
        assert step >= 5 or advance == 0, "pos: the cars stay on the grid until the race"
        assert self.stamp_counter == NUM_CARS + 1 + advance, "stamp_counter: one stamp per step taken (DF-R27)"
        assert sum(1 for x in occ if x >= 0) == on, "occ: a car where none stands (DF-R17)"
        rows_done = [g.last_row + 1 if place[c] else pos[c] // 3 for c in range(NUM_CARS) if pos[c] >= 0 or place[c]]
        for kk, r in enumerate(g.track["betting_lines"]):
            assert self.triggered[kk] == (1 if any(x > r for x in rows_done) else 0), (
                f"triggered[{kk}]: betting line {kk} triggers when the first car crosses it (DF-R23)"
            )

    def _check_turn(self, step: int, by: list[int]) -> None:
        """The race turn: the card being resolved, the task stack and the pending sub-step."""
        g = self.game
        t = DEC_NAMES[self.dec_type]
        mid = self.stage == RACE and t != "play"
        lo = self.line_order
        tp = self.turn_player
        if step < 5:
            assert tp == -1 and self.cur_card == -1, "turn_player: no race turn before the race"
        if not self.played:
            assert self.cur_card == -1, "cur_card: no card played yet"
            assert (
                not lo
                and self.ignored == NO_CAR
                and self.line_track == [NO_CAR, -1, 0, 0, 0]
                and not any(self.turn_moved)
                and not any(self.turn_nonrect)
            ), "line_order/ignored/line_track/turn_moved/turn_nonrect: no card played yet"
        else:
            last = self.played[-1]
            assert self.cur_card == (-1 if t == "play" else last), "cur_card: the card being resolved"
            fwd = list(range(len(g.deck[last])))
            power = self.power(by[-1])
            assert lo == fwd or (lo == fwd[::-1] and power == TRICKY), "line_order: top to bottom (DF-R13, DF-V1.5)"
            assert self.ignored == NO_CAR or (power == STRATEGIC and self.ignored in g.card_cars[last]), (
                "ignored: only Strategic ignores a printed colour (DF-V1.4)"
            )
        lt = self.line_track
        if g.powers_on and lt[0] == NO_CAR:
            assert lt == [NO_CAR, -1, 0, 0, 0], "line_track: no line has moved a car yet"
        elif g.powers_on:
            assert lt[1] >= 0 and g.exists[lt[1]], "line_track: the moved car's start space"
        if not mid:
            assert not self.tasks, "tasks: no card is being resolved"
            if self.stage != BET:
                assert not self.bet_queue, "bet_queue: no card is being resolved"
            if t == "play":
                assert len(self.finish_order) < NUM_CARS and self.dec_seat == tp, (
                    "dec_seat: the turn player plays a card (DF-R12)"
                )
            return
        self._check_sub_step()

    def _check_sub_step(self) -> None:
        """A pending sub-step of a race card (DF-R15, DF-R20, DF-V1, DF-V2, DF-V7) and the task stack
        that resumes after it (see ``_run``: what each task kind leaves on the stack)."""
        g = self.game
        t = DEC_NAMES[self.dec_type]
        a = self.dec_args
        ds = self.dec_seat
        tp = self.turn_player
        cur = self.cur_card
        lines = g.deck[cur]
        lo = self.line_order
        tasks: list[list[Any]] = [[TASK_NAMES[x[0]], *x[1:]] for x in self.tasks]  # the checks read the saved names
        pw = self.power(tp)
        pos = self.pos
        n = self.num_players
        assert a, "dec_args: the sub-step's context is missing"
        if not g.powers_on and t == "wild" and not tasks:  # the stack-less form of the former fast resolution
            assert a and a[0] < len(lines) and lines[a[0]][0] < 0, "dec_args: the wild line of the card (DF-R15)"
            cands = self._wild_candidates()
            assert a[1:] == cands and len(cands) > 1 and ds == tp, "dec_args: the cars the wild line may name (DF-R15)"
            return
        assert len(tasks) >= 2 and tasks[0] == ["end_turn"] and tasks[1][0] == "turn_end", (
            "tasks: a card's resolution ends with the turn end (DF-V7)"
        )
        j = tasks[1][1]
        rest = tasks[2:]
        for x in rest:
            if x[0] in ("after_line", "experienced"):
                sp = self.pos[x[1]]
                assert g.exists[x[2]] and (sp < 0 or x[2] // 3 <= sp // 3), (
                    f"tasks: {x[0]}'s start space is not behind its car"
                )
        top = rest[1:] if j == 0 else rest
        if j == 0:  # the card's lines (DF-V7 1-3)
            assert rest and rest[0][0] == "line" and rest[0][1] <= len(lo) and len(top) <= 1, (
                "tasks: the lines of the card"
            )
            i = rest[0][1]
            assert not top or (i > 0 and top[0][0] in ("after_line", "experienced")), "tasks: after a line"
            li = lo[i - 1] if i > 0 else -1
            if top:  # the car the line moved: printed, or named by a wild
                lc = lines[li][0]
                assert top[0][1] == lc or (
                    lc == NO_CAR and (top[0][1] not in g.card_cars[cur] or pw == UNPREDICTABLE)
                ), "tasks: the car moved is not the line's car (DF-R13, DF-R15)"
            if i == 0:
                assert not any(self.turn_moved) and not self.bet_queue, (
                    "turn_moved/bet_queue: nothing has moved before the first line"
                )
        else:  # turn-end powers (DF-V7 4)
            assert g.powers_on and j <= n and len(top) <= 1 and all(x[0] == "determined" for x in top), (
                "tasks: the turn-end powers"
            )
            i = li = -1
        if t == "steer":
            assert len(a) >= 3, "dec_args: car, movement left, line flag and the legal steps"
            car, left, is_line = a[0], a[1], a[2]
            assert car < NUM_CARS and pos[car] >= 0, "dec_args: the steered car is on the track"
            free = [kk for kk, s2 in g.steps[pos[car]] if self.occ[s2] < 0]
            assert a[3:] == free and len(free) > 1, "dec_args: the legal steps (DF-R16, DF-R17, DF-R20)"
            assert ds == self._steerer(car), f"dec_seat: seat {self._steerer(car)} steers this car (DF-R20, DF-V1.2)"
            assert j > 0 or (top and top[0][1] == car), "tasks: the car being moved"
            assert 1 <= left and is_line == (1 if top and top[0][0] == "after_line" else 0), (
                "dec_args: the movement left"
            )
            if j == 0:
                if top[0][0] == "after_line":
                    assert left <= max(lines[li][1] + 1, BOLD_SPEED), "dec_args: more movement than the line"
                    if g.powers_on:
                        assert self.line_track[:2] == top[0][1:], "line_track: the line's car and start space"
                else:
                    assert left <= EXTRA_MOVE and self.line_track[:3] == top[0][1:], "tasks: the extra movement"
            elif top:
                s, c0 = top[0][1], top[0][2]
                assert (
                    car == c0 - 1
                    and s == (tp + j - 1) % n
                    and self.owner[car] == s
                    and self.power(s) == DETERMINED
                    and left <= EXTRA_MOVE
                ), "tasks: the Determined movement (DF-V1.3)"
            else:
                assert j == 1 and pw == DEFENSIVE and self.owner[car] == tp and left <= DEFENSIVE_MOVE, (
                    "tasks: the Defensive movement (DF-V2.5)"
                )
            return
        if t == "wild":
            assert j == 0 and i > 0 and not top and a[0] == li and lines[li][0] < 0, (
                "dec_args: the wild line being resolved (DF-R15)"
            )
            cands = self._wild_candidates()
            assert a[1:] == cands and len(cands) > 1 and ds == tp, "dec_args: the cars the wild line may name (DF-R15)"
            return
        assert g.powers_on, f"dec_type: {t!r} needs powers"
        kind = a[0]
        if t == "color":
            assert kind < len(COLOR_KINDS), "dec_args: the colour choice kind"
            if COLOR_KINDS[kind] == "strategic":
                assert (
                    j == 0
                    and i == 0
                    and pw == STRATEGIC
                    and ds == tp
                    and self.ignored == NO_CAR
                    and len(g.card_cars[cur]) == NUM_CARS
                    and a[1:] == sorted(g.card_cars[cur])
                ), "dec_args: Strategic names one of the six printed colours (DF-V1.4)"
            else:
                mine = [c for c in range(NUM_CARS) if self.owner[c] == tp]
                cands = [c for c in mine if not self.place[c]]
                assert (
                    j == 1
                    and not top
                    and pw == DEFENSIVE
                    and ds == tp
                    and a[1:] == cands
                    and len(cands) > 1
                    and not any(self.turn_moved[c] for c in mine)
                ), "dec_args: Defensive chooses one of the own unfinished cars (DF-V2.5)"
            return
        assert kind < len(YESNO_KINDS), "dec_args: the yes/no prompt kind"
        name = YESNO_KINDS[kind]
        if name in ("tricky", "strategic"):
            ok = (
                (pw == TRICKY and len(lines) >= 2)
                if name == "tricky"
                else (pw == STRATEGIC and len(g.card_cars[cur]) == NUM_CARS)
            )
            assert (
                ok
                and len(a) == 1
                and j == 0
                and i == 0
                and ds == tp
                and self.ignored == NO_CAR
                and lo == list(range(len(lines)))
            ), f"dec_args: the {name} prompt before the first line (DF-V1.4/5)"
            return
        if name == "aggressive":
            assert len(a) == 3 and j == 0 and i > 0 and not top and a[1] == li == 0, (
                "dec_args: Aggressive asks at the top line (DF-V1.1)"
            )
            car = a[2]
            assert (
                car < NUM_CARS
                and pos[car] >= 0
                and self.owner[car] == tp
                and pw == AGGRESSIVE
                and ds == tp
                and car != self.ignored
                and lines[0][0] in (car, NO_CAR)
            ), "dec_args: Aggressive's car (DF-V1.1)"
            return
        if name == "experienced":
            assert len(a) == 3 and j == 0 and i > 0 and not top, "dec_args: Experienced asks after a line (DF-V2.2)"
            xc, start = a[1], a[2]
            assert (
                xc < NUM_CARS
                and pos[xc] >= 0
                and (1, start) in g.steps[pos[xc]]
                and self.occ[start] < 0
                and self.owner[xc] >= 0
                and self.power(self.owner[xc]) == EXPERIENCED
                and ds == self.owner[xc]
            ), "dec_args: Experienced steps straight into the vacated space (DF-V2.2)"
            return
        if name == "determined":
            assert len(a) == 2 and j >= 1 and top, "dec_args: Determined asks at the turn end (DF-V1.3)"
            c = a[1]
            s, c0 = top[0][1], top[0][2]
            assert (
                c < NUM_CARS
                and c0 == c + 1
                and s == (tp + j - 1) % n
                and self.owner[c] == s
                and ds == s
                and self.power(s) == DETERMINED
                and pos[c] >= 0
                and self.turn_moved[c]
                and not self.turn_nonrect[c]
            ), "dec_args: a Determined car that moved on rectangular spaces only (DF-V1.3)"
            return
        # ambitious, tough, reckless: right after the line's movement (DF-V7 3)
        assert len(a) == 2 and j == 0 and top and top[0][0] == "experienced" and top[0][1] == a[1], (
            f"dec_args: the {name} prompt follows the line's movement"
        )
        car = a[1]
        o = self.owner[car]
        lt = self.line_track
        want = {"ambitious": AMBITIOUS, "tough": TOUGH, "reckless": RECKLESS}[name]
        assert pos[car] >= 0 and o >= 0 and ds == o and self.power(o) == want and lt[:3] == top[0][1:], (
            f"dec_args: the {name} prompt is for the moved car's owner"
        )
        if name == "ambitious":
            assert lt[3] > 0, "line_track: Ambitious needs a betting line crossed (DF-V2.1)"
        elif name == "tough":
            assert lt[2] > 0 and g.rumble[pos[car]], "line_track: Tough needs a move onto rumble (DF-V2.3)"
        else:
            assert o == tp and lt[4], "line_track: Reckless needs a narrow space entered on its turn (DF-V2.6)"

    def _check_bets(self, step: int) -> None:
        """Betting rounds (DF-R23 .. DF-R27): held in line order, recorded positions, hidden bets."""
        nr = len(self.bets)
        n = self.num_players
        assert self.bet_round == nr - 1, "bet_round: the last betting round held"
        assert len(self.bet_k) == len(self.bet_rounds_pos) == len(self.bet_rounds_open) == nr, (
            "bet_k/bet_rounds_pos/bet_rounds_open: one entry per betting round"
        )
        ks = [x[0] for x in self.bet_k]
        assert all(ks[r] < ks[r + 1] for r in range(nr - 1)), "bet_k: rounds follow the line order (DF-R24)"
        q = self.bet_queue
        assert all(self.triggered[x] for x in ks + q) and not set(ks) & set(q) and all(x > ks[-1] for x in q if ks), (
            "bet_queue: triggered lines not held yet (DF-R24)"
        )
        trig = {x for x in range(3) if self.triggered[x]}
        held = set(ks) | set(q)
        assert held == trig or (self.stage == END and len(self.finish_order) == NUM_CARS), (
            "triggered: every triggered line gets its betting round (DF-R24, DF-R25)"
        )
        fo = self.finish_order
        done = 0
        betting = self.stage == BET
        for r in range(nr):
            rp, ro = self.bet_rounds_pos[r], self.bet_rounds_open[r]
            f = ro.count(0)
            assert sorted(rp) == list(range(1, NUM_CARS + 1)), f"bet_rounds_pos[{r}]: positions 1..6 (DF-R27)"
            assert (
                done <= f < NUM_CARS
                and f <= len(fo)
                and all(ro[c] == 0 and rp[c] == i + 1 for i, c in enumerate(fo[:f]))
            ), f"bet_rounds_open[{r}]: the cars finished at that round (DF-R25, DF-R27)"
            done = f
            last = betting and r == nr - 1
            if last:
                assert ro == [0 if self.place[c] else 1 for c in range(NUM_CARS)], (
                    f"bet_rounds_open[{r}]: the unfinished cars (DF-R25)"
                )
            for s in range(n):
                b = self.bets[r][s]
                if last and s >= self.dec_seat:
                    assert b == -1, f"bets[{r}][{s}]: bets are committed in seat order"
                else:
                    assert b >= 0 and ro[b], f"bets[{r}][{s}]: a bet on a car that had not finished (DF-R25)"
        if betting:
            assert nr > 0, "stage: a betting round needs its record"

    # ================================================================== copy / JSON
    def clone(self) -> DownforceState:
        st = DownforceState.__new__(DownforceState)
        d = st.__dict__
        src = self.__dict__
        d["game"] = self.game
        d["num_players"] = self.num_players
        d["_mask"] = self._mask
        d["hand_bits"] = [bytearray(x) for x in self.hand_bits]
        d["known_bits"] = [bytearray(x) for x in self.known_bits]
        for k in _SCALARS:
            d[k] = src[k]
        for k in _LISTS:
            d[k] = list(src[k])
        for k in _NESTED:
            d[k] = [list(x) for x in src[k]]
        for k in _SETS:
            d[k] = [set(x) for x in src[k]]
        return st

    def _to_dict(self) -> dict[str, Any]:
        """The state's own fields (the core adds env id, version, options and player count); stage,
        decision and task kinds by name."""
        d: dict[str, Any] = {}
        src = self.__dict__
        for k in _SCALARS:
            d[k] = src[k]
        for k in _LISTS:
            d[k] = list(src[k])
        for k in _NESTED:
            d[k] = [list(x) for x in src[k]]
        for k in _SETS:
            d[k] = [sorted(x) for x in src[k]]
        d["stage"] = STAGE_NAMES[self.stage]
        d["dec_type"] = DEC_NAMES[self.dec_type]
        d["tasks"] = [[TASK_NAMES[t[0]], *t[1:]] for t in self.tasks]
        return d

    def _load(self, d: dict[str, Any]) -> None:
        """Fill the fields from a schema-checked dict (``DownforceGame.state_schema``) and rebuild
        the byte mirrors; ``check_invariants`` decides whether the result is a position."""
        for k in _SCALARS:
            setattr(self, k, d[k])
        for k in _LISTS:
            setattr(self, k, list(d[k]))
        for k in _NESTED:
            setattr(self, k, [list(x) for x in d[k]])
        for k in _SETS:
            setattr(self, k, [set(x) for x in d[k]])
        self.stage = _STAGE_OF[d["stage"]]
        self.dec_type = _DEC_OF[d["dec_type"]]
        self.tasks = [[_TASK_OF[t[0]], *t[1:]] for t in d["tasks"]]
        self._mask = None
        self._sync_bits()


_TASK_RUN: tuple[Callable[..., None], ...] = (  # by Task
    DownforceState._t_pre,
    DownforceState._t_line,
    DownforceState._t_move,
    DownforceState._t_after_line,
    DownforceState._t_experienced,
    DownforceState._t_turn_end,
    DownforceState._t_determined,
    DownforceState._t_end_turn,
)
assert len(_TASK_RUN) == len(Task)


@cache
def _steer_mask(free: tuple[int, ...]) -> np.ndarray:
    """The STEER mask for the legal lane choices ``free`` (a shared read-only array)."""
    b = bytearray(NUM_ACTIONS)
    for k in free:
        b[A_STEER + k] = 1
    return np.frombuffer(bytes(b), dtype=np.int8)


# ====================================================================== race evaluation
# The 1-ply race evaluation: the heuristic (bot.py) plays by it and the observation's optional
# action features (encoder.py) show it, so it lives here, once, next to the rules it reads. It
# reads only the board, the card played and the evaluating seat's own bets (public information
# plus what that seat knows).


def progress(st: DownforceState, car: int) -> float:
    """Distance of a car along the race (finished cars beyond the last row, by place)."""
    if st.place[car]:
        return st.game.num_rows + 10 - st.place[car]
    return st.pos[car] // LANES + 0.01 * (3 - st.stamp[car] / max(1, st.stamp_counter))


def race_value(st: DownforceState, seat: int, lead: float = 0.0, rival_lead: float = 0.0) -> float:
    """Evaluation of a race position for ``seat``: own cars' mean progress minus the others'.

    ``lead`` (0..1) moves weight from the own cars' mean to the best-placed own car (the prizes and
    a bet on an own car pay most for the winner), ``rival_lead`` likewise for the others' cars; both
    0 is the plain difference of means (the heuristic bot and the observation's action features)."""
    own = 0.0
    other = 0.0
    nother = 0
    best_own = best_other = -1e9
    place = st.place
    pos = st.pos
    owner = st.owner
    stamp = st.stamp
    fin = st.game.num_rows + 10
    stamps = max(1, st.stamp_counter)
    for c in range(NUM_CARS):
        # progress(st, c), inline
        p = fin - place[c] if place[c] else pos[c] // LANES + 0.01 * (3 - stamp[c] / stamps)
        if owner[c] == seat:
            own += p
            if p > best_own:
                best_own = p
        else:
            other += p
            nother += 1
            if p > best_other:
                best_other = p
    nown = NUM_CARS - nother
    v_own = own / nown if nown else 0.0
    v_other = other / nother if nother else 0.0
    if lead and nown:
        v_own = lead * best_own + (1.0 - lead) * v_own
    if rival_lead and nother:
        v_other = rival_lead * best_other + (1.0 - rival_lead) * v_other
    return v_own - v_other


def friendly_cars(st: DownforceState, seat: int, with_bets: bool = True) -> list[bool]:
    """The cars ``seat`` wants to go far: its own and (``with_bets``) those it bet on."""
    f = [o == seat for o in st.owner]
    if with_bets:
        for b in st.bets:
            if b[seat] >= 0:
                f[b[seat]] = True
    return f


def steer_scores(st: DownforceState, seat: int, with_bets: bool = True) -> dict[int, float]:
    """For the STEER decision now: each legal lane choice's value for ``seat`` after the car's
    remaining movement (planned over every later fork the same way; the other cars stand still),
    higher is better. A friendly car (``friendly_cars``): rows reached plus a small bonus for free
    lanes ahead of where it stops. Any other car: minus that (short, boxed in, stuck), less a cost if
    it stops right in front of a friendly car (it would block that car too)."""
    nxt = _steer_plan(st, st.dec_args, friendly_cars(st, seat, with_bets))[0]
    lane0 = st.pos[st.dec_args[0]] % LANES
    return {A_STEER + k: _score(nxt[lane0 + k - 1]) for k in st.dec_args[3:]}


def _steer_plan(st: DownforceState, args: list[int], friendly: list[bool]) -> list[list[float | None]]:
    """``steer_scores``' plan for the STEER decision ``args`` (``dec_args``), ``friendly`` being
    ``friendly_cars`` of the deciding seat: for each row from the one after the moving car up to
    the furthest it can reach, the value of standing on each lane there with the steps left (None
    where it cannot stand; on the last step only the legal lanes are valued). It reads only the
    rows ahead of the car and the friendly cars' spaces, and a row's steps left are the car's end
    row (its row + the steps left now) minus that row, so at a later choice point of the same
    movement (only this car stepped since) its rows are that point's plan (``finish_turn``)."""
    g = st.game
    car, m = args[0], args[1] - 1  # after the first step, m steps are left
    occ = st.occ
    steps = g.steps
    pos = st.pos
    mine = friendly[car]
    sid0 = pos[car]
    # where a car other than a friendly one stops: the (row, lane) of the friendly cars it would
    # stand in front of
    behind = (
        () if mine else [divmod(pos[c], LANES) for c in range(NUM_CARS) if friendly[c] and c != car and pos[c] >= 0]
    )
    if m == 0:  # the last step: the stop of each legal lane (the most frequent plan)
        nxt: list[float | None] = [None, None, None]
        for k in args[3:]:
            nxt[sid0 % LANES + k - 1] = _stop_value(sid0 + LANES - 1 + k, occ, steps, mine, behind)
        return [nxt]
    exists = g.exists
    last = g.last_row
    row0 = sid0 // LANES
    fin = last + 10.0 if mine else -(last + 10.0)
    # every step goes one row up, so plan row by row from the furthest reachable row down to
    # the first step's row: the best value of standing on (row, lane) with the steps left there
    plan: list[list[float | None]] = []
    nxt = [None, None, None]
    r = min(row0 + 1 + m, last)
    k = m - (r - row0 - 1)
    while r > row0:
        cur: list[float | None] = [None, None, None]
        for sid in range(r * LANES, r * LANES + LANES):
            if not exists[sid] or occ[sid] >= 0:
                continue
            v: float | None
            if k == 0:
                v = _stop_value(sid, occ, steps, mine, behind)
            elif r == last:  # DF-R21: finishes
                v = fin
            else:
                v = None
                for _, s2 in steps[sid]:
                    if occ[s2] < 0:
                        w = nxt[s2 % LANES]
                        if v is None or (w is not None and w > v):
                            v = w
                if v is None:  # blocked (DF-R18)
                    v = _stop_value(sid, occ, steps, mine, behind)
            cur[sid % LANES] = v
        plan.append(cur)
        nxt = cur
        r -= 1
        k += 1
    plan.reverse()
    return plan


def _stop_value(sid: int, occ: list[int], steps: list, mine: bool, behind: Sequence[tuple[int, int]]) -> float:
    """``_steer_plan``'s value of a car stopping on ``sid``: rows reached plus 0.2 per free step
    ahead for a friendly car (``mine``); minus that, less 0.6 per friendly car right behind it
    (``behind``: their rows and lanes), for any other car."""
    free = 0
    for _, s2 in steps[sid]:
        if occ[s2] < 0:
            free += 1
    v = sid // LANES + 0.2 * free
    if mine:
        return v
    r, ln = divmod(sid, LANES)
    for br, bl in behind:  # it would stand in a friendly car's way
        if br == r - 1 and -1 <= bl - ln <= 1:
            v += 0.6
    return -v


def _score(v: float | None) -> float:
    assert v is not None, "a legal lane choice has a value"
    return v


def _best_lane(st: DownforceState, args: list[int], nxt: list[float | None]) -> int:
    """The steer index (0-2) of the STEER decision ``args`` with the best value in ``nxt`` (a
    plan's first row; ties: DF-R20's order)."""
    lane0 = st.pos[args[0]] % LANES - 1
    best = -1
    best_v = 0.0
    for k in args[3:]:
        v = _score(nxt[lane0 + k])
        if best < 0 or v > best_v:
            best, best_v = k, v
    return best


def choose_steer(st: DownforceState, seat: int, with_bets: bool = True) -> int:
    """The lane choice with the best ``steer_scores`` (ties: DF-R20's automatic order)."""
    args = st.dec_args
    return A_STEER + _best_lane(st, args, _steer_plan(st, args, friendly_cars(st, seat, with_bets))[0])


def choose_wild(st: DownforceState, seat: int, legal: Sequence[int]) -> int:
    """The car a wild line names: the seat's own car furthest behind, else the last car."""
    cands = [int(a) - A_COLOR for a in legal]
    mine = [c for c in cands if st.owner[c] == seat]
    if mine:
        return A_COLOR + max(mine, key=lambda c: -progress(st, c))
    return A_COLOR + min(cands, key=lambda c: progress(st, c))


def choose_color(st: DownforceState, seat: int, legal: Sequence[int]) -> int:
    """Strategic: ignore the best opponent car; Defensive: push the own leader."""
    cands = [int(a) - A_COLOR for a in legal]
    if st.dec_args and st.dec_args[0] == C_STRATEGIC:
        others = [c for c in cands if st.owner[c] != seat]
        if others:
            return A_COLOR + max(others, key=lambda c: progress(st, c))
        return A_COLOR + cands[0]
    return A_COLOR + max(cands, key=lambda c: progress(st, c))


def greedy_substep(st: DownforceState, seat: int, steer: str = "player", viewer: int | None = None) -> int:
    """The answer to a sub-step of a race card (``seat`` decides; ``viewer`` is whose knowledge of
    bets it may use): steering by ``choose_steer`` (``steer="auto"``: DF-R20's fixed rule), YES to
    every prompt, wild and colour choices as above."""
    t = st.dec_type
    if t == D_STEER:
        if steer == "auto":
            return A_STEER + st.dec_args[3]  # DF-R20's fixed rule: the first in its order
        return choose_steer(st, seat, viewer is None or viewer == seat)
    if t == D_YESNO:
        return A_YES
    legal = np.flatnonzero(st.legal_mask()).tolist()
    if t == D_WILD:
        return choose_wild(st, seat, legal)
    if t == D_COLOR:
        return choose_color(st, seat, legal)
    return int(legal[0])


def finish_turn(
    st: DownforceState, seat: int, steer: str = "player", friendly: dict | None = None, action: int | None = None
) -> None:
    """Play ``action`` if given (a legal action of the decision now), then answer the sub-steps of
    the current card by ``greedy_substep`` until the turn's card is resolved or a bet/another turn
    comes up. Only ``seat``'s own bets are read (another seat's,
    e.g. a Cunning holder's, are hidden from it). ``friendly``: a cache of ``friendly_cars`` per
    steering seat (owners and bets do not change while a card resolves), shareable between copies
    of one position (``play_values``).

    Steering (``choose_steer``) answers each choice point inside the movement (``_steer_by``)
    rather than pausing there, the same steps as answering the STEER decisions one by one; a
    later choice point of a planned movement (only that car stepped since) reads the rest of
    that plan."""
    if friendly is None:
        friendly = {}
    # the last steering plan: car, friendly list, end row, row, stamp counter, finished cars, plan
    last: tuple | None = None

    def steer_by(s: int, args: list[int]) -> int:
        nonlocal last
        f = friendly.get(s)
        if f is None:
            f = friendly[s] = friendly_cars(st, s, s == seat)
        car, left = args[0], args[1]
        row = st.pos[car] // LANES
        if (
            last is not None
            and last[0] == car
            and last[1] is f
            and last[2] == row + left
            and last[3] < row
            and st.stamp_counter - last[4] == row - last[3]  # only this car stepped since
            and len(st.finish_order) == last[5]
        ):  # a later choice point of the planned movement: its plan is the rest of that plan
            nxt = last[6][row - last[3]]
        else:
            plan = _steer_plan(st, args, f)
            last = (car, f, row + left, row, st.stamp_counter, len(st.finish_order), plan)
            nxt = plan[0]
        return _best_lane(st, args, nxt)

    if steer != "auto":
        st._steer_by = steer_by
    try:
        if action is not None:
            st._apply(action)
            st._mask = None
        guard = 0
        while st.stage == RACE and st.dec_type != D_PLAY and st.dec_type != NONE and guard < 400:
            guard += 1
            st._apply(greedy_substep(st, st.dec_seat, steer, seat))  # legal by construction
            st._mask = None
    finally:
        st.__dict__.pop("_steer_by", None)


def play_values(
    st: DownforceState,
    seat: int,
    legal: Sequence[int],
    steer: str = "player",
    lead: float = 0.0,
    rival_lead: float = 0.0,
) -> list[float]:
    """1-ply lookahead: ``race_value`` for ``seat`` (with its ``lead`` and ``rival_lead``) after each
    action of ``legal`` (a race card, a lane choice, a wild's car) on a copy, the rest of the card
    answered by ``greedy_substep``."""
    out = []
    friendly: dict = {}
    for a in legal:
        sim = st.clone()
        finish_turn(sim, seat, steer, friendly, int(a))
        out.append(race_value(sim, seat, lead, rival_lead))
    return out
