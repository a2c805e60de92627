"""Metromania (``metromania_v0``): two subway lines per company dug along the edges of a hexagonal
city of triangles; seven test trips score the companies on the fastest routes (MM-R1 to MM-R55 in
RULES.md, spec ``../shared/rules/metromania.md``).

Actions (196, the same for every player count):

========  ============================================================================
0-29      START(line ln, white gate g) = 15 ln + g: the start tile, first tunnel of a Dig (MM-R11)
30-53     EXTEND(line ln, direction d, side s) = 30 + 12 ln + 2 d + s from l's head (MM-R16)
54-65     CHOOSE_MARKER(m) = 54 + m (MARKER sub-step, MM-R26)
66-192    STATION(vertex v) = 66 + v: Build station (MM-R30) or the free station (MM-R35)
193-194   END(line ln) = 193 + ln, at the black gate under l's head (MM-R33)
195       NOOP: pass (only when nothing else is legal, MM-R9) or skip the free station
========  ============================================================================

Phases: chance DISTRICT (template of slot 0..5), ROTATION (slot 0..5), DEAL (one outcome: an index
into the game's list of valid deals), START_PLAYER (MM-R53); then MAIN, DIG (the rest of a Dig,
skipped when no EXTEND is legal), MARKER, END_STATION; END.

Version history:
    v0: first release.
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): the encoder's
        per-seat planes are an incremental cache brought up to date from what the lines gained
        (rules keep each line's edges); MM-R36/R37 gate searches are remembered per line and
        reused while their path (or their "no") still holds, and the MM-R38 check settles on
        those before searching; EXTEND masks from a precomputed step table, the Dig's computed
        once per step; chance draws without arrays (the same draws); one trip network for the
        seven test trips; markers in hand remembered; the heuristic's action values (bot and
        ``action_features``) read distances from plain lists.
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): phases held as
        plain ints; chance draws without the (outcome, p) pairs; the layout written from each
        district's non-blank cells only; trip 7's lake and park corners in one pass, the trip
        network's vertex of each node listed once. A remembered "no" of the MM-R36 search holds
        until a station is added on a vertex it expanded (``station_log``), not any station; the
        MM-R38 count stops as soon as it is settled. Each line's last direction kept (``last_d``);
        the MAIN mask's station entries without sets or sorting; END tested on the head's gate first.
        The encoder writes floats (no int conversion per write), new stations from the rules' log,
        the one new tunnel's line without a set, and skips the turn counters that are 0. Trip 7's
        lake and park corners read from the districts' non-blank cells. MM-R28's meeting test
        compares the lines' kept edges (``line_edges``); ``edge_lines`` derived on demand. Which
        triangles may still take a tunnel kept in ``open`` (one read instead of three tests in the
        EXTEND mask and the gate search), set from the layout's non-blank cells. The MM-R36
        search first follows paths that come one step nearer the gate with every step (depth
        first, no queue), the best-first search only when none exists (same answers). The trip
        search's Dijkstra keeps a bucket per whole minute instead of a heap (same times).
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): the encoder writes
        the turn counters into the seat's cached board and copies it once (no buffer export of a
        fresh array per call); one memoryview of the mask per call. Markers for a destination
        looked up among the seat's markers of its kind (``owned``, from the deal) instead of
        filtering the hand, without building the list where only whether one exists matters.
        Free start gates remembered per (line, white gates used); END looked at only for a head
        on a black gate; station points counted in a plain loop; the encoder writes the lines'
        start and end entries only when a gate was used.
        The MM-R36 best-first search keeps its nodes as ints (vertex * 7 + direction + 1, the
        row of ``extend_steps``; same order, same paths); mask arrays made with a prebuilt
        dtype; the encoder finds the layout's entries once per state and starts a seat's board
        from a copy of one made once per player count.
        The trip network built in one pass (node ids in the same order); the trip search's
        Dijkstra stops at the nearest target, and the one from the targets below that time
        (the times, used lines and routes are the same).
    0.1.0 dev: faster (behaviour and observations unchanged; golden identical): the rules keep
        one log of the board's changes (``board_log``: a line started, grew or ended, a station,
        a marker, the layout, the deal); the encoder brings a seat's board up to date from the
        entries it has not read (one length test when nothing changed) instead of comparing
        every part of the state on each call, with each line's entry bases found once per board;
        the supply and the points rewritten only after a station.
        The MAIN mask's station entries from a per-seat int8 row of candidates (``cand``) kept as
        lines grow, stations go down and lines end, written as one slice (checked against
        ``build_station_vertices`` by check_invariants).
        The trip search finds the lines on fastest routes by walking back from the targets along
        the edges that are tight for the forward times, instead of a second Dijkstra and a pass
        over every ride (the same lines, times and routes; compared on 20,000 random networks).
        The end trigger's new searches skip the remembered-answer checks already made; the
        encoder writes the phase one-hot, the Dig entries, the final-round flag and the passes as
        float32 bytes from tables (two slice writes).
        The EXTEND mask reads its steps as actions (``extend_actions``); the end trigger asks a
        started line's remembered search directly; the encoder takes the usual news (one line
        grew by one tunnel) without the log loop or slices.
    0.1.0 dev: components.json must give a change 1+ minutes (a 0-minute change let the trip
        search's route walk-back cycle; the shipped data uses 3, so play is unchanged).
    0.1.0 dev: the ``action_features`` block (option, off by default) shows two-ply values within
        the mover's turn (``evaluate.turn_values``: the one-ply value plus the best one-ply value
        of the mover's next decision when the same seat decides again), as (v + 3) / 12 clipped to
        [0.01, 1], instead of the one-ply values as (v + 3) / 10: greedy play on them beats the
        one-ply heuristic 0.570 of 1000 two-player games. Play and the default observation unchanged;
        the golden playthrough with action_features regenerated.
    0.1.0 dev: faster ``action_features`` (values identical, checked on 904 states; play unchanged):
        per vertex, the distance to the nearest target destination and gate remembered per state
        lineage (``dest_distance``, ``gate_distance``; the gate search reads the same table);
        ``turn_values`` does not copy the state for a station or a pass (they end the action);
        ``clone`` shares each line's lists until one side extends the line (copy on write,
        ``_own_line``), and the layout's kinds and the deal's owners (replaced, never changed).
"""

from __future__ import annotations

import heapq
from bisect import bisect_right
from collections.abc import Iterable
from enum import IntEnum
from functools import cache, lru_cache
from itertools import permutations
from typing import Any, ClassVar

import numpy as np

from ..core.game import CHANCE, TERMINAL, Game, Option, State, slot_copier
from ..core.schema import Bool, Dict, Int, List, Spec
from .data import components
from .geometry import COM, ENT, LAKE, RES, TYPE_KIND, Geometry, district_placements, geometry, layout_kinds

A_START = 0
A_EXTEND = 30
A_MARKER = 54
A_STATION = 66
A_END = 193
A_NOOP = 195
NUM_ACTIONS = 196
NUM_MARKERS = 12
NO_STEP = 6  # "no previous direction" in the reachability search
_NOTHING: frozenset[int] = frozenset()
OPEN_BLANK, OPEN_DEST = 1, 2  # ``MetromaniaState.open``
_NO_TIME = 1 << 40  # trip time of a node not reached (above any real time)
_INT8 = np.dtype(np.int8)  # the mask's dtype (one module read, passed positionally to np.zeros)
# ``MetromaniaState.board_log`` entries: what changed on the board, in order (an incremental
# observation reads the entries added since it last looked): a line id li (started, grew or
# ended), LOG_STATION + v (a station now stands on vertex v), LOG_MARKER + m (marker m placed),
# LOG_LAYOUT (the districts are laid out) and LOG_DEAL (the markers are dealt)
LOG_STATION = 8  # above every line id (at most 4 players x 2 lines)
LOG_MARKER = 1000  # above LOG_STATION + every vertex
LOG_LAYOUT = 2000
LOG_DEAL = 2001


class Phase(IntEnum):
    DISTRICT = 0
    ROTATION = 1
    DEAL = 2
    START_PLAYER = 3
    MAIN = 4
    DIG = 5
    MARKER = 6
    END_STATION = 7
    END = 8


# The phases as plain ints (what ``phase_id`` holds; ``Phase(phase_id)`` names one): the hot paths
# compare against these module constants, as reading an IntEnum member costs a class attribute lookup.
P_DISTRICT, P_ROTATION, P_DEAL, P_START_PLAYER, P_MAIN, P_DIG, P_MARKER, P_END_STATION, P_END = map(int, Phase)
CHANCE_PHASES = (P_DISTRICT, P_ROTATION, P_DEAL, P_START_PLAYER)


def forbidden_sides(side: int) -> tuple[int, int, int]:
    """A side and its two neighbours (MM-R12, MM-R34)."""
    return (side, (side + 1) % 6, (side + 5) % 6)


def trip_search(
    line_stations: dict[int, list[int]],
    sources: Iterable[int],
    targets: Iterable[int],
    ride: int = 1,
    change: int = 3,
) -> tuple[int | None, set[int], list[int]]:
    """Fastest connection of MM-R42/R43 on (station vertex, line) nodes.

    ``line_stations[line]`` lists the station vertices along the line in order; ``sources`` and
    ``targets`` are the station vertices serving the two ends. A ride joins consecutive stations
    of one line (cost ``ride``, both directions); a change joins two lines at one vertex (cost
    ``change``). Returns (minimum time or None when there is no connection, the set of lines with a
    ride edge on at least one minimum-time route, the station vertices of one fastest route).
    Time 0 (one station serves both ends) uses no line.
    """
    return TripNet(line_stations, ride, change).search(sources, targets)


