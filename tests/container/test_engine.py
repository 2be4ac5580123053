"""Engine choice, podman's configuration here, and the commands sent to the engine."""

from __future__ import annotations

import resource
import stat
from pathlib import Path

import pytest

from containers import engine as eng
from containers.errors import ContainerError


def which_of(*present: str) -> eng.Which:
    return lambda name: f"/usr/bin/{name}" if name in present else None


def test_unset_engine_variable_requests_nothing() -> None:
    assert eng.requested_engine({}) is None


def test_engine_variable_names_docker() -> None:
    assert eng.requested_engine({eng.ENGINE_ENV: "docker"}) == "docker"


def test_unknown_engine_variable_is_refused() -> None:
    with pytest.raises(ContainerError) as caught:
        eng.requested_engine({eng.ENGINE_ENV: "lxc"})
    assert caught.value.code == "engine_unknown"


def test_podman_is_preferred_when_both_engines_exist() -> None:
    assert eng.choose_engine(None, which_of("docker", "podman")) == ("podman", "/usr/bin/podman")


def test_docker_is_used_when_it_is_the_only_engine() -> None:
    assert eng.choose_engine(None, which_of("docker")) == ("docker", "/usr/bin/docker")


def test_a_requested_engine_that_is_missing_does_not_fall_back() -> None:
    with pytest.raises(ContainerError) as caught:
        eng.choose_engine("docker", which_of("podman"))
    assert caught.value.code == "engine_missing"


def test_no_engine_at_all_is_one_clear_error() -> None:
    with pytest.raises(ContainerError) as caught:
        eng.choose_engine(None, which_of())
    assert caught.value.code == "engine_missing"
    assert "\n" not in str(caught.value)


def test_present_tools_need_no_install() -> None:
    # euid 1000 without apt-get: an install attempt would raise, so passing proves none happened.
    eng.ensure_tools(["podman", "runc"], which=which_of("podman", "runc"), euid=1000, environ={})


def test_missing_tools_without_root_name_the_debian_packages() -> None:
    with pytest.raises(ContainerError) as caught:
        eng.ensure_tools(
            ["podman", "runc", "debootstrap"],
            which=which_of("podman", "apt-get"),
            euid=1000,
            environ={},
        )
    assert caught.value.code == "engine_missing"
    assert "apt-get install -y runc debootstrap" in caught.value.message


def test_missing_tools_as_root_without_apt_are_refused() -> None:
    with pytest.raises(ContainerError) as caught:
        eng.ensure_tools(["podman"], which=which_of(), euid=0, environ={})
    assert caught.value.code == "engine_missing"


def test_containers_conf_keeps_ulimits_within_the_hard_limits() -> None:
    conf = eng.containers_conf(nofile_hard=20000, nproc_hard=4096)
    assert 'default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]' in conf


def test_containers_conf_caps_unlimited_hard_limits() -> None:
    conf = eng.containers_conf(resource.RLIM_INFINITY, resource.RLIM_INFINITY)
    assert f'"nofile={eng.NOFILE_DEFAULT}:{eng.NOFILE_DEFAULT}"' in conf
    assert f'"nproc={eng.NPROC_DEFAULT}:{eng.NPROC_DEFAULT}"' in conf


def test_containers_conf_selects_runc() -> None:
    assert 'runtime = "runc"' in eng.containers_conf(1024, 1024)


def test_podman_engine_keeps_all_state_in_its_store(tmp_path: Path) -> None:
    store = eng.PodmanStore(tmp_path / "podman", tmp_path / "run")
    engine = eng.podman_engine("/usr/bin/podman", store, {"PATH": "/usr/bin"})
    argv = engine.argv("info")
    for flag, folder in (
        ("--root", store.root),
        ("--runroot", store.runroot),
        ("--tmpdir", store.tmp),
    ):
        assert argv[argv.index(flag) + 1] == str(folder)
        assert folder.is_dir()
    assert engine.env["CONTAINERS_CONF"] == str(store.conf)
    assert engine.env["TMPDIR"] == str(store.tmp)
    assert store.conf.is_file()


