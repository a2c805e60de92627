"""Text (ansi) and picture (rgb_array) renderings of Metromania.

The picture shows the hexagonal city (districts outlined, destination, lake and park triangles
coloured), every tunnel tinted in its company's colour, both lines of every company along the
triangle edges (line 0 solid, line 1 dashed; a line is drawn slightly towards its tunnel so
parallel lines stay apart), stations, gates, markers, and at the end the seven test trips: one
fastest route of each drawn in black with its letter, and the results beside the board.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.render import INK, PAPER, PLAYER_COLORS, Canvas
from .geometry import BLANK, COM, ENT, LAKE, PARK, RES
from .rules import NUM_MARKERS, MetromaniaState, Phase

KIND_FILL = {
    BLANK: (238, 234, 222),
    RES: (250, 226, 160),
    COM: (180, 210, 245),
    ENT: (240, 190, 215),
    LAKE: (40, 90, 185),
    PARK: (45, 110, 50),
}
KIND_CHAR = {BLANK: ".", RES: "R", COM: "C", ENT: "E", LAKE: "~", PARK: "*"}
TRIP_NAMES = "ABCDEF7"


def _marker_name(state: MetromaniaState, m: int) -> str:
    return f"{state.game.letters[m % 6]}{'RCE'[state.game.marker_kind[m] - 1]}"


def render_text(state: MetromaniaState) -> str:
    g = state.game.geo
    n = state.num_players
    head = f"Metromania, {n} players, phase {state.phase()}, station supply {state.supply}"
    if state.phase_id >= Phase.MAIN and state.phase_id != Phase.END:
        head += f", seat {state.to_move} to move"
        if state.phase_id == Phase.DIG:
            head += f" (Dig: {state.dig_left} tunnel(s) left)"
    if state.final_left >= 0 and state.phase_id != Phase.END:
        head += f", final round: {state.final_left} turn(s) left"
    lines = [head]
    if state.phase_id < Phase.DEAL:
        lines.append(f"districts {[f'D{t + 1}' for t in state.perm]} rotations {state.rots}")
        return "\n".join(lines)
    lines.append(
        "districts " + " ".join(f"slot{s}:D{t + 1}/r{r}" for s, (t, r) in enumerate(zip(state.perm, state.rots)))
    )
    scores = state.scores()
    for p in range(n):
        mark = ">" if p == state.current_player() else " "
        hand = " ".join(_marker_name(state, m) for m in state.hand(p)) or "-"
        lines.append(f"{mark} seat {p}: {scores[p]:g} points; markers in hand: {hand}")
        for ln in (0, 1):
            li = 2 * p + ln
            if state.start_gate[li] < 0:
                lines.append(f"    line {ln}: not started")
                continue
            path = "-".join(f"{g.verts[v][0]},{g.verts[v][1]}" for v in state.verts[li])
            status = "finished" if state.finished(li) else f"{state.unused(li)} tunnels left"
            lines.append(f"    line {ln} ({status}): {path}")
    placed = [m for m in range(NUM_MARKERS) if state.marker_tri[m] >= 0]
    if placed:
        txt = [f"{_marker_name(state, m)}@{g.tris[state.marker_tri[m]]}(seat {state.owner[m]})" for m in placed]
        lines.append("markers placed: " + ", ".join(txt))
    st = sorted(state.has_station)
    lines.append("stations: " + (" ".join(f"{g.verts[v][0]},{g.verts[v][1]}" for v in st) or "-"))
    lines.append("board (rows y = 6 .. -6; . free vertex, S station, 0-3 vertex on seat's line, w/b free gate):")
    for y in range(6, -7, -1):
        row = []
        for x in range(-6, 7):
            v = g.vidx.get((x, y))
            if v is None:
                continue
            if v in state.has_station:
                c = "S"
            elif v in state.vert_lines:
                c = str(state.vert_lines[v][0] // 2)
            elif g.white_at[v] >= 0 and g.white_at[v] not in state.white_used:
                c = "w"
            elif g.black_at[v] >= 0 and g.black_at[v] not in state.black_used:
                c = "b"
            else:
                c = "."
            row.append(c)
        lines.append(" " * abs(y) + " ".join(row))
    if state.phase_id == Phase.END:
        add, count, trips = state.final_scoring()
        for i, tr in enumerate(trips):
            if not tr["run"]:
                lines.append(f"trip {TRIP_NAMES[i]}: not run (a marker was never placed)")
            elif tr["time"] is None:
                lines.append(f"trip {TRIP_NAMES[i]}: no connection; penalised {tr['penalised']}")
            else:
                lines.append(f"trip {TRIP_NAMES[i]}: {tr['time']} min, lines {tr['lines']}, scoring {tr['scorers']}")
        lines.append(f"final scoring {add}, trips scored {count}; winners: {state.winners()}")
    return "\n".join(lines)


SCALE = 44.0
MARGIN = 40.0
PANEL = 300


def _xy(p: tuple[int, int]) -> tuple[float, float]:
    x, y = p
    return (
        MARGIN + 6 * SCALE + SCALE * (x + y / 2),
        MARGIN + 6 * SCALE * math.sqrt(3) / 2 - SCALE * y * math.sqrt(3) / 2,
    )


def _tint(c, k=0.55):
    return tuple(int(k * a + (1 - k) * 255) for a in c)


def render_rgb(state: MetromaniaState) -> np.ndarray:
    g = state.game.geo
    n = state.num_players
    w = int(2 * MARGIN + 12 * SCALE)
    h = int(2 * MARGIN + 12 * SCALE * math.sqrt(3) / 2)
    c = Canvas(w + PANEL, max(h, 160 + 110 * n + (200 if state.phase_id == Phase.END else 0)), PAPER)
    P = [_xy(v) for v in g.verts]
    cent = [tuple(sum(P[v][i] for v in t) / 3 for i in (0, 1)) for t in g.tris]
    for t, tri in enumerate(g.tris):  # triangles
        li = state.tri_line[t]
        fill = KIND_FILL[state.kinds[t]] if state.phase_id >= Phase.DEAL else KIND_FILL[BLANK]
        if li >= 0 and state.kinds[t] == BLANK:
            fill = _tint(PLAYER_COLORS[li // 2], 0.35)
        c.polygon([P[v] for v in tri], fill=fill, outline=(205, 200, 190))
        if li >= 0 and state.kinds[t] != BLANK:
            c.circle(cent[t], 6, fill=_tint(PLAYER_COLORS[li // 2], 0.6), outline=None)
    o = P[g.vidx[(0, 0)]]
    for s in range(6):  # district slots
        corner = P[g.vidx[(6 * [1, 0, -1, -1, 0, 1][s], 6 * [0, 1, 1, 0, -1, -1][s])]]
        c.line([o, corner], fill=(120, 115, 105), width=2)
    hexa = [P[g.vidx[(6 * dx, 6 * dy)]] for dx, dy in ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))]
    c.line(hexa + [hexa[0]], fill=INK, width=3)
    for m in range(NUM_MARKERS):  # destination markers
        t = state.marker_tri[m]
        if t >= 0:
            x, y = cent[t]
            c.rect((x - 8, y - 8, x + 8, y + 8), fill=(255, 255, 255), outline=PLAYER_COLORS[state.owner[m]], width=2)
            c.text((x, y), state.game.letters[m % 6], size=12, anchor="mm")
    for li, vs in enumerate(state.verts):  # lines, drawn a little towards their tunnels
        col = PLAYER_COLORS[li // 2]
        for i, (a, b) in enumerate(zip(vs, vs[1:])):
            tc = cent[state.tris[li][i]]
            mid = ((P[a][0] + P[b][0]) / 2, (P[a][1] + P[b][1]) / 2)
            dx, dy = (tc[0] - mid[0]) * 0.28, (tc[1] - mid[1]) * 0.28
            pa, pb = (P[a][0] + dx, P[a][1] + dy), (P[b][0] + dx, P[b][1] + dy)
            if li % 2 == 0:
                c.line([pa, pb], fill=col, width=5)
            else:
                for k in range(4):
                    f0, f1 = k / 4, k / 4 + 0.15
                    c.line(
                        [
                            (pa[0] + (pb[0] - pa[0]) * f0, pa[1] + (pb[1] - pa[1]) * f0),
                            (pa[0] + (pb[0] - pa[0]) * f1, pa[1] + (pb[1] - pa[1]) * f1),
                        ],
                        fill=col,
                        width=5,
                    )
        if vs and not state.finished(li):
            c.circle(P[vs[-1]], 4, fill=col, outline=INK)
    for gate, v in enumerate(g.white_gates):  # gates, outside the city edge
        x, y = P[v]
        ox, oy = (x - o[0]) * 0.07, (y - o[1]) * 0.07
        used = [li for li in range(2 * n) if state.start_gate[li] == gate]
        c.circle((x + ox, y + oy), 7, fill=PLAYER_COLORS[used[0] // 2] if used else (255, 255, 255), outline=INK)
    for gate, v in enumerate(g.black_gates):
        x, y = P[v]
        ox, oy = (x - o[0]) * 0.07, (y - o[1]) * 0.07
        used = [li for li in range(2 * n) if state.end_gate[li] == gate]
        c.circle((x + ox, y + oy), 7, fill=INK, outline=PLAYER_COLORS[used[0] // 2] if used else INK, width=3)
    for v in state.has_station:  # stations
        c.circle(P[v], 6, fill=(255, 255, 255), outline=INK, width=2)
    # side panel
    x0 = w + 10
    c.text((x0, 12), f"Metromania - {state.phase()}", size=18)
    c.text((x0, 38), f"stations in supply: {state.supply}", size=13)
    if state.final_left >= 0 and state.phase_id != Phase.END:
        c.text((x0, 56), f"final round: {state.final_left} turn(s) left", size=13)
    scores = state.scores()
    for p in range(n):
        y = 80 + 110 * p
        c.rect((x0, y, x0 + PANEL - 20, y + 100), fill=_tint(PLAYER_COLORS[p], 0.3), outline=INK)
        mark = "> " if p == state.current_player() else ""
        c.text((x0 + 8, y + 6), f"{mark}seat {p}: {scores[p]:g} points", size=14)
        hand = " ".join(_marker_name(state, m) for m in state.hand(p)) or "-"
        c.text((x0 + 8, y + 28), f"in hand: {hand}", size=12)
        for ln in (0, 1):
            li = 2 * p + ln
            st = "not started" if state.start_gate[li] < 0 else "finished" if state.finished(li) else "open"
            c.text(
                (x0 + 8, y + 48 + 20 * ln),
                f"line {ln} ({'solid' if ln == 0 else 'dashed'}): {st}, {state.unused(li)} tunnels",
                size=12,
            )
    if state.phase_id == Phase.END:
        add, count, trips = state.final_scoring()
        y = 90 + 110 * n
        c.text((x0, y), "Test trips", size=15)
        for i, tr in enumerate(trips):
            if not tr["run"]:
                txt = "not run"
            elif tr["time"] is None:
                txt = f"no connection, -2 for seats {tr['penalised']}" if tr["penalised"] else "no connection"
            else:
                txt = f"{tr['time']} min, scoring seats {tr['scorers']}"
            c.text((x0, y + 22 + 20 * i), f"{TRIP_NAMES[i]}: {txt}", size=12)
            route = tr["route"]
            if len(route) >= 2:  # one fastest route, in black, with its letter
                pts = [P[v] for v in route]
                c.line(pts, fill=INK, width=2)
                mx, my = pts[len(pts) // 2]
                c.text((mx + 6, my - 14), TRIP_NAMES[i], size=13, fill=INK)
        c.text((x0, y + 170), f"winners: {state.winners()}", size=14)
    return c.to_array()