class TripNet:
    """The (station vertex, line) network of ``trip_search``, built once for several trips."""

    def __init__(self, line_stations: dict[int, list[int]], ride: int = 1, change: int = 3):
        self.ride = ride
        # node ids in order of first appearance, line by line; a line's rides join its
        # consecutive stations, a change any two nodes at one vertex (ride edges listed first)
        vertex: list[int] = []  # node id -> its station vertex
        at: dict[int, list[int]] = {}  # vertex -> its nodes
        adj: list[list[tuple[int, int]]] = []  # node -> (neighbour, minutes)
        line_of: list[int] = []  # node id -> its line (a ride joins two nodes of one line, a change two lines)
        for li, st in line_stations.items():
            ids: dict[int, int] = {}  # this line's node at each of its vertices
            x = -1
            for v in st:
                y = ids.get(v)
                if y is None:
                    y = ids[v] = len(vertex)
                    vertex.append(v)
                    line_of.append(li)
                    adj.append([])
                    at.setdefault(v, []).append(y)
                if x >= 0:
                    adj[x].append((y, ride))
                    adj[y].append((x, ride))
                x = y
        for ids_at in at.values():
            if len(ids_at) > 1:
                for i in ids_at:
                    for j in ids_at:
                        if i != j:
                            adj[i].append((j, change))
        self.at, self.adj, self.vertex, self.line_of = at, adj, vertex, line_of

    def search(self, sources: Iterable[int], targets: Iterable[int]) -> tuple[int | None, set[int], list[int]]:
        """``trip_search`` on this network."""
        at, adj = self.at, self.adj
        src = {v for v in sources if v in at}
        dst = {v for v in targets if v in at}
        if not src or not dst:
            return None, set(), []
        if src & dst:
            v = min(src & dst)
            return 0, set(), [v]

        def dijkstra(starts: set[int], targets: set[int] | None = None, limit: int = _NO_TIME) -> list[int]:
            # times are whole minutes: a bucket per time (Dial's form of Dijkstra), no heap;
            # a bucket may grow while it is read (a change of 0 minutes). Only the times up to
            # ``limit``, or up to the nearest of ``targets``, are final: a node farther away keeps
            # a time above that (or _NO_TIME), which is all the callers below need
            dist = [_NO_TIME] * len(adj)
            buckets: list[list[int]] = [[]]
            for v in starts:
                for i in at[v]:
                    dist[i] = 0
                    buckets[0].append(i)
            d = 0
            while d < len(buckets) and d <= limit:
                bucket = buckets[d]
                for i in bucket:
                    if dist[i] != d:  # reached sooner since it was put here
                        continue
                    if targets is not None and i in targets:
                        limit = d  # the nearest target: this bucket is the last one needed
                    for j, c in adj[i]:
                        nd = d + c
                        if nd < dist[j]:
                            dist[j] = nd
                            while len(buckets) <= nd:
                                buckets.append([])
                            buckets[nd].append(j)
                d += 1
            return dist

        # the times up to best are final (and only those matter: below, and in the walk back
        # along a route)
        ds = dijkstra(src, {i for v in dst for i in at[v]})
        best = min(ds[i] for v in dst for i in at[v])
        if best == _NO_TIME:
            return None, set(), []
        # the edges on fastest routes: back from the targets reached at best, along the edges x-y
        # with ds[x] + minutes == ds[y] (every minute is 1+, so this stays below best and ends);
        # a ride's line is used (the same lines as the rides x-y with ds[x] + ride + (time from y
        # to the nearest target) == best)
        line_of = self.line_of
        used = set()
        back = [i for v in dst for i in at[v] if ds[i] == best]
        done = set(back)
        while back:
            y = back.pop()
            dy = ds[y]
            for x, c in adj[y]:
                if ds[x] + c == dy:
                    if line_of[x] == line_of[y]:
                        used.add(line_of[x])
                    if x not in done:
                        done.add(x)
                        back.append(x)
        verts = self.vertex
        node = min((i for v in dst for i in at[v] if ds[i] == best), default=-1)
        route = [verts[node]]
        while ds[node] > 0:  # walk back along one fastest route
            node = min(j for j, c in adj[node] if ds[j] + c == ds[node])
            if verts[node] != route[-1]:
                route.append(verts[node])
        return int(best), used, route[::-1]


@cache
def valid_deals(marker_kind: tuple[int, ...], n: int) -> list[tuple[int, ...]]:
    """Every valid deal for ``n`` players (MM-R4 to MM-R6) as the owner seat of markers 0..11, in a fixed order."""
    if n == 2:  # MM-R6: outcome 0 gives seat 0 the left column, outcome 1 the right column
        return [tuple([0] * 6 + [1] * 6), tuple([1] * 6 + [0] * 6)]
    by_kind = {k: [m for m in range(NUM_MARKERS) if marker_kind[m] == k] for k in (RES, COM, ENT)}
    out = []
    for rp in permutations(by_kind[RES], n):
        for cp in permutations(by_kind[COM], n):
            for ep in permutations(by_kind[ENT], n):
                if any(len({rp[s] % 6, cp[s] % 6, ep[s] % 6}) < 3 for s in range(n)):
                    continue
                owner = [-1] * NUM_MARKERS
                for s in range(n):
                    owner[rp[s]] = owner[cp[s]] = owner[ep[s]] = s
                left = [m for m in range(NUM_MARKERS) if owner[m] < 0]
                if not left:
                    out.append(tuple(owner))
                    continue
                for lp in permutations(left):  # MM-R5: one leftover each, no repeated letter
                    if any(any(owner[m] == s and m % 6 == lp[s] % 6 for m in range(NUM_MARKERS)) for s in range(n)):
                        continue
                    o = list(owner)
                    for s in range(n):
                        o[lp[s]] = s
                    out.append(tuple(o))
    return out


@cache
def step_directions() -> dict[tuple[int, int], int]:
    """(v, w) -> the direction d of the lattice step v -> w."""
    g = geometry()
    return {(v, g.nbr[v * 6 + d]): d for v in range(g.num_vertices) for d in range(6) if g.nbr[v * 6 + d] >= 0}


@cache
def _hex_distance() -> np.ndarray:
    """Lattice distance between every two vertices."""
    xy = np.array(geometry().verts)
    dx = xy[:, None, 0] - xy[None, :, 0]
    dy = xy[:, None, 1] - xy[None, :, 1]
    return (np.abs(dx) + np.abs(dy) + np.abs(dx + dy)) // 2


@cache
def _uniform_cdf(k: int) -> list[float]:
    """The cumulative table numpy's ``Generator.choice(k, p=...)`` searches (side right, with one
    ``random()`` draw) for k equal chances of 1.0 / k, as the default ``State.sample_chance`` gives
    them: computed the same way, so the same draw picks the same outcome."""
    probs = np.full(k, 1.0 / k)
    cdf = (probs / probs.sum()).cumsum()
    cdf /= cdf[-1]
    return cdf.tolist()


@cache
def extend_steps() -> list[tuple[tuple[int, int, int, int], ...]]:
    """The geometric part of EXTEND: at index ``(v * 7 + a + 1) * 2 + sharp`` (head v, direction a
    of the line's last edge or -1, whether v has a station), the steps that stay on the board and
    obey MM-R19 (no U-turn; a sharp turn only at a station), as (2 d, next vertex, triangle left
    of the edge, triangle right of it; -1 where the board ends)."""
    g = geometry()
    out = []
    for v in range(g.num_vertices):
        for a in range(-1, 6):
            for sharp in (0, 1):
                steps = []
                for d in range(6):
                    if a >= 0:
                        diff = (d - a) % 6
                        if diff == 3 or (diff in (2, 4) and not sharp):
                            continue
                    k = v * 6 + d
                    if g.nbr[k] >= 0:
                        steps.append((2 * d, g.nbr[k], g.tri_left[k], g.tri_right[k]))
                out.append(tuple(steps))
    return out


@cache
def extend_actions() -> tuple[list[tuple[tuple[int, int, int, int], ...]], ...]:
    """``extend_steps`` as EXTEND actions: per line ln of a seat (0, 1), per row, the steps as
    (next vertex, triangle left, triangle right, the action onto the left one; the right one's
    is the next)."""
    return tuple(
        [tuple((w, t0, t1, A_EXTEND + 12 * ln + off) for off, w, t0, t1 in row) for row in extend_steps()]
        for ln in (0, 1)
    )


@lru_cache(maxsize=4096)
def _gate_distance(gates: tuple[int, ...]) -> list[int]:
    """Per vertex, the lattice distance to the nearest of ``gates`` (cached per set of gates)."""
    return _hex_distance()[:, list(gates)].min(axis=1).tolist()


def _dest_tables(state: MetromaniaState, seat: int) -> tuple[list[int], list[int]] | None:
    """``MetromaniaState.dest_distance``, computed."""
    kinds = {state.game.marker_kind[m] for m in state._hand(seat)}
    if not kinds:
        return None
    tris, tri_line = state.game.geo.tris, state.tri_line
    dests = [v for t, k in state._non_blank() if k in kinds and tri_line[t] < 0 for v in tris[t]]
    if not dests:
        return None
    d = _hex_distance()[:, dests]
    return d.min(axis=1).tolist(), (d <= 3).sum(axis=1).tolist()


