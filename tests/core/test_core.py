"""The shared core on a tiny game: adapter (AEC + Parallel), errors, rewards, records, data files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

sys.path.insert(0, str(Path(__file__).parent))
from toy import ToyGame  # noqa: E402

from boardzoo.envs.core.adapter import BoardZooAEC, BoardZooParallel
from boardzoo.envs.core.bots import RandomBot
from boardzoo.envs.core.data import load_json, validate
from boardzoo.envs.core.game import ConfigError, IllegalActionError, StateError


@pytest.mark.parametrize("n", [1, 2, 3])
def test_pettingzoo_api(n):
    api_test(BoardZooAEC(ToyGame, num_players=n), num_cycles=200)
    parallel_api_test(BoardZooParallel(ToyGame, num_players=n), num_cycles=200)


def test_aec_plays_to_the_end_with_win_rewards():
    env = BoardZooAEC(ToyGame, num_players=3)
    env.reset(seed=1)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        total[agent] += rew
        env.step(None if term else 3)
    st = env.state
    w = st.winners()
    for i, a in enumerate(env.possible_agents):
        expect = (1.0 if len(w) == 1 else 0.0) if i in w else -1.0
        assert total[a] == expect


def test_score_reward_is_own_minus_mean_of_others():
    env = BoardZooAEC(ToyGame, num_players=3, reward="score")
    env.reset(seed=4)
    rewards = {}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        if term:
            rewards[agent] = rew
        env.step(None if term else 0)
    s = env.state.scores()
    for i, a in enumerate(env.possible_agents):
        others = [s[j] for j in range(3) if j != i]
        assert rewards[a] == pytest.approx((s[i] - sum(others) / 2) * 0.1)


def test_solo_reward_is_scaled_score():
    env = BoardZooAEC(ToyGame, num_players=1)
    env.reset(seed=0)
    for _agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        if term:
            assert rew == pytest.approx(env.state.scores()[0] * 0.1)
        env.step(None if term else 1)


def test_illegal_action_raises_and_keeps_state():
    env = BoardZooAEC(ToyGame, num_players=2)
    env.reset(seed=0)
    before = env.state.to_dict()
    for bad in (7, -1, None, 1.5, True):
        with pytest.raises(IllegalActionError, match="legal actions"):
            env.step(bad)
    assert env.state.to_dict() == before
    env.step(0)


def test_illegal_penalize_ends_game():
    env = BoardZooAEC(ToyGame, num_players=2, illegal="penalize")
    env.reset(seed=0)
    env.step(9)
    assert all(env.terminations.values())
    assert env._cumulative_rewards["player_0"] == -1 and env._cumulative_rewards["player_1"] == 0


def test_simultaneous_commits_hidden_in_aec_observations():
    env = BoardZooAEC(ToyGame, num_players=2)
    env.reset(seed=0)
    o1_before = env.observe("player_1")["observation"].copy()
    env.step(3)  # player_0 commits
    o1_after = env.observe("player_1")["observation"]
    diff = np.flatnonzero(o1_before != o1_after)
    # only the "has committed" flag of player_0 (relative index 1 for player_1 -> slot 11) changed
    assert diff.tolist() == [11]


def test_parallel_step_applies_all_deciders():
    env = BoardZooParallel(ToyGame, num_players=3)
    obs, _ = env.reset(seed=3)
    assert all(obs[a]["action_mask"].sum() == 4 for a in env.agents)
    obs, rew, term, trunc, info = env.step({a: 1 for a in env.agents})
    assert env.state.round == 1
    with pytest.raises(ValueError, match="missing"):
        env.step({"player_0": 1})
    with pytest.raises(IllegalActionError):
        env.step({"player_0": 1, "player_1": 9, "player_2": 0})
    assert env.state.round == 1 and env.state.bids == []


def test_determinism_and_record():
    def run(seed):
        env = BoardZooAEC(ToyGame, num_players=3)
        env.reset(seed=seed)
        bot = RandomBot(seed)
        for _agent in env.agent_iter():
            obs, rew, term, trunc, _ = env.last()
            env.step(None if term else bot.act(obs))
        return env.save_record(), env.state.to_dict()

    assert run(5) == run(5)
    rec, final = run(5)
    game = ToyGame(**rec["options"])
    st = game.new_initial_state(rec["num_players"])
    for a in json.loads(json.dumps(rec))["actions"]:
        st.apply_action(a)
    assert st.to_dict() == final


def test_options_validated():
    with pytest.raises(ConfigError, match="unknown option"):
        ToyGame(speed=3)
    with pytest.raises(ConfigError, match="rounds"):
        ToyGame(rounds="two")
    with pytest.raises(ConfigError, match="rounds"):
        ToyGame(rounds=0)
    with pytest.raises(ConfigError, match="num_players"):
        BoardZooAEC(ToyGame, num_players=4)
    with pytest.raises(ConfigError, match="render_mode"):
        BoardZooAEC(ToyGame, render_mode="3d")


def test_data_validation(tmp_path):
    schema = {"rows": [{"lanes": [int], "rumble?": bool}], "name": str}
    validate({"rows": [{"lanes": [0, 1]}], "name": "x"}, schema)
    with pytest.raises(ConfigError, match=r"rows\[0\]\.lanes\[1\]"):
        validate({"rows": [{"lanes": [0, "a"]}], "name": "x"}, schema)
    with pytest.raises(ConfigError, match="missing key"):
        validate({"rows": []}, schema)
    with pytest.raises(ConfigError, match="unknown key"):
        validate({"rows": [], "name": "x", "extra": 1}, schema)
    p = tmp_path / "bad.json"
    p.write_text("{nope")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_json(tmp_path, "bad.json")
    with pytest.raises(ConfigError, match="not found"):
        load_json(tmp_path, "missing.json")


def test_registry_errors():
    from boardzoo.envs import make

    with pytest.raises(ConfigError, match="unknown env id"):
        make("chess_v9")


def test_random_bot_uses_mask_only():
    bot = RandomBot(0)
    mask = np.zeros(10, np.int8)
    mask[[2, 7]] = 1
    picks = {bot.act({"observation": None, "action_mask": mask}) for _ in range(50)}
    assert picks == {2, 7}
    with pytest.raises(ValueError, match="no legal action"):
        bot.act({"action_mask": np.zeros(3, np.int8)})


def test_heuristic_bot_sees_only_a_resampled_state():
    from boardzoo.envs.core.bots import HeuristicBot, choose

    game = ToyGame()
    st = game.new_initial_state(2)
    rng = np.random.default_rng(0)
    while st.is_chance_node():
        st.apply_action(st.sample_chance(rng))
    seen = []
    bot = HeuristicBot(lambda s, p, r: seen.append(s) or 0)
    for i in range(20):
        choose(bot, st, 0, np.random.default_rng(i))
    assert all(s is not st and s.cards[0] == st.cards[0] for s in seen)
    assert len({s.cards[1] for s in seen}) > 1  # the other hand was re-dealt
    with pytest.raises(TypeError, match="act_state"):
        bot.act({"action_mask": st.legal_mask()})


def test_replay_rejects_other_version(monkeypatch):
    from boardzoo.envs.core import registry
    from boardzoo.envs.core.records import replay

    monkeypatch.setitem(registry._ENTRIES, "toy_v0", "toy:ToyGame")
    rec = {"env_id": "toy_v0", "version": 3, "options": {}, "num_players": 2, "actions": []}
    with pytest.raises(StateError, match="version 3"):
        list(replay(rec))


def test_slot_copier_copies_every_slot_and_nothing_else():
    from boardzoo.envs.core.game import slot_copier

    class Slotted:
        __slots__ = ("a", "b", "c")

    src, dst = Slotted(), Slotted()
    src.a, src.b, src.c = [1], "x", None
    slot_copier(Slotted)(dst, src)
    assert (dst.a, dst.b, dst.c) == ([1], "x", None) and dst.a is src.a  # shallow, as documented
    assert slot_copier(type("Empty", (), {"__slots__": ()})) is not None
