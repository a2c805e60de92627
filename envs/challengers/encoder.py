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

import numpy as np

from ..core.encoder import Encoder, Layout
from .rules import (
    A_PICK,
    A_REMOVE,
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
DECKISH = frozenset((Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE))
MATCHISH = frozenset((Phase.STARTER, Phase.REVEAL, Phase.TROPHY, Phase.END))
P_END, P_DRAW, P_FINAL_REMOVE = Phase.END, Phase.DRAW, Phase.FINAL_REMOVE
QUARTERS = np.arange(256, dtype=np.float32) * np.float32(0.25)  # copies (< 256) x 0.25
SHOWING = frozenset((Phase.DRAW, Phase.PICK, Phase.RECRUIT))


class Marks:
    """The inputs of one seat's per-step entries, as last written into its cached observation
    (copies: the state changes them in place)."""

    __slots__ = ("at", "step", "display", "deck", "sizes", "turn", "features")

    def __init__(self, at, step, display, deck, sizes, turn, features) -> None:  # type: ignore[no-untyped-def]
        self.at: tuple[int, float] = at  # (index, value) of the phase entry (-1: none yet)
        self.step: tuple[int, int, bool] | None = step  # (option, picks left, redraw used) in my deck phase
        self.display: list[int] = display  # my display while it shows, else all -1
        self.deck: list[int] = deck  # my deck's pool types
        self.sizes: list[int] = sizes  # pile sizes A/B/C then discard sizes A/B/C
        self.turn: tuple[int, int] = turn  # (first seat, deck phases done) this round; (0, 0) outside
        self.features: np.ndarray | None = features  # action features (seat to move, option on)


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
        self.level_scale = [1.0 / g.level_total[lv] for lv in (LV_A, LV_B, LV_C)] * 2
        self.action_features = None
        if g.options["action_features"]:
            self.action_features = "action_features"
            self.features = L.block("action_features", g.num_actions, -np.inf, np.inf)
        self.blank = Marks((-1, 0.0), None, [-1] * DISPLAY, [0] * T, [0] * 6, (0, 0), None)

    def encode(self, state: ChallengersState, seat: int) -> np.ndarray:
        """Incremental: the state keeps per seat (``encoder_cache``) the seat's last observation and
        the inputs of its per-step entries (``Marks``). The public blocks, which change only at public
        events (decks made public, trophies, tokens, the round), are rewritten by ``_write_public``
        when the key of those events changes; the per-step entries (phase, own step, display, own
        deck, piles, turn marks, action features) are rewritten by ``_write`` where their inputs
        changed: a few numpy writes instead of whole blocks. ``encode_full`` is the plain reference
        (the tests compare the two)."""
        ph = state.phase_id
        key = (
            state.round,
            ph in MATCHISH,
            ph == P_END,
            sum(state.tokens),
            28 - sum([row.count(-1) for row in state.trophies]),
            len(state.finalists),
            sum(state.in_play),
            state.bot_drawn,
        )
        cache = state.encoder_cache
        if cache is None:
            cache = state.encoder_cache = {}
        ent = cache.get(seat)
        if ent is None:
            o = np.zeros(self.size, np.float32)
            self._write_public(o, state, seat)
            old = self.blank
        else:
            o, old = ent[1], ent[2]
            if ent[0] != key:
                self._write_public(o, state, seat)
        marks = self._marks(state, seat)
        self._write(o, state, seat, old, marks)
        cache[seat] = (key, o, marks)
        return o.copy()

    def encode_full(self, state: ChallengersState, seat: int) -> np.ndarray:
        """The plain reference encoder: every block from the state, on a zero vector."""
        o = np.zeros(self.size, np.float32)
        self._write_public(o, state, seat)
        self._write(o, state, seat, self.blank, self._marks(state, seat))
        return o

    def _marks(self, state: ChallengersState, seat: int) -> Marks:
        """The inputs of ``seat``'s per-step entries, copied from the state."""
        ph = state.phase_id
        me_deciding = state.current_player() == seat
        if me_deciding or ph == P_END:
            at = (self.phase + ph, 1.0)
        elif ph in DECKISH or ph == P_FINAL_REMOVE:
            at = (self.phase + P_DRAW, 0.5)  # another seat's deck phase: "waiting"
        else:
            at = (self.phase + ph, 1.0)  # chance steps of the match phase are public
        deckish = ph in DECKISH
        own = deckish and state.seat == seat
        return Marks(
            at,
            (state.option, state.picks, state.redraw) if own else None,
            state.display[:] if own and ph in SHOWING else self.blank.display,
            state.decks[seat][: self.T],
            state.pile_size[LV_A : LV_C + 1] + state.discard_size[LV_A : LV_C + 1],
            ((state.round - 1) % state.num_players, state.turn) if deckish else (0, 0),  # public: the turn
            action_features(state, seat) if self.action_features is not None and me_deciding else None,
        )

    def _write(self, o: np.ndarray, state: ChallengersState, seat: int, old: Marks, new: Marks) -> None:
        """Rewrite the per-step entries of ``o`` (written for ``old``) for ``new``, only what changed;
        from ``self.blank`` on a zero vector this writes them all."""
        T = self.T
        if old.at != new.at:
            if old.at[0] >= 0:
                o[old.at[0]] = 0.0
            o[new.at[0]] = new.at[1]
        if old.step != new.step:
            o[self.step : self.step + 4] = 0.0
            if new.step is not None:
                option, picks, redraw = new.step
                if option >= 0:
                    o[self.step + option] = 1
                o[self.step + 2] = picks * 0.5
                o[self.step + 3] = float(redraw)
        if old.display != new.display:
            for i, (a, b) in enumerate(zip(old.display, new.display)):
                if a != b:
                    if a >= 0:
                        o[self.display + i * T + a] = 0.0
                    if b >= 0:
                        o[self.display + i * T + b] = 1
        if old.deck != new.deck:
            for t, (a, b) in enumerate(zip(old.deck, new.deck)):
                if a != b:
                    o[self.my_deck + t] = b * 0.25
        if old.sizes != new.sizes:  # pile and discard sizes, as a share of the level
            for i, (a, b) in enumerate(zip(old.sizes, new.sizes)):
                if a != b:
                    o[self.piles + i] = b * self.level_scale[i]
        if old.turn != new.turn:  # who has had their deck phase this round, seat-relative
            n = state.num_players
            (was_first, was_done), (first, done) = old.turn, new.turn
            for k in range(n):
                mark = (seat + k - first) % n < done
                if mark != ((seat + k - was_first) % n < was_done):
                    o[self.seats + k * self.per + 8] = float(mark)
        if old.features is not None or new.features is not None:
            f = self.features
            o[f : f + self.game.num_actions] = 0.0 if new.features is None else new.features

    def _write_public(self, o: np.ndarray, state: ChallengersState, seat: int) -> None:
        """(Re)write every block but the per-step entries: round, players, draft options, public
        decks, the bot, the seats, the sets in play. Numbers are computed as Python floats and rounded
        to float32 on the write; long blocks go in as one slice."""
        g = self.game
        T = self.T
        n = state.num_players
        o[self.rnd : self.rnd + FINAL_ROUND] = 0.0
        o[self.rnd + state.round - 1] = 1
        o[self.players + n - 1] = 1
        o[self.options : self.options + 8] = 0.0
        if state.round <= ROUNDS:
            for i, (lv, k) in enumerate(g.draft_options(state.round)):
                o[self.options + 4 * i + lv - 1] = 1
                o[self.options + 4 * i + 3] = k * 0.5
        # the public decks, me first (counts < 256: x0.25 by table, exact in float32)
        pub: list[int] = []
        for k in range(n):
            pub += state.public[(seat + k) % n]
        o[self.public : self.public + n * T] = QUARTERS[np.frombuffer(bytes(pub), np.uint8)]
        bot = state.bot
        if bot >= 0:
            o[self.bot : self.bot + self.TA] = QUARTERS[np.frombuffer(bytes(state.decks[bot]), np.uint8)]
            pw = g.power[state.round]
            o[self.bot + self.TA : self.bot + self.TA + 5] = [pw[t] * 0.1 for t in (*g.bot_types, g.ace_type)]
        visible = state.trophies_visible(seat)
        P = state.P
        cnt, top, tot, fans = [0] * P, [0] * P, [0] * P, list(state.tokens)
        removed = 0
        values = g.trophies
        for r, row in enumerate(state.trophies):
            for j, w in enumerate(row):
                if w >= 0:
                    cnt[w] += 1
                    top[w] = r + 1
                    tot[w] += r + 1
                    fans[w] += values[r][j]
                elif w == REMOVED:
                    removed += 1
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
            b = self.seats + k * self.per
            o[b : b + 8] = [
                1.0,
                state.tokens[q] * 0.1,
                removed / ROUNDS if k == SEATS and n > 1 else cnt[q] / ROUNDS,
                top[q] / ROUNDS,
                tot[q] / 28,
                fans[q] * 0.02 if visible or q == seat else 0.0,
                float(q == opp),
                float(q in fin),
            ]  # entry 8 (deck phase done this round) is a per-step entry (_write)
            o[b + 9] = sum(state.public[q]) * 0.05 if q < n else sum(state.decks[q]) * 0.05
        for i, on in enumerate(state.in_play):
            o[self.sets + i] = float(on)


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
