"""Typed training configs (CleanRL-style dataclasses), loaded from ``configs/<env_id>.yaml``.

Loading is strict: an unknown key, an unknown env id, a value of the wrong type or out of range
fails at once with a :class:`ConfigError` naming the offending entry (``ppo.learning_rate``...).
Every field carries a docstring; ``boardzoo train --help`` points here.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from boardzoo.envs import ConfigError, game_class, names


@dataclass
class NetConfig:
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layer sizes of the policy and of the value network (separate MLPs)"""
    activation: str = "tanh"
    """tanh or relu"""
    action_skip: float = 0.0
    """initial gain of a learned per-action skip from the game's action features to the logits
    (games that declare ``action_feature_offset``, e.g. hydropolis_v0); 0 = plain MLP"""


@dataclass
class PPOConfig:
    learning_rate: float = 3e-4
    """Adam step size"""
    n_steps: int = 1024
    """steps collected per env before each update"""
    batch_size: int = 256
    """minibatch size"""
    n_epochs: int = 4
    """passes over each rollout"""
    gamma: float = 0.995
    """discount (rewards come only at the end of a game)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """the surrogate clipping coefficient"""
    ent_coef: float = 0.01
    """entropy bonus (masked actions are excluded from it)"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float | None = None
    """stop an update early past this KL (None: never)"""


@dataclass
class PoolStage:
    start: float = 0.0
    """fraction of total_steps from which this stage's weights apply"""
    snapshot: float = 0.4
    """weight of earlier learner snapshots"""
    heuristic: float = 0.4
    """weight of the game's heuristic bot"""
    random: float = 0.2
    """weight of the random bot"""


@dataclass
class PoolConfig:
    snapshot_every: int = 20_000
    """add a learner snapshot to the pool every this many steps"""
    max_snapshots: int = 10
    """keep at most this many snapshots (oldest dropped)"""
    latest_prob: float = 0.5
    """a snapshot opponent is the latest snapshot with this probability, else a uniform older one"""
    schedule: list[PoolStage] = field(default_factory=lambda: [PoolStage()])
    """opponent mix by training progress; each seat's opponent is drawn per game"""


@dataclass
class EvalConfig:
    every: int = 25_000
    """evaluate (and checkpoint) every this many steps"""
    games: int = 100
    """games per opponent per evaluation (learner in one seat, opponent in the others)"""
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    """bot specs to evaluate against"""
    stop_at_bar: float | None = None
    """stop at the first evaluation whose 95% lower bound against every opponent is at least the even
    share ``1/n`` plus this margin (0: the strength bar; 0.05: issue 19's margin); null: train to
    ``total_steps``. The wall time (imitation included) and steps of that evaluation are in
    ``state.json`` (``bar``)"""


@dataclass
class BCConfig:
    games: int = 0
    """heuristic self-play games to imitate before PPO (0: no imitation warm start)"""
    epochs: int = 10
    """passes over the demonstrations"""
    batch_size: int = 512
    """minibatch size"""
    learning_rate: float = 1e-3
    """Adam step size"""
    value: bool = True
    """also fit the value net to the demonstrations' discounted final returns"""
    teacher: dict[str, Any] = field(default_factory=dict)
    """style keywords of the game's heuristic that plays the demonstrations (a variant offered by
    ``Game.heuristic_bot``, e.g. downforce ``{bet_own: true}``); {} = the standard heuristic"""
    teacher_bot: str | None = None
    """a bot spec that plays the demonstrations instead of the heuristic (e.g. ``rollout:2``, the
    heuristic improved by Monte-Carlo rollouts: a teacher stronger than the heuristic itself)"""


@dataclass
class RLlibConfig:
    """``backend: rllib`` settings (boardzoo.integrations.rllib; the ``rllib`` extra)."""

    address: str | None = None
    """null: start a local Ray instance; "auto": the cluster this node joined (ray start);
    "ray://host:10001": through Ray Client"""
    num_env_runners: int = 1
    """env runner actors sampling games (one CPU each); 0 samples in the learner's process"""
    num_envs_per_env_runner: int = 1
    """envs stepped by each env runner"""
    num_learners: int = 0
    """0: the learner runs in the ``boardzoo train`` process; N: N remote learner actors"""
    num_cpus: int | None = None
    """local Ray only: CPUs Ray may use (null: this machine's count, at least num_env_runners + 1)"""
    train_batch_size: int | None = None
    """learner decisions per PPO update (null: ppo.n_steps * n_envs, the SB3 rollout size)"""
    learner_seats: str = "one"
    """one: the learner takes one random seat per game, the pool plays the others (as the SB3 trainer);
    all: every seat is the learner (mirror self-play)"""
    mode: str = "aec"
    """aec: one deciding seat per env step; parallel: every deciding seat of a simultaneous node at once"""
    sample_timeout_s: float = 300.0
    """how long the learner waits for the env runners' samples per iteration"""


