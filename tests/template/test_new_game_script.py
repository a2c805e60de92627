"""scripts/new_game.py writes a renamed copy of the template (checked in a scratch root)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("new_game", ROOT / "scripts" / "new_game.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_new_game_script_copies_and_renames(tmp_path):
    (tmp_path / "envs").mkdir()
    shutil.copy(ROOT / "envs" / "__init__.py", tmp_path / "envs" / "__init__.py")
    assert _script().main(["orchard", "OR", "--root", str(tmp_path)]) == 0
    game = tmp_path / "envs" / "orchard"
    names = {p.relative_to(game).as_posix() for p in game.rglob("*") if p.is_file()}
    for want in (
        "__init__.py",
        "rules.py",
        "encoder.py",
        "bot.py",
        "render.py",
        "data.py",
        "RULES.md",
        "data/components.json",
        "data/decks/standard.json",
    ):
        assert want in names
    rules = (game / "rules.py").read_text()
    assert "class OrchardGame(Game)" in rules and 'env_id: ClassVar[str] = "orchard_v0"' in rules
    assert "Template" not in rules and "TT-R" not in rules and "OR-R2" in rules
    init = (tmp_path / "envs" / "__init__.py").read_text()
    assert 'register("orchard_v0", "boardzoo.envs.orchard:SPEC")' in init
    assert 'module_api("orchard_v0")' in (tmp_path / "envs" / "orchard_v0.py").read_text()
    tests = (tmp_path / "tests" / "orchard" / "test_rules.py").read_text()
    assert "def test_OR_R1_" in tests and "from boardzoo.envs.orchard import OrchardGame" in tests
