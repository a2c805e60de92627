"""Shared test settings.

- Tests are imported with ``--import-mode=importlib`` (pyproject), so test files in different game
  folders may share a basename; each test folder is put on ``sys.path`` here so a game's tests can
  import their own helper modules (``from df_helpers import ...``).
- ``BOARDZOO_SOAK`` scales the number of random games (default 1 = CI).
"""

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for _d in sorted(p for p in HERE.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
    if str(_d) not in sys.path:
        sys.path.insert(0, str(_d))

SOAK = float(os.environ.get("BOARDZOO_SOAK", "1"))


@pytest.fixture
def soak() -> float:
    return SOAK
