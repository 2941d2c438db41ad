"""Resolution, in-process: the five layers, the history they leave, and ``auto`` values.

Layers, lowest first: launchx defaults < profile chain (base first) < the user's environment
< ``--set`` < explicit CLI flags. One test per adjacent pair, for environment variables and
for launch settings. ``auto`` values are filled from the recorded host trees in
``tests/hosts`` and the expected answers are read from those trees by the tests themselves.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from conftest import HOSTS

from launchx import detect, profiles
from launchx.errors import ConfigError, LaunchxError, ProfileNotFound
from launchx.facts import HostFacts, Interface, LaunchContext, Route
from launchx.pipeline import Request, resolve_request
from launchx.resolve import Overrides, Resolution, Setting, parse_sets, resolve

FLAG_NAMES = {
    "nnodes": "--nnodes",
    "nproc_per_node": "--nproc-per-node",
    "node_rank": "--node-rank",
    "master_addr": "--master-addr",
    "master_port": "--master-port",
    "launcher": "--launcher",
    "retry.max_retries": "--max-retries",
    "timeouts.pg_timeout_s": "--pg-timeout",
}


def shown(setting: Setting) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """A setting as explain prints it: value, origin, and the values it replaced."""
    history = tuple((value, str(origin)) for value, origin in setting.overrides)
    return setting.value, str(setting.source), history


def expected(
    value: str, source: str, overrides: tuple[tuple[str, str], ...] = ()
) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    return value, source, overrides


def tree_env(tree: str) -> dict[str, str]:
    return dict(json.loads((HOSTS / tree / "env.json").read_text()))


def tree_facts(tree: str, environ: Mapping[str, str] | None = None) -> HostFacts:
    env = tree_env(tree) if environ is None else dict(environ)
    hosts = [h for h in (env.get("MASTER_ADDR"), env.get("PET_MASTER_ADDR")) if h]
    return detect.gather(env, root=str(HOSTS / tree), lookup_hosts=hosts)


def plain_facts(environ: Mapping[str, str] | None = None, **kw: object) -> HostFacts:
    env = dict(environ or {})
    return HostFacts(
        environ=env,
        cpu_count=int(str(kw.pop("cpu_count", 4))),
        launch=detect.classify_launch(env),
        slurm=detect.parse_slurm(env),
        **kw,  # type: ignore[arg-type]
    )


def run(
    ref: str,
    facts: HostFacts,
    sets: tuple[str, ...] = (),
    flags: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    show_all: bool = False,
) -> Resolution:
    loaded = profiles.load(ref, facts.environ, cwd or Path.cwd())
    over = Overrides(sets=sets, flags=dict(flags or {}), flag_names=FLAG_NAMES)
    return resolve(loaded, facts, over, show_all=show_all)


def write_profile(directory: Path, name: str, text: str) -> str:
    (directory / name).write_text(text)
    return f"./{name}"


# --- environment variables: one test per adjacent pair of layers ---------------------------


def test_env_default_below_profile(in_tmp: Path) -> None:
    """LAUNCHX_PG_TIMEOUT_S comes from launchx's default unless a profile says otherwise."""
    bare = write_profile(in_tmp, "bare.yaml", "name: bare\nnproc_per_node: 1\n")
    low = run(bare, plain_facts())
    assert str(low.env["LAUNCHX_PG_TIMEOUT_S"].source) == "default"
    default = low.env["LAUNCHX_PG_TIMEOUT_S"].value
    mine = write_profile(
        in_tmp, "mine.yaml", "name: mine\nnproc_per_node: 1\ntimeouts:\n  pg_timeout_s: 77\n"
    )
    high = run(mine, plain_facts())
    assert shown(high.env["LAUNCHX_PG_TIMEOUT_S"]) == expected(
        "77", f"profile:{mine}", ((default, "default"),)
    )
    assert default != "77"


