"""Observation of Get on Board (spec section 6; the table is in RULES.md, "Observation layout").

Seat-relative: slots ``p0..p{P-1}`` are seats relative to the observer (``p0`` = me, then
clockwise); slots beyond the player count stay 0. The layout is declared once in ``build``;
every offset used below comes from it.

Speed: every seat's view is kept in one buffer on the state (``State.encoder_cache``, read and
written only here) and brought up to date lazily from the rules' fields, once for all seats:
routes and road markers follow the marker log (the new tail is written); a seat's sheet block
is re-read only when the rules' change signal says it was written (``GetOnBoardState.sver``:
one version behind, only the fields in ``sfields`` can differ) and its running total is the
rules' cached ``running_total``, read again only when a field it reads changed
(``Rules.RUNNING_TOTAL_READS``); sheet types, personal objectives, own tickets and the
round-level blocks are checked when the phase or the round changes. A clone starts without the
buffer (the first observation builds it). The per-step blocks are one cached slice written on
the copy handed out. ``tests/get_on_board`` compares the result with a plain reference encoder.
"""

from __future__ import annotations

import numpy as np

from ..core.encoder import Encoder, Layout
from .data import CODES, DIR_NAMES, REQ_NAMES
from .rules import (
    ALL_FIELDS,
    MAX_SHAPE,
    P_DEAL,
    P_DEPART,
    P_PLACE,
    SHEET_FIELDS,
    SHEET_LEN,
    GetOnBoardGame,
    GetOnBoardState,
    Phase,
    Rules,
)

RUNNING_TOTAL_READS, RT_ALWAYS = Rules.RUNNING_TOTAL_READS, Rules.RT_ALWAYS

# Per intersection: code one-hot (g s S t m M b O), star, green light, departure, objective letter.
NODE_CODES = len(CODES) - 1
NODE_FEATS = NODE_CODES + 4
F_STAR, F_GREEN, F_DEPARTURE, F_LETTER = range(NODE_CODES, NODE_FEATS)

# Sheet fields are shown as value / divisor (fixed divisors: about 0..1 on the standard sheet).
SHEET_DIVISORS = {
    "grandmas": 8,
    "students": 6,
    "internships": 3,
    "schools": 4,
    "star_school": 10,
    "tourists_row1": 4,
    "tourists_row2": 4,
    "tourists_row3": 4,
    "tourist_row1_scored": 1,
    "tourist_row2_scored": 1,
    "tourist_row3_scored": 1,
    "star_light_sight": 12,
    "star_dark_sight": 12,
    "light_sights": 4,
    "dark_sights": 4,
    "workers_row1": 3,
    "workers_row2": 3,
    "workers_row3": 3,
    "worker_row1_scored": 1,
    "worker_row2_scored": 1,
    "worker_row3_scored": 1,
    "star_office": 9,
    "turn_zone": 5,
    "traffic": 19,
    "common1": 10,
    "common2": 10,
    "eliminated": 1,
}
TOTAL_SCALE = 0.01  # running public total
PREV_NONE = 1  # step.previous_direction: slot 0 = none, then N, E, S, W


