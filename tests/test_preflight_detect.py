"""The facts preflight added to detection: driver, CUDA and NCCL versions, the locked-memory
limit and interface speeds, from recorded trees and from files on a fake sys.path."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import HOSTS

from launchx import detect
from launchx.facts import MEMLOCK_UNLIMITED


def tree(tmp_path: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path)


def test_recorded_h800_host() -> None:
    facts = detect.gather({}, root=str(HOSTS / "ib-h800-8gpu"))
    assert facts.driver_version == "535.104.05"
    assert facts.memlock_bytes == 8 * 2**20 and not facts.memlock_unlimited
    assert facts.link_speeds == {}  # no speed files recorded: unknown, not zero


@pytest.mark.parametrize(
    ("files", "driver"),
    [
        ({"sys/module/nvidia/version": "550.54.15\n"}, "550.54.15"),
        (
            {
                "proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX Open Kernel Module for "
                "x86_64  535.104.05  Release Build  (dvs-builder@U16-T02)  Sat Aug 19\n"
            },
            "535.104.05",
        ),
        (
            {
                "proc/driver/nvidia/version": "NVRM version: NVIDIA UNIX aarch64 Kernel Module  "
                "560.35.03  Fri Aug 16 21:21:48 UTC 2024\n"
            },
            "560.35.03",
        ),
        ({"proc/driver/nvidia/version": "NVRM version: development build\n"}, None),
        ({}, None),
    ],
)
def test_driver_version(tmp_path: Path, files: dict[str, str], driver: str | None) -> None:
    assert detect.gather({}, root=tree(tmp_path, files)).driver_version == driver


HEADER = "Limit                     Soft Limit           Hard Limit           Units     \n"


@pytest.mark.parametrize(
    ("row", "value"),
    [
        ("Max locked memory         unlimited            unlimited            bytes\n", -1),
        ("Max locked memory         65536                unlimited            bytes\n", 65536),
        ("Max file locks            unlimited            unlimited            locks\n", None),
    ],
)
def test_memlock_soft_limit(tmp_path: Path, row: str, value: int | None) -> None:
    root = tree(tmp_path, {"proc/self/limits": HEADER + row})
    assert detect.gather({}, root=root).memlock_bytes == value
    assert MEMLOCK_UNLIMITED == -1


def test_link_speeds_skip_unknown_and_failing_reads(tmp_path: Path) -> None:
    files = {}
    for name, speed in (("eth0", "25000"), ("eth1", "-1"), ("eth2", "100000")):
        files[f"sys/class/net/{name}/speed"] = speed + "\n"
        files[f"sys/class/net/{name}/flags"] = "0x1003\n"
        files[f"sys/class/net/{name}/operstate"] = "up\n"
    files["_errors.json"] = '{"sys/class/net/eth2/speed": "EINVAL"}'
    assert detect.gather({}, root=tree(tmp_path, files)).link_speeds == {"eth0": 25000}


def test_recorded_packages_replace_the_interpreters(tmp_path: Path) -> None:
    root = tree(tmp_path, {"packages.json": '{"torch": "2.3.1", "cuda": null}'})
    facts = detect.gather({}, root=root)
    assert facts.torch_version == "2.3.1" and facts.cuda_runtime is None
    assert facts.nccl_version == detect._packages()[2]  # a key not recorded stays live


def test_versions_are_read_from_files_on_sys_path(tmp_path: Path) -> None:
    site = tmp_path / "site"
    tree(
        site,
        {
            "torch-2.5.1+cu124.dist-info/METADATA": "Metadata-Version: 2.1\nName: torch\n"
            "Version: 2.5.1+cu124\n\nlong description\n",
            "torch/version.py": "from typing import Optional\n__version__ = '2.5.1+cu124'\n"
            "cuda: Optional[str] = '12.4'\nhip = None\n",
            "nvidia_nccl_cu12-2.21.5.dist-info/METADATA": "Name: nvidia-nccl-cu12\n",
        },
    )
    search = [str(tmp_path / "missing"), str(site)]
    assert detect._packages(search) == ("2.5.1+cu124", "12.4", "2.21.5")


def test_a_cpu_build_has_no_cuda_and_no_nccl_wheel(tmp_path: Path) -> None:
    site = tmp_path / "site"
    tree(
        site,
        {
            "torch-2.13.0+cpu.dist-info/METADATA": "Version: 2.13.0+cpu\n",
            "torch/version.py": "cuda: Optional[str] = None\n",
        },
    )
    assert detect._packages([str(site)]) == ("2.13.0+cpu", None, None)


def test_lookup_hosts_uses_the_recorded_answers() -> None:
    found = detect.lookup_hosts(["thinkpad", "nowhere", "10.1.2.3"], root=str(HOSTS / "cpu-laptop"))
    assert found == {"thinkpad": "127.0.1.1", "10.1.2.3": "10.1.2.3"}
