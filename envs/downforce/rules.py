"""Downforce (Restoration Games, 2017) rules: auction, race and betting (spec ``rules/downforce.md``).

Version history:
    v0: first version (base game, powers, extra powers, odds betting, manual steering, tracks).

Action layout (Discrete(71), masked):
    0-47 PLAY/BID card id; 48-53 BET car; 54-59 CHOOSE_POWER (keep the power paired with car c);
    60-62 STEER to lane l-1 / straight / l+1; 63 NO; 64 YES; 65-70 CHOOSE_COLOR car.

Chance is dealt item by item, so ``chance_outcomes`` is always exact and small: the grid (one car
per grid position), the deal (one card per deal slot; slot k goes to seat k mod n, the last two
slots of a 4-5 player deal are set aside), the auction order (one car per auction) and, with
powers, the power paired with each auctioned car (drawn from the 6 or 12 power pool).

A race card is resolved by a small explicit task stack (``State.tasks``) so that every sub-step
(wild naming, steering, optional powers) is a normal decision and the state stays JSON-safe.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from boardzoo.envs.core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State

from . import data as D
from .encoder import action_features, encode

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

(AGGRESSIVE, CUNNING, DETERMINED, STRATEGIC, TRICKY, UNPREDICTABLE,
 AMBITIOUS, EXPERIENCED, TOUGH, BOLD, DEFENSIVE, RECKLESS) = range(12)
NO_POWER = -1

# decision types (the observation encodes them; index = position in DEC_TYPES)
DEC_TYPES = ("bid", "power", "play", "wild", "steer", "yesno", "color", "bet")
# yes/no prompt kinds and colour-choice kinds
YESNO_KINDS = ("tricky", "strategic", "aggressive", "ambitious", "tough", "reckless", "experienced", "determined")
COLOR_KINDS = ("strategic", "defensive")
EXTRA_MOVE = 2       # DF-V1.3, DF-V2.1, DF-V2.3, DF-V2.6
DEFENSIVE_MOVE = 3   # DF-V2.5
BOLD_SPEED = 3       # DF-V2.4
NO_CAR = -1
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
        "steering": Option("auto", "DF-V5: who steers when several steps are legal", choices=("auto", "manual")),
        "track": Option("default", "DF-V6: id of a track data file in envs/downforce/tracks/", type=str),
        "action_features": Option(False, "observation ends with one feature per action (1-ply lookahead "
                                  "of each race card, bid speeds, car positions for bets); slower"),
    }
    conformance_options = [
        {},
        {"powers": True, "extra_powers": True, "steering": "manual", "odds_betting": True},
        {"powers": True, "odds_winner_only": True, "track": "sprint"},
        {"action_features": True},
    ]
    num_actions = NUM_ACTIONS

    def check_options(self) -> None:
        o = self.options
        if o["extra_powers"] and not o["powers"]:
            raise ConfigError("option extra_powers=True needs powers=True (DF-V2 extends DF-V1)")
        if o["odds_betting"] and o["odds_winner_only"]:
            raise ConfigError("options odds_betting and odds_winner_only are alternative payout modes; "
                              "set at most one of them (DF-V3, DF-V4)")
        self.track = D.load_track(o["track"])
        self.deck = D.load_deck()
        self.comp = D.load_components()
        self._build_geometry()
        self.powers_on = bool(o["powers"])
        self.fast_resolve = not self.powers_on and o["steering"] == "auto"
        self.power_pool = list(range(12 if o["extra_powers"] else 6)) if self.powers_on else []
        self.manual = o["steering"] == "manual"
        self.payout = "odds_winner" if o["odds_winner_only"] else "odds" if o["odds_betting"] else "standard"
        from .encoder import Layout
        self.layout = Layout(self)
        self.observation_size = self.layout.size
        self.action_feature_offset = None
        if o["action_features"]:                    # encoder.action_features, after the base encoding
            self.action_feature_offset = self.layout.size
            self.observation_size = self.layout.size + NUM_ACTIONS

    # ------------------------------------------------------------------ geometry
    def _build_geometry(self) -> None:
        rows = self.track["rows"]
        self.num_rows = nr = len(rows)
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
        self.bet_after = [-1] * nr          # bet_after[r] = k if betting line k lies after row r
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

    # ------------------------------------------------------------------ API
    def hand_size(self, n: int) -> int:
        return self.comp["hand_sizes"][str(n)]

    def new_initial_state(self, num_players: int) -> "DownforceState":
        self.check_players(num_players)
        return DownforceState(self, int(num_players))

    def _state_from_dict(self, data: dict) -> "DownforceState":
        st = DownforceState(self, int(data["num_players"]))
        st._load(data)
        return st

    def renderer(self) -> Callable[["State"], np.ndarray]:
        from .render import render_rgb
        return render_rgb

    def heuristic_bot(self, seat: int, seed: int | None = None, **style: Any):
        """The heuristic bot; ``style`` picks a variant (``bet_own=True``: bet on the best-placed own
        car; ``keep_speed8=x``: the lookahead a speed-8 card must gain, default 0.8 rows)."""
        from functools import partial

        from boardzoo.envs.core.bots import HeuristicBot

        from .bot import policy
        unknown = sorted(set(style) - {"bet_own", "keep_speed8"})
        if unknown:
            raise ConfigError(f"downforce heuristic: unknown style {unknown}; use bet_own, keep_speed8")
        if not style:
            return HeuristicBot(policy, seed, name="downforce-heuristic")
        return HeuristicBot(partial(policy, bet_own=bool(style.get("bet_own", False)),
                                    keep_speed8=float(style.get("keep_speed8", 0.8))),
                            seed, name="downforce-heuristic-variant")


# JSON field lists (clone/to_dict): plain ints/strs, flat int lists, lists of lists, sets
_SCALARS = ("stage", "chance_k", "auction_idx", "turn_player", "stamp_counter", "cur_card", "ignored",
            "dec_type", "dec_seat", "bet_round")
_LISTS = ("grid_cars", "deal_pool", "setaside", "played", "auction_order", "power_of_car", "owner", "price",
          "pos", "place", "stamp", "occ", "finish_order", "pending", "eligible", "triggered", "line_order",
          "turn_moved", "turn_nonrect", "bet_queue", "dec_args", "money", "line_track")
_NESTED = ("bid_history", "held", "tasks", "bet_rounds_pos", "bet_rounds_open", "bets", "bet_k")
_SETS = ("hands", "revealed")


class DownforceState(State):
    """One Downforce position."""

    def __init__(self, game: DownforceGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        self._mask = None
        self.stage = "grid"                 # grid, deal, order, powers, auction, power, race, bet, end
        self.chance_k = 0
        self.grid_cars = [NO_CAR] * NUM_CARS    # car on grid position k (P1 = 0)
        self.deal_pool = list(range(NUM_REGULAR))
        self.hands: list[set[int]] = [set() for _ in range(n)]
        self.revealed: list[set[int]] = [set() for _ in range(n)]   # publicly known cards in hand
        self.setaside: list[int] = []
        self.played: list[int] = []
        self.auction_order: list[int] = []
        self.power_of_car = [NO_POWER] * NUM_CARS
        self.owner = [-1] * NUM_CARS
        self.price = [0] * NUM_CARS
        self.held: list[list[int]] = [[] for _ in range(n)]
        self.auction_idx = 0
        self.pending = [-1] * n             # secret bids of the current auction
        self.eligible = [0] * n
        self.bid_history: list[list[int]] = []
        self.pos = [-1] * NUM_CARS          # space id, -1 = not on the track
        self.place = [0] * NUM_CARS         # finishing place 1..6, 0 = not finished
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
        self.line_track = [NO_CAR, -1, 0, 0, 0]   # car, start space, moved, betting lines crossed, narrow entered
        self.tasks: list[list] = []
        self.triggered = [0, 0, 0]
        self.bet_queue: list[int] = []
        self.bet_round = -1
        self.bet_k: list[list[int]] = []            # per held round: [k]
        self.bet_rounds_pos: list[list[int]] = []   # per held round: position 1..6 of each car (DF-R27)
        self.bet_rounds_open: list[list[int]] = []  # per held round: 1 if the car could be bet on
        self.bets: list[list[int]] = []             # per held round: car per seat (-1 not yet)
        self.dec_type = ""
        self.dec_seat = CHANCE
        self.dec_args: list[int] = []
        self.money = [0] * n
        self._ocache: dict = {}             # encoder cache (static observation region per seat)
        self._hb = [bytearray(NUM_CARDS) for _ in range(n)]   # hands as bytes (mirrors self.hands)
        self._rb = [bytearray(NUM_CARDS) for _ in range(n)]   # publicly known cards (mirrors revealed)
        self._pbits = bytearray(NUM_CARDS)  # played cards as bits (incremental, for the encoder)
        self._plen = 0

    def _rebuild_bits(self) -> None:
        """Rebuild the byte mirrors of hands and publicly known cards (after direct edits)."""
        self._hb = [bytearray(NUM_CARDS) for _ in range(self.num_players)]
        self._rb = [bytearray(NUM_CARDS) for _ in range(self.num_players)]
        for s in range(self.num_players):
            for c in self.hands[s]:
                self._hb[s][c] = 1
            for c in self.revealed[s]:
                self._rb[s][c] = 1
        self._ocache = {}

    def played_bits(self) -> bytearray:
        """The played pile as 48 bytes (0/1), updated incrementally."""
        p = self.played
        if len(p) != self._plen:
            if len(p) < self._plen:
                self._pbits = bytearray(NUM_CARDS)
                self._plen = 0
            bits = self._pbits
            for c in p[self._plen:]:
                bits[c] = 1
            self._plen = len(p)
        return self._pbits

    # ================================================================== basics
    def current_player(self) -> int:
        return self.dec_seat

    def phase(self) -> str:
        if self.stage == "race":
            return f"race:{self.dec_type}"
        return self.stage

    def deciders(self) -> list[int]:
        if self.stage == "auction":
            return [s for s in range(self.num_players) if self.eligible[s] and self.pending[s] < 0]
        if self.stage == "bet":
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
        if st == "grid":
            return [c for c in range(NUM_CARS) if c not in self.grid_cars]
        if st == "deal":
            return self.deal_pool
        if st == "order":
            return [c for c in range(NUM_CARS) if c not in self.auction_order]
        if st == "powers":
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
        if isinstance(outcome, (bool, np.bool_)) or not isinstance(outcome, (int, np.integer)):
            return False
        return self.dec_seat == CHANCE and int(outcome) in self._chance_pool()

    def _apply_chance(self, o: int) -> None:
        g = self.game
        st = self.stage
        k = self.chance_k
        if st == "grid":                        # setup 1: grid permutation
            self.grid_cars[k] = o
            sid = g.grid[k]
            self.pos[o] = sid
            self.occ[sid] = o
            self.stamp[o] = k + 1               # DF-R27: grid stamps 1..6, P1 = 1
            k += 1
            if k == NUM_CARS:
                self.stage, k = "deal", 0
        elif st == "deal":                      # setup 2: deal slot k
            self.deal_pool.remove(o)
            n = self.num_players
            if k < n * g.hand_size(n):
                self.hands[k % n].add(o)
                self._hb[k % n][o] = 1
            else:
                self.setaside.append(o)
            k += 1
            if k == NUM_REGULAR:
                self.stage, k = "order", 0
        elif st == "order":                     # setup 3: auction order
            self.auction_order.append(o)
            k += 1
            if k == NUM_CARS:
                k = 0
                if g.powers_on:
                    self.stage = "powers"
                else:
                    self._start_auction()
        elif st == "powers":                    # setup 3: power paired with the k-th auctioned car
            self.power_of_car[self.auction_order[k]] = o
            k += 1
            if k == NUM_CARS:
                k = 0
                self._start_auction()
        self.chance_k = k

    # ================================================================== auction
    def _start_auction(self) -> None:
        n = self.num_players
        self.stage = "auction"
        remaining = NUM_CARS - self.auction_idx
        carless = [s for s in range(n) if s not in self.owner]
        if remaining == len(carless):           # DF-R6
            self.eligible = [1 if s in carless else 0 for s in range(n)]
        else:
            self.eligible = [1] * n
        self.pending = [-1] * n
        self._set_dec("bid", self.eligible.index(1), [])

    def _bid(self, seat: int, card: int) -> None:
        self.pending[seat] = card
        for s in range(seat + 1, self.num_players):
            if self.eligible[s]:
                self._set_dec("bid", s, [])
                return
        self._resolve_auction()

    def _resolve_auction(self) -> None:
        g = self.game
        car = self.auction_order[self.auction_idx]
        best = None
        winner = -1
        value = 0
        for s in range(self.num_players):       # DF-R5, DF-R7
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
        for s in range(self.num_players):       # DF-R9: bids return to hand, now publicly known
            if self.eligible[s]:
                self.revealed[s].add(self.pending[s])
                self._rb[s][self.pending[s]] = 1
        self.pending = [-1] * self.num_players
        self.owner[car] = winner                # DF-R8
        self.price[car] = value
        speed8 = NUM_REGULAR + car
        self.hands[winner].add(speed8)
        self.revealed[winner].add(speed8)
        self._hb[winner][speed8] = 1
        self._rb[winner][speed8] = 1
        self.auction_idx += 1
        if g.powers_on:                         # DF-V1
            self.held[winner].append(self.power_of_car[car])
            if len(self.held[winner]) == 2:
                self.stage = "power"
                self._set_dec("power", winner, [])
                return
        self._after_auction()

    def _after_auction(self) -> None:
        if self.auction_idx < NUM_CARS:
            self._start_auction()
        else:
            self.stage = "race"                 # DF-R11: owner of P1 starts
            self._start_turn(self.owner[self.grid_cars[0]])

    def _choose_power(self, seat: int, car: int) -> None:
        keep = self.power_of_car[car]
        self.held[seat] = [keep]
        self.stage = "auction"
        self._after_auction()

    # ================================================================== race
    def _set_dec(self, kind: str, seat: int, args: list[int]) -> None:
        self.dec_type = kind
        self.dec_seat = seat
        self.dec_args = args

    def _start_turn(self, seat: int) -> None:
        self.turn_player = seat
        self.cur_card = -1
        self._set_dec("play", seat, [])

    def _play(self, card: int) -> None:
        s = self.turn_player
        self.hands[s].discard(card)             # DF-R12
        self.revealed[s].discard(card)
        self._hb[s][card] = 0
        self._rb[s][card] = 0
        self.played.append(card)
        self.cur_card = card
        self.line_order = list(range(len(self.game.deck[card])))   # DF-R13: top to bottom
        self.ignored = NO_CAR
        self.turn_moved = [0] * NUM_CARS
        self.turn_nonrect = [0] * NUM_CARS
        self.bet_queue = []
        if self.game.fast_resolve:
            self._play_fast(card)
            return
        self.tasks = [["end_turn"], ["turn_end", 0], ["line", 0], ["pre"]]
        self._run()

    def _play_fast(self, card: int, start: int = 0, named: int = NO_CAR) -> None:
        """The card resolution without powers and with automatic steering: the same rules as the
        task machine below (a test compares both), in one loop. A wild line with several
        candidates hands over to the task machine for the rest of the card."""
        g = self.game
        place = self.place
        pos = self.pos
        occ = self.occ
        steps = g.steps
        last = g.last_row
        rect = g.rect
        moved = self.turn_moved
        lines = g.deck[card]
        for i in range(start, len(lines)):
            car, speed = lines[i]
            if car < 0:                                               # DF-R15
                if named >= 0 and i == start:
                    car = named                                       # named by the WILD decision
                else:
                    cands = self._wild_candidates()
                    if not cands:
                        continue
                    if len(cands) > 1:
                        self.tasks = []
                        self._set_dec("wild", self.turn_player, [i] + cands)
                        return
                    car = cands[0]
            if place[car]:                                            # DF-R14
                continue
            while speed > 0:                                          # DF-R16 .. DF-R21
                sid = pos[car]
                if sid // 3 == last:
                    self._finish(car, 1)
                    break
                for _, nsid in steps[sid]:                            # DF-R20 preference order
                    if occ[nsid] < 0:
                        break
                else:
                    break                                             # DF-R18: blocked
                occ[sid] = NO_CAR
                occ[nsid] = car
                pos[car] = nsid
                self.stamp[car] = self.stamp_counter
                self.stamp_counter += 1
                moved[car] += 1
                if not rect[nsid]:
                    self.turn_nonrect[car] = 1
                if g.bet_after[sid // 3] >= 0:
                    self._cross(sid // 3, 1)
                speed -= 1
        self._t_end_turn()

    def _run(self) -> None:
        """Process tasks until a decision is needed (or the turn is over)."""
        tasks = self.tasks
        while tasks and not self.dec_type:
            t = tasks.pop()
            getattr(self, "_t_" + t[0])(*t[1:])

    # ---- tasks
    def _t_pre(self) -> None:
        g = self.game
        p = self.power(self.turn_player)
        lines = g.deck[self.cur_card]
        if p == TRICKY and len(lines) >= 2:                         # DF-V1.5
            self._set_dec("yesno", self.turn_player, [YESNO_KINDS.index("tricky")])
        elif p == STRATEGIC and len(g.card_cars[self.cur_card]) == NUM_CARS:   # DF-V1.4
            self._set_dec("yesno", self.turn_player, [YESNO_KINDS.index("strategic")])

    def _t_line(self, i: int) -> None:
        g = self.game
        if i >= len(self.line_order):
            return
        self.tasks.append(["line", i + 1])
        li = self.line_order[i]
        car, _ = g.deck[self.cur_card][li]
        if car < 0:                                                  # DF-R15 wild line
            cands = self._wild_candidates()
            if not cands:
                return
            if len(cands) > 1:
                self._set_dec("wild", self.turn_player, [li] + cands)
                return
            car = cands[0]
        self._line_move(li, car)

    def _wild_candidates(self) -> list[int]:
        g = self.game
        printed = () if self.power(self.turn_player) == UNPREDICTABLE else g.card_cars[self.cur_card]  # DF-V1.6
        return [c for c in range(NUM_CARS) if not self.place[c] and c not in printed]

    def _line_move(self, li: int, car: int) -> None:
        if self.place[car] or car == self.ignored:                   # DF-R14, DF-V1.4
            return
        cur = self.turn_player
        if li == 0 and self.owner[car] == cur and self.power(cur) == AGGRESSIVE:   # DF-V1.1
            self._set_dec("yesno", cur, [YESNO_KINDS.index("aggressive"), li, car])
            return
        self._line_go(li, car, 0)

    def _line_go(self, li: int, car: int, bonus: int) -> None:
        cur = self.turn_player
        speed = self.game.deck[self.cur_card][li][1] + bonus
        if self.owner[car] == cur and self.power(cur) == BOLD and speed in (1, 2):   # DF-V2.4
            speed = BOLD_SPEED
        start = self.pos[car]
        self.line_track = [car, start, 0, 0, 0]
        self.tasks.append(["after_line", car, start])
        self.tasks.append(["move", car, speed, 1])

    def _steerer(self, car: int) -> int:
        """Who chooses among several legal steps (DF-R20): -1 = automatic."""
        o = self.owner[car]
        if o >= 0 and self.power(o) == CUNNING:
            return o
        return self.turn_player if self.game.manual else -1

    def _t_move(self, car: int, left: int, is_line: int) -> None:
        g = self.game
        occ = self.occ
        while left > 0:
            sid = self.pos[car]
            if sid < 0:
                return
            if sid // 3 == g.last_row:                                # DF-R21
                self._finish(car, is_line)
                return
            opts = [st for st in g.steps[sid] if occ[st[1]] < 0]     # DF-R16, DF-R17
            if not opts:                                              # DF-R18
                return
            if len(opts) > 1:
                who = self._steerer(car)
                if who >= 0:
                    self._set_dec("steer", who, [car, left, is_line] + [k for k, _ in opts])
                    return
            self._step(car, opts[0][1], is_line)
            left -= 1

    def _step(self, car: int, nsid: int, is_line: int) -> None:
        g = self.game
        old = self.pos[car]
        self.occ[old] = NO_CAR
        self.occ[nsid] = car
        self.pos[car] = nsid
        self.stamp[car] = self.stamp_counter                           # DF-R27
        self.stamp_counter += 1
        self.turn_moved[car] += 1
        if not g.rect[nsid]:
            self.turn_nonrect[car] = 1
        lt = self.line_track
        if is_line:
            lt[2] += 1
            if g.narrow[nsid]:
                lt[4] = 1
        self._cross(old // 3, is_line)

    def _cross(self, row: int, is_line: int) -> None:
        k = self.game.bet_after[row]
        if k >= 0:                                                    # DF-R23
            if is_line:
                self.line_track[3] += 1
            if not self.triggered[k]:
                self.triggered[k] = 1
                self.bet_queue.append(k)

    def _finish(self, car: int, is_line: int) -> None:
        old = self.pos[car]
        self.occ[old] = NO_CAR
        self.pos[car] = -1
        self.finish_order.append(car)                                 # DF-R21, DF-R22
        self.place[car] = len(self.finish_order)
        self.turn_moved[car] += 1
        if is_line:
            self.line_track[2] += 1
        self._cross(old // 3, is_line)

    def _t_after_line(self, car: int, start: int) -> None:
        """DF-V7 (3): the moved car's owner's Ambitious/Tough/Reckless, then Experienced."""
        moved = self.line_track[2]
        self.tasks.append(["experienced", car, start, moved])
        o = self.owner[car]
        if o < 0 or self.place[car] or not self.game.powers_on:
            return
        p = self.power(o)
        lt = self.line_track
        if p == AMBITIOUS and lt[3] > 0:                               # DF-V2.1
            self._set_dec("yesno", o, [YESNO_KINDS.index("ambitious"), car])
        elif p == TOUGH and moved > 0 and self.game.rumble[self.pos[car]]:   # DF-V2.3
            self._set_dec("yesno", o, [YESNO_KINDS.index("tough"), car])
        elif p == RECKLESS and o == self.turn_player and lt[4]:         # DF-V2.6
            self._set_dec("yesno", o, [YESNO_KINDS.index("reckless"), car])

    def _t_experienced(self, car: int, start: int, moved: int) -> None:
        """DF-V2.2: the car directly behind the vacated start space may step into it."""
        if not moved or not self.game.powers_on:
            return
        row, lane = divmod(start, 3)
        if row == 0 or self.occ[start] >= 0:
            return
        behind = start - 3
        x = self.occ[behind]
        if x < 0 or x == car:
            return
        o = self.owner[x]
        if o >= 0 and self.power(o) == EXPERIENCED:
            self._set_dec("yesno", o, [YESNO_KINDS.index("experienced"), x, start])

    def _t_turn_end(self, j: int) -> None:
        """DF-V7 (4): turn-end powers in seat order starting with the current player."""
        n = self.num_players
        if j >= n or not self.game.powers_on:
            return
        self.tasks.append(["turn_end", j + 1])
        s = (self.turn_player + j) % n
        p = self.power(s)
        if p == DETERMINED:
            self.tasks.append(["determined", s, 0])
        elif p == DEFENSIVE and j == 0:                                # DF-V2.5
            mine = [c for c in range(NUM_CARS) if self.owner[c] == s]
            if any(self.turn_moved[c] for c in mine):
                return
            cands = [c for c in mine if not self.place[c]]
            if len(cands) == 1:
                self.tasks.append(["move", cands[0], DEFENSIVE_MOVE, 0])
            elif cands:
                self._set_dec("color", s, [COLOR_KINDS.index("defensive")] + cands)

    def _t_determined(self, s: int, c0: int) -> None:
        """DF-V1.3: each eligible car of the holder, in car index order."""
        for c in range(c0, NUM_CARS):
            if (self.owner[c] == s and not self.place[c] and self.turn_moved[c] > 0
                    and not self.turn_nonrect[c]):
                self.tasks.append(["determined", s, c + 1])
                self._set_dec("yesno", s, [YESNO_KINDS.index("determined"), c])
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
            if not any(open_):                                        # DF-R25: skipped
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
            self.stage = "bet"
            self._set_dec("bet", 0, [])
            return
        self.stage = "race"
        self._end_check()

    def _bet(self, seat: int, car: int) -> None:
        b = self.bets[self.bet_round]
        b[seat] = car
        if seat + 1 < self.num_players:
            self._set_dec("bet", seat + 1, [])
        else:
            self._next_bet_round()

    # ================================================================== end
    def _end_check(self) -> None:
        n = self.num_players
        if len(self.finish_order) == NUM_CARS or not any(self.hands):   # DF-R28
            self._score()
            return
        s = self.turn_player
        for j in range(1, n + 1):                                      # DF-R12: skip empty hands
            t = (s + j) % n
            if self.hands[t]:
                self._start_turn(t)
                return

    def final_places(self) -> list[int]:
        order = self.race_order()                                      # DF-R29
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
        if mode == "standard":                                         # DF-R31
            return comp["bets"][k][pl - 1]
        if mode == "odds":                                             # DF-V3
            return self.bet_rounds_pos[r][car] * comp["odds"][k][pl - 1]
        return self.bet_rounds_pos[r][car] * comp["odds"][k][0] if pl == 1 else 0   # DF-V4

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
                prizes[o] += self.game.comp["prizes"][place[c] - 1]    # DF-R30
                paid[o] += self.price[c]
        for r, b in enumerate(self.bets):
            for s in range(n):
                if b[s] >= 0:
                    betpay[s] += self.bet_payout(r, b[s], place)
        return prizes, betpay, paid

    def _score(self) -> None:
        prizes, betpay, paid = self.money_parts()
        self.money = [prizes[s] + betpay[s] - paid[s] for s in range(self.num_players)]   # DF-R32
        self.stage = "end"
        self._set_dec("", TERMINAL, [])

    def scores(self) -> list[float]:
        if self.stage != "end":
            prizes, betpay, paid = self.money_parts()
            return [float(prizes[s] + betpay[s] - paid[s]) for s in range(self.num_players)]
        return [float(m) for m in self.money]

    def winners(self) -> list[int]:
        s = self.scores()
        best = max(s)
        tied = [i for i, v in enumerate(s) if v == best]
        if len(tied) == 1:
            return tied
        place = self.final_places()                                    # DF-R33
        return [min(tied, key=lambda t: min(place[c] for c in range(NUM_CARS) if self.owner[c] == t))]

    # ================================================================== actions
    def _legal_mask(self) -> np.ndarray:
        t = self.dec_type
        s = self.dec_seat
        if t == "bid" or t == "play":               # the hand's byte mirror is the mask
            m = bytearray(self._hb[s])
            m += _MASK_TAIL
            return np.frombuffer(m, dtype=np.int8)
        m = bytearray(NUM_ACTIONS)
        if t == "bet":
            for c in range(NUM_CARS):
                if not self.place[c]:
                    m[A_BET + c] = 1
        elif t == "power":
            for p in self.held[s]:
                m[A_POWER + self.power_of_car.index(p)] = 1
        elif t == "steer":
            for k in self.dec_args[3:]:
                m[A_STEER + k] = 1
        elif t == "yesno":
            m[A_NO] = 1
            m[A_YES] = 1
        elif t == "wild" or t == "color":
            for c in self.dec_args[1:]:
                m[A_COLOR + c] = 1
        return np.frombuffer(m, dtype=np.int8)

    def apply_action(self, action: Any) -> None:
        """State.apply_action with a fast path for a legal int action (same semantics)."""
        if action.__class__ is int and self.dec_seat >= 0 and 0 <= action < NUM_ACTIONS:
            m = self._mask
            if m is None:
                m = self.legal_mask()
            if m[action]:
                self._apply(action)
                self._mask = None
                return
        super().apply_action(action)

    def is_legal(self, action: Any) -> bool:
        """Fast path of State.is_legal for decisions (same semantics)."""
        if self.dec_seat == CHANCE and action.__class__ is int:
            return action in self._chance_pool()
        if self.dec_seat < 0 or action.__class__ is not int:
            return super().is_legal(action)
        if not 0 <= action < NUM_ACTIONS:
            return False
        m = self._mask
        if m is None:
            m = self.legal_mask()
        return m[action] == 1

    def _apply(self, a: int) -> None:
        if self.dec_seat == CHANCE:
            self._apply_chance(a)
            return
        t = self.dec_type
        s = self.dec_seat
        self.dec_type = ""
        if t == "play":
            self._play(a)
        elif t == "bid":
            self._bid(s, a)
        elif t == "bet":
            self._bet(s, a - A_BET)
        elif t == "power":
            self._choose_power(s, a - A_POWER)
        elif t == "steer":
            car, left, is_line = self.dec_args[:3]
            sid = self.pos[car]
            row, lane = divmod(sid, 3)
            self._step(car, (row + 1) * 3 + lane + (a - A_STEER) - 1, is_line)
            if left > 1:
                self.tasks.append(["move", car, left - 1, is_line])
            self._run()
        elif t == "wild":
            li = self.dec_args[0]
            if self.game.fast_resolve:
                self._play_fast(self.cur_card, li, a - A_COLOR)
                return
            self._line_move(li, a - A_COLOR)
            self._run()
        elif t == "color":
            kind = COLOR_KINDS[self.dec_args[0]]
            c = a - A_COLOR
            if kind == "strategic":
                self.ignored = c
            else:
                self.tasks.append(["move", c, DEFENSIVE_MOVE, 0])
            self._run()
        elif t == "yesno":
            self._answer(a == A_YES)

    def _answer(self, yes: bool) -> None:
        args = self.dec_args
        kind = YESNO_KINDS[args[0]]
        if kind == "tricky":
            if yes:
                self.line_order.reverse()
        elif kind == "strategic":
            if yes:
                cars = sorted(self.game.card_cars[self.cur_card])
                self._set_dec("color", self.turn_player, [COLOR_KINDS.index("strategic")] + cars)
                return
        elif kind == "aggressive":
            self._line_go(args[1], args[2], 1 if yes else 0)
        elif kind in ("ambitious", "tough", "reckless", "determined"):
            if yes:
                self.tasks.append(["move", args[1], EXTRA_MOVE, 0])
        elif kind == "experienced":
            if yes:
                self._step(args[1], args[2], 0)
        self._run()

    def action_to_string(self, a: int) -> str:
        cars = self.game.comp["cars"]
        if 0 <= a < NUM_CARDS:
            lines = self.game.deck[a]
            txt = " ".join(f"{cars[c] if c >= 0 else 'Wild'}{s}" for c, s in lines)
            return f"{'BID' if self.stage == 'auction' else 'PLAY'} #{a} [{txt}]"
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

    # ================================================================== observation
    def observation(self, seat: int) -> np.ndarray:
        if self.game.action_feature_offset is None:
            return encode(self, seat)
        return np.concatenate([encode(self, seat), action_features(self, seat)])

    # ================================================================== hidden info
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> "DownforceState":
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
            st.hands[o] = set(st.revealed[o]) | set(pool[i:i + k])
            i += k
        ns = len(st.setaside)
        st.setaside = pool[i:i + ns]
        i += ns
        st.deal_pool = sorted(pool[i:])
        st._rebuild_bits()
        if st.stage == "auction":
            for o in others:
                if st.pending[o] >= 0:
                    h = sorted(st.hands[o])
                    st.pending[o] = h[int(rng.integers(len(h)))]
        if st.stage != "end":
            for r, b in enumerate(st.bets):
                cands = [c for c in range(NUM_CARS) if st.bet_rounds_open[r][c]]
                for o in others:
                    if b[o] >= 0:
                        b[o] = cands[int(rng.integers(len(cands)))]
        st._mask = None
        st._ocache = {}
        return st

    # ================================================================== invariants
    def check_invariants(self) -> None:
        n = self.num_players
        where: dict[int, str] = {}

        def put(c: int, w: str) -> None:
            assert c not in where, f"card {c} is both in {where[c]} and {w}"
            where[c] = w

        for s in range(n):
            for c in self.hands[s]:
                put(c, f"hand {s}")
            assert self.revealed[s] <= self.hands[s], f"seat {s} revealed cards not in hand"
        for c in self.setaside:
            put(c, "set aside")
        for c in self.played:
            put(c, "played")
        for c in self.deal_pool:
            put(c, "undealt")
        for car in range(NUM_CARS):
            if self.owner[car] < 0:
                put(NUM_REGULAR + car, "unsold speed-8")
        assert sorted(where) == list(range(NUM_CARDS)), "cards not conserved"
        for s in range(n):
            assert {c for c in range(NUM_CARDS) if self._hb[s][c]} == self.hands[s], "hand mirror"
            assert {c for c in range(NUM_CARDS) if self._rb[s][c]} == self.revealed[s], "known-cards mirror"
        if self.stage not in ("grid", "deal"):
            assert len(self.setaside) == NUM_REGULAR - n * self.game.hand_size(n)
        for s in range(n):
            if self.pending[s] >= 0:
                assert self.pending[s] in self.hands[s], "a pending bid is not in its bidder's hand"
            assert len(self.held[s]) <= (2 if self.stage == "power" else 1)
        owned = [c for c in range(NUM_CARS) if self.owner[c] >= 0]
        assert len(owned) == self.auction_idx, "every auctioned car has exactly one owner"
        if self.auction_idx == NUM_CARS:
            assert all(s in self.owner for s in range(n)), "DF-R10: a player owns no car"
        on = 0
        for car in range(NUM_CARS):
            p = self.pos[car]
            if p >= 0:
                on += 1
                assert self.occ[p] == car and self.game.exists[p]
                assert not self.place[car]
            elif self.stage not in ("grid",):
                assert self.place[car] > 0
        assert sum(1 for x in self.occ if x >= 0) == on
        assert sorted(self.place[c] for c in self.finish_order) == list(range(1, len(self.finish_order) + 1))
        if self.stage == "end":
            prizes, betpay, paid = self.money_parts()
            for s in range(n):
                assert self.money[s] == prizes[s] + betpay[s] - paid[s], "money identity"
            assert sum(prizes) == sum(self.game.comp["prizes"])

    # ================================================================== copy / JSON
    def clone(self) -> "DownforceState":
        st = DownforceState.__new__(DownforceState)
        d = st.__dict__
        src = self.__dict__
        d["game"] = self.game
        d["num_players"] = self.num_players
        d["_mask"] = self._mask
        oc = dict(self._ocache)
        d["_ocache"] = oc
        d["_pbits"] = bytearray(self._pbits)
        d["_hb"] = [bytearray(x) for x in self._hb]
        d["_rb"] = [bytearray(x) for x in self._rb]
        d["_plen"] = self._plen
        for k in _SCALARS:
            d[k] = src[k]
        for k in _LISTS:
            d[k] = list(src[k])
        for k in _NESTED:
            d[k] = [list(x) for x in src[k]]
        for k in _SETS:
            d[k] = [set(x) for x in src[k]]
        return st

    def _to_dict(self) -> dict:
        d: dict[str, Any] = {"env_id": self.game.env_id, "version": self.game.version,
                             "options": dict(self.game.options), "num_players": self.num_players}
        src = self.__dict__
        for k in _SCALARS:
            d[k] = src[k]
        for k in _LISTS:
            d[k] = list(src[k])
        for k in _NESTED:
            d[k] = [list(x) for x in src[k]]
        for k in _SETS:
            d[k] = [sorted(x) for x in src[k]]
        return d

    def _load(self, d: dict) -> None:
        for k in _SCALARS:
            setattr(self, k, d[k])
        for k in _LISTS:
            setattr(self, k, list(d[k]))
        for k in _NESTED:
            setattr(self, k, [list(x) for x in d[k]])
        for k in _SETS:
            setattr(self, k, [set(x) for x in d[k]])
        self._mask = None
        self._ocache = {}
        self._pbits = bytearray(NUM_CARDS)
        self._plen = 0
        self._rebuild_bits()

    def __str__(self) -> str:
        from .render import render_text
        return render_text(self)
