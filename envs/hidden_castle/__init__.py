"""Escape from the Hidden Castle (``hidden_castle_v0``); see rules.py and RULES.md."""
from .rules import HiddenCastleGame, HiddenCastleState

__all__ = ["HiddenCastleGame", "HiddenCastleState"]
