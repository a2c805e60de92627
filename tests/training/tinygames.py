"""Tiny games for the training tests (registered by fixtures, so the tests never wait for the real games).

``tinynim_v0``  2-3 players, a pile of stones with a random start size (chance), take 1-3, whoever
               takes the last stone wins. Each seat also holds a hidden bonus card (0/1) that only
               breaks nothing but exercises ``resample_hidden``. Heuristic: leave a multiple of 4.
``claim_v0``   2-4 players; action 0 claims the win at once, action 1 passes; after 3 passes each,
               all tie. A bot that always claims always wins against one that always passes.
"""

from __future__ import annotations

import numpy as np

from boardzoo.envs.core.bots import HeuristicBot
from boardzoo.envs.core.game import CHANCE, TERMINAL, ConfigError, Game, Option, State

MAX_PILE = 15


class TinyNimGame(Game):
    env_id = "tinynim_v0"
    name = "Tiny Nim"
    version = 0
    min_players = 2
    max_players = 3
    default_players = 2
    options_spec = {"max_pile": Option(MAX_PILE, "largest starting pile", type=int)}
    num_actions = 3
    observation_size = MAX_PILE + 1 + 3 + 2

    def check_options(self):
        if not 4 <= self.options["max_pile"] <= MAX_PILE:
            raise ConfigError("option max_pile must be in 4..15")

    def new_initial_state(self, num_players):
        self.check_players(num_players)
        return TinyNimState(self, num_players)

    def state_from_dict(self, d):
        s = TinyNimState(self, d["n"])
        s.pile, s.turn, s.cards, s.last = d["pile"], d["turn"], list(d["cards"]), d["last"]
        return s

    def heuristic_bot(self, seat, seed=None):
        def policy(st, p, rng):
            legal = np.flatnonzero(st.legal_mask())
            take = st.pile % 4
            return int(take - 1) if take and take - 1 in legal else int(rng.choice(legal))

        return HeuristicBot(policy, seed)


class TinyNimState(State):
    def __init__(self, game, n):
        self.game, self.num_players = game, n
        self.pile = -1
        self.turn = 0
        self.cards: list[int] = []
        self.last = -1

    def current_player(self):
        if self.pile < 0 or len(self.cards) < self.num_players:
            return CHANCE
        if self.pile == 0:
            return TERMINAL
        return self.turn

    def chance_outcomes(self):
        if self.pile < 0:
            k = self.game.options["max_pile"] - 3
            return [(p, 1 / k) for p in range(4, self.game.options["max_pile"] + 1)]
        return [(0, 0.5), (1, 0.5)]

    def _legal_mask(self):
        m = np.zeros(3, np.int8)
        m[: min(3, self.pile)] = 1
        return m

    def _apply(self, a):
        if self.current_player() == CHANCE:
            if self.pile < 0:
                self.pile = a
            else:
                self.cards.append(a)
            return
        self.pile -= a + 1
        self.last = self.turn
        self.turn = (self.turn + 1) % self.num_players

    def observation(self, seat):
        o = np.zeros(self.game.observation_size, np.float32)
        o[max(self.pile, 0)] = 1
        o[MAX_PILE + 1 + (self.num_players - 2)] = 1
        o[MAX_PILE + 4] = self.cards[seat] if seat < len(self.cards) else 0
        o[MAX_PILE + 5] = 1.0 if self.current_player() == seat else 0.0
        return o

    def resample_hidden(self, seat, rng):
        s = self.clone()
        s.cards = [c if i == seat else int(rng.integers(2)) for i, c in enumerate(s.cards)]
        return s

    def scores(self):
        return [1.0 if (self.pile == 0 and i == self.last) else 0.0 for i in range(self.num_players)]

    def winners(self):
        return [self.last] if self.pile == 0 else list(range(self.num_players))

    def to_dict(self):
        return {"n": self.num_players, "pile": self.pile, "turn": self.turn, "cards": self.cards, "last": self.last}

    def action_to_string(self, a):
        return f"take {a + 1}"

    def __str__(self):
        return f"Tiny Nim: pile {self.pile}, seat {self.turn} to move"


class ClaimGame(Game):
    env_id = "claim_v0"
    name = "Claim"
    version = 0
    min_players = 2
    max_players = 4
    default_players = 2
    num_actions = 2
    observation_size = 4

    def new_initial_state(self, num_players):
        self.check_players(num_players)
        return ClaimState(self, num_players)

    def state_from_dict(self, d):
        s = ClaimState(self, d["n"])
        s.turn, s.passes, s.winner = d["turn"], d["passes"], d["winner"]
        return s

    def heuristic_bot(self, seat, seed=None):
        return HeuristicBot(lambda st, p, rng: 0, seed)


class ClaimState(State):
    def __init__(self, game, n):
        self.game, self.num_players = game, n
        self.turn, self.passes, self.winner = 0, 0, -1

    def current_player(self):
        if self.winner >= 0 or self.passes >= 3 * self.num_players:
            return TERMINAL
        return self.turn

    def _legal_mask(self):
        return np.ones(2, np.int8)

    def _apply(self, a):
        if a == 0:
            self.winner = self.turn
        else:
            self.passes += 1
            self.turn = (self.turn + 1) % self.num_players

    def observation(self, seat):
        return np.array([self.passes / 12, float(self.turn == seat), self.num_players / 4, 1.0], np.float32)

    def scores(self):
        return [1.0 if i == self.winner else 0.0 for i in range(self.num_players)]

    def to_dict(self):
        return {"n": self.num_players, "turn": self.turn, "passes": self.passes, "winner": self.winner}

    def action_to_string(self, a):
        return "claim" if a == 0 else "pass"

    def __str__(self):
        return f"Claim: seat {self.turn} to move, {self.passes} passes"
