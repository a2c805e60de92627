"""Observation of Get on Board (spec section 6; the table is in RULES.md, "Observation layout").

Seat-relative: slots ``p0..p{P-1}`` are seats relative to the observer (``p0`` = me, then
clockwise); slots beyond the player count stay 0. The layout is declared once in ``build``;
every offset used below comes from it.

Speed: each seat's view is kept in a buffer on the state (attribute ``_gob_obs``, read and
written only here) and brought up to date lazily from the rules' fields: routes and road
markers only grow (the new tail is written), sheets, sheet types, the personal objective, the
own tickets and the per-round block are rewritten when they differ from what the buffer shows.
The rules never see it; a clone starts without it (the first observation builds it). The
per-step block is written on the copy handed out. ``tests/get_on_board`` compares the result
with a plain reference encoder.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..core.encoder import Encoder, Layout
from .data import CODES, DIR_NAMES, REQ_NAMES
from .rules import MAX_SHAPE, P_DEAL, P_DEPART, P_PLACE, SHEET_FIELDS, SHEET_LEN, GetOnBoardGame, GetOnBoardState, Phase

# Per intersection: code one-hot (g s S t m M b O), star, green light, departure, objective letter.
NODE_CODES = len(CODES) - 1
NODE_FEATS = NODE_CODES + 4
F_STAR, F_GREEN, F_DEPARTURE, F_LETTER = range(NODE_CODES, NODE_FEATS)

# Sheet fields are shown as value / divisor (fixed divisors: about 0..1 on the standard sheet).
SHEET_DIVISORS = {
    "grandmas": 8, "students": 6, "internships": 3, "schools": 4, "star_school": 10,
    "tourists_row1": 4, "tourists_row2": 4, "tourists_row3": 4,
    "tourist_row1_scored": 1, "tourist_row2_scored": 1, "tourist_row3_scored": 1,
    "star_light_sight": 12, "star_dark_sight": 12, "light_sights": 4, "dark_sights": 4,
    "workers_row1": 3, "workers_row2": 3, "workers_row3": 3,
    "worker_row1_scored": 1, "worker_row2_scored": 1, "worker_row3_scored": 1,
    "star_office": 9, "turn_zone": 5, "traffic": 19, "common1": 10, "common2": 10, "eliminated": 1,
}
TOTAL_SCALE = 0.01  # running public total
PREV_NONE = 1       # step.previous_direction: slot 0 = none, then N, E, S, W


class _View:
    """One seat's observation buffer (without the per-step block) and what it shows."""

    __slots__ = ("buf", "fl", "slots", "nlog", "nroute", "sheets", "stype", "personal", "tickets", "choice",
                 "rkey", "nused", "ticket", "inspector", "claimed")

    def __init__(self, template: np.ndarray, n: int, slots: tuple):
        self.buf = template.copy()
        self.fl = memoryview(self.buf).cast("B").cast("f")  # scalar writes, cheaper than numpy's
        self.slots = slots          # the encoder's offsets of every seat's blocks in this view
        self.nlog = -1              # markers seen (-1: the routes are not revealed yet)
        self.nroute = [0] * n       # route intersections written, per seat (absolute)
        self.sheets: list[list[int] | None] = [None] * n  # sheet values written (None: the blank block)
        self.stype = [0] * n        # sheet type written (0 = none)
        self.personal = -1          # own personal objective written
        self.tickets: list[int] = []  # own departure tickets written
        self.choice = -1            # own departure choice written
        self.rkey = -1              # phase and round when the round-level blocks were last checked
        self.nused = -1             # round counter written (-1: the round block is still blank)
        self.ticket = 0             # current ticket written (0 = none)
        self.inspector = -1         # inspector written
        self.claimed: list[bool] = []  # claimed flags written

    def __getstate__(self) -> dict:  # pickling: the memoryview is rebuilt on load
        return {k: getattr(self, k) for k in self.__slots__ if k != "fl"}

    def __setstate__(self, d: dict) -> None:
        for k, x in d.items():
            setattr(self, k, x)
        self.fl = memoryview(self.buf).cast("B").cast("f")


