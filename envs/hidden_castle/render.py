"""Text (ansi) and picture (rgb_array) renders of Escape from the Hidden Castle."""

from __future__ import annotations

import math

import numpy as np

from ..core.render import INK, PLAYER_COLORS, Canvas
from .rules import GALLERY, ROOM0, STEP0, UNPLACED

COLOR_NAMES = ("red", "blue", "green", "yellow", "purple", "orange", "teal", "pink")
LETTERS = "RBGYPOTK"


def _guests_at(state) -> dict[int, list[int]]:
    at: dict[int, list[int]] = {}
    for gi, lc in enumerate(state.loc):
        at.setdefault(lc, []).append(gi)
    return at


def render_text(state) -> str:
    """The whole public state, readable in a terminal."""
    game, side = state.game, state.side
    g = state.gpp
    n = state.num_players
    at = _guests_at(state)

    def tag(gi: int) -> str:
        return f"{LETTERS[gi // g]}{gi % g}"

    lines = [
        f"Escape from the Hidden Castle{' - Midnight Party' if state.variant else ''}"
        f"  | phase {state.phase()}  | start player P{state.start}"
    ]
    if state.variant:
        lines.append(f"round {state.round}/{game.rounds}  Hugo speed {state.speed()}")
    else:
        lines.append(f"clock {game.clock_labels[state.clock]}  Hugo speed {state.speed()}")
    if state.hugo < 0:
        lines.append(f"Hugo: in the cellar, {-state.hugo} step(s) from the gallery (rooms closed)")
    else:
        lines.append(f"Hugo: gallery space {state.hugo}")
    door_room = {side.doors[k]: k for k in range(1, side.num_rooms + 1)}
    cells = []
    for s in range(GALLERY):
        mark = "H" if s == state.hugo else ""
        d = f"[{door_room[s]}]" if s in door_room else ""
        who = ",".join(tag(gi) for gi in at.get(s, []))
        if mark or who or d:
            cells.append(f"{s}{d}{'*' + mark if mark else ''}:{who}")
    lines.append("gallery: " + "  ".join(cells))
    rooms = []
    for k in range(1, side.num_rooms + 1):
        who = ",".join(tag(gi) for gi in at.get(ROOM0 + k - 1, [])) or "-"
        extra = {"armory": " +1", "green": " -3 exact"}.get(side.room_kinds[k], "")
        rooms.append(f"{k} {side.room_names[k]}@{side.doors[k]}{extra}: {who}")
    lines.append("rooms: " + " | ".join(rooms))
    steps = []
    for j, v in enumerate(side.steps):
        who = ",".join(tag(gi) for gi in at.get(STEP0 + j, [])) or "-"
        steps.append(f"{v:+d}:{who}")
    lines.append("cellar steps: " + "  ".join(steps))
    if at.get(UNPLACED):
        lines.append("to place: " + ",".join(tag(gi) for gi in at[UNPLACED]))
    label = "totals" if state.variant else "trail"
    sc = "  ".join(f"P{p}({COLOR_NAMES[p]})={state.spooky[p]}" for p in range(n))
    lines.append(f"{label}: {sc}")
    if state.variant and state.round_scores:
        lines.append("rounds: " + " ; ".join(",".join(str(x) for x in r) for r in state.round_scores))
    cp = state.current_player()
    if cp >= 0:
        what = {1: "place a guest", 3: f"move {state.roll}", 4: "place a guest from the cellar"}
        lines.append(f"to act: P{cp} ({COLOR_NAMES[cp]}) - {what.get(state.phase_id, state.phase())}")
    elif state.is_terminal():
        lines.append("game over; winners: " + ", ".join(f"P{p}" for p in state.winners()))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- picture
W, H = 900, 760
CX, CY = 380, 380
R_RING = 250
STONE = (200, 190, 170)
STONE_DARK = (120, 110, 100)
FLOOR = (60, 50, 70)
NIGHT = (34, 30, 52)
GREEN = (70, 160, 80)
RED = (190, 50, 50)
GOLD = (220, 180, 70)
GHOST = (245, 245, 255)


