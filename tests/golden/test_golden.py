"""Golden playthroughs stay unchanged (see golden.py; regenerate with --update after an intended
behaviour change, and record it in the game's version history)."""

from __future__ import annotations

import difflib

import pytest
from golden import DATA, cases, transcript

CASES = [pytest.param(e, o, n, f, id=f[:-4]) for e, o, n, f in cases()]


@pytest.mark.parametrize("env_id,opts,n,name", CASES)
def test_golden_playthrough(env_id, opts, n, name):
    path = DATA / name
    assert path.is_file(), f"no golden transcript {name}: run python tests/golden/golden.py --update"
    want = path.read_text()
    got = transcript(env_id, opts, n)
    if got != want:
        diff = "".join(
            list(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=1))[:40]
        )
        pytest.fail(f"{name} changed (intended? regenerate and record it in the version history):\n{diff}")