def test_env_profile_base_below_derived(in_tmp: Path) -> None:
    mine = write_profile(
        in_tmp, "mine.yaml", "name: mine\nextends: ib-h800\nenv:\n  NCCL_IB_TIMEOUT: '20'\n"
    )
    base = run("ib-h800", plain_facts())
    assert str(base.env["NCCL_IB_TIMEOUT"].source) == "profile:ib-h800"
    res = run(mine, plain_facts())
    setting = res.env["NCCL_IB_TIMEOUT"]
    assert (setting.value, str(setting.source)) == ("20", f"profile:{mine}")
    assert shown(setting)[2] == ((base.env["NCCL_IB_TIMEOUT"].value, "profile:ib-h800"),)
    # The whole chain is named, base first.
    assert tuple(map(str, res.chain)) == (
        "profile:single-node",
        "profile:ib-h800",
        f"profile:{mine}",
    )


def test_env_profile_below_environment() -> None:
    res = run("single-node", plain_facts({"NCCL_DEBUG": "INFO"}, gpu_count=2))
    assert shown(res.env["NCCL_DEBUG"]) == expected(
        "INFO", "env", (("WARN", "profile:single-node"),)
    )


def test_an_empty_environment_variable_hiding_the_profile_is_named() -> None:
    """``export NCCL_SOCKET_IFNAME=$IFACE`` with IFACE unset: the empty value outranks the
    profile's auto pick and NCCL reads it as unset (LX310); an empty variable the profile
    does not set, or one that --set replaces, hides nothing."""
    res = run(
        "ethernet",
        plain_facts({"NCCL_SOCKET_IFNAME": "", "NCCL_DEBUG": "", "NCCL_FOO_UNSET": ""}),
        sets=("NCCL_DEBUG=INFO",),
    )
    (lx310,) = [f for f in res.findings if f.code == "LX310"]
    assert lx310.level == "warning" and lx310.var == "NCCL_SOCKET_IFNAME"
    assert "hides the profile's NCCL_SOCKET_IFNAME=auto (profile:ethernet, which launchx" in (
        lx310.message
    )
    assert lx310.fix.startswith("unset NCCL_SOCKET_IFNAME")
    assert res.env["NCCL_SOCKET_IFNAME"].value == ""


def test_a_catalog_name_in_the_wrong_case_is_shown_and_named() -> None:
    """``nccl_debug=INFO`` is read by nothing; explain used to hide it (it shows only the
    distributed names unless --all), so the one mistake it can name went unsaid."""
    environ = {"nccl_debug": "INFO", "home_dir": "/x", "nccl_algo": "ring", "nccl_buffsize": "8M"}
    res = run("ethernet", plain_facts(environ))
    assert "nccl_debug" in res.env and "home_dir" not in res.env
    lx106 = {f.var: f for f in res.findings if f.code == "LX106"}
    assert set(lx106) == {"nccl_debug", "nccl_algo", "nccl_buffsize"}
    assert lx106["nccl_algo"].fix == "NCCL_ALGO=ring"
    # the profile sets NCCL_DEBUG: that is what NCCL sees, so this one is only noise
    assert "sees NCCL_DEBUG=WARN and never this one" in lx106["nccl_debug"].message
    assert lx106["nccl_debug"].fix == "unset nccl_debug"
    # renamed as it stands, the value would be wrong too: the fix is the value's
    assert "it would be wrong: sizes are plain byte counts" in lx106["nccl_buffsize"].message
    assert lx106["nccl_buffsize"].fix == "NCCL_BUFFSIZE=8388608"
    # only an error folds in: advice on the value (INFO is for debugging) keeps the rename;
    # an upper-case name that is itself a myth or renamed says so, and the fix is its fix
    environ = {"nccl_debug": "info", "nccl_timeout": "1800", "nccl_async_error_handling": "1"}
    lx106 = {f.var: f for f in run("local", plain_facts(environ)).findings if f.code == "LX106"}
    assert lx106["nccl_debug"].fix == "NCCL_DEBUG=info"
    assert "and NCCL_TIMEOUT=1800: has no effect" in lx106["nccl_timeout"].message
    assert lx106["nccl_timeout"].fix.startswith("unset nccl_timeout; use ")
    assert lx106["nccl_async_error_handling"].fix == (
        "TORCH_NCCL_ASYNC_ERROR_HANDLING=1 (and unset nccl_async_error_handling)"
    )


