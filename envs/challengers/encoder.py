"""Observation of Challengers!, seat-relative ("me" first, then the other humans in seat order after
me, the bot in its own block), holding only what the seat may know (spec 7, Information): its own
current deck and, while it decides, its display; every deck's public composition (as of the latest
match phase); fans tokens, trophy counts and rounds; trophy values where CH-R33 shows them; the
schedule; pile and discard sizes. The layout is declared once in ``build``.

With the option ``action_features`` the observation ends with one number per action for the seat
to move: a 1-ply card value (``card_value``) of what the action adds or removes (0 for illegal
actions), which a policy may add to its logits.
"""

from __future__ import annotations

from itertools import compress
from operator import ne
from typing import Any

import numpy as np

from ..core.encoder import Encoder, Layout
from .rules import (
    A_PICK,
    A_REMOVE,
    DECISIONS,
    DISPLAY,
    FINAL_ROUND,
    LV_A,
    LV_B,
    LV_C,
    MAX_PLAYERS,
    ROUNDS,
    ChallengersGame,
    ChallengersState,
    Phase,
    card_value,
)

SEATS = MAX_PLAYERS  # relative human slots (me first)
# plain ints, as the state's ``phase_id`` (an IntEnum member hashes differently in a set)
DECKISH = frozenset(map(int, (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE)))
P_END, P_DRAW, P_FINAL_REMOVE = int(Phase.END), int(Phase.DRAW), int(Phase.FINAL_REMOVE)
QUARTERS = np.arange(256, dtype=np.float32) * np.float32(0.25)  # copies (< 256) x 0.25
SHOWING = frozenset(map(int, (Phase.DRAW, Phase.PICK, Phase.RECRUIT)))


BLANK_DISPLAY = [-1] * DISPLAY
NO_STEP = (-1, 0, False)  # the step entries outside my deck phase (all 0.0)


class SeatView:
    """One seat's cached observation and what its per-step entries were last written from (copies:
    the state changes its lists in place). A fresh one stands for a zero vector."""

    __slots__ = (
        "key",
        "rnd",
        "o",
        "mv",
        "public",
        "rows",
        "at",
        "step",
        "display",
        "deck",
        "deck_rev",
        "opts_rnd",
        "in_play",
        "bot",
        "pile",
        "discard",
        "turn",
        "feats",
    )

    def __init__(self, size: int) -> None:
        self.key = -1  # the rules' public event count the public blocks were written for (-1: none)
        self.rnd = 0  # the round written (0: none)
        self.o = np.zeros(size, np.float32)
        self.mv: Any = self.o.data  # single float32 stores through a memoryview: cheaper than numpy's
        self.public: list[list[int]] = [[] for _ in range(SEATS)]  # public decks written, me first ([]: none)
        self.rows: list[tuple[float, ...]] = [() for _ in range(SEATS + 1)]  # the seats block's rows written
        self.at = -1  # index of the phase entry written (-1: none); its value follows from the index
        self.step = NO_STEP  # (option, picks left, redraw used) in my deck phase, else NO_STEP
        self.display = BLANK_DISPLAY  # my display while it shows, else all -1
        self.deck: list[int] = []  # my deck ([]: not written)
        self.deck_rev = -2  # the rules' revision of my deck written (deck_rev; -2: none, never one behind)
        self.opts_rnd = 0  # the round whose draft options are written (0: none)
        self.in_play: list[bool] = []  # the sets in play written
        self.bot: tuple[int, int] | None = None  # the revision of the bot's deck and the round written
        self.pile = [0] * 4  # pile sizes per level (the rules' pile_size)
        self.discard = [0] * 4  # discard sizes per level
        self.turn = (0, 0)  # (first seat, deck phases done) this round; (0, 0) outside the deck phase
        self.feats = False  # action features written


