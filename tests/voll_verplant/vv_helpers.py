"""Readable setups for the Voll verplant rule tests (imported by the test modules)."""

from __future__ import annotations

import numpy as np

from boardzoo.envs.voll_verplant.rules import VollVerplantGame

# card kinds of the standard deck (data/decks/standard.json, in file order)
CARD = {"3": 0, "4": 1, "5": 2, "6": 3, "x2": 4, "x3": 5, "T": 6, "F": 7}
LINES = "ABCDEFGHIJ"


def game(**opts) -> VollVerplantGame:
    return VollVerplantGame(**opts)


def num(line: str, k: int) -> int:
    """Number/Express action: line letter, k crosses."""
    return 7 * LINES.index(line) + k


def tr(line: str) -> int:
    """Transfer action on a line."""
    return 70 + LINES.index(line)


def free(station: int) -> int:
    """Free-ride action crossing station id ``station``."""
    return 80 + station - 1


def setup(
    n: int = 2,
    opts: dict | None = None,
    marks: dict | None = None,
    windows: dict | None = None,
    nums: dict | None = None,
    scored: dict | None = None,
    first_gone: str = "",
):
    """A state at the start of a turn (before the reveal).

    Args:
        marks: {seat: [station ids crossed]}.
        windows: {line letter: [window codes]} written on EVERY sheet (all sheets fill windows
            together); codes: number v -> v, express v -> 10 + v, transfer -> 20.
        nums: {seat: {station id: transfer number}} (the station is marked too).
        scored: {seat: {line letter: 1 (first bonus) or 2 (other bonus)}}. A line complete on a
            sheet and not listed here was completed in an earlier turn: first bonus (VV-R27).
        first_gone: letters of lines whose first bonus is struck (besides the completed ones).

    The position must be one the rules can reach (``state_from_dict`` checks it): a sheet with
    transfer numbers needs transfer windows (code 20) on lines through them (VV-R18/R19); the turn
    counter is one turn per filled window.
    """
    g = game(**(opts or {}))
    st = g.new_initial_state(n)
    d = st.to_dict()
    for p, ids in (marks or {}).items():
        d["marks"][p] = sorted(set(d["marks"][p]) | set(ids))
    for p, nm in (nums or {}).items():
        for s, v in nm.items():
            d["nums"][p][str(s)] = v
            d["marks"][p] = sorted(set(d["marks"][p]) | {s})
    for line, codes in (windows or {}).items():
        for p in range(n):
            d["wins"][p][LINES.index(line)] = list(codes)
    for p, sc in (scored or {}).items():
        for line, v in sc.items():
            d["scored"][p][LINES.index(line)] = v
    lines = g.map.line_st
    for p in range(n):  # complete lines have scored (VV-R25); their first bonus is struck (VV-R37)
        on = set(d["marks"][p])
        for li, st_ in enumerate(lines):
            if all(s + 1 in on for s in st_):
                if not d["scored"][p][li]:
                    d["scored"][p][li] = 1
                d["first_gone"][li] = True
    for line in first_gone:
        d["first_gone"][LINES.index(line)] = True
    d["turn"] = sum(len(w) for w in d["wins"][0])  # one turn per filled window so far
    return g.state_from_dict(d)


def reveal(st, card: str):
    """Reveal the given card (the chance outcome)."""
    assert st.is_chance_node()
    st.apply_action(CARD[card])
    return st


def play(st, *actions: int):
    """Every seat commits its action (seat order); the turn resolves after the last."""
    for a in actions:
        st.apply_action(a)
    return st


def turn(st, card: str, *actions: int):
    return play(reveal(st, card), *actions)


def legal(st) -> list[int]:
    return np.flatnonzero(st.legal_mask()).tolist()


def marked(st, p: int) -> list[int]:
    return [s + 1 for s in range(64) if st.marks[p][s]]


def random_game(st, rng, on_state=None):
    while not st.is_terminal():
        if on_state is not None:
            on_state(st)
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    return st
