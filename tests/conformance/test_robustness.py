"""Robustness contracts (DESIGN.md), over every registered game, player count and option set:
untrusted saved states, aliasing of handed-out arrays, lifecycle misuse, integer-like actions,
penalised games and their records, rewards consistent with winners, the observation layout.

The state fuzz: from positions of random games, a fixed seeded set of damaged dicts (dropped
keys, retyped values, out-of-range numbers, shortened/lengthened lists, fields swapped in from
other positions, other option sets or other games, envelope changes, size bombs). Each must be
refused with a BoardZooError, or load, save back to exactly the same dict and play legally to
the end. ``BOARDZOO_SOAK`` scales the number of dicts (and the report counts them).
"""

from __future__ import annotations

import copy
import json
import os
from collections import Counter

import numpy as np
import pytest
from test_all_registered import CASES, _random_playout

from boardzoo.envs import BoardZooError, ConfigError, IllegalActionError, game_class, make, make_game, names
from boardzoo.envs.core.records import outcome, replay

SOAK = float(os.environ.get("BOARDZOO_SOAK", "1"))
FUZZ_PER_CASE = max(20, int(120 * SOAK))
FUZZ_COUNTS: Counter = Counter()


# ------------------------------------------------------------------------------ state fuzz
def _positions(game, n, rng, k):
    """``k`` saved positions from random games (JSON round-tripped), start and end included."""
    out = []
    while len(out) < k:
        st = game.new_initial_state(n)
        out.append(json.loads(st.to_json()))
        _random_playout(
            st, rng, on_state=lambda s: out.append(json.loads(s.to_json())) if rng.random() < 0.04 else None
        )
        out.append(json.loads(st.to_json()))
    return out


def _paths(d, prefix=()):
    """Every path into a JSON value (dict keys and list indices), with the value there."""
    yield prefix, d
    if isinstance(d, dict):
        for k, v in d.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(d, list):
        for i, v in enumerate(d[:40]):
            yield from _paths(v, prefix + (i,))


def _get(d, path):
    for p in path:
        d = d[p]
    return d


def _set(d, path, value):
    _get(d, path[:-1])[path[-1]] = value


_RETYPES = ["x", None, 1.5, True, [], {}, -1, [0], {"a": 1}]


def _mutations(d, others, foreign, rng):
    """One damaged copy of ``d`` (and the name of the damage)."""
    d = copy.deepcopy(d)
    paths = [p for p, _ in _paths(d) if p]
    kind = rng.choice(["drop", "retype", "int", "int", "int", "list", "swap", "swap", "envelope", "bomb", "foreign"])
    path = paths[int(rng.integers(len(paths)))]
    _get(d, path)  # the path exists
    if kind == "drop":
        parent = _get(d, path[:-1])
        del parent[path[-1]]
    elif kind == "retype":
        _set(d, path, copy.deepcopy(_RETYPES[int(rng.integers(len(_RETYPES)))]))
    elif kind == "int":
        ints = [p for p in paths if _get(d, p).__class__ is int]
        if not ints:
            return d, "none"
        path = ints[int(rng.integers(len(ints)))]
        v = _get(d, path)
        _set(d, path, int(rng.choice([v + 1, v - 1, v + 2, -v - 1, v + 7, 10**9, -(10**9), 0, 1])))
    elif kind == "list":
        lists = [p for p in paths if isinstance(_get(d, p), list)]
        if not lists:
            return d, "none"
        path = lists[int(rng.integers(len(lists)))]
        lst = _get(d, path)
        if lst and rng.random() < 0.5:
            lst.pop(int(rng.integers(len(lst))))
        elif lst:
            lst.insert(int(rng.integers(len(lst) + 1)), copy.deepcopy(lst[int(rng.integers(len(lst)))]))
        else:
            lst.append(0)
    elif kind == "swap":  # the same field from another position of the same game
        other = others[int(rng.integers(len(others)))]
        try:
            _set(d, path, copy.deepcopy(_get(other, path)))
        except (KeyError, IndexError, TypeError):
            return d, "none"
    elif kind == "envelope":
        key = rng.choice(["env_id", "version", "options", "num_players"])
        d[key] = {
            "env_id": "hidden_castle_v1",
            "version": "0",
            "options": {},
            "num_players": int(rng.choice([0, 100000, d["num_players"] + 1, -1])),
        }[key]
    elif kind == "bomb":
        lists = [p for p in paths if isinstance(_get(d, p), list)]
        if lists:
            _set(d, lists[int(rng.integers(len(lists)))], [0] * 1_000_000)
        else:
            d["num_players"] = 10**6
    else:  # a whole position of another game or option set, or this one's body under another envelope
        f = copy.deepcopy(foreign[int(rng.integers(len(foreign)))])
        if rng.random() < 0.5:
            for k in ("env_id", "version", "options", "num_players"):
                f[k] = d[k]
        d = f
    return d, kind


