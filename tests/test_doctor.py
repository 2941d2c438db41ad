"""`launchx doctor`: every node check, on constructed facts and recorded hosts."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import HOSTS, clean_env, run_cli

from launchx import doctor, pipeline
from launchx.facts import HostFacts, IbPort, Interface, PortHolder, SlurmFacts
from launchx.resolve import Resolution


def codes(facts: HostFacts) -> set[str]:
    return {f.code for f in doctor.host_checks(facts)}


GOOD = HostFacts(
    torch_version="2.13.0",
    shm_bytes=16 * doctor.GIB,
    interfaces=(
        Interface("eth0", True, ("10.0.0.2",)),
        Interface("lo", True, ("127.0.0.1",), "loopback"),
    ),
)


def port(state: str, phys: str = "LinkUp", dev: str = "mlx5_0") -> IbPort:
    return IbPort(dev, 1, state, phys, "InfiniBand")


def test_a_healthy_node_has_no_findings() -> None:
    assert codes(GOOD) == set()


def test_lx220_no_torch() -> None:
    assert "LX220" in codes(HostFacts(torch_version=None))


def test_lx221_small_shm_but_not_at_the_limit() -> None:
    from dataclasses import replace

    assert "LX221" in codes(replace(GOOD, shm_bytes=64 * 2**20))
    assert "LX221" not in codes(replace(GOOD, shm_bytes=doctor.MIN_SHM_BYTES))


def test_lx222_no_active_rdma_port_and_lx223_some_inactive() -> None:
    from dataclasses import replace

    assert "LX222" in codes(replace(GOOD, ib_ports=(port("DOWN", "Disabled"),)))
    mixed = replace(GOOD, ib_ports=(port("ACTIVE"), port("DOWN", "Polling", "mlx5_1")))
    assert codes(mixed) == {"LX223"}


def test_lx224_only_loopback() -> None:
    from dataclasses import replace

    only_lo = replace(
        GOOD,
        interfaces=(
            Interface("lo", True, ("127.0.0.1",), "loopback"),
            Interface("eth0", False, ()),
        ),
    )
    assert "LX224" in codes(only_lo)


def test_lx225_torchrun_default_port_held_names_pid() -> None:
    from dataclasses import replace

    held = replace(GOOD, listening={29500: PortHolder(29500, 77, "python old.py")})
    found = [f for f in doctor.host_checks(held) if f.code == "LX225"]
    assert found and "pid 77" in found[0].message and "kill 77" in found[0].fix
    # a run that names its own port is not told to pass --master-port
    assert not [f for f in doctor.host_checks(held, port_given=True) if f.code == "LX225"]


def test_lx226_duplicate_gpu() -> None:
    from dataclasses import replace

    assert "LX226" in codes(replace(GOOD, gpu_visible=("0", "0")))
    assert "LX226" not in codes(replace(GOOD, gpu_visible=("0", "1")))


def test_doctor_cli_on_recorded_hosts() -> None:
    code, out, err = run_cli(["doctor"], clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / "cpu-laptop")))
    assert code == 0, err
    assert "usable CPUs" in out and "profile local" in out
    code, out, _ = run_cli(
        ["doctor", "-p", "single-node"],
        clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / "docker-small-shm")),
    )
    assert "LX221" in out
    code, out, _ = run_cli(
        ["doctor", "-p", "ib-h800"], clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / "ib-ports-not-active"))
    )
    assert "LX223" in out and "mlx5_1:1=DOWN" in out and code == 0


def test_doctor_json_on_one_node_uses_the_preflight_schema() -> None:
    import json

    code, out, err = run_cli(
        ["doctor", "--json"], clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / "docker-small-shm"))
    )
    data = json.loads(out)
    assert data["schema"] == "launchx-preflight/1" and data["nodes"]["joined"] == [0]
    assert data["comm"] is None and data["comm_note"] == "single node: nothing to compare"
    # One node: its own checks, with the levels and exit code of the text output.
    codes = {f["code"] for f in data["findings"]}
    assert "LX221" in codes and "LX242" not in codes
    text_code, text, _ = run_cli(
        ["doctor"], clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / "docker-small-shm"))
    )
    assert code == data["exit_code"] == text_code, err
    assert {c for c in codes if c in text} == codes

    # the process count a job runs with (run's --nproc-per-node) is doctor's too
    _, out, _ = run_cli(
        ["doctor", "--json", "--nproc-per-node", "3", "--no-comm"],
        clean_env(LAUNCHX_HOST_ROOT=str(HOSTS / "docker-small-shm")),
    )
    facts = {f["what"]: f["groups"][0]["value"] for f in json.loads(out)["facts"]}
    assert facts["processes/node"] == "3"


# --------------------------------------------------------------------------- the command


def _res(facts: HostFacts, **flags: str) -> Resolution:
    return pipeline.resolve_request(pipeline.Request(profile="local", flags=flags), facts=facts)


def test_lx225_only_where_the_port_is_left_to_launch() -> None:
    """29500 held: a run that leaves its port to launch (auto) is told; one whose port is
    decided before it (--master-port, or derived from a SLURM job id) is not."""
    held = replace(GOOD, listening={29500: PortHolder(29500, 77, "python old.py")})

    def lx225(res: Resolution) -> bool:
        return "LX225" in {f.code for f in doctor.assess(res)[1]}

    assert lx225(_res(held))
    assert not lx225(_res(held, master_port="31000"))
    slurm = replace(held, slurm=SlurmFacts(job_id="4242", nodelist=("n1",), nnodes=1))
    derived = _res(slurm)
    assert derived.launch["master_port"].value != "auto" and not lx225(derived)


def test_one_node_report_lists_facts_launcher_and_findings() -> None:
    text, code = doctor.report(_res(GOOD))
    rows = doctor.fact_rows(GOOD)
    lines = text.splitlines()
    assert [line.split("  ")[0].strip() for line in lines[: len(rows)]] == [r.what for r in rows]
    assert all(line.endswith(f"  {r.value}") for line, r in zip(lines, rows, strict=False))
    assert lines[len(rows)] == "" and lines[len(rows) + 1].startswith("profile local: launcher ")
    assert text.endswith("no problems found\n")
    assert code == 0
    text, code = doctor.report(_res(replace(GOOD, torch_version=None)))
    assert "LX220" in text and code == 2


def test_check_on_one_node_prints_the_report_through_echo() -> None:
    printed: list[str] = []
    res = _res(GOOD)
    assert doctor.check(res, echo=printed.append) == 0
    assert printed == [doctor.report(res)[0]]


def test_check_as_json_is_the_preflight_report(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    printed: list[str] = []
    code = doctor.check(_res(replace(GOOD, torch_version=None)), echo=printed.append, as_json=True)
    data = json.loads(capsys.readouterr().out)
    assert printed == [] and data["schema"] == "launchx-preflight/1"
    assert code == data["exit_code"] == 2 and "LX220" in {f["code"] for f in data["findings"]}
