"""Game records (JSON) and exact replay."""
from __future__ import annotations

from typing import Any, Iterator

from .game import ConfigError, State
from .registry import make_game


def replay(record: dict[str, Any]) -> Iterator[State]:
    """Yield the state after every action of ``record`` (the initial state first).

    Raises ConfigError when the record's env version differs from the installed one.
    """
    game = make_game(record["env_id"], **record.get("options", {}))
    if record.get("version", game.version) != game.version:
        raise ConfigError(f"record is for {record['env_id']} version {record['version']}, "
                          f"installed version is {game.version}")
    state = game.new_initial_state(record["num_players"])
    yield state.clone()
    for a in record["actions"]:
        state.apply_action(a)
        yield state.clone()