def _foreign_positions(env_id, opts, n, rng):
    out = []
    for other in names():
        g = game_class(other)
        for o in g.conformance_options[:3]:
            if other == env_id and o == opts:
                continue
            m = min(max(n, g.min_players), g.max_players)
            out.extend(_positions(g(**o), m, rng, 2)[:3])
    return out


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_state_fuzz(env_id, opts, n):
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(1234)
    base = _positions(game, n, rng, 12)
    foreign = _foreign_positions(env_id, opts, n, rng)
    counts = Counter()
    for i in range(FUZZ_PER_CASE):
        d, kind = _mutations(base[i % len(base)], base, foreign, rng)
        if kind == "none":
            continue
        try:
            st = game.state_from_dict(d)
        except BoardZooError:
            counts["refused"] += 1
            continue
        except Exception as e:  # anything else is a bug: name it
            pytest.fail(f"{kind} damage gave {type(e).__name__}: {e}")
        assert st.to_dict() == d, f"{kind}: a state that loads must save back to the same dict"
        try:
            _random_playout(st, np.random.default_rng(i), on_state=lambda s: s.check_invariants(), max_steps=20_000)
            st.returns()
        except Exception as e:
            pytest.fail(
                f"{kind} damage loaded but did not play legally to the end: {type(e).__name__}: {e}\n"
                f"dict: {json.dumps(d)[:2000]}"
            )
        counts["loaded and played"] += 1
    FUZZ_COUNTS.update(counts)
    FUZZ_COUNTS["tried"] += sum(counts.values())
    assert counts["refused"] > 0


def test_state_loading_names_the_envelope():
    for env_id in names():
        game = make_game(env_id)
        d = json.loads(game.new_initial_state(game.default_players).to_json())
        other = dict(d, env_id="other_v0")
        with pytest.raises(BoardZooError, match="env_id"):
            game.state_from_dict(other)
        with pytest.raises(BoardZooError, match="version"):
            game.state_from_dict(dict(d, version="0"))
        with pytest.raises(BoardZooError, match="num_players"):
            game.state_from_dict(dict(d, num_players=100000))
        for bad in (None, [], "x", 3):
            with pytest.raises(BoardZooError):
                game.state_from_dict(bad)
        spec = game_class(env_id).options_spec
        for key, opt in spec.items():
            alt = [c for c in (opt.choices or ()) if c != opt.default] or (
                [not opt.default] if isinstance(opt.default, bool) else []
            )
            if not alt:
                continue
            try:
                g2 = make_game(env_id, **{key: alt[0]})
            except ConfigError:
                continue
            for n in range(g2.min_players, g2.max_players + 1):
                try:
                    d2 = json.loads(g2.new_initial_state(n).to_json())
                except ConfigError:  # an option that needs another player count (e.g. solo)
                    continue
                with pytest.raises(BoardZooError, match="options"):
                    game.state_from_dict(d2)
                break


# ------------------------------------------------------------------------------ env edges
def _play_env(env, rng, limit=10**6):
    for _i, _agent in enumerate(env.agent_iter(limit)):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("env_id", names())
def test_handed_out_arrays_are_copies(env_id):
    env = make(env_id)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _step in range(200):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        mask = obs["action_mask"]
        legal = np.flatnonzero(mask)
        illegal = np.flatnonzero(mask == 0)
        if len(illegal):
            before = env.unwrapped.state.to_dict()
            mask[:] = 1  # writing into the handed-out mask must not make an illegal action legal
            obs["observation"][:] = 7.0
            with pytest.raises(IllegalActionError):
                env.step(int(illegal[0]))
            assert env.unwrapped.state.to_dict() == before
            again = env.observe(agent)
            assert not np.array_equal(again["observation"], obs["observation"])
            np.testing.assert_array_equal(np.flatnonzero(again["action_mask"]), legal)
        # waiting agents' masks are independent arrays
        waiting = [a for a in env.agents if a != agent]
        if len(waiting) >= 2:
            m0 = env.observe(waiting[0])["action_mask"]
            m0[:] = 1
            assert not env.observe(waiting[1])["action_mask"].any()
        env.step(int(rng.choice(legal)))