class ChallengersEncoder(Encoder):
    game: ChallengersGame

    def build(self, L: Layout) -> None:
        g = self.game
        T, TA = g.num_types, g.all_types
        self.T, self.TA = T, TA
        self.phase = L.block("phase", len(Phase))  # one-hot; only my own decision's step, else "waiting"
        self.waiting = self.phase + P_DRAW  # the entry of another seat's deck phase (0.5)
        self.rnd = L.block("round", FINAL_ROUND)  # one-hot, 8 = the final
        self.players = L.block("players", SEATS)  # one-hot player count 1..8
        self.step = L.block("my_step", 4, 0.0, [1, 1, 2.5, 1])  # option chosen 1/2, picks left (x0.5), redraw used
        self.options = L.block(
            "draft_options", 2 * 4, 0.0, [1, 1, 1, 2.5] * 2
        )  # per option: level A/B/C one-hot, keep k (x0.5)
        self.display = L.block("my_display", DISPLAY * T)  # one-hot card type per slot (my deck phase)
        self.slots = [self.display + i * T for i in range(DISPLAY)]
        self.my_deck = L.block("my_deck", T, 0.0, 2.0)  # my current deck, copies per type (x0.25)
        self.public = L.block("public_decks", SEATS * T, 0.0, 2.0)  # public composition, me first (x0.25)
        self.bot = L.block("bot_deck", TA + 5, 0.0, np.inf)  # the bot's deck (x0.25), its card powers this round (x0.1)
        self.per = 10
        self.seats = L.block(
            "seats", (SEATS + 1) * self.per, 0.0, [1, np.inf, 1, 1, 1, np.inf, 1, 1, 1, np.inf] * (SEATS + 1)
        )  # me first, the bot last (see encode)
        self.piles = L.block("piles", 6)  # pile and discard sizes A/B/C (share of the level)
        self.sets = L.block("sets_in_play", g.num_sets)
        self.level_scale = [1.0 / g.level_total[lv] for lv in (LV_A, LV_B, LV_C)]
        # the draft_options block per round (1-7; the final's all 0): per option level A/B/C one-hot, keep k (x0.5)
        self.option_rows = [np.zeros(8, np.float32) for _ in range(FINAL_ROUND + 1)]
        for rnd in range(1, ROUNDS + 1):
            for i, (lv, k) in enumerate(g.draft_options(rnd)):
                self.option_rows[rnd][4 * i + lv - 1] = 1.0
                self.option_rows[rnd][4 * i + 3] = k * 0.5
        self.action_features = None
        if g.options["action_features"]:
            self.action_features = "action_features"
            self.features = L.block("action_features", g.num_actions, -np.inf, np.inf)

    def encode(self, state: ChallengersState, seat: int) -> np.ndarray:
        """Incremental: the state keeps per seat (``encoder_cache``) a ``SeatView``, the seat's last
        observation. The public blocks, which change only at public events (decks made public,
        trophies, tokens, the round), are rewritten by ``_write_public`` when the key of those events
        changes; the per-step entries (phase, own step, display, own deck, piles, turn marks, action
        features) are rewritten by ``_update`` where their inputs changed: a few stores instead of
        whole blocks. ``encode_full`` is the plain reference (the tests compare the two)."""
        # The rules count every public event (decks go public, trophies, tokens, the round, finalists,
        # sets and the bot's extra cards, the end): the count is the key of the public blocks.
        key = state.events
        cache = state.encoder_cache
        if cache is None:
            cache = state.encoder_cache = {}
        view = cache.get(seat)
        if view is None:
            view = cache[seat] = SeatView(self.size)
        if view.key != key:
            self._write_public(view, state, seat)
            view.key = key
        self._update(view, state, seat)
        return view.o.copy()

    def encode_full(self, state: ChallengersState, seat: int) -> np.ndarray:
        """The plain reference encoder: every block from the state, on a zero vector."""
        view = SeatView(self.size)
        self._write_public(view, state, seat)
        self._update(view, state, seat)
        return view.o

    def _update(self, view: SeatView, state: ChallengersState, seat: int) -> None:
        """Rewrite the per-step entries of ``view`` for the state, only where their inputs changed."""
        mv = view.mv
        ph = state.phase_id
        mine = state.seat == seat
        deckish = ph in DECKISH
        me_deciding = mine and ph in DECISIONS  # current_player() == seat, without the call
        # the phase entry: another seat's deck phase (and my own draws) read "waiting" (DRAW, 0.5);
        # my own decision, the end and the public chance steps of the match phase their phase (1.0)
        at = self.waiting if (deckish or ph == P_FINAL_REMOVE) and not me_deciding else self.phase + ph
        if at != view.at:
            if view.at >= 0:
                mv[view.at] = 0.0
            mv[at] = 0.5 if at == self.waiting else 1.0
            view.at = at
        own = deckish and mine
        step = (state.option, state.picks, state.redraw) if own else NO_STEP
        was = view.step
        if step != was:  # option chosen 1/2, picks left (x0.5), redraw used: the entries that changed
            b = self.step
            if step[0] != was[0]:
                mv[b] = float(step[0] == 0)
                mv[b + 1] = float(step[0] == 1)
            if step[1] != was[1]:
                mv[b + 2] = step[1] * 0.5
            if step[2] != was[2]:
                mv[b + 3] = float(step[2])
            view.step = step
        display = state.display if own and ph in SHOWING else BLANK_DISPLAY
        if display != view.display:
            for slot, was_t, t in zip(self.slots, view.display, display):
                if was_t != t:
                    if was_t >= 0:
                        mv[slot + was_t] = 0.0
                    if t >= 0:
                        mv[slot + t] = 1
            view.display = display[:]
        rev = state.deck_rev[seat]
        if rev != view.deck_rev:  # my deck changed (the rules count its changes and name the latest)
            deck = state.decks[seat]
            t = state.deck_last[seat]
            if rev == view.deck_rev + 1 and t >= 0:  # one change since: one entry
                if t < self.T:
                    mv[self.my_deck + t] = deck[t] * 0.25
                view.deck[t] = deck[t]
            elif view.deck:  # the types whose count changed (found by C-level iteration)
                for t in compress(range(self.T), map(ne, view.deck, deck)):
                    mv[self.my_deck + t] = deck[t] * 0.25
                view.deck = deck[:]
            else:  # counts < 256: x0.25 by table, exact in float32
                view.o[self.my_deck : self.my_deck + self.T] = QUARTERS[np.frombuffer(bytes(deck[: self.T]), np.uint8)]
                view.deck = deck[:]
            view.deck_rev = rev
        pile = state.pile_size  # sizes as a share of the level (entries LV_A..LV_C)
        if pile != view.pile:
            was_p, sc, b = view.pile, self.level_scale, self.piles
            if pile[LV_A] != was_p[LV_A]:
                mv[b] = pile[LV_A] * sc[0]
            if pile[LV_B] != was_p[LV_B]:
                mv[b + 1] = pile[LV_B] * sc[1]
            if pile[LV_C] != was_p[LV_C]:
                mv[b + 2] = pile[LV_C] * sc[2]
            view.pile = pile[:]
        discard = state.discard_size
        if discard != view.discard:
            was_d, sc, b = view.discard, self.level_scale, self.piles + 3
            if discard[LV_A] != was_d[LV_A]:
                mv[b] = discard[LV_A] * sc[0]
            if discard[LV_B] != was_d[LV_B]:
                mv[b + 1] = discard[LV_B] * sc[1]
            if discard[LV_C] != was_d[LV_C]:
                mv[b + 2] = discard[LV_C] * sc[2]
            view.discard = discard[:]
        turn = ((state.round - 1) % state.num_players, state.turn) if deckish else (0, 0)  # public: the turn
        if turn != view.turn:  # who has had their deck phase this round, seat-relative
            n = state.num_players
            (was_first, was_done), (first, done) = view.turn, turn
            for k in range(n):
                mark = (seat + k - first) % n < done
                if mark != ((seat + k - was_first) % n < was_done):
                    mv[self.seats + k * self.per + 8] = float(mark)
            view.turn = turn
        if self.action_features is not None and (me_deciding or view.feats):
            f = self.features
            view.o[f : f + self.game.num_actions] = action_features(state, seat) if me_deciding else 0.0
            view.feats = me_deciding

    def _write_public(self, view: SeatView, state: ChallengersState, seat: int) -> None:
        """(Re)write every block but the per-step entries: round, players, draft options, public
        decks, the bot, the seats, the sets in play. Numbers are computed as Python floats and rounded
        to float32 on the write. Each block is rewritten only where it differs from what ``view`` last
        wrote (the round's blocks when the round changed; between two rounds a deck changes by a few
        cards)."""
        g = self.game
        o, mv = view.o, view.mv
        T = self.T
        n = state.num_players
        rnd = state.round
        if rnd != view.rnd:  # the round, its draft options (and, the first time, the player count)
            if view.rnd:
                mv[self.rnd + view.rnd - 1] = 0.0
            else:
                mv[self.players + n - 1] = 1
            mv[self.rnd + rnd - 1] = 1
            view.rnd = rnd
            o[self.options : self.options + 8] = self.option_rows[rnd]
        for k in range(n):  # the public decks, me first (x0.25)
            deck = state.public[(seat + k) % n]
            was = view.public[k]
            if deck != was:
                at = self.public + k * T
                if k == 0 and deck == view.deck[:T]:  # my public deck is my deck as written: a block copy
                    o[at : at + T] = o[self.my_deck : self.my_deck + T]
                elif was:  # the types whose count changed (found by C-level iteration)
                    for t in compress(range(T), map(ne, was, deck)):
                        mv[at + t] = deck[t] * 0.25
                else:  # counts < 256: x0.25 by table, exact in float32
                    o[at : at + T] = QUARTERS[np.frombuffer(bytes(deck), np.uint8)]
                view.public[k] = deck[:]
        bot = state.bot
        if bot >= 0 and view.bot != (state.deck_rev[bot], rnd):  # its deck (x0.25) and its powers this round
            o[self.bot : self.bot + self.TA] = QUARTERS[np.frombuffer(bytes(state.decks[bot]), np.uint8)]
            pw = g.power[rnd]
            o[self.bot + self.TA : self.bot + self.TA + 5] = [pw[t] * 0.1 for t in (*g.bot_types, g.ace_type)]
            view.bot = (state.deck_rev[bot], rnd)
        visible = state.trophies_visible(seat)
        # per participant (the rules keep them): trophies won, the latest round won, the sum of the
        # rounds won, fans (tokens and trophy values); the trophies removed with the bot
        tokens, won, top, tot, fans = state.tokens, state.won, state.won_top, state.won_rounds, state.won_fans
        pairs = state.pairs() if rnd <= ROUNDS or len(state.finalists) == 2 else []
        opp = -1
        for a, b in pairs:
            if a == seat:
                opp = b
            elif b == seat:
                opp = a
        fin = state.finalists
        for k in range(SEATS + 1):  # the seats in use: me first, then in seat order, the bot last
            if k < n:
                q = (seat + k) % n
            elif k == SEATS and bot >= 0:
                q = bot
            else:
                continue
            vals = (
                1.0,
                tokens[q] * 0.1,
                state.won_removed / ROUNDS if k == SEATS and n > 1 else won[q] / ROUNDS,
                top[q] / ROUNDS,
                tot[q] / 28,
                (tokens[q] + fans[q]) * 0.02 if visible or q == seat else 0.0,
                float(q == opp),
                float(q in fin),
                sum(state.public[q]) * 0.05 if q < n else sum(state.decks[q]) * 0.05,
            )  # entry 8 (deck phase done this round) is a per-step entry (_update): vals[8] goes to 9
            old = view.rows[k]
            if vals != old:
                b = self.seats + k * self.per
                if old:  # the entries that changed
                    for j in range(8):
                        if vals[j] != old[j]:
                            mv[b + j] = vals[j]
                    if vals[8] != old[8]:
                        mv[b + 9] = vals[8]
                else:
                    for j in range(8):
                        mv[b + j] = vals[j]
                    mv[b + 9] = vals[8]
                view.rows[k] = vals
        if state.in_play != view.in_play:
            for i, on in enumerate(state.in_play):
                mv[self.sets + i] = float(on)
            view.in_play = state.in_play[:]


def action_features(state: ChallengersState, seat: int) -> np.ndarray:
    """One 1-ply number per action (x0.1): a pick's card value; a removal's negative value (a
    starter Newcomer-like weak card is worth removing); 0 for the rest and for illegal actions."""
    g = state.game
    f = np.zeros(g.num_actions, np.float32)
    mask = state.legal_mask()
    rnd = min(state.round, ROUNDS)
    if state.phase_id == Phase.PICK:
        for i, t in enumerate(state.display):
            if t >= 0 and mask[A_PICK + i]:
                f[A_PICK + i] = card_value(g, t, rnd) * 0.1
    elif state.phase_id in (Phase.REMOVE, Phase.FINAL_REMOVE):
        deck = state.decks[seat]
        avg = sum(card_value(g, t, rnd) * deck[t] for t in range(g.num_types)) / max(1, sum(deck))
        for t in range(g.num_types):
            if mask[A_REMOVE + t]:
                f[A_REMOVE + t] = (avg - card_value(g, t, rnd)) * 0.1
    return f
