"""Where ``--executor ray`` connects, against a stand-in for the ``ray`` module (these run
without the 'distributed' extra): an address given (``--ray-address`` or ``RAY_ADDRESS``) must
hold a cluster; with none given and none running here, Ray's own convention holds: a local
runtime, said on stderr."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agentic.contract.errors import ContractError
from agentic.lane.executors import ray_tasks

NO_CLUSTER = "Could not find any running Ray instance."


class FakeRay(SimpleNamespace):
    """``ray.init`` finding no running cluster: ConnectionError unless told to start one."""

    def __init__(self) -> None:
        super().__init__(addresses=[])

    def init(self, *, address: str, **_: Any) -> None:
        self.addresses.append(address)
        if address != "local":
            raise ConnectionError(NO_CLUSTER)


@pytest.fixture
def fake() -> FakeRay:
    return FakeRay()


def test_no_address_starts_a_local_runtime_and_says_so(
    fake: FakeRay, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    ray_tasks._connect(fake, None)  # type: ignore[arg-type]
    assert fake.addresses == ["auto", "local"]
    assert capsys.readouterr().err == (
        "agentic: no Ray address given: starting a local Ray runtime\n"
    )


@pytest.mark.parametrize("address", ["auto", "ray://head:10001"])
def test_a_given_address_without_a_cluster_is_refused_in_one_line(
    fake: FakeRay,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    address: str,
) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    with pytest.raises(ContractError) as raised:
        ray_tasks._connect(fake, address)  # type: ignore[arg-type]
    assert raised.value.code == "ray_unavailable"
    assert raised.value.message.startswith(f"no Ray cluster at {address!r} ({NO_CLUSTER}")
    assert fake.addresses == [address]
    assert capsys.readouterr().err == ""


def test_ray_address_in_the_environment_counts_as_given(
    fake: FakeRay, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    with pytest.raises(ContractError, match="no Ray cluster at 'auto'"):
        ray_tasks._connect(fake, None)  # type: ignore[arg-type]
    assert fake.addresses == ["auto"]
