"""A tiny game with chance, hidden cards and simultaneous secret bids, for testing the core.

Each seat is dealt one private card (0..5, card by card from a shared deck). Then every seat
secretly bids 0..3 at once; the highest card + bid scores (card + 1) points, ties share. Two rounds.
"""

from __future__ import annotations

import numpy as np

from boardzoo.envs.core.game import CHANCE, TERMINAL, Game, Option, State

DECK = 6
BIDS = 4


class ToyGame(Game):
    env_id = "toy_v0"
    name = "Toy"
    version = 0
    min_players = 1
    max_players = 3
    default_players = 2
    options_spec = {"rounds": Option(2, "rounds to play", type=int)}
    simultaneous = True
    score_scale = 0.1
    num_actions = BIDS

    def __init__(self, **options):
        super().__init__(**options)
        self.observation_size = 2 + DECK + 3 * 2

    def check_options(self):
        from boardzoo.envs.core.game import ConfigError

        if self.options["rounds"] < 1:
            raise ConfigError("option rounds must be >= 1")

    def new_initial_state(self, num_players):
        self.check_players(num_players)
        return ToyState(self, num_players)

    def state_schema(self, n):
        from boardzoo.envs.core.schema import Dict, Int, List

        rounds = self.options["rounds"]
        return Dict(
            {
                "round": Int(0, rounds),
                "cards": List(Int(0, DECK - 1), max_len=n, unique=True),
                "bids": List(Int(0, BIDS - 1), max_len=n),
                "points": List(Int(0, (DECK + 1) * rounds), length=n),
            }
        )

    def _state_from_dict(self, d):
        s = ToyState(self, d["num_players"])
        s.round, s.cards, s.bids, s.points = d["round"], list(d["cards"]), list(d["bids"]), list(d["points"])
        return s

    def heuristic_bot(self, seat, seed=None):
        from boardzoo.envs.core.bots import HeuristicBot

        return HeuristicBot(lambda st, p, rng: int(np.flatnonzero(st.legal_mask())[-1]), seed)


class ToyState(State):
    def __init__(self, game, n):
        self.game, self.num_players = game, n
        self.round = 0
        self.cards: list[int] = []
        self.bids: list[int] = []
        self.points = [0] * n

    def current_player(self):
        if self.round >= self.game.options["rounds"]:
            return TERMINAL
        if len(self.cards) < self.num_players:
            return CHANCE
        return len(self.bids)

    def deciders(self):
        p = self.current_player()
        return list(range(p, self.num_players)) if p >= 0 else []

    def chance_outcomes(self):
        left = [c for c in range(DECK) if c not in self.cards]
        return [(c, 1 / len(left)) for c in left]

    def _legal_mask(self):
        return np.ones(BIDS, dtype=np.int8)

    def _apply(self, a):
        if self.current_player() == CHANCE:
            self.cards.append(a)
            return
        self.bids.append(a)
        if len(self.bids) == self.num_players:
            tot = [c + b for c, b in zip(self.cards, self.bids)]
            best = max(tot)
            for i, t in enumerate(tot):
                if t == best:
                    self.points[i] += self.cards[i] + 1
            self.cards, self.bids = [], []
            self.round += 1

    def observation(self, seat):
        o = np.zeros(self.game.observation_size, np.float32)
        o[0] = self.round
        o[1] = seat in range(len(self.bids))  # has committed (own flag only)
        if seat < len(self.cards):
            o[2 + self.cards[seat]] = 1
        for k in range(self.num_players):
            p = (seat + k) % self.num_players
            o[8 + 2 * k] = self.points[p]
            o[9 + 2 * k] = p < len(self.bids)
        return o

    def resample_hidden(self, seat, rng):
        s = self.clone()
        if seat < len(s.cards):
            free = [c for c in range(DECK) if c != s.cards[seat]]
            others = [i for i in range(len(s.cards)) if i != seat]
            pick = rng.permutation(free)[: len(others)]
            for i, c in zip(others, pick):
                s.cards[i] = int(c)
        else:
            free = list(range(DECK))
            s.cards = [int(c) for c in rng.permutation(free)[: len(s.cards)]]
        s.bids = [int(b) if i == seat else int(rng.integers(BIDS)) for i, b in enumerate(s.bids)]
        return s

    def scores(self):
        return list(self.points)

    def _to_dict(self):
        return {"round": self.round, "cards": list(self.cards), "bids": list(self.bids), "points": list(self.points)}

    def check_invariants(self):
        assert len(self.bids) <= len(self.cards), "a bid before every card is dealt"
        assert len(self.bids) == 0 or len(self.cards) == self.num_players, "bids before the deal ended"
        assert self.round < self.game.options["rounds"] or not self.cards, "cards dealt after the end"

    def phase(self):
        return "bid"

    def action_to_string(self, a):
        return f"bid {a}"

    def __str__(self):
        return f"round {self.round} points {self.points}"