def test_env_environment_below_set() -> None:
    res = run(
        "single-node",
        plain_facts({"NCCL_DEBUG": "INFO"}, gpu_count=2),
        sets=("NCCL_DEBUG=WARN",),
    )
    setting = res.env["NCCL_DEBUG"]
    assert (setting.value, str(setting.source)) == ("WARN", "--set")
    assert shown(setting)[2] == (("WARN", "profile:single-node"), ("INFO", "env"))


def test_setting_set_below_flag() -> None:
    """No flag names an environment variable, so the last pair is proved on the profile
    fields a flag shares with --set (retry.max_retries is --max-retries on `launchx run`);
    LAUNCHX_PG_TIMEOUT_S is derived the same way from timeouts.pg_timeout_s."""
    res = run(
        "local",
        plain_facts(),
        sets=("retry.max_retries=5", "timeouts.pg_timeout_s=60"),
        flags={"retry.max_retries": "7", "timeouts.pg_timeout_s": "90"},
    )
    assert shown(res.settings["retry.max_retries"]) == expected(
        "7", "flag:--max-retries", (("3", "profile:local"), ("5", "--set"))
    )
    assert res.env["LAUNCHX_PG_TIMEOUT_S"].value == "90"
    assert str(res.env["LAUNCHX_PG_TIMEOUT_S"].source) == "flag:--pg-timeout"
    only_set = run("local", plain_facts(), sets=("retry.max_retries=5",))
    assert shown(only_set.settings["retry.max_retries"]) == expected(
        "5", "--set", (("3", "profile:local"),)
    )


def test_setting_default_below_profile() -> None:
    """platform-ddp turns launchx's default retry budget off; local keeps the default."""
    assert shown(run("platform-ddp", plain_facts()).settings["retry.max_retries"]) == expected(
        "0", "profile:platform-ddp", (("3", "default"),)
    )
    bare_default = run("local", plain_facts()).settings["timeouts.rdzv_timeout_s"]
    assert str(bare_default.source) == "default"


def test_pg_timeout_set_keeps_profile_value_in_history() -> None:
    res = run("local", plain_facts(), sets=("timeouts.pg_timeout_s=60",))
    assert shown(res.env["LAUNCHX_PG_TIMEOUT_S"])[2] == (
        ("1800", "default"),
        ("300", "profile:local"),
    )


def test_set_creates_variable_the_profile_lacks() -> None:
    res = run("local", plain_facts(), sets=("NCCL_DEBUG_SUBSYS=INIT,NET",))
    assert shown(res.env["NCCL_DEBUG_SUBSYS"]) == expected("INIT,NET", "--set")


# --- launch settings: one test per adjacent pair -------------------------------------------


def test_launch_default_below_profile() -> None:
    res = run("local", plain_facts())
    setting = res.launch["nproc_per_node"]
    assert (setting.value, str(setting.source)) == ("2", "profile:local")
    assert shown(setting)[2] == (("auto", "default"),)


def test_launch_profile_base_below_derived(in_tmp: Path) -> None:
    mine = write_profile(in_tmp, "mine.yaml", "name: mine\nextends: local\nmaster_port: 20123\n")
    res = run(mine, plain_facts())
    setting = res.launch["master_port"]
    assert (setting.value, str(setting.source)) == ("20123", f"profile:{mine}")
    assert str(run("local", plain_facts()).launch["master_port"].source) == "profile:local"


def test_launch_derived_profile_keeps_base_value_in_history(in_tmp: Path) -> None:
    mine = write_profile(in_tmp, "mine.yaml", "name: mine\nextends: local\nmaster_port: 20123\n")
    res = run(mine, plain_facts())
    assert ("auto", "profile:local") in shown(res.launch["master_port"])[2]


def test_launch_profile_below_environment() -> None:
    res = run("local", plain_facts({"MASTER_PORT": "20001"}))
    assert shown(res.launch["master_port"]) == expected(
        "20001", "env:MASTER_PORT", (("auto", "profile:local"),)
    )


