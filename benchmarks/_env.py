"""The environment a benchmark starts its launchers in, shared by the benchmark scripts."""

from __future__ import annotations

import os

# A launcher's variables inherited from the shell would make launchx (rightly) refuse to
# nest, or make torchrun join someone else's world.
_DROP_PREFIXES = ("LAUNCHX_", "TORCHELASTIC_", "SLURM_", "PET_", "OMPI_", "PMI_")
_DROP = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")


def clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment without any launcher's variables, plus ``extra``."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(_DROP_PREFIXES) and k not in _DROP
    }
    env.update(extra)
    return env
