#!/usr/bin/env bash
# Set up BoardZoo in ./.venv: CPU PyTorch first (so the torch>=2.3 range in pyproject is already
# met and no CUDA build is pulled), then the package in editable mode with every extra.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
if ! .venv/bin/python -c "import torch" >/dev/null 2>&1; then
  .venv/bin/python -m pip install -q "torch==2.13.0" 2>/dev/null \
    || .venv/bin/python -m pip install -q "torch>=2.3" --index-url https://download.pytorch.org/whl/cpu
fi
# The rllib extra (Ray RLlib: boardzoo.integrations.rllib and its tests) is heavy: about 700 MB and
# 3 minutes on a 2-core machine, and it pins gymnasium (ray[rllib] 2.60: gymnasium==1.2.2).
# BOARDZOO_RLLIB=0 bash scripts/setup.sh leaves it out; the RLlib tests are then skipped.
EXTRAS="dev"
[ "${BOARDZOO_RLLIB:-1}" = 0 ] || EXTRAS="dev,rllib"
if ! .venv/bin/python -m pip install -q -e ".[$EXTRAS]" > .venv/install.log 2>&1; then
  cat .venv/install.log; echo "setup: pip install failed (log above)"; exit 1
fi
# The browser test (tests/web/test_browser.py) drives Debian's chromium through Playwright (no browser
# download). BOARDZOO_BROWSER=0 bash scripts/setup.sh leaves it out; the browser test is then skipped,
# and only then: without chromium it fails, saying what to install.
if [ "${BOARDZOO_BROWSER:-1}" != 0 ] && ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo -n"
  if command -v apt-get >/dev/null 2>&1; then
    $SUDO apt-get install -y -q chromium >/dev/null 2>&1 \
      || { $SUDO apt-get update -q >/dev/null 2>&1 && $SUDO apt-get install -y -q chromium >/dev/null 2>&1; } \
      || echo "setup: could not install chromium (apt-get install -y chromium); the browser test will fail"
  else
    echo "setup: no apt-get to install chromium; install it, or set BOARDZOO_BROWSER=0 to skip the browser test"
  fi
fi
.venv/bin/python -c "import boardzoo.envs, torch; print('boardzoo ready:', ', '.join(boardzoo.envs.names()), '| torch', torch.__version__)"