def test_launch_pet_variable_beats_plain_one() -> None:
    """torchrun reads PET_MASTER_PORT itself, so it is the user's intent over MASTER_PORT."""
    res = run("local", plain_facts({"MASTER_PORT": "20001", "PET_MASTER_PORT": "20002"}))
    setting = res.launch["master_port"]
    assert (setting.value, str(setting.source)) == ("20002", "env:PET_MASTER_PORT")
    assert shown(setting)[2][-1] == ("20001", "env:MASTER_PORT")


def test_launch_environment_below_set() -> None:
    res = run("local", plain_facts({"MASTER_PORT": "20001"}), sets=("master_port=20002",))
    setting = res.launch["master_port"]
    assert (setting.value, str(setting.source)) == ("20002", "--set")
    assert shown(setting)[2][-1] == ("20001", "env:MASTER_PORT")


def test_launch_set_below_flag() -> None:
    res = run(
        "ethernet",
        plain_facts({"PET_NNODES": "3"}),
        sets=("nnodes=4",),
        flags={"nnodes": "5", "master_addr": "10.0.0.1"},
    )
    setting = res.launch["nnodes"]
    assert (setting.value, str(setting.source)) == ("5", "flag:--nnodes")
    assert shown(setting)[2][-2:] == (("3", "env:PET_NNODES"), ("4", "--set"))
    assert str(res.launch["master_addr"].source) == "flag:--master-addr"


