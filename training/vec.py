"""``vec: batched``: many envs in a few worker processes, each worker stepping its share per message.

SB3's ``SubprocVecEnv`` runs one env per process: with a small network the learner then spends its
time on one tiny policy forward and one pipe round trip per env and step. ``DummyVecEnv`` batches
the forward pass but steps every env (and its opponents) in the learner's process, on one core.
:class:`BatchedSubprocVecEnv` does both: ``n_envs`` envs spread over ``workers`` processes (one per
core by default); each step sends one message per worker with its envs' actions, so the learner
batches its forward pass over all envs while the games run on the other cores.

Semantics are exactly ``DummyVecEnv``'s / ``SubprocVecEnv``'s (auto-reset with
``terminal_observation``, ``TimeLimit.truncated``, seeds and options per env, ``env_method`` /
``get_attr`` / ``set_attr`` per env index), so MaskablePPO's ``action_masks`` and the opponent-pool
plumbing work unchanged.

Stepping in lockstep (one message per worker and step, the learner's forward pass in between)
leaves both cores half idle: measured on 2 cores (Metromania, 300 steps of 16 envs), one process
2.3-2.9 s, two workers in lockstep 2.2-2.8 s. :meth:`BatchedSubprocVecEnv.rollout` instead sends each
worker the policy's weights once per rollout; the worker plays its envs for the whole rollout with
its own copy of the policy (the same torch code, so the same masked sampling, values and
log-probabilities) and returns the arrays the rollout buffer holds: 1.2 s for the same 300 steps
(:func:`boardzoo.training.train.ppo_class` uses it; ``benchmarks/bench_train.py``).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnv, VecEnvIndices

BUFFER_KEYS = ("observations", "actions", "rewards", "episode_starts", "values", "log_probs", "action_masks")
"""The rollout buffer's arrays that :meth:`BatchedSubprocVecEnv.rollout` returns, ``(n_steps, num_envs, ...)``."""


def _step_one(env: gym.Env, action: Any) -> tuple:
    obs, reward, terminated, truncated, info = env.step(action)
    done = terminated or truncated
    info["TimeLimit.truncated"] = truncated and not terminated
    reset_info: dict = {}
    if done:
        info["terminal_observation"] = obs
        obs, reset_info = env.reset()
    return obs, reward, done, info, reset_info


def _rollout(envs: list[gym.Env], last: list[Any], policy: Any, task: dict) -> dict[str, Any]:
    """Play ``task["n_steps"]`` steps of every env of a worker with ``policy`` (MaskablePPO's
    ``collect_rollouts`` loop, one worker's envs at a time) and return what the rollout buffer holds.

    ``last`` is each env's current observation (updated in place). Per step, as SB3 does: the masks,
    the policy's forward pass (sampled actions, values, log-probabilities), the step (auto-reset), and
    a truncated game's reward bootstrapped with the value of its terminal observation."""
    import torch

    policy.load_state_dict(task["state"])
    policy.set_training_mode(False)
    torch.manual_seed(task["seed"])
    n, k = task["n_steps"], len(envs)
    obs = np.stack(last)
    starts = np.asarray(task["episode_starts"], dtype=np.float32)
    out: dict[str, Any] = {
        "observations": np.empty((n, k, *obs.shape[1:]), dtype=np.float32),
        "actions": np.empty((n, k), dtype=np.float32),
        "rewards": np.empty((n, k), dtype=np.float32),
        "episode_starts": np.empty((n, k), dtype=np.float32),
        "values": np.empty((n, k), dtype=np.float32),
        "log_probs": np.empty((n, k), dtype=np.float32),
        "action_masks": None,
        "dones": np.empty((n, k), dtype=bool),
        "infos": [],
    }
    masks_fn = [e.get_wrapper_attr("action_masks") for e in envs]
    for t in range(n):
        masks = np.stack([f() for f in masks_fn])
        if out["action_masks"] is None:
            out["action_masks"] = np.empty((n, k, masks.shape[-1]), dtype=np.float32)
        with torch.no_grad():
            actions, values, log_probs = policy(torch.as_tensor(obs), action_masks=masks)
        acts = actions.numpy()
        new_obs, rews, dones, infos, _ = zip(*[_step_one(e, a) for e, a in zip(envs, acts)])
        rewards = np.asarray(rews, dtype=np.float32)
        for i, info in enumerate(infos):
            if dones[i] and info.get("terminal_observation") is not None and info.get("TimeLimit.truncated", False):
                with torch.no_grad():
                    term = policy.obs_to_tensor(info["terminal_observation"])[0]
                    rewards[i] += task["gamma"] * float(policy.predict_values(term)[0])
        out["observations"][t] = obs
        out["actions"][t] = acts
        out["rewards"][t] = rewards
        out["episode_starts"][t] = starts
        out["values"][t] = values.numpy().flatten()
        out["log_probs"][t] = log_probs.numpy()
        out["action_masks"][t] = masks
        out["dones"][t] = dones
        out["infos"].append(list(infos))
        obs = np.stack(new_obs)
        starts = np.asarray(dones, dtype=np.float32)
    last[:] = list(obs)
    out["last_obs"] = obs
    return out