def _pos(s: float, r: float = R_RING) -> tuple[float, float]:
    a = -math.pi / 2 + 2 * math.pi * (s + 0.5) / GALLERY
    return CX + r * math.cos(a), CY + r * math.sin(a)


def _room_spots(side) -> dict[int, float]:
    """Angular position (in gallery spaces) of each room box: its door, nudged apart from a
    neighbouring room whose door is fewer than 3 spaces away."""
    spots = {k: float(side.doors[k]) for k in range(1, side.num_rooms + 1)}
    order = sorted(spots, key=lambda k: spots[k])
    for a, b in zip(order, order[1:]):
        gap = spots[b] - spots[a]
        if gap < 3:
            spots[a] -= (3 - gap) / 2
            spots[b] += (3 - gap) / 2
    return spots


def _ghost(c: Canvas, x: float, y: float, size: float = 18) -> None:
    s = size
    c.circle((x, y - s * 0.3), s * 0.7, fill=GHOST, outline=INK, width=2)
    c.polygon(
        [
            (x - s * 0.7, y - s * 0.3),
            (x + s * 0.7, y - s * 0.3),
            (x + s * 0.7, y + s * 0.8),
            (x + s * 0.35, y + s * 0.5),
            (x, y + s * 0.8),
            (x - s * 0.35, y + s * 0.5),
            (x - s * 0.7, y + s * 0.8),
        ],
        fill=GHOST,
        outline=INK,
    )
    c.rect((x - s * 0.69, y - s * 0.3, x + s * 0.69, y + s * 0.2), fill=GHOST, outline=GHOST)
    c.circle((x - s * 0.25, y - s * 0.4), s * 0.12, fill=INK, outline=INK)
    c.circle((x + s * 0.25, y - s * 0.4), s * 0.12, fill=INK, outline=INK)


def _guest(c: Canvas, x: float, y: float, color, r: float = 8, label: str = "") -> None:
    c.circle((x, y + r * 0.6), r, fill=color, outline=INK, width=1)
    c.circle((x, y - r * 0.7), r * 0.6, fill=color, outline=INK, width=1)
    if label:
        c.text((x, y + r * 0.6), label, size=9, fill=(255, 255, 255), anchor="mm")


