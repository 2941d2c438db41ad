# Sourced by scripts/test.sh and scripts/demo.sh: make (or reuse) the project's virtualenv
# and install launchx into it. torch is pinned to the CPU wheel that is on this disk; a bare
# `pip install torch` (or a range that admits a newer release) would download a CUDA build
# of several GB.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LAUNCHX_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
if ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  echo "==> creating virtualenv $VENV"
  rm -rf "$VENV"  # a half-made venv (no pip) from an earlier failure
  if ! "$PYTHON" -m venv "$VENV"; then
    # Debian's own python3 ships venv separately; install it when we are allowed to.
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv >/dev/null
      rm -rf "$VENV"
      "$PYTHON" -m venv "$VENV"
    else
      echo "cannot create a virtualenv: install python3-venv" >&2
      exit 1
    fi
  fi
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
if ! "$VENV/bin/python" -c 'import torch, numpy' 2>/dev/null; then
  echo "==> installing torch==2.13.0 (CPU) and numpy"
  "${PIP[@]}" install "torch==2.13.0" numpy
fi
echo "==> installing launchx${LAUNCHX_EXTRAS:+[$LAUNCHX_EXTRAS]}"
"${PIP[@]}" install -e "$ROOT${LAUNCHX_EXTRAS:+[$LAUNCHX_EXTRAS]}"
"$VENV/bin/python" -c 'import launchx.cli' || { echo "launchx failed to install" >&2; exit 1; }
export PATH="$VENV/bin:$PATH"
