"""A search bot for every game: on-line policy improvement by Monte-Carlo rollouts of the game's
heuristic (Tesauro & Galperin 1997, "On-line policy improvement using Monte-Carlo search").

At each decision the bot takes a few candidate actions -- what the heuristic would play, plus the
best others by the game's one-ply action features where the game offers them (``action_features``
option), else others drawn at random -- and scores each by ``playouts`` games played to the end by
the heuristic in every seat, each from a fresh determinization of what the deciding seat cannot
know (``State.resample_hidden``; chance outcomes sampled). Playout ``j`` of every candidate uses the
same random stream (common random numbers), so candidates are compared on the same draws. It
plays the candidate whose playouts gave its seat the best mean ``score_returns()``, the
heuristic's own choice on ties.

With ``ties=True`` (bot spec ``rollout:N:ties``) the candidates are only the actions whose action
feature is the highest (the heuristic's choice among them when it is, else one of them at random):
the playouts break the ties the features leave open (a heuristic that draws among equally valued
actions at random gains most), and the bot never plays an action the features value lower. Where
the features are the heuristic's own one-ply values that is the heuristic's choice and its equals;
where they look further (Metromania's two-ply values) the bot follows them. A noisy handful of
playouts then cannot pull it away from the features' judgement, which makes it a cleaner imitation
teacher. It needs a game with action features (``action_feature_offset``). The result is usually
stronger than the heuristic it rolls out and much cheaper than a tree search; training
uses it as an imitation teacher (``bc.teacher_bot: rollout:N`` in a training config).

The bot implements the Bot protocol with ``needs_state = True``: call it through
``boardzoo.envs.core.bots.choose`` (which already hides the other seats' secrets) or
``act_state(state, seat)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .game import CHANCE, State


class RolloutBot:
    """Monte-Carlo rollout improvement of the game's heuristic bot.

    Args:
        game: the Game whose ``heuristic_bot`` plays the playouts.
        playouts: playouts per candidate action.
        candidates: candidate actions per decision (the heuristic's choice and the best others by
            the game's action features, or random others).
        max_steps: a playout longer than this many decisions is scored where it stopped.
        ties: candidates only among the actions the game's action features rank first, all equal
            (see the module docstring).
        seed: seed of the bot's own random generator (determinizations, candidates, chance).
        name: label used by tournaments.
    """

    needs_state = True

    def __init__(
        self,
        game: Any,
        playouts: int = 2,
        candidates: int = 4,
        max_steps: int = 5000,
        seed: int | None = None,
        name: str = "rollout",
        ties: bool = False,
    ):
        if playouts < 1 or candidates < 1:
            raise ValueError("RolloutBot: playouts and candidates must be >= 1")
        if ties and getattr(game, "action_feature_offset", None) is None:
            raise ValueError(
                f"RolloutBot(ties=True): {game.env_id} has no one-ply action features with these options "
                "(ties are read from them; create the game with its action_features option)"
            )
        self.ties = bool(ties)
        self.game = game
        self.playouts = int(playouts)
        self.candidates = int(candidates)
        self.max_steps = int(max_steps)
        self.rng = np.random.default_rng(seed)
        self.name = name
        self._heuristics: list[Any] = []

    def reset(self) -> None:
        pass

    def act(self, observation: dict) -> int:
        raise TypeError(
            "RolloutBot needs the rules state: call act_state(state, seat) or use "
            "boardzoo.envs.core.bots.choose / act_in_env"
        )

    def _heuristic(self, seat: int) -> Any:
        while len(self._heuristics) <= seat:
            self._heuristics.append(self.game.heuristic_bot(len(self._heuristics), int(self.rng.integers(1 << 31))))
        return self._heuristics[seat]

    def act_state(self, state: State, seat: int) -> int:
        legal = np.flatnonzero(state.legal_mask())
        if len(legal) == 1:
            return int(legal[0])
        first = int(self._heuristic(seat).act_state(state, seat))
        cands = [first]
        others = legal[legal != first]
        if self.ties and len(others):  # only the actions the action features rank first, all equal
            feats = np.asarray(state.observation(seat), np.float64)[self.game.action_feature_offset + legal]
            top = legal[feats == feats.max()]
            if first not in top:  # the features see further than the heuristic: their best is the default
                first = int(top[self.rng.integers(len(top))])
                cands = [first]
            others = top[top != first]
            if len(others) > self.candidates - 1:
                others = self.rng.choice(others, size=self.candidates - 1, replace=False)
            cands += [int(a) for a in others]
        elif self.candidates > 1 and len(others):
            k = min(self.candidates - 1, len(others))
            off = getattr(self.game, "action_feature_offset", None)
            if off is not None:  # the best others by the game's one-ply features (random tie-break)
                feats = np.asarray(state.observation(seat), np.float64)[off + others]
                order = np.lexsort((self.rng.random(len(others)), -feats))[:k]
            else:
                order = self.rng.choice(len(others), size=k, replace=False)
            cands += [int(others[i]) for i in order]
        if len(cands) == 1:
            return first
        streams = self.rng.integers(1 << 62, size=self.playouts)  # common random numbers
        best, best_value = first, -np.inf
        for a in cands:
            total = 0.0
            for j in range(self.playouts):
                rng = np.random.default_rng(int(streams[j]))
                s = state.resample_hidden(seat, rng)
                s.apply_action(a)
                total += self._playout(s, rng)[seat]
            if total > best_value + 1e-12:
                best, best_value = a, total
        return best

    def _playout(self, s: State, rng: np.random.Generator) -> list[float]:
        steps = 0
        while not s.is_terminal() and steps < self.max_steps:
            p = s.current_player()
            if p == CHANCE:
                s.apply_action(s.sample_chance(rng))
                continue
            s.apply_action(int(self._heuristic(p).act_state(s, p)))
            steps += 1
        return s.score_returns()