def test_a_kept_store_gets_the_same_short_runroot_every_run(tmp_path: Path) -> None:
    store = tmp_path / "a" / "long" / "checkout" / "path" / ".cache" / "container" / "store"
    first, second = eng.kept_runroot(store), eng.kept_runroot(store)
    assert first == second
    assert len(str(first)) <= 50  # podman's limit for a runroot
    assert eng.kept_runroot(tmp_path / "other") != first


def test_docker_engine_turns_on_buildkit() -> None:
    assert eng.docker_engine("/usr/bin/docker", {}).env["DOCKER_BUILDKIT"] == "1"


def _script(folder: Path, body: str) -> str:
    path = folder / "engine"
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_an_engine_that_refuses_to_start_is_one_line_naming_its_complaint(tmp_path: Path) -> None:
    program = _script(
        tmp_path, 'echo "starting" >&2\necho "Error: cannot connect to the engine" >&2\nexit 125\n'
    )
    engine = eng.Engine(kind="docker", program=program, global_args=(), env={})
    with pytest.raises(ContainerError) as caught:
        eng.probe(engine)
    assert caught.value.code == "engine_unavailable"
    assert caught.value.message.endswith("exited 125: Error: cannot connect to the engine")


def test_a_working_engine_reports_its_version(tmp_path: Path) -> None:
    engine = eng.Engine(
        kind="podman", program=_script(tmp_path, "echo 4.3.1\n"), global_args=(), env={}
    )
    assert eng.probe(engine) == "4.3.1"


def test_build_passes_the_ca_bundle_as_a_secret_and_the_context_last(tmp_path: Path) -> None:
    args = eng.build_args(
        kind="docker",
        tag="localhost/agentic-kit:dev",
        dockerfile=tmp_path / "Dockerfile",
        context=tmp_path,
        build_args={"B": "2", "A": "1"},
        secret=Path("/etc/ssl/certs/ca-certificates.crt"),
    )
    assert args[args.index("--secret") + 1] == "id=ca,src=/etc/ssl/certs/ca-certificates.crt"
    assert [args[i + 1] for i, a in enumerate(args) if a == "--build-arg"] == ["A=1", "B=2"]
    assert args[-1] == str(tmp_path)


def test_build_without_a_ca_bundle_sends_no_secret(tmp_path: Path) -> None:
    args = eng.build_args(
        kind="docker",
        tag="t",
        dockerfile=tmp_path / "Dockerfile",
        context=tmp_path,
        build_args={},
        secret=None,
    )
    assert "--secret" not in args


def test_podman_builds_docker_format_images_so_that_shell_applies(tmp_path: Path) -> None:
    args = eng.build_args(
        kind="podman",
        tag="t",
        dockerfile=tmp_path / "Dockerfile",
        context=tmp_path,
        build_args={},
        secret=None,
    )
    assert args[args.index("--format") + 1] == "docker"


def test_lanes_run_without_a_network_and_are_removed_afterwards() -> None:
    args = eng.run_args(
        image="img",
        name="agentic-lane-1",
        mounts=[eng.Mount(Path("/tmp/out"), "/out", read_only=False)],
        user=[],
        command=["run", "--quiet"],
    )
    assert args[:6] == ["run", "--rm", "--name", "agentic-lane-1", "--network", "none"]
    assert args[args.index("--volume") + 1] == "/tmp/out:/out:rw"
    assert args[-3:] == ["img", "run", "--quiet"]


def test_a_read_only_mount_says_so() -> None:
    assert (
        eng.Mount(Path("/src/fixture"), "/fixture", read_only=True).flag()
        == "/src/fixture:/fixture:ro"
    )


def test_a_mount_path_with_a_colon_is_refused() -> None:
    with pytest.raises(ContainerError) as caught:
        eng.Mount(Path("/tmp/a:b"), "/out", read_only=False).flag()
    assert caught.value.code == "mount_path_invalid"


def test_root_keeps_the_images_own_user() -> None:
    assert eng.user_args("podman", euid=0, egid=0) == []


def test_rootless_podman_maps_the_caller_into_the_container() -> None:
    assert eng.user_args("podman", euid=1000, egid=1000) == [
        "--userns",
        "keep-id",
        "--user",
        "1000:1000",
    ]


def test_docker_runs_as_the_calling_user() -> None:
    assert eng.user_args("docker", euid=1000, egid=100) == ["--user", "1000:100"]