def _worker(remote: Any, parent_remote: Any, fns_wrapper: CloudpickleWrapper) -> None:
    from stable_baselines3.common.env_util import is_wrapped

    parent_remote.close()
    envs = [fn() for fn in fns_wrapper.var]
    last: list[Any] = [None] * len(envs)  # each env's current observation (for ``rollout``)
    policy: Any = None
    while True:
        try:
            cmd, data = remote.recv()
        except (EOFError, KeyboardInterrupt):
            break
        if cmd == "step":
            res = [_step_one(e, a) for e, a in zip(envs, data)]
            last[:] = [r[0] for r in res]
            remote.send(res)
        elif cmd == "rollout":
            task = data.var
            if task.get("policy") is not None:  # (class, constructor kwargs) on the first rollout
                cls, kwargs = task["policy"]
                policy = cls(**kwargs)
            remote.send(_rollout(envs, last, policy, task))
        elif cmd == "reset":
            out = []
            for e, (seed, options) in zip(envs, data):
                out.append(e.reset(seed=seed, **({"options": options} if options else {})))
            last[:] = [o for o, _ in out]
            remote.send(out)
        elif cmd == "env_method":
            name, args, kwargs, idx = data
            remote.send([envs[i].get_wrapper_attr(name)(*args, **kwargs) for i in idx])
        elif cmd == "get_attr":
            name, idx = data
            remote.send([envs[i].get_wrapper_attr(name) for i in idx])
        elif cmd == "set_attr":
            name, value, idx = data
            for i in idx:
                setattr(envs[i], name, value)
            remote.send(None)
        elif cmd == "has_attr":
            ok = True
            for e in envs:
                try:
                    e.get_wrapper_attr(data)
                except AttributeError:
                    ok = False
            remote.send(ok)
        elif cmd == "is_wrapped":
            cls, idx = data
            remote.send([is_wrapped(envs[i], cls) for i in idx])
        elif cmd == "render":
            remote.send([e.render() for e in envs])
        elif cmd == "get_spaces":
            remote.send((envs[0].observation_space, envs[0].action_space))
        elif cmd == "close":
            for e in envs:
                e.close()
            remote.close()
            break
        else:  # pragma: no cover - a programming error
            raise NotImplementedError(f"BatchedSubprocVecEnv worker: unknown command {cmd!r}")