def test_launch_history_keeps_the_profile_files_value() -> None:
    """The profile layer's history is what the file said, not the flag that replaced it."""
    res = run("ethernet", plain_facts(), flags={"nnodes": "5", "master_addr": "10.0.0.1"})
    assert ("auto", "profile:ethernet") in shown(res.launch["nnodes"])[2]
    assert ("5", "profile:ethernet") not in shown(res.launch["nnodes"])[2]


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"MASTER_PORT": "http"}, "env:MASTER_PORT"),
        ({"PET_NNODES": "1:4"}, "elastic"),
        ({"MASTER_PORT": "70000"}, "master-port"),
    ],
)
def test_bad_launch_value_from_environment_is_a_config_error(
    environ: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as err:
        run("local", plain_facts(environ))
    assert message in err.value.message
    assert err.value.hint


# --- auto values from recorded hosts --------------------------------------------------------


def _ports_in_tree(tree: str, link_layer: str) -> list[str]:
    """ACTIVE ports of the tree's RDMA devices with this link layer, read from the files."""
    found = []
    base = HOSTS / tree / "sys/class/infiniband"
    for device in sorted(base.iterdir(), key=lambda p: (len(p.name), p.name)):
        for port in sorted((device / "ports").iterdir()):
            state = (port / "state").read_text()
            layer = (port / "link_layer").read_text().strip()
            if "ACTIVE" in state and layer == link_layer:
                found.append(f"{device.name}:{port.name}")
    return found


@pytest.mark.parametrize(
    ("profile", "tree", "layer"),
    [("ib-h800", "ib-h800-8gpu", "InfiniBand"), ("roce", "roce-node", "Ethernet")],
)
def test_auto_ib_hca_from_tree(profile: str, tree: str, layer: str) -> None:
    expected = _ports_in_tree(tree, layer)
    assert expected, "the recorded tree has ports of this layer"
    res = run(profile, tree_facts(tree))
    setting = res.env["NCCL_IB_HCA"]
    assert setting.value == "=" + ",".join(expected)  # exact names: no prefix matching
    assert str(setting.source) == "auto:/sys/class/infiniband"
    assert shown(setting)[2][-1] == (
        f"auto:{'roce' if layer == 'Ethernet' else 'infiniband'}",
        f"profile:{profile}",
    )


def test_ib_h800_leaves_out_the_roce_bond() -> None:
    """The IB node also has an Ethernet-link-layer bond device: mixing layers breaks NCCL."""
    others = _ports_in_tree("ib-h800-8gpu", "Ethernet")
    assert others
    value = run("ib-h800", tree_facts("ib-h800-8gpu")).env["NCCL_IB_HCA"].value
    assert not any(port in value.split("=", 1)[1].split(",") for port in others)


def test_auto_ib_hca_without_fabric_is_a_warning_and_unset() -> None:
    res = run("ib-h800", tree_facts("roce-node"))  # only RoCE ports: no InfiniBand layer
    assert "NCCL_IB_HCA" not in res.env
    [finding] = [f for f in res.findings if f.var == "NCCL_IB_HCA" and f.code == "LX303"]
    assert finding.level == "warning"


def _route_iface(tree: str, ip: str) -> str:
    """Longest-prefix match over the tree's /proc/net/route, computed independently."""
    best: tuple[int, str] | None = None
    for line in (HOSTS / tree / "proc/net/route").read_text().splitlines()[1:]:
        cols = line.split()
        dest = ipaddress.IPv4Address(bytes.fromhex(cols[1])[::-1])
        mask = ipaddress.IPv4Address(bytes.fromhex(cols[7])[::-1])
        net = ipaddress.IPv4Network(f"{dest}/{mask}")
        usable = not cols[0].startswith(("lo", "docker"))
        if (
            usable
            and ipaddress.IPv4Address(ip) in net
            and (best is None or net.prefixlen > best[0])
        ):
            best = (net.prefixlen, cols[0])
    assert best is not None
    return best[1]


@pytest.mark.parametrize(
    ("profile", "tree"),
    [("ib-h800", "ib-h800-8gpu"), ("ethernet", "ethernet-vm"), ("roce", "roce-node")],
)
def test_auto_socket_ifname_routes_to_master(profile: str, tree: str) -> None:
    facts = tree_facts(tree)
    master = tree_env(tree)["MASTER_ADDR"]
    ip = facts.host_ips.get(master, master)
    res = run(profile, facts)
    assert res.launch["master_addr"].value == master
    setting = res.env["NCCL_SOCKET_IFNAME"]
    assert setting.value == "=" + _route_iface(tree, ip)
    assert setting.value not in ("=lo", "=docker0")
    assert str(setting.source).startswith("auto:")


def _facts_with_routes(routes: tuple[Route, ...], ifaces: tuple[str, ...]) -> HostFacts:
    interfaces = tuple(Interface(n, True, (), "loopback" if n == "lo" else "ether") for n in ifaces)
    return plain_facts(routes=routes, interfaces=interfaces)


def test_socket_ifname_avoids_docker_when_a_real_route_exists() -> None:
    routes = (
        Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0"),
        Route("eth0", "0.0.0.0", "0.0.0.0", "10.0.0.1"),
    )
    facts = _facts_with_routes(routes, ("lo", "eth0", "docker0"))
    res = run("ethernet", facts, flags={"master_addr": "172.17.0.9", "nnodes": "2"})
    assert res.env["NCCL_SOCKET_IFNAME"].value == "=eth0"


def test_socket_ifname_falls_back_to_docker_when_nothing_else_routes() -> None:
    routes = (Route("docker0", "172.17.0.0", "255.255.0.0", "0.0.0.0"),)
    facts = _facts_with_routes(routes, ("lo", "docker0"))
    res = run("ethernet", facts, flags={"master_addr": "172.17.0.9", "nnodes": "2"})
    assert res.env["NCCL_SOCKET_IFNAME"].value == "=docker0"


def test_auto_nproc_counts_gpus_in_tree() -> None:
    gpus = len(list((HOSTS / "ib-h800-8gpu/proc/driver/nvidia/gpus").iterdir()))
    res = run("ib-h800", tree_facts("ib-h800-8gpu"))
    assert res.launch["nproc_per_node"].value == str(gpus)
    assert shown(res.launch["nproc_per_node"])[2][-1] == ("gpu", "profile:single-node")


def test_auto_nproc_honours_cuda_visible_devices() -> None:
    env = {**tree_env("ib-h800-8gpu"), "CUDA_VISIBLE_DEVICES": "2,5,7"}
    res = run("single-node", tree_facts("ib-h800-8gpu", env))
    setting = res.launch["nproc_per_node"]
    assert (setting.value, str(setting.source)) == ("3", "auto:CUDA_VISIBLE_DEVICES")


def test_auto_nproc_gpu_without_gpus_is_an_error_finding() -> None:
    res = run("single-node", plain_facts(gpu_count=0))
    assert any(f.code == "LX304" and f.level == "error" for f in res.findings)


@pytest.mark.parametrize(("cpus", "flag"), [(16, None), (16, "3"), (2, "8")])
def test_auto_omp_threads_share_cores(cpus: int, flag: str | None) -> None:
    flags = {"nproc_per_node": flag} if flag else {}
    res = run("platform-ddp", plain_facts(cpu_count=cpus, gpu_count=4), flags=flags)
    nproc = int(res.launch["nproc_per_node"].value)
    assert nproc == int(flag or 4)
    setting = res.env["OMP_NUM_THREADS"]
    assert setting.value == str(max(1, cpus // nproc))
    assert shown(setting)[2] == (("auto", "profile:platform-ddp"),)


def test_auto_omp_threads_from_tree_cpu_count() -> None:
    facts = tree_facts("ib-h800-8gpu")
    res = run("ib-h800", facts)
    assert res.env["OMP_NUM_THREADS"].value == str(facts.cpu_count // 8)


def test_auto_launch_values_from_slurm() -> None:
    env = tree_env("roce-node")
    res = run("slurm", tree_facts("roce-node"))
    assert res.launch["nnodes"].value == env["SLURM_NNODES"]
    assert res.launch["node_rank"].value == env["SLURM_NODEID"]


def test_nnodes_auto_from_kubeflow_pet() -> None:
    env = tree_env("k8s-rdma-no-dev")
    res = run("ethernet", tree_facts("k8s-rdma-no-dev"))
    nnodes = res.launch["nnodes"]
    assert (nnodes.value, str(nnodes.source)) == (env["PET_NNODES"], "env:PET_NNODES")
    assert shown(nnodes)[2][-1] == ("auto", "profile:ethernet")
    assert shown(res.launch["node_rank"]) == expected(
        env["PET_NODE_RANK"], "env:PET_NODE_RANK", (("auto", "profile:ethernet"),)
    )


# --- myths, renames, what is shown ------------------------------------------------------------


def test_renamed_variable_is_passed_under_its_new_name() -> None:
    res = run("local", plain_facts({"NCCL_ASYNC_ERROR_HANDLING": "1"}))
    assert shown(res.env["TORCH_NCCL_ASYNC_ERROR_HANDLING"]) == expected(
        "1", "renamed:NCCL_ASYNC_ERROR_HANDLING"
    )
    assert "NCCL_ASYNC_ERROR_HANDLING" in res.removed
    assert any(f.var == "NCCL_ASYNC_ERROR_HANDLING" and f.level == "warning" for f in res.findings)


def test_a_rename_to_a_name_deprecated_since_is_one_finding_with_the_whole_fix() -> None:
    """NCCL_MAX_NRINGS is passed as NCCL_MAX_NCHANNELS, which NCCL 2.17 deprecated for
    NCCL_MAX_CTAS: the user set neither new name, so one finding, on the name they set."""
    res = run("local", plain_facts({"NCCL_MAX_NRINGS": "4"}))
    assert shown(res.env["NCCL_MAX_NCHANNELS"]) == expected("4", "renamed:NCCL_MAX_NRINGS")
    [finding] = [f for f in res.findings if f.var and "NCCL_MAX_" in f.var]
    assert (finding.code, finding.var) == ("LX102", "NCCL_MAX_NRINGS")
    assert finding.fix.startswith("NCCL_MAX_NCHANNELS=4 (and unset NCCL_MAX_NRINGS); ")
    assert finding.fix.endswith("so from that release on set NCCL_MAX_CTAS=4 instead")
    # the name set by hand is still told it is deprecated
    res = run("local", plain_facts({"NCCL_MAX_NCHANNELS": "4"}))
    assert [f.code for f in res.findings if f.var == "NCCL_MAX_NCHANNELS"] == ["LX104"]


def test_myth_from_set_is_a_warning_pointing_at_the_real_knob() -> None:
    res = run("local", plain_facts(), sets=("NCCL_TIMEOUT=1800",))
    [finding] = [f for f in res.findings if f.var == "NCCL_TIMEOUT"]
    assert finding.level == "warning"
    assert "init_process_group" in finding.fix and "LAUNCHX_PG_TIMEOUT_S" in finding.fix


def test_default_view_shows_distributed_variables_only() -> None:
    env = {"NCCL_DEBUG": "INFO", "EDITOR": "vim", "RANDOM_THING": "1"}
    narrow = run("local", plain_facts(env))
    assert "NCCL_DEBUG" in narrow.env
    assert "EDITOR" not in narrow.env and "RANDOM_THING" not in narrow.env
    wide = run("local", plain_facts(env), show_all=True)
    assert shown(wide.env["EDITOR"]) == expected("vim", "env")
    assert "RANDOM_THING" in wide.env


def test_child_changes_leave_inherited_values_out() -> None:
    res = run("local", plain_facts({"NCCL_DEBUG": "INFO"}))
    changes = res.child_changes()
    assert "NCCL_DEBUG" not in changes  # inherited as is
    assert changes["LAUNCHX_PROFILE"] == "local"


# --- --set parsing ------------------------------------------------------------------------------


def test_parse_sets_splits_fields_from_env() -> None:
    fields, env = parse_sets(("retry.max_retries=5", "NCCL_DEBUG=INFO", "nnodes=2", "A=b=c"))
    assert fields == {"retry.max_retries": "5", "nnodes": "2"}
    assert env == {"NCCL_DEBUG": "INFO", "A": "b=c"}  # only the first '=' splits


@pytest.mark.parametrize("item", ["FOO", "=x", "a b=1", "1X=2", "nnodes.x=1"])
def test_parse_sets_rejects_malformed_items(item: str) -> None:
    with pytest.raises(LaunchxError):
        run("local", plain_facts(), sets=(item,))


def test_set_unknown_profile_field_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as err:
        run("local", plain_facts(), sets=("retry.max_retrys=5",))
    assert "max_retrys" in err.value.message


def test_explicit_launch_context_drives_nproc() -> None:
    ctx = LaunchContext(kind="per_node", name="Kubeflow PyTorchJob", local_world_size=6)
    facts = HostFacts(environ={}, cpu_count=12, gpu_count=8, launch=ctx)
    res = run("platform-ddp", facts)
    assert shown(res.launch["nproc_per_node"]) == expected(
        "6", "auto:Kubeflow PyTorchJob", (("auto", "profile:platform-ddp"),)
    )
    assert res.env["OMP_NUM_THREADS"].value == "2"


def test_node_rank_beyond_nnodes_is_refused() -> None:
    flags = {"nnodes": "2", "node_rank": "5", "master_addr": "10.0.0.1"}
    try:
        res = run("local", plain_facts(), flags=flags)
    except ConfigError:
        return
    assert any(f.level == "error" and f.var in ("node_rank", "NODE_RANK") for f in res.findings)


def test_default_profile_variable_picks_the_profile_without_p() -> None:
    chosen = resolve_request(Request(), plain_facts({"LAUNCHX_DEFAULT_PROFILE": "ethernet"}))
    assert chosen.profile.name == "ethernet"
    explicit = Request(profile="single-node")
    facts = plain_facts({"LAUNCHX_DEFAULT_PROFILE": "ethernet"})
    assert resolve_request(explicit, facts).profile.name == "single-node"  # -p wins
    unset = resolve_request(Request(), plain_facts({"LAUNCHX_DEFAULT_PROFILE": ""}))
    assert unset.profile.name == "local"  # empty counts as unset


def test_unknown_default_profile_is_a_clean_error_naming_the_variable() -> None:
    with pytest.raises(ProfileNotFound) as raised:
        resolve_request(Request(), plain_facts({"LAUNCHX_DEFAULT_PROFILE": "etherent"}))
    assert raised.value.message.startswith("LAUNCHX_DEFAULT_PROFILE='etherent'")
    assert "unknown profile 'etherent'" in raised.value.message
    assert raised.value.hint is not None
    assert "did you mean 'ethernet'?" in raised.value.hint
    assert "unset LAUNCHX_DEFAULT_PROFILE" in raised.value.hint
