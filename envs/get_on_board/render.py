"""Get on Board renders: ``render_text`` (ansi, the whole public state) and ``render_rgb``
(the street grid with contents, every route in its seat colour, and the score sheets' key numbers)."""

from __future__ import annotations

import numpy as np

from ..core.render import INK, PLAYER_COLORS, Canvas
from .data import CODES, DIR_NAMES
from .rules import (
    B0,
    BS0,
    C0,
    GR,
    IN,
    ND,
    NL,
    OSTAR,
    P_DEAL,
    P_DEPART,
    P_END,
    P_PLACE,
    SC,
    SD,
    SL,
    SSTAR,
    ST,
    T0,
    TR,
    TS0,
    TZ,
    GetOnBoardState,
)

CODE_WORDS = {
    "g": "grandma",
    "s": "student",
    "S": "school",
    "t": "tourist",
    "m": "light sight",
    "M": "dark sight",
    "b": "office worker",
    "O": "office",
}
CODE_COLORS = {
    "g": (190, 120, 190),
    "s": (80, 140, 220),
    "S": (40, 80, 170),
    "t": (240, 170, 60),
    "m": (250, 215, 120),
    "M": (150, 100, 40),
    "b": (140, 140, 140),
    "O": (70, 70, 80),
}


def _node_token(m, i: int) -> str:
    c = CODES[m.code[i]]
    tok = c if c else ("G" if m.green[i] else ".")
    if m.star[i]:
        tok += "*"
    elif m.green[i] and c:
        tok += "G"
    dep = [k for k, v in m.dep_node.items() if v == i]
    if dep:
        tok += str(dep[0])
    if m.letter[i]:
        tok += m.letter[i]
    return tok


def render_text(st: GetOnBoardState) -> str:
    g = st.game
    m = g.map
    n = st.num_players
    lines = []
    head = f"{g.name} ({m.name}) - {n} player(s) - round {len(st.used)}/{g.rounds}"
    if st.used:
        head += f" - ticket {st.used[-1]}"
    if st.inspector >= 0:
        head += f" - inspector P{st.inspector}"
    lines.append(head)
    if st.ph == P_DEAL:
        lines.append("setup: dealing sheets, objectives and departure tickets")
    elif st.ph == P_DEPART:
        lines.append(f"departure choice: P{st.cur} to choose (others' choices are secret)")
    elif st.ph == P_PLACE:
        what = "green-light extra" if st.extra else f"{st.shape_name} marker {st.k + 1}/{len(st.shape)}"
        prev = DIR_NAMES[st.prev] if st.prev >= 0 else "-"
        lines.append(f"P{st.cur} to move: {what} (previous {prev})")
    elif st.ph == P_END:
        lines.append("game over")
    if st.common:
        objs = ", ".join(
            g.commons[c]["name"] + (" (claimed)" if st.claimed[j] else "") for j, c in enumerate(st.common)
        )
        lines.append(f"common objectives: {objs}")
    # grid: nodes as 4-char tokens, roads as 3-char connectors listing seats with a marker
    by_id = {nid: i for i, nid in enumerate(m.ids)}
    rows = max(r for r, _ in m.rc)
    cols = max(c for _, c in m.rc)
    road_of = {}
    for k, (a, b) in enumerate(m.roads):
        road_of[(a, b)] = k

    def conn(a_id: int, b_id: int, vertical: bool) -> str:
        a, b = by_id.get(a_id), by_id.get(b_id)
        if a is None or b is None or (a, b) not in road_of:
            return "   "
        k = road_of[(a, b)]
        seats = "".join(str(p) for p in range(n) if st.marks[k] >> p & 1)
        if vertical:
            base = "#" if m.black[k] else "|"
            return (seats + base).ljust(3) if seats else f" {base} "
        base = "=" if m.black[k] else "-"
        return (seats + base * 3)[:3]

    for r in range(1, rows + 1):
        row = ""
        for c in range(1, cols + 1):
            nid = 10 * r + c
            if nid in by_id:
                tok = _node_token(m, by_id[nid])
                ends = "".join(str(p) for p in range(n) if st.route[p] and st.route[p][-1] == by_id[nid])
                if ends:
                    tok = (tok[:2] + "@" + ends)[:4] if len(tok) >= 2 else tok + "@" + ends[:2]
                row += f"{nid:>3} {tok:<4}"
            else:
                row += " " * 8
            if c < cols:
                row += conn(nid, nid + 1, False)
        lines.append(row)
        if r < rows:
            vrow = ""
            for c in range(1, cols + 1):
                nid = 10 * r + c
                vrow += "    " + conn(nid, nid + 10, True) + "    "
            lines.append(vrow.rstrip())
    lines.append(
        "legend: g grandma s student S school t tourist m/M light/dark sight b office worker O office "
        "G green light * star, digit = departure, letter = objective; @p route end of seat p; "
        "digits on roads = seats with a marker; = / # black road"
    )
    for p in range(n):
        sh = st.sheets[p]
        bd = st.breakdown(p)
        name = f"P{p}" + (" ELIMINATED" if st.elim[p] else "")
        stype = f"sheet {st.sheet_type[p]}" if st.sheet_type[p] else "sheet ?"
        route = "-".join(str(m.ids[q]) for q in st.route[p]) or "(no departure yet)"
        lines.append(f"{name} [{stype}] route: {route}")
        trow = "/".join(f"{sh[T0 + i]}{'x' if sh[TS0 + i] else ''}" for i in range(3))
        orow = "/".join(f"{sh[B0 + i]}{'x' if sh[BS0 + i] else ''}" for i in range(3))
        star = lambda v: "-" if v < 0 else str(v)  # noqa: E731
        lines.append(
            f"   grandmas {sh[GR]} ({bd['grandmas']}) | students {sh[ST]}+{sh[IN]} x schools {sh[SC]} "
            f"+ star {star(sh[SSTAR])} ({bd['students']}) | tourist rows {trow} ({bd['tourist_rows']}) "
            f"star sights {star(sh[SL])}/{star(sh[SD])} sights {sh[NL]}L/{sh[ND]}D | worker rows {orow} "
            f"({bd['office_rows']}) star office {star(sh[OSTAR])} | common {sh[C0]}+{sh[C0 + 1]} | "
            f"turn zone {sh[TZ]} ({bd['turn_zone']}) traffic {sh[TR]} ({bd['traffic']}) | total {st.scores()[p]:g}"
        )
    if st.ph == P_END:
        lines.append("winners: " + ", ".join(f"P{p}" for p in st.winners()))
    return "\n".join(lines)


