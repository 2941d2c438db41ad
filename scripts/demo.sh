#!/usr/bin/env bash
# The README's first command: a real 2-rank training run on this machine's CPU (the
# embedded `local` profile, gloo), that takes a transient fault on its first attempt.
# launchx names the fault, waits, resumes from the last complete checkpoint and finishes.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
cd "$ROOT"
work="$(mktemp -d "${TMPDIR:-/tmp}/launchx-demo.XXXXXX")"
ckpt="$work/checkpoints"

echo
echo "==> launchx explain: what the job will get, and where each value comes from"
launchx explain -p local

echo
echo "==> launchx run: 2 ranks, 300 steps, a checkpoint every 50; rank 1 stalls at step 120"
echo "    on the first attempt, so rank 0's collective times out (a transient fault)"
set +e
launchx run -p local --checkpoint-dir "$ckpt" --log-dir "$work/logs" \
  --set timeouts.pg_timeout_s=5 \
  examples/train_toy.py --steps 300 --ckpt-every 50 --checkpoint-dir "$ckpt" \
  --stall-at-step 120 --stall-rank 1 --output "$work/final.pt"
code=$?
set -e
echo
if [[ $code -eq 0 && -f "$work/final.pt" ]]; then
  echo "==> demo finished: trained weights in $work/final.pt; logs of each attempt in $work/logs"
else
  echo "==> demo failed with exit code $code (logs in $work/logs)" >&2
  exit "$code"
fi
