"""Voll verplant / Metro X (``voll_verplant_v0``): the flip-and-write subway game, rules layer.

Each turn one card is revealed (a chance node dealing the next card from the unseen ones, VV-R4),
then every seat commits one action on its own sheet, simultaneously (VV-R10): in the AEC form the
seats commit one after another in seat order as hidden commits (``deciders()``), and nothing of a
commit is visible to the others until the last seat has chosen; ``parallel_env`` asks all of them
in one step. The turn is then resolved in the order of VV-R37.

Action space (Discrete 144, spec section 6): ``7*l + k`` = line ``l`` (0-9), ``k`` crosses (0-6)
for Number and Express cards; ``70 + l`` = line ``l`` for a Transfer card; ``80 + (id - 1)`` =
cross station ``id`` for a Free ride (80 alone means "nothing" on a full sheet).

Chance: the deck is dealt card by card (outcome = card kind index of the deck data, probability
= its share of the unseen cards), so there is no stored deck order to hide.

Version history: v0 first release.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..core.bots import HeuristicBot
from ..core.game import CHANCE, TERMINAL, Game, Option, State
from . import encoder as E
from .components import EXPRESS, FREE, MAX_LINES, MAX_STATIONS, NUMBER, TRANSFER, load_deck, load_map

NUM_ACTIONS = 144
A_TRANSFER = 70
A_FREE = 80
_RANGES = [[list(range(7 * li, 7 * li + k + 1)) for k in range(7)] for li in range(MAX_LINES)]
W_TRANSFER = 20   # window code of the transfer symbol; express v is 10 + v; number v is v


class VollVerplantGame(Game):
    """Voll verplant (Metro X), 1-6 players; see RULES.md."""

    env_id = "voll_verplant_v0"
    name = "Voll verplant (Metro X)"
    version = 0
    min_players = 1
    max_players = 6
    default_players = 4
    options_spec = {
        "penalty_rounding": Option("floor", "VV-V1: empty stations / 2 rounded down or up",
                                   choices=("floor", "ceil")),
        "allow_short_moves": Option(True, "VV-V2: cross fewer than the card value (official)"),
        "map": Option("metro1", "VV-V3: bundled map name (map_<name>.json) or a path to a map file",
                      type=str),
        "deck": Option("standard", "VV-V3: bundled deck name (deck_<name>.json) or a path to a deck file",
                       type=str),
        "observe_opponent_sheets": Option(True, "VV-V4: observations show the other sheets"),
    }
    score_scale = 1.0 / 50.0
    simultaneous = True
    conformance_options = [
        {},
        {"penalty_rounding": "ceil", "allow_short_moves": False, "observe_opponent_sheets": False},
    ]
    num_actions = NUM_ACTIONS
    observation_size = E.OBS_SIZE

    def check_options(self) -> None:
        self.map = load_map(self.options["map"])
        self.deck = load_deck(self.options["deck"])
        m, d = self.map, self.deck
        self.ceil_penalty = self.options["penalty_rounding"] == "ceil"
        self.short_moves = bool(self.options["allow_short_moves"])
        self.observe_others = bool(self.options["observe_opponent_sheets"])
        self.static_header = E.static_header(m)
        self.kind_class = [E.deck_class(t, v) for t, v in zip(d.kind_type, d.kind_value)]
        self._rot = {n: E.rotations(n) for n in range(1, self.max_players + 1)}
        self._hidden = {n: E.hidden_indices(n) for n in range(1, self.max_players + 1)}
        hist = np.zeros(15, dtype=np.float32)
        for k, c in enumerate(d.kind_count):
            hist[self.kind_class[k]] += c * 0.25
            if d.kind_shuffle[k]:
                hist[14] += c * 0.25
        self.full_deck_hist = hist

    # ---------------------------------------------------------------- api
    def new_initial_state(self, num_players: int) -> "VollVerplantState":
        self.check_players(num_players)
        return VollVerplantState(self, int(num_players))

    def state_from_dict(self, data: dict) -> "VollVerplantState":
        st = VollVerplantState(self, int(data["num_players"]))
        st._load(data)
        return st

    def renderer(self) -> Callable[[State], np.ndarray]:
        from .render import render_rgb
        return render_rgb

    def heuristic_bot(self, seat: int, seed: int | None = None) -> HeuristicBot:
        from .bot import policy
        return HeuristicBot(policy, seed, name="voll_verplant_heuristic")

    def penalty(self, empty: int) -> int:
        """VV-R34 / VV-V1: empty stations halved, rounded down (default) or up."""
        return (empty + 1) // 2 if self.ceil_penalty else empty // 2


class VollVerplantState(State):
    """One position: the deck, the revealed card, the pending commits and every sheet."""

    def __init__(self, game: VollVerplantGame, num_players: int, _blank: bool = False):
        self.game = game
        self.num_players = n = num_players
        self._mask = None
        if _blank:
            return
        m = game.map
        self.turn = 0
        self.card = -1                                   # revealed card kind, -1 before the reveal
        self.deck = list(game.deck.kind_count)           # unseen cards per kind (VV-R3)
        self.discard: list[int] = []                     # revealed since the last shuffle (VV-R5)
        self.cur = 0                                     # next seat to commit
        self.commits = [-1] * n                          # hidden until the turn resolves (VV-R10)
        self.first_gone = [False] * m.num_lines          # VV-R27/R28
        self.over = False
        # sheets (VV-R1: identical, empty)
        self.marks = [[0] * MAX_STATIONS for _ in range(n)]
        self.nums = [[0] * MAX_STATIONS for _ in range(n)]
        self.wins = [[[] for _ in range(m.num_lines)] for _ in range(n)]
        self.scored = [[0] * m.num_lines for _ in range(n)]   # 0 no, 1 first bonus, 2 other bonus
        self.last_card = -1
        self.last_actions: list[int] = []
        self.last_completed: list[list[int]] = [[] for _ in range(n)]
        self._derive()

    # ------------------------------------------------------- derived data
    def _derive(self) -> None:
        """Rebuild the caches (line stats, points, observation blocks) from the sheets."""
        g, m, n = self.game, self.game.map, self.num_players
        L = m.num_lines
        self.unm = [[0] * L for _ in range(n)]
        self.first = [[0] * L for _ in range(n)]
        self.run = [[0] * L for _ in range(n)]
        self.empty = [0] * n
        self.bonus = [0] * n
        self.tsum = [0] * n
        self.wused = [0] * n
        self.blk = np.zeros((n, E.BLOCK), dtype=np.float32)
        for p in range(n):
            mk, blk = self.marks[p], self.blk[p]
            for li in range(L):
                self._line_stat(p, li)
                self.unm[p][li] = sum(1 for s in m.line_st[li] if not mk[s])
            self.empty[p] = sum(1 for s in m.stations if not mk[s])
            for s in m.stations:
                if mk[s]:
                    blk[E.P_MARK + s] = 1.0
                if self.nums[p][s]:
                    blk[E.P_NUM + s] = self.nums[p][s] / 3.0
            self.tsum[p] = sum(self.nums[p])
            for li in range(L):
                blk[E.P_WUSED + li] = len(self.wins[p][li]) / 4.0
                sc = self.scored[p][li]
                if sc == 1:
                    self.bonus[p] += m.bonus_first[li]
                    blk[E.P_FIRST + li] = 1.0
                elif sc == 2:
                    self.bonus[p] += m.bonus_other[li]
                    blk[E.P_OTHER + li] = 1.0
            self.wused[p] = sum(len(w) for w in self.wins[p])
            blk[E.P_SCORE] = (self.bonus[p] + 2 * self.tsum[p]) / 50.0
            blk[E.P_EMPTY] = self.empty[p] / 64.0
            blk[E.P_PRESENT] = 1.0
        h = g.static_header.copy()
        self.header = h
        self._header_dynamic()

    def _header_dynamic(self) -> None:
        g, h = self.game, self.header
        d = g.deck
        h[:E.H_PLAYERS] = 0.0
        if self.card >= 0:
            h[E.H_TYPE + d.kind_type[self.card]] = 1.0
            h[E.H_VALUE] = d.kind_value[self.card] / 6.0
            h[E.H_SHUFFLE] = 1.0 if d.kind_shuffle[self.card] else 0.0
        hist = [0.0] * 15
        kc, ks = g.kind_class, d.kind_shuffle
        for k, c in enumerate(self.deck):
            if c:
                hist[kc[k]] += c * 0.25
                if ks[k]:
                    hist[14] += c * 0.25
        h[E.H_DECK:E.H_DECK + 15] = hist
        h[E.H_PROGRESS] = self.wused[0] / g.map.total_windows
        h[E.H_PLAYERS] = self.num_players / 6.0
        h[E.H_FIRST_GONE:E.H_FIRST_GONE + len(self.first_gone)] = self.first_gone

    def _line_stat(self, p: int, li: int) -> None:
        """First unmarked position and run of unmarked stations from it (VV-R13)."""
        st = self.game.map.line_st[li]
        mk = self.marks[p]
        ln = len(st)
        i = 0
        while i < ln and mk[st[i]]:
            i += 1
        j = i
        while j < ln and not mk[st[j]]:
            j += 1
        self.first[p][li] = i
        self.run[p][li] = j - i

    # ----------------------------------------------------------- core API
    def current_player(self) -> int:
        if self.over:
            return TERMINAL
        if self.card < 0:
            return CHANCE
        return self.cur

    def deciders(self) -> list[int]:
        """The seats still to commit on this card, in commit order (VV-R10)."""
        if self.over or self.card < 0:
            return []
        return list(range(self.cur, self.num_players))

    def phase(self) -> str:
        if self.over:
            return "game_over"
        if self.card < 0:
            return "reveal"
        return ("number", "express", "transfer", "free_ride")[self.game.deck.kind_type[self.card]]

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        total = sum(self.deck)
        return [(k, c / total) for k, c in enumerate(self.deck) if c]

    def sample_chance(self, rng: np.random.Generator) -> int:
        r = int(rng.integers(sum(self.deck)))
        for k, c in enumerate(self.deck):
            if r < c:
                return k
            r -= c
        raise AssertionError("empty deck")  # VV-R7: cannot happen

    def is_legal_chance(self, outcome: Any) -> bool:
        return (isinstance(outcome, (int, np.integer)) and not isinstance(outcome, (bool, np.bool_))
                and 0 <= outcome < len(self.deck) and self.deck[outcome] > 0)

    def _legal_mask(self) -> np.ndarray:
        return self.mask_for(self.cur)

    def mask_for(self, p: int) -> np.ndarray:
        """The legal actions of seat ``p`` on the revealed card (its sheet is not changed by
        the other commits of the same turn, VV-R37 (1))."""
        g = self.game
        m = g.map
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        t = g.deck.kind_type[self.card]
        if t == FREE:   # VV-R21/R22
            mk = self.marks[p]
            idx = [A_FREE + s for s in m.stations if not mk[s]]
            mask[idx if idx else A_FREE] = 1
            return mask
        wins, windows = self.wins[p], m.windows
        if t == TRANSFER:   # VV-R8, VV-R18
            mask[[A_TRANSFER + li for li in range(m.num_lines) if len(wins[li]) < windows[li]]] = 1
            return mask
        v = g.deck.kind_value[self.card]
        avail = self.run[p] if t == NUMBER else self.unm[p]   # VV-R13 / VV-R17
        short = g.short_moves
        idx: list[int] = []
        for li in range(m.num_lines):
            if len(wins[li]) < windows[li]:
                r = avail[li]
                k = v if v < r else r
                if short:
                    idx += _RANGES[li][k]      # k = 0..min(v, r)
                else:
                    idx.append(7 * li + k)     # VV-V2 off: the maximum possible
        mask[idx] = 1
        return mask

    def _apply(self, a: int) -> None:
        if self.card < 0:   # chance: reveal the top card (VV-R4, VV-R5)
            self.card = a
            self.deck[a] -= 1
            self.discard.append(a)
            self.cur = 0
            g, h = self.game, self.header   # header: the card, one card fewer unseen
            d = g.deck
            h[E.H_TYPE + d.kind_type[a]] = 1.0
            h[E.H_VALUE] = d.kind_value[a] / 6.0
            h[E.H_DECK + g.kind_class[a]] -= 0.25
            if d.kind_shuffle[a]:
                h[E.H_SHUFFLE] = 1.0
                h[E.H_DECK + 14] -= 0.25
            return
        p = self.cur
        self.commits[p] = a
        self.cur = p + 1
        if self.cur == self.num_players:
            self._resolve()

    # -------------------------------------------------------------- turn
    def _act(self, p: int, a: int, t: int, v: int) -> set:
        """Apply seat ``p``'s committed action to its own sheet (VV-R37 (1)); returns the lines
        whose stations changed."""
        m = self.game.map
        mk = self.marks[p]
        crossed: list[int] = []
        if t == FREE:   # VV-R21: no window; VV-R22: nothing on a full sheet
            s = a - A_FREE
            if m.st_lines[s] and not mk[s]:
                crossed.append(s)
        else:
            if t == TRANSFER:
                li = a - A_TRANSFER
                code = W_TRANSFER                          # VV-R18
            else:
                li, k = divmod(a, 7)
                code = v if t == NUMBER else 10 + v        # VV-R11
            wins = self.wins[p][li]
            wins.append(code)
            self.wused[p] += 1
            self.blk[p, E.P_WUSED + li] = len(wins) * 0.25
            st = m.line_st[li]
            i = self.first[p][li]
            if t == TRANSFER:
                if i < len(st):                            # VV-R19 (else VV-R20)
                    s = st[i]
                    nl = m.n_lines_through[s]
                    self.nums[p][s] = nl
                    self.tsum[p] += nl
                    self.blk[p, E.P_NUM + s] = nl / 3.0
                    crossed.append(s)
            elif t == NUMBER:   # VV-R12..R15: k consecutive stations from the first unmarked
                crossed = st[i:i + k]
            else:               # VV-R16/R17: the first k unmarked stations, skipping marked ones
                for s in st[i:]:
                    if len(crossed) == k:
                        break
                    if not mk[s]:
                        crossed.append(s)
        touched: set = set()
        if crossed:             # VV-R23: a station is marked for every line through it
            unm = self.unm[p]
            st_lines = m.st_lines
            for s in crossed:
                mk[s] = 1
                for li in st_lines[s]:
                    unm[li] -= 1
                    touched.add(li)
            self.empty[p] -= len(crossed)
            self.blk[p, crossed] = 1.0    # P_MARK block starts at 0
        return touched

    def _resolve(self) -> None:
        """End of turn, VV-R37: actions, completions, bonuses, strikes, reshuffle, end check."""
        g = self.game
        m = g.map
        n = self.num_players
        t = g.deck.kind_type[self.card]
        v = g.deck.kind_value[self.card]
        completed: list[list[int]] = [[] for _ in range(n)]
        any_done = False
        for p in range(n):                          # (1) every action on its own sheet
            touched = self._act(p, self.commits[p], t, v)
            unm, scored = self.unm[p], self.scored[p]
            for li in touched:
                self._line_stat(p, li)
                if unm[li] == 0 and scored[li] == 0:    # (2) VV-R25, VV-R26, VV-R38
                    completed[p].append(li)
                    any_done = True
        h = self.header
        if any_done:
            solo = n == 1
            lines_done = set()
            for p in range(n):                      # (3) VV-R27/R28/R29
                done = completed[p]
                if not done:
                    continue
                done.sort()
                for li in done:
                    if solo or not self.first_gone[li]:
                        self.scored[p][li] = 1
                        self.bonus[p] += m.bonus_first[li]
                        self.blk[p, E.P_FIRST + li] = 1.0
                    else:
                        self.scored[p][li] = 2
                        self.bonus[p] += m.bonus_other[li]
                        self.blk[p, E.P_OTHER + li] = 1.0
                    lines_done.add(li)
            for li in lines_done:                   # (4) strike the first bonus for the others
                self.first_gone[li] = True
                h[E.H_FIRST_GONE + li] = 1.0
        blk = self.blk
        for p in range(n):
            blk[p, E.P_SCORE] = (self.bonus[p] + 2 * self.tsum[p]) / 50.0
            blk[p, E.P_EMPTY] = self.empty[p] / 64.0
        self.last_card = self.card
        self.last_actions = self.commits
        self.last_completed = completed             # VV-R30: announced
        h[:E.H_DECK] = 0.0                          # no card shown
        if g.deck.kind_shuffle[self.card]:          # (5) VV-R6
            self.deck = list(g.deck.kind_count)
            self.discard = []
            h[E.H_DECK:E.H_DECK + 15] = g.full_deck_hist
        self.turn += 1
        self.card = -1
        self.cur = 0
        self.commits = [-1] * n
        if self.wused[0] == m.total_windows:        # (6) VV-R31
            self.over = True
        h[E.H_PROGRESS] = self.wused[0] / m.total_windows

    # -------------------------------------------------------- observation
    def observation(self, seat: int) -> np.ndarray:
        g = self.game
        n = self.num_players
        obs = np.zeros(E.OBS_SIZE, dtype=np.float32)
        obs[:E.HEADER] = self.header
        if self.cur == seat and self.card >= 0 and not self.over:
            obs[E.H_DECIDING] = 1.0
        obs[E.HEADER:E.HEADER + n * E.BLOCK] = self.blk[g._rot[n][seat]].ravel()
        if not g.observe_others and n > 1:
            obs[g._hidden[n]] = 0.0
        return obs

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> "VollVerplantState":
        """Re-deal what ``seat`` cannot know: the other seats' pending commits of this turn
        (each a uniformly random legal action of that seat). The unseen deck has no stored order
        (cards are dealt one by one at chance nodes). With observe_opponent_sheets=False the
        other sheets are kept as they are (not re-dealt); see RULES.md."""
        st = self.clone()
        for q in range(st.cur if st.card >= 0 and not st.over else 0):
            if q != seat:
                legal = np.flatnonzero(st.mask_for(q))
                st.commits[q] = int(legal[rng.integers(len(legal))])
        return st

    # --------------------------------------------------------------- scores
    def line_points(self, p: int) -> int:
        return self.bonus[p]

    def transfer_points(self, p: int) -> int:
        return 2 * self.tsum[p]                      # VV-R33

    def penalty_points(self, p: int) -> int:
        return self.game.penalty(self.empty[p])      # VV-R34

    def scores(self) -> list[float]:
        """VV-R35: line bonuses + 2 x transfer numbers - halved empty stations (final at the end)."""
        return [float(self.bonus[p] + 2 * self.tsum[p] - self.game.penalty(self.empty[p]))
                for p in range(self.num_players)]

    # ------------------------------------------------------------ strings
    def action_to_string(self, a: Any) -> str:
        m = self.game.map
        a = int(a)
        if a < A_TRANSFER:
            li, k = divmod(a, 7)
            name = m.line_names[li] if li < m.num_lines else f"#{li}"
            kind = ""
            if self.card >= 0 and self.game.deck.kind_type[self.card] == EXPRESS:
                kind = " express"
            return f"line {name}: {k} cross{'es' if k != 1 else ''}{kind}"
        if a < A_FREE:
            li = a - A_TRANSFER
            return f"line {m.line_names[li] if li < m.num_lines else li}: transfer"
        s = a - A_FREE
        if (a == A_FREE and self.card >= 0 and not self.over and 0 <= self.cur < self.num_players
                and all(self.marks[self.cur][x] for x in m.stations)):
            return "free ride: nothing to cross (sheet full)"
        return f"free ride: cross station {s + 1}"

    def _sheet_lines(self, p: int) -> list[str]:
        m = self.game.map
        mk, nums = self.marks[p], self.nums[p]
        out = []
        for li in range(m.num_lines):
            ws = []
            for c in self.wins[p][li]:
                ws.append("*" if c == W_TRANSFER else (f"({c - 10})" if c > 10 else str(c)))
            ws += ["_"] * (m.windows[li] - len(self.wins[p][li]))
            cells = []
            for s in m.line_st[li]:
                if nums[s]:
                    c = f"*{nums[s]}"
                elif mk[s]:
                    c = "X"
                else:
                    c = "."
                cells.append(f"{s + 1}{c}")
            sc = self.scored[p][li]
            tag = "" if not sc else (f"  done +{m.bonus_first[li]} (first)" if sc == 1
                                     else f"  done +{m.bonus_other[li]}")
            gone = "-" if self.first_gone[li] and sc != 1 else " "
            out.append(f"  {m.line_names[li]} {gone}{m.bonus_first[li]}/{m.bonus_other[li]} "
                       f"[{' '.join(ws)}] " + " ".join(cells) + tag)
        return out

    def __str__(self) -> str:
        g = self.game
        d = g.deck
        lines = [f"Voll verplant  map {g.map.name}  turn {self.turn + 1}  phase {self.phase()}"]
        if self.card >= 0:
            lines.append(f"card: {d.card_name(self.card)}")
        lines.append(f"unseen cards: {sum(self.deck)}  revealed since shuffle: "
                     + (", ".join(d.card_name(k) for k in self.discard) or "-"))
        if self.last_card >= 0 and self.last_actions:
            lines.append(f"last turn ({d.card_name(self.last_card)}): "
                         + "; ".join(f"P{p} {self._describe_last(p)}" for p in range(self.num_players)))
        sc = self.scores()
        for p in range(self.num_players):
            flag = ""
            if self.card >= 0 and not self.over:
                flag = "  (has chosen)" if p < self.cur else ("  (to choose)" if p == self.cur else "")
            lines.append(f"Player {p}: {sc[p]:g} points (lines {self.bonus[p]}, transfers "
                         f"{2 * self.tsum[p]}, empty {self.empty[p]} -> -{self.penalty_points(p)}){flag}")
            lines.extend(self._sheet_lines(p))
        if self.over:
            lines.append(f"game over; winners: {', '.join(f'P{w}' for w in self.winners())}")
        return "\n".join(lines)

    def _describe_last(self, p: int) -> str:
        a = self.last_actions[p]
        t = self.game.deck.kind_type[self.last_card]
        m = self.game.map
        if t == FREE:
            s = a - A_FREE
            return f"crossed {s + 1}" if m.st_lines[s] else "nothing"
        if t == TRANSFER:
            return f"transfer on {m.line_names[a - A_TRANSFER]}"
        li, k = divmod(a, 7)
        done = "".join(f" completed {m.line_names[x]}" for x in self.last_completed[p])
        return f"{m.line_names[li]} x{k}{done}"

    # ------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        return {
            "num_players": self.num_players, "turn": self.turn, "card": self.card,
            "deck": list(self.deck), "discard": list(self.discard), "cur": self.cur,
            "commits": list(self.commits), "first_gone": list(self.first_gone), "over": self.over,
            "marks": [[s + 1 for s in range(MAX_STATIONS) if mk[s]] for mk in self.marks],
            "nums": [{str(s + 1): v for s, v in enumerate(nm) if v} for nm in self.nums],
            "wins": [[list(w) for w in ws] for ws in self.wins],
            "scored": [list(x) for x in self.scored],
            "last_card": self.last_card, "last_actions": list(self.last_actions),
            "last_completed": [list(x) for x in self.last_completed],
        }

    def _load(self, d: dict) -> None:
        n = self.num_players
        self.turn = int(d["turn"])
        self.card = int(d["card"])
        self.deck = [int(x) for x in d["deck"]]
        self.discard = [int(x) for x in d["discard"]]
        self.cur = int(d["cur"])
        self.commits = [int(x) for x in d["commits"]]
        self.first_gone = [bool(x) for x in d["first_gone"]]
        self.over = bool(d["over"])
        self.marks = [[0] * MAX_STATIONS for _ in range(n)]
        for p, ids in enumerate(d["marks"]):
            for s in ids:
                self.marks[p][int(s) - 1] = 1
        self.nums = [[0] * MAX_STATIONS for _ in range(n)]
        for p, nm in enumerate(d["nums"]):
            for s, v in nm.items():
                self.nums[p][int(s) - 1] = int(v)
        self.wins = [[[int(c) for c in w] for w in ws] for ws in d["wins"]]
        self.scored = [[int(c) for c in x] for x in d["scored"]]
        self.last_card = int(d["last_card"])
        self.last_actions = [int(x) for x in d["last_actions"]]
        self.last_completed = [[int(c) for c in x] for x in d["last_completed"]]
        self._mask = None
        self._derive()

    def clone(self) -> "VollVerplantState":
        c = VollVerplantState(self.game, self.num_players, _blank=True)
        c.turn, c.card, c.cur, c.over = self.turn, self.card, self.cur, self.over
        c.deck = self.deck[:]
        c.discard = self.discard[:]
        c.commits = self.commits[:]
        c.first_gone = self.first_gone[:]
        c.marks = [x[:] for x in self.marks]
        c.nums = [x[:] for x in self.nums]
        c.wins = [[w[:] for w in ws] for ws in self.wins]
        c.scored = [x[:] for x in self.scored]
        c.last_card = self.last_card
        c.last_actions = self.last_actions[:]
        c.last_completed = [x[:] for x in self.last_completed]
        c.unm = [x[:] for x in self.unm]
        c.first = [x[:] for x in self.first]
        c.run = [x[:] for x in self.run]
        c.empty = self.empty[:]
        c.bonus = self.bonus[:]
        c.tsum = self.tsum[:]
        c.wused = self.wused[:]
        c.blk = self.blk.copy()
        c.header = self.header.copy()
        c._mask = self._mask
        return c

    # ------------------------------------------------------------ invariants
    def check_invariants(self) -> None:
        """Marks only ever added, window counts consistent, scores and caches consistent,
        cards conserved."""
        g = self.game
        m, d = g.map, g.deck
        n = self.num_players
        # cards: unseen + revealed since the last shuffle = the whole deck (VV-R3, VV-R5)
        for k in range(d.num_kinds):
            assert self.deck[k] + self.discard.count(k) == d.kind_count[k], "cards not conserved"
            assert self.deck[k] >= 0
        assert sum(self.deck) > 0 or self.over or self.card >= 0, "deck ran out (VV-R7)"
        wu = [sum(len(w) for w in self.wins[p]) for p in range(n)]
        assert len(set(wu)) == 1, f"window counts differ between sheets: {wu}"   # VV-R31
        assert wu == self.wused
        assert self.over == (wu[0] == m.total_windows)
        ref = self.clone()
        ref._derive()
        for p in range(n):
            mk, nm = self.marks[p], self.nums[p]
            for li in range(m.num_lines):
                assert len(self.wins[p][li]) <= m.windows[li], "too many windows used"
                assert ref.unm[p][li] == self.unm[p][li] and ref.first[p][li] == self.first[p][li] \
                    and ref.run[p][li] == self.run[p][li], "line cache out of date"
                complete = self.unm[p][li] == 0
                assert complete == (self.scored[p][li] != 0), "completion and bonus disagree"
                if self.scored[p][li] == 1 and n > 1:
                    assert self.first_gone[li]
            for s in range(MAX_STATIONS):
                assert mk[s] in (0, 1) and (not mk[s] or m.st_lines[s]), "bad mark"
                assert not nm[s] or (mk[s] and nm[s] == m.n_lines_through[s]), "bad transfer number"
            assert self.empty[p] == sum(1 for s in m.stations if not mk[s])
            assert self.bonus[p] == ref.bonus[p] and self.tsum[p] == ref.tsum[p]
            assert self.bonus[p] + 2 * self.tsum[p] - g.penalty(self.empty[p]) == self.scores()[p]
            n_t = sum(1 for w in self.wins[p] for c in w if c == W_TRANSFER)
            assert sum(1 for x in nm if x) <= n_t, "more transfer numbers than transfer windows"
        assert np.array_equal(ref.blk, self.blk), "observation blocks out of date"
        assert np.array_equal(ref.header, self.header), "observation header out of date"
        for li in range(m.num_lines):
            assert self.first_gone[li] == any(self.scored[p][li] for p in range(n)), "strike mismatch"
        assert all(c == -1 for c in self.commits[self.cur:]) and all(c >= 0 for c in self.commits[:self.cur])
        # marks only ever added (VV-R24): compare with the last checked position of this state
        prev = getattr(self, "_inv_prev", None)
        if prev is not None and prev[0] <= self.turn:
            pm, pn, pw = prev[1:]
            for p in range(n):
                for s in range(MAX_STATIONS):
                    assert self.marks[p][s] >= pm[p][s], f"station {s + 1} unmarked (VV-R24)"
                    assert not pn[p][s] or self.nums[p][s] == pn[p][s], "transfer number changed"
                for li in range(m.num_lines):
                    assert self.wins[p][li][:len(pw[p][li])] == pw[p][li], "window changed"
        self._inv_prev = (self.turn, [x[:] for x in self.marks], [x[:] for x in self.nums],
                          [[w[:] for w in ws] for ws in self.wins])
