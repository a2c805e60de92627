"""Rendering of Downforce: ``render_text`` (ansi, the whole public state) and ``render_rgb``
(a picture of the circuit: rows and lanes on a stadium-shaped track, curve/narrow/rumble spaces,
yellow betting lines, the chequered finish, the cars in their colours with their owners, and a
panel with owners, powers, money and, once revealed, the bets)."""

from __future__ import annotations

import math

import numpy as np

from . import data as D
from .rules import AUCTION, BET, DEC_NAMES, END, POWER, RACE, STAGE_NAMES, DownforceState

SEAT = "P"
CAR_LETTERS = "KBGYOR"  # blacK, Blue, Green, Yellow, Orange, Red


def _cars(st: DownforceState) -> list[str]:
    return st.game.comp["cars"]


def render_text(st: DownforceState) -> str:
    g = st.game
    n = st.num_players
    cars = _cars(st)
    out = []
    dec = ""
    if st.dec_seat >= 0:
        dec = f"  deciding: {SEAT}{st.dec_seat} ({st.phase()})"
    out.append(
        f"Downforce  {n} players  stage: {STAGE_NAMES[st.stage]}"
        + (f"  turn: {SEAT}{st.turn_player}" if st.turn_player >= 0 else "")
        + dec
    )
    if st.auction_order:
        parts = []
        for i, c in enumerate(st.auction_order):
            mark = ">" if st.stage in (AUCTION, POWER) and i == st.auction_idx else " "
            pw = st.power_of_car[c]
            pws = f"+{D.POWER_NAMES[pw]}" if pw >= 0 else ""
            w = st.owner[c]
            who = f" -> {SEAT}{w} ${st.price[c]}M" if w >= 0 else ""
            parts.append(f"{mark}{cars[c]}{pws}{who}")
        out.append("Auction: " + ", ".join(parts))
    for i, bids in enumerate(st.bid_history):
        car = st.auction_order[i]
        txt = " ".join(f"{SEAT}{s}:#{b}={g.bid_value[b][car]}" for s, b in enumerate(bids) if b >= 0)
        out.append(f"  bids for {cars[car]}: {txt}")
    if st.stage == AUCTION:
        out.append(
            "  committed: "
            + " ".join(
                f"{SEAT}{s}:{'yes' if st.pending[s] >= 0 else ('no' if st.eligible[s] else '-')}" for s in range(n)
            )
        )
    # track: lanes 2 (top) .. 0 (bottom), one column per row, '|' = betting line, '#' finish
    lines = []
    for lane in (2, 1, 0):
        row_chars = []
        for r in range(g.num_rows):
            sid = r * 3 + lane
            if not g.exists[sid]:
                ch = " "
            elif st.occ[sid] >= 0:
                ch = CAR_LETTERS[st.occ[sid]]
            elif g.rumble[sid]:
                ch = "~"
            elif g.narrow[sid]:
                ch = "="
            elif not g.rect[sid]:
                ch = ","
            else:
                ch = "."
            row_chars.append(ch)
            if g.bet_after[r] >= 0:
                row_chars.append("|")
        lines.append("  " + "".join(row_chars) + "#")
    out.append("Track (left = start; K B G Y O R = cars; . straight , curve ~ rumble = narrow | bet line # finish):")
    out.extend(lines)
    if st.finish_order:
        out.append("Finished: " + ", ".join(f"{i + 1}. {cars[c]}" for i, c in enumerate(st.finish_order)))
    if st.cur_card >= 0 and st.stage in (RACE, BET):
        txt = " ".join(f"{cars[c] if c >= 0 else 'Wild'}{s}" for c, s in g.deck[st.cur_card])
        extra = " (reversed)" if len(st.line_order) > 1 and st.line_order[0] > st.line_order[-1] else ""
        ign = f" (ignoring {cars[st.ignored]})" if st.ignored >= 0 else ""
        out.append(f"Card in play: #{st.cur_card} [{txt}]{extra}{ign}")
    ended = st.stage == END
    for s in range(n):
        owned = [f"{cars[c]}(${st.price[c]})" for c in range(6) if st.owner[c] == s]
        powers = "/".join(D.POWER_NAMES[p] for p in st.held[s]) or "-"
        known = sorted(st.revealed[s])
        row = f"{SEAT}{s}: cars {', '.join(owned) or '-'}  power {powers}  hand {len(st.hands[s])}  known #{known}"
        if ended:
            bets = " ".join(f"bet{st.bet_k[r][0] + 1}:{cars[b[s]]}" for r, b in enumerate(st.bets))
            row += f"  bets {bets or '-'}  money ${st.money[s]}M"
        out.append(row)
    if st.bets and not ended:
        out.append(
            "Bets placed (hidden until the end): "
            + ", ".join(f"bet{st.bet_k[r][0] + 1}: {sum(1 for x in b if x >= 0)}/{n}" for r, b in enumerate(st.bets))
        )
    if ended:
        winners = st.winners()
        out.append(f"Game over. Winner: {', '.join(f'{SEAT}{s}' for s in winners)}")
    return "\n".join(out)


