#!/usr/bin/env python3
"""Start a new game from the template (envs/_template): ``python scripts/new_game.py harmonies HA``.

Writes ``envs/<name>/`` (the template's files with the names changed), ``envs/<name>_v0.py`` (the
per-id module), ``tests/<name>/test_rules.py`` (the template's rule tests, renamed) and adds the
``register`` line to ``envs/__init__.py``. Then follow docs/ADDING_A_GAME.md.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def substitute(text: str, name: str, prefix: str) -> str:
    text = text.replace("TemplateGame", f"{camel(name)}Game").replace("TemplateState", f"{camel(name)}State")
    text = text.replace("TemplateEncoder", f"{camel(name)}Encoder")
    text = text.replace("template_v0", f"{name}_v0").replace("template_heuristic", f"{name}_heuristic")
    text = text.replace("boardzoo.envs._template", f"boardzoo.envs.{name}")
    text = re.sub(r"(?<![A-Za-z])TT([-_])", prefix + r"\1", text)
    return text.replace("Template", camel(name).replace("_", " "))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("name", help="folder and env id stem, e.g. harmonies")
    ap.add_argument("prefix", help="the rule-ID prefix of its spec, e.g. HA")
    ap.add_argument("--root", default=str(ROOT), help="repository root (default: this checkout)")
    a = ap.parse_args(argv)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", a.name) or not re.fullmatch(r"[A-Z]{2}", a.prefix):
        ap.error("name: lower_case; prefix: two capital letters")
    root = Path(a.root)
    src, dst = ROOT / "envs" / "_template", root / "envs" / a.name
    if dst.exists():
        ap.error(f"{dst} exists")
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    for f in dst.rglob("*"):
        if f.is_file() and f.suffix in (".py", ".md", ".json"):
            f.write_text(substitute(f.read_text(), a.name, a.prefix))
    (root / "envs" / f"{a.name}_v0.py").write_text(
        f'"""``{a.name}_v0``: PettingZoo entry points (env, raw_env, parallel_env); see boardzoo.envs.{a.name}."""\n\n'
        f"from boardzoo.envs.core.registry import module_api\n\n"
        f'env, raw_env, parallel_env = module_api("{a.name}_v0")\n'
    )
    tests = root / "tests" / a.name
    tests.mkdir(parents=True, exist_ok=True)
    body = (ROOT / "tests" / "template" / "test_template_rules.py").read_text()
    (tests / "test_rules.py").write_text(substitute(body, a.name, a.prefix))
    init = root / "envs" / "__init__.py"
    text = init.read_text()
    line = f'register("{a.name}_v0", "boardzoo.envs.{a.name}:SPEC")\n'
    if line not in text:
        anchor = text.rfind("register(")
        end = text.index("\n", anchor) + 1
        init.write_text(text[:end] + line + text[end:])
    print(
        f"created {dst}, envs/{a.name}_v0.py, {tests}/test_rules.py and the register line; next: docs/ADDING_A_GAME.md"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
