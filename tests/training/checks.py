"""Shared checks for the search-type bots' tests (test_search.py, test_rollout.py), and the loader of
the benchmark scripts their tests import (test_bench_train.py, test_strength_table.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from boardzoo.envs.core.bots import choose
from boardzoo.envs.core.game import CHANCE


def assert_bot_decisions_legal(game, bots: list, rng: np.random.Generator, decisions: int, every: int, label: str):
    """Play one game of ``game`` for ``decisions`` decisions: every ``every``-th decision by the next
    of ``bots`` (through ``choose``), asserting it is legal; the rest random, to reach later phases
    quickly."""
    st = game.new_initial_state(type(game).default_players)
    done = 0
    while not st.is_terminal() and done < decisions:
        p = st.current_player()
        if p == CHANCE:
            st.apply_action(st.sample_chance(rng))
            continue
        mask = st.legal_mask()
        if done % every == 0:
            a = choose(bots[(done // every) % len(bots)], st, p, rng)
            assert mask[a], f"{game.env_id}: the {label} bot chose masked action {a}"
        else:
            a = int(rng.choice(np.flatnonzero(mask)))
        st.apply_action(a)
        done += 1


def load_benchmark(name: str):
    """The module ``benchmarks/<name>.py`` of this checkout (benchmarks are scripts, not a package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod
