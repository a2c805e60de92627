"""The seat-view contract, over the registry: what a person at a seat is shown never tells them
what that seat may not know.

``str(state)`` and the rgb image are public: the same for every seat. ``game.seat_view(state, s)``
adds seat ``s``'s private part (its hand, its secret bids and bets). All three must be unchanged when
``state.resample_hidden(s, rng)`` re-deals what ``s`` cannot see (the observation leak test of
test_all_registered.py, applied to the renders). The browser front end (boardzoo.web) sends a
person only these.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import ConfigError, game_class, make_game, names

# Games whose public text still shows a hand (found by this test; their owners fix the render and
# add a seat_text). Listed, not skipped: the case runs and reports XPASS once it is fixed.
KNOWN_LEAKS: dict[str, str] = {}


def _cases():
    for env_id in names():
        try:
            g = game_class(env_id)
        except Exception:  # reported by test_all_registered.test_game_imports
            continue
        for n in sorted({g.min_players, g.default_players}):
            marks = [pytest.mark.xfail(reason=KNOWN_LEAKS[env_id], strict=False)] if env_id in KNOWN_LEAKS else []
            yield pytest.param(env_id, n, id=f"{env_id}-{n}p", marks=marks)


def _positions(game, n, rng, k):
    """About ``k`` states from random play (chance included), the end of the game among them."""
    st = game.new_initial_state(n)
    trail = []
    while not st.is_terminal():
        trail.append(st.clone())
        if st.is_chance_node():
            st.apply_action(st.sample_chance(rng))
        else:
            st.apply_action(int(rng.choice(np.flatnonzero(st.legal_mask()))))
    pick = rng.choice(len(trail), size=min(k, len(trail)), replace=False)
    return [trail[i] for i in sorted(pick)] + [st]


@pytest.mark.parametrize("env_id,n", list(_cases()))
def test_renders_and_seat_views_do_not_leak(env_id, n):
    game = make_game(env_id)
    rng = np.random.default_rng(11)
    render = game.renderer()
    images = 0
    for i, st in enumerate(_positions(game, n, rng, 12) + _positions(game, n, rng, 12)):
        public = str(st)
        for s in range(n):
            view = game.seat_view(st, s)
            assert view.startswith(public), "a seat view starts with the public text"
            other = st.resample_hidden(s, np.random.default_rng(int(rng.integers(1 << 30))))
            where = f"seat {s}, phase {st.phase()}"
            assert str(other) == public, f"str(state) shows what seat {s} may not know ({where})"
            assert game.seat_view(other, s) == view, f"seat_view shows what seat {s} may not know ({where})"
            if render is not None and i % 4 == 0:
                np.testing.assert_array_equal(
                    render(other), render(st), err_msg=f"the rgb render shows what seat {s} may not know ({where})"
                )
                images += 1
    assert render is None or images > 0


@pytest.mark.parametrize("env_id", names())
def test_seat_view_refuses_a_seat_outside_the_game(env_id):
    game = make_game(env_id)
    st = game.new_initial_state(game_class(env_id).default_players)
    for bad in (-1, st.num_players):
        with pytest.raises(ConfigError):
            game.seat_view(st, bad)