class _Views:
    """Every seat's observation buffer of one state (without the per-step block), one row per
    seat, and what the rows show (updated once per change for all rows)."""

    __slots__ = (
        "buf",
        "fl",
        "offs",
        "nlog",
        "nroute",
        "sheets",
        "sver",
        "stype",
        "personal",
        "own",
        "owned",
        "ph",
        "rnd",
        "nused",
        "ticket",
        "inspector",
        "claimed",
    )

    def __init__(self, template: np.ndarray, n: int, offs: tuple):
        self.buf = np.tile(template, (n, 1))
        self.fl = self.buf.data.cast("B").cast("f")  # scalar writes, cheaper than numpy's
        self.offs = offs  # the encoder's flat offsets of every seat's blocks in every row
        self.nlog = -1  # markers written (-1: the routes are not revealed yet)
        self.nroute = [0] * n  # route intersections written, per seat
        self.sheets = [[0] * SHEET_LEN for _ in range(n)]  # sheet values written (blank: 0)
        self.sver = [-1] * n  # the rules' sheet version (GetOnBoardState.sver) written, per seat
        self.stype = [0] * n  # sheet type written (0 = none)
        self.personal = [-1] * n  # personal objective written in the seat's own row
        self.own: list[tuple] = [((), -1)] * n  # departure tickets and choice written in the seat's own row
        self.owned = False  # own tickets and choices final (written after the departure phase)
        self.ph = -1  # phase when the round-level blocks were last checked (with nused: the round)
        self.rnd = -1  # 0 once the round block is written (-1: still blank)
        self.nused = -1  # round counter written
        self.ticket = 0  # current ticket written (0 = none)
        self.inspector = -1  # inspector written
        self.claimed: list[bool] = []  # claimed flags written

    def __getstate__(self) -> dict:  # pickling: the memoryview is rebuilt on load
        return {k: getattr(self, k) for k in self.__slots__ if k != "fl"}

    def __setstate__(self, d: dict) -> None:
        for k, x in d.items():
            setattr(self, k, x)
        self.fl = self.buf.data.cast("B").cast("f")


def sheet_scale() -> np.ndarray:
    """The factor of every sheet field (SHEET_FIELDS order) in the ``sheet`` blocks."""
    missing = set(SHEET_FIELDS) ^ set(SHEET_DIVISORS)
    if missing:
        raise ValueError(f"SHEET_DIVISORS and SHEET_FIELDS differ: {sorted(missing)}")
    return np.asarray([1 / SHEET_DIVISORS[f] for f in SHEET_FIELDS], dtype=np.float32)


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
        ranges = np.asarray(g.sheet_ranges(), np.float64) * sheet_scale()[:, None]  # (lowest, highest) shown
        for i in range(P):
            self.sheet.append(L.block(f"sheet.p{i}", SHEET_LEN, low=ranges[:, 0], high=ranges[:, 1]))
            self.sheet_type.append(L.block(f"sheet_type.p{i}", g.sheet_types))
            # the running total has no bound short of enumerating sheets: unbounded, honestly
            self.total.append(L.block(f"running_total.p{i}", 1, low=-np.inf, high=np.inf))
        self.personal = L.block("personal_objective", N)
        self.phase = L.block("step.phase", len(Phase))
        self.extra = L.block("step.green_light_extra", 1)
        self.current = L.block("step.current_player", P)
        self.marker = L.block("step.marker_index", MAX_SHAPE)
        self.prev = L.block("step.previous_direction", PREV_NONE + len(DIR_NAMES))
        self.req = L.block("step.requirement", len(REQ_NAMES))
        self.deviate = L.block("step.would_deviate", len(DIR_NAMES))
        self.eliminate = L.block("step.would_eliminate", len(DIR_NAMES))
        self.step_end = L.size  # the step.* blocks: [phase, step_end)
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
        self.scale = sheet_scale()
        self.scale_l = [float(x) for x in self.scale]  # x * scale_l[i] rounds to the same float32
        # shape index (in shape_order) of ticket t on sheet type s
        self.shape_idx = [[0] * (g.tickets + 1)] + [
            [0] + [g.shape_names.index(nm) for nm, _ in g.ticket_shape[s][1:]] for s in range(1, g.sheet_types + 1)
        ]
        self.template = np.zeros(L.size, dtype=np.float32)
        self.template[self.map_nodes : self.map_nodes + N * NODE_FEATS] = self._static_nodes().ravel()
        self.template[self.map_black : self.map_black + R] = m.black
        self._offsets: dict[int, tuple] = {}  # player count -> flat offsets (see offsets())
        self._tcells: dict[tuple, tuple[int, ...]] = {}  # (sheet types, ticket) -> _ticket_cells
        self._step: dict[tuple[int, ...], np.ndarray] = {}  # encode's step key -> the step.* blocks

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

    def offsets(self, n: int) -> tuple:
        """Flat offsets into the (n, size) buffer: for seat p, in every row r, where p's blocks
        start (p sits in slot (p - r) mod n of row r's view: me first, then clockwise)."""
        o = self._offsets.get(n)
        if o is None:
            size = self.size

            def per(blocks: list[int], shift: int = 0) -> list[list[int]]:
                return [[r * size + blocks[(p - r) % n] + shift for r in range(n)] for p in range(n)]

            rows = [r * size for r in range(n)]
            vis, end, road = per(self.visited), per(self.end), per(self.roads)
            marker = [list(zip(vis[p], end[p], road[p])) for p in range(n)]  # one loop per marker
            sheet = per(self.sheet)
            sheet_pos = [[tuple(b + i for b in sheet[p]) for i in range(SHEET_LEN)] for p in range(n)]
            o = self._offsets[n] = (
                vis,
                end,
                road,
                sheet,
                per(self.sheet_type, -1),
                per(self.total),
                per(self.shape),
                rows,
                marker,
                sheet_pos,  # seat p's sheet field i in every row: sheet_pos[p][i]
            )
        return o

    # ------------------------------------------------------------ encoding
    def encode(self, state: GetOnBoardState, seat: int) -> np.ndarray:
        n = state.num_players
        v = state.encoder_cache
        if v is None:
            v = state.encoder_cache = _Views(self.template, n, self.offsets(n))
        if not self._update(state, v):  # the state went back (not by play): start again
            v = state.encoder_cache = _Views(self.template, n, self.offsets(n))
            self._update(state, v)
        out = v.buf[seat].copy()
        ph, cur = state.ph, state.cur
        if ph == P_PLACE and cur == seat:  # the placing seat: its sub-step (see _step_indices)
            di = state.dir_info()
            key: tuple[int, ...] = (di[0], di[1], state.requirement(), state.prev, -1 if state.extra else state.k)
        else:  # anybody else: the phase and who acts
            key = (ph, (cur - seat) % n if cur >= 0 else -1)
        blk = self._step.get(key)
        if blk is None:
            blk = self._step[key] = self._step_block(key)
        out[self.phase : self.step_end] = blk  # one write for the per-step blocks
        return out

    def _update(self, st: GetOnBoardState, v: _Views) -> bool:
        """Bring every row of ``v`` up to date with ``st``; False when the state went back under
        what the rows show (not by play: then the caller starts from fresh rows). The hot path
        (a marker placed, a sheet written) is here; the rest changes once per phase or round."""
        fl = v.fl
        log = st.log
        nlog = len(log)
        if nlog != v.nlog:  # routes and road markers grow marker by marker (the log, in board order)
            if nlog < v.nlog:
                return False
            routes, nroute = st.route, v.nroute
            if v.nlog >= 0:
                new = log[v.nlog :]
            elif self._departures(st, v):  # the departures first
                new = log
            else:
                new = []  # the pawns are not revealed yet
            nr = self.n_roads
            marker_o = v.offs[8]
            for x in new:
                p = x // nr  # seat and road (divmod without the builtin call)
                r = x - p * nr
                k = nroute[p]
                nroute[p] = k + 1
                rt = routes[p]
                q = rt[k]
                e = rt[k - 1]
                for bv, be, br in marker_o[p]:
                    fl[br + r] = 1.0
                    fl[bv + q] = 1.0
                    fl[be + e] = 0.0
                    fl[be + q] = 1.0
            if v.nlog >= 0:
                v.nlog = nlog
        sver, vsver = st.sver, v.sver
        if sver != vsver:  # the rules bump a seat's version whenever they write its sheet
            sheets, shown, sc = st.sheets, v.sheets, self.scale_l
            sheet_pos, total_o = v.offs[9], v.offs[5]
            reads = RUNNING_TOTAL_READS
            for p in range(len(sver)):
                behind = sver[p] - vsver[p]
                if behind:
                    # one write behind: only the fields it named can differ; further: any field
                    sh, old, pos = sheets[p], shown[p], sheet_pos[p]
                    retotal = behind != 1  # whether the running total shown may be out of date
                    for i in st.sfields[p] if behind == 1 else ALL_FIELDS:
                        x = sh[i]
                        if x != old[i]:
                            old[i] = x
                            f = x * sc[i]
                            for b in pos[i]:
                                fl[b] = f
                            if not retotal:  # a field the total reads (Rules.RUNNING_TOTAL_READS)
                                r = reads[i]
                                retotal = r == RT_ALWAYS or (r >= 0 and sh[r] != 0)
                    if retotal:
                        f = st.running_total(p) * TOTAL_SCALE  # the rules' cached total
                        for b in total_o[p]:
                            fl[b] = f
                    vsver[p] = sver[p]
        ph = st.ph
        if ph == v.ph and ph > P_DEPART and len(st.used) == v.nused:
            return True  # after the setup, the other blocks change only with the phase or the round
        return self._round_blocks(st, v)

    def _departures(self, st: GetOnBoardState, v: _Views) -> bool:
        """The first intersection of every route, once the pawns are revealed (GB-R4); False before."""
        routes = st.route
        if not routes[0]:
            return False
        fl = v.fl
        vis_o, end_o = v.offs[0], v.offs[1]
        for p in range(st.num_players):
            q = routes[p][0]
            for b in vis_o[p]:
                fl[b + q] = 1.0
            for b in end_o[p]:
                fl[b + q] = 1.0
            v.nroute[p] = 1
        v.nlog = 0
        return True

    def _round_blocks(self, st: GetOnBoardState, v: _Views) -> bool:
        """Blocks that change with the phase or the round: sheet types and personal objectives
        (setup), the round block, the inspector, claimed objectives and the own tickets."""
        n = st.num_players
        fl = v.fl
        rows = v.offs[7]
        ph = st.ph
        used = st.used
        v.ph = ph
        if ph == P_DEAL:
            if v.rnd >= 0:
                return False
            self._dealt(st, v)
        else:  # sheet types and the personal objective are dealt; the round block is public
            if v.rnd < 0:
                self._dealt(st, v)
                for b in rows:
                    fl[b + self.rnd] = 1.0
                    for c in st.common:
                        fl[b + self.commons + c] = 1.0
                v.rnd = v.nused = 0
            nu = len(used)
            if nu != v.nused:
                if nu < v.nused:
                    return False
                for b in rows:
                    fl[b + self.rnd + v.nused] = 0.0
                    fl[b + self.rnd + nu] = 1.0
                    for t in used[v.nused :]:
                        fl[b + self.used + t - 1] = 1.0
                v.nused = nu
            t = used[-1] if ph == P_PLACE else 0
            if t != v.ticket:
                for tt, on in ((v.ticket, 0.0), (t, 1.0)):
                    if tt:
                        for b in self._ticket_cells(v, tt):
                            fl[b] = on
                v.ticket = t
            if st.inspector != v.inspector:
                for r, b in enumerate(rows):
                    if v.inspector >= 0:
                        fl[b + self.inspector + (v.inspector - r) % n] = 0.0
                    fl[b + self.inspector + (st.inspector - r) % n] = 1.0
                v.inspector = st.inspector
            if st.claimed != v.claimed:
                for j, c in enumerate(st.common):
                    for b in rows:
                        fl[b + self.claimed + c] = 1.0 if st.claimed[j] else 0.0
                v.claimed = st.claimed[:]
        if not v.owned:  # own tickets and choice: dealt and chosen by the end of the departure phase
            for seat in range(n):
                own = (tuple(st.tickets[seat]), st.choice[seat])
                if own != v.own[seat]:
                    self._write_own(st, seat, v.buf[seat])
                    v.own[seat] = own
            v.owned = ph > P_DEPART
        return True

    def _ticket_cells(self, v: _Views, t: int) -> tuple[int, ...]:
        """Flat cells of ``v`` that show ticket t as the round's ticket: round.current_ticket in
        every row and, for every seat, the ticket's shape on that seat's sheet type (GB-R7)."""
        key = (tuple(v.stype), t)
        cells = self._tcells.get(key)
        if cells is None:
            shape_o, rows = v.offs[6], v.offs[7]
            at = [b + self.ticket + t - 1 for b in rows]
            for p, stype in enumerate(v.stype):
                at += [b + self.shape_idx[stype][t] for b in shape_o[p]]
            cells = self._tcells[key] = tuple(at)
        return cells

    def _dealt(self, st: GetOnBoardState, v: _Views) -> None:
        """Sheet types (public) and personal objectives (each in its own row) dealt so far."""
        fl = v.fl
        type_o = v.offs[4]
        for p in range(st.num_players):
            t = st.sheet_type[p]
            if t != v.stype[p]:
                for b in type_o[p]:
                    if v.stype[p]:
                        fl[b + v.stype[p]] = 0.0
                    if t:
                        fl[b + t] = 1.0
                v.stype[p] = t
            if st.personal[p] != v.personal[p]:
                self._write_personal(st, p, v.buf[p])
                v.personal[p] = st.personal[p]

    def _write_personal(self, st: GetOnBoardState, seat: int, row: np.ndarray) -> None:
        """My personal objective's three intersections (secret, GB-R45)."""
        m = self.game.map
        row[self.personal : self.personal + m.n] = 0.0
        if st.personal[seat] >= 0:
            for q in m.objectives[st.personal[seat]]:
                row[self.personal + q] = 1.0

    def _write_own(self, st: GetOnBoardState, seat: int, row: np.ndarray) -> None:
        """My departure tickets and my choice (secret)."""
        row[self.own_tickets : self.own_end] = 0.0
        ts = st.tickets[seat]
        for t in ts:
            row[self.own_tickets + t - 1] = 1.0
        if st.choice[seat] >= 0:
            row[self.own_choice + ts[st.choice[seat]] - 1] = 1.0

    def _step_block(self, key: tuple[int, ...]) -> np.ndarray:
        """The per-step blocks (``step.*``, contiguous from ``step.phase``) for a key of ``encode``."""
        blk = np.zeros(self.step_end - self.phase, dtype=np.float32)
        if len(key) == 2:  # (phase, current player relative to me or -1)
            ph, rel = key
            ones = [self.phase + ph] + ([self.current + rel] if rel >= 0 else [])
        else:
            ones = list(self._step_indices(*key))
        for o in ones:
            blk[o - self.phase] = 1.0
        return blk

    def _step_indices(self, legal: int, elim: int, req: int, prev: int, k: int) -> tuple[int, ...]:
        """Indices set to 1 in the per-step block for the seat placing a marker: phase, me as the
        current player, extra flag or marker index, previous direction, requirement, directions
        that would deviate (GB-R14) or eliminate (GB-R19) among the legal ones (``legal``,
        ``elim``: direction bits of ``dir_info``; ``k`` the marker index, -1 for an extra)."""
        straight, turn = REQ_NAMES["straight"], REQ_NAMES["turn"]
        offs = [
            self.phase + P_PLACE,
            self.current,
            self.extra if k < 0 else self.marker + k,
            self.prev + PREV_NONE + prev,
            self.req + req,
        ]
        for d in range(len(DIR_NAMES)):
            if legal >> d & 1:
                if (req == straight and d != prev) or (req == turn and d == prev):
                    offs.append(self.deviate + d)
                if elim >> d & 1:
                    offs.append(self.eliminate + d)
        return tuple(offs)