@dataclass
class TrainConfig:
    env_id: str
    """registered env id (boardzoo.envs.names())"""
    num_players: list[int] | None = None
    """player counts to train on, one drawn per game (None: the game's default count)"""
    options: dict[str, Any] = field(default_factory=dict)
    """the game's options"""
    reward: str = "win"
    """win or score (see DESIGN.md)"""
    seed: int = 0
    """seed of everything"""
    total_steps: int = 200_000
    """learner decisions to train for"""
    n_envs: int = 2
    """parallel envs"""
    vec: str = "subproc"
    """subproc (one process per env), dummy (in-process) or batched (n_envs spread over ``workers``
    processes, each playing its share for a whole rollout with a copy of the policy: the fast layout
    for many envs)"""
    workers: int | None = None
    """vec: batched only: worker processes (null: one per CPU)"""
    update_threads: int | None = None
    """torch threads of the PPO update, while the envs wait (null: one per CPU, at most 4); the
    rollout runs on one"""
    run_dir: str | None = None
    """where runs go (default runs/<config file stem>)"""
    backend: str = "sb3"
    """sb3 (MaskablePPO on SubprocVecEnv) or rllib (Ray RLlib PPO, local or on a cluster: the rllib section)"""
    net: NetConfig = field(default_factory=NetConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    bc: BCConfig = field(default_factory=BCConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)

    # ------------------------------------------------------------------
    def players(self) -> list[int]:
        return list(self.num_players) if self.num_players else [game_class(self.env_id).default_players]

    def validate(self) -> None:
        if self.env_id not in names():
            raise ConfigError(f"env_id: unknown env id {self.env_id!r}; registered: {names()}")
        g = game_class(self.env_id)
        try:
            game = g(**self.options)
        except ConfigError as e:
            raise ConfigError(f"options: {e}") from None
        for n in self.players():
            try:
                game.check_players(n)
            except ConfigError as e:
                raise ConfigError(f"num_players: {e}") from None
        if self.bc.teacher_bot is not None:
            from .bots import check_spec

            check_spec(self.bc.teacher_bot, key="bc.teacher_bot")
            if self.bc.teacher:
                raise ConfigError("bc: give teacher (heuristic style) or teacher_bot (a bot spec), not both")
        if self.bc.teacher:
            try:
                game.heuristic_bot(0, 0, **self.bc.teacher)
            except ConfigError as e:
                raise ConfigError(f"bc.teacher: {e}") from None
            except (TypeError, NotImplementedError):
                raise ConfigError(f"bc.teacher: {self.env_id}'s heuristic offers no variants") from None
        checks = [
            (self.reward in ("win", "score"), "reward", "must be win or score"),
            (self.vec in ("subproc", "dummy", "batched"), "vec", "must be subproc, dummy or batched"),
            (self.workers is None or self.workers >= 1, "workers", "must be >= 1 (or null: one per CPU)"),
            (
                self.update_threads is None or self.update_threads >= 1,
                "update_threads",
                "must be >= 1 (or null: one per CPU, at most 4)",
            ),
            (self.net.activation in ("tanh", "relu"), "net.activation", "must be tanh or relu"),
            (all(h > 0 for h in self.net.hidden) and self.net.hidden, "net.hidden", "must be positive sizes"),
            (self.net.action_skip >= 0, "net.action_skip", "must be >= 0"),
            (
                self.net.action_skip == 0 or getattr(game, "action_feature_offset", None) is not None,
                "net.action_skip",
                f"needs a game with action features; {self.env_id} has none",
            ),
            (self.total_steps > 0, "total_steps", "must be > 0"),
            (self.n_envs >= 1, "n_envs", "must be >= 1"),
            (self.ppo.learning_rate > 0, "ppo.learning_rate", "must be > 0"),
            (self.ppo.n_steps >= 2, "ppo.n_steps", "must be >= 2"),
            (self.ppo.batch_size >= 2, "ppo.batch_size", "must be >= 2"),
            (self.ppo.n_epochs >= 1, "ppo.n_epochs", "must be >= 1"),
            (0 < self.ppo.gamma <= 1, "ppo.gamma", "must be in (0, 1]"),
            (0 <= self.ppo.gae_lambda <= 1, "ppo.gae_lambda", "must be in [0, 1]"),
            (self.pool.snapshot_every > 0, "pool.snapshot_every", "must be > 0"),
            (self.pool.max_snapshots >= 1, "pool.max_snapshots", "must be >= 1"),
            (0 <= self.pool.latest_prob <= 1, "pool.latest_prob", "must be in [0, 1]"),
            (len(self.pool.schedule) >= 1, "pool.schedule", "needs at least one stage"),
            (self.eval.every > 0, "eval.every", "must be > 0"),
            (self.eval.games >= 0, "eval.games", "must be >= 0"),
            (
                self.eval.stop_at_bar is None or (0 <= self.eval.stop_at_bar < 1 and self.eval.games > 0),
                "eval.stop_at_bar",
                "must be in [0, 1) (or null) and needs eval.games > 0",
            ),
            (self.bc.games >= 0, "bc.games", "must be >= 0"),
            (self.backend in ("sb3", "rllib"), "backend", "must be sb3 or rllib"),
            (
                self.backend != "rllib" or self.bc.games == 0,
                "bc.games",
                "the imitation warm start is SB3-only; set bc.games: 0 with backend: rllib",
            ),
            (self.rllib.num_env_runners >= 0, "rllib.num_env_runners", "must be >= 0"),
            (self.rllib.num_envs_per_env_runner >= 1, "rllib.num_envs_per_env_runner", "must be >= 1"),
            (self.rllib.num_learners >= 0, "rllib.num_learners", "must be >= 0"),
            (self.rllib.num_cpus is None or self.rllib.num_cpus >= 1, "rllib.num_cpus", "must be >= 1 or null"),
            (
                self.rllib.train_batch_size is None or self.rllib.train_batch_size >= 2,
                "rllib.train_batch_size",
                "must be >= 2 or null",
            ),
            (self.rllib.learner_seats in ("one", "all"), "rllib.learner_seats", "must be one or all"),
            (self.rllib.mode in ("aec", "parallel"), "rllib.mode", "must be aec or parallel"),
            (self.rllib.sample_timeout_s > 0, "rllib.sample_timeout_s", "must be > 0"),
            (
                self.rllib.address is None or self.rllib.address == "auto" or ":" in self.rllib.address,
                "rllib.address",
                'must be null, "auto", "ray://host:port" or "host:port"',
            ),
        ]
        for ok, key, msg in checks:
            if not ok:
                raise ConfigError(f"{key}: {msg}")
        for i, st in enumerate(self.pool.schedule):
            w = (st.snapshot, st.heuristic, st.random)
            if min(w) < 0 or sum(w) <= 0:
                raise ConfigError(f"pool.schedule[{i}]: weights must be >= 0 and not all 0")
            if not 0 <= st.start < 1:
                raise ConfigError(f"pool.schedule[{i}].start: must be in [0, 1)")
        from .bots import check_spec  # late import: bots imports torch lazily

        for spec in self.eval.opponents:
            check_spec(spec, key="eval.opponents")


# ---------------------------------------------------------------------- strict loading
def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def _convert(value: Any, tp: Any, key: str) -> Any:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise ConfigError(f"{key}: must not be null")
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return _convert(value, a, key)
            except ConfigError as e:
                errors.append(str(e))
        raise ConfigError(
            errors[0]
            if len(errors) == 1
            else f"{key}: {value!r} matches none of {[_type_name(a) for a in args if a is not type(None)]}"
        )
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: must be a mapping of {tp.__name__} fields, got {value!r}")
        return _build(tp, value, key + ".")
    if origin is list:
        (item,) = typing.get_args(tp)
        if not isinstance(value, list):
            if key == "num_players" and isinstance(value, int) and not isinstance(value, bool):
                value = [value]
            else:
                raise ConfigError(f"{key}: must be a list, got {value!r}")
        return [_convert(v, item, f"{key}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key}: must be a mapping, got {value!r}")
        return dict(value)
    if tp is Any:
        return value
    if tp is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{key}: must be true or false, got {value!r}")
        return value
    if tp is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key}: must be an integer, got {value!r}")
        return value
    if tp is float:
        if isinstance(value, str):  # YAML 1.1 reads 3e-4 as a string
            try:
                return float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key}: must be a number, got {value!r}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key}: must be a string, got {value!r}")
        return value
    raise ConfigError(f"{key}: unsupported field type {tp}")


def _build(cls: type, data: dict, prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown key(s) {[prefix + k for k in unknown]}; known keys of "
            f"{prefix.rstrip('.') or 'the config'}: {sorted(fields)}"
        )
    kwargs = {}
    for name, f in fields.items():
        if name in data:
            kwargs[name] = _convert(data[name], hints[name], prefix + name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ConfigError(f"missing required key {prefix + name!r}")
    return cls(**kwargs)


def config_from_dict(data: dict) -> TrainConfig:
    """Build and validate a TrainConfig from a plain mapping (strict)."""
    if not isinstance(data, dict):
        raise ConfigError(f"a config must be a mapping, got {type(data).__name__}")
    cfg = _build(TrainConfig, data)
    cfg.validate()
    return cfg


def load_config(path: str | Path) -> TrainConfig:
    """Load ``configs/<env_id>.yaml`` strictly (see module docstring)."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from None
    try:
        return config_from_dict(data if data is not None else {})
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None


def config_to_dict(cfg: TrainConfig) -> dict:
    return dataclasses.asdict(cfg)
