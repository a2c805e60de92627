"""Text (ansi) and picture (rgb_array) renderings of Harmonies: every personal hex board with its
stacks and cubes, the card places, the central board, the display and the bag."""

from __future__ import annotations

import math

import numpy as np

from ..core.render import INK, PLAYER_COLORS, Canvas
from .board import COLOURS, STACKS
from .rules import HarmoniesState

TOKEN_RGB = {
    "W": (70, 130, 220),
    "M": (150, 150, 155),
    "B": (130, 85, 45),
    "G": (60, 160, 70),
    "Y": (235, 200, 60),
    "R": (200, 60, 50),
}


def _card(state: HarmoniesState, cid: int) -> str:
    card = state.game.cards[cid]
    return f"{'S' if card.spirit else 'A'}{cid}"


def seat_text(state: HarmoniesState, seat: int) -> str:
    """What only ``seat`` knows (HA-V2): the spirits offered to it and the one it put back."""
    if not state.game.spirits:
        return ""
    parts = []
    if state.offers[seat]:
        offers = ", ".join(f"{i}: {_card(state, c)}" for i, c in enumerate(state.offers[seat]))
        parts.append(f"your spirit offers (player {seat}): {offers}")
    if state.spirit_discard[seat]:
        parts.append(f"the spirit you put back: {_card(state, state.spirit_discard[seat])}")
    return "\n".join(parts)


def render_text(state: HarmoniesState) -> str:
    g = state.game
    n = state.num_players
    head = f"Harmonies side {g.side}{' +spirits' if g.spirits else ''}{' solo' if n == 1 else ''}"
    lines = [f"{head}, {n} players, phase {state.phase()}"]
    lines.append("bag: " + " ".join(f"{c}{k}" for c, k in zip(COLOURS, state.bag)) + f"  deck {len(state.deck)} cards")
    lines.append(
        "central: " + "  ".join(f"{s}:[{''.join(COLOURS[c] for c in t) or '-'}]" for s, t in enumerate(state.central))
    )
    lines.append("display: " + "  ".join(f"{i}:{_card(state, c) if c else '-'}" for i, c in enumerate(state.display)))
    if state.current_player() >= 0:
        tk = " ".join(f"{t}:{COLOURS[c]}" for t, c in enumerate(state.taken) if c >= 0) or "-"
        lines.append(f"seat {state.to_move} to move; taken tokens {tk}; took {state.took}; took card {state.took_card}")
    geo = g.geo
    for p in range(n):
        mark = ">" if p == state.to_move and state.current_player() >= 0 else " "
        bd = state.breakdown(p)
        pts = sum(bd.values())
        lines.append(
            f"{mark} seat {p}{' (first)' if p == state.first else ''}: {pts} points "
            + " ".join(f"{k} {v}" for k, v in bd.items())
            + f"; cubes {state.cubes_on_board(p)}"
        )
        places = " ".join(
            f"{c}:{_card(state, cid)}({left} left)" if cid else f"{c}:-"
            for c, (cid, left) in enumerate(state.places[p])
        )
        done = " ".join(_card(state, c) for c in state.completed[p]) or "-"
        lines.append(f"    places {places}; completed {done}")
        if state.offers[p]:
            lines.append(f"    spirit offers: {len(state.offers[p])} cards (hidden)")
        # the board row by row: even columns on one line, odd columns (half a hex lower) indented
        rows = max(geo.columns)
        for y in range(rows):
            for parity in (0, 1):
                cells = []
                for x in range(len(geo.columns)):
                    if x % 2 != parity:
                        continue
                    if y >= geo.columns[x]:
                        cells.append("      ")
                        continue
                    h = geo.index[(x, y)]
                    s = STACKS[state.boards[p][h]] or "."
                    cube = "*" if state.cubes[p][h] else " "
                    cells.append(f"{s:>4}{cube} ")
                if any(c.strip() for c in cells):
                    lines.append("    " + ("      " if parity else "") + "      ".join(cells))
    if state.is_terminal():
        lines.append(f"scores {state.scores()}; winners {state.winners()}")
        if n == 1:
            lines.append(f"solo suns {state.suns()}")
    return "\n".join(lines)