class BatchedSubprocVecEnv(VecEnv):
    """``len(env_fns)`` envs in ``workers`` processes (default: one per CPU, at most one per env)."""

    def __init__(self, env_fns: list[Callable[[], gym.Env]], workers: int | None = None, start_method: str = "fork"):
        n = len(env_fns)
        if n < 1:
            raise ValueError("BatchedSubprocVecEnv needs at least one env")
        k = max(1, min(n, workers or os.cpu_count() or 1))
        bounds = np.linspace(0, n, k + 1).round().astype(int)
        self.slices = [range(int(bounds[i]), int(bounds[i + 1])) for i in range(k)]
        self.owner = [(w, j) for w, s in enumerate(self.slices) for j in range(len(s))]  # env -> (worker, local)
        ctx = mp.get_context(start_method)
        self.remotes, self.processes = [], []
        for s in self.slices:
            remote, work = ctx.Pipe()
            fns = [env_fns[i] for i in s]
            p = ctx.Process(target=_worker, args=(work, remote, CloudpickleWrapper(fns)), daemon=True)  # type: ignore[attr-defined]
            p.start()
            work.close()
            self.remotes.append(remote)
            self.processes.append(p)
        self.waiting = False
        self.closed = False
        self._rollout_policy: Any = None  # a weak reference to the policy the workers have copies of
        self.remotes[0].send(("get_spaces", None))
        obs_space, act_space = self.remotes[0].recv()
        super().__init__(n, obs_space, act_space)

    # -- stepping ---------------------------------------------------------------
    def step_async(self, actions: np.ndarray) -> None:
        for remote, s in zip(self.remotes, self.slices):
            remote.send(("step", [actions[i] for i in s]))
        self.waiting = True

    def step_wait(self):
        results = [r for remote in self.remotes for r in remote.recv()]
        self.waiting = False
        obs, rews, dones, infos, self.reset_infos = zip(*results)  # type: ignore[assignment]
        return np.stack(obs), np.stack(rews), np.stack(dones), list(infos)

    def rollout(self, policy: Any, n_steps: int, episode_starts: np.ndarray, gamma: float, seed: int) -> dict[str, Any]:
        """``n_steps`` steps of every env, each worker playing its envs with a copy of ``policy`` (an
        SB3 ``ActorCriticPolicy``; its weights are sent, its class and constructor arguments the
        first time a policy object is used):
        the rollout buffer's arrays, ``(n_steps, num_envs, ...)``, the steps' ``dones`` and ``infos``
        (``infos[t][i]``), and ``last_obs``. ``seed`` seeds worker ``w``'s torch generator with
        ``seed + w`` (the actions sampled); ``gamma`` bootstraps truncated games."""
        state = {name: t.detach().cpu() for name, t in policy.state_dict().items()}
        spec = None
        if self._rollout_policy is None or self._rollout_policy() is not policy:  # a new policy object
            spec = (type(policy), policy._get_constructor_parameters())
            self._rollout_policy = weakref.ref(policy)
        for w, (remote, s) in enumerate(zip(self.remotes, self.slices)):
            task = {
                "state": state,
                "policy": spec,
                "n_steps": n_steps,
                "episode_starts": np.asarray(episode_starts)[s.start : s.stop],
                "gamma": gamma,
                "seed": (seed + w) % (1 << 63),
            }
            remote.send(("rollout", CloudpickleWrapper(task)))
        self.waiting = True
        parts = [remote.recv() for remote in self.remotes]
        self.waiting = False
        out: dict[str, Any] = {}
        for key in (*BUFFER_KEYS, "dones"):
            out[key] = np.concatenate([p[key] for p in parts], axis=1)
        out["last_obs"] = np.concatenate([p["last_obs"] for p in parts], axis=0)
        out["infos"] = [[i for p in parts for i in p["infos"][t]] for t in range(n_steps)]
        return out

    def reset(self):
        for remote, s in zip(self.remotes, self.slices):
            remote.send(("reset", [(self._seeds[i], self._options[i]) for i in s]))
        results = [r for remote in self.remotes for r in remote.recv()]
        obs, self.reset_infos = zip(*results)  # type: ignore[assignment]
        self._reset_seeds()
        self._reset_options()
        return np.stack(obs)

    def close(self) -> None:
        if self.closed:
            return
        if self.waiting:
            for remote in self.remotes:
                remote.recv()
        for remote in self.remotes:
            remote.send(("close", None))
        for p in self.processes:
            p.join()
        for remote in self.remotes:
            remote.close()
        self.closed = True

    # -- per-env calls -------------------------------------------------------------
    def _by_worker(self, indices: VecEnvIndices) -> tuple[list[int], dict[int, list[int]]]:
        order = list(self._get_indices(indices))
        groups: dict[int, list[int]] = {}
        for i in order:
            w, j = self.owner[i]
            groups.setdefault(w, []).append(j)
        return order, groups

    def _gather(self, cmd: str, make: Callable[[list[int]], Any], indices: VecEnvIndices) -> list[Any]:
        order, groups = self._by_worker(indices)
        for w, local in groups.items():
            self.remotes[w].send((cmd, make(local)))
        got: dict[int, Any] = {}
        for w, local in groups.items():
            for j, v in zip(local, self.remotes[w].recv()):
                got[self.slices[w][j]] = v
        return [got[i] for i in order]

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        return self._gather("env_method", lambda loc: (method_name, method_args, method_kwargs, loc), indices)

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        return self._gather("get_attr", lambda loc: (attr_name, loc), indices)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        _, groups = self._by_worker(indices)
        for w, local in groups.items():
            self.remotes[w].send(("set_attr", (attr_name, value, local)))
        for w in groups:
            self.remotes[w].recv()

    def has_attr(self, attr_name: str) -> bool:
        for remote in self.remotes:
            remote.send(("has_attr", attr_name))
        return all([remote.recv() for remote in self.remotes])

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        return self._gather("is_wrapped", lambda loc: (wrapper_class, loc), indices)

    def get_images(self) -> Sequence[np.ndarray | None]:
        for remote in self.remotes:
            remote.send(("render", None))
        return [img for remote in self.remotes for img in remote.recv()]