@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_observations_are_fresh_arrays(env_id, opts, n):
    """The encoder contract the adapter relies on (it no longer copies): ``observation(seat)`` is a
    new float32 array of the declared size each call, and writing into it changes nothing."""
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(11)
    checked = 0

    def check(st):
        nonlocal checked
        if rng.random() > 0.1:
            return
        for seat in range(n):
            first = st.observation(seat)
            assert first.dtype == np.float32 and first.shape == (game.observation_size,)
            kept = first.copy()
            first[:] = -7.0
            second = st.observation(seat)
            assert second is not first and not np.shares_memory(first, second)
            np.testing.assert_array_equal(second, kept, err_msg=f"{env_id} seat {seat}: a write leaked into the state")
        checked += 1

    for _ in range(3):
        _random_playout(game.new_initial_state(n), rng, on_state=check)
    assert checked


@pytest.mark.parametrize("env_id", names())
def test_integer_like_actions(env_id):
    env = make(env_id)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    kinds = [
        lambda a: np.array(a),
        lambda a: np.int64(a),
        lambda a: np.int32(a),
        lambda a: np.uint8(a) if a < 256 else np.uint16(a),
        int,
    ]
    for i, agent in enumerate(env.agent_iter(400)):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        act = kinds[i % len(kinds)](a)
        assert env.action_space(agent).contains(act)
        env.step(act)
    env.reset(seed=5)
    for bad in (True, 1.0, "1", np.array([1]), np.float32(1)):
        with pytest.raises(IllegalActionError):
            env.step(bad)
    rec = env.unwrapped.save_record()
    assert all(a.__class__ is int or not isinstance(a, (np.integer, np.ndarray)) for a in rec["actions"])


@pytest.mark.parametrize("env_id", names())
def test_lifecycle_errors(env_id):
    env = make(env_id)
    with pytest.raises(BoardZooError, match="reset"):
        env.step(0)
    with pytest.raises(BoardZooError, match="reset"):
        env.observe("player_0")
    env.reset(seed=11)
    _play_env(env, np.random.default_rng(1))
    assert not env.agents
    with pytest.raises(BoardZooError, match="over"):
        env.step(0)
    first = env.unwrapped.save_record()
    assert first["seed"] == 11
    env.reset()  # no seed: a fresh one is drawn and recorded
    _play_env(env, np.random.default_rng(1))
    second = env.unwrapped.save_record()
    assert second["seed"] != 11 and isinstance(second["seed"], int)
    for rec in (first, second):
        *_, last = replay(json.loads(json.dumps(rec)))
        assert last.is_terminal()
    with pytest.raises(ConfigError, match="per-episode"):
        env.reset(options={"num_players": 3})
    # per-episode option: start from a saved state
    game = env.unwrapped.game
    st = game.new_initial_state(env.num_players)
    rng = np.random.default_rng(2)
    for _ in range(30):
        if st.is_terminal():
            break
        st.apply_action(
            st.sample_chance(rng) if st.is_chance_node() else int(rng.choice(np.flatnonzero(st.legal_mask())))
        )
    if not st.is_terminal():
        saved = json.loads(st.to_json())
        env.reset(seed=4, options={"state": saved})
        if env.agents and not st.is_chance_node():
            assert env.agent_selection == f"player_{st.current_player()}"
        _play_env(env, np.random.default_rng(3))
        rec = env.unwrapped.save_record()
        assert rec["start"] == saved
        *_, last = replay(json.loads(json.dumps(rec)))
        assert last.is_terminal()
    with pytest.raises(BoardZooError):
        env.reset(options={"state": {"env_id": env_id}})


