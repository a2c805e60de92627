"""components.json is checked beyond its schema on load: bad scoring minutes are refused with a
message naming the field (a zero-minute change would make the trip search's route walk-back cycle)."""

from __future__ import annotations

import copy

import pytest

from boardzoo.envs import ConfigError
from boardzoo.envs.metromania import data


@pytest.mark.parametrize("field,value", [("change_minutes", 0), ("change_minutes", -1), ("ride_minutes", 0)])
def test_scoring_minutes_must_be_positive(monkeypatch, field, value):
    good = data.load_json(data.__file__, "data/components.json", data.COMPONENTS_SCHEMA)
    bad = copy.deepcopy(good)
    bad["scoring"][field] = value
    monkeypatch.setattr(data, "load_json", lambda *a, **k: copy.deepcopy(bad))
    with pytest.raises(ConfigError, match="scoring: a ride and a change"):
        data.components.__wrapped__()
    monkeypatch.setattr(data, "load_json", lambda *a, **k: copy.deepcopy(good))
    assert data.components.__wrapped__()["scoring"] == good["scoring"]
