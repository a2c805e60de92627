"""Maps the top-level folders envs/, training/, integrations/, checkpoints/ and web/ onto boardzoo.envs,
boardzoo.training, boardzoo.integrations (framework integrations, each behind its own extra),
boardzoo.checkpoints (the shipped bots, as package data) and boardzoo.web (``boardzoo serve``, the
``web`` extra; its pages are package data).

Everything else lives in pyproject.toml; the package list and the package data are computed here,
because the subpackages of a mapped folder (every game, every shipped bot) cannot be listed
statically without repeating each of them.
"""

from setuptools import find_namespace_packages, setup

DATA = ["*.json", "*.md", "**/*.json", "*.html", "*.js", "*.css", "*.svg"]  # game data, RULES.md, web pages
BOT_FILES = ["card.json", "weights.safetensors", "policy.onnx"]  # a shipped bot's folder
BOT_EXCLUDE = ["eval_*"]  # evaluation records stay in the repository; the card keeps the figures

packages, package_dir = [], {}
package_data, exclude = {"": DATA}, {}  # "": every package
for folder, name in (
    ("envs", "boardzoo.envs"),
    ("training", "boardzoo.training"),
    ("integrations", "boardzoo.integrations"),
    ("checkpoints", "boardzoo.checkpoints"),
    ("web", "boardzoo.web"),
):
    package_dir[name] = folder
    packages.append(name)
    for sub in find_namespace_packages(folder, exclude=["*__pycache__*"]):  # data folders too
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"
        if name == "boardzoo.checkpoints":
            package_data[f"{name}.{sub}"] = BOT_FILES
            exclude[f"{name}.{sub}"] = BOT_EXCLUDE

setup(packages=packages, package_dir=package_dir, package_data=package_data, exclude_package_data=exclude)
