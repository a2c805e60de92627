"""Observation encoders: a game's observation layout as named blocks, and the encoder base class.

The encoder sits after the rules (``data -> rules -> encoder -> bot / render``): it reads a
state and writes the flat float32 vector one seat sees. It owns the layout (the named blocks
that the bot card and each game's RULES.md show) and any incremental cache it keeps; the rules
never import it (the game's :class:`~boardzoo.envs.core.spec.GameSpec` puts the two together).

    class CastleEncoder(Encoder):
        def build(self, L: Layout) -> None:
            self.me = L.block("me", 12)             # offsets come from the layout, never typed twice
            self.others = L.block("others", 7 * 12)

        def encode(self, state, seat):
            o = np.zeros(self.size, np.float32)
            o[self.me:self.me + 12] = ...
            return o
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover - types only
    from .game import Game


class Layout:
    """Named, contiguous blocks of an observation vector, in order, with the range of every entry.

    ``block(name, length, low=0.0, high=1.0)`` appends a block and returns its offset; ``low`` and
    ``high`` are the block's true bounds (a number for the whole block, or one per entry; ``inf``
    where the rules set no limit, e.g. a score). ``table()`` gives ``[(name, offset, length), ...]``,
    ``bounds()`` the two float32 arrays, ``size`` is the total length. The conformance suite checks
    every observation lies within the declared bounds.
    """

    def __init__(self) -> None:
        self._blocks: list[tuple[str, int, int]] = []
        self._bounds: list[tuple[np.ndarray, np.ndarray]] = []
        self.size = 0

    def block(self, name: str, length: int, low: Any = 0.0, high: Any = 1.0) -> int:
        if any(b[0] == name for b in self._blocks):
            raise ValueError(f"observation block {name!r} declared twice")
        if length <= 0:
            raise ValueError(f"observation block {name!r} has length {length}")
        try:
            lo = np.broadcast_to(np.asarray(low, np.float32), (int(length),)).copy()
            hi = np.broadcast_to(np.asarray(high, np.float32), (int(length),)).copy()
        except ValueError:
            raise ValueError(f"observation block {name!r}: bounds must be numbers or {length} per entry") from None
        if np.isnan(lo).any() or np.isnan(hi).any() or (lo > hi).any():
            raise ValueError(f"observation block {name!r}: bounds must satisfy low <= high")
        start = self.size
        self._blocks.append((name, start, int(length)))
        self._bounds.append((lo, hi))
        self.size += int(length)
        return start

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``: float32 arrays of length ``size``."""
        if not self._bounds:
            return np.zeros(0, np.float32), np.zeros(0, np.float32)
        return np.concatenate([b[0] for b in self._bounds]), np.concatenate([b[1] for b in self._bounds])

    def table(self) -> list[tuple[str, int, int]]:
        return list(self._blocks)

    def offset(self, name: str) -> int:
        for n, off, _ in self._blocks:
            if n == name:
                return off
        raise KeyError(name)

    def markdown(self) -> str:
        """The layout as a Markdown table (for RULES.md)."""
        rows = ["| block | offset | length |", "|---|---|---|"]
        rows += [f"| `{n}` | {o} | {k} |" for n, o, k in self._blocks]
        return "\n".join(rows)


class Encoder:
    """Base class of a game's observation encoder (one instance per Game, i.e. per option set).

    Subclasses implement ``build(layout)`` (declare the blocks, keep the offsets) and
    ``encode(state, seat)``. ``action_features`` names the block holding one feature per action
    (see ``Game.action_feature_offset``), when the encoder writes one.
    """

    action_features: str | None = None

    def __init__(self, game: Game) -> None:
        self.game = game
        layout = Layout()
        self.build(layout)
        self.layout = layout
        self.size = layout.size
        self.action_feature_offset: int | None = None
        if self.action_features is not None:
            self.action_feature_offset = layout.offset(self.action_features)

    def build(self, layout: Layout) -> None:
        raise NotImplementedError

    def encode(self, state: Any, seat: int) -> np.ndarray:
        """What ``seat`` sees of ``state`` (a State of this encoder's game): a fresh float32 array of
        ``size`` entries that the caller owns. Return a copy of any cache, never the cache itself:
        the adapter hands the array out without copying it again (the conformance suite checks it)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} size={self.size}>"


def check_encoder(encoder: Any, num_actions: int) -> None:
    """Raise ValueError when an encoder's layout is not contiguous or its feature block is off."""
    at = 0
    for name, off, length in encoder.layout.table():
        if off != at:
            raise ValueError(f"block {name!r} starts at {off}, expected {at}")
        at += length
    if at != encoder.size:
        raise ValueError(f"layout covers {at} entries, the encoder writes {encoder.size}")
    if encoder.action_feature_offset is not None:
        blocks = {n: (o, k) for n, o, k in encoder.layout.table()}
        if blocks[encoder.action_features][1] != num_actions:
            raise ValueError(f"action-feature block {encoder.action_features!r} must have one entry per action")
