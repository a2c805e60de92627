"""Readable position builders for the Hidden Castle rule tests.

Places are written as strings: ``"g5"`` gallery space 5, ``"r3"`` room 3, ``"s+10"`` / ``"s-10"``
the cellar step of that value, ``"start"`` not yet placed.
"""
from __future__ import annotations

import numpy as np

from boardzoo.envs.hidden_castle.board import GALLERY, ROOM0, STEP0, UNPLACED
from boardzoo.envs.hidden_castle.rules import (DECLINE, MOVE, MOVE0, NUM_TARGETS, PHASES, HiddenCastleGame,
                                               HiddenCastleState)

BASE = HiddenCastleGame()
MIDNIGHT = HiddenCastleGame(midnight_party=True)
FACE = {1: 0, 2: 1, 4: 2, 5: 3, "H": 4}   # die face index of each value (components.json)


def place(state: HiddenCastleState, name: str) -> int:
    """Location code of a place string."""
    if name == "start":
        return UNPLACED
    kind, rest = name[0], name[1:]
    if kind == "g":
        return int(rest)
    if kind == "r":
        return ROOM0 + int(rest) - 1
    if kind == "s":
        return STEP0 + state.side.steps.index(int(rest))
    raise ValueError(name)


def name_of(state: HiddenCastleState, loc: int) -> str:
    if loc == UNPLACED:
        return "start"
    if loc < GALLERY:
        return f"g{loc}"
    if loc < STEP0:
        return f"r{loc - ROOM0 + 1}"
    return f"s{state.side.steps[loc - STEP0]:+d}"


def where(state: HiddenCastleState, seat: int) -> list[str]:
    """Place strings of ``seat``'s guests in slot order."""
    g = state.gpp
    return [name_of(state, l) for l in state.loc[seat * g:(seat + 1) * g]]


def build(guests: dict[int, list[str]], n: int = 2, variant: bool = False, hugo: int | str = 5,
          clock: int = 1, turn: int = 0, roll: int | None = None, spooky: list[int] | None = None,
          phase: str = "move", start: int = 0, round_: int = 1) -> HiddenCastleState:
    """A position: ``guests[seat]`` lists place strings by slot (missing slots go to ``"start"``
    for phase setup, else to the first listed place). ``hugo`` is a gallery space, or ``"start"``,
    or ``"c<k>"`` meaning k steps left to gallery 0. ``roll`` set -> move phase with that roll."""
    game = MIDNIGHT if variant else BASE
    st = game.new_initial_state(n)
    g = st.gpp
    for p in range(n):
        names = guests.get(p, [])
        for i in range(g):
            if i < len(names):
                nm = names[i]
            elif phase == "setup":
                nm = "start"
            else:
                raise ValueError(f"seat {p} needs {g} guest places")
            st.loc[p * g + i] = place(st, nm)
    if isinstance(hugo, str):
        st.hugo = -st.side.hugo_path if hugo == "start" else -int(hugo[1:])
    else:
        st.hugo = hugo
    st.clock = 0 if variant or st.hugo < 0 else clock   # the clock starts with Hugo's first step on g0
    st.turn = turn
    st.start = start
    st.round = round_
    if variant:
        st.round_scores = [[0] * n for _ in range(round_ - 1)]
    if spooky is not None:
        st.spooky = list(spooky)
    if not variant:   # scoring-event tallies consistent with the given trail (check_invariants)
        for p in range(n):
            on = [l for l in st.loc[p * g:(p + 1) * g] if STEP0 <= l < UNPLACED]
            st.cap_cnt[p] = len(on)
            st.cap_pts[p] = sum(st.side.steps[l - STEP0] for l in on)
            rest = st.spooky[p] - game.start_score - st.cap_pts[p]
            if rest >= 0:
                st.plus_pts[p] = rest                     # armory entries
            else:
                st.green_off[p] = -rest                   # green-room entries of -3
                st.green_cnt[p] = (-rest + 2) // 3
    st.placed = sum(1 for l in st.loc if l != UNPLACED) if phase == "setup" else n * g
    st.phase_id = PHASES.index(phase)
    if roll is not None:
        st.roll = roll
        st.phase_id = MOVE
    st._rebuild_counts()
    return st


def mv(slot: int, target: int = 0) -> int:
    """MOVE(slot, target) action id."""
    return MOVE0 + slot * NUM_TARGETS + target


def legal_moves(st: HiddenCastleState) -> set[tuple[int, int]]:
    """{(slot, target)} of the legal MOVE actions."""
    out = set()
    for a in np.flatnonzero(st.legal_mask()):
        a = int(a)
        if MOVE0 <= a < DECLINE:
            out.add(divmod(a - MOVE0, NUM_TARGETS))
    return out


def roll(st: HiddenCastleState, value) -> None:
    """Apply the die outcome showing ``value`` (1, 2, 4, 5 or "H")."""
    st.apply_action(FACE[value])
