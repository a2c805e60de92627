"""Maps the top-level folders envs/ and training/ onto boardzoo.envs and boardzoo.training.

Everything else lives in pyproject.toml; only the package list is computed here, because the
subpackages of a mapped folder cannot be listed statically without repeating every game.
"""
from setuptools import find_namespace_packages, setup

packages, package_dir = [], {}
for folder, name in (("envs", "boardzoo.envs"), ("training", "boardzoo.training")):
    package_dir[name] = folder
    packages.append(name)
    for sub in find_namespace_packages(folder, exclude=["*__pycache__*"]):  # data folders too
        packages.append(f"{name}.{sub}")
        package_dir[f"{name}.{sub}"] = f"{folder}/{sub.replace('.', '/')}"

setup(packages=packages, package_dir=package_dir)
