"""Every registered game has the one folder shape and one-way wiring (docs/ADDING_A_GAME.md):
``data -> rules -> encoder -> bot / render``, assembled by the ``GameSpec`` in the package.
The import check reads every import statement of a module, function-local ones included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from boardzoo.envs import names
from boardzoo.envs.core import registry

ENVS = Path(__file__).resolve().parents[2] / "envs"
REQUIRED = ("__init__.py", "rules.py", "encoder.py", "bot.py", "render.py", "data.py", "RULES.md")
# module -> sibling modules it must never import (directly or as ``from . import x``)
FORBIDDEN = {
    "data": {"rules", "encoder", "bot", "render"},
    "rules": {"encoder", "bot", "render"},
    "encoder": {"bot", "render"},
    "bot": {"encoder", "render"},
}


def _packages() -> list[str]:
    out = []
    for env_id in names():
        mod = registry._ENTRIES[env_id].split(":")[0]
        if mod.startswith("boardzoo.envs.") and mod.count(".") == 2:
            out.append(mod.split(".")[2])
    return sorted(set(out)) + ["_template"]


def _sibling_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".")
            if node.level == 1 and node.module:
                found.add(parts[0])
            elif node.level == 1:
                found |= {a.name for a in node.names}
            elif node.level == 0 and node.module and node.module.startswith("boardzoo.envs.") and len(parts) >= 4:
                found.add(parts[3])  # boardzoo.envs.<game>.<module>
        elif isinstance(node, ast.Import):
            for a in node.names:
                p = a.name.split(".")
                if a.name.startswith("boardzoo.envs.") and len(p) >= 4:
                    found.add(p[3])
    return found


@pytest.mark.parametrize("game", _packages())
def test_folder_shape(game):
    folder = ENVS / game
    missing = [f for f in REQUIRED if not (folder / f).is_file()]
    assert not missing, f"envs/{game} lacks {missing} (see docs/ADDING_A_GAME.md)"
    assert (folder / "data").is_dir(), f"envs/{game} keeps its component data in data/"
    assert "SPEC" in (folder / "__init__.py").read_text()


@pytest.mark.parametrize("game", _packages())
def test_one_way_wiring(game):
    for module, banned in FORBIDDEN.items():
        bad = _sibling_imports(ENVS / game / f"{module}.py") & banned
        assert not bad, (
            f"envs/{game}/{module}.py imports {sorted(bad)}: the wiring is data -> rules -> encoder -> bot/render"
        )


def test_the_check_sees_function_local_imports(tmp_path):
    p = tmp_path / "rules.py"
    p.write_text("def f():\n    from .encoder import X\n    from . import bot\n    import boardzoo.envs.g.render\n")
    assert _sibling_imports(p) == {"encoder", "bot", "render"}