def render_rgb(st: GetOnBoardState) -> np.ndarray:
    g = st.game
    m = g.map
    n = st.num_players
    cell = 46
    ox, oy = 40, 70
    rows = max(r for r, _ in m.rc)
    cols = max(c for _, c in m.rc)
    board_w = ox + cols * cell + 20
    width = board_w + 360
    height = max(oy + rows * cell + 90, 120 + 190 * max(n, 1))
    cv = Canvas(width, height)

    def xy(i: int) -> tuple[float, float]:
        r, c = m.rc[i]
        return ox + (c - 0.5) * cell, oy + (r - 0.5) * cell

    cv.text(
        (10, 10), f"{g.name}  round {len(st.used)}/{g.rounds}" + (f"  ticket {st.used[-1]}" if st.used else ""), size=18
    )
    sub = ""
    if st.inspector >= 0:
        sub += f"inspector P{st.inspector}   "
    if st.ph == P_PLACE:
        what = "green-light extra" if st.extra else f"{st.shape_name} marker {st.k + 1}/{len(st.shape)}"
        sub += f"P{st.cur}: {what}"
    cv.text((10, 36), sub, size=14)
    # roads
    for k, (a, b) in enumerate(m.roads):
        pa, pb = xy(a), xy(b)
        cv.line([pa, pb], fill=(30, 30, 30) if m.black[k] else (175, 175, 175), width=6 if m.black[k] else 3)
    # routes, offset per seat so shared roads show every colour
    for p in range(n):
        col = PLAYER_COLORS[p % len(PLAYER_COLORS)]
        off = (p - (n - 1) / 2) * 5
        for r in st.rroads[p]:
            a, b = m.roads[r]
            (xa, ya), (xb, yb) = xy(a), xy(b)
            if ya == yb:
                cv.line([(xa, ya + off), (xb, yb + off)], fill=col, width=5)
            else:
                cv.line([(xa + off, ya), (xb + off, yb)], fill=col, width=5)
    # intersections
    for i in range(m.n):
        x, y = xy(i)
        c = CODES[m.code[i]]
        fill = CODE_COLORS.get(c, (250, 250, 250))
        outline = (40, 160, 60) if m.green[i] else INK
        cv.circle((x, y), 13, fill=fill, outline=outline, width=4 if m.green[i] else 1)
        label = c + ("*" if m.star[i] else "")
        dep = [k for k, v in m.dep_node.items() if v == i]
        if dep:
            label = f"#{dep[0]}"
        if label:
            cv.text((x, y), label, size=11, fill=(255, 255, 255) if c in ("S", "O", "M", "b") else INK, anchor="mm")
        if m.letter[i]:
            cv.text((x + 11, y - 20), m.letter[i], size=10, fill=(120, 40, 40))
    # departures and route ends
    for p in range(n):
        if not st.route[p]:
            continue
        col = PLAYER_COLORS[p % len(PLAYER_COLORS)]
        x, y = xy(st.route[p][0])
        cv.rect((x - 16, y - 16, x + 16, y + 16), outline=col, width=3)
        x, y = xy(st.route[p][-1])
        cv.circle((x, y), 7, fill=col, outline=INK)
        if st.elim[p]:
            cv.line([(x - 10, y - 10), (x + 10, y + 10)], fill=INK, width=3)
            cv.line([(x - 10, y + 10), (x + 10, y - 10)], fill=INK, width=3)
    # legend and objectives under the board
    ly = oy + rows * cell + 6
    x = 10
    for c in ("g", "s", "S", "t", "m", "M", "b", "O"):
        cv.circle((x + 7, ly + 8), 7, fill=CODE_COLORS[c], outline=INK)
        cv.text((x + 17, ly + 1), CODE_WORDS[c], size=10)
        x += 26 + 6 * len(CODE_WORDS[c])
        if x > board_w - 60:
            x, ly = 10, ly + 18
    cv.circle((x + 7, ly + 8), 7, fill=(250, 250, 250), outline=(40, 160, 60), width=3)
    cv.text((x + 17, ly + 1), "green light", size=10)
    if st.common:
        objs = "common: " + ", ".join(
            g.commons[c]["name"] + (" (claimed)" if st.claimed[j] else "") for j, c in enumerate(st.common)
        )
        cv.text((10, ly + 22), objs, size=12)
    # score sheets
    sx = board_w
    scores = st.scores()
    for p in range(n):
        y0 = 70 + p * 190
        col = PLAYER_COLORS[p % len(PLAYER_COLORS)]
        cv.rect((sx, y0, sx + 340, y0 + 180), fill=(255, 255, 250), outline=col, width=3, radius=6)
        sh = st.sheets[p]
        bd = st.breakdown(p)
        title = f"P{p}  sheet {st.sheet_type[p] or '?'}" + ("  ELIMINATED" if st.elim[p] else "")
        cv.text((sx + 10, y0 + 8), title, size=15, fill=col)
        cv.text((sx + 230, y0 + 8), f"total {scores[p]:g}", size=15)
        rowsx = [
            f"grandmas {sh[GR]}  -> {bd['grandmas']}",
            f"students {sh[ST]}+{sh[IN]} x schools {sh[SC]} -> {bd['students']}",
            "tourists "
            + " ".join(f"{sh[T0 + i]}{'*' if sh[TS0 + i] else ''}" for i in range(3))
            + f" -> {bd['tourist_rows']} (+{bd['star_sight']})",
            "workers "
            + " ".join(f"{sh[B0 + i]}{'*' if sh[BS0 + i] else ''}" for i in range(3))
            + f" -> {bd['office_rows']} (+{bd['star_office']})",
            f"common {bd['common']}   turn zone {sh[TZ]} ({bd['turn_zone']})",
            f"traffic {sh[TR]} ({bd['traffic']})   markers {len(st.rroads[p])}",
        ]
        for j, t in enumerate(rowsx):
            cv.text((sx + 12, y0 + 34 + 23 * j), t, size=13)
    return cv.to_array()


# ----------------------------------------------------------------------------- seat view
def seat_text(st: GetOnBoardState, seat: int) -> str:
    """What only ``seat`` knows (GB-R2): its personal objective and its departure tickets (and the
    one it chose, until the pawns are revealed)."""
    m = st.game.map
    lines = [f"your secrets (P{seat}):"]
    obj = st.personal[seat]
    if obj >= 0:
        nodes = ", ".join(str(m.ids[q]) for q in m.objectives[obj])
        met = " - met" if st.personal_met(seat) else ""
        lines.append(f"  personal objective {obj}: visit {nodes}{met}")
    else:
        lines.append("  personal objective: not dealt yet")
    if st.tickets[seat]:
        tickets = ", ".join(f"#{t} (at {m.ids[m.dep_node[t]]})" for t in st.tickets[seat])
        chosen = st.choice[seat]
        pick = f"; you chose #{st.tickets[seat][chosen]}" if chosen >= 0 else ""
        lines.append(f"  departure tickets: {tickets}{pick}")
    return "\n".join(lines)
