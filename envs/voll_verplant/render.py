"""rgb_array renderer: one subway sheet per player (a grid of sheets), as on the paper pad.

Each sheet shows the lines in their colours, every station (transfer stations larger with a thick
ring), crosses and written transfer numbers, and beside the map a table per line: the wagon with
its windows (numbers, circled express numbers, stars), the two bonuses (the first struck once
someone has completed the line; a claimed bonus circled) and the sheet's score.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.render import INK, PAPER, PLAYER_COLORS, Canvas
from .data import FREE, TRANSFER
from .rules import A_FREE, A_TRANSFER, FIRST_BONUS, W_EXPRESS, W_TRANSFER, VollVerplantState, transfer_value

SHEET_W, SHEET_H = 660, 470
MAP_W = 440
HEAD_H = 58
GREY = (150, 150, 150)
WHITE = (255, 255, 255)


def _card_text(state: VollVerplantState) -> str:
    d = state.game.deck
    if state.over:
        return "game over"
    if state.card < 0:
        return "next card: face down"
    return f"card: {d.card_name(state.card)}"


def _draw_sheet(c: Canvas, state: VollVerplantState, p: int, ox: int, oy: int) -> None:
    g = state.game
    m = g.map
    pos = m.positions()
    c.rect(
        (ox + 4, oy + 4, ox + SHEET_W - 4, oy + SHEET_H - 4),
        fill=WHITE,
        outline=PLAYER_COLORS[p % 8],
        width=3,
        radius=8,
    )
    sc = state.scores()[p]
    title = f"Player {p}   {sc:g} points"
    if state.over and p in state.winners():
        title += "   WINNER"
    c.text((ox + 14, oy + 10), title, size=16, fill=PLAYER_COLORS[p % 8])
    c.text(
        (ox + 14, oy + 30),
        f"lines {state.bonus[p]}  transfers {state.transfer_points(p)}  "
        f"empty {state.empty[p]} (-{state.penalty_points(p)})",
        size=11,
    )
    x0, y0, w, h = ox + 36, oy + 62, MAP_W - 64, SHEET_H - 92

    def xy(s: int) -> tuple[float, float]:
        px, py = pos[s]
        return (x0 + px * w, y0 + py * h)

    # lines, with a small perpendicular offset so shared runs show both colours
    for li, st in enumerate(m.line_st):
        off = (li - (m.num_lines - 1) / 2) * 1.2
        pts = []
        for s in st:
            x, y = xy(s)
            pts.append((x + off, y + off))
        if len(pts) > 1:
            c.line(pts, fill=m.colors[li], width=5)
        else:
            c.circle(pts[0], 9, outline=m.colors[li], width=3)
        # line name beyond its start station, away from the line
        sx, sy = pts[0]
        if len(pts) > 1:
            ux, uy = sx - pts[1][0], sy - pts[1][1]
            norm = math.hypot(ux, uy) or 1.0
            sx, sy = sx + 19 * ux / norm, sy + 19 * uy / norm
        else:
            sx -= 19
        c.rect((sx - 7, sy - 8, sx + 7, sy + 8), fill=m.colors[li], outline=m.colors[li], radius=2)
        c.text((sx, sy), m.line_names[li], size=11, fill=WHITE, anchor="mm")
    mk, nums = state.marks[p], state.nums[p]
    for s in m.stations:
        x, y = xy(s)
        tr = m.n_lines_through[s] > 1
        r = 9 if tr else 7
        c.circle((x, y), r, fill=WHITE, outline=INK, width=3 if tr else 1)
        if nums[s]:
            c.text((x, y), str(transfer_value(nums[s])), size=12, fill=(200, 30, 30), anchor="mm")
        elif mk[s]:
            d = r - 2
            c.line([(x - d, y - d), (x + d, y + d)], fill=INK, width=2)
            c.line([(x - d, y + d), (x + d, y - d)], fill=INK, width=2)
        c.text((x + r - 1, y - r - 1), str(s + 1), size=8, fill=GREY, anchor="ld")
    # line table: wagon windows and bonuses
    tx, ty = ox + MAP_W + 6, oy + 58
    row = min(34, (SHEET_H - 70) // max(1, m.num_lines))
    for li in range(m.num_lines):
        yy = ty + li * row
        col = m.colors[li]
        c.rect((tx, yy, tx + 18, yy + 18), fill=col, outline=col, radius=3)
        c.text((tx + 9, yy + 9), m.line_names[li], size=12, fill=WHITE, anchor="mm")
        wx = tx + 24
        wins = state.wins[p][li]
        for wi in range(m.windows[li]):
            bx = wx + wi * 21
            c.rect((bx, yy, bx + 18, yy + 18), fill=WHITE, outline=INK)
            if wi < len(wins):
                code = wins[wi]
                if code == W_TRANSFER:
                    _star(c, bx + 9, yy + 9, 7)
                elif code > W_EXPRESS:
                    c.circle((bx + 9, yy + 9), 7, outline=INK)
                    c.text((bx + 9, yy + 9), str(code - W_EXPRESS), size=10, anchor="mm")
                else:
                    c.text((bx + 9, yy + 9), str(code), size=12, anchor="mm")
        bx = wx + 4 * 21 + 4
        scored = state.scored[p][li]
        for j, val in enumerate((m.bonus_first[li], m.bonus_other[li])):
            cx = bx + j * 26 + 10
            c.text((cx, yy + 9), str(val), size=13 if j == 0 else 11, anchor="mm")
            if scored == j + 1:
                c.circle((cx, yy + 9), 10, outline=(200, 30, 30), width=2)
            if j == 0 and state.first_gone[li] and scored != 1:
                c.line([(cx - 8, yy + 16), (cx + 8, yy + 2)], fill=(200, 30, 30), width=2)


def _star(c: Canvas, x: float, y: float, r: float) -> None:
    pts = []
    for i in range(10):
        ang = -math.pi / 2 + i * math.pi / 5
        rr = r if i % 2 == 0 else r * 0.45
        pts.append((x + rr * math.cos(ang), y + rr * math.sin(ang)))
    c.polygon(pts, fill=(240, 190, 40), outline=INK)


def render_rgb(state: VollVerplantState) -> np.ndarray:
    """The whole table: a header with the card and the deck, then every player's sheet."""
    n = state.num_players
    cols = (1, 2, 3, 2, 3, 3)[n - 1]
    rows = (n + cols - 1) // cols
    c = Canvas(cols * SHEET_W, HEAD_H + rows * SHEET_H, PAPER)
    d = state.game.deck
    c.text((12, 8), f"Voll verplant  -  {state.game.map.name}  -  turn {state.turn + 1}", size=18)
    info = _card_text(state) + f"    unseen cards {sum(state.deck)}/{d.size}"
    if state.card >= 0 and not state.over:
        info += f"    chosen {state.cur}/{n}"
    c.text((12, 34), info, size=14)
    for p in range(n):
        _draw_sheet(c, state, p, (p % cols) * SHEET_W, HEAD_H + (p // cols) * SHEET_H)
    return c.to_array()


# ---------------------------------------------------------------- text
def _sheet_lines(state: VollVerplantState, p: int) -> list[str]:
    m = state.game.map
    mk, nums = state.marks[p], state.nums[p]
    out = []
    for li in range(m.num_lines):
        ws = []
        for c in state.wins[p][li]:
            ws.append("*" if c == W_TRANSFER else (f"({c - W_EXPRESS})" if c > W_EXPRESS else str(c)))
        ws += ["_"] * (m.windows[li] - len(state.wins[p][li]))
        cells = []
        for s in m.line_st[li]:
            if nums[s]:
                cell = f"*{nums[s]}"
            elif mk[s]:
                cell = "X"
            else:
                cell = "."
            cells.append(f"{s + 1}{cell}")
        sc = state.scored[p][li]
        tag = (
            ""
            if not sc
            else (f"  done +{m.bonus_first[li]} (first)" if sc == FIRST_BONUS else f"  done +{m.bonus_other[li]}")
        )
        gone = "-" if state.first_gone[li] and sc != FIRST_BONUS else " "
        out.append(
            f"  {m.line_names[li]} {gone}{m.bonus_first[li]}/{m.bonus_other[li]} "
            f"[{' '.join(ws)}] " + " ".join(cells) + tag
        )
    return out


def render_text(state: VollVerplantState) -> str:
    """The whole public state, readable in a terminal (``str(state)``)."""
    g = state.game
    d = g.deck
    lines = [f"Voll verplant  map {g.map.name}  turn {state.turn + 1}  phase {state.phase()}"]
    if state.card >= 0:
        lines.append(f"card: {d.card_name(state.card)}")
    lines.append(
        f"unseen cards: {sum(state.deck)}  revealed since shuffle: "
        + (", ".join(d.card_name(k) for k in state.discard) or "-")
    )
    if state.last_card >= 0 and state.last_actions:
        lines.append(
            f"last turn ({d.card_name(state.last_card)}): "
            + "; ".join(f"P{p} {_describe_last(state, p)}" for p in range(state.num_players))
        )
    sc = state.scores()
    for p in range(state.num_players):
        flag = ""
        if state.card >= 0 and not state.over:
            flag = "  (has chosen)" if p < state.cur else ("  (to choose)" if p == state.cur else "")
        lines.append(
            f"Player {p}: {sc[p]:g} points (lines {state.bonus[p]}, transfers "
            f"{state.transfer_points(p)}, empty {state.empty[p]} -> -{state.penalty_points(p)}){flag}"
        )
        lines.extend(_sheet_lines(state, p))
    if state.over:
        lines.append(f"game over; winners: {', '.join(f'P{w}' for w in state.winners())}")
    return "\n".join(lines)


def _describe_last(state: VollVerplantState, p: int) -> str:
    a = state.last_actions[p]
    t = state.game.deck.kind_type[state.last_card]
    m = state.game.map
    if t == FREE:
        s = a - A_FREE
        return f"crossed {s + 1}" if m.st_lines[s] else "nothing"
    if t == TRANSFER:
        return f"transfer on {m.line_names[a - A_TRANSFER]}"
    li, k = divmod(a, 7)
    done = "".join(f" completed {m.line_names[x]}" for x in state.last_completed[p])
    return f"{m.line_names[li]} x{k}{done}"


# ---------------------------------------------------------------- seat view
def seat_text(state: VollVerplantState, seat: int) -> str:
    """What only ``seat`` knows: its own secret choice this turn, until the turn resolves (VV-R10)."""
    if state.card >= 0 and not state.over and seat < state.cur:
        return f"your choice this turn (P{seat}, secret until all have chosen): {_describe_last_commit(state, seat)}"
    return f"your choice this turn (P{seat}): " + ("to choose" if not state.over and state.card >= 0 else "-")


def _describe_last_commit(state: VollVerplantState, p: int) -> str:
    try:
        return state.action_to_string(state.commits[p])
    except Exception:  # naming must never break the view
        return f"action {state.commits[p]}"
