"""Readable position builders for the Get on Board rule tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from boardzoo.envs import make_game
from boardzoo.envs.get_on_board.rules import P_DEPART, P_END, P_PLACE, P_REVEAL, TR, TZ, GetOnBoardState, new_sheet

DIRS = {"N": 0, "E": 1, "S": 2, "W": 3}


def start(
    n: int = 1, sheets=None, personals=None, commons=(0, 1), tickets=None, inspector: int = 0, choose=None, **opts
) -> GetOnBoardState:
    """A game after the setup deal and the departure choices (phase 'reveal').

    Defaults: seat p gets sheet type p+1, personal objective p, departure tickets (2p+1, 2p+2)
    and chooses the lower one (seat 0 departs from #1 = 23, seat 1 from #3 = 61, seat 2 from #5 = 97).
    """
    if n == 1:
        opts.setdefault("solo_practice", True)
    g = make_game("get_on_board_v0", **opts)
    st = g.new_initial_state(n)
    sheets = sheets or [p + 1 for p in range(n)]
    personals = personals or list(range(n))
    tickets = tickets or [(2 * p + 1, 2 * p + 2) for p in range(n)]
    choose = choose or [0] * n
    for o in list(sheets) + list(personals) + list(commons) + [t for ts in tickets for t in ts] + [inspector]:
        st.apply_action(o)
    assert st.ph == P_DEPART
    for c in choose:
        st.apply_action(4 + c)
    assert st.ph == P_REVEAL
    return st


def go(st: GetOnBoardState, moves: str) -> GetOnBoardState:
    """Play markers for the current player: 'SE' = South then East."""
    for ch in moves:
        st.apply_action(DIRS[ch])
    return st


def ids(st: GetOnBoardState, p: int = 0) -> list[int]:
    return [st.game.map.ids[q] for q in st.route[p]]


def legal_dirs(st: GetOnBoardState) -> str:
    m = st.legal_mask()
    return "".join(ch for ch, d in DIRS.items() if m[d])


def force_route(st: GetOnBoardState, p: int, path: list[int], **sheet) -> GetOnBoardState:
    """Return a copy of ``st`` where seat p's route is ``path`` (intersection ids from its departure,
    extending the route it has), as if played earlier: the new markers go on the board after all
    others, passengers replay, traffic is counted; a path whose last intersection is already on it
    eliminates the seat (GB-R19). ``sheet`` overrides sheet fields by index name (e.g. TZ=5). The
    copy is loaded through ``state_from_dict``, so it must be a consistent position."""
    from boardzoo.envs.get_on_board import rules as R

    g = st.game
    m = g.map
    d = st.to_dict()
    nodes = [m.idx[i] for i in path]
    have = d["route"][p]
    assert have and nodes[: len(have)] == have, "the path extends the seat's route (from its departure)"
    roads = []
    for a, b in zip(nodes, nodes[1:]):
        dirs = [k for k in range(4) if m.nb_node[a][k] == b]
        assert dirs, f"no road {m.ids[a]}-{m.ids[b]}"
        roads.append(m.nb_road[a][dirs[0]])
    loop = nodes[-1] in nodes[:-1]
    sh = new_sheet()
    for q in nodes[1:-1] if loop else nodes[1:]:
        if m.code[q]:
            g.rules.reach(sh, m.code[q], m.star[q])
    old = d["sheets"][p]
    sh[TZ], sh[TR], sh[R.C0], sh[R.C1] = old[TZ], old[TR], old[R.C0], old[R.C1]
    counts = [bin(x).count("1") for x in d["marks"]]
    for r in roads[len(have) - 1 :]:
        sh[TR] = min(g.rules.tr_max, sh[TR] + counts[r] + m.black[r])
        d["marks"][r] |= 1 << p
        d["log"].append(p * m.r + r)
    if loop:
        d["elim"][p] = True
        sh[R.ELIM] = 1
    for k, v in sheet.items():
        sh[getattr(R, k)] = v
    d["route"][p] = nodes
    d["rroads"][p] = roads
    d["sheets"][p] = sh
    return g.state_from_dict(json.loads(json.dumps(d)))


# Routes collecting five grandmas (common objective 1), as intersection ids.
FIVE_GRANDMAS_FROM_23 = [23, 33, 32, 42, 52, 62, 63, 64, 74, 84, 85, 86]  # 33, 62, 63's office bonus, 64, 86
FIVE_GRANDMAS_FROM_61 = [61, 62, 52, 42, 32, 33, 43, 44, 54, 64, 65, 75, 76, 86]  # 62, 32's bonus, 33, 64, 86
# Seat 2's departure #5 (97): a worker (87), a grandma (86), a tourist (96), back to 97: eliminated (GB-R19).
LOOP_FROM_97 = [97, 87, 86, 96, 97]


def finish_round(st: GetOnBoardState, prefer: str | None = "NESW") -> GetOnBoardState:
    """Let every remaining player of the round place markers (first legal in ``prefer`` order;
    ``prefer=None``: the heuristic bot plays)."""
    from boardzoo.envs.get_on_board.bot import policy

    rng = np.random.default_rng(0)
    while st.ph == P_PLACE:
        if prefer is None:
            st.apply_action(policy(st, st.cur, rng))
            continue
        m = st.legal_mask()
        a = next((DIRS[ch] for ch in prefer if m[DIRS[ch]]), None)
        st.apply_action(int(np.flatnonzero(m)[0]) if a is None else a)
    return st


def tiny_map(tmp_path: Path) -> str:
    """A 3-row test map (GB-V3): row 1 = 11 G#1 - 12 G - 13 G[a] - 14 g - 15 M (15 is a dead end),
    row 2 = 21 t#2 - 22 s[b] - 23 b#3 - 24 O[d], row 3 = 31 m#4[e] - 32 S[c]; no missing roads."""
    nodes = [
        (11, "", True, 1, ""),
        (12, "", True, 0, "f"),
        (13, "", True, 0, "a"),
        (14, "g", False, 0, ""),
        (15, "M", False, 0, ""),
        (21, "t", False, 2, ""),
        (22, "s", False, 0, "b"),
        (23, "b", False, 3, ""),
        (24, "O", False, 0, "d"),
        (31, "m", False, 4, "e"),
        (32, "S", False, 0, "c"),
    ]
    data = {
        "name": "Tiny",
        "players": [2],
        "rows": 3,
        "cols": 5,
        "intersections": [
            {"id": i, "code": c, "star": False, "green": gr, "departure": dep, "letter": let}
            for i, c, gr, dep, let in nodes
        ],
        "missing_roads": [],
        "black_roads": [[22, 23]],
        "personal_objectives": [["a", "b", "c"], ["d", "e", "f"]],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data))
    return str(path)


__all__ = [
    "DIRS",
    "start",
    "go",
    "ids",
    "legal_dirs",
    "force_route",
    "finish_round",
    "tiny_map",
    "FIVE_GRANDMAS_FROM_23",
    "FIVE_GRANDMAS_FROM_61",
    "LOOP_FROM_97",
    "P_DEPART",
    "P_END",
    "P_PLACE",
    "P_REVEAL",
    "TZ",
    "TR",
]
