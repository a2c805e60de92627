"""Text (ansi) and picture (rgb_array) renderings of Challengers!: the tournament table (fans,
trophies, this round's schedule), every deck as card tiles, the current match (benches, flag stack,
attack) and the last match's play-by-play."""

from __future__ import annotations

import numpy as np

from ..core.render import INK, PLAYER_COLORS, Canvas
from .data import LEVELS
from .rules import EV_CAPTURE, EV_LOSE_BENCH, EV_LOSE_DECK, EV_REVEAL, FINAL_ROUND, ROUNDS, ChallengersState, Phase

SET_COLORS = [(200, 200, 205), (150, 120, 190), (90, 140, 210), (235, 150, 80), (120, 190, 120), (220, 110, 130)]
BOT_COLOR = (130, 130, 130)


def _who(state: ChallengersState, p: int) -> str:
    return "bot" if p == state.bot else f"seat {p}"


def _deck_text(state: ChallengersState, deck: list[int]) -> str:
    names = state.game.type_names
    return ", ".join(f"{names[t]}x{c}" if c > 1 else names[t] for t, c in enumerate(deck) if c) or "-"


def _trophy_text(state: ChallengersState, p: int, show: bool) -> str:
    g = state.game
    out = []
    for r, row in enumerate(state.trophies):
        for k, o in enumerate(row):
            if o == p:
                out.append(f"R{r + 1}:{g.trophies[r][k]}" if show else f"R{r + 1}")
    return " ".join(out) or "-"


def _log_lines(state: ChallengersState) -> list[str]:
    names = state.game.type_names
    if not state.log:
        return []
    pairs = state.pairs() if state.round <= ROUNDS or len(state.finalists) == 2 else []
    idx = state.match if state.phase_id in (Phase.STARTER, Phase.REVEAL, Phase.TROPHY) else max(0, len(pairs) - 1)
    pair = pairs[min(idx, len(pairs) - 1)] if pairs else (0, 1)
    out = []
    for ev, side, t in state.log:
        who = _who(state, pair[side])
        name = names[t] if t >= 0 else "?"
        if ev == EV_REVEAL:
            out.append(f"{who} reveals {name}")
        elif ev == EV_CAPTURE:
            out.append(f"  {who} takes the flag with {name}")
        elif ev == EV_LOSE_DECK:
            out.append(f"  {who} cannot reveal: loses")
        elif ev == EV_LOSE_BENCH:
            out.append(f"  {who} cannot bench {name}: loses")
    return out


def render_text(state: ChallengersState) -> str:
    g = state.game
    n = state.num_players
    rnd = "final" if state.round == FINAL_ROUND else f"round {state.round}/{ROUNDS}"
    lines = [f"Challengers!, {n} player(s){' + bot' if state.bot >= 0 else ''}, {rnd}, phase {state.phase()}"]
    if state.round <= ROUNDS or len(state.finalists) == 2:
        lines.append("schedule: " + ", ".join(f"{_who(state, a)} v {_who(state, b)}" for a, b in state.pairs()))
    for p in range(state.P):
        show = state.trophies_visible(-1) or state.is_terminal()
        mark = ">" if p == state.seat and state.current_player() == p else " "
        deck = state.public[p] if p < n else state.decks[p]
        fans = f"fans {state.fans(p)}" if show else f"tokens {state.tokens[p]}"
        lines.append(f"{mark} {_who(state, p)}: {fans}, trophies {_trophy_text(state, p, show)}")
        lines.append(f"    deck ({sum(deck)}): {_deck_text(state, deck)}")
    piles = []
    for lv in (1, 2, 3):
        ts = g.level_types[lv]
        piles.append(f"{LEVELS[lv]} {sum(state.pile[t] for t in ts)} (discard {sum(state.discard[t] for t in ts)})")
    lines.append("piles: " + ", ".join(piles))
    if state.phase_id in (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE):
        lines.append(f"seat {state.seat} is in its deck phase (its display and picks are private)")
    if state.phase_id == Phase.REVEAL and state.stack:
        a, b = state.pairs()[state.match]
        for side, p in enumerate((a, b)):
            bench = ", ".join(f"{g.type_names[t]}x{c}" for t, c in state.bench[side] if t >= 0) or "-"
            lines.append(f"  {_who(state, p)} bench: {bench}")
        top = g.type_names[state.stack[-1][0]]
        lines.append(f"  flag: {_who(state, (a, b)[state.flag])} on {top} (defence {state.defence()})")
        if state.attack:
            lines.append(f"  attack: {[g.type_names[t] for t, _ in state.attack]} = {state.attack_total()}")
    log = _log_lines(state)
    if log:
        lines.append("match play-by-play:" if state.phase_id == Phase.REVEAL else "last match play-by-play:")
        lines += ["  " + x for x in log[-40:]]
    if state.is_terminal():
        lines.append(f"scores: {state.scores()}, winners: {state.winners()}")
    return "\n".join(lines)


