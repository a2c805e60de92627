"""Game records (JSON) and exact replay.

A record (``env.unwrapped.save_record()``) holds the env id and version, the options, the number
of players, the seed and every action (chance outcomes included); a game ended by
``illegal="penalize"`` also carries ``penalty: {"seat": s, "action": a}``, and one started from a
saved state (``reset(options={"state": ...})``) carries it as ``start``. Records are untrusted
input: :func:`check_record` refuses a malformed one with a :class:`StateError` naming the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .errors import ConfigError, StateError
from .game import Game, State
from .registry import game_class, names
from .schema import Dict, Int, List, Map, Nullable, OneOf, Spec, Str

MAX_ACTIONS = 1_000_000  # no game comes near this; bounds what a record may make us replay


def _schema(action: Spec) -> Dict:
    return Dict(
        {
            "env_id": Str(max_len=100),
            "version": Int(0, 10_000),
            "options": Map(Str(max_len=100), OneOf(Int(-(2**31), 2**31), Str(max_len=200), _Scalar()), max_len=100),
            "num_players": Int(1, 1000),
            "seed": Nullable(Int(0, 2**64)),
            "actions": List(action, max_len=MAX_ACTIONS),
            "penalty": Dict({"seat": Int(0, 1000), "action": OneOf(Int(-(2**63), 2**63), Str(max_len=200))}),
            "start": _Object(),
        },
        optional=("seed", "penalty", "start"),
    )


class _Object(Spec):
    """A saved state (checked by the game's own ``state_from_dict``)."""

    def check(self, value: Any, path: str) -> None:
        if value.__class__ is not dict:
            raise self.fail(path, "a saved state (an object)", value)


class _Scalar(Spec):
    """A bool or a float option value."""

    def check(self, value: Any, path: str) -> None:
        if value.__class__ not in (bool, float):
            raise self.fail(path, "a bool, int, float or string", value)


class _Json(Spec):
    """Any JSON value (chance outcomes may be ints, strings or lists); nesting bounded."""

    def check(self, value: Any, path: str, depth: int = 0) -> None:
        if depth > 8:
            raise self.fail(path, "a JSON value nested at most 8 deep", "...")
        if isinstance(value, list):
            if len(value) > 10_000:
                raise self.fail(path, "a list of at most 10000 items", f"{len(value)} items")
            for i, v in enumerate(value):
                self.check(v, f"{path}[{i}]", depth + 1)
        elif value is not None and value.__class__ not in (int, str, bool, float):
            raise self.fail(path, "a JSON value", value)


_RECORD = _schema(_Json())


def check_record(record: Any) -> Game:
    """Validate ``record`` and return the game it is for (a StateError/ConfigError names the field)."""
    if not isinstance(record, dict):
        raise StateError(f"a game record must be a JSON object, got {type(record).__name__}")
    _RECORD.check(record, "")
    env_id = record["env_id"]
    if env_id not in names():
        raise StateError(f"record field 'env_id': {env_id!r} is not a registered env; registered: {names()}")
    cls = game_class(env_id)
    if record["version"] != cls.version:
        raise StateError(
            f"record field 'version': the record is for {env_id} version {record['version']}, "
            f"the installed {env_id} is version {cls.version}"
        )
    try:
        game = cls(**record["options"])
        game.check_players(record["num_players"])
    except ConfigError as e:
        raise StateError(f"record field 'options'/'num_players': {e}") from None
    pen = record.get("penalty")
    if pen is not None and pen["seat"] >= record["num_players"]:
        raise StateError(f"record field 'penalty.seat': seat {pen['seat']} does not exist")
    return game


def replay(record: dict[str, Any]) -> Iterator[State]:
    """Yield the state after every action of ``record`` (the initial state first).

    A penalised game's record ends where the illegal action was refused (its outcome is
    :func:`outcome`). Raises StateError for a malformed record or a version mismatch, and
    IllegalActionError (naming the step) for an action the rules refuse.
    """
    game = check_record(record)
    start = record.get("start")
    if start is not None and start.get("num_players") != record["num_players"]:
        raise StateError("record field 'start.num_players' differs from 'num_players'")
    state = game.new_initial_state(record["num_players"]) if start is None else game.state_from_dict(start)
    yield state.clone()
    for a in record["actions"]:
        state.apply_action(a)
        yield state.clone()


def outcome(record: dict[str, Any], reward: str = "win") -> list[float]:
    """The final rewards of a recorded game, as the env gave them (penalty included)."""
    last = None
    for step in replay(record):  # replays (and so validates) every step
        last = step
    pen = record.get("penalty")
    if pen is not None:
        return [-1.0 if i == pen["seat"] else 0.0 for i in range(record["num_players"])]
    if last is None or not last.is_terminal():
        raise StateError("record field 'actions': the record does not reach the end of the game")
    return last.score_returns() if reward == "score" else last.returns()