def render_rgb(state) -> np.ndarray:
    """Draw the castle: the gallery ring, rooms with doors, cellar steps, Hugo, guests,
    the spooky trail (or round totals) and the clock."""
    side = state.side
    game = state.game
    g = state.gpp
    at = _guests_at(state)
    c = Canvas(W, H, background=NIGHT)
    # castle floor and gallery ring
    c.circle((CX, CY), R_RING + 95, fill=(70, 62, 84), outline=(20, 18, 30), width=3)
    c.circle((CX, CY), R_RING + 26, fill=FLOOR, outline=(20, 18, 30), width=2)
    door_room = {side.doors[k]: k for k in range(1, side.num_rooms + 1)}
    for s in range(GALLERY):
        x, y = _pos(s)
        fill = STONE
        if s == 0:
            fill = GOLD
        elif s in door_room:
            fill = (225, 215, 190)
        c.circle((x, y), 17, fill=fill, outline=STONE_DARK, width=2)
        c.text((x, y + 11), str(s), size=8, fill=STONE_DARK, anchor="mm")
    # arrow at space 0
    x0, y0 = _pos(0, R_RING - 30)
    c.polygon([(x0 - 8, y0 + 8), (x0 + 8, y0 + 8), (x0, y0 - 6)], fill=GOLD, outline=INK)
    # rooms outside the ring (rooms with close doors are spread apart)
    for k, where in _room_spots(side).items():
        d = side.doors[k]
        x, y = _pos(where, R_RING + 64)
        xd, yd = _pos(d, R_RING + 18)
        c.line([(xd, yd), _pos(where, R_RING + 40)], fill=(150, 120, 90), width=6)
        kind = side.room_kinds[k]
        col = {"armory": (150, 70, 70), "green": (60, 120, 70)}.get(kind, (110, 95, 80))
        c.rect((x - 31, y - 25, x + 31, y + 25), fill=col, outline=(230, 220, 200), width=2, radius=6)
        c.text((x - 24, y - 16), f"{k}", size=11, fill=(255, 245, 220), anchor="lm")
        c.text((x, y + 17), side.room_names[k].split()[0][:10], size=9, fill=(245, 235, 215), anchor="mm")
        if kind == "green":
            c.circle((x + 21, y - 15), 6, fill=GREEN, outline=INK)
            c.text((x + 12, y - 15), "-3", size=9, fill=(230, 255, 230), anchor="rm")
        elif kind == "armory":
            c.circle((x + 21, y - 15), 6, fill=RED, outline=INK)
            c.text((x + 12, y - 15), "+1", size=9, fill=(255, 230, 230), anchor="rm")
        occ = at.get(ROOM0 + k - 1, [])
        for gi in occ:
            _guest(c, x, y, PLAYER_COLORS[gi // g], r=8, label=str(gi % g))
    # guests on the gallery
    for s in range(GALLERY):
        gs = at.get(s, [])
        for j, gi in enumerate(gs):
            rr = R_RING - 2 - 16 * (j % 4) if j else R_RING - 2
            x, y = _pos(s, rr if j else R_RING)
            _guest(c, x, y - 2, PLAYER_COLORS[gi // g], r=7, label=str(gi % g))
    # Hugo on the gallery
    if state.hugo >= 0:
        x, y = _pos(state.hugo, R_RING + 0)
        _ghost(c, x, y - 4, 16)
    # cellar steps inside the ring
    nst = len(side.steps)
    top = CY - 150
    c.rect(
        (CX - 150, top - 30, CX + 150, top + 26 * nst + 40), fill=(45, 38, 55), outline=(20, 18, 30), width=2, radius=10
    )
    c.text((CX, top - 16), "Cellar", size=15, fill=(230, 220, 200), anchor="mm")
    for j, v in enumerate(side.steps):
        yy = top + 26 * j
        w = 140 - 6 * j
        c.rect((CX - w, yy, CX + w, yy + 22), fill=(95, 85, 100), outline=(30, 25, 40), radius=3)
        c.text((CX - w + 6, yy + 11), f"{v:+d}", size=11, fill=(250, 230, 180), anchor="lm")
        for q, gi in enumerate(at.get(STEP0 + j, [])):
            _guest(c, CX - w + 42 + 15 * q, yy + 9, PLAYER_COLORS[gi // g], r=5)
    # Hugo in the cellar: start space below the stairs, then step j = path_taken - 1 (base)
    if state.hugo < 0:
        taken = side.hugo_path + state.hugo
        if state.variant:
            j = taken  # starts on step index 0 (-10)
        else:
            j = taken - 1  # -1 = the start space by the cellar door
        if j < 0:
            hx, hy = CX, top + 26 * nst + 18
            c.text((CX + 40, hy), "start", size=10, fill=(230, 220, 200), anchor="lm")
        else:
            hx, hy = CX + 110 - 6 * j, top + 26 * j + 9
        _ghost(c, hx, hy, 12)
    # unplaced guests (setup)
    if at.get(UNPLACED):
        c.text((CX, CY + 118), "to place", size=11, fill=(230, 220, 200), anchor="mm")
        for q, gi in enumerate(at[UNPLACED][:24]):
            _guest(c, CX - 115 + 10 * q, CY + 140, PLAYER_COLORS[gi // g], r=4)
    # side panel: trail / totals and clock
    px = 770
    c.rect((px - 40, 20, W - 14, H - 20), fill=(52, 46, 70), outline=(20, 18, 30), radius=10)
    if state.variant:
        c.text((px + 32, 40), f"Round {state.round}/{game.rounds}", size=15, fill=(240, 230, 210), anchor="mm")
        c.text((px + 32, 62), f"Hugo moves {state.speed()}", size=11, fill=(220, 210, 190), anchor="mm")
    else:
        _clock(c, px + 32, 84, state)
    c.text((px + 32, 168), "Totals" if state.variant else "Spooky trail", size=13, fill=(240, 230, 210), anchor="mm")
    lo, hi = min(0, min(state.spooky)), max(50, max(state.spooky) + 4)
    y_top, y_bot = 185, H - 90
    c.rect((px - 20, y_top, px + 84, y_bot), fill=(35, 30, 48), outline=(120, 110, 130), radius=4)
    if not state.variant:
        ye = y_bot - (y_bot - y_top) * (game.end_score - lo) / (hi - lo)
        c.line([(px - 20, ye), (px + 84, ye)], fill=(230, 70, 70), width=2)
        c.text((px - 24, ye), str(game.end_score), size=9, fill=(230, 120, 120), anchor="rm")
    for v in range(lo - lo % 10, hi + 1, 10):
        yy = y_bot - (y_bot - y_top) * (v - lo) / (hi - lo)
        c.text((px - 24, yy), str(v), size=9, fill=(200, 190, 180), anchor="rm")
    n = state.num_players
    for p in range(n):
        v = state.spooky[p]
        yy = y_bot - (y_bot - y_top) * (min(max(v, lo), hi) - lo) / (hi - lo)
        xx = px - 10 + (p % 8) * 12
        c.circle((xx, yy), 6, fill=PLAYER_COLORS[p], outline=INK)
    for p in range(n):
        yy = y_bot + 14 + 13 * (p // 2)
        xx = px - 30 + 64 * (p % 2)
        c.circle((xx + 4, yy), 5, fill=PLAYER_COLORS[p], outline=INK)
        c.text((xx + 13, yy), f"P{p} {state.spooky[p]}", size=10, fill=(235, 225, 210), anchor="lm")
    # status line
    cp = state.current_player()
    if state.is_terminal():
        msg = "Game over - winner(s): " + ", ".join(f"P{p}" for p in state.winners())
    elif cp >= 0:
        what = {1: "places a guest", 3: f"rolled {state.roll}: moves a guest", 4: "places a cellar guest"}.get(
            state.phase_id, state.phase()
        )
        msg = f"P{cp} {what}"
    else:
        msg = f"P{state.turn} to roll" if state.phase_id == 2 else "choosing the start player"
    c.rect((16, H - 44, 700, H - 14), fill=(52, 46, 70), outline=(20, 18, 30), radius=8)
    who = cp if cp >= 0 else (state.turn if state.phase_id == 2 else -1)
    if who >= 0:
        c.circle((32, H - 29), 7, fill=PLAYER_COLORS[who], outline=INK)
    c.text((46, H - 29), msg, size=14, fill=(240, 230, 210), anchor="lm")
    c.text(
        (16, 14),
        "Escape from the Hidden Castle" + (" - Midnight Party" if state.variant else ""),
        size=18,
        fill=(240, 230, 210),
    )
    return c.to_array()


def _clock(c: Canvas, x: float, y: float, state) -> None:
    labels = state.game.clock_labels
    c.circle((x, y), 52, fill=(240, 232, 210), outline=INK, width=2)
    k = len(labels)
    for i, lab in enumerate(labels):
        a = -math.pi / 2 + 2 * math.pi * i / k
        tx, ty = x + 38 * math.cos(a), y + 38 * math.sin(a)
        col = (200, 40, 40) if i == state.clock else INK
        c.text((tx, ty), lab, size=8, fill=col, anchor="mm")
    a = -math.pi / 2 + 2 * math.pi * state.clock / k
    c.line([(x, y), (x + 26 * math.cos(a), y + 26 * math.sin(a))], fill=(200, 40, 40), width=3)
    c.circle((x, y), 4, fill=INK, outline=INK)
    c.text((x, y + 64), f"Hugo moves {state.speed()}", size=11, fill=(220, 210, 190), anchor="mm")


# ----------------------------------------------------------------------------- seat view
def seat_text(state, seat: int) -> str:
    """The seat's own line: its colour. The game has no hidden information (everything is on the
    board), so this shows nothing the public text does not."""
    return f"you play P{seat} ({COLOR_NAMES[seat]}); nothing is hidden in this game"
