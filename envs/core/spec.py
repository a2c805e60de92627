"""How a game's modules are put together, once, where the game is registered.

The wiring runs one way: ``data -> rules -> encoder -> bot / render``. The rules module knows
nothing of its encoder, heuristic or renderer; the game package's ``__init__.py`` names them in
one :class:`GameSpec`, and the registry points at it::

    # envs/castle/__init__.py
    SPEC = GameSpec(rules=CastleGame, encoder=CastleEncoder, heuristic=castle_heuristic,
                    renderer=render_rgb, text=render_text)

    # envs/__init__.py
    register("castle_v0", "boardzoo.envs.castle:SPEC")

Making the spec binds it to the rules class (and a game's package ``__init__`` always runs before
its rules module can be imported, so every Game instance is wired): ``Game.__init__`` then builds
the encoder (``game.encoder``; ``observation_size``, ``observation_layout()`` and the action
feature offset come from it), ``State.observation`` encodes through it, ``State.__str__`` is the
text renderer, ``Game.renderer()`` the rgb one and ``Game.heuristic_bot()`` the heuristic.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - types only
    import numpy as np

    from .encoder import Encoder
    from .game import Game


@dataclass(frozen=True)
class GameSpec:
    """A game's parts.

    Attributes:
        rules: the Game subclass (its State comes from ``new_initial_state``).
        encoder: the Encoder subclass (built once per Game instance).
        heuristic: ``(game, seat, seed, **style) -> Bot``: the game's heuristic bot (a game may
            offer style variants as keywords; an unknown style is a ConfigError).
        renderer: ``state -> HxWx3 uint8`` (needs Pillow), or None.
        text: ``state -> str``, the ansi rendering (``str(state)``): public information only.
        seat_text: ``(state, seat) -> str``, what only ``seat`` may know (its hand, its secret bids
            and bets, its objectives), or None when the game has no private information to show.
            ``Game.seat_view`` joins it to the public text. Contract (tests/conformance/
            test_seat_views.py): ``str(state)``, the rgb image and ``seat_view(state, s)`` are
            unchanged by ``state.resample_hidden(s, rng)``, so none of them shows what seat ``s``
            may not know.
        fair_heuristic: the default heuristic (no style keywords) decides only on what its seat
            may know and never modifies the state it is given, so :func:`core.bots.choose` hands it
            the real state instead of a ``resample_hidden`` copy (one clone per decision saved in
            self-play, arenas and tournaments). Contract, checked for every game that declares it
            (tests/conformance/test_fair_heuristics.py): the same decision on the state and on its
            re-dealt views, and the state unchanged by the decision.
    """

    rules: type[Game]
    encoder: type[Encoder]
    heuristic: Callable[..., Any]
    renderer: Callable[[Any], np.ndarray] | None = None  # (state of this game) -> image
    text: Callable[[Any], str] | None = None
    seat_text: Callable[[Any, int], str] | None = None  # (state, seat) -> that seat's private part
    fair_heuristic: bool = False

    def __post_init__(self) -> None:
        self.bind()

    def bind(self) -> None:
        """Attach this spec to its rules class (idempotent; the registry calls it)."""
        current = self.rules.__dict__.get("_spec")
        if current is not None and current is not self:
            raise ValueError(f"{self.rules.__name__} is already bound to another GameSpec")
        self.rules._spec = self
