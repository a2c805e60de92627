"""The errors BoardZoo raises on purpose (all subclasses of :class:`BoardZooError`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class BoardZooError(Exception):
    """Base class of every error BoardZoo raises on purpose."""


class IllegalActionError(BoardZooError, ValueError):
    """An action that is not legal in the current state.

    The message names the action, the phase and the legal actions; the state is unchanged.
    """

    def __init__(self, action: Any, phase: str, legal: Sequence[Any], describe: Callable[[Any], str] | None = None):
        self.action = action
        self.phase = phase
        self.legal = list(legal)
        shown = self.legal[:40]
        names = ", ".join(f"{a}" + (f" ({describe(a)})" if describe else "") for a in shown)
        more = f", ... ({len(self.legal)} in all)" if len(self.legal) > len(shown) else ""
        super().__init__(f"illegal action {action!r} in phase {phase!r}; legal actions: [{names}{more}]")


class ConfigError(BoardZooError, ValueError):
    """A malformed option, config or data file; the message names the offending entry."""


class StateError(BoardZooError, ValueError):
    """A saved state or record that cannot be loaded: the message names the field and why."""
