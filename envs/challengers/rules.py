"""Challengers! (``challengers_v0``): a tournament deck-builder with automatic matches, 1-8 players
(a bot fills odd counts), exactly per ``shared/rules/challengers.md`` (rule IDs CH-R*, CH-V*).

Each of 7 rounds: every player in turn improves their deck (choose a draft option, draw 5 cards into
a private display, pick up to k, redraw once, stop, remove cards); then every pairing of the round
plays an automatic capture-the-flag match, resolved by the rules (no decisions) card by card. Match
winners draw a trophy. With 3-8 players the two players with the most fans play a final.

Actions (Discrete(9 + types + 1); 42 with the standard pool, the same for every player count):

======== =========================================================
0-1      CHOOSE draft option 1/2 (CH-R2)
2-6      PICK display slot 0-4 (CH-R4)
7        REDRAW (CH-R5)
8        STOP picking (CH-R4)
9..9+T-1 REMOVE one copy of card type t (CH-R8, CH-R31)
9+T      DONE removing
======== =========================================================

Chance (explicit nodes, every outcome an int with an exact probability):
- set removal at setup (outcome = themed set index, uniform over the sets still in play);
- every card drawn from a pile (display, redraw, RECRUIT, the bot's extra cards): outcome = card
  type, probability = its copies / the pile's size; a pile that is empty at a draw first takes its
  discard (CH-R3). Drawing a uniformly random remaining card at each draw is the same distribution
  as drawing the top card of a shuffled pile, and keeps ``chance_outcomes`` exact;
- every card revealed in a match (CH-R10, deck shuffled at the match start): outcome = card type,
  probability = its unrevealed copies / the unrevealed cards of that deck;
- a random match starter (CH-R11, outcome 0/1 = first/second of the pairing); each trophy award
  (CH-R24, outcome = trophy slot of the round, uniform over those left); a random final tie-break
  (CH-R30, outcome = a tied seat).

Participants: human seats 0..N-1 and, when N is odd, the bot as participant N (spec 2.3/2.4); the
bot never decides (it is not an agent).

Version history:
    v0: first release.
    0.1.0 dev: faster observation: per seat the encoder keeps its last observation and rewrites only
        the per-step entries whose inputs changed; the rebuild at public events writes blocks straight
        into float32 (behaviour and observations unchanged; golden identical). Pile and discard sizes
        per level are kept by the rules as cards move (``pile_size``, ``discard_size``; recounted on
        load and resample, checked by the invariants); the encoder rewrites the public blocks in place
        at public events and diffs the per-step entries against what it last wrote (single entries
        through a memoryview), a seat's public decks and seat rows where they changed, trophy stats
        once per public event for all seats; chance draws by bisection on running totals; AURA
        totals in one pass over the bench. Phases held as plain ints (``phase_id``; saved states
        unchanged); the rules count public events (``events``), the encoder's key for its public blocks.
    0.1.0 dev: faster steps (behaviour and observations unchanged; golden identical): the rules keep per
        deck a revision and the type of its latest change (``deck_rev``, ``deck_last``), so the encoder
        rewrites one own-deck entry after one change instead of diffing the deck; per-participant trophy
        totals kept as trophies are awarded (``won*``, ``_count_trophies`` the reference, recounted on
        load and resample); the REMOVE phase's mask built once per phase and kept as cards go; the
        encoder rewrites the round's blocks, the bot's block and the sets only when they changed.
        Per level the pile's cards as one list in type order (``pile_cards``): a card draw is its k-th
        entry (the same outcome as the bisection); per match side the bench's AURA totals kept as cards
        join and leave it (``aura``; ``_auras`` the reference); a reveal inlines its side and log
        entry; the display's draws skip _continue_fill while the pile holds cards; the PICK mask built
        as bytes.
        Per participant the deck's cards as a sorted list (``deck_cards``), copied at a match start as the
        unrevealed cards (``unrevealed``): a reveal is the k-th entry (the same outcome as the bisection);
        a match start no longer re-creates the (already empty) benches; the encoder copies my public
        deck from my deck's block when they are equal, writes the draft options from a table per round
        and only the seat-row entries that changed.
        The REMOVE mask's first build from the deck's card list into bytes; a round's pairings looked
        up in a per-game table (``round_pairs``) instead of the cached function; trophy draws sampled
        without building the probabilities; _check_reveal inlines its side.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Callable
from enum import IntEnum
from functools import cache
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, ClassVar

import numpy as np

from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State
from ..core.schema import Bool, Dict, Int, List, Spec, Tuple
from . import data

A_CHOOSE = 0
A_PICK = 2
A_REDRAW = 7
A_STOP = 8
A_REMOVE = 9
DISPLAY = 5
MAX_PLAYERS = 8
ROUNDS = 7
FINAL_ROUND = 8
MAX_LOG = 600
NO_TROPHY = -1  # face down, not yet won
REMOVED = -2  # won by the bot in a 3-7 player game: out of the game (CH-R26)

# effect codes (data.OPS) and keywords, as small ints for the match engine
OP_NONE, OP_CLEAR, OP_FANS, OP_WEAKEN, OP_BOOST, OP_SWARM, OP_POWER, OP_AURA, OP_GUARD, OP_ESCAPE, OP_RECRUIT = range(
    11
)
OP_CODE = {
    "": OP_NONE,
    "CLEAR": OP_CLEAR,
    "FANS": OP_FANS,
    "WEAKEN": OP_WEAKEN,
    "BOOST": OP_BOOST,
    "SWARM": OP_SWARM,
    "POWER": OP_POWER,
    "AURA": OP_AURA,
    "GUARD": OP_GUARD,
    "ESCAPE": OP_ESCAPE,
    "RECRUIT": OP_RECRUIT,
}
KW_REVEAL, KW_ATTACK, KW_BENCH, KW_FLAG, KW_LOSS, KW_SELECTED = range(6)
KW_CODE = dict(zip(data.KEYWORDS, range(6)))
LV_S, LV_A, LV_B, LV_C, LV_BOT = range(5)


class Phase(IntEnum):
    """Where the game stands (saved as its int)."""

    SETUP_SETS = 0  # chance: remove a surplus themed set (setup 1)
    BOT_SETUP = 1  # chance: the bot's extra B/C card (2.4)
    CHOOSE = 2  # the deck-phase seat chooses a draft option (CH-R2)
    DRAW = 3  # chance: a card into the display (CH-R3, CH-R5)
    PICK = 4  # pick / redraw / stop (CH-R4, CH-R5)
    RECRUIT = 5  # chance: RECRUIT draws the top A card (2.2)
    REMOVE = 6  # remove cards / done (CH-R8)
    STARTER = 7  # chance: random match starter (CH-R11)
    REVEAL = 8  # chance: the next revealed card of a match (CH-R12, CH-R13)
    TROPHY = 9  # chance: the match winner's trophy (CH-R24)
    FINAL_TIE = 10  # chance: a random tie-break for the final (CH-R30)
    FINAL_REMOVE = 11  # a finalist removes cards (CH-R31)
    END = 12


# the phases as module globals, plain ints: ``phase_id`` holds a plain int (Phase(phase_id) names it),
# since CPython compares exact ints on a fast path and IntEnum members on the slow one; saved states
# are unchanged (the int). Sets of phases must hold these ints (an IntEnum's hash differs).
(
    P_SETUP_SETS,
    P_BOT_SETUP,
    P_CHOOSE,
    P_DRAW,
    P_PICK,
    P_RECRUIT,
    P_REMOVE,
    P_STARTER,
    P_REVEAL,
    P_TROPHY,
    P_FINAL_TIE,
    P_FINAL_REMOVE,
    P_END,
) = tuple(int(p) for p in Phase)
DECISIONS = frozenset((P_CHOOSE, P_PICK, P_REMOVE, P_FINAL_REMOVE))
# event codes of the match log (render only)
EV_REVEAL, EV_CAPTURE, EV_LOSE_DECK, EV_LOSE_BENCH, EV_START = range(5)


def _getter(ts: tuple[int, ...]) -> Callable[[list[int]], tuple[int, ...]]:
    """``xs -> tuple(xs[t] for t in ts)``, quickly (itemgetter gives a bare item for one index)."""
    if len(ts) == 1:
        one = ts[0]

        def single(xs: list[int]) -> tuple[int, ...]:
            return (xs[one],)

        return single
    return itemgetter(*ts)


@cache
def pairings(num_seats: int, rnd: int, method: str) -> list[tuple[int, int]]:
    """The matches of round ``rnd`` (1-7) for P participants, in resolution order (spec 2.3, CH-V4);
    cached (callers never modify the list)."""
    p = num_seats
    if method == "fixed":
        return [(i, i + 1) for i in range(0, p, 2)]
    last = p - 1
    m = (rnd - 1) % last
    out = [(last, m)]
    for i in range(1, p // 2):
        out.append(((m + i) % last, (m - i) % last))
    return out


class ChallengersGame(Game):
    """Challengers! for 1-8 players."""

    env_id: ClassVar[str] = "challengers_v0"
    name: ClassVar[str] = "Challengers!"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 1
    max_players: ClassVar[int] = MAX_PLAYERS
    default_players: ClassVar[int] = 2
    options_spec: ClassVar[dict[str, Option]] = {
        "bot_level": Option(2, "CH-V1: the bot's level 1-5", choices=(1, 2, 3, 4, 5)),
        "solo_special": Option(False, "CH-V2: the bot deck gains a Solo Ace in rounds 3, 5 and 7"),
        "themed_sets_in_play": Option(3, "CH-V3: themed sets kept at setup (surplus removed at random)", type=int),
        "card_pool": Option("standard", "CH-V3: a bundled card pool or a path to a pool file", type=str),
        "draft_schedule": Option("standard", "CH-V4: a bundled draft schedule or a path to one", type=str),
        "pairing": Option("circle", "CH-V4: the tournament plan", choices=("circle", "fixed")),
        "action_features": Option(False, "append one 1-ply feature per action (for learned bots)"),
    }
    score_scale: ClassVar[float] = 1.0 / 20
    # the registry-wide suite runs every player count (1-8) per option set; together the sets cover every
    # option value class: bot levels 1 and 5 (odd counts), the solo special, two / one themed sets in play (of 3),
    # fixed pairing and action features (the standard pool and schedule are the only bundled ones)
    conformance_options: ClassVar[list[dict]] = [
        {},
        {"bot_level": 1, "themed_sets_in_play": 2, "pairing": "fixed"},
        {"bot_level": 5, "solo_special": True, "themed_sets_in_play": 1, "action_features": True},
    ]

    def check_options(self) -> None:
        if self.options["themed_sets_in_play"] < 1:
            raise ConfigError("option themed_sets_in_play must be at least 1")

    def setup(self) -> None:
        o = self.options
        pool = data.pool(o["card_pool"])
        comp = data.components()
        self.pool = pool
        self.schedule = data.schedule(o["draft_schedule"])
        self.comp = comp
        themed = [s for s in pool.sets if s != pool.base_set]
        if o["themed_sets_in_play"] > len(themed):
            raise ConfigError(
                f"option themed_sets_in_play={o['themed_sets_in_play']}: card_pool {pool.name!r} defines "
                f"{len(themed)} themed sets"
            )
        self.sets = pool.sets
        self.base_set = pool.sets.index(pool.base_set)
        self.num_sets = len(pool.sets)
        cards = pool.cards
        T = len(cards)
        self.num_types = T  # pool card types (REMOVE ids)
        self.bot_types = tuple(range(T, T + 4))  # Bot-1..Bot-4
        self.ace_type = T + 4  # Solo Ace (CH-V2)
        self.all_types = T + 5
        self.type_names = tuple(c.name for c in cards) + tuple(c["name"] for c in comp["bot"]["cards"])
        self.type_names += (comp["solo_ace"]["name"],)
        self.level = tuple(data.LEVELS.index(c.level) for c in cards) + (LV_BOT,) * 5
        self.set_of = tuple(pool.sets.index(c.set) for c in cards) + (-1,) * 5
        self.kw = tuple(KW_CODE[c.keyword] for c in cards) + (KW_REVEAL,) * 5
        self.op = tuple(OP_CODE[c.op] for c in cards) + (OP_NONE,) * 5
        self.x = tuple(c.x for c in cards) + (0,) * 5
        self.aura_set = tuple(pool.sets.index(c.arg) if c.op == "AURA" else -1 for c in cards) + (-1,) * 5
        self.boost_opp = tuple(c.arg == "opponent_bench" for c in cards) + (False,) * 5
        self.count = tuple(c.count for c in cards) + (0,) * 5
        self.starter = tuple(c.count if c.level == "S" else 0 for c in cards)
        self.level_types = {lv: tuple(t for t in range(T) if self.level[t] == lv) for lv in (LV_A, LV_B, LV_C)}
        self.level_get = {lv: _getter(ts) for lv, ts in self.level_types.items()}  # counts of a level, fast
        self.level_total = {lv: sum(self.count[t] for t in ts) for lv, ts in self.level_types.items()}
        # base power per round (1-7, 8 = final) and type: bot cards scale with the round (2.4, CH-V2)
        lvl = o["bot_level"]
        div = comp["bot"]["round_divisor"]
        ks = [c["k"] for c in comp["bot"]["cards"]]
        self.bot_count = tuple(c["count"] for c in comp["bot"]["cards"])
        off = comp["solo_ace"]["power_offset"]
        self.power: list[tuple[int, ...]] = [()]
        for r in range(1, FINAL_ROUND + 1):
            rr = min(r, ROUNDS)
            bot = tuple(k + (rr - 1) * (lvl + 1) // div for k in ks)
            self.power.append(tuple(c.power for c in cards) + bot + (rr + off,))
        self.bot_extra = tuple(data.PILE_LEVELS.index(e) + 1 for e in comp["bot"]["extra_cards"].get(str(lvl), []))
        self.ace_rounds = tuple(comp["solo_ace"]["rounds"]) if o["solo_special"] else ()
        self.trophies = tuple(tuple(t) for t in comp["trophies"])
        # per participant count (even) and round 1-7: pairings() of this option set, looked up by State.pairs
        self.round_pairs: dict[int, list[list[tuple[int, int]]]] = {
            P: [[]] + [pairings(P, r, o["pairing"]) for r in range(1, ROUNDS + 1)] for P in range(2, MAX_PLAYERS + 1, 2)
        }
        self.bench_seats = comp["bench_seats"]
        self.early_lead = comp["early_win_lead"]
        self.a_done = A_REMOVE + T
        self.num_actions = A_REMOVE + T + 1
        self.max_deck = sum(self.count[:T]) + 4 * 2 + len(self.ace_rounds) + 8
        self.starter_types = tuple(t for t in range(T) if self.level[t] == LV_S)
        pool_types = [t for t in range(T) if self.level[t] != LV_S]
        self.pool_items = lambda xs: [xs[t] for t in pool_types]
        self._totals: dict[tuple[bool, ...], list[int]] = {}

    def expected_totals(self, in_play: tuple[bool, ...]) -> list[int]:
        """Copies of each pool type in the game for a choice of sets (starters: what the decks hold
        is checked apart); cached per choice."""
        got = self._totals.get(in_play)
        if got is None:
            got = self._totals[in_play] = [
                c if self.level[t] != LV_S and in_play[self.set_of[t]] else 0
                for t, c in enumerate(self.count[: self.num_types])
            ]
        return got

    def new_initial_state(self, num_players: int) -> ChallengersState:
        self.check_players(num_players)
        st = ChallengersState(self, int(num_players))
        st._start()
        return st

    def draft_options(self, rnd: int) -> tuple[tuple[int, int], ...]:
        """((level 1-3, keep k), ...) of round ``rnd`` (spec 2.3)."""
        return self.schedule[rnd - 1]

    # ------------------------------------------------------------------ saved states
    def state_schema(self, n: int) -> Spec:
        P = n + (n % 2)
        T, TA = self.num_types, self.all_types
        cnt = Int(0, 64)
        inst = Tuple(Int(0, TA - 1), Int(0, 200))
        return Dict(
            {
                "phase": Int(0, len(Phase) - 1),
                "round": Int(1, FINAL_ROUND),
                "turn": Int(0, n),
                "seat": Int(0, n - 1),
                "option": Int(-1, 1),
                "picks": Int(0, 5),
                "redraw": Bool(),
                "display": List(Int(-1, T - 1), length=DISPLAY),
                "fill": List(Int(0, DISPLAY - 1), max_len=DISPLAY, unique=True, sorted_=True),
                "in_play": List(Bool(), length=self.num_sets),
                "pile": List(cnt, length=T),
                "discard": List(cnt, length=T),
                "decks": List(List(cnt, length=TA), length=P),
                "public": List(List(cnt, length=T), length=n),
                "tokens": List(Int(0, 999), length=P),
                "trophies": List(List(Int(REMOVED, P - 1), length=4), length=ROUNDS),
                "bot_drawn": Int(0, len(self.bot_extra)),
                "match": Int(0, 3),
                "starter": Int(-1, 1),
                "flag": Int(-1, 1),
                "weaken": Int(0, 999),
                "stack": List(inst, max_len=self.max_deck),
                "attack": List(inst, max_len=self.max_deck),
                "undrawn": List(List(cnt, length=TA), length=2),
                "bench": List(List(Tuple(Int(-1, TA - 1), Int(0, 64)), length=self.bench_seats), length=2),
                "resting": List(List(cnt, length=TA), length=2),
                "winner": Int(-1, P - 1),
                "finalists": List(Int(0, n - 1), max_len=2, unique=True),
                "log": List(Tuple(Int(0, 4), Int(0, 1), Int(-1, TA - 1)), max_len=MAX_LOG),
            }
        )

    def _state_from_dict(self, d: dict) -> ChallengersState:
        st = ChallengersState(self, d["num_players"])
        st.phase_id = int(Phase(d["phase"]))  # checked, stored as a plain int
        st.round, st.turn, st.seat, st.option = d["round"], d["turn"], d["seat"], d["option"]
        st.picks, st.redraw = d["picks"], d["redraw"]
        st.display = list(d["display"])
        st.fill = list(d["fill"])
        st.in_play = list(d["in_play"])
        st.pile, st.discard = list(d["pile"]), list(d["discard"])
        st._count_piles()
        st.decks = [list(x) for x in d["decks"]]
        st._list_decks()
        st.public = [list(x) for x in d["public"]]
        st.tokens = list(d["tokens"])
        st.trophies = [list(x) for x in d["trophies"]]
        st._count_trophies()
        st.bot_drawn, st.match, st.starter, st.flag = d["bot_drawn"], d["match"], d["starter"], d["flag"]
        st.weaken = d["weaken"]
        st.stack = [list(x) for x in d["stack"]]
        st.attack = [list(x) for x in d["attack"]]
        st.undrawn = [list(x) for x in d["undrawn"]]
        st.unrevealed = [st._cards(u) for u in st.undrawn]
        st.bench = [[list(s) for s in b] for b in d["bench"]]
        st.aura = [st._auras(0), st._auras(1)]
        st.resting = [list(x) for x in d["resting"]]
        st.winner = d["winner"]
        st.finalists = list(d["finalists"])
        st.log = [list(x) for x in d["log"]]
        return st


class ChallengersState(State):
    """One position of Challengers!."""

    game: ChallengersGame

    def __init__(self, game: ChallengersGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        self.bot = n if n % 2 else -1  # participant index of the bot (spec 2.3), -1 when none
        self.P = P = n + (n % 2)
        T, TA = game.num_types, game.all_types
        self.phase_id = P_SETUP_SETS
        self.round = 1
        self.turn = 0
        self.seat = 0
        self.option = -1
        self.picks = 0
        self.redraw = False
        self.display = [-1] * DISPLAY
        self.fill: list[int] = []
        self.in_play = [True] * game.num_sets
        self.pile = [c if game.level[t] != LV_S else 0 for t, c in enumerate(game.count[:T])]
        self.discard = [0] * T
        self.pile_size = [0] * 4  # cards per level (LV_A..LV_C) in the piles, kept as they change
        self.discard_size = [0] * 4  # and in the discards (_count_piles is the reference)
        # per level the pile's cards as one list in type order, a type per copy (kept as cards are
        # drawn): a uniform draw from the pile is its k-th entry (sample_chance)
        self.pile_cards: list[list[int]] = [[], [], [], []]
        self._count_piles()
        self.decks = [list(game.starter) + [0] * 5 for _ in range(P)]
        # per deck: changes so far and the type of the latest change (-1: several at once), so that a
        # reader (the encoder's own-deck block) can rewrite one entry after one change instead of
        # diffing the deck; not saved (a loaded or cloned state starts without reader caches)
        self.deck_rev = [0] * P
        self.deck_last = [-1] * P
        self.public = [list(game.starter) for _ in range(n)]
        self.tokens = [0] * P
        self.trophies = [[NO_TROPHY] * 4 for _ in range(ROUNDS)]
        # per participant, kept as trophies are awarded (_count_trophies is the reference): trophies
        # won, the latest round won (0: none), the sum of the rounds won, the fans on them; and the
        # trophies out of the game with the bot
        self.won = [0] * P
        self.won_top = [0] * P
        self.won_rounds = [0] * P
        self.won_fans = [0] * P
        self.won_removed = 0
        self.bot_drawn = 0
        self.match = 0
        self.starter = -1
        self.flag = -1
        self.weaken = 0
        self.stack: list[list[int]] = []
        self.attack: list[list[int]] = []
        self.undrawn = [[0] * TA, [0] * TA]
        self.bench = [[[-1, 0] for _ in range(game.bench_seats)] for _ in range(2)]
        # per side and set: the AURA of its bench, kept as cards join and leave it (_auras is the reference)
        self.aura = [[0] * game.num_sets, [0] * game.num_sets]
        self.resting = [[0] * TA, [0] * TA]
        self.winner = -1
        self.finalists: list[int] = []
        self.log: list[list[int]] = []
        # public events so far (tokens, trophies, decks made public, round, finalists, sets, the bot's
        # cards, the end): the encoder's cache key for its public blocks; not saved (a loaded state has
        # no encoder cache), only ever increased
        self.events = 0
        self._mask = None
        self._rm_mask: np.ndarray | None = None  # the REMOVE phase's mask, kept as cards go (_legal_mask)
        self._rm_total = 0  # and the cards of that deck
        if self.bot >= 0:  # spec 2.4: the bot's own cards
            b = self.decks[self.bot]
            b[:T] = [0] * T
            for i, t in enumerate(game.bot_types):
                b[t] = game.bot_count[i]
        # per participant the deck's cards as one sorted list, a type per copy (``_list_decks``, kept
        # as cards join and leave); a match copies two of them as ``unrevealed``, kept as cards are
        # revealed: a uniform reveal is the k-th entry of that list (sample_chance)
        self.deck_cards: list[list[int]] = []
        self._list_decks()
        self.unrevealed: list[list[int]] = [[], []]

    @staticmethod
    def _cards(counts: list[int]) -> list[int]:
        """The cards of a count vector as a sorted list of types, one entry per copy."""
        return list(chain.from_iterable(map(repeat, range(len(counts)), counts)))

    def _list_decks(self) -> None:
        """``deck_cards`` from ``decks`` (the reference; the moves keep it)."""
        self.deck_cards = [self._cards(d) for d in self.decks]

    # ------------------------------------------------------------------ structure
    def current_player(self) -> int:
        ph = self.phase_id
        if ph in DECISIONS:
            return self.seat
        if ph == P_END:
            return TERMINAL
        return CHANCE

    def phase(self) -> str:
        return Phase(self.phase_id).name.lower()

    def _start(self) -> None:
        self._after_sets()

    def _themed_in_play(self) -> list[int]:
        g = self.game
        return [i for i in range(g.num_sets) if i != g.base_set and self.in_play[i]]

    def _after_sets(self) -> None:
        """Setup 1: remove surplus themed sets at random; then the bot's extra cards; then round 1."""
        if len(self._themed_in_play()) > self.game.options["themed_sets_in_play"]:
            self.phase_id = P_SETUP_SETS
            return
        self._bot_setup()

    def _bot_setup(self) -> None:
        g = self.game
        while self.bot >= 0 and self.bot_drawn < len(g.bot_extra):
            lv = g.bot_extra[self.bot_drawn]
            if self._ready_pile(lv):
                self.phase_id = P_BOT_SETUP
                return
            self.bot_drawn += 1  # an empty pile and discard: nothing to draw
            self.events += 1
        self._begin_round()

    def _count_piles(self) -> None:
        """Recount ``pile_size`` / ``discard_size`` (per level) from the piles; the moves keep them
        up to date incrementally (draws, discards, reshuffles), so the hot path never sums a pile."""
        get = self.game.level_get
        for lv in (LV_A, LV_B, LV_C):
            self.pile_size[lv] = sum(get[lv](self.pile))
            self.discard_size[lv] = sum(get[lv](self.discard))
            self._list_pile(lv)

    def _list_pile(self, lv: int) -> None:
        """``pile_cards[lv]`` from the pile's counts."""
        p = self.pile
        self.pile_cards[lv] = [t for t in self.game.level_types[lv] for _ in range(p[t])]

    def _pile_size(self, lv: int) -> int:
        return self.pile_size[lv]

    def _ready_pile(self, lv: int) -> bool:
        """CH-R3: a pile that runs short takes its (shuffled) discard underneath; True when a card
        can be drawn. Drawing a uniform remaining card keeps the pile's order hidden and exact."""
        if self.pile_size[lv]:
            return True
        if not self.discard_size[lv]:
            return False
        p, d = self.pile, self.discard
        for t in self.game.level_types[lv]:
            if d[t]:
                p[t] += d[t]
                d[t] = 0
        self.pile_size[lv] = self.discard_size[lv]
        self.discard_size[lv] = 0
        self._list_pile(lv)
        return True

    def _begin_round(self) -> None:
        g = self.game
        if self.bot >= 0 and self.round in g.ace_rounds:  # CH-V2
            self._gain(self.bot, g.ace_type)
        self.events += 1  # a new round
        self.turn = 0
        self._begin_deck_phase()

    def _begin_deck_phase(self) -> None:
        """CH-R1: deck phases one after another from seat (r-1) mod N."""
        n = self.num_players
        self.seat = (self.round - 1 + self.turn) % n
        self.option = -1
        self.picks = 0
        self.redraw = False
        if len(self.game.draft_options(self.round)) == 2:
            self.phase_id = P_CHOOSE  # CH-R2
        else:
            self._start_draw(0)

    def _draft(self) -> tuple[int, int]:
        """(level, keep k) of the chosen draft option (``draft_options`` inlined: a hot path)."""
        return self.game.schedule[self.round - 1][self.option]

    def _start_draw(self, option: int) -> None:
        self.option = option
        _, k = self._draft()
        self.picks = k
        self.fill = list(range(DISPLAY))  # CH-R3: 5 cards into the private display
        self._continue_fill()

    def _continue_fill(self) -> None:
        lv = self._draft()[0]
        if self.fill and not self._ready_pile(lv):
            self.fill = []  # CH-R3: still short, fewer cards are drawn
        if self.fill:
            self.phase_id = P_DRAW
        else:
            self._after_pick()

    def _after_pick(self) -> None:
        """CH-R4: picking ends by itself once k cards are picked."""
        if self.picks == 0:
            self._end_picking()
        else:
            self.phase_id = P_PICK

    def _end_picking(self) -> None:
        """CH-R6: unpicked display cards go to that level's discard; then removals (CH-R8)."""
        d = self.discard
        for i, t in enumerate(self.display):
            if t >= 0:
                d[t] += 1
                self.discard_size[self.game.level[t]] += 1
                self.display[i] = -1
        self.phase_id = P_REMOVE

    def _next_deck_phase(self) -> None:
        self.turn += 1
        self.option = -1
        self.picks = 0
        self.redraw = False
        if self.turn < self.num_players:
            self._begin_deck_phase()
        else:
            self._begin_match_phase()

    # ------------------------------------------------------------------ chance
    def _draw_level(self) -> int:
        ph = self.phase_id
        if ph == P_DRAW:
            return self._draft()[0]
        if ph == P_RECRUIT:
            return LV_A
        return self.game.bot_extra[self.bot_drawn]  # BOT_SETUP

    def _reveal_side(self) -> int:
        return self.starter if self.flag < 0 else 1 - self.flag

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        ph = self.phase_id
        if ph in (P_DRAW, P_RECRUIT, P_BOT_SETUP):
            p = self.pile
            ts = [t for t in self.game.level_types[self._draw_level()] if p[t]]
            tot = sum(p[t] for t in ts)
            return [(t, p[t] / tot) for t in ts]
        if ph == P_REVEAL:
            u = self.undrawn[self._reveal_side()]
            tot = sum(u)
            return [(t, c / tot) for t, c in enumerate(u) if c]
        if ph == P_SETUP_SETS:
            sets = self._themed_in_play()
            return [(s, 1.0 / len(sets)) for s in sets]
        if ph == P_STARTER:
            return [(0, 0.5), (1, 0.5)]
        if ph == P_TROPHY:
            left = [k for k, o in enumerate(self.trophies[self.round - 1]) if o == NO_TROPHY]
            return [(k, 1.0 / len(left)) for k in left]
        if ph == P_FINAL_TIE:
            tied = self._tied()
            return [(s, 1.0 / len(tied)) for s in tied]
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        ph = self.phase_id
        # a card with probability copies / total: with k = int(u * total), the first type whose
        # running total passes k (a bisection on the running totals), i.e. the k-th card in type order
        if ph == P_DRAW:  # the display's draws (the most common node): the level inlined (_draft)
            cards = self.pile_cards[self.game.schedule[self.round - 1][self.option][0]]
            return cards[int(rng.random() * len(cards))]
        if ph == P_REVEAL:
            cards = self.unrevealed[self.starter if self.flag < 0 else 1 - self.flag]  # _reveal_side
            return cards[int(rng.random() * len(cards))]
        if ph in (P_RECRUIT, P_BOT_SETUP):
            cards = self.pile_cards[self._draw_level()]
            return cards[int(rng.random() * len(cards))]
        if ph == P_TROPHY:  # chance_outcomes' slots left, without the probabilities
            left = [k for k, o in enumerate(self.trophies[self.round - 1]) if o == NO_TROPHY]
            return left[int(rng.random() * len(left)) % len(left)]
        outs = self.chance_outcomes()
        return outs[int(rng.random() * len(outs)) % len(outs)][0]

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is not int:
            return False
        return any(outcome == o for o, _ in self.chance_outcomes())

    # ------------------------------------------------------------------ decisions
    def _legal_mask(self) -> np.ndarray:
        g = self.game
        ph = self.phase_id
        if ph in (P_REMOVE, P_FINAL_REMOVE):  # CH-R8, CH-R31: keep at least 1 card
            # built once per phase and kept as cards go (_apply: a type's last copy, or down to one
            # card); a copy is handed out. Dropped at DONE and by clone (rebuilt here when missing).
            rm = self._rm_mask
            if rm is None:  # byte stores into a bytearray, an int8 array over it
                b = bytearray(g.num_actions)
                cards = self.deck_cards[self.seat]
                self._rm_total = len(cards)
                if self._rm_total > 1:
                    for t in dict.fromkeys(cards):  # the types held, each once (a human holds pool types only)
                        b[A_REMOVE + t] = 1
                b[g.a_done] = 1
                rm = self._rm_mask = np.frombuffer(b, np.int8)
            return rm.copy()
        if ph == P_CHOOSE:
            m = np.zeros(g.num_actions, dtype=np.int8)
            m[A_CHOOSE : A_CHOOSE + len(g.draft_options(self.round))] = 1
            return m
        # PICK: byte stores into a bytearray (cheaper than numpy's item stores), an int8 array over it
        b = bytearray(g.num_actions)
        if self.picks > 0:
            for i, t in enumerate(self.display):
                if t >= 0:
                    b[A_PICK + i] = 1
        if not self.redraw:  # CH-R5: once, if the pile or its discard holds a card
            lv = self._draft()[0]
            if self.pile_size[lv] or self.discard_size[lv]:
                b[A_REDRAW] = 1
        b[A_STOP] = 1
        return np.frombuffer(b, np.int8)

    def _apply(self, a: Any) -> None:
        ph = self.phase_id
        g = self.game
        if ph == P_REVEAL:
            self._reveal(a)
        elif ph == P_DRAW:
            self.pile[a] -= 1
            lv = g.level[a]  # the drawn level
            self.pile_size[lv] -= 1
            self.pile_cards[lv].remove(a)
            fill = self.fill
            self.display[fill.pop(0)] = a
            if not fill or not self.pile_size[lv]:  # else the next draw (_continue_fill's common case)
                self._continue_fill()
        elif ph == P_PICK:
            if a == A_STOP:
                self._end_picking()
            elif a == A_REDRAW:  # CH-R5: unpicked cards to the discard, redraw into the same slots
                self.redraw = True
                fill = []
                for i, t in enumerate(self.display):
                    if t >= 0:
                        self.discard[t] += 1
                        self.discard_size[g.level[t]] += 1
                        self.display[i] = -1
                        fill.append(i)
                self.fill = fill
                self._continue_fill()
            else:
                self._pick(a - A_PICK)
        elif ph == P_RECRUIT:
            self.pile[a] -= 1
            self.pile_size[LV_A] -= 1
            self.pile_cards[LV_A].remove(a)
            self._gain(self.seat, a)  # its own Selected effect does not resolve (2.2)
            self._after_pick()
        elif ph in (P_REMOVE, P_FINAL_REMOVE):
            if a == g.a_done:
                self._rm_mask = None
                if ph == P_REMOVE:
                    self._next_deck_phase()
                else:
                    self._next_final_remove()
            else:
                t = a - A_REMOVE
                p = self.seat
                deck = self.decks[p]
                deck[t] -= 1
                self.deck_cards[p].remove(t)
                self.deck_rev[p] += 1
                self.deck_last[p] = t
                rm = self._rm_mask
                if rm is not None:  # the phase's mask as the card goes (see _legal_mask)
                    self._rm_total -= 1
                    if self._rm_total == 1:
                        rm[A_REMOVE : g.a_done] = 0
                    elif not deck[t]:
                        rm[a] = 0
                if g.level[t] != LV_S:  # CH-R8: removed starters leave the game
                    self.discard[t] += 1
                    self.discard_size[g.level[t]] += 1
        elif ph == P_CHOOSE:
            self._start_draw(a - A_CHOOSE)
        elif ph == P_STARTER:
            self.starter = a
            self.phase_id = P_REVEAL
            self._check_reveal()
        elif ph == P_TROPHY:
            self._award(a)
        elif ph == P_SETUP_SETS:
            self._remove_set(a)
        elif ph == P_BOT_SETUP:
            self.pile[a] -= 1
            self.pile_size[g.level[a]] -= 1
            self.pile_cards[g.level[a]].remove(a)
            self._gain(self.bot, a)  # Selected effects of the bot's cards do not resolve (2.2)
            self.bot_drawn += 1
            self.events += 1
            self._bot_setup()
        elif ph == P_FINAL_TIE:
            self.finalists.append(a)
            self.events += 1
            self._settle_finalists()

    def _remove_set(self, s: int) -> None:
        """Setup 1: a removed themed set's cards leave the piles."""
        g = self.game
        self.in_play[s] = False
        self.events += 1
        for t in range(g.num_types):
            if g.set_of[t] == s and g.level[t] != LV_S:
                self.pile[t] = 0
        self._count_piles()
        self._after_sets()

    def _gain(self, p: int, t: int) -> None:
        """A card of type ``t`` joins participant ``p``'s deck (its revision noted: ``deck_rev``)."""
        self.decks[p][t] += 1
        insort(self.deck_cards[p], t)
        self.deck_rev[p] += 1
        self.deck_last[p] = t

    def _pick(self, slot: int) -> None:
        """CH-R4 / CH-R7: the picked card joins the deck; its Selected effect resolves at once."""
        g = self.game
        t = self.display[slot]
        self.display[slot] = -1
        self._gain(self.seat, t)
        self.picks -= 1
        if g.kw[t] == KW_SELECTED:
            if g.op[t] == OP_FANS:
                self.tokens[self.seat] += g.x[t]
                self.events += 1
            elif g.op[t] == OP_RECRUIT and self._ready_pile(LV_A):
                self.phase_id = P_RECRUIT
                return
        self._after_pick()

    # ------------------------------------------------------------------ matches
    def pairs(self) -> list[tuple[int, int]]:
        """This round's matches (participants), in resolution order; the final's one pair."""
        if self.round == FINAL_ROUND:
            return [(self.finalists[0], self.finalists[1])]
        return self.game.round_pairs[self.P][self.round]

    def _begin_match_phase(self) -> None:
        T = self.game.num_types
        for s in range(self.num_players):  # 7: decks become public at the match phase
            self.public[s] = self.decks[s][:T]
        self.events += 1
        self.match = 0
        self._begin_match()

    def _top_round(self, p: int) -> int:
        """The latest round in which ``p`` won a trophy it holds (0: none)."""
        return self.won_top[p]

    def _begin_match(self) -> None:
        """CH-R10 / CH-R11: fresh decks and benches; the later highest trophy starts."""
        a, b = self.pairs()[self.match]
        self.undrawn = [self.decks[a][:], self.decks[b][:]]
        self.unrevealed = [self.deck_cards[a][:], self.deck_cards[b][:]]
        # benches (and their AURA), resting cards, stack, attack, flag and weakening are already
        # fresh: outside a match they are empty (_clear_match, the start; checked by the invariants)
        self.log = []
        ra, rb = self._top_round(a), self._top_round(b)
        if ra == rb:
            self.starter = -1
            self.phase_id = P_STARTER
        else:
            self.starter = 0 if ra > rb else 1
            self.phase_id = P_REVEAL
            self._check_reveal()

    def _check_reveal(self) -> None:
        """CH-R22: a player who must reveal from an empty deck loses."""
        s = self.starter if self.flag < 0 else 1 - self.flag  # _reveal_side
        if not self.unrevealed[s]:
            self._log(EV_LOSE_DECK, s, -1)
            self._match_over(1 - s)

    def _log(self, ev: int, side: int, t: int) -> None:
        if len(self.log) < MAX_LOG:
            self.log.append([ev, side, t])

    def _fans_gain(self, side: int, f: int) -> None:
        """CH-R24: FANS add fan tokens at once (the bot's count only in solo play, 2.2)."""
        p = self.pairs()[self.match][side]
        if p != self.bot or self.num_players == 1:
            self.tokens[p] += f
            self.events += 1

    def _auras(self, side: int) -> list[int]:
        """Per set: AURA from ``side``'s bench for an active card of that set (same-name copies add
        up); one pass over the bench. The reference of ``aura``, which the moves keep."""
        g = self.game
        auras = [0] * g.num_sets
        for t, c in self.bench[side]:
            if t >= 0 and g.aura_set[t] >= 0:
                auras[g.aura_set[t]] += c * g.x[t]
        return auras

    def _occupied(self, side: int) -> int:
        return sum(1 for t, _ in self.bench[side] if t >= 0)

    def defence(self) -> int:
        """CH-R15 / CH-R16: the flag card's current power alone."""
        g = self.game
        t, boost = self.stack[-1]
        p = g.power[self.round][t] + boost - self.weaken
        if g.kw[t] == KW_FLAG and g.op[t] in (OP_GUARD, OP_POWER):
            p += g.x[t]
        if g.set_of[t] >= 0:
            p += self.aura[self.flag][g.set_of[t]]
        return p if p > 0 else 0

    def attack_total(self) -> int:
        """CH-R14 / CH-R16: the revealed cards' current powers plus active In-attack effects."""
        g = self.game
        side = 1 - self.flag
        pw = g.power[self.round]
        n = len(self.attack)
        auras = self.aura[side]
        tot = 0
        for t, boost in self.attack:
            p = pw[t] + boost
            if g.kw[t] == KW_ATTACK:
                if g.op[t] == OP_POWER:
                    p += g.x[t]
                elif g.op[t] == OP_SWARM:
                    tot += g.x[t] * (n - 1)
            if g.set_of[t] >= 0:
                p += auras[g.set_of[t]]
            tot += p if p > 0 else 0
        return tot

    def _on_reveal(self, side: int, card: list[int]) -> None:
        """2.2: an unkeyworded effect resolves right after its card is revealed (CH-R12, CH-R13)."""
        g = self.game
        t = card[0]
        if g.kw[t] != KW_REVEAL:
            return
        op = g.op[t]
        if op == OP_NONE:
            return
        x = g.x[t]
        if op == OP_CLEAR:
            bench, rest = self.bench[side], self.resting[side]
            for _ in range(x):
                best = -1
                for i, (bt, c) in enumerate(bench):
                    if bt >= 0 and (best < 0 or c < bench[best][1]):
                        best = i
                if best < 0:
                    break
                seat = bench[best]
                bt = seat[0]
                rest[bt] += 1
                if g.aura_set[bt] >= 0:
                    self.aura[side][g.aura_set[bt]] -= g.x[bt]
                seat[1] -= 1
                if seat[1] == 0:
                    seat[0] = -1
        elif op == OP_FANS:
            self._fans_gain(side, x)
        elif op == OP_WEAKEN:
            if self.flag == 1 - side:
                self.weaken += x
        elif op == OP_BOOST:
            card[1] += x * self._occupied(1 - side if g.boost_opp[t] else side)

    def _to_bench(self, side: int, t: int) -> bool:
        """CH-R20 / CH-R21: same name joins its seat, else the lowest empty seat; False if none."""
        bench = self.bench[side]
        empty = -1
        for i, seat in enumerate(bench):
            if seat[0] == t:
                seat[1] += 1
                break
            if seat[0] < 0 and empty < 0:
                empty = i
        else:
            if empty < 0:
                return False
            bench[empty][0] = t
            bench[empty][1] = 1
        g = self.game
        if g.aura_set[t] >= 0:
            self.aura[side][g.aura_set[t]] += g.x[t]
        return True

    def _reveal(self, t: int) -> None:
        g = self.game
        side = self.starter if self.flag < 0 else 1 - self.flag  # _reveal_side
        self.undrawn[side][t] -= 1
        self.unrevealed[side].remove(t)  # its first copy: the list stays sorted
        card = [t, 0]
        if len(self.log) < MAX_LOG:  # _log
            self.log.append([EV_REVEAL, side, t])
        effect = g.kw[t] == KW_REVEAL and g.op[t] != OP_NONE  # else _on_reveal does nothing
        if self.flag < 0:  # CH-R12: the starting flag card (not an attack)
            self.stack = [card]
            if effect:
                self._on_reveal(side, card)
            self.flag = side
            self._check_reveal()
            return
        self.attack.append(card)
        if effect:
            self._on_reveal(side, card)  # CH-R13
        if self.attack_total() < self.defence():  # CH-R17
            self._check_reveal()
            return
        # CH-R18: flag loss, the defender's stack to its bench, the attacker's cards the new stack
        d = self.flag
        top = self.stack[-1][0]
        escape = g.kw[top] == KW_LOSS and g.op[top] == OP_ESCAPE
        self.weaken = 0
        last = len(self.stack) - 1
        for i, (ct, _) in enumerate(self.stack):
            if i == last and escape:
                self.resting[d][ct] += 1
            elif not self._to_bench(d, ct):
                self.stack = self.stack[i:]
                self._log(EV_LOSE_BENCH, d, ct)
                self._match_over(side)
                return
        self.stack = self.attack
        self.attack = []
        self.flag = side
        self._log(EV_CAPTURE, side, t)
        self._check_reveal()  # CH-R19: the former defender attacks

    def _match_over(self, side: int) -> None:
        a, b = self.pairs()[self.match]
        w = (a, b)[side]
        self.winner = w
        self._clear_match()
        if self.round == FINAL_ROUND:  # CH-R32
            self.phase_id = P_END
            self.events += 1
            return
        self.phase_id = P_TROPHY  # CH-R24

    def _award(self, k: int) -> None:
        """CH-R24 / CH-R26: the winner takes a random trophy of the round (the bot's leave the game
        in 3-7 player games); CH-R25: the decks are whole again for the next match."""
        w = self.winner
        r = self.round
        if w == self.bot and self.num_players > 1:
            self.trophies[r - 1][k] = REMOVED
            self.won_removed += 1
        else:
            self.trophies[r - 1][k] = w
            self.won[w] += 1
            self.won_top[w] = r  # rounds only go up
            self.won_rounds[w] += r
            self.won_fans[w] += self.game.trophies[r - 1][k]
        self.events += 1
        self.winner = -1
        self.match += 1
        if self.match < len(self.pairs()):
            self._begin_match()
        else:
            self._end_match_phase()

    def _count_trophies(self) -> None:
        """Recount the per-participant trophy totals (``won``, ``won_top``, ``won_rounds``,
        ``won_fans``, ``won_removed``) from ``trophies``; ``_award`` keeps them as trophies are won."""
        P = self.P
        self.won, self.won_top, self.won_rounds, self.won_fans = [0] * P, [0] * P, [0] * P, [0] * P
        self.won_removed = 0
        values = self.game.trophies
        for r, row in enumerate(self.trophies):
            for k, w in enumerate(row):
                if w >= 0:
                    self.won[w] += 1
                    self.won_top[w] = r + 1
                    self.won_rounds[w] += r + 1
                    self.won_fans[w] += values[r][k]
                elif w == REMOVED:
                    self.won_removed += 1

    def fans(self, p: int) -> int:
        """CH-R27: trophy fans plus fan tokens."""
        return self.tokens[p] + self.won_fans[p]

    def trophy_rounds(self, p: int) -> list[int]:
        return [r + 1 for r, row in enumerate(self.trophies) for o in row if o == p]

    def _end_match_phase(self) -> None:
        self.match = 0
        n = self.num_players
        if n <= 2:  # CH-R28: a lead of 11+ fans wins at once (solo: against the bot)
            f0, f1 = self.fans(0), self.fans(1)
            if abs(f0 - f1) >= self.game.early_lead:
                self.winner = 0 if f0 > f1 else 1
                self.phase_id = P_END
                self.events += 1
                return
            if self.round == ROUNDS:  # CH-R29
                self.phase_id = P_END
                self.events += 1
                return
        elif self.round == ROUNDS:  # CH-R30
            self.round = FINAL_ROUND
            self.events += 1
            self._settle_finalists()
            return
        self.round += 1
        self._begin_round()

    def _clear_match(self) -> None:
        TA = self.game.all_types
        self.undrawn = [[0] * TA, [0] * TA]
        self.unrevealed = [[], []]
        self.bench = [[[-1, 0] for _ in range(self.game.bench_seats)] for _ in range(2)]
        self.aura = [[0] * self.game.num_sets, [0] * self.game.num_sets]
        self.resting = [[0] * TA, [0] * TA]
        self.stack, self.attack = [], []
        self.flag, self.weaken, self.starter = -1, 0, -1

    def rank_key(self, p: int) -> tuple:
        """CH-R30: fans, then trophies, then the trophy rounds from the highest down."""
        rounds = sorted(self.trophy_rounds(p), reverse=True)
        return (self.fans(p), len(rounds), tuple(rounds))

    def _tied(self) -> list[int]:
        """Seats tied for the next finalist place (the chance node's outcomes)."""
        rest = [s for s in range(self.num_players) if s not in self.finalists]
        best = max(self.rank_key(s) for s in rest)
        return [s for s in rest if self.rank_key(s) == best]

    def _settle_finalists(self) -> None:
        while len(self.finalists) < 2:
            tied = self._tied()
            if len(tied) == 1 or len(tied) <= 2 - len(self.finalists):
                self.finalists.extend(tied)
                self.events += 1
            else:
                self.phase_id = P_FINAL_TIE
                return
        self.finalists.sort()
        self.turn = 0
        self.seat = self.finalists[0]
        self.phase_id = P_FINAL_REMOVE  # CH-R31

    def _next_final_remove(self) -> None:
        self.turn += 1
        if self.turn < 2:
            self.seat = self.finalists[1]
            return
        T = self.game.num_types
        for s in self.finalists:
            self.public[s] = self.decks[s][:T]
        self.events += 1
        self.match = 0
        self._begin_match()  # CH-R32: the final, a normal match

    # ------------------------------------------------------------------ results
    def _key2(self, p: int) -> tuple:
        """CH-R29: fans, then trophies, then the highest single trophy round."""
        rounds = self.trophy_rounds(p)
        return (self.fans(p), len(rounds), max(rounds, default=0))

    def scores(self) -> list[float]:
        """CH-R35: each human's fans; solo: the player's fans minus the bot's."""
        if self.num_players == 1:
            return [float(self.fans(0) - self.fans(1))]
        return [float(self.fans(p)) for p in range(self.num_players)]

    def winners(self) -> list[int]:
        """CH-R35: the final's winner (3-8); the CH-R28/R29 winner(s) (2); solo: [0] on a win."""
        n = self.num_players
        if n >= 3:
            if self.phase_id == P_END and 0 <= self.winner < n:
                return [self.winner]
            keys = [self.rank_key(p) for p in range(n)]
            best = max(keys)
            return [p for p in range(n) if keys[p] == best]
        if self.winner >= 0:  # CH-R28
            w = [self.winner]
        else:
            k0, k1 = self._key2(0), self._key2(1)
            w = [0] if k0 > k1 else [1] if k1 > k0 else [0, 1]
        if n == 1:
            return [0] if 0 in w else []
        return w

    def trophies_visible(self, seat: int) -> bool:
        """CH-R33: all trophy values are public in 1-2 player games and from the final reveal on."""
        return self.num_players <= 2 or self.round == FINAL_ROUND or self.phase_id == P_END

    # ------------------------------------------------------------------ hidden information
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> ChallengersState:
        """Re-deal what ``seat`` cannot see: per level the pile, the discard, another seat's open
        display and the cards other seats added in this round's deck phase (their current deck minus
        the public one); and, where trophy values are hidden, the other seats' trophies of each round
        among the trophies ``seat`` does not hold."""
        s = self.clone()
        assert isinstance(s, ChallengersState)
        g = s.game
        n = s.num_players
        # who holds a hidden addition: seats other than ``seat`` whose deck differs from the public one
        for lv in (LV_A, LV_B, LV_C):
            ts = g.level_types[lv]
            pool: list[int] = []
            slots: list[tuple[str, int, int]] = []  # (where, owner/slot, copies)
            for t in ts:
                pool += [t] * (s.pile[t] + s.discard[t])
            npile = sum(s.pile[t] for t in ts)
            ndisc = sum(s.discard[t] for t in ts)
            for q in range(n):
                if q == seat:
                    continue
                extra = [t for t in ts for _ in range(max(0, s.decks[q][t] - s.public[q][t]))]
                for t in extra:
                    s.decks[q][t] -= 1
                if extra:
                    s.deck_rev[q] += 1
                    s.deck_last[q] = -1  # several changes at once
                pool += extra
                if extra:
                    slots.append(("deck", q, len(extra)))
            hidden_display = s.seat != seat and s.phase_id in (P_DRAW, P_PICK, P_RECRUIT)
            disp_slots = []
            if hidden_display and s._draft()[0] == lv:
                for i, t in enumerate(s.display):
                    if t >= 0:
                        pool.append(t)
                        disp_slots.append(i)
            if not pool:
                continue
            order = [pool[i] for i in rng.permutation(len(pool))]
            for t in ts:
                s.pile[t] = 0
                s.discard[t] = 0
            at = 0
            for t in order[:npile]:
                s.pile[t] += 1
            at = npile
            for t in order[at : at + ndisc]:
                s.discard[t] += 1
            at += ndisc
            for _, q, k in slots:
                for t in order[at : at + k]:
                    s.decks[q][t] += 1
                at += k
            for i in disp_slots:
                s.display[i] = order[at]
                at += 1
        if not s.trophies_visible(seat):
            for row in s.trophies:
                ks = [k for k, o in enumerate(row) if o != seat]
                owners = [row[k] for k in ks]
                perm = rng.permutation(len(owners))
                for k, j in zip(ks, perm):
                    row[k] = owners[int(j)]
            s._count_trophies()
        s._count_piles()
        s._list_decks()
        s._mask = None
        return s

    # ------------------------------------------------------------------ saved states
    def _to_dict(self) -> dict:
        return {
            "phase": int(self.phase_id),
            "round": self.round,
            "turn": self.turn,
            "seat": self.seat,
            "option": self.option,
            "picks": self.picks,
            "redraw": self.redraw,
            "display": list(self.display),
            "fill": list(self.fill),
            "in_play": list(self.in_play),
            "pile": list(self.pile),
            "discard": list(self.discard),
            "decks": [list(x) for x in self.decks],
            "public": [list(x) for x in self.public],
            "tokens": list(self.tokens),
            "trophies": [list(x) for x in self.trophies],
            "bot_drawn": self.bot_drawn,
            "match": self.match,
            "starter": self.starter,
            "flag": self.flag,
            "weaken": self.weaken,
            "stack": [list(x) for x in self.stack],
            "attack": [list(x) for x in self.attack],
            "undrawn": [list(x) for x in self.undrawn],
            "bench": [[list(s) for s in b] for b in self.bench],
            "resting": [list(x) for x in self.resting],
            "winner": self.winner,
            "finalists": list(self.finalists),
            "log": [list(x) for x in self.log],
        }

    def clone(self) -> ChallengersState:
        c = ChallengersState.__new__(ChallengersState)
        c.__dict__.update(self.__dict__)
        c.display = self.display[:]
        c.fill = self.fill[:]
        c.in_play = self.in_play[:]
        c.pile = self.pile[:]
        c.discard = self.discard[:]
        c.pile_size = self.pile_size[:]
        c.discard_size = self.discard_size[:]
        c.pile_cards = [x[:] for x in self.pile_cards]
        c.decks = [x[:] for x in self.decks]
        c.public = [x[:] for x in self.public]
        c.tokens = self.tokens[:]
        c.trophies = [x[:] for x in self.trophies]
        c.won, c.won_top, c.won_rounds, c.won_fans = self.won[:], self.won_top[:], self.won_rounds[:], self.won_fans[:]
        c.deck_rev, c.deck_last = self.deck_rev[:], self.deck_last[:]
        c.stack = [x[:] for x in self.stack]
        c.attack = [x[:] for x in self.attack]
        c.undrawn = [x[:] for x in self.undrawn]
        c.unrevealed = [x[:] for x in self.unrevealed]
        c.deck_cards = [x[:] for x in self.deck_cards]
        c.bench = [[s[:] for s in b] for b in self.bench]
        c.aura = [x[:] for x in self.aura]
        c.resting = [x[:] for x in self.resting]
        c.finalists = self.finalists[:]
        c.log = [x[:] for x in self.log]
        c._mask = None
        c._rm_mask = None
        c.encoder_cache = None
        return c

    def check_invariants(self) -> None:  # noqa: C901 - one list of conservation laws
        g = self.game
        n, P, T, TA = self.num_players, self.P, g.num_types, g.all_types
        ph = self.phase_id
        r = self.round
        in_match = ph in (P_STARTER, P_REVEAL)
        # setup and rounds
        themed = self._themed_in_play()
        assert self.in_play[g.base_set], "the base set is always in play"
        assert len(themed) >= g.options["themed_sets_in_play"], "no more sets removed than asked (setup 1)"
        if ph != P_SETUP_SETS:
            assert len(themed) == g.options["themed_sets_in_play"], "setup 1 is complete"
        setup = ph in (P_SETUP_SETS, P_BOT_SETUP)
        if setup:
            assert r == 1 and self.turn == 0 and self.seat == 0 and not any(self.tokens), "setup comes first"
            assert all(o == NO_TROPHY for row in self.trophies for o in row)
        if ph == P_SETUP_SETS:
            assert self.bot_drawn == 0
        if ph == P_BOT_SETUP:
            assert self.bot >= 0 and self.bot_drawn < len(g.bot_extra)
            assert self._pile_size(g.bot_extra[self.bot_drawn]) > 0, "a bot draw has a card to draw"
        elif not setup and self.bot >= 0:
            assert self.bot_drawn == len(g.bot_extra), "the bot's extra cards are drawn at setup (2.4)"
        if self.bot < 0:
            assert self.bot_drawn == 0
        final = ph in (P_FINAL_TIE, P_FINAL_REMOVE) or (r == FINAL_ROUND and ph != P_END)
        if r == FINAL_ROUND:
            assert n >= 3, "a final only with 3-8 players (CH-R30)"
            assert ph in (P_FINAL_TIE, P_FINAL_REMOVE, P_STARTER, P_REVEAL, P_END)
        else:
            assert ph not in (P_FINAL_TIE, P_FINAL_REMOVE)
        # cards: every pool card is in exactly one place
        disp = [0] * T
        showing = ph in (P_DRAW, P_PICK, P_RECRUIT)
        for t in self.display:
            if t >= 0:
                assert showing, "the display holds cards only while picking"
                disp[t] += 1
        held_all = [sum(col) for col in zip(*self.decks)]
        total = [a + b + c + d for a, b, c, d in zip(self.pile, self.discard, disp, held_all)]
        in_game = g.expected_totals(tuple(self.in_play))
        if g.pool_items(total) != g.pool_items(in_game):
            for t in range(T):
                if g.level[t] != LV_S:
                    assert total[t] == in_game[t], f"every copy of {g.type_names[t]} is somewhere (or out with its set)"
        sizes = (self.pile_size[:], self.discard_size[:], [x[:] for x in self.pile_cards])
        self._count_piles()
        assert sizes == (self.pile_size, self.discard_size, self.pile_cards), "the kept pile sizes and cards are exact"
        assert self.deck_cards == [self._cards(d) for d in self.decks], "the kept deck card lists are exact"
        assert self.unrevealed == [self._cards(u) for u in self.undrawn], "the kept match card lists are exact"
        kept = (self.won[:], self.won_top[:], self.won_rounds[:], self.won_fans[:], self.won_removed)
        self._count_trophies()
        assert kept == (self.won, self.won_top, self.won_rounds, self.won_fans, self.won_removed), "trophy totals"
        for t in g.starter_types:
            assert self.pile[t] == 0 and self.discard[t] == 0 and disp[t] == 0, "starters never in piles"
            assert max(col[t] for col in self.decks) <= g.starter[t], "starter copies (2.1)"
            assert self.bot < 0 or self.decks[self.bot][t] == 0
        for p in range(P):
            deck = self.decks[p]
            if p == self.bot:
                for i, t in enumerate(g.bot_types):
                    assert deck[t] == g.bot_count[i], "the bot keeps its own cards (2.4)"
                aces = sum(1 for x in g.ace_rounds if x <= min(r, ROUNDS)) if not setup else 0
                assert deck[g.ace_type] == aces, "Solo Aces by round (CH-V2)"
                drawn = list(g.bot_extra[: self.bot_drawn])
                for lv in (LV_A, LV_B, LV_C):
                    have = sum(deck[t] for t in g.level_types[lv])
                    assert have <= drawn.count(lv), "the bot's extra cards (2.4)"
            else:
                assert not any(deck[T:]), "bot cards only in the bot deck"
                assert sum(deck) >= 1, "a deck keeps at least one card (CH-R8)"
        # deck phases
        deck_phase = ph in (P_CHOOSE, P_DRAW, P_PICK, P_RECRUIT, P_REMOVE)
        opts = g.draft_options(min(r, ROUNDS))
        if deck_phase:
            assert r <= ROUNDS and 0 <= self.turn < n and self.seat == (r - 1 + self.turn) % n, "CH-R1"
        if ph == P_CHOOSE:
            assert len(opts) == 2 and self.option == -1 and self.picks == 0 and not self.redraw, "CH-R2"
        elif deck_phase:
            assert 0 <= self.option < len(opts), "a draft option is chosen"
            assert self.picks <= opts[self.option][1]
        else:
            assert self.option == -1 and self.picks == 0 and not self.redraw
        if ph == P_DRAW:
            assert self.fill and all(self.display[i] < 0 for i in self.fill), "draws fill empty slots"
            assert self._pile_size(self._draft()[0]) > 0 and self.picks > 0
        else:
            assert not self.fill
        if ph == P_PICK:
            assert self.picks > 0, "picking ends by itself after k picks (CH-R4)"
        if ph == P_RECRUIT:
            assert self._pile_size(LV_A) > 0
        if showing:
            lv = self._draft()[0]
            assert all(t < 0 or g.level[t] == lv for t in self.display), "display cards of the drawn level"
        for q in range(n):  # decks change only in their own deck phase (7: public at the match phase)
            done = deck_phase and ((q - (r - 1)) % n < self.turn or q == self.seat)
            if not done and not final:
                assert self.decks[q][:T] == self.public[q], "an untouched deck equals its public composition"
        if final:
            assert len(self.finalists) <= 2
            for q in range(n):
                if q not in self.finalists or ph not in (P_FINAL_REMOVE, P_STARTER, P_REVEAL):
                    assert self.decks[q][:T] == self.public[q]
        # trophies (CH-R24, CH-R26)
        pairs_done = ROUNDS if r == FINAL_ROUND else r - 1
        for rr in range(ROUNDS):
            row = self.trophies[rr]
            won = [o for o in row if o != NO_TROPHY]
            assert all(o == REMOVED or 0 <= o < P for o in won)
            if REMOVED in won:
                assert self.bot >= 0 and n > 1, "only the bot's trophies leave the game (3-7 players)"
            if self.bot >= 0 and n > 1:
                assert self.bot not in won
            pr = pairings(P, rr + 1, g.options["pairing"])
            if rr + 1 <= pairs_done:
                expect = len(pr)
            elif rr + 1 == r and ph in (P_STARTER, P_REVEAL, P_TROPHY):
                expect = self.match
            elif rr + 1 == r and ph == P_END:
                expect = len(pr)
            else:
                expect = 0
            assert len(won) == expect, f"round {rr + 1}: one trophy per finished match"
            for a, b in pr[: len(won)]:
                wa = (a in won) or (a == self.bot and REMOVED in won)
                wb = (b in won) or (b == self.bot and REMOVED in won)
                assert wa != wb, "one trophy per match, to one of its players"
        if ph == P_END and n <= 2 and self.winner < 0:
            assert r == ROUNDS
        if ph == P_END and n >= 3:
            assert r == FINAL_ROUND and self.winner in self.finalists and len(self.finalists) == 2
        elif ph == P_END:
            assert self.winner in (-1, 0, 1)
            if self.winner >= 0:
                f = (self.fans(0), self.fans(1))
                assert f[self.winner] - f[1 - self.winner] >= g.early_lead, "CH-R28"
        elif ph == P_TROPHY:
            a, b = self.pairs()[self.match]
            assert self.winner in (a, b), "the trophy goes to the match winner"
        else:
            assert self.winner == -1
        if final and ph != P_FINAL_TIE:
            assert len(self.finalists) == 2 and self.finalists == sorted(self.finalists)
            assert all(
                self.rank_key(s) >= self.rank_key(q)
                for s in self.finalists
                for q in range(n)
                if q not in self.finalists
            )
        if ph == P_FINAL_TIE:
            assert len(self.finalists) < 2 and len(self._tied()) > 2 - len(self.finalists)
        if ph == P_FINAL_REMOVE:
            assert self.turn in (0, 1) and self.seat == self.finalists[self.turn]
        if r != FINAL_ROUND:
            assert not self.finalists
        if ph in (P_STARTER, P_REVEAL, P_TROPHY) and r <= ROUNDS:
            assert self.turn == n, "the match phase follows every deck phase"
        if setup:
            assert self.turn == 0
        if ph == P_END:
            assert self.turn == (2 if n >= 3 else n)
        # the match
        if in_match:
            pairs = self.pairs()
            assert self.match < len(pairs)
            a, b = pairs[self.match]
            if ph == P_STARTER:
                assert self.starter == -1 and self.flag == -1 and not self.log
                assert self._top_round(a) == self._top_round(b), "CH-R11: a random starter only on a tie"
            else:
                assert self.starter in (0, 1)
                ra, rb = self._top_round(a), self._top_round(b)
                if ra != rb:
                    assert self.starter == (0 if ra > rb else 1), "CH-R11"
            for side, p in enumerate((a, b)):
                cards_of: list[int] = self.undrawn[side][:]
                for x in range(TA):
                    cards_of[x] += self.resting[side][x]
                for bt, c in self.bench[side]:
                    if bt >= 0:
                        cards_of[bt] += c
                for cards, owner in ((self.stack, self.flag), (self.attack, 1 - self.flag)):
                    if owner == side:
                        for ct, _ in cards:
                            cards_of[ct] += 1
                assert cards_of == self.decks[p], "every card of a match is in one place (CH-R10)"
                assert self.aura[side] == self._auras(side), "the kept AURA totals are exact"
                names = [bt for bt, _ in self.bench[side] if bt >= 0]
                assert len(set(names)) == len(names), "CH-R20: a seat per name"
                assert all((bt < 0) == (c == 0) for bt, c in self.bench[side]), "a seat is empty or holds cards"
            if self.flag < 0:
                assert not self.stack and not self.attack and self.weaken == 0
                assert not any(any(x) for x in self.resting) and not any(c for bn in self.bench for _, c in bn)
            else:
                assert self.stack, "the flag side holds a stack"
                if self.attack:
                    assert self.attack_total() < self.defence(), "a successful attack is resolved (CH-R17)"
            if ph == P_REVEAL:
                assert any(self.undrawn[self._reveal_side()]), "CH-R22 ends a match with an empty deck"
            for cards in (self.stack, self.attack):
                assert all(b <= 10 * g.bench_seats for _, b in cards)
            assert self.weaken <= 10 * self.game.max_deck
            assert len(self.log) <= MAX_LOG
        else:
            assert self.flag == -1 and self.starter == -1 and not self.stack and not self.attack
            assert self.weaken == 0 and not any(any(x) for x in self.undrawn)
            assert not any(any(x) for x in self.resting) and not any(c for bn in self.bench for _, c in bn)
            assert all(bt == -1 for bn in self.bench for bt, _ in bn)
            if ph == P_TROPHY:
                assert self.match < len(self.pairs())
            elif ph != P_END:
                assert self.match == 0
        for p in range(P):
            if p == self.bot and n > 1:
                assert self.tokens[p] == 0, "the bot's fans count only in solo play (2.2)"

    # ------------------------------------------------------------------ names
    def action_to_string(self, a: Any) -> str:
        g = self.game
        names = g.type_names
        ph = self.phase_id
        if self.is_chance_node():
            if ph in (P_DRAW, P_RECRUIT, P_BOT_SETUP, P_REVEAL):
                return f"card {names[a]}" if 0 <= a < g.all_types else f"card {a}"
            if ph == P_SETUP_SETS:
                return f"remove set {g.sets[a]}" if 0 <= a < g.num_sets else f"set {a}"
            if ph == P_STARTER:
                return f"starter side {a}"
            if ph == P_TROPHY:
                return f"trophy slot {a}"
            return f"finalist seat {a}"
        if a < A_PICK:
            opts = g.draft_options(min(self.round, ROUNDS))
            if a < len(opts):
                lv, k = opts[a]
                return f"choose {data.LEVELS[lv]}x{k}"
            return f"choose option {a + 1}"
        if a < A_REDRAW:
            slot = a - A_PICK
            t = self.display[slot]
            return f"pick {names[t]}" if t >= 0 else f"pick slot {slot}"
        if a == A_REDRAW:
            return "redraw"
        if a == A_STOP:
            return "stop picking"
        if a == g.a_done:
            return "done removing"
        t = a - A_REMOVE
        return f"remove {names[t]}" if 0 <= t < g.num_types else f"action {a}"


# a rough worth per unit of each effect (indexed by the rules' OP_* codes), for card_value
EFFECT_BONUS = (0.0, 1.2, 1.5, 1.0, 1.5, 1.2, 0.8, 1.5, 0.8, 1.0, 1.5)


def card_value(game: ChallengersGame, t: int, rnd: int) -> float:
    """A rough 1-ply worth of one card type (power plus a fixed bonus per effect), for the bot's
    features and the heuristic."""
    p = float(game.power[min(rnd, ROUNDS)][t])
    return p + EFFECT_BONUS[game.op[t]] * max(1, game.x[t])