@pytest.mark.parametrize("env_id", names())
def test_penalised_game_record_replays_to_its_outcome(env_id):
    env = make(env_id, illegal="penalize")
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    rewards = {a: 0.0 for a in env.possible_agents}
    for i, agent in enumerate(env.agent_iter()):
        obs, r, term, trunc, _ = env.last()
        rewards[agent] += r
        if term or trunc:
            env.step(None)
            continue
        illegal = np.flatnonzero(obs["action_mask"] == 0)
        if i >= 6 and len(illegal):
            env.step(int(illegal[0]))
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    rec = json.loads(json.dumps(env.unwrapped.save_record()))
    assert "penalty" in rec
    assert outcome(rec) == [rewards[a] for a in env.possible_agents]
    assert min(rewards.values()) == -1.0


@pytest.mark.parametrize("env_id", [e for e in names() if game_class(e).simultaneous])
def test_parallel_refuses_steps_after_a_penalty(env_id):
    env = make(env_id, parallel=True, illegal="penalize")
    obs, _ = env.reset(seed=1)
    acts = {}
    for a, o in obs.items():
        bad = np.flatnonzero(o["action_mask"] == 0)
        acts[a] = int(bad[0]) if len(bad) else 10**6
    _, rew, term, _, _ = env.step(acts)
    assert all(term.values()) and not env.agents and min(rew.values()) == -1.0
    before = env.unwrapped.state.to_dict() if hasattr(env, "unwrapped") else env.state.to_dict()
    with pytest.raises(BoardZooError, match="over"):
        env.step({a: 0 for a in env.possible_agents})
    after = env.unwrapped.state.to_dict() if hasattr(env, "unwrapped") else env.state.to_dict()
    assert before == after
    rec = env.save_record()
    assert rec["penalty"]["seat"] in range(env.num_players)


def test_replay_refuses_malformed_records():
    env_id = names()[0]
    env = make(env_id)
    env.reset(seed=1)
    _play_env(env, np.random.default_rng(1))
    good = json.loads(json.dumps(env.unwrapped.save_record()))
    cases = {
        "env_id": {k: v for k, v in good.items() if k != "env_id"},
        "options": dict(good, options=None),
        "version": dict(good, version="0"),
        "num_players": dict(good, num_players="2"),
        "actions": dict(good, actions=None),
    }
    for field, rec in cases.items():
        with pytest.raises(BoardZooError, match=field):
            list(replay(rec))
    with pytest.raises(BoardZooError, match="version"):
        list(replay(dict(good, version=good["version"] + 1)))
    with pytest.raises(BoardZooError):
        list(replay([]))
    with pytest.raises(BoardZooError, match="actions"):
        outcome(dict(good, actions=good["actions"][:3]))


# ------------------------------------------------------------------------------ rewards, layout
@pytest.mark.parametrize("env_id,opts,n", CASES)
def test_rewards_never_rank_a_non_winner_above_a_winner(env_id, opts, n):
    game = make_game(env_id, **opts)
    rng = np.random.default_rng(21)
    for _ in range(max(1, int(20 * SOAK))):
        st = _random_playout(game.new_initial_state(n), rng)
        w = set(st.winners())
        if n == 1 or len(w) == n:
            continue
        for r in (st.returns(), st.score_returns()):
            assert max(r[i] for i in range(n) if i not in w) <= min(r[i] for i in w), (st.scores(), w, r)


@pytest.mark.parametrize("env_id", names())
def test_observation_layout_covers_the_observation(env_id):
    g = game_class(env_id)
    for opts in g.conformance_options:
        game = g(**opts)
        layout = game.observation_layout()
        names_ = [b[0] for b in layout]
        assert len(set(names_)) == len(names_), "block names are unique"
        at = 0
        for name, off, length in layout:
            assert isinstance(name, str) and off == at and length > 0, (name, off, length)
            at += length
        assert at == game.observation_size
        if game.action_feature_offset is not None:
            assert (game.action_feature_offset, game.num_actions) in [(o, n) for _, o, n in layout]


@pytest.mark.parametrize("env_id", names())
def test_options_refuse_arrays_and_objects(env_id):
    g = game_class(env_id)
    for key, opt in g.options_spec.items():
        for bad in (np.array([opt.default]), [opt.default], {"v": opt.default}):
            with pytest.raises(ConfigError, match=key):
                g(**{key: bad})


def test_zz_fuzz_report(capsys):
    """Prints the fuzz figures of this run (when the fuzz ran in this process)."""
    if FUZZ_COUNTS:
        with capsys.disabled():
            print(f"\nstate fuzz: {dict(FUZZ_COUNTS)}")
