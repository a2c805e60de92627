"""Hydropolis renders: ``render_text`` (ansi, the whole public state) and ``render_rgb`` (a picture
of the table: upright cards with grey lead and copper pipes, caps, leaks, taps and outlets, plus
scores, hand sizes, wrenches and the draw pile)."""

from __future__ import annotations

import numpy as np

from ..core.render import PLAYER_COLORS, Canvas
from .data import CAP, COPPER, PIPE
from .rules import OVER, PHASE_NAMES, PLACE, PLAY

# ----------------------------------------------------------------------------- text
_V = {PIPE: "|", CAP: "o"}
_H = {PIPE: "-", CAP: "o"}


def _centre_char(deck, t: int) -> str:
    if deck.kinds[t] == "tap":
        return "T"
    if deck.kinds[t] == "outlet":
        return "U"
    if deck.leaky[t]:
        return "~"
    return "C" if deck.colour[t] == COPPER else "+"


def render_text(st) -> str:
    """The whole public state as text: scores, hands, pile, then the table, 3x3 characters a card."""
    g = st.game
    geo, deck = g.geo, g.deck
    lines = [
        f"Hydropolis  phase: {PHASE_NAMES[st.phase_id]}  draw pile: {st.pile_size}  "
        f"consecutive passes: {st.passes}  covered: {int(st.covered.sum())}"
    ]
    for p in range(st.num_players):
        mark = ">" if st.phase_id in (PLAY, PLACE) and st.to_move == p else " "
        extra = f"  wrenches {st.wrenches[p]}" if g.wrench else ""
        lines.append(f"{mark} player {p}: {st.score[p]:4d} points  {st.hand_sizes[p]} cards in hand{extra}")
    if st.selected >= 0:
        t, rot = divmod(st.selected, 2)
        lines.append(f"player {st.to_move} is laying {deck.type_name(t)} {180 if rot else 0}deg")
    if st.history:
        seat, t, cell, rot, pts = st.history[-1]
        if t < 0:
            lines.append(f"last turn: player {seat} passed")
        else:
            lines.append(f"last turn: player {seat} laid {g.play_name(t, cell, rot)} for {pts} points")
    if st.phase_id == OVER:
        lines.append(f"game over; winners: {st.winners()}")
    head = "    " + "".join(f"{c:<4d}" for c in range(geo.cols))
    lines.append(head)
    for r in range(geo.rows):
        rows = ["", "", ""]
        for c in range(geo.cols):
            cell = r * geo.cols + c
            t = st.cell_t[cell]
            if t < 0:
                mid = " ? " if cell in st.cand else " . "
                rows[0] += "    "
                rows[1] += mid + " "
                rows[2] += "    "
                continue
            e = deck.edges[t][st.cell_r[cell]]
            rows[0] += " " + _V.get(e[0], " ") + "  "
            rows[1] += _H.get(e[3], " ") + _centre_char(deck, t) + _H.get(e[1], " ") + " "
            rows[2] += " " + _V.get(e[2], " ") + "  "
        lines.append("    " + rows[0].rstrip())
        lines.append(f"{r:<3d} " + rows[1].rstrip())
        lines.append("    " + rows[2].rstrip())
    lines.append("legend: + lead  C copper  ~ leaky lead  T tap  U outlet  | - pipe  o cap  ? playable empty cell")
    return "\n".join(lines)


# ----------------------------------------------------------------------------- picture
CARD_W, CARD_H = 44, 62
GAP = 4
MARGIN = 16
PANEL_W = 250
FELT = (42, 96, 70)
FELT_LINE = (58, 118, 88)
CARD = (250, 246, 236)
LEAD = (120, 124, 132)
LEAD_DARK = (80, 84, 92)
COPPER_C = (196, 110, 50)
COPPER_DARK = (140, 70, 30)
WATER = (60, 140, 230)
TAP_RED = (200, 40, 40)


def _pipe_colour(deck, t: int):
    return (COPPER_C, COPPER_DARK) if deck.colour[t] == COPPER else (LEAD, LEAD_DARK)


def draw_card(cv, x0: float, y0: float, deck, t: int, rot: int, highlight=None) -> None:
    """One upright card at (x0, y0): pipes from the centre to the open edges, caps as bars."""
    x1, y1 = x0 + CARD_W, y0 + CARD_H
    cv.rect((x0, y0, x1, y1), fill=CARD, outline=highlight or (90, 80, 60), width=3 if highlight else 1, radius=4)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    col, dark = _pipe_colour(deck, t)
    ends = {0: (cx, y0 + 1), 1: (x1 - 1, cy), 2: (cx, y1 - 1), 3: (x0 + 1, cy)}
    edges = deck.edges[t][rot]
    w = 9
    for d in range(4):
        e = edges[d]
        if e == 0:
            continue
        ex, ey = ends[d]
        if e == PIPE:
            cv.line([(cx, cy), (ex, ey)], fill=col, width=w)
        else:  # a pipe from the centre closed by a cap near the edge
            cv.line([(cx, cy), ((cx + ex) / 2 + (ex - cx) * 0.25, (cy + ey) / 2 + (ey - cy) * 0.25)], fill=col, width=w)
            px, py = cx + (ex - cx) * 0.8, cy + (ey - cy) * 0.8
            if d in (0, 2):
                cv.rect((px - 8, py - 3, px + 8, py + 3), fill=dark, outline=(20, 20, 20))
            else:
                cv.rect((px - 3, py - 8, px + 3, py + 8), fill=dark, outline=(20, 20, 20))
    cv.circle((cx, cy), w / 2 + 1, fill=col, outline=dark)
    if deck.kinds[t] == "tap":  # a valve wheel
        cv.circle((cx, cy), 9, fill=None, outline=TAP_RED, width=3)
        cv.line([(cx - 9, cy), (cx + 9, cy)], fill=TAP_RED, width=2)
        cv.line([(cx, cy - 9), (cx, cy + 9)], fill=TAP_RED, width=2)
    elif deck.kinds[t] == "outlet":  # a spout with a drop of water
        cv.rect((cx - 7, cy - 4, cx + 7, cy + 4), fill=dark, outline=(20, 20, 20))
        dy = 14 if edges[0] == PIPE else -14
        cv.circle((cx, cy + dy), 4, fill=WATER, outline=WATER)
    if deck.leaky[t]:  # drops spraying from the leak
        for dx, dy in ((-10, -12), (11, 10), (-12, 13)):
            cv.circle((cx + dx, cy + dy), 3, fill=WATER, outline=(30, 90, 180))