class GetOnBoardEncoder(Encoder):
    """Named blocks of the observation; ``encode`` keeps one lazily updated buffer per seat."""

    game: GetOnBoardGame

    def build(self, L: Layout) -> None:
        g = self.game
        m = g.map
        N, R, P = m.n, m.r, g.maxp
        self.n_roads = R
        self.map_nodes = L.block("map.intersections", N * NODE_FEATS)
        self.map_black = L.block("map.black_roads", R)
        self.visited = [L.block(f"route.visited.p{i}", N) for i in range(P)]
        self.end = [L.block(f"route.end.p{i}", N) for i in range(P)]
        self.roads = [L.block(f"road_markers.p{i}", R) for i in range(P)]
        self.sheet, self.sheet_type, self.total = [], [], []
        for i in range(P):
            self.sheet.append(L.block(f"sheet.p{i}", SHEET_LEN))
            self.sheet_type.append(L.block(f"sheet_type.p{i}", g.sheet_types))
            self.total.append(L.block(f"running_total.p{i}", 1))
        self.personal = L.block("personal_objective", N)
        self.phase = L.block("step.phase", len(Phase))
        self.extra = L.block("step.green_light_extra", 1)
        self.current = L.block("step.current_player", P)
        self.marker = L.block("step.marker_index", MAX_SHAPE)
        self.prev = L.block("step.previous_direction", PREV_NONE + len(DIR_NAMES))
        self.req = L.block("step.requirement", len(REQ_NAMES))
        self.deviate = L.block("step.would_deviate", len(DIR_NAMES))
        self.eliminate = L.block("step.would_eliminate", len(DIR_NAMES))
        self.rnd = L.block("round.number", g.rounds + 1)
        self.used = L.block("round.used_tickets", g.tickets)
        self.ticket = L.block("round.current_ticket", g.tickets)
        self.inspector = L.block("round.inspector", P)
        ns = len(g.shape_names)
        self.shape = [L.block(f"round.shape.p{i}", ns) for i in range(P)]
        self.commons = L.block("round.common_objectives", len(g.commons))
        self.claimed = L.block("round.common_claimed", len(g.commons))
        self.round_end = L.size
        self.own_tickets = L.block("own.departure_tickets", m.departures)
        self.own_choice = L.block("own.departure_choice", m.departures)
        self.own_end = L.size
        missing = set(SHEET_FIELDS) ^ set(SHEET_DIVISORS)
        if missing:
            raise ValueError(f"SHEET_DIVISORS and SHEET_FIELDS differ: {sorted(missing)}")
        self.scale = np.asarray([1 / SHEET_DIVISORS[f] for f in SHEET_FIELDS], dtype=np.float32)
        self.scale_l = [float(x) for x in self.scale]  # x * scale_l[i] rounds to the same float32
        self.chunks = [(lo, min(lo + 5, SHEET_LEN)) for lo in range(0, SHEET_LEN, 5)]
        # shape index (in shape_order) of ticket t on sheet type s
        self.shape_idx = [[0] * (g.tickets + 1)] + [
            [0] + [g.shape_names.index(nm) for nm, _ in g.ticket_shape[s][1:]] for s in range(1, g.sheet_types + 1)]
        self.template = np.zeros(L.size, dtype=np.float32)
        self.template[self.map_nodes:self.map_nodes + N * NODE_FEATS] = self._static_nodes().ravel()
        self.template[self.map_black:self.map_black + R] = m.black
        self._slots: dict[tuple[int, int], tuple] = {}     # (n, seat) -> per-seat offsets
        self._step: dict[tuple[int, ...], tuple[int, ...]] = {}  # sub-step key -> indices set to 1
        self._total = lru_cache(maxsize=1 << 16)(self._running_total)  # sheet -> shown running total

    def _static_nodes(self) -> np.ndarray:
        m = self.game.map
        st = np.zeros((m.n, NODE_FEATS), dtype=np.float32)
        for i in range(m.n):
            if m.code[i]:
                st[i, m.code[i] - 1] = 1
            st[i, F_STAR] = m.star[i]
            st[i, F_GREEN] = m.green[i]
            st[i, F_DEPARTURE] = m.is_departure[i]
            st[i, F_LETTER] = 1.0 if m.letter[i] else 0.0
        return st

    def slots(self, n: int, seat: int) -> tuple:
        """Offsets of every seat's blocks in ``seat``'s view (seat p sits in slot (p - seat) mod n)."""
        key = (n, seat)
        s = self._slots.get(key)
        if s is None:
            rel = [(p - seat) % n for p in range(n)]
            s = self._slots[key] = (
                [self.visited[k] for k in rel], [self.end[k] for k in rel], [self.roads[k] for k in rel],
                [self.sheet[k] for k in rel], [self.sheet_type[k] - 1 for k in rel], [self.total[k] for k in rel],
                [self.shape[k] for k in rel])
        return s

    # ------------------------------------------------------------ encoding
    def encode(self, state: GetOnBoardState, seat: int) -> np.ndarray:
        n = state.num_players
        views = state.__dict__.get("_gob_obs")
        if views is None:
            views = state.__dict__["_gob_obs"] = [None] * n
        v = views[seat]
        if v is None:
            v = views[seat] = _View(self.template, n, self.slots(n, seat))
        if not self._update(state, seat, v):  # the state went back (not by play): start again
            v = views[seat] = _View(self.template, n, self.slots(n, seat))
            self._update(state, seat, v)
        out = v.buf.copy()
        ph, cur = state.ph, state.cur
        if ph == P_PLACE and cur == seat:
            for o in self._step_indices(state):
                out[o] = 1.0
        else:
            out[self.phase + ph] = 1.0
            if cur >= 0:
                out[self.current + (cur - seat) % n] = 1.0
        return out

    def _update(self, st: GetOnBoardState, seat: int, v: _View) -> bool:
        """Bring ``v`` up to date with ``st``; False when the state went back under what the buffer
        shows (not by play: then the caller starts from a fresh buffer)."""
        n = st.num_players
        buf, fl = v.buf, v.fl
        vis_o, end_o, road_o, sheet_o, type_o, total_o, shape_o = v.slots
        log = st.log
        nlog = len(log)
        if nlog != v.nlog:  # routes and road markers grow marker by marker (the log, in board order)
            if nlog < v.nlog:
                return False
            routes, nroute = st.route, v.nroute
            if v.nlog < 0:  # the departures: the first intersection of every route
                if not routes[0]:
                    nlog = -1
                for p in range(n):
                    if routes[p]:
                        q = routes[p][0]
                        fl[vis_o[p] + q] = fl[end_o[p] + q] = 1.0
                        nroute[p] = 1
                new = log
            else:
                new = log[v.nlog:]
            nr = self.n_roads
            for x in new:
                p, r = divmod(x, nr)
                fl[road_o[p] + r] = 1.0
                k = nroute[p]
                rt = routes[p]
                q = rt[k]
                fl[vis_o[p] + q] = 1.0
                fl[end_o[p] + rt[k - 1]] = 0.0
                fl[end_o[p] + q] = 1.0
                nroute[p] = k + 1
            v.nlog = nlog
        sheets, shown = st.sheets, v.sheets
        if sheets != shown:
            for p in range(n):
                sh = sheets[p]
                old = shown[p]
                if sh != old:
                    so = sheet_o[p]
                    if old is None:
                        buf[so:so + SHEET_LEN] = np.asarray(sh, dtype=np.float32) * self.scale
                    else:
                        sc = self.scale_l
                        for lo, hi in self.chunks:  # compare in chunks (C), write the changed fields
                            if sh[lo:hi] != old[lo:hi]:
                                for i in range(lo, hi):
                                    if sh[i] != old[i]:
                                        fl[so + i] = sh[i] * sc[i]
                    fl[total_o[p]] = 0.0 if st.elim[p] else self._total(tuple(sh))
                    shown[p] = sh[:]
        ph = st.ph
        used = st.used
        rkey = ph | len(used) << 3  # round-level blocks change only with the phase or the round
        if rkey == v.rkey and ph > P_DEPART:
            return True
        v.rkey = rkey
        if ph == P_DEAL:
            if v.nused >= 0:
                return False
            for p in range(n):
                t = st.sheet_type[p]
                if t != v.stype[p]:
                    if v.stype[p]:
                        fl[type_o[p] + v.stype[p]] = 0.0
                    if t:
                        fl[type_o[p] + t] = 1.0
                    v.stype[p] = t
            if st.personal[seat] != v.personal:
                self._write_personal(st, seat, buf)
                v.personal = st.personal[seat]
        else:  # sheet types and the personal objective are dealt; the round block is public
            if v.nused < 0:
                for p in range(n):
                    if v.stype[p] != st.sheet_type[p]:
                        if v.stype[p]:
                            fl[type_o[p] + v.stype[p]] = 0.0
                        fl[type_o[p] + st.sheet_type[p]] = 1.0
                        v.stype[p] = st.sheet_type[p]
                if st.personal[seat] != v.personal:
                    self._write_personal(st, seat, buf)
                    v.personal = st.personal[seat]
                for c in st.common:
                    fl[self.commons + c] = 1.0
                v.nused = 0
                fl[self.rnd] = 1.0
            nu = len(used)
            if nu != v.nused:
                if nu < v.nused:
                    return False
                fl[self.rnd + v.nused] = 0.0
                fl[self.rnd + nu] = 1.0
                for t in used[v.nused:]:
                    fl[self.used + t - 1] = 1.0
                v.nused = nu
            t = used[-1] if ph == P_PLACE else 0
            if t != v.ticket:
                for tt, on in ((v.ticket, 0.0), (t, 1.0)):
                    if tt:
                        fl[self.ticket + tt - 1] = on
                        for p in range(n):
                            fl[shape_o[p] + self.shape_idx[v.stype[p]][tt]] = on
                v.ticket = t
            if st.inspector != v.inspector:
                if v.inspector >= 0:
                    fl[self.inspector + (v.inspector - seat) % n] = 0.0
                fl[self.inspector + (st.inspector - seat) % n] = 1.0
                v.inspector = st.inspector
            if st.claimed != v.claimed:
                for j, c in enumerate(st.common):
                    fl[self.claimed + c] = 1.0 if st.claimed[j] else 0.0
                v.claimed = st.claimed[:]
        if st.tickets[seat] != v.tickets or st.choice[seat] != v.choice:
            self._write_own(st, seat, buf)
            v.tickets, v.choice = st.tickets[seat][:], st.choice[seat]
        return True

    def _running_total(self, sheet: tuple[int, ...]) -> float:
        """A sheet's running public total (the rules' one formula, before the end) as shown."""
        return self.game.rules.total(sheet, False) * TOTAL_SCALE

    def _write_personal(self, st: GetOnBoardState, seat: int, buf: np.ndarray) -> None:
        """My personal objective's three intersections (secret, GB-R45)."""
        m = self.game.map
        buf[self.personal:self.personal + m.n] = 0.0
        if st.personal[seat] >= 0:
            for q in m.objectives[st.personal[seat]]:
                buf[self.personal + q] = 1.0

    def _write_own(self, st: GetOnBoardState, seat: int, buf: np.ndarray) -> None:
        """My departure tickets and my choice (secret)."""
        buf[self.own_tickets:self.own_end] = 0.0
        ts = st.tickets[seat]
        for t in ts:
            buf[self.own_tickets + t - 1] = 1.0
        if st.choice[seat] >= 0:
            buf[self.own_choice + ts[st.choice[seat]] - 1] = 1.0

    def _step_indices(self, st: GetOnBoardState) -> tuple[int, ...]:
        """Indices set to 1 in the per-step block for the seat placing a marker: phase, me as the
        current player, extra flag or marker index, previous direction, requirement, directions
        that would deviate (GB-R14) or eliminate (GB-R19) among the legal ones."""
        legal, elim = st.dir_info()[:2]
        req = st.requirement()
        key = (legal, elim, req, st.prev, -1 if st.extra else st.k)
        offs = self._step.get(key)
        if offs is None:
            offs = self._step[key] = self._step_key(*key)
        return offs

    def _step_key(self, legal: int, elim: int, req: int, prev: int, k: int) -> tuple[int, ...]:
        straight, turn = REQ_NAMES["straight"], REQ_NAMES["turn"]
        offs = [self.phase + P_PLACE, self.current, self.extra if k < 0 else self.marker + k,
                self.prev + PREV_NONE + prev, self.req + req]
        for d in range(len(DIR_NAMES)):
            if legal >> d & 1:
                if (req == straight and d != prev) or (req == turn and d == prev):
                    offs.append(self.deviate + d)
                if elim >> d & 1:
                    offs.append(self.eliminate + d)
        return tuple(offs)

