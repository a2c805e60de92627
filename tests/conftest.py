"""Shared test settings. BOARDZOO_SOAK scales the number of random games (default 1 = CI)."""
import os

import pytest

SOAK = float(os.environ.get("BOARDZOO_SOAK", "1"))


@pytest.fixture
def soak() -> float:
    return SOAK
