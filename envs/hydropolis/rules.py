"""Hydropolis (``hydropolis_v0``): all players build one shared pipe network of upright cards.

Rules: ``../shared/rules/hydropolis.md`` (rule IDs HY-R1..R26, variants HY-V1..V5); the users'
version with every choice made here is RULES.md beside this module.

Chance is dealt card by card: every draw (the deal, the start card, each turn's draw) is a chance
node whose outcome is the drawn card *type*, with probability proportional to the copies left in
the draw pile, so the pile never needs a hidden order. The start player is one more chance node.

Version history:
    v0: first release (before any release: the optional action-feature block).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State
from .components import (CAP, CARD_PLANES, DIRS, NONE, PIPE, TARGET_PLANE, Deck, Geometry, geometry,
                         parse_table_size)

START_HAND = 3          # HY-R2
WRENCH_POINTS = 15      # HY-V1
WRENCHES_TO_WIN = 3     # HY-V1
OVERLAY_BONUS = 5       # HY-R19
ACTION_POINTS_SCALE = 0.1   # observation: action_points() x this
SEAT_SLOTS = 6          # observation: per-seat blocks (max players)
SEAT_FEATURES = 4       # present, score, hand size, wrenches

# phases
DEAL, START_CARD, START_PLAYER, PLAY, PLACE, DRAW, OVER = range(7)
PHASE_NAMES = ("deal", "start_card", "start_player", "play", "place", "draw", "over")


class HydropolisGame(Game):
    """Hydropolis under one option set.

    Actions: the spec's two-step factorisation (section 6): first the card, ``type * 2 + rotation``
    (``2 * types`` actions, rotation 1 = 180 degrees), then its cell, ``2 * types + cell``
    (``cells`` actions), plus ``pass`` as the last index: 2 * 31 + 165 + 1 = 228 actions for the
    default deck and 15 x 11 table. A card is only selectable when it has a legal cell, so the
    second step never dead-ends; every distinct play is exactly one (card, cell) pair.
    """

    env_id = "hydropolis_v0"
    name = "Hydropolis"
    version = 0
    min_players = 1          # one player = solo score attack (HY-V5)
    max_players = 6
    default_players = 2
    options_spec = {
        "wrench": Option(False, "HY-V1: 15+ points in one turn earns a wrench; 3 wrenches win at once"),
        "target_score": Option(0, "HY-V2/HY-R22: a total that ends the game at once (0 = none)", type=int),
        "overlay_scoring": Option("bonus_plus_placement", "HY-V3: covering a leaky card scores 5 plus "
                                  "placement points, or exactly 5",
                                  choices=("bonus_plus_placement", "bonus_only")),
        "table_size": Option("15x11", "HY-V4: table edge, 'COLSxROWS' (3..31 each)", type=str),
        "deck": Option("waterworks_88", "HY-V4: deck data file (name of deck_<name>.json or a .json path)",
                       type=str),
        "solo": Option(False, "HY-V5: solo score attack (requires num_players=1; one player is always solo)"),
        "action_features": Option(False, "observation ends with the points each legal action scores now "
                                  "(one float per action); slower"),
    }
    score_scale = 0.002
    simultaneous = False
    conformance_options = [
        {},
        {"wrench": True, "target_score": 60},
        {"overlay_scoring": "bonus_only", "table_size": "7x5", "action_features": True},
        {"action_features": True},
    ]

    def __init__(self, **options: Any):
        super().__init__(**options)
        geo = self.geo
        self.deck: Deck = geo.deck
        self.num_types = T = self.deck.num_types
        self.num_cells = C = geo.num_cells
        self.cell_base = 2 * T
        self.pass_action = 2 * T + C
        self.num_actions = self.pass_action + 1
        # observation layout: table planes | own hand | unseen | selected card | tail
        self.obs_table = C * CARD_PLANES
        self.obs_selected = self.obs_table + 2 * T
        self.obs_tail = self.obs_selected + 2 * T
        self.obs_passes = self.obs_tail + 1 + SEAT_SLOTS * SEAT_FEATURES
        self.observation_size = self.obs_passes + 1 + SEAT_SLOTS
        # option action_features: a last block with one feature per action, the points that
        # action's play scores now (``HydropolisState.action_points``), for the seat to move only
        self.action_feature_offset = None
        if self.options["action_features"]:
            self.action_feature_offset = self.observation_size
            self.observation_size += self.num_actions
        # seat-relative order of the per-seat blocks: index arrays per (players, seat)
        self._perm: dict[int, list[np.ndarray]] = {}

        self.wrench = bool(self.options["wrench"])
        self.target = int(self.options["target_score"])
        self.bonus_only = self.options["overlay_scoring"] == "bonus_only"
        self.deck_counts = np.array(self.deck.counts, dtype=np.int16)
        self.leaky = self.deck.leaky
        self.colour = self.deck.colour

    def seat_perm(self, n: int) -> list[np.ndarray]:
        if n not in self._perm:
            b = self.obs_tail + 1
            self._perm[n] = [np.array([b + ((seat + i) % n) * SEAT_FEATURES + j for i in range(n)
                                       for j in range(SEAT_FEATURES)], dtype=np.int64) for seat in range(n)]
        return self._perm[n]

    def check_options(self) -> None:
        if self.options["target_score"] < 0:
            raise ConfigError(f"option target_score={self.options['target_score']} must be >= 0 (0 = none)")
        cols, rows = parse_table_size(self.options["table_size"])
        self.geo: Geometry = geometry(self.options["deck"], cols, rows)
        if self.geo.deck.total < 2:
            raise ConfigError(f"option deck={self.options['deck']!r}: the deck is too small")

    def check_players(self, num_players: int) -> None:
        super().check_players(num_players)
        if self.options["solo"] and num_players != 1:
            raise ConfigError(f"option solo=True needs num_players=1, got num_players={num_players}")
        if self.geo.deck.total < START_HAND * num_players + 1:
            raise ConfigError(f"option deck={self.options['deck']!r} has {self.geo.deck.total} cards, "
                              f"too few for num_players={num_players}")

    def new_initial_state(self, num_players: int) -> "HydropolisState":
        self.check_players(num_players)
        return HydropolisState(self, int(num_players))

    def _state_from_dict(self, data: dict) -> "HydropolisState":
        s = HydropolisState(self, int(data["num_players"]))
        s.phase_id = PHASE_NAMES.index(data["phase"])
        s.deal_left = int(data["deal_left"])
        s.to_move = int(data["to_move"])
        s.selected = int(data["selected"])
        s.hands = np.array(data["hands"], dtype=np.int16).reshape(s.num_players, self.num_types)
        s.hand_sizes = [int(x) for x in s.hands.sum(axis=1)]
        s.pile = [int(x) for x in data["pile"]]
        s.pile_size = sum(s.pile)
        s.cell_t = [int(x) for x in data["cell_type"]]
        s.cell_r = [int(x) for x in data["cell_rot"]]
        s.covered = np.array(data["covered"], dtype=np.int16)
        s.score = [int(x) for x in data["scores"]]
        s.wrenches = [int(x) for x in data["wrenches"]]
        s.passes = int(data["passes"])
        s.wrench_winner = int(data["wrench_winner"])
        s.history = [tuple(int(v) for v in h) for h in data["history"]]
        s._rebuild()
        return s

    # ------------------------------------------------------------------ actions
    def card_action(self, t: int, rot: int) -> int:
        """First step: select card type ``t`` in rotation ``rot`` (0, or 1 = 180 degrees)."""
        return 2 * t + rot

    def cell_action(self, cell: int) -> int:
        """Second step: lay the selected card on ``cell`` (index ``row * cols + col``)."""
        return self.cell_base + cell

    def cell_name(self, cell: int) -> str:
        r, c = divmod(cell, self.geo.cols)
        return f"c{c}r{r}"

    def play_name(self, t: int, cell: int, rot: int) -> str:
        return f"{self.deck.type_name(t)} {180 if rot else 0}deg at {self.cell_name(cell)}"

    def renderer(self):
        from .render import render_rgb
        return render_rgb

    def heuristic_bot(self, seat: int, seed: int | None = None):
        from ..core.bots import HeuristicBot
        from .bot import policy
        return HeuristicBot(policy, seed, name="hydropolis-greedy")


class HydropolisState(State):
    """One Hydropolis position.

    Public: the table (type and rotation per cell), covered cards, scores, wrenches, hand sizes,
    draw pile size, pass counter, the history of turns and the card the player to move selected.
    Private: each hand (counts per type). Hidden: the draw pile (a multiset; draws are chance nodes).
    """

    def __init__(self, game: HydropolisGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        T, C = game.num_types, game.num_cells
        self.phase_id = DEAL
        self.deal_left = START_HAND * n          # HY-R2
        self.to_move = 0
        self.selected = -1                       # type * 2 + rotation chosen in the first step
        self.hands = np.zeros((n, T), dtype=np.int16)
        self.hand_sizes = [0] * n
        self.pile = list(game.deck.counts)      # HY-R1: the whole deck, shuffled by drawing at random
        self.pile_size = sum(self.pile)
        self.cell_t = [-1] * C                  # card type per cell, -1 = empty
        self.cell_r = [0] * C
        self.covered = np.zeros(T, dtype=np.int16)
        self.score = [0] * n
        self.wrenches = [0] * n
        self.passes = 0                          # HY-R21 consecutive-pass counter
        self.wrench_winner = -1
        # (seat, type, cell, rotation, points) of every turn; type -1 = a pass
        self.history: list[tuple[int, int, int, int, int]] = []
        self._mask = None
        self._rebuild()

    # ------------------------------------------------------------ derived data
    def _rebuild(self) -> None:
        """Recompute the derived table data (contexts, playable cells, planes) from scratch."""
        g = self.game
        C = g.num_cells
        self.ctx = [0] * C
        self.colctx = [0] * C                  # bit d: the neighbour on side d is copper
        nb8 = g.geo.nb8
        self.n8 = [sum(1 for nb in nb8[c] if self.cell_t[nb] >= 0) for c in range(C)]   # HY-R16
        self._afeat = None
        self._pcache = None
        self.cand: set[int] = set()
        # the public part of every observation, kept up to date incrementally: table planes and
        # the selected card; ``planes`` is a view into it
        self.buf = np.zeros(g.observation_size, dtype=np.float32)
        self.planes = self.buf[:g.obs_table].reshape(C, CARD_PLANES)
        if self.selected >= 0:
            self.buf[g.obs_selected + self.selected] = 1.0
        for p in range(self.num_players):
            self._sync(p)
        self.on_table = np.zeros(g.num_types, dtype=np.int16)
        for c in range(C):
            if self.cell_t[c] >= 0:
                self.on_table[self.cell_t[c]] += 1
                self._place(c, self.cell_t[c], self.cell_r[c], new=False)
        self._sync_private()
        self.hand_bits = [self._bits_of(p) for p in range(self.num_players)]

    def _sync(self, p: int) -> None:
        """Write seat ``p``'s public numbers, the pile size and the pass counter into ``buf``."""
        g = self.game
        buf = self.buf
        o = g.obs_tail
        buf[o] = self.pile_size / g.deck.total
        b = o + 1 + p * SEAT_FEATURES
        buf[b] = 1.0
        buf[b + 1] = self.score[p] * 0.01
        buf[b + 2] = self.hand_sizes[p] * 0.1
        buf[b + 3] = self.wrenches[p] / WRENCHES_TO_WIN
        buf[g.obs_passes] = self.passes / self.num_players

    def _sync_private(self) -> None:
        """Rebuild ``private[p]`` = [own hand | cards p has not seen] x 0.25 for every seat."""
        g = self.game
        unseen = g.deck_counts - self.on_table - self.covered
        own = self.hands.astype(np.float32)
        self.private = np.concatenate([own, unseen[None, :] - own], axis=1).astype(np.float32) * 0.25

    def _bits_of(self, p: int) -> int:
        return sum(3 << (2 * t) for t, k in enumerate(self.hands[p].tolist()) if k > 0)

    def _see(self, p: int, t: int) -> None:
        """Seat p takes a card of type t into its hand (observation bookkeeping)."""
        priv = self.private
        priv[p, t] += 0.25
        priv[p, self.game.num_types + t] -= 0.25

    def _place(self, c: int, t: int, r: int, new: bool = True) -> None:
        """Put card (t, r) on cell c and update the neighbours' contexts incrementally (``new``:
        the cell was empty, so the 8 cells around count one more card)."""
        geo = self.game.geo
        if new and self.cell_t[c] < 0:
            n8 = self.n8
            for nb in geo.nb8[c]:
                n8[nb] += 1
        self.cell_t[c] = t
        self.cell_r[c] = r
        slot = geo.slot[t][r]
        ctx, cand, cell_t, live, buf = self.ctx, self.cand, self.cell_t, geo.live_list, self.buf
        colctx, copper = self.colctx, self.game.colour[t]
        for d, nb in enumerate(geo.nb[c]):
            if nb < 0:
                continue
            opp = (d + 2) & 3                    # the neighbour sees this card on its opposite side
            shift = 2 * opp
            v = (ctx[nb] & ~(3 << shift)) | (slot[d] << shift)
            ctx[nb] = v
            colctx[nb] = (colctx[nb] & ~(1 << opp)) | (copper << opp)
            if cell_t[nb] < 0:                   # HY-R8: an empty cell a PIPE or CAP faces
                if live[v]:
                    if nb not in cand:
                        cand.add(nb)
                        buf[nb * CARD_PLANES + TARGET_PLANE] = 1.0
                elif nb in cand:                 # an overlay can close a pipe end
                    cand.discard(nb)
                    buf[nb * CARD_PLANES + TARGET_PLANE] = 0.0
        if self.game.leaky[t]:                   # HY-R9/R10: only a leaky card can be covered
            cand.add(c)
        else:
            cand.discard(c)
        buf[c * CARD_PLANES:(c + 1) * CARD_PLANES] = geo.card_rows[t, r]

    def playable(self, seat: int | None = None) -> np.ndarray:
        """bool (cells, types, 2): which card of ``seat``'s hand fits which cell (HY-R7-R15)."""
        g = self.game
        seat = self.to_move if seat is None else seat
        out = np.zeros((g.num_cells, g.num_types, 2), dtype=bool)
        cells = np.array(sorted(self.cand), dtype=np.int64)
        if len(cells):
            ctx = np.array([self.ctx[c] for c in cells], dtype=np.int64)
            out[cells] = g.geo.legal[ctx] & (self.hands[seat] > 0)[None, :, None]
        return out

    # ------------------------------------------------------------------ core API
    def current_player(self) -> int:
        ph = self.phase_id
        if ph == PLAY or ph == PLACE:
            return self.to_move
        if ph == OVER:
            return TERMINAL
        return CHANCE

    def phase(self) -> str:
        return PHASE_NAMES[self.phase_id]

    def _legal_mask(self) -> np.ndarray:
        g = self.game
        m = np.zeros(g.num_actions, dtype=np.int8)
        ctx = self.ctx
        if self.phase_id == PLACE:                     # second step: the cells the selected card fits
            ok = g.geo.legal_by_card[self.selected]
            base = g.cell_base
            for c in self.cand:
                if ok[ctx[c]]:
                    m[base + c] = 1
            return m
        lb = g.geo.legal_bits
        bits = 0
        for c in self.cand:                            # first step: cards with at least one legal cell
            bits |= lb[ctx[c]]                         # HY-R7, R8/R9, R11-R14
        bits &= self.hand_bits[self.to_move]
        if bits:
            while bits:
                low = bits & -bits
                m[low.bit_length() - 1] = 1
                bits ^= low
            return m
        m[-1] = 1                                      # HY-R3/R5: pass only when nothing else is legal
        return m

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.phase_id == START_PLAYER:
            n = self.num_players
            return [(s, 1.0 / n) for s in range(n)]
        if self.phase_id in (DEAL, START_CARD, DRAW):
            tot = self.pile_size
            return [(t, int(k) / tot) for t, k in enumerate(self.pile) if k > 0]
        return []

    def sample_chance(self, rng: np.random.Generator) -> int:
        if self.phase_id == START_PLAYER:
            return int(rng.integers(self.num_players))
        k = int(rng.random() * self.pile_size)
        for t, cnt in enumerate(self.pile):
            k -= cnt
            if k < 0:
                return t
        raise AssertionError("empty draw pile at a draw")  # pragma: no cover

    def is_legal_chance(self, outcome: Any) -> bool:
        if isinstance(outcome, (bool, np.bool_)) or not isinstance(outcome, (int, np.integer)):
            return False
        if self.phase_id == START_PLAYER:
            return 0 <= outcome < self.num_players
        if self.phase_id in (DEAL, START_CARD, DRAW):
            return 0 <= outcome < self.game.num_types and self.pile[outcome] > 0
        return False

    def _apply(self, a: int) -> None:
        p = self.to_move
        self._afeat = None
        self._step(a)
        if self.phase_id != PLACE:
            self._sync(p)

    def _step(self, a: int) -> None:
        ph = self.phase_id
        if ph == PLAY:
            if a == self.game.pass_action:
                self._pass()
            else:
                self.selected = a
                self.buf[self.game.obs_selected + a] = 1.0
                self.phase_id = PLACE
        elif ph == PLACE:
            t, r = divmod(self.selected, 2)
            self.buf[self.game.obs_selected + self.selected] = 0.0
            self.selected = -1
            self._play(t, a - self.game.cell_base, r)
        elif ph == DRAW:                        # HY-R4/R5: draw one card, then the next player
            self.pile[a] -= 1
            self.pile_size -= 1
            p = self.to_move
            self.hands[p, a] += 1
            self._see(p, a)
            self.hand_bits[p] |= 3 << (2 * a)
            self.hand_sizes[p] += 1
            self.to_move = (p + 1) % self.num_players
            self.phase_id = PLAY
        elif ph == DEAL:                        # HY-R2: three cards each, dealt round the table
            n = self.num_players
            seat = (START_HAND * n - self.deal_left) % n
            self.pile[a] -= 1
            self.pile_size -= 1
            self.hands[seat, a] += 1
            self._see(seat, a)
            self.hand_bits[seat] |= 3 << (2 * a)
            self.hand_sizes[seat] += 1
            self._sync(seat)
            self.deal_left -= 1
            if self.deal_left == 0:
                self.phase_id = START_CARD
        elif ph == START_CARD:                  # setup 3: top card face up, rotation 0, centre cell
            self.pile[a] -= 1
            self.pile_size -= 1
            self.on_table[a] += 1
            self.private[:, self.game.num_types + a] -= 0.25
            self._place(self.game.geo.centre, a, 0, new=True)
            self.phase_id = START_PLAYER
        elif ph == START_PLAYER:
            self.to_move = a
            self.phase_id = PLAY

    def points(self, t: int, cell: int, rot: int) -> int:
        """Points a play of (t, rot) on ``cell`` scores now (HY-R16 to HY-R19, HY-V3)."""
        return self._points(cell, 2 * t + rot)

    def _points(self, cell: int, tr: int) -> int:
        """:meth:`points` of card ``tr = 2 t + rot``: the cards in the 8 cells around (``n8``), one
        connection per side from the geometry's table (HY-R17, HY-R18, by the neighbours' facing
        edges and colours), and the overlay bonus (HY-R19, HY-V3)."""
        if self.cell_t[cell] >= 0:                         # HY-R19 overlay
            if self.game.bonus_only:
                return OVERLAY_BONUS                       # HY-V3 bonus_only
            extra = OVERLAY_BONUS
        else:
            extra = 0
        return self.n8[cell] + self.game.geo.conn_by_card[tr][self.ctx[cell] | self.colctx[cell] << 8] + extra

    def _pass(self) -> None:
        p = self.to_move
        n = self.num_players
        self.history.append((p, -1, -1, 0, 0))             # HY-R20: a pass scores 0
        if self.pile_size > 0:                             # HY-R5: pass and draw
            self.passes = 0
            self.phase_id = DRAW
            return
        self.passes += 1                                   # HY-R6/R21: pass with an empty pile
        if self.passes >= n:
            self.phase_id = OVER
        else:
            self.to_move = (p + 1) % n
            self.phase_id = PLAY

    def _play(self, t: int, cell: int, rot: int) -> None:
        g = self.game
        p = self.to_move
        pts = self.points(t, cell, rot)
        old = self.cell_t[cell]
        if old >= 0:                                       # HY-R9: the covered card leaves play
            self.covered[old] += 1
            self.on_table[old] -= 1
        self.hands[p, t] -= 1
        if self.hands[p, t] == 0:
            self.hand_bits[p] &= ~(3 << (2 * t))
        self.hand_sizes[p] -= 1
        self.on_table[t] += 1
        priv = self.private
        priv[p, t] -= 0.25                                # own hand -> table: still seen by p
        T = g.num_types
        for q in range(self.num_players):
            if q != p:
                priv[q, T + t] -= 0.25
        self._place(cell, t, rot)
        self.score[p] += pts
        self.passes = 0
        self.history.append((p, t, cell, rot, pts))
        if g.wrench and pts >= WRENCH_POINTS:
            self.wrenches[p] += 1
        # HY-R25: end checks in order: wrenches, target score, (passes: just reset), closed network
        if g.wrench and self.wrenches[p] >= WRENCHES_TO_WIN:
            self.wrench_winner = p
            self.phase_id = OVER
        elif g.target and self.score[p] >= g.target:
            self.phase_id = OVER
        elif not self.cand:                                # HY-R26: closed network
            self.phase_id = OVER
        elif self.pile_size > 0:                           # HY-R4
            self.phase_id = DRAW
        else:                                              # HY-R6: play on from the hands
            self.to_move = (p + 1) % self.num_players
            self.phase_id = PLAY

    # ------------------------------------------------------------ information
    def observation(self, seat: int) -> np.ndarray:
        """Seat-relative: table planes per cell (occupied, leaky, copper, pipe/cap per side N E S W,
        playable target), own hand counts, unseen card counts, the selected card (second step),
        pile size, per seat (me first) present/score/hand size/wrenches, passes, seat to move, and
        with option ``action_features`` the points of each legal action (for the seat to move only)."""
        g = self.game
        n = self.num_players
        out = self.buf.copy()                           # table planes and selected card
        o = g.obs_table
        out[o:g.obs_selected] = self.private[seat]      # own hand | cards this seat has not seen
        if seat:
            out[g.obs_tail + 1:g.obs_tail + 1 + n * SEAT_FEATURES] = self.buf[g.seat_perm(n)[seat]]
        if self.phase_id in (PLAY, PLACE, DRAW):
            out[g.obs_passes + 1 + (self.to_move - seat) % n] = 1.0
        if seat == self.to_move and self.phase_id in (PLAY, PLACE) and g.action_feature_offset is not None:
            idx, val = self._action_points_sparse()
            out[idx + g.action_feature_offset] = val * ACTION_POINTS_SCALE
        return out

    def action_points(self) -> np.ndarray:
        """Points (HY-R16 to HY-R19, HY-V3) each legal action of the seat to move leads to now, as
        float32 over the actions (0 for illegal ones): in the first step the best play of that card
        and rotation over its legal cells, in the second step the selected card on that cell
        (the observation's action features are these x ``ACTION_POINTS_SCALE``)."""
        g = self.game
        out = np.zeros(g.num_actions, dtype=np.float32)
        idx, val = self._action_points_sparse()
        out[idx] = val
        return out

    def _action_points_sparse(self) -> tuple[np.ndarray, np.ndarray]:
        """(actions, points) of the legal actions' points (see :meth:`action_points`), cached per state.
        A loop over the few candidate cells (plain Python beats numpy here)."""
        if self._afeat is not None:
            return self._afeat
        g = self.game
        geo = g.geo
        ctx, pts = self.ctx, self._points
        best: dict[int, int] = {}
        base = g.cell_base
        if self.phase_id == PLACE:
            tr = self.selected
            pc = self._pcache                   # this turn's first step already scored every cell
            if pc is not None and pc[0] == len(self.history) and tr in pc[1]:
                best = pc[1][tr]
            else:
                ok = geo.legal_by_card[tr]
                best = {base + c: pts(c, tr) for c in self.cand if ok[ctx[c]]}
        elif self.phase_id == PLAY:
            lb = geo.legal_bits
            hand = self.hand_bits[self.to_move]
            per: dict[int, dict[int, int]] = {}     # card -> {cell action: points}, for the second step
            for c in self.cand:
                bits = lb[ctx[c]] & hand
                while bits:
                    low = bits & -bits
                    bits ^= low
                    tr = low.bit_length() - 1
                    v = pts(c, tr)
                    if v > best.get(tr, -1):
                        best[tr] = v
                    per.setdefault(tr, {})[base + c] = v
            self._pcache = (len(self.history), per)
        self._afeat = (np.fromiter(best.keys(), dtype=np.int64, count=len(best)),
                       np.fromiter(best.values(), dtype=np.float32, count=len(best)))
        return self._afeat

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> "HydropolisState":
        """Re-deal the other hands (same sizes) and the draw pile from the cards ``seat`` has not
        seen. (Passes reveal that a hand had no legal play; the re-deal ignores that.)"""
        s = self.clone()
        others = [p for p in range(self.num_players) if p != seat]
        if not others:
            return s
        pool = np.array(self.pile, dtype=np.int64)
        for p in others:
            pool = pool + self.hands[p]
        reserved = -1
        if self.selected >= 0 and self.to_move != seat:  # the selected card is public
            reserved = self.selected // 2
            pool[reserved] -= 1
        cards = np.repeat(np.arange(self.game.num_types), pool)
        rng.shuffle(cards)
        i = 0
        T = self.game.num_types
        for p in others:
            k = self.hand_sizes[p] - (p == self.to_move and reserved >= 0)
            s.hands[p] = np.bincount(cards[i:i + k], minlength=T)
            if p == self.to_move and reserved >= 0:
                s.hands[p, reserved] += 1
            s.hand_bits[p] = s._bits_of(p)
            i += k
        s.pile = np.bincount(cards[i:], minlength=T).tolist()
        s._sync_private()
        s._mask = None
        s._afeat = None
        return s

    def scores(self) -> list[float]:
        return [float(x) for x in self.score]

    def winners(self) -> list[int]:
        if self.wrench_winner >= 0:                        # HY-V1: three wrenches win regardless of points
            return [self.wrench_winner]
        best = max(self.score)                             # HY-R23: shared win on a tie
        return [i for i, v in enumerate(self.score) if v == best]

    def action_to_string(self, a: Any) -> str:
        g = self.game
        a = int(a)
        ph = self.phase_id
        if ph == START_PLAYER:
            return f"start player {a}"
        if ph in (DEAL, START_CARD, DRAW):
            return f"draw {g.deck.type_name(a)}"
        if a == g.pass_action:
            return "pass"
        if a < g.cell_base:
            t, r = divmod(a, 2)
            return f"select {g.deck.type_name(t)} {180 if r else 0}deg"
        cell = a - g.cell_base
        what = " (cover leaky)" if self.cell_t[cell] >= 0 else ""
        if ph == PLACE:
            t, r = divmod(self.selected, 2)
            return f"lay {g.play_name(t, cell, r)}{what}"
        return f"lay at {g.cell_name(cell)}{what}"

    # ------------------------------------------------------------ copies
    def clone(self) -> "HydropolisState":
        s = HydropolisState.__new__(HydropolisState)
        s.__dict__.update(self.__dict__)
        s.hands = self.hands.copy()
        s.hand_sizes = list(self.hand_sizes)
        s.pile = list(self.pile)
        s.cell_t = list(self.cell_t)
        s.cell_r = list(self.cell_r)
        s.covered = self.covered.copy()
        s.score = list(self.score)
        s.wrenches = list(self.wrenches)
        s.history = list(self.history)
        s.ctx = list(self.ctx)
        s.colctx = list(self.colctx)
        s.n8 = list(self.n8)
        s.cand = set(self.cand)
        s.buf = self.buf.copy()
        s.planes = s.buf[:self.game.obs_table].reshape(self.planes.shape)
        s.on_table = self.on_table.copy()
        s.private = self.private.copy()
        s.hand_bits = list(self.hand_bits)
        return s

    def _to_dict(self) -> dict:
        return {
            "num_players": self.num_players, "phase": PHASE_NAMES[self.phase_id],
            "deal_left": self.deal_left, "to_move": self.to_move, "selected": self.selected,
            "hands": self.hands.tolist(), "pile": list(self.pile),
            "cell_type": list(self.cell_t), "cell_rot": list(self.cell_r),
            "covered": self.covered.tolist(), "scores": list(self.score), "wrenches": list(self.wrenches),
            "passes": self.passes, "wrench_winner": self.wrench_winner,
            "history": [list(h) for h in self.history],
        }

    def check_invariants(self) -> None:
        g = self.game
        n = self.num_players
        geo = g.geo
        table = np.zeros(g.num_types, dtype=np.int64)
        for t in self.cell_t:
            if t >= 0:
                table[t] += 1
        pile = np.array(self.pile, dtype=np.int64)
        assert (self.hands >= 0).all() and (pile >= 0).all() and (self.covered >= 0).all()
        # every card in exactly one place: hands + pile + table + covered = deck
        tot = self.hands.sum(axis=0) + pile + table + self.covered
        assert (tot == g.deck_counts).all(), f"cards not conserved: {tot.tolist()}"
        assert (table == self.on_table).all()
        assert self.hand_sizes == self.hands.sum(axis=1).tolist()
        assert self.pile_size == sum(self.pile)
        # table: the start card plus one card per play, minus the covered ones
        plays = [h for h in self.history if h[1] >= 0]
        if self.phase_id >= START_PLAYER:
            assert self.cell_t[geo.centre] >= 0
            assert int(table.sum()) == 1 + len(plays) - int(self.covered.sum())
        # scores consistent with the history of plays (HY-R16-R20) and wrenches (HY-V1)
        for p in range(n):
            assert self.score[p] == sum(h[4] for h in self.history if h[0] == p)
            won = sum(1 for h in plays if h[0] == p and h[4] >= WRENCH_POINTS) if g.wrench else 0
            assert self.wrenches[p] == won
        if self.phase_id == PLACE:
            t = self.selected // 2
            assert self.hands[self.to_move, t] > 0
        else:
            assert self.selected == -1
        # every facing pair on the table is compatible (HY-R11)
        for c, t in enumerate(self.cell_t):
            if t < 0:
                continue
            for d, nb in enumerate(geo.nb[c]):
                if nb < 0 or self.cell_t[nb] < 0:
                    continue
                e = g.deck.edges[t][self.cell_r[c]][d]
                f = g.deck.edges[self.cell_t[nb]][self.cell_r[nb]][(d + 2) & 3]
                assert not (e == CAP and f == CAP), f"cap meets cap at {g.cell_name(c)} {DIRS[d]}"
                assert not ((e == PIPE) != (f == PIPE) and NONE in (e, f)), \
                    f"pipe dead end at {g.cell_name(c)} {DIRS[d]}"
        # the incremental data equals a fresh rebuild
        fresh = self.clone()
        fresh._rebuild()
        assert fresh.ctx == self.ctx and fresh.cand == self.cand and fresh.hand_bits == self.hand_bits
        assert fresh.colctx == self.colctx and fresh.n8 == self.n8
        assert (fresh.buf == self.buf).all() and (fresh.private == self.private).all()
        assert 0 <= self.passes <= n
        assert self.phase_id not in (PLAY, PLACE) or 0 <= self.to_move < n

    def __str__(self) -> str:
        from .render import render_text
        return render_text(self)
