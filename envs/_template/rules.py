"""Template game (``template_v0``): the canonical shape of a BoardZoo game, small enough to read
in one sitting. Copy it with ``python scripts/new_game.py <name>`` (docs/ADDING_A_GAME.md).

Rules (TT-R* in RULES.md): each seat is dealt a private hand from a shuffled deck; on a turn the
seat plays one card to its pile (PLAY), then decides whether to draw a replacement (DRAW) while
the deck lasts. When every hand is empty the highest pile total wins; ties share the win.

Actions (the same for every player count and option set):

====== ================================================
0-11   PLAY(slot): play the card in hand slot ``slot``
12     DRAW: draw a replacement card (TT-R4)
13     STOP: keep the hand short (TT-R4)
====== ================================================

Chance: the start seat, then every card dealt or drawn (outcome = card index, uniform over the
cards still in the deck, TT-R2).

Version history:
    v0: first release.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, ClassVar

import numpy as np

from ..core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State
from ..core.schema import Dict, Int, List, Spec
from . import data

MAX_HAND = 12
A_PLAY = 0
A_DRAW = MAX_HAND
A_STOP = MAX_HAND + 1
NUM_ACTIONS = MAX_HAND + 2


class Phase(IntEnum):
    """Where the game stands (saved as its int)."""

    START = 0  # chance: the start seat (TT-R2)
    DEAL = 1  # chance: dealing the hands (TT-R2)
    PLAY = 2  # the seat to move plays a card (TT-R3)
    DRAW = 3  # sub-step of the same turn: draw or stop (TT-R4)
    REFILL = 4  # chance: the card drawn (TT-R4)
    END = 5


class TemplateGame(Game):
    """The template game for 2-4 players."""

    env_id: ClassVar[str] = "template_v0"
    name: ClassVar[str] = "Template"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    default_players: ClassVar[int] = 2
    options_spec: ClassVar[dict[str, Option]] = {
        "deck": Option("standard", "TT-V1: a bundled deck name or a path to a deck file", type=str),
    }
    score_scale: ClassVar[float] = 0.05
    conformance_options: ClassVar[list[dict]] = [{}, {"deck": "short"}]

    num_actions = NUM_ACTIONS

    def setup(self) -> None:
        self.values: tuple[int, ...] = data.deck(self.options["deck"])
        self.hand_size: dict[int, int] = {int(k): v for k, v in data.components()["hand_size"].items()}
        need = max(n * self.hand_size[n] for n in range(self.min_players, self.max_players + 1))
        if len(self.values) < need:  # TT-R1: every player count can be dealt
            raise ConfigError(f"option deck={self.options['deck']!r}: {len(self.values)} cards, the deal needs {need}")

    def new_initial_state(self, num_players: int) -> TemplateState:
        self.check_players(num_players)
        return TemplateState(self, int(num_players))

    def state_schema(self, n: int) -> Spec:
        cards = len(self.values)
        card = Int(0, cards - 1)
        return Dict(
            {
                "phase": Int(0, len(Phase) - 1),
                "to_move": Int(0, n - 1),
                "start": Int(0, n - 1),
                "deck": List(card, max_len=cards, unique=True, sorted_=True),
                "hands": List(List(card, max_len=MAX_HAND), length=n),
                "piles": List(List(card, max_len=cards), length=n),
            }
        )

    def _state_from_dict(self, d: dict) -> TemplateState:
        st = TemplateState(self, d["num_players"])
        st.phase_id = Phase(d["phase"])
        st.to_move, st.start = d["to_move"], d["start"]
        st.deck = list(d["deck"])
        st.hands = [list(h) for h in d["hands"]]
        st.piles = [list(p) for p in d["piles"]]
        return st


class TemplateState(State):
    """One position of the template game."""

    game: TemplateGame

    def __init__(self, game: TemplateGame, num_players: int):
        self.game = game
        self.num_players = num_players
        self.phase_id = Phase.START
        self.to_move = 0
        self.start = 0
        self.deck = list(range(len(game.values)))  # card indices still in the deck (a set, sorted)
        self.hands: list[list[int]] = [[] for _ in range(num_players)]
        self.piles: list[list[int]] = [[] for _ in range(num_players)]
        self._mask = None

    # -- turn structure
    def current_player(self) -> int:
        ph = self.phase_id
        if ph in (Phase.START, Phase.DEAL, Phase.REFILL):
            return CHANCE
        if ph == Phase.END:
            return TERMINAL
        return self.to_move

    def phase(self) -> str:
        return self.phase_id.name.lower()

    def _dealing_seat(self) -> int:
        """TT-R2: cards are dealt one at a time, round the table from the start seat."""
        dealt = sum(len(h) for h in self.hands)
        return (self.start + dealt) % self.num_players

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        if self.phase_id == Phase.START:
            return [(s, 1.0 / self.num_players) for s in range(self.num_players)]
        p = 1.0 / len(self.deck)
        return [(c, p) for c in self.deck]

    def is_legal_chance(self, outcome: Any) -> bool:
        if outcome.__class__ is not int:
            return False
        if self.phase_id == Phase.START:
            return 0 <= outcome < self.num_players
        return outcome in self.deck

    def _legal_mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self.phase_id == Phase.PLAY:
            m[A_PLAY : A_PLAY + len(self.hands[self.to_move])] = 1  # TT-R3
        else:  # Phase.DRAW (TT-R4): a draw needs a card left in the deck
            m[A_STOP] = 1
            if self.deck:
                m[A_DRAW] = 1
        return m

    def _apply(self, a: Any) -> None:
        ph = self.phase_id
        if ph == Phase.START:
            self.start = self.to_move = a
            self.phase_id = Phase.DEAL
        elif ph == Phase.DEAL:
            self._deal(a)
        elif ph == Phase.PLAY:
            self.piles[self.to_move].append(self.hands[self.to_move].pop(a - A_PLAY))
            self.phase_id = Phase.DRAW if self.deck else self._next_turn()
        elif ph == Phase.DRAW:
            self.phase_id = Phase.REFILL if a == A_DRAW else self._next_turn()
        else:  # Phase.REFILL
            self.deck.remove(a)
            self.hands[self.to_move].append(a)
            self.phase_id = self._next_turn()

    def _deal(self, card: int) -> None:
        """TT-R2: deal ``card`` to the next seat; the start seat moves first once all hold a hand."""
        self.hands[self._dealing_seat()].append(card)
        self.deck.remove(card)
        if sum(len(h) for h in self.hands) == self.num_players * self.game.hand_size[self.num_players]:
            self.phase_id = Phase.PLAY

    def _next_turn(self) -> Phase:
        """TT-R5: the next seat holding cards moves; when no hand holds a card the game ends."""
        n = self.num_players
        for k in range(1, n + 1):
            s = (self.to_move + k) % n
            if self.hands[s]:
                self.to_move = s
                return Phase.PLAY
        return Phase.END

    # -- results (TT-R6)
    def scores(self) -> list[float]:
        v = self.game.values
        return [float(sum(v[c] for c in pile)) for pile in self.piles]

    # -- hidden information
    def resample_hidden(self, seat: int, rng: np.random.Generator) -> TemplateState:
        """Re-deal the other seats' hands from the cards ``seat`` has not seen."""
        s = self.clone()
        assert isinstance(s, TemplateState)
        unseen = list(s.deck) + [c for p in range(s.num_players) if p != seat for c in s.hands[p]]
        rng.shuffle(unseen)
        for p in range(s.num_players):
            if p != seat:
                k = len(s.hands[p])
                s.hands[p], unseen = sorted(int(c) for c in unseen[:k]), unseen[k:]
        s.deck = sorted(int(c) for c in unseen)
        s._mask = None
        return s

    # -- saved states
    def _to_dict(self) -> dict:
        return {
            "phase": int(self.phase_id),
            "to_move": self.to_move,
            "start": self.start,
            "deck": sorted(self.deck),
            "hands": [list(h) for h in self.hands],
            "piles": [list(p) for p in self.piles],
        }

    def check_invariants(self) -> None:
        n, hand = self.num_players, self.game.hand_size[self.num_players]
        every = sorted(self.deck + [c for h in self.hands for c in h] + [c for p in self.piles for c in p])
        assert every == list(range(len(self.game.values))), "every card is in exactly one place (TT-R1)"
        assert all(len(h) <= hand for h in self.hands), "a hand never exceeds its dealt size"
        dealt = sum(len(h) for h in self.hands) + sum(len(p) for p in self.piles)
        assert self.game.hand_size[n] <= MAX_HAND
        if self.phase_id == Phase.START:
            assert dealt == 0 and self.to_move == 0 and self.start == 0, "nothing happens before the start seat"
        elif self.phase_id == Phase.DEAL:
            assert not any(self.piles) and dealt < n * hand and self.to_move == self.start
            assert [len(h) for h in self.hands] == [len(range((s - self.start) % n, dealt, n)) for s in range(n)], (
                "TT-R2: dealt round the table"
            )
        else:
            assert dealt >= n * hand, "the deal is complete"
            if self.phase_id == Phase.END:
                assert not any(self.hands), "TT-R5: the game ends when every hand is empty"
            else:
                assert self.hands[self.to_move] or self.phase_id != Phase.PLAY, "the seat to play holds a card"
                if self.phase_id in (Phase.DRAW, Phase.REFILL):
                    assert self.piles[self.to_move] and self.deck, "a draw follows a play, from a non-empty deck"
                    assert len(self.hands[self.to_move]) < hand, "a draw replaces a card just played"

    def action_to_string(self, a: Any) -> str:
        if self.is_chance_node():
            return f"start seat {a}" if self.phase_id == Phase.START else f"card {self.game.values[a]}"
        if a == A_DRAW:
            return "draw"
        if a == A_STOP:
            return "stop"
        hand = self.hands[self.to_move]
        return f"play {self.game.values[hand[a]]}" if a < len(hand) else f"play slot {a}"
