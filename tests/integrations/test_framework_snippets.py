"""Each snippet of README.md's "Use with your framework" runs (issue 14). The RLlib and Tianshou
snippets are skipped when their framework is not installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
NEEDS = {"rllib": "ray.rllib", "tianshou": "tianshou", "sb3": "sb3_contrib", "vector": "gymnasium"}


def snippets() -> dict[str, str]:
    text = README.read_text()
    found = dict(re.findall(r"<!-- framework-snippet: (\w+) -->\n```python\n(.*?)```", text, flags=re.S))
    return found


def test_every_framework_has_a_snippet():
    assert set(snippets()) == set(NEEDS)


@pytest.mark.parametrize("name", sorted(NEEDS))
def test_snippet_runs(name, capsys):
    pytest.importorskip(NEEDS[name])
    code = snippets()[name]
    exec(compile(code, f"README.md[{name}]", "exec"), {"__name__": f"readme_{name}"})
    if name in ("rllib", "tianshou"):
        assert capsys.readouterr().out.strip()