def render_rgb(st) -> np.ndarray:
    """The table and a side panel as an HxWx3 uint8 picture."""
    g = st.game
    geo, deck = g.geo, g.deck
    tw = geo.cols * (CARD_W + GAP) + GAP
    th = geo.rows * (CARD_H + GAP) + GAP
    W = MARGIN * 2 + tw + PANEL_W
    H = max(MARGIN * 2 + th, 96 + 52 * st.num_players + 60 + CARD_H + 40)
    cv = Canvas(W, H, background=(32, 70, 52))
    cv.rect((MARGIN, MARGIN, MARGIN + tw, MARGIN + th), fill=FELT, outline=(20, 40, 30), width=3)
    last_cell = -1
    if st.history and st.history[-1][1] >= 0:
        last_cell = st.history[-1][2]
    for cell in range(geo.num_cells):
        r, c = divmod(cell, geo.cols)
        x0 = MARGIN + GAP + c * (CARD_W + GAP)
        y0 = MARGIN + GAP + r * (CARD_H + GAP)
        t = st.cell_t[cell]
        if t < 0:
            cv.rect(
                (x0, y0, x0 + CARD_W, y0 + CARD_H),
                fill=None,
                outline=(235, 220, 120) if cell in st.cand else FELT_LINE,
                width=1,
                radius=4,
            )
            continue
        hl = None
        if cell == last_cell:
            hl = PLAYER_COLORS[st.history[-1][0] % len(PLAYER_COLORS)]
        draw_card(cv, x0, y0, deck, t, st.cell_r[cell], hl)
    # side panel
    px = MARGIN * 2 + tw
    cv.text((px, MARGIN), "Hydropolis", size=22, fill=(240, 240, 230))
    y = MARGIN + 34
    cv.text((px, y), f"draw pile: {st.pile_size}   covered: {int(st.covered.sum())}", size=13, fill=(230, 230, 220))
    y += 20
    cv.text((px, y), f"passes in a row: {st.passes}", size=13, fill=(230, 230, 220))
    y += 26
    for p in range(st.num_players):
        colp = PLAYER_COLORS[p % len(PLAYER_COLORS)]
        turn = st.phase_id in (PLAY, PLACE) and st.to_move == p
        cv.rect(
            (px, y, px + PANEL_W - 20, y + 44), fill=(250, 248, 240), outline=colp, width=4 if turn else 2, radius=6
        )
        cv.circle((px + 14, y + 22), 8, fill=colp)
        cv.text((px + 28, y + 5), f"player {p}" + ("  (to move)" if turn else ""), size=13)
        wr = f"   wrenches {st.wrenches[p]}" if g.wrench else ""
        cv.text((px + 28, y + 23), f"{st.score[p]} pts   hand {st.hand_sizes[p]}{wr}", size=13)
        y += 52
    if st.phase_id == OVER:
        cv.text(
            (px, y + 4),
            "game over - winner(s): " + ", ".join(str(w) for w in st.winners()),
            size=13,
            fill=(255, 230, 120),
        )
        y += 24
    if st.history:
        seat, t, _, _, pts = st.history[-1]
        msg = f"last: player {seat} " + ("passed" if t < 0 else f"+{pts} pts")
        cv.text((px, y + 4), msg, size=13, fill=(230, 230, 220))
    # legend
    ly = H - MARGIN - CARD_H - 18
    samples = [
        ("lead", lambda t: deck.kinds[t] == "pipe" and deck.colour[t] == 0 and not deck.leaky[t]),
        ("copper", lambda t: deck.colour[t] == COPPER),
        ("leaky", lambda t: deck.leaky[t]),
        ("cap", lambda t: CAP in deck.edges[t][0]),
        ("tap", lambda t: deck.kinds[t] == "tap"),
    ]
    for i, (label, pred) in enumerate(samples):
        x = px + i * (CARD_W + 4)
        draw_card(cv, x, ly, deck, _first(deck, pred), 0)
        cv.text((x + CARD_W / 2, ly + CARD_H + 3), label, size=11, fill=(230, 230, 220), anchor="ma")
    return cv.to_array()


def _first(deck, pred) -> int:
    for t in range(deck.num_types):
        if pred(t):
            return t
    return 0


# ----------------------------------------------------------------------------- seat view
def seat_text(st, seat: int) -> str:
    """What only ``seat`` knows: its hand (HY-R2 deals it face down), card types with counts."""
    deck = st.game.deck
    cards = [
        deck.type_name(t) + (f" x{int(k)}" if k > 1 else "") for t, k in enumerate(st.hands[seat].tolist()) if k > 0
    ]
    return f"your hand (player {seat}, {st.hand_sizes[seat]} cards): " + (", ".join(cards) or "empty")
