"""Readable position builders for the Hidden Castle rule tests.

Places are written as strings: ``"g5"`` gallery space 5, ``"r3"`` room 3, ``"s+10"`` / ``"s-10"``
the cellar step of that value, ``"start"`` not yet placed.
"""

from __future__ import annotations

import numpy as np

from boardzoo.envs.hidden_castle.rules import (
    DECLINE,
    GALLERY,
    MOVE,
    MOVE0,
    NUM_TARGETS,
    PHASES,
    ROOM0,
    STEP0,
    UNPLACED,
    HiddenCastleGame,
    HiddenCastleState,
)

BASE = HiddenCastleGame()
MIDNIGHT = HiddenCastleGame(midnight_party=True)
FACE = {1: 0, 2: 1, 4: 2, 5: 3, "H": 4}  # die face index of each value (components.json)


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
    return [name_of(state, lc) for lc in state.loc[seat * g : (seat + 1) * g]]


def build(
    guests: dict[int, list[str]],
    n: int = 2,
    variant: bool = False,
    hugo: int | str = 5,
    clock: int = 1,
    turn: int = 0,
    roll: int | None = None,
    spooky: list[int] | None = None,
    phase: str = "move",
    start: int = 0,
    round_: int = 1,
) -> HiddenCastleState:
    """A position: ``guests[seat]`` lists place strings by slot (missing slots go to ``"start"``
    for phase setup, else to the first listed place). ``hugo`` is a gallery space, or ``"start"``,
    or ``"c<k>"`` meaning k steps left to gallery 0. ``roll`` set -> move phase with that roll.

    Built as a saved state and loaded with the public ``HiddenCastleState.from_dict`` (which rebuilds
    the derived tables but, unlike ``game.state_from_dict``, does not refuse positions the rules
    cannot reach: some rule tests start from such a position, the loading tests save them)."""
    game = MIDNIGHT if variant else BASE
    fresh = game.new_initial_state(n)
    d = fresh.to_dict()
    g = fresh.gpp
    loc = []
    for p in range(n):
        names = guests.get(p, [])
        for i in range(g):
            if i < len(names):
                nm = names[i]
            elif phase == "setup":
                nm = "start"
            else:
                raise ValueError(f"seat {p} needs {g} guest places")
            loc.append(place(fresh, nm))
    d["loc"] = loc
    if isinstance(hugo, str):
        d["hugo"] = -fresh.side.hugo_path if hugo == "start" else -int(hugo[1:])
    else:
        d["hugo"] = hugo
    d["clock"] = 0 if variant or d["hugo"] < 0 else clock  # the clock starts with Hugo's first step on g0
    d["turn"] = turn
    d["start"] = start
    d["round"] = round_
    if variant:
        d["round_scores"] = [[0] * n for _ in range(round_ - 1)]
    if spooky is not None:
        d["spooky"] = list(spooky)
    if not variant:  # scoring-event tallies consistent with the given trail (check_invariants)
        for k in ("cap_cnt", "cap_pts", "plus_pts", "green_off", "green_cnt"):
            d[k] = [0] * n
        for p in range(n):
            on = [lc for lc in loc[p * g : (p + 1) * g] if STEP0 <= lc < UNPLACED]
            d["cap_cnt"][p] = len(on)
            d["cap_pts"][p] = sum(fresh.side.steps[lc - STEP0] for lc in on)
            rest = d["spooky"][p] - game.start_score - d["cap_pts"][p]
            if rest >= 0:
                d["plus_pts"][p] = rest  # armory entries
            else:
                d["green_off"][p] = -rest  # green-room entries of -3
                d["green_cnt"][p] = (-rest + 2) // 3
    d["placed"] = sum(1 for lc in loc if lc != UNPLACED) if phase == "setup" else n * g
    d["phase_id"] = PHASES.index(phase)
    if roll is not None:
        d["roll"] = roll
        d["phase_id"] = int(MOVE)
    return HiddenCastleState.from_dict(game, d)


def edit(st: HiddenCastleState, **fields) -> HiddenCastleState:
    """``st`` with some saved fields changed, built again like :func:`build`."""
    d = st.to_dict()
    for k, v in fields.items():
        if k not in d:
            raise KeyError(k)
        d[k] = int(v) if k == "phase_id" else v
    return HiddenCastleState.from_dict(st.game, d)


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