def _tile(c: Canvas, x: int, y: int, state: ChallengersState, t: int, count: int = 1, w: int = 46) -> None:
    g = state.game
    s = g.set_of[t]
    fill = SET_COLORS[s % len(SET_COLORS)] if s >= 0 else BOT_COLOR
    c.rect((x, y, x + w, y + 40), fill=fill, outline=INK, radius=4)
    c.text((x + 4, y + 2), str(g.power[min(state.round, ROUNDS)][t]), size=14)
    if count > 1:
        c.text((x + w - 4, y + 2), f"x{count}", size=11, anchor="ra")
    c.text((x + 3, y + 22), g.type_names[t][:7], size=10)


def render_rgb(state: ChallengersState) -> np.ndarray:
    P = state.P
    W = 1100
    H = 130 + 58 * P + 230
    c = Canvas(W, H)
    rnd = "Final" if state.round == FINAL_ROUND else f"Round {state.round}/{ROUNDS}"
    c.text((12, 10), f"Challengers!  {rnd}  -  {state.phase()}", size=20)
    if state.round <= ROUNDS or len(state.finalists) == 2:
        sched = "   ".join(f"{_who(state, a)} v {_who(state, b)}" for a, b in state.pairs())
        c.text((12, 40), "Schedule: " + sched, size=13)
    show = state.trophies_visible(-1) or state.is_terminal()
    y0 = 66
    for p in range(P):
        y = y0 + 58 * p
        col = BOT_COLOR if p == state.bot else PLAYER_COLORS[p % len(PLAYER_COLORS)]
        c.rect((10, y, 200, y + 50), fill=col, outline=INK, radius=6)
        c.text((18, y + 4), _who(state, p), size=15)
        c.text((18, y + 26), f"fans {state.fans(p)}" if show else f"tokens {state.tokens[p]}", size=12)
        for i, r in enumerate(state.trophy_rounds(p)):
            c.circle((120 + 14 * (i % 6), y + 33 + 0 * i), 6, fill=(240, 200, 60))
            c.text((120 + 14 * (i % 6), y + 27), str(r), size=9, anchor="ma")
        deck = state.public[p] if p < state.num_players else state.decks[p]
        x = 210
        for t, k in enumerate(deck):
            if k and x < W - 50:
                _tile(c, x, y + 5, state, t, k)
                x += 50
    y = y0 + 58 * P + 10
    c.line([(10, y), (W - 10, y)], width=2)
    if state.phase_id == Phase.REVEAL and state.stack:
        a, b = state.pairs()[state.match]
        for side, p in enumerate((a, b)):
            yy = y + 10 + side * 100
            c.text((12, yy), f"{_who(state, p)} bench", size=13)
            for i, (t, k) in enumerate(state.bench[side]):
                c.rect((12 + 50 * i, yy + 20, 58 + 50 * i, yy + 62), outline=INK)
                if t >= 0:
                    _tile(c, 12 + 50 * i, yy + 21, state, t, k)
            if state.flag == side:
                c.text((340, yy), f"flag (defence {state.defence()})", size=13)
                _tile(c, 340, yy + 20, state, state.stack[-1][0])
                c.polygon([(392, yy + 20), (392, yy + 44), (410, yy + 32)], fill=(220, 40, 40))
            elif state.attack:
                c.text((340, yy), f"attack {state.attack_total()}", size=13)
                for i, (t, _) in enumerate(state.attack[:12]):
                    _tile(c, 340 + 50 * i, yy + 20, state, t)
    else:
        log = _log_lines(state)
        c.text((12, y + 8), "Last match" if log else "No match played yet", size=14)
        for i, line in enumerate(log[-10:]):
            c.text((12 + 540 * (i // 5), y + 32 + 18 * (i % 5)), line, size=12)
        if state.phase_id in (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE):
            c.text((12, y + 130), f"seat {state.seat} is drafting (display hidden)", size=13)
            for i in range(5):
                c.rect((12 + 52 * i, y + 150, 60 + 52 * i, y + 192), fill=(90, 90, 110), outline=INK, radius=4)
    if state.is_terminal():
        c.text((W - 20, 12), f"winners: {state.winners()}", size=16, anchor="ra")
    return c.to_array()


def render_seat(state: ChallengersState, seat: int) -> str:
    """What only ``seat`` may know: its current deck, its display and picks while it drafts, its own
    trophy values (CH-R33)."""
    g = state.game
    lines = [f"seat {seat} (private): deck now ({sum(state.decks[seat])}): {_deck_text(state, state.decks[seat])}"]
    lines.append(f"  own trophies: {_trophy_text(state, seat, True)}, fans {state.fans(seat)}")
    if state.seat == seat and state.phase_id in (Phase.CHOOSE, Phase.DRAW, Phase.PICK, Phase.RECRUIT, Phase.REMOVE):
        if state.option >= 0:
            lv, k = g.draft_options(min(state.round, ROUNDS))[state.option]
            lines.append(f"  draft option {LEVELS[lv]}x{k}, picks left {state.picks}, redraw used {state.redraw}")
        if state.phase_id in (Phase.DRAW, Phase.PICK, Phase.RECRUIT):
            shown = [g.type_names[t] if t >= 0 else "." for t in state.display]
            lines.append(f"  display: {shown}")
    return "\n".join(lines)