# ---------------------------------------------------------------------------------- picture
W, H = 1100, 800
CX, CY = 550, 290
HALF, RAD = 290, 190
LANE_W = 24


def _path_point(t: float) -> tuple[float, float, float, float]:
    """Point and outward normal at fraction t of the stadium centreline (clockwise from top-left)."""
    per = 4 * HALF + 2 * math.pi * RAD
    s = (t % 1.0) * per
    if s < 2 * HALF:  # top straight, going right
        return CX - HALF + s, CY - RAD, 0.0, -1.0
    s -= 2 * HALF
    arc = math.pi * RAD
    if s < arc:  # right turn
        a = -math.pi / 2 + s / RAD
        return CX + HALF + RAD * math.cos(a), CY + RAD * math.sin(a), math.cos(a), math.sin(a)
    s -= arc
    if s < 2 * HALF:  # bottom straight, going left
        return CX + HALF - s, CY + RAD, 0.0, 1.0
    s -= 2 * HALF
    a = math.pi / 2 + s / RAD  # left turn
    return CX - HALF + RAD * math.cos(a), CY + RAD * math.sin(a), math.cos(a), math.sin(a)


def _space_quad(g, r: int, lane: int) -> list[tuple[float, float]]:
    nr = g.num_rows
    t0 = 0.02 + 0.96 * r / nr
    t1 = 0.02 + 0.96 * (r + 1) / nr
    pts = []
    for t, (o0, o1) in ((t0, (lane - 1.5, lane - 0.5)), (t1, (lane - 0.5, lane - 1.5))):
        x, y, nx, ny = _path_point(t)
        pts.append((x + nx * o0 * LANE_W, y + ny * o0 * LANE_W))
        pts.append((x + nx * o1 * LANE_W, y + ny * o1 * LANE_W))
    return pts


def _space_center(g, r: int, lane: int) -> tuple[float, float]:
    q = _space_quad(g, r, lane)
    return sum(p[0] for p in q) / 4, sum(p[1] for p in q) / 4


