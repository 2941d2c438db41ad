# Sourced by scripts/test.sh and scripts/demo.sh: make (or reuse) the project's virtualenv
# and install launchx into it. torch is pinned to the CPU wheel that is on this disk; a bare
# `pip install torch` would download a CUDA build of several GB.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LAUNCHX_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "==> creating virtualenv $VENV"
  "$PYTHON" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
if ! "$VENV/bin/python" -c 'import torch, numpy' 2>/dev/null; then
  echo "==> installing torch==2.13.0 (CPU)"
  "${PIP[@]}" install "torch==2.13.0" numpy
fi
echo "==> installing launchx${LAUNCHX_EXTRAS:+[$LAUNCHX_EXTRAS]}"
"${PIP[@]}" install -e "$ROOT${LAUNCHX_EXTRAS:+[$LAUNCHX_EXTRAS]}" 2>&1 \
  | grep -v "WARNING: Location" || true
"$VENV/bin/python" -c 'import launchx.cli' || { echo "launchx failed to install" >&2; exit 1; }
export PATH="$VENV/bin:$PATH"
