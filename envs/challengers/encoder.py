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
        self.level_weights = [(g.level_get[lv], 1.0 / g.level_total[lv]) for lv in (LV_A, LV_B, LV_C)]
        self.dynamic = [
            (self.phase, self.phase + len(Phase)),
            (self.step, self.step + 4),
            (self.display, self.display + DISPLAY * T),
            (self.my_deck, self.my_deck + T),
            (self.piles, self.piles + 6),
        ]
        self.action_features = None
        if g.options["action_features"]:
            self.action_features = "action_features"
            self.features = L.block("action_features", g.num_actions, -np.inf, np.inf)
            self.dynamic.append((self.features, self.features + g.num_actions))

    def encode(self, state: ChallengersState, seat: int) -> np.ndarray:
        """Incremental: the blocks that change only at public events (decks made public, trophies,
        tokens, the turn, the round) are cached per seat on the state under a key of those events;
        the rest (phase, own step, display, own deck, piles, action features) is written each call.
        ``encode_full`` is the plain reference (the tests compare the two)."""
        ph = state.phase_id
        trophies = state.trophies
        key = (
            state.round,
            ph in MATCHISH,
            ph == Phase.END,
            sum(state.tokens),
            28 - sum([row.count(-1) for row in trophies]),
            len(state.finalists),
            sum(state.in_play),
            state.bot_drawn,
        )
        cache = state.encoder_cache
        if cache is None:
            cache = state.encoder_cache = {}
        ent = cache.get(seat)
        if ent is None or ent[0] != key:
            base = self._full(state, seat)
            for a, b in self.dynamic:
                base[a:b] = [0.0] * (b - a)
            for k in range(SEATS):
                base[self.seats + k * self.per + 8] = 0.0
            ent = cache[seat] = (key, np.array(base, np.float32))
        o = ent[1].copy()
        self._dynamic(state, seat, o)
        return o

    def _dynamic(self, state: ChallengersState, seat: int, o: np.ndarray) -> None:
        g = self.game
        T = self.T
        ph = state.phase_id
        me_deciding = state.current_player() == seat
        if me_deciding or ph == P_END:
            o[self.phase + int(ph)] = 1
        elif ph in DECKISH or ph == P_FINAL_REMOVE:
            o[self.phase + int(P_DRAW)] = 0.5  # another seat's deck phase: "waiting"
        else:
            o[self.phase + int(ph)] = 1  # chance steps of the match phase are public
        if state.seat == seat and ph in DECKISH:
            if state.option >= 0:
                o[self.step + state.option] = 1
            o[self.step + 2] = state.picks * 0.5
            o[self.step + 3] = float(state.redraw)
            if ph in SHOWING:
                for i, t in enumerate(state.display):
                    if t >= 0:
                        o[self.display + i * T + t] = 1
        o[self.my_deck : self.my_deck + T] = QUARTERS[np.frombuffer(bytes(state.decks[seat][:T]), np.uint8)]
        pile, disc = state.pile, state.discard
        sizes = [sum(get(pile)) * w for get, w in self.level_weights]
        sizes += [sum(get(disc)) * w for get, w in self.level_weights]
        o[self.piles : self.piles + 6] = sizes
        if ph in DECKISH:  # who has had their deck phase this round (public: the turn)
            n = state.num_players
            first = (state.round - 1) % n
            for k in range(n):
                if (seat + k - first) % n < state.turn:
                    o[self.seats + k * self.per + 8] = 1
        if self.action_features is not None and me_deciding:
            o[self.features : self.features + g.num_actions] = action_features(state, seat)

    def encode_full(self, state: ChallengersState, seat: int) -> np.ndarray:
        """The plain reference encoder: every block from the state."""
        return np.array(self._full(state, seat), np.float32)

    def _full(self, state: ChallengersState, seat: int) -> list[float]:
        """Every block, as a Python list (one conversion to float32 at the end is cheaper than many
        small numpy writes)."""
        g = self.game
        T = self.T
        o = [0.0] * self.size
        n = state.num_players
        ph = state.phase_id
        me_deciding = state.current_player() == seat
        if me_deciding or ph in (Phase.END,):
            o[self.phase + int(ph)] = 1
        elif ph in (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE, Phase.FINAL_REMOVE):
            o[self.phase + int(Phase.DRAW)] = 0.5  # another seat's deck phase: "waiting"
        else:
            o[self.phase + int(ph)] = 1  # chance steps of the match phase are public
        o[self.rnd + state.round - 1] = 1
        o[self.players + n - 1] = 1
        rnd = min(state.round, ROUNDS)
        own_phase = state.seat == seat and ph in (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE)
        if own_phase:
            if state.option >= 0:
                o[self.step + state.option] = 1
            o[self.step + 2] = state.picks * 0.5
            o[self.step + 3] = float(state.redraw)
            if ph in (Phase.DRAW, Phase.PICK, Phase.RECRUIT):
                for i, t in enumerate(state.display):
                    if t >= 0:
                        o[self.display + i * T + t] = 1
        if state.round <= ROUNDS:
            for i, (lv, k) in enumerate(g.draft_options(rnd)):
                o[self.options + 4 * i + lv - 1] = 1
                o[self.options + 4 * i + 3] = k * 0.5
        # my deck then the public decks (me first) are adjacent blocks: one conversion (counts <= 64)
        pub = state.decks[seat][:T]
        for k in range(n):
            pub += state.public[(seat + k) % n]
        end = self.public + n * T
        o[self.my_deck : end] = [c * 0.25 for c in pub]
        bot = state.bot
        if bot >= 0:
            o[self.bot : self.bot + self.TA] = [c * 0.25 for c in state.decks[bot]]
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
        deck_phase = ph in (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE)
        done_turns = state.turn if deck_phase else 0
        blk = [0.0] * ((SEATS + 1) * self.per)
        fin = state.finalists
        for k in range(SEATS + 1):
            if k < n:
                q = (seat + k) % n
            elif k == SEATS and bot >= 0:
                q = bot
            else:
                continue
            b = k * self.per
            blk[b] = 1.0
            blk[b + 1] = state.tokens[q] * 0.1
            blk[b + 2] = cnt[q] / ROUNDS
            blk[b + 3] = top[q] / ROUNDS
            blk[b + 4] = tot[q] / 28
            if visible or q == seat:
                blk[b + 5] = fans[q] * 0.02
            blk[b + 6] = float(q == opp)
            blk[b + 7] = float(q in fin)
            if q < n and deck_phase:
                blk[b + 8] = float((q - (state.round - 1)) % n < done_turns)
            blk[b + 9] = sum(state.public[q]) * 0.05 if q < n else sum(state.decks[q]) * 0.05
        if bot >= 0 and n > 1:
            blk[SEATS * self.per + 2] = removed / ROUNDS
        o[self.seats : self.seats + len(blk)] = blk
        pile, disc = state.pile, state.discard
        for i, lv in enumerate((LV_A, LV_B, LV_C)):
            scale = 1.0 / g.level_total[lv]
            ts = g.level_types[lv]
            o[self.piles + i] = sum([pile[t] for t in ts]) * scale
            o[self.piles + 3 + i] = sum([disc[t] for t in ts]) * scale
        for i, on in enumerate(state.in_play):
            o[self.sets + i] = float(on)
        if self.action_features is not None and me_deciding:
            o[self.features : self.features + g.num_actions] = action_features(state, seat).tolist()
        return o


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