def render_rgb(st: DownforceState) -> np.ndarray:
    from boardzoo.envs.core.render import INK, PLAYER_COLORS, Canvas

    g = st.game
    cars = _cars(st)
    colors = [tuple(c) for c in g.comp["car_colors"]]
    cv = Canvas(W, H, background=(70, 130, 70))
    cv.rect((0, 560, W, H), fill=(246, 242, 232), outline=None)
    # spaces
    for r in range(g.num_rows):
        for lane in range(3):
            sid = r * 3 + lane
            if not g.exists[sid]:
                continue
            if g.narrow[sid]:
                fill = (120, 120, 130)
            elif not g.rect[sid]:
                fill = (150, 150, 155)
            elif r < 3:
                fill = (185, 185, 190)
            else:
                fill = (170, 170, 175)
            q = _space_quad(g, r, lane)
            cv.polygon(q, fill=fill, outline=(235, 235, 235))
            if g.rumble[sid]:  # red/white kerb on the inner edge
                a, b = q[0], q[3]
                for i in range(4):
                    u0, u1 = i / 4, (i + 1) / 4
                    p0 = (a[0] + (b[0] - a[0]) * u0, a[1] + (b[1] - a[1]) * u0)
                    p1 = (a[0] + (b[0] - a[0]) * u1, a[1] + (b[1] - a[1]) * u1)
                    cv.line([p0, p1], fill=(220, 30, 30) if i % 2 == 0 else (255, 255, 255), width=5)
        if g.bet_after[r] >= 0 or r == g.num_rows - 1:
            lanes = [la for la in range(3) if g.exists[r * 3 + la]]
            q_lo = _space_quad(g, r, lanes[0])
            q_hi = _space_quad(g, r, lanes[-1])
            p0, p1 = q_lo[3], q_hi[2]
            if r == g.num_rows - 1:  # chequered finish
                for i in range(6):
                    u0, u1 = i / 6, (i + 1) / 6
                    a = (p0[0] + (p1[0] - p0[0]) * u0, p0[1] + (p1[1] - p0[1]) * u0)
                    b = (p0[0] + (p1[0] - p0[0]) * u1, p0[1] + (p1[1] - p0[1]) * u1)
                    cv.line([a, b], fill=(0, 0, 0) if i % 2 else (255, 255, 255), width=7)
            else:
                k = g.bet_after[r]
                cv.line([p0, p1], fill=(250, 215, 0), width=5)
                cx, cy = _space_center(g, r, lanes[-1])
                x, y, nx, ny = _path_point(0.02 + 0.96 * (r + 1) / g.num_rows)
                cv.text(
                    (x + nx * 2.3 * LANE_W, y + ny * 2.3 * LANE_W),
                    f"bet {k + 1}",
                    size=13,
                    fill=(250, 230, 60) if not st.triggered[k] else (255, 255, 255),
                    anchor="mm",
                )
    cv.text((CX, CY - 40), "DOWNFORCE", size=34, fill=(255, 255, 255), anchor="mm")
    name = STAGE_NAMES[st.stage]
    sub = {"grid": "setup", "deal": "setup", "order": "setup", "powers": "setup"}.get(name, name)
    info = f"{st.num_players} players - {sub}"
    if st.dec_seat >= 0:
        info += f" - P{st.dec_seat} to {DEC_NAMES[st.dec_type]}"
    cv.text((CX, CY), info, size=16, fill=(255, 255, 255), anchor="mm")
    if st.stage in (AUCTION, POWER) and st.auction_idx < 6:
        c = st.auction_order[st.auction_idx]
        pw = st.power_of_car[c]
        done = sum(1 for s in range(st.num_players) if st.pending[s] >= 0)
        cv.text(
            (CX, CY + 28),
            f"auction {st.auction_idx + 1}/6: {cars[c]}"
            + (f" with {D.POWER_NAMES[pw]}" if pw >= 0 else "")
            + f" - bids committed {done}/{sum(st.eligible)}",
            size=14,
            fill=(255, 255, 255),
            anchor="mm",
        )
    if st.cur_card >= 0 and st.stage in (RACE, BET):
        txt = "  ".join(f"{cars[c] if c >= 0 else 'Wild'} {s}" for c, s in g.deck[st.cur_card])
        cv.text((CX, CY + 28), f"card #{st.cur_card}: {txt}", size=14, fill=(255, 255, 255), anchor="mm")
    if st.finish_order:
        cv.text(
            (CX, CY + 54),
            "finished: " + ", ".join(f"{i + 1}.{cars[c]}" for i, c in enumerate(st.finish_order)),
            size=14,
            fill=(255, 255, 255),
            anchor="mm",
        )
    # cars
    for c in range(6):
        p = st.pos[c]
        if p < 0:
            continue
        x, y = _space_center(g, p // 3, p % 3)
        cv.circle((x, y), 10, fill=colors[c], outline=(255, 255, 255), width=2)
        w = st.owner[c]
        if w >= 0:
            cv.text((x, y), str(w), size=11, fill=(255, 255, 255) if c != 3 else INK, anchor="mm")
    # panel
    ended = st.stage == END
    y0 = 572
    for x, label in (
        (16, "Player"),
        (90, "cars ($ paid, #place)"),
        (400, "power"),
        (540, "hand"),
        (590, "paid"),
        (650, "bets"),
        (760, "money" if ended else ""),
    ):
        cv.text((x, y0), label, size=14)
    for s in range(st.num_players):
        y = y0 + 26 + s * 30
        pc = PLAYER_COLORS[s % len(PLAYER_COLORS)]
        cv.rect((16, y, 34, y + 18), fill=pc, outline=INK)
        mark = "*" if s == st.dec_seat else ""
        cv.text((40, y), f"P{s}{mark}", size=14)
        x = 90
        for c in range(6):
            if st.owner[c] == s:
                cv.rect((x, y, x + 18, y + 18), fill=colors[c], outline=INK, radius=4)
                pl = st.place[c]
                cv.text((x + 22, y), f"${st.price[c]}" + (f" #{pl}" if pl else ""), size=13)
                x += 78
        powers = "/".join(D.POWER_NAMES[p] for p in st.held[s]) or "-"
        cv.text((400, y), powers, size=13)
        cv.text((540, y), str(len(st.hands[s])), size=13)
        paid = sum(st.price[c] for c in range(6) if st.owner[c] == s)
        cv.text((590, y), f"${paid}", size=13)
        bx = 650
        for seat_bets in st.bets:
            if seat_bets[s] >= 0:
                if ended:
                    cv.rect((bx, y, bx + 18, y + 18), fill=colors[seat_bets[s]], outline=INK, radius=9)
                else:
                    cv.rect((bx, y, bx + 18, y + 18), fill=(200, 200, 200), outline=INK, radius=9)
                    cv.text((bx + 9, y + 9), "?", size=12, anchor="mm")
            bx += 24
        if ended:
            cv.text((760, y), f"${st.money[s]}M", size=14)
    cv.text(
        (16, H - 24),
        "number on a car = owner;  light grey: straight  mid grey: curve  dark: narrow  "
        "red/white: rumble  yellow: betting line  chequered: finish;  bets stay hidden until the end",
        size=12,
        fill=(90, 90, 90),
    )
    if ended:
        winners = st.winners()
        cv.text((W - 20, H - 48), "Winner: " + ", ".join(f"P{s}" for s in winners), size=18, anchor="ra")
    return cv.to_array()


# ----------------------------------------------------------------------------- seat view
def seat_text(st: DownforceState, seat: int) -> str:
    """What only ``seat`` knows: its hand (each card's car moves), its secret bid in the auction under
    way (DF auction: one-card bids, hidden until all have bid) and its secret bets (DF-R25, DF-R26:
    hidden from the others until final scoring)."""
    g = st.game
    cars = _cars(st)

    def card(c: int) -> str:
        return f"#{c} [" + " ".join(f"{cars[k] if k >= 0 else 'Wild'}{s}" for k, s in g.deck[c]) + "]"

    hand = ", ".join(card(c) for c in sorted(st.hands[seat])) or "empty"
    lines = [f"your hand ({SEAT}{seat}, {len(st.hands[seat])} cards): {hand}"]
    if st.stage == AUCTION and st.pending[seat] >= 0:
        lines.append(f"your secret bid: {card(st.pending[seat])}")
    bets = [f"bet{st.bet_k[r][0] + 1}: {cars[b[seat]]}" for r, b in enumerate(st.bets) if b[seat] >= 0]
    if bets and st.stage != END:
        lines.append("your secret bets (hidden until the end): " + ", ".join(bets))
    return "\n".join(lines)