def _hex(c: Canvas, cx: float, cy: float, r: float, fill, outline=INK) -> None:
    pts = [(cx + r * math.cos(math.radians(60 * k)), cy + r * math.sin(math.radians(60 * k))) for k in range(6)]
    c.polygon(pts, fill=fill, outline=outline)


def render_rgb(state: HarmoniesState) -> np.ndarray:
    g = state.game
    geo = g.geo
    n = state.num_players
    r = 24.0
    bw = int(1.5 * r * (len(geo.columns) - 1) + 2 * r + 20)
    bh = int(math.sqrt(3) * r * (max(geo.columns) + 0.5) + 20)
    panel_w = max(bw + 10, 300)
    width = 20 + panel_w * min(n, 2)
    rows = (n + 1) // 2
    top = 150
    height = top + rows * (bh + 110) + 10
    c = Canvas(width, height)
    c.text((10, 8), f"Harmonies - side {g.side} - {state.phase()}", size=18)
    # bag
    x = 10
    for col, k in zip(COLOURS, state.bag):
        c.circle((x + 9, 45), 8, fill=TOKEN_RGB[col])
        c.text((x + 21, 37), str(k), size=13)
        x += 52
    # central board
    c.text((10, 64), "central", size=13)
    for s, toks in enumerate(state.central):
        bx = 70 + 70 * s
        c.rect((bx, 60, bx + 62, 84), fill=(225, 215, 190))
        for i, tok in enumerate(toks):
            c.circle((bx + 11 + 20 * i, 72), 8, fill=TOKEN_RGB[COLOURS[tok]])
    # display
    c.text((10, 104), "cards", size=13)
    for i, cid in enumerate(state.display):
        bx = 70 + 70 * i
        c.rect((bx, 96, bx + 62, 130), fill=(250, 250, 245) if cid else (210, 205, 195), radius=4)
        if cid:
            card = g.cards[cid]
            c.text((bx + 4, 99), f"#{cid}", size=12)
            c.text((bx + 4, 114), "-".join(card.pattern.codes)[:10], size=10)
    for p in range(n):
        ox = 10 + panel_w * (p % 2)
        oy = top + (bh + 110) * (p // 2)
        mark = " <" if p == state.to_move and state.current_player() >= 0 else ""
        c.rect((ox, oy, ox + panel_w - 10, oy + bh + 100), outline=PLAYER_COLORS[p], width=3)
        c.text((ox + 8, oy + 6), f"seat {p}: {state.score(p)} pts{mark}", size=14, fill=PLAYER_COLORS[p])
        for h, (hx, hy) in enumerate(geo.spaces):
            cx = ox + 10 + r + 1.5 * r * hx
            cy = oy + 30 + r + math.sqrt(3) * r * (hy + (0.5 if hx % 2 else 0))
            stack = STACKS[state.boards[p][h]]
            _hex(c, cx, cy, r - 1, fill=(236, 228, 205))
            for k, ch in enumerate(reversed(stack)):  # bottom token first, drawn shrinking upward
                c.circle((cx, cy), r * (0.8 - 0.2 * k), fill=TOKEN_RGB[ch])
            if state.cubes[p][h]:
                cid = state.cubes[p][h]
                fill = (250, 250, 250) if cid >= 33 else (40, 40, 40)
                c.rect((cx - 6, cy - 6, cx + 6, cy + 6), fill=fill, outline=(255, 255, 255))
        py = oy + bh + 30
        for k, (cid, left) in enumerate(state.places[p]):
            bx = ox + 8 + 70 * k
            c.rect((bx, py, bx + 64, py + 34), fill=(250, 250, 245) if cid else None, radius=4)
            if cid:
                c.text((bx + 4, py + 3), f"#{cid}", size=12)
                c.text((bx + 4, py + 18), f"{left} cubes", size=10)
        done = " ".join(f"#{x}" for x in state.completed[p])
        c.text((ox + 8, py + 42), f"done: {done}"[:60], size=11)
    return c.to_array()
