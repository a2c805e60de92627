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
    REMOVED,
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
        self.at = (-1, 0.0)  # (index, value) of the phase entry (-1: none)
        self.step: tuple[int, int, bool] | None = None  # (option, picks left, redraw used) in my deck phase
        self.display = BLANK_DISPLAY  # my display while it shows, else all -1
        self.deck: list[int] = []  # my deck ([]: not written)
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
        self.rnd = L.block("round", FINAL_ROUND)  # one-hot, 8 = the final
        self.players = L.block("players", SEATS)  # one-hot player count 1..8
        self.step = L.block("my_step", 4, 0.0, [1, 1, 2.5, 1])  # option chosen 1/2, picks left (x0.5), redraw used
        self.options = L.block(
            "draft_options", 2 * 4, 0.0, [1, 1, 1, 2.5] * 2
        )  # per option: level A/B/C one-hot, keep k (x0.5)
        self.display = L.block("my_display", DISPLAY * T)  # one-hot card type per slot (my deck phase)
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
            self._write_public(view, state, seat, key)
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
        T = self.T
        ph = state.phase_id
        me_deciding = ph in DECISIONS and state.seat == seat  # current_player() == seat, without the call
        if me_deciding or ph == P_END:
            at = (self.phase + ph, 1.0)
        elif ph in DECKISH or ph == P_FINAL_REMOVE:
            at = (self.phase + P_DRAW, 0.5)  # another seat's deck phase: "waiting"
        else:
            at = (self.phase + ph, 1.0)  # chance steps of the match phase are public
        if at != view.at:
            if view.at[0] >= 0:
                mv[view.at[0]] = 0.0
            mv[at[0]] = at[1]
            view.at = at
        deckish = ph in DECKISH
        own = deckish and state.seat == seat
        step = (state.option, state.picks, state.redraw) if own else None
        if step != view.step:
            option, picks, redraw = (-1, 0, False) if step is None else step
            mv[self.step] = float(option == 0)
            mv[self.step + 1] = float(option == 1)
            mv[self.step + 2] = picks * 0.5
            mv[self.step + 3] = float(redraw)
            view.step = step
        display = state.display if own and ph in SHOWING else BLANK_DISPLAY
        if display != view.display:
            for i, (was, t) in enumerate(zip(view.display, display)):
                if was != t:
                    if was >= 0:
                        mv[self.display + i * T + was] = 0.0
                    if t >= 0:
                        mv[self.display + i * T + t] = 1
            view.display = display[:]
        deck = state.decks[seat]
        if deck != view.deck:
            if view.deck:  # the types whose count changed (found by C-level iteration)
                for t in compress(range(T), map(ne, view.deck, deck)):
                    mv[self.my_deck + t] = deck[t] * 0.25
            else:  # counts < 256: x0.25 by table, exact in float32
                view.o[self.my_deck : self.my_deck + T] = QUARTERS[np.frombuffer(bytes(deck[:T]), np.uint8)]
            view.deck = deck[:]
        pile, discard = state.pile_size, state.discard_size
        if pile != view.pile or discard != view.discard:  # sizes as a share of the level
            for i, lv in enumerate((LV_A, LV_B, LV_C)):
                if pile[lv] != view.pile[lv]:
                    mv[self.piles + i] = pile[lv] * self.level_scale[i]
                if discard[lv] != view.discard[lv]:
                    mv[self.piles + 3 + i] = discard[lv] * self.level_scale[i]
            view.pile, view.discard = pile[:], discard[:]
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

    def _write_public(self, view: SeatView, state: ChallengersState, seat: int, key: int | None = None) -> None:
        """(Re)write every block but the per-step entries: round, players, draft options, public
        decks, the bot, the seats, the sets in play. Numbers are computed as Python floats and rounded
        to float32 on the write. The public decks and the seats' rows are rewritten where they differ
        from what ``view`` last wrote (between two rounds a deck changes by a few cards)."""
        g = self.game
        o, mv = view.o, view.mv
        T = self.T
        n = state.num_players
        if view.rnd:  # the round written last
            mv[self.rnd + view.rnd - 1] = 0.0
        mv[self.rnd + state.round - 1] = 1
        view.rnd = state.round
        mv[self.players + n - 1] = 1
        options = [0.0] * 8  # per option: level A/B/C one-hot, keep k (x0.5)
        if state.round <= ROUNDS:
            for i, (lv, k) in enumerate(g.draft_options(state.round)):
                options[4 * i + lv - 1] = 1.0
                options[4 * i + 3] = k * 0.5
        for i, x in enumerate(options):
            mv[self.options + i] = x
        for k in range(n):  # the public decks, me first (x0.25)
            deck = state.public[(seat + k) % n]
            was = view.public[k]
            if deck != was:
                at = self.public + k * T
                if was:  # the types whose count changed (found by C-level iteration)
                    for t in compress(range(T), map(ne, was, deck)):
                        mv[at + t] = deck[t] * 0.25
                else:  # counts < 256: x0.25 by table, exact in float32
                    o[at : at + T] = QUARTERS[np.frombuffer(bytes(deck), np.uint8)]
                view.public[k] = deck[:]
        bot = state.bot
        if bot >= 0:
            o[self.bot : self.bot + self.TA] = QUARTERS[np.frombuffer(bytes(state.decks[bot]), np.uint8)]
            pw = g.power[state.round]
            o[self.bot + self.TA : self.bot + self.TA + 5] = [pw[t] * 0.1 for t in (*g.bot_types, g.ace_type)]
        visible = state.trophies_visible(seat)
        cnt, top, tot, fans, removed = self._trophy_stats(state, key)
        pairs = state.pairs() if state.round <= ROUNDS or len(state.finalists) == 2 else []
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
                state.tokens[q] * 0.1,
                removed / ROUNDS if k == SEATS and n > 1 else cnt[q] / ROUNDS,
                top[q] / ROUNDS,
                tot[q] / 28,
                fans[q] * 0.02 if visible or q == seat else 0.0,
                float(q == opp),
                float(q in fin),
                sum(state.public[q]) * 0.05 if q < n else sum(state.decks[q]) * 0.05,
            )  # entry 8 (deck phase done this round) is a per-step entry (_update): vals[8] goes to 9
            if vals != view.rows[k]:
                b = self.seats + k * self.per
                for j in range(8):
                    mv[b + j] = vals[j]
                mv[b + 9] = vals[8]
                view.rows[k] = vals
        for i, on in enumerate(state.in_play):
            mv[self.sets + i] = float(on)

    def _trophy_stats(
        self, state: ChallengersState, key: int | None
    ) -> tuple[list[int], list[int], list[int], list[int], int]:
        """Per participant: trophies won, the latest round won, the sum of rounds won, fans (tokens
        and trophy values); and the trophies removed with the bot. The same for every seat: kept in
        the state's encoder cache under the public-event key (None: not cached)."""
        cache = state.encoder_cache if key is not None else None
        got = cache.get("trophies") if cache is not None else None
        if got is not None and got[0] == key:
            return got[1]
        P = state.P
        cnt, top, tot, fans = [0] * P, [0] * P, [0] * P, list(state.tokens)
        removed = 0
        values = self.game.trophies
        for r, row in enumerate(state.trophies):
            for j, w in enumerate(row):
                if w >= 0:
                    cnt[w] += 1
                    top[w] = r + 1
                    tot[w] += r + 1
                    fans[w] += values[r][j]
                elif w == REMOVED:
                    removed += 1
        stats = (cnt, top, tot, fans, removed)
        if cache is not None:
            cache["trophies"] = (key, stats)
        return stats


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
