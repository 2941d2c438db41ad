#!/usr/bin/env bash
# The README's test command: make the venv, install launchx with its dev extras, then
# ruff, mypy and pytest. Extra arguments go to pytest (e.g. scripts/test.sh -k explain).
set -euo pipefail
LAUNCHX_EXTRAS=dev,frameworks
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
echo "==> ruff"
ruff check launchx tests examples benchmarks
echo "==> mypy --strict"
mypy launchx
echo "==> pytest"
python -m pytest -q --durations=15 "$@"