@cache
def owned_by_kind(
    marker_kind: tuple[int, ...], owner: tuple[int, ...], n: int
) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per seat, per triangle kind (0..5), the markers the deal ``owner`` gives that seat with that
    kind, in marker order (empty for the kinds no marker has)."""
    return tuple(
        tuple(tuple(m for m in range(NUM_MARKERS) if owner[m] == s and marker_kind[m] == k) for k in range(6))
        for s in range(n)
    )


class MetromaniaGame(Game):
    """Metromania for 2-4 players."""

    env_id: ClassVar[str] = "metromania_v0"
    name: ClassVar[str] = "Metromania"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 2
    options_spec: ClassVar[dict[str, Option]] = {
        "action_features": Option(
            False, "observation ends with one heuristic value per legal action (for action_skip policies); slower"
        ),
    }
    score_scale: ClassVar[float] = 0.05
    conformance_options: ClassVar[list[dict]] = [{}, {"action_features": True}]

    num_actions = NUM_ACTIONS

    def setup(self) -> None:
        comp = components()
        self.geo: Geometry = geometry()
        self.tunnels = comp["tunnels_per_line"]
        self.dig_tunnels = comp["dig_tunnels"]
        self.supply0 = comp["stations"]
        self.scoring = dict(comp["scoring"])
        self.trigger_lines = {int(k): v for k, v in comp["end_trigger_lines"].items()}
        m = comp["markers"]
        self.letters = m["letters"]
        # marker id m = letter + 6 * column (MM spec 2); its kind (RES, COM, ENT)
        self.marker_kind = tuple(TYPE_KIND[t] for t in m["left"] + m["right"])
        self.step_dir = step_directions()
        self.deals = {n: valid_deals(self.marker_kind, n) for n in range(2, 5)}

    def new_initial_state(self, num_players: int) -> MetromaniaState:
        self.check_players(num_players)
        return MetromaniaState(self, int(num_players))

    def state_schema(self, n: int) -> Spec:
        g = self.geo
        nv, nt = g.num_vertices, g.num_triangles
        line = Dict(
            {
                "start": Int(-1, len(g.white_gates) - 1),
                "end": Int(-1, len(g.black_gates) - 1),
                "verts": List(Int(0, nv - 1), max_len=self.tunnels, unique=True),
                "tris": List(Int(0, nt - 1), max_len=self.tunnels - 1, unique=True),
            }
        )
        return Dict(
            {
                "phase": Int(0, len(Phase) - 1),
                "districts": List(Int(0, 5), max_len=6, unique=True),
                "rotations": List(Int(0, 2), max_len=6),
                "deal": Int(-1, len(self.deals[n]) - 1),
                "start": Int(0, n - 1),
                "to_move": Int(0, n - 1),
                "lines": List(line, length=2 * n),
                "markers": List(Int(-1, nt - 1), length=NUM_MARKERS),
                "stations": List(Int(0, nv - 1), max_len=self.supply0, unique=True, sorted_=True),
                "scores": List(Int(0, 999), length=n),
                "dig_left": Int(0, self.dig_tunnels),
                "covered": Bool(),
                "pending": Int(-1, 2 * n - 1),
                "end_line": Int(-1, 2 * n - 1),
                "final_left": Int(-1, n - 1),
                "passes": Int(0, n - 1),
            }
        )

    def _state_from_dict(self, d: dict) -> MetromaniaState:
        st = MetromaniaState(self, d["num_players"])
        st.phase_id = int(d["phase"])
        st.perm = list(d["districts"])
        st.rots = list(d["rotations"])
        st.deal = d["deal"]
        st.start, st.to_move = d["start"], d["to_move"]
        st.start_gate = [ln["start"] for ln in d["lines"]]
        st.end_gate = [ln["end"] for ln in d["lines"]]
        st.verts = [list(ln["verts"]) for ln in d["lines"]]
        st.tris = [list(ln["tris"]) for ln in d["lines"]]
        st.marker_tri = list(d["markers"])
        st.stations = set(d["stations"])
        st.score = list(d["scores"])
        st.dig_left, st.covered, st.pending = d["dig_left"], d["covered"], d["pending"]
        st.end_line, st.final_left, st.passes = d["end_line"], d["final_left"], d["passes"]
        st._rebuild()
        return st


class MetromaniaState(State):
    """One position of Metromania. Line id ``li = 2 * seat + ln``."""

    # every field a slot: CPython 3.11 looks methods and attributes up fast only on an instance
    # whose dict holds fewer than 30 names (this state has more), and on slots (``clone`` copies them)
    __slots__ = (
        "_dests",
        "_dig_mask",
        "_final",
        "_gate_dist",
        "_hands",
        "_mask",
        "_own_lines",
        "_reach",
        "_starts",
        "black_used",
        "board_log",
        "cand",
        "covered",
        "deal",
        "dig_left",
        "encoder_cache",
        "end_gate",
        "end_line",
        "final_left",
        "game",
        "has_station",
        "kinds",
        "last_d",
        "line_edges",
        "marker_tri",
        "num_players",
        "open",
        "owned",
        "owner",
        "passes",
        "pending",
        "perm",
        "phase_id",
        "placed",
        "rots",
        "score",
        "start",
        "start_gate",
        "station_log",
        "stations",
        "to_move",
        "tri_line",
        "tri_marker",
        "tris",
        "vert_lines",
        "verts",
        "vset",
        "white_used",
    )

    game: MetromaniaGame

    def __init__(self, game: MetromaniaGame, num_players: int):
        self.game = game
        self.num_players = n = num_players
        self.phase_id: int = P_DISTRICT
        self.perm: list[int] = []
        self.rots: list[int] = []
        self.deal = -1
        self.start = 0
        self.to_move = 0
        self.start_gate = [-1] * (2 * n)
        self.end_gate = [-1] * (2 * n)
        self.verts: list[list[int]] = [[] for _ in range(2 * n)]
        self.tris: list[list[int]] = [[] for _ in range(2 * n)]
        self.marker_tri = [-1] * NUM_MARKERS
        self.stations: set[int] = set()  # supply stations on the board (MM-R27)
        self.score = [0] * n
        self.dig_left = 0
        self.covered = False  # a destination was covered in this action (MM-R25)
        self.pending = -1  # line waiting for CHOOSE_MARKER
        self.end_line = -1  # line just ended (END_STATION)
        self.final_left = -1  # turns left after the end trigger (MM-R39); -1 = not triggered
        self.passes = 0  # consecutive passes (MM-R39)
        self._mask = None
        self.encoder_cache = None
        self._rebuild()

    # ------------------------------------------------------------ caches
    def _rebuild(self) -> None:
        """Derived tables (never saved): kinds, occupancy, stations, gates, owners."""
        g = self.game.geo
        self.kinds = layout_kinds(self.perm, self.rots) if len(self.rots) == 6 else [0] * g.num_triangles
        self.tri_line = [-1] * g.num_triangles
        self.line_edges: list[list[int]] = [[] for _ in self.verts]  # per line, its edges in order (tris[li] beside)
        self.vert_lines: dict[int, tuple[int, ...]] = {}  # tuples, replaced on change: clone copies the dict only
        self.vset: list[set[int]] = [set(v) for v in self.verts]
        self._own_lines = -1  # per line (bit li): its verts, tris, line_edges, vset are this state's own
        # per line, the direction of its last edge (-1: fewer than two vertices), as ``extend_steps`` reads it
        self.last_d = [self.game.step_dir[(vs[-2], vs[-1])] if len(vs) >= 2 else -1 for vs in self.verts]
        for li, (vs, ts) in enumerate(zip(self.verts, self.tris)):
            for t in ts:
                self.tri_line[t] = li
            for v in vs:
                self.vert_lines[v] = self.vert_lines.get(v, ()) + (li,)
            for a, b in zip(vs, vs[1:]):
                e = g.edge[a * 6 + self.game.step_dir[(a, b)]]
                self.line_edges[li].append(e)
        self._set_open()
        self.tri_marker = {t: m for m, t in enumerate(self.marker_tri) if t >= 0}
        self.owner = list(self.game.deals[self.num_players][self.deal]) if self.deal >= 0 else [-1] * NUM_MARKERS
        self._set_owned()
        self.has_station = set(self.stations)
        self.white_used = set()
        self.black_used = set()
        for li in range(2 * self.num_players):
            if self.start_gate[li] >= 0:
                self.white_used.add(self.start_gate[li])
                self.has_station.add(g.white_gates[self.start_gate[li]])
            if self.end_gate[li] >= 0:
                self.black_used.add(self.end_gate[li])
                self.has_station.add(g.black_gates[self.end_gate[li]])
        self._final: tuple | None = None
        self._dig_mask: np.ndarray | None = None  # in DIG: the mask, set by _continue_dig (never changed in place)
        self._gate_dist: dict[tuple[int, tuple[int, ...]], list[int]] = {}  # _gate_search, per free gates
        self._reach: dict[tuple[int, tuple[int, ...]], tuple] = {}  # _reach_known
        self._hands: dict[tuple[int, int, int], tuple[int, ...]] = {}  # _hand
        self._starts: dict[tuple[int, int], tuple[int, ...]] = {}  # _start_gates
        self._dests: dict[tuple[int, ...], tuple[list[int], list[int]] | None] = {}  # dest_distance
        self.placed = [t for ts in self.tris for t in ts]  # tunnels on the board, in the order placed (since loading)
        self.station_log = list(self.has_station)  # has_station's vertices, in the order added (since loading)
        # per seat, 1 at each vertex of ``_station_candidates`` (kept as lines grow, stations go down
        # and lines end); an int8 view of it is the mask's STATION part as one slice (``_legal_mask``)
        self.cand = [bytearray(g.num_vertices) for _ in range(self.num_players)]
        for p in range(self.num_players):
            self._set_cand(p)
        # the board's changes (see LOG_STATION), since loading: what the state shows, one entry each
        log = [LOG_LAYOUT] if len(self.rots) == 6 else []
        if self.deal >= 0:
            log.append(LOG_DEAL)
        log += [li for li, vs in enumerate(self.verts) if vs]
        log += [LOG_STATION + v for v in self.station_log]
        log += [LOG_MARKER + m for m in self.tri_marker.values()]
        self.board_log = log

    def _set_open(self) -> None:
        """``open[t]``: whether a tunnel may still go on triangle t as far as the board goes (free,
        MM-R22; no lake or park, MM-R17): OPEN_BLANK, OPEN_DEST (a destination: markers decide),
        or 0. One entry more, always 0, answers for t = -1 (no triangle beyond the board's edge).
        Set from the layout and the tunnels; a new tunnel closes its triangle."""
        opn = [OPEN_BLANK] * len(self.kinds) + [0]
        for t, k in self._non_blank():
            opn[t] = OPEN_DEST if k < LAKE else 0
        for ts in self.tris:
            for t in ts:
                opn[t] = 0
        self.open = opn

    def _set_owned(self) -> None:
        """``owned[seat][kind]``: the markers the deal gave ``seat`` for destinations of that kind
        (``owned_by_kind``; shared tuples, never changed in place)."""
        self.owned = owned_by_kind(self.game.marker_kind, tuple(self.owner), self.num_players)

    def _non_blank(self) -> list[tuple[int, int]]:
        """(triangle, kind) of the layout's non-blank triangles (none before it is drawn): the
        districts' non-blank cells, what ``layout_kinds`` writes into ``kinds``."""
        if len(self.rots) < 6:
            return []
        placements = district_placements()
        return [tk for s, (t, r) in enumerate(zip(self.perm, self.rots)) for tk in placements[s][t][r]]

    def clone(self) -> MetromaniaState:
        s = MetromaniaState.__new__(MetromaniaState)
        s.__dict__.update(self.__dict__)  # none but attributes set from outside
        _copy_slots(s, self)
        s.perm, s.rots = list(self.perm), list(self.rots)
        s.start_gate, s.end_gate = list(self.start_gate), list(self.end_gate)
        # per line, verts, tris, line_edges and vset are shared until one side extends the line
        # (``_own_line``: the only place they change in place; START puts new lists in)
        s.verts, s.tris, s.line_edges, s.vset = self.verts[:], self.tris[:], self.line_edges[:], self.vset[:]
        s._own_lines = self._own_lines = 0
        s.marker_tri = list(self.marker_tri)
        s.stations = set(self.stations)
        s.score = list(self.score)
        # kinds and owner are shared: set once (layout, deal) and replaced, never changed in place
        s.tri_line = list(self.tri_line)
        s.open = list(self.open)
        s.vert_lines = dict(self.vert_lines)
        s.last_d = list(self.last_d)
        s.tri_marker = dict(self.tri_marker)
        s.has_station = set(self.has_station)
        s.white_used, s.black_used = set(self.white_used), set(self.black_used)
        s._reach = dict(self._reach)  # entries are never changed in place
        s.placed = list(self.placed)
        s.station_log = list(self.station_log)
        s.board_log = list(self.board_log)
        s.cand = [bytearray(c) for c in self.cand]
        s._hands = dict(self._hands)
        s._starts = dict(self._starts)
        s._gate_dist = dict(self._gate_dist)
        s._dests = dict(self._dests)
        s.encoder_cache = None
        return s

    # ------------------------------------------------------------ queries
    @property
    def supply(self) -> int:
        return self.game.supply0 - len(self.stations)

    def started(self, li: int) -> bool:
        return self.start_gate[li] >= 0

    def finished(self, li: int) -> bool:
        return self.end_gate[li] >= 0

    def unused(self, li: int) -> int:
        """Unused tunnels of line li (MM-R1): start and end tiles come from the line's own 18."""
        if self.start_gate[li] < 0:
            return self.game.tunnels
        return self.game.tunnels - len(self.verts[li]) - (1 if self.end_gate[li] >= 0 else 0)

    @property
    def edge_lines(self) -> dict[int, list[int]]:
        """Per edge with a line on it, those lines (from ``line_edges``)."""
        out: dict[int, list[int]] = {}
        for li, es in enumerate(self.line_edges):
            for e in es:
                out.setdefault(e, []).append(li)
        return out

    def head(self, li: int) -> int:
        return self.verts[li][-1]

    def last_dir(self, li: int) -> int:
        """Direction of line li's last edge (-1: no edge yet)."""
        return self.last_d[li]

    def hand(self, seat: int) -> list[int]:
        """The markers ``seat`` still holds (in marker order)."""
        return list(self._hand(seat))

    def _hand(self, seat: int) -> tuple[int, ...]:
        """``hand``, remembered per (seat, deal, markers placed): markers only leave hands."""
        key = (seat, self.deal, len(self.tri_marker))
        h = self._hands.get(key)
        if h is None:
            h = self._hands[key] = tuple(
                m for m, (own, t) in enumerate(zip(self.owner, self.marker_tri)) if own == seat and t < 0
            )
        return h

    def start_side(self, li: int) -> int:
        return self.game.geo.white_side[self.start_gate[li]]

    def qualifying_markers(self, seat: int, t: int) -> list[int]:
        """Markers ``seat`` may put on destination triangle t (MM-R23, MM-R24): those of its
        markers of t's kind (``owned``) still in hand whose other letter does not touch t."""
        touch = self.game.geo.tri_touch[t]
        mt = self.marker_tri
        return [m for m in self.owned[seat][self.kinds[t]] if mt[m] < 0 and mt[(m + 6) % 12] not in touch]

    def tunnel_legal(self, li: int, d: int, s: int) -> bool:
        """Whether line li may be extended along direction d on side s now (MM-R16 to MM-R23, R25)."""
        if self.start_gate[li] < 0 or self.end_gate[li] >= 0 or self.unused(li) < 1:  # MM-R20
            return False
        g = self.game.geo
        h = self.verts[li][-1]
        k = h * 6 + d
        w = g.nbr[k]
        if w < 0 or w in self.vset[li]:  # MM-R18
            return False
        t = (g.tri_right if s else g.tri_left)[k]
        if t < 0 or self.tri_line[t] >= 0:  # MM-R17, MM-R22
            return False
        kind = self.kinds[t]
        if kind >= LAKE:
            return False
        vs = self.verts[li]
        if len(vs) >= 2:  # MM-R19: sharp turns only from a station already present
            diff = (d - self.game.step_dir[(vs[-2], h)]) % 6
            if diff == 3 or (diff in (2, 4) and h not in self.has_station):
                return False
        if kind != 0:  # MM-R23, MM-R25
            if self.covered or not self.qualifying_markers(li // 2, t):
                return False
        return True

    def _coverable(self, seat: int, t: int) -> bool:
        """Whether ``qualifying_markers(seat, t)`` is not empty (MM-R23, MM-R24), without the list."""
        touch = self.game.geo.tri_touch[t]
        mt = self.marker_tri
        for m in self.owned[seat][self.kinds[t]]:
            if mt[m] < 0 and mt[(m + 6) % 12] not in touch:
                return True
        return False

    def _can_dig(self, seat: int) -> bool:
        return self._extend_mask(np.zeros(NUM_ACTIONS, _INT8).data, seat)

    def start_gates(self, li: int) -> list[int]:
        """Free white gates where line li may start (MM-R11, MM-R12, MM-R21, MM-R51)."""
        if self.start_gate[li] >= 0:
            return []
        return list(self._start_gates(li))

    def _start_gates(self, li: int) -> tuple[int, ...]:
        """``start_gates`` of an unstarted line, remembered per (line, gates used) in ``_starts``:
        white gates are only taken, and the other line of the seat starts first (MM-R51), so the
        count of used gates tells the answers apart."""
        key = (li, len(self.white_used))
        out = self._starts.get(key)
        if out is None:
            out = self._starts[key] = tuple(self._free_start_gates(li))
        return out

    def _free_start_gates(self, li: int) -> list[int]:
        """``start_gates`` of an unstarted line, computed."""
        g = self.game.geo
        bad: tuple[int, ...] = ()
        if li % 2 == 1 and self.start_gate[li - 1] >= 0:
            bad = forbidden_sides(self.start_side(li - 1))
        used, side = self.white_used, g.white_side
        return [w for w in range(len(side)) if w not in used and side[w] not in bad]

    def reachable_black_gates(self, li: int, stop_at_first: bool = False) -> set[int]:
        """Free black gates reachable for line li (MM-R36): breadth-first search over (vertex,
        direction of the last edge) from its head in at most unused - 1 steps (a relaxation)."""
        g = self.game.geo
        free = {v for b, v in enumerate(g.black_gates) if b not in self.black_used}
        found: set[int] = set()
        if self.start_gate[li] < 0 or self.end_gate[li] >= 0:
            return found
        budget = self.unused(li) - 1
        if budget < 0:
            return found
        h = self.verts[li][-1]
        if h in free:
            found.add(g.black_at[h])
            if stop_at_first:
                return found
        own = self.vset[li]
        nbr, tl, tr, kinds, occ, st = g.nbr, g.tri_left, g.tri_right, self.kinds, self.tri_line, self.has_station
        d0 = self.last_dir(li)
        frontier = [(h, d0 if d0 >= 0 else NO_STEP)]
        seen = {frontier[0]}
        for _ in range(budget):
            nxt = []
            for x, a in frontier:
                sharp_ok = x in st
                for d in range(6):
                    if a != NO_STEP:
                        diff = (d - a) % 6
                        if diff == 3 or (diff in (2, 4) and not sharp_ok):
                            continue
                    k = x * 6 + d
                    y = nbr[k]
                    if y < 0 or y in own or (y, d) in seen:
                        continue
                    t1, t2 = tl[k], tr[k]
                    if not (
                        (t1 >= 0 and occ[t1] < 0 and kinds[t1] < LAKE) or (t2 >= 0 and occ[t2] < 0 and kinds[t2] < LAKE)
                    ):
                        continue
                    seen.add((y, d))
                    if y in free:
                        found.add(g.black_at[y])
                        if stop_at_first:
                            return found
                    nxt.append((y, d))
            frontier = nxt
            if not frontier:
                break
        return found

    def unfinishable(self, li: int) -> bool:
        """MM-R37."""
        known = self._unfinishable_known(li)
        return (not self._some_gate_reachable(li)) if known is None else known

    def _unfinishable_known(self, li: int) -> bool | None:
        """MM-R37 where it needs no new gate search (None: it does)."""
        if self.end_gate[li] >= 0:
            return False
        vs = self.verts[li]  # empty until the line is started
        if not vs:
            return not self._start_gates(li)
        if self.game.tunnels - len(vs) < 1:  # ``unused`` of a started, unfinished line
            return True
        known = self._reach_known(li, ())
        return None if known is None else not known

    def _some_gate_reachable(self, li: int, avoid_sides: tuple[int, ...] = ()) -> bool:
        """Whether MM-R36's search reaches a free black gate (on a side not in ``avoid_sides``):
        the remembered answer where it still holds (``_reach_known``), else a new search."""
        known = self._reach_known(li, avoid_sides)
        if known is not None:
            return known
        return self._new_reach(li, avoid_sides)

    def _new_reach(self, li: int, avoid_sides: tuple[int, ...]) -> bool:
        """``_some_gate_reachable`` by a new search (``_reach_known`` said None), remembered."""
        gate, path, visited = self._gate_search(li, avoid_sides)
        if gate >= 0:
            g = self.game.geo
            beside = frozenset(t for k in path for t in (g.tri_left[k], g.tri_right[k]) if t >= 0)
        else:
            beside = visited
        memo = (len(self.verts[li]), len(self.station_log), gate, path, beside, len(self.placed))
        self._reach[(li, avoid_sides)] = memo
        return gate >= 0

    def _reach_known(self, li: int, avoid_sides: tuple[int, ...]) -> bool | None:
        """The remembered answer of ``_some_gate_reachable`` where it still holds, else None.

        Remembered per (line, sides) in ``self._reach`` as (line length, stations added when the
        answer was last found to hold, gate vertex or -1, the path's steps, for a "yes" the
        triangles beside them and for a "no" the vertices the search expanded, tunnels placed when
        the path was last found open). While the line keeps its length (its vertices and tunnel
        budget), play elsewhere only takes triangles and gates and adds stations (which only allow
        more sharp turns, at their vertex): so a "no" holds until a station is added on a vertex
        the search expanded (``self.station_log``), and a "yes" holds while its gate is free and
        its path's edges still have a free triangle (looked at again only when a tunnel placed
        since went beside the path: ``self.placed``)."""
        key = (li, avoid_sides)
        memo = self._reach.get(key)
        if memo is None or memo[0] != len(self.verts[li]):
            return None
        length, stations, gate, path, beside, seen = memo
        if gate < 0:
            log = self.station_log
            if stations < len(log):
                if not beside.isdisjoint(log[stations:]):
                    return None
                self._reach[key] = (length, len(log), gate, path, beside, seen)
            return False
        if self.game.geo.black_at[gate] in self.black_used:
            return None
        placed = self.placed
        if seen < len(placed):
            if not beside.isdisjoint(placed[seen:]) and not self._path_free(gate, path):
                return None
            self._reach[key] = (length, stations, gate, path, beside, len(placed))
        return True

    def _path_free(self, gate: int, path: list[int]) -> bool:
        """Whether a path found by ``_gate_search`` is still open: its gate vertex is a free black
        gate and every step (``v * 6 + d``) still has a free triangle that is no lake or park."""
        g = self.game.geo
        if g.black_at[gate] in self.black_used:
            return False
        tl, tr, opn = g.tri_left, g.tri_right, self.open
        for k in path:
            if not (opn[tl[k]] or opn[tr[k]]):
                return False
        return True

    def gate_distance(self, avoid_sides: tuple[int, ...] = ()) -> list[int]:
        """Per vertex, the lattice distance to the nearest free black gate on a side not in
        ``avoid_sides`` (empty: no such gate), remembered per (gates used, sides) in ``_gate_dist``."""
        key = (len(self.black_used), avoid_sides)
        dist = self._gate_dist.get(key)
        if dist is None:  # black_used only grows: its size tells it apart within a game
            g = self.game.geo
            free = [
                v
                for b, v in enumerate(g.black_gates)
                if b not in self.black_used and g.black_side[b] not in avoid_sides
            ]
            dist = self._gate_dist[key] = _gate_distance(tuple(free)) if free else []
        return dist

    def dest_distance(self, seat: int) -> tuple[list[int], list[int]] | None:
        """For the free destination triangles of a kind ``seat`` still holds a marker for (None:
        none), per vertex: the lattice distance to the nearest of their vertices, and how many of
        their vertices (one per triangle corner) lie within distance 3. Remembered in ``_dests``
        per (seat, layout, deal, markers placed, pending line): a destination is free until a
        tunnel covers it, and every covered one gets a marker (MM-R23) or waits for one (pending),
        so within a game these tell the free set and the hand apart."""
        key = (seat, len(self.rots), self.deal, len(self.tri_marker), self.pending)
        if key in self._dests:
            return self._dests[key]
        out = self._dests[key] = _dest_tables(self, seat)
        return out

    def _gate_search(self, li: int, avoid_sides: tuple[int, ...] = ()) -> tuple[int, list[int], frozenset[int]]:
        """MM-R36's search for a free black gate (on a side not in ``avoid_sides``), best-first
        with the hex distance to the nearest such gate as an admissible bound (same answer as the
        breadth-first ``reachable_black_gates``, faster). Returns (the gate vertex reached or -1,
        the steps ``v * 6 + d`` of the path to it, last step first; for a "no", the vertices it
        expanded: only a station added on one of them could change the answer)."""
        dist = self.gate_distance(avoid_sides)
        if not dist:
            return -1, [], _NOTHING
        budget = self.unused(li) - 1
        h = self.verts[li][-1]
        if dist[h] == 0:
            return h, [], _NOTHING
        if dist[h] > budget:
            return -1, [], _NOTHING
        own = self.vset[li]
        opn, st = self.open, self.has_station
        steps = extend_steps()  # the board's edges and MM-R19's turns
        a0 = self.last_d[li]
        # first the paths that come one step nearer with every step (dist[h] <= budget steps):
        # usually one exists, found without the queue; else the full best-first search
        path: list[int] = []
        gate = self._direct_path(h, a0, dist, own, path, set())
        if gate >= 0:
            return gate, path, _NOTHING
        # a node (vertex x, direction a of the step into it, -1 at the head) as the int
        # x * 7 + a + 1, the row of ``extend_steps`` (ordered as the pairs (x, a) are)
        start = h * 7 + a0 + 1
        best = {start: 0}
        parent: dict[int, tuple[int, int]] = {}  # node -> (node before, step)
        heap = [(dist[h], 0, start)]  # (bound, -depth: deeper first among equal bounds, node)
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            _, depth, u = pop(heap)
            depth = -depth
            if best[u] < depth:
                continue
            nd = depth + 1
            x = u // 7
            for off, y, t1, t2 in steps[u * 2 + (x in st)]:
                if y in own or nd + dist[y] > budget:
                    continue
                node = y * 7 + (off >> 1) + 1
                if best.get(node, 99) <= nd or not (opn[t1] or opn[t2]):
                    continue
                if dist[y] == 0:
                    path = [x * 6 + (off >> 1)]
                    prev = u
                    while prev != start:  # parents lie strictly closer to the start
                        prev, k = parent[prev]
                        path.append(k)
                    return y, path, _NOTHING
                best[node] = nd
                parent[node] = (u, x * 6 + (off >> 1))
                push(heap, (nd + dist[y], -nd, node))
        return -1, [], frozenset(u // 7 for u in best)

    def _direct_path(self, x: int, a: int, dist: list[int], own: set[int], path: list[int], dead: set[int]) -> int:
        """``_gate_search``'s paths from x (reached along direction a) on which every step comes
        one nearer to the nearest gate (``dist``), depth first: the gate vertex reached (its steps
        appended to ``path``, last step first) or -1. ``own``: the line's vertices (MM-R18);
        ``dead``: nodes known to lead nowhere (as ints, see ``_gate_search``)."""
        opn = self.open
        near = dist[x] - 1
        for off, y, t1, t2 in extend_steps()[(x * 7 + a + 1) * 2 + (x in self.has_station)]:
            if dist[y] != near or y in own or not (opn[t1] or opn[t2]):
                continue
            d = off >> 1
            if near == 0:
                path.append(x * 6 + d)
                return y
            if y * 7 + d + 1 not in dead:
                gate = self._direct_path(y, d, dist, own, path, dead)
                if gate >= 0:
                    path.append(x * 6 + d)
                    return gate
        dead.add(x * 7 + a + 1)
        return -1

    def end_legal(self, li: int) -> bool:
        """MM-R33, MM-R34 (with its exception), MM-R20."""
        vs = self.verts[li]  # empty until the line is started
        if not vs or self.end_gate[li] >= 0:
            return False
        g = self.game.geo
        b = g.black_at[vs[-1]]  # the head's black gate first: most heads have none
        if b < 0 or b in self.black_used or self.unused(li) < 1:
            return False
        bad = forbidden_sides(self.start_side(li))
        if g.black_side[b] not in bad:
            return True
        return not self._some_gate_reachable(li, bad)

    def build_station_vertices(self, seat: int) -> list[int]:
        """MM-R30/R32: station-free vertices of own started, unfinished lines, start gate excluded."""
        return sorted(set(self._station_candidates(seat)))

    def _station_candidates(self, seat: int) -> list[int]:
        """``build_station_vertices`` unsorted, a vertex listed once per line through it. The
        start gate needs no test of its own: its start marker is a station (``has_station``)."""
        if len(self.stations) >= self.game.supply0:  # no supply (MM-R29)
            return []
        hs, sg, eg = self.has_station, self.start_gate, self.end_gate
        return [
            v for li in (2 * seat, 2 * seat + 1) if sg[li] >= 0 and eg[li] < 0 for v in self.verts[li] if v not in hs
        ]

    def _set_cand(self, seat: int) -> None:
        """``cand[seat]`` from scratch: the vertices of ``_station_candidates``, supply aside."""
        c = self.cand[seat]
        c[:] = bytes(len(c))
        hs, sg, eg = self.has_station, self.start_gate, self.end_gate
        for li in (2 * seat, 2 * seat + 1):
            if sg[li] >= 0 and eg[li] < 0:
                for v in self.verts[li]:
                    if v not in hs:
                        c[v] = 1

    def end_station_vertices(self, li: int) -> list[int]:
        """MM-R35: any station-free vertex of the line just ended."""
        if self.supply <= 0:
            return []
        return sorted(v for v in self.verts[li] if v not in self.has_station)

    def station_points(self, v: int) -> int:
        """MM-R31: triangles carrying a marker with v as a corner."""
        tm = self.tri_marker
        n = 0
        for t in self.game.geo.vert_tris[v]:
            if t in tm:
                n += 1
        return n

    # ------------------------------------------------------------ turn structure
    def current_player(self) -> int:
        ph = self.phase_id
        if ph < P_MAIN:  # CHANCE_PHASES
            return CHANCE
        if ph == P_END:
            return TERMINAL
        return self.to_move

    def phase(self) -> str:
        return Phase(self.phase_id).name.lower()

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        ph = self.phase_id
        if ph == P_DISTRICT:
            left = [t for t in range(6) if t not in self.perm]
            return [(t, 1.0 / len(left)) for t in left]
        if ph == P_ROTATION:
            return [(k, 1.0 / 3) for k in range(3)]
        if ph == P_DEAL:
            k = len(self.game.deals[self.num_players])
            return [(i, 1.0 / k) for i in range(k)]
        return [(s, 1.0 / self.num_players) for s in range(self.num_players)]

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is not int:
            return False
        ph = self.phase_id
        if ph == P_DISTRICT:
            return 0 <= outcome < 6 and outcome not in self.perm
        if ph == P_ROTATION:
            return 0 <= outcome < 3
        if ph == P_DEAL:
            return 0 <= outcome < len(self.game.deals[self.num_players])
        if ph == P_START_PLAYER:
            return 0 <= outcome < self.num_players
        return False

    def sample_chance(self, rng: np.random.Generator) -> Any:
        ph = self.phase_id
        if ph == P_DEAL:  # MM-R4/R5: uniform over the valid deals
            return int(rng.integers(len(self.game.deals[self.num_players])))
        # the other draws are uniform: the default State.sample_chance's draw over the outcomes of
        # ``chance_outcomes`` (in its order), without its arrays or the (outcome, p) pairs
        if ph == P_DISTRICT:
            perm = self.perm
            left = [t for t in range(6) if t not in perm]
            return left[bisect_right(_uniform_cdf(len(left)), rng.random())]
        k = 3 if ph == P_ROTATION else self.num_players  # outcomes 0..k-1
        return bisect_right(_uniform_cdf(k), rng.random())

    def _legal_mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, _INT8)
        out = m.data  # item writes through a memoryview: cheaper than numpy indexing
        ph = self.phase_id
        p = self.to_move
        if ph == P_MAIN:
            l0, l1 = 2 * p, 2 * p + 1
            black_at = self.game.geo.black_at
            if self.start_gate[l0] < 0:  # MM-R10, MM-R51: the first action starts line 0
                legal = self._start_gates(l0)
                for w in legal:
                    out[A_START + w] = 1
            else:
                legal = self._start_gates(l1) if self.start_gate[l1] < 0 else ()  # MM-R12
                for w in legal:
                    out[A_START + 15 + w] = 1
                # MM-R30: the station candidates kept in ``cand`` (no supply: none, MM-R29)
                stations = len(self.stations) < self.game.supply0 and 1 in self.cand[p]
                if stations:
                    out[A_STATION : A_STATION + len(self.cand[p])] = memoryview(self.cand[p]).cast("b")
                # MM-R33: a line ends only at the black gate under its head (most heads have none)
                ends = False
                for li in (l0, l1):
                    vs = self.verts[li]
                    if vs and black_at[vs[-1]] >= 0 and self.end_legal(li):
                        out[A_END + li - l0] = 1
                        ends = True
                if self._extend_mask(out, p) or stations or ends:
                    return m
            if not legal:  # MM-R9: pass only when nothing is legal
                out[A_NOOP] = 1
        elif ph == P_DIG:
            if self._dig_mask is not None:  # computed when the Dig went on (_continue_dig)
                return self._dig_mask
            self._extend_mask(out, p)
        elif ph == P_MARKER:
            t = self.tris[self.pending][-1]
            for mk in self.qualifying_markers(p, t):
                out[A_MARKER + mk] = 1
        elif ph == P_END_STATION:
            for v in self.end_station_vertices(self.end_line):
                out[A_STATION + v] = 1
            out[A_NOOP] = 1
        return m

    def _extend_mask(self, out: Any, p: int) -> bool:
        """Set the EXTEND entries of the mask (``out``: a memoryview of it; item writes through it
        are cheaper than numpy indexing): ``tunnel_legal`` for every (line, direction, side), with
        the line-level checks done once per line and the geometric ones (board edge, MM-R19's
        turns) read from ``extend_steps`` (as actions: ``extend_actions``). Returns whether any is legal."""
        opn = self.open
        tunnels = self.game.tunnels
        actions = extend_actions()
        # a destination (MM-R23, MM-R25): none once one was covered in this action; else whether
        # p holds a marker for it
        cover = not self.covered
        found = False
        for ln in (0, 1):
            li = 2 * p + ln
            vs = self.verts[li]
            # MM-R20 (unused as in ``unused``: a started, unfinished line has used len(vs))
            if self.start_gate[li] < 0 or self.end_gate[li] >= 0 or tunnels - len(vs) < 1:
                continue
            own = self.vset[li]
            h = vs[-1]
            for w, t0, t1, a in actions[ln][(h * 7 + self.last_d[li] + 1) * 2 + (h in self.has_station)]:
                if w in own:  # MM-R18
                    continue
                # side 0 (left), side 1 (right): a free triangle (MM-R17, MM-R22), blank or a destination
                c = opn[t0]
                if c == OPEN_BLANK or (c and cover and self._coverable(p, t0)):
                    out[a] = 1
                    found = True
                c = opn[t1]
                if c == OPEN_BLANK or (c and cover and self._coverable(p, t1)):
                    out[a + 1] = 1
                    found = True
        return found

    def _apply(self, a: Any) -> None:
        ph = self.phase_id
        if ph < P_MAIN:  # CHANCE_PHASES
            self._apply_chance(a)
            return
        p = self.to_move
        if a < A_EXTEND:  # START (MM-R11): first tunnel of a Dig
            li = 2 * p + a // 15
            self.start_gate[li] = gate = a % 15
            v = self.game.geo.white_gates[gate]
            self.verts[li] = [v]
            self.vset[li] = {v}
            self.vert_lines[v] = self.vert_lines.get(v, ()) + (li,)
            self.white_used.add(gate)
            self.board_log.append(li)
            self._add_station(v)  # MM-R27: the start marker counts as a station
            self.dig_left = self.game.dig_tunnels - 1
            self._continue_dig()
        elif a < A_MARKER:
            r = a - A_EXTEND
            li = 2 * p + r // 12
            if ph == P_MAIN:
                self.dig_left = self.game.dig_tunnels
            self._extend(li, (r % 12) // 2, r % 2)
        elif a < A_STATION:  # CHOOSE_MARKER (MM-R26)
            li = self.pending
            self._place_marker(a - A_MARKER, self.tris[li][-1])
            self.pending = -1
            self._after_tunnel(li)
        elif a < A_END:  # STATION: Build station (MM-R30) or the free station (MM-R35)
            self._place_station(a - A_STATION)
            self._end_action()
        elif a < A_NOOP:  # END (MM-R33)
            li = 2 * p + a - A_END
            g = self.game.geo
            h = self.verts[li][-1]
            self.end_gate[li] = b = g.black_at[h]
            self.black_used.add(b)
            self.board_log.append(li)
            self._add_station(h)
            self._set_cand(p)  # the line's vertices are no longer candidates (but for the other line's)
            if self.end_station_vertices(li):
                self.end_line = li
                self.phase_id = P_END_STATION
            else:
                self._end_action()
        else:  # NOOP: pass, or skip the free station
            self._end_action(passed=ph == P_MAIN)

    def _apply_chance(self, a: int) -> None:
        ph = self.phase_id
        if ph == P_DISTRICT:
            self.perm.append(a)
            if len(self.perm) == 6:
                self.phase_id = P_ROTATION
        elif ph == P_ROTATION:
            self.rots.append(a)
            if len(self.rots) == 6:
                self.kinds = layout_kinds(self.perm, self.rots)
                self._set_open()
                self.board_log.append(LOG_LAYOUT)
                self.phase_id = P_DEAL
        elif ph == P_DEAL:
            self.deal = a
            self.owner = list(self.game.deals[self.num_players][a])
            self._set_owned()
            self.board_log.append(LOG_DEAL)
            self.phase_id = P_START_PLAYER
        else:  # MM-R8
            self.start = self.to_move = a
            self.phase_id = P_MAIN

    def _own_line(self, li: int) -> None:
        """Give this state its own copies of line li's lists (``clone`` shares them)."""
        self.verts[li] = self.verts[li][:]
        self.tris[li] = self.tris[li][:]
        self.line_edges[li] = self.line_edges[li][:]
        self.vset[li] = set(self.vset[li])
        self._own_lines |= 1 << li

    def _extend(self, li: int, d: int, s: int) -> None:
        """MM-R52 step 1: the tunnel goes on its triangle, the edge joins the line, w is the head."""
        g = self.game.geo
        h = self.verts[li][-1]
        k = h * 6 + d
        w = g.nbr[k]
        t = (g.tri_right if s else g.tri_left)[k]
        if not self._own_lines >> li & 1:  # this line's lists are shared with a clone: copy on write
            self._own_line(li)
        self.verts[li].append(w)
        self.vset[li].add(w)
        if w not in self.has_station:
            self.cand[li // 2][w] = 1
        self.last_d[li] = d
        self.tris[li].append(t)
        self.tri_line[t] = li
        self.open[t] = 0
        self.line_edges[li].append(g.edge[k])
        self.placed.append(t)
        self.board_log.append(li)
        self.vert_lines[w] = self.vert_lines.get(w, ()) + (li,)
        self.dig_left -= 1
        if self.kinds[t]:  # MM-R52 step 2 (MM-R23, MM-R26)
            self.covered = True
            q = self.qualifying_markers(li // 2, t)
            if len(q) > 1:
                self.pending = li
                self.phase_id = P_MARKER
                return
            self._place_marker(q[0], t)
        self._auto_station(li)  # MM-R52 step 3 (``_after_tunnel``)
        self._continue_dig()  # step 4

    def _place_marker(self, m: int, t: int) -> None:
        self.marker_tri[m] = t
        self.tri_marker[t] = m
        self.board_log.append(LOG_MARKER + m)
        self._final = None

    def _after_tunnel(self, li: int) -> None:
        self._auto_station(li)  # MM-R52 step 3
        self._continue_dig()  # step 4

    def _auto_station(self, li: int) -> None:
        """MM-R28/R29: after line li was extended from h, a meeting with another line at h makes a station."""
        vs = self.verts[li]
        h = vs[-2]
        if h in self.has_station or len(vs) < 3 or len(self.stations) >= self.game.supply0:  # MM-R29
            return
        lines = self.vert_lines[h]
        if len(lines) < 2:  # only line li at h
            return
        # a line's edges in order: edge j joins its vertices j and j + 1
        mine = self.line_edges[li][-2:]  # the two edges of li at h
        for other in lines:
            if other == li:
                continue
            ov = self.verts[other]
            i = ov.index(h)
            if i == 0 or i == len(ov) - 1:  # M has one edge at h: wait until M is extended
                continue
            oe = self.line_edges[other]
            if oe[i - 1] not in mine or oe[i] not in mine:  # not the same two edges (MM-R28)
                self._place_station(h)
                return

    def _place_station(self, v: int) -> None:
        """A supply station on v; the active player scores MM-R31."""
        self.stations.add(v)
        self._add_station(v)
        self.score[self.to_move] += self.station_points(v)

    def _add_station(self, v: int) -> None:
        """A station (supply station, start or end marker) stands on v: ``has_station`` and its log."""
        if v not in self.has_station:
            self.has_station.add(v)
            self.station_log.append(v)
            for c in self.cand:
                c[v] = 0
            self.board_log.append(LOG_STATION + v)

    def _continue_dig(self) -> None:
        """MM-R14: the Dig goes on while tunnels are left and some placement is legal. The DIG
        mask computed for that is kept (``_dig_mask``) as the next decision's mask."""
        if self.dig_left > 0:
            m = np.zeros(NUM_ACTIONS, _INT8)
            if self._extend_mask(m.data, self.to_move):
                self._dig_mask = m
                self.phase_id = P_DIG
                return
        self._end_action()

    def triggered(self) -> bool:
        """MM-R38 end triggers."""
        n = self.num_players
        eg = self.end_gate
        for p in range(n):
            if eg[2 * p] >= 0 and eg[2 * p + 1] >= 0:
                return True
        if len(self.stations) >= self.game.supply0:  # no supply left
            return True
        need = self.game.trigger_lines[n]
        done = 2 * n - eg.count(-1)  # finished lines
        if done >= need:
            return True
        # MM-R37 for the unfinished lines: first the answers known without a new gate search
        # (``_unfinishable_known``), then searches as needed; each stops as soon as the count is
        # settled (``left``: unfinished lines not looked at yet, which could still count)
        left = 2 * n - done
        unknown = []
        verts, tunnels = self.verts, self.game.tunnels
        for li in range(2 * n):
            if eg[li] >= 0:
                continue
            vs = verts[li]
            if vs and tunnels - len(vs) >= 1:  # ``_unfinishable_known`` of a line with tunnels left
                reach = self._reach_known(li, ())
                known = None if reach is None else not reach
            else:
                known = self._unfinishable_known(li)
            if known is None:
                unknown.append(li)
                continue
            left -= 1
            if known:
                done += 1
                if done >= need:
                    return True
            elif done + left < need:
                return False
        for li in unknown:  # ``_unfinishable_known`` said None: a started line, a new search
            if done + left < need:
                return False
            left -= 1
            if not self._new_reach(li, ()):
                done += 1
                if done >= need:
                    return True
        return False

    def _end_action(self, passed: bool = False) -> None:
        """MM-R38/R39: end triggers, the final round, the next seat."""
        n = self.num_players
        self.dig_left = 0
        self.covered = False
        self.pending = -1
        self.end_line = -1
        self.passes = self.passes + 1 if passed else 0
        if self.passes >= n:
            self._finish()
            return
        if self.final_left < 0:
            if self.triggered():
                self.final_left = n - 1
        else:
            self.final_left -= 1
        if self.final_left == 0:
            self._finish()
            return
        self.to_move = (self.to_move + 1) % n
        self.phase_id = P_MAIN

    def _finish(self) -> None:
        self.phase_id = P_END
        self.passes = 0
        self._final = None

    # ------------------------------------------------------------ final scoring
    def line_stations(self) -> dict[int, list[int]]:
        """Station vertices along every started line, in order (MM-R41/R43)."""
        st = self.has_station
        return {li: [v for v in vs if v in st] for li, vs in enumerate(self.verts) if vs}

    def trips(self) -> list[dict]:
        """The seven test trips (MM-R40 to MM-R46): per trip whether it runs, its time (None: no
        connection), the used lines, the seats scoring and the seats penalised."""
        g = self.game.geo
        sc = self.game.scoring
        net = TripNet(self.line_stations(), sc["ride_minutes"], sc["change_minutes"])  # one network, 7 trips
        out: list[dict] = []
        for trip in range(7):
            if trip < 6:
                a, b = self.marker_tri[trip], self.marker_tri[trip + 6]
                if a < 0 or b < 0:  # MM-R46
                    out.append({"run": False, "time": None, "lines": [], "scorers": [], "penalised": [], "route": []})
                    continue
                src = set(g.tris[a])
                dst = set(g.tris[b])
            else:
                src, dst = self._lake_park_vertices()
            src &= self.has_station
            dst &= self.has_station
            time, used, route = net.search(src, dst)
            scorers = sorted({li // 2 for li in used})  # MM-R44
            pen = []
            if time is None and trip < 6:  # MM-R45
                pen = sorted({self.owner[trip], self.owner[trip + 6]})
            out.append(
                {"run": True, "time": time, "lines": sorted(used), "scorers": scorers, "penalised": pen, "route": route}
            )
        return out

    def _lake_park_vertices(self) -> tuple[set[int], set[int]]:
        """The corners of lake triangles and of park triangles (trip 7, MM-R40)."""
        lake: set[int] = set()
        park: set[int] = set()
        tris = self.game.geo.tris
        for t, k in self._non_blank():
            if k >= LAKE:
                (lake if k == LAKE else park).update(tris[t])
        return lake, park

    def final_scoring(self) -> tuple[list[int], list[int], list[dict]]:
        """(final points per seat added to the game's points, trips scored per seat, trips)."""
        if self._final is not None:
            return self._final
        n = self.num_players
        sc = self.game.scoring
        add = [0] * n
        count = [0] * n
        trips = self.trips()
        for tr in trips:
            for p in tr["scorers"]:
                add[p] += sc["trip_points"]
                count[p] += 1
            for p in tr["penalised"]:
                add[p] += sc["no_connection_penalty"]
        for m in range(NUM_MARKERS):  # MM-R47
            if self.marker_tri[m] < 0 and self.owner[m] >= 0:
                add[self.owner[m]] += sc["marker_in_hand_penalty"]
        for li in range(2 * n):  # MM-R48
            if self.end_gate[li] < 0:
                add[li // 2] += sc["unfinished_line_penalty"]
        self._final = (add, count, trips)
        return self._final

    def scores(self) -> list[float]:
        """MM-R55: the totals after final scoring (at the end), else the points so far."""
        if self.phase_id != P_END:
            return [float(x) for x in self.score]
        add = self.final_scoring()[0]
        return [float(x + y) for x, y in zip(self.score, add)]

    def winners(self) -> list[int]:
        """MM-R49: highest score, then more trips scored; a remaining tie is shared."""
        s = self.scores()
        count = self.final_scoring()[1] if self.phase_id == P_END else [0] * self.num_players
        best = max((s[p], count[p]) for p in range(self.num_players))
        return [p for p in range(self.num_players) if (s[p], count[p]) == best]

    # ------------------------------------------------------------ saved states
    def _to_dict(self) -> dict:
        return {
            "phase": self.phase_id,
            "districts": list(self.perm),
            "rotations": list(self.rots),
            "deal": self.deal,
            "start": self.start,
            "to_move": self.to_move,
            "lines": [
                {"start": self.start_gate[li], "end": self.end_gate[li], "verts": list(vs), "tris": list(ts)}
                for li, (vs, ts) in enumerate(zip(self.verts, self.tris))
            ],
            "markers": list(self.marker_tri),
            "stations": sorted(self.stations),
            "scores": list(self.score),
            "dig_left": self.dig_left,
            "covered": self.covered,
            "pending": self.pending,
            "end_line": self.end_line,
            "final_left": self.final_left,
            "passes": self.passes,
        }

    def check_invariants(self) -> None:
        g = self.game.geo
        n = self.num_players
        ph = self.phase_id
        sd = self.game.step_dir
        setup = ph in CHANCE_PHASES
        want_perm = 6 if ph >= P_ROTATION else len(self.perm)
        assert len(self.perm) == want_perm and len(self.rots) == (6 if ph >= P_DEAL else len(self.rots))
        if ph == P_DISTRICT:
            assert len(self.perm) < 6 and not self.rots, "MM-R53: districts first"
        if ph == P_ROTATION:
            assert len(self.rots) < 6
        assert (self.deal >= 0) == (ph >= P_START_PLAYER), "MM-R53: the deal comes after the layout"
        if ph <= P_START_PLAYER:
            assert self.start == 0 and self.to_move == 0, "no seat before the start player is drawn"
        if setup:
            assert not any(self.verts) and not self.stations and not any(self.score), "nothing is built in setup"
            assert all(t < 0 for t in self.marker_tri) and self.start_gate == [-1] * (2 * n)
            assert self.end_gate == [-1] * (2 * n)
        starts = [x for x in self.start_gate if x >= 0]
        ends = [x for x in self.end_gate if x >= 0]
        assert len(set(starts)) == len(starts) and len(set(ends)) == len(ends), "MM-R21: a gate is used once"
        all_tris: list[int] = []
        for li in range(2 * n):
            vs, ts = self.verts[li], self.tris[li]
            if self.start_gate[li] < 0:
                assert not vs and not ts and self.end_gate[li] < 0, "an unstarted line has nothing on the board"
                continue
            if li % 2 == 1:
                assert self.start_gate[li - 1] >= 0, "MM-R51: line 0 starts first"
                assert g.white_side[self.start_gate[li]] not in forbidden_sides(self.start_side(li - 1)), "MM-R12"
            assert vs and vs[0] == g.white_gates[self.start_gate[li]], "MM-R11: a line begins at its start gate"
            assert len(ts) == len(vs) - 1, "one tunnel per edge"
            assert self.unused(li) >= 0, "MM-R1: 18 tunnels per line"
            for i, (a, b) in enumerate(zip(vs, vs[1:])):
                d = sd.get((a, b))
                assert d is not None, "consecutive line vertices are lattice neighbours"
                assert ts[i] in (g.tri_left[a * 6 + d], g.tri_right[a * 6 + d]), "a tunnel lies beside its edge"
                assert self.kinds[ts[i]] < LAKE, "MM-R17: no tunnel on a lake or park"
                if i >= 1:
                    diff = (d - sd[(vs[i - 1], a)]) % 6
                    assert diff in (0, 1, 5) or a in self.has_station, "MM-R19: sharp turns only at a station"
            if self.end_gate[li] >= 0:
                assert g.black_gates[self.end_gate[li]] == vs[-1], "MM-R33: a line ends at its head's black gate"
            all_tris += ts
        assert len(set(all_tris)) == len(all_tris), "MM-R17: one tunnel per triangle"
        placed = [m for m in range(NUM_MARKERS) if self.marker_tri[m] >= 0]
        for m in placed:
            t = self.marker_tri[m]
            assert self.tri_line[t] >= 0, "a marker lies on a tunnel"
            assert self.owner[m] == self.tri_line[t] // 2, "MM-R23: the digging player places his own marker"
            assert self.kinds[t] == self.game.marker_kind[m], "MM-R23: the marker's type matches the triangle"
            o = self.marker_tri[(m + 6) % 12]
            assert o not in g.tri_touch[t], "MM-R24: same letters never touch"
        assert len(set(self.marker_tri[m] for m in placed)) == len(placed), "one marker per triangle"
        open_dest = [t for t in all_tris if self.kinds[t] and t not in self.tri_marker]
        if ph == P_MARKER:
            assert 0 <= self.pending < 2 * n and self.pending // 2 == self.to_move
            assert open_dest == [self.tris[self.pending][-1]], "MM-R52: only the newest destination awaits a marker"
            assert len(self.qualifying_markers(self.to_move, open_dest[0])) >= 2 and self.covered
        else:
            assert self.pending == -1 and not open_dest, "MM-R23: every covered destination carries a marker"
        for v in self.stations:
            assert v in self.vert_lines, "MM-R27: stations stand on lines"
        if len(self.stations) < self.game.supply0:
            for p in range(n):
                assert [v for v, c in enumerate(self.cand[p]) if c] == self.build_station_vertices(p), "cand"
        assert len(self.stations) <= self.game.supply0, "MM-R29: 30 stations"
        if ph in (P_MAIN, P_END) or setup:
            assert self.dig_left == 0 and not self.covered and self.end_line == -1
        if ph == P_DIG:
            assert 1 <= self.dig_left < self.game.dig_tunnels and self._can_dig(self.to_move), "MM-R14"
        if ph == P_MARKER:
            assert 0 <= self.dig_left < self.game.dig_tunnels
        if ph == P_END_STATION:
            li = self.end_line
            assert 0 <= li < 2 * n and li // 2 == self.to_move and self.finished(li), "MM-R35"
            assert self.end_station_vertices(li) and self.dig_left == 0 and not self.covered
        else:
            assert self.end_line == -1
        if ph != P_MARKER:
            assert not self.covered or ph == P_DIG
        if self.deal < 0:
            assert self.final_left == -1 and self.passes == 0
        if ph == P_MAIN:
            assert self.final_left != 0
            if self.final_left < 0:
                assert not self.triggered(), "MM-R38: a trigger starts the final round"
        if ph == P_END:
            assert self.passes == 0
        if self.final_left >= 0:
            assert self.passes == 0 or ph != P_END

    def action_to_string(self, a: Any) -> str:
        ph = self.phase_id
        if ph == P_DISTRICT:
            return f"slot {len(self.perm)}: district D{a + 1}"
        if ph == P_ROTATION:
            return f"slot {len(self.rots)}: rotation {a}"
        if ph == P_DEAL:
            return f"deal {a}"
        if ph == P_START_PLAYER:
            return f"start player {a}"
        if a < A_EXTEND:
            return f"start line {a // 15} at white gate {a % 15}"
        if a < A_MARKER:
            r = a - A_EXTEND
            return f"extend line {r // 12} dir {(r % 12) // 2} {'right' if r % 2 else 'left'}"
        if a < A_STATION:
            m = a - A_MARKER
            return f"marker {self.game.letters[m % 6]}{'LR'[m // 6]}"
        if a < A_END:
            v = a - A_STATION
            return f"station at {self.game.geo.verts[v]}"
        if a < A_NOOP:
            return f"end line {a - A_END}"
        return "skip" if ph == P_END_STATION else "pass"


_copy_slots = slot_copier(MetromaniaState)


__all__ = [
    "A_END",
    "A_EXTEND",
    "A_MARKER",
    "A_NOOP",
    "A_START",
    "A_STATION",
    "COM",
    "ENT",
    "NUM_ACTIONS",
    "RES",
    "MetromaniaGame",
    "MetromaniaState",
    "Phase",
    "trip_search",
]
