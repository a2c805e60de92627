"""One conformance suite over the registry: every game, every player count, every option set the
game lists in ``Game.conformance_options``.

Checks: PettingZoo api_test (and parallel_api_test where offered), whole-trajectory determinism
for equal seeds, clone and JSON round-trips mid-game, random games with the game's invariants,
illegal actions (clear error, env still usable), the hidden-information leak test, records that
replay exactly, renders, bots never choosing a masked action, and bad options failing at creation.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

from boardzoo.envs import ConfigError, IllegalActionError, game_class, make, make_game, names
from boardzoo.envs.core.bots import RandomBot, choose
from boardzoo.envs.core.game import CHANCE, TERMINAL
from boardzoo.envs.core.records import replay

SOAK = float(os.environ.get("BOARDZOO_SOAK", "1"))


def _cases():
    for env_id in names():
        try:
            g = game_class(env_id)
        except Exception:  # reported by test_game_imports, without breaking the other games
            continue
        for k, opts in enumerate(g.conformance_options):
            for n in range(g.min_players, g.max_players + 1):
                yield pytest.param(env_id, opts, n, id=f"{env_id}-o{k}-{n}p")


CASES = list(_cases())


def _random_playout(state, rng, on_state=None, max_steps=100_000):
    steps = 0
    while not state.is_terminal():
        if on_state is not None:
            on_state(state)
        if state.is_chance_node():
            state.apply_action(state.sample_chance(rng))
        else:
            legal = np.flatnonzero(state.legal_mask())
            assert len(legal) > 0, f"no legal action for seat {state.current_player()} in {state.phase()}"
            state.apply_action(int(rng.choice(legal)))
        steps += 1
        assert steps < max_steps, "game did not end"
    return state


@pytest.mark.parametrize("env_id", names())
def test_game_imports(env_id):
    g = game_class(env_id)
    assert g.env_id == env_id and g.conformance_options


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_api(env_id, opts, n):
    env = make(env_id, num_players=n, **opts)
    api_test(env, num_cycles=300)
    if game_class(env_id).simultaneous:
        parallel_api_test(make(env_id, parallel=True, num_players=n, **opts), num_cycles=300)


def _trajectory(env_id, opts, n, seed):
    env = make(env_id, num_players=n, **opts)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1)
    out = []
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), rew, action))
        env.step(action)
    return out, env.save_record()


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_determinism_and_replay(env_id, opts, n):
    a, rec = _trajectory(env_id, opts, n, 11)
    b, _ = _trajectory(env_id, opts, n, 11)
    assert a == b
    # a record replays to the same final state, through JSON
    rec = json.loads(json.dumps(rec))
    *_, last = replay(rec)
    assert last.is_terminal()


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_clone_and_json_roundtrip(env_id, opts, n):
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(3)
    for g in range(3):
        st = game.new_initial_state(n)
        checkpoints = []
        _random_playout(
            st,
            rng,
            on_state=lambda s, checkpoints=checkpoints: checkpoints.append(s.clone()) if rng.random() < 0.05 else None,
        )
        for cp in checkpoints[:6]:
            d = json.loads(json.dumps(cp.to_dict()))
            back = game.state_from_dict(d)
            assert back.to_dict() == cp.to_dict()
            c2 = cp.clone()
            for s in (back, c2):
                assert s.current_player() == cp.current_player()
                for p in range(n):
                    np.testing.assert_array_equal(s.observation(p), cp.observation(p))
                np.testing.assert_array_equal(s.legal_mask(), cp.legal_mask())
            # the clone is independent: playing it on leaves the original as it was
            before = cp.to_dict()
            _random_playout(c2, np.random.default_rng(g))
            assert cp.to_dict() == before
            # original and restored copy continue identically
            r1, r2 = np.random.default_rng(g + 10), np.random.default_rng(g + 10)
            _random_playout(cp, r1)
            _random_playout(back, r2)
            assert cp.to_dict() == back.to_dict()
            assert cp.returns() == back.returns()


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_random_playout_is_the_checked_loop(env_id, opts, n):
    """``State.random_playout`` (every search bot's playout, which skips ``apply_action``'s check)
    ends in exactly the state the checked loop ``apply_action(legal[pick(k)])`` reaches with the
    same draws, stops after ``max_decisions`` decisions, and leaves a state that plays on."""
    game = make_game(env_id, **opts)
    for g in range(2):
        fast, slow = game.new_initial_state(n), game.new_initial_state(n)
        py_f, py_s = np.random.default_rng(g), np.random.default_rng(g)
        rng_f, rng_s = np.random.default_rng(g + 50), np.random.default_rng(g + 50)
        made = fast.random_playout(py_f.integers, rng_f, 100_000)
        steps = 0
        while not slow.is_terminal():
            if slow.is_chance_node():
                slow.apply_action(slow.sample_chance(rng_s))
                continue
            legal = np.flatnonzero(slow.legal_mask())
            slow.apply_action(int(legal[int(py_s.integers(len(legal)))]))
            steps += 1
        assert fast.is_terminal() and made == steps
        assert fast.to_dict() == slow.to_dict() and fast.returns() == slow.returns()
    # a capped playout stops at a decision and the state goes on through the checked API
    st = game.new_initial_state(n)
    rng = np.random.default_rng(7)
    assert st.random_playout(lambda k: 0, rng, 3) == 3
    st.check_invariants()
    if not st.is_terminal():
        _random_playout(st, rng)
        assert st.is_terminal()


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_random_games_invariants(env_id, opts, n):
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(5)
    games = max(1, int(60 * SOAK))
    for _ in range(games):
        st = _random_playout(game.new_initial_state(n), rng, on_state=lambda s: s.check_invariants())
        st.check_invariants()
        r = st.returns()
        assert len(r) == n
        w = st.winners()
        # a solo game may be lost (no winner); with 2+ seats someone always wins
        assert (w or n == 1) and all(0 <= s < n for s in w)
        if n > 1:
            assert max(r) <= 1 and min(r) >= -1


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_illegal_action_keeps_env_usable(env_id, opts, n):
    env = make(env_id, num_players=n, **opts)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    tried = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        if len(illegal) and tried < 5 and rng.random() < 0.3:
            before = env.unwrapped.state.to_dict()
            bad = int(rng.choice(illegal))
            with pytest.raises(IllegalActionError) as e:
                env.step(bad)
            assert str(bad) in str(e.value) and "legal actions" in str(e.value)
            assert env.unwrapped.state.to_dict() == before
            assert env.agent_selection == agent
            tried += 1
        for bad in (-1, game_class(env_id)(**opts).num_actions, None):
            if rng.random() < 0.02:
                with pytest.raises(IllegalActionError):
                    env.step(bad)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert not env.agents


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_hidden_information_does_not_leak(env_id, opts, n):
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(9)
    checked = 0

    def look(s):
        nonlocal checked
        if rng.random() < 0.15:
            for p in range(n):
                other = s.resample_hidden(p, np.random.default_rng(int(rng.integers(1 << 30))))
                np.testing.assert_array_equal(
                    other.observation(p), s.observation(p), err_msg=f"seat {p} sees hidden information in {s.phase()}"
                )
                assert other.current_player() == s.current_player()
                if s.current_player() == p:
                    np.testing.assert_array_equal(other.legal_mask(), s.legal_mask())
                checked += 1

    for _ in range(max(2, int(4 * SOAK))):
        _random_playout(game.new_initial_state(n), rng, on_state=look)
    assert checked > 0


@pytest.mark.parametrize("env_id", names())
def test_bots_choose_legal_actions(env_id):
    g = game_class(env_id)
    game = g()
    rng = np.random.default_rng(4)
    for n in (g.min_players, g.default_players, g.max_players):
        for _ in range(max(1, int(4 * SOAK))):
            st = game.new_initial_state(n)
            bots = [game.heuristic_bot(s, seed=s) if s % 2 == 0 else RandomBot(s) for s in range(n)]
            while not st.is_terminal():
                if st.is_chance_node():
                    st.apply_action(st.sample_chance(rng))
                    continue
                p = st.current_player()
                a = choose(bots[p], st, p, rng)
                assert st.legal_mask()[a], f"{type(bots[p]).__name__} chose masked action {a}"
                st.apply_action(a)


@pytest.mark.parametrize("env_id", names())
def test_renders(env_id):
    for mode in ("ansi", "rgb_array"):
        env = make(env_id, render_mode=mode)
        env.reset(seed=1)
        rng = np.random.default_rng(1)
        for i, _agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if i % 17 == 0 or term:
                out = env.render()
                if mode == "ansi":
                    assert isinstance(out, str) and len(out) > 20
                else:
                    assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
                    assert out.shape[0] >= 200 and out.shape[1] >= 200
                    assert out.std() > 10  # a picture, not a blank
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("env_id", names())
def test_bad_options_fail_clearly(env_id):
    g = game_class(env_id)
    with pytest.raises(ConfigError, match="no_such_option"):
        make(env_id, no_such_option=1)
    with pytest.raises(ConfigError, match="num_players"):
        make(env_id, num_players=g.max_players + 1)
    with pytest.raises(ConfigError, match="reward"):
        make(env_id, reward="money")
    for key, _opt in g.options_spec.items():
        bad = object()
        with pytest.raises(ConfigError, match=key):
            g(**{key: bad})


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_observations_lie_within_declared_bounds(env_id, opts, n):
    """DESIGN.md contract: every entry of every seat's observation lies in the range its layout block
    declares (``Game.observation_bounds()``, the env's observation Box)."""
    game = make_game(env_id, **opts)
    low, high = game.observation_bounds()
    assert low.shape == high.shape == (game.observation_size,) and (low <= high).all()
    blocks = game.observation_layout()

    def check(st):
        for seat in range(n):
            o = st.observation(seat)
            bad = np.flatnonzero((o < low) | (o > high))
            if len(bad):
                i = int(bad[0])
                name, off = next((b, off) for b, off, k in blocks if off <= i < off + k)
                raise AssertionError(
                    f"{env_id} {opts} n={n}: observation[{i}] (block {name!r}, entry {i - off}) = {o[i]} "
                    f"outside its declared range [{low[i]}, {high[i]}]"
                )

    rng = np.random.default_rng(11)
    for _ in range(max(1, int(3 * SOAK))):
        check(_random_playout(game.new_initial_state(n), rng, on_state=check))


@pytest.mark.parametrize("env_id", names())
def test_spaces_and_masks(env_id):
    g = game_class(env_id)
    for opts in g.conformance_options:
        game = g(**opts)
        st = game.new_initial_state(g.default_players)
        rng = np.random.default_rng(0)
        while not st.is_terminal():
            if st.current_player() == CHANCE:
                st.apply_action(st.sample_chance(rng))
                continue
            m = st.legal_mask()
            assert m.dtype == np.int8 and m.shape == (game.num_actions,)
            o = st.observation(st.current_player())
            assert o.dtype == np.float32 and o.shape == (game.observation_size,)
            assert np.isfinite(o).all()
            for a in np.flatnonzero(m)[:3]:
                assert isinstance(st.action_to_string(int(a)), str)
            st.apply_action(int(rng.choice(np.flatnonzero(m))))
        assert st.current_player() == TERMINAL
