"""``--shard K/N`` and ``agentic merge``: however a lane is split, its report is the same bytes,
and shards that do not belong together, or that do not verify under the run's key, are refused
before anything is written.

Every test keeps its run keys in its own state dir (``XDG_STATE_HOME``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import Environment, TaskScore
from agentic.contract.task import AgentTask
from agentic.fixture.loader import Fixture, load_fixture
from agentic.lane.journal import KEY_FILE_ENV, KeyRef
from agentic.lane.shards import sealed
from agentic.report.environment import collect_environment
from agentic.scoring.score import score_receipt
from tests.support.json_files import edit_json
from tests.support.tiny_fixture import refresh_manifest

LANE = ("--adapter", "lexical,capsule", "--promote", "capsule:lexical", "--quiet")
SCORED_PAIRS = 12  # 3 tasks x 2 adapters x 2 lifecycles


@pytest.fixture(autouse=True)
def state_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own state dir: the run keys it makes stay out of the user's."""
    state = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    return state


def _edit_sealed(path: Path, edit: Callable[[Any], object]) -> None:
    """Edit a shard and seal it again with the run's key, as only a holder of the key can."""

    def and_seal(document: dict[str, Any]) -> dict[str, Any]:
        edit(document)
        return sealed(document, KeyRef.of(document["run"], None, os.environ).load())

    document = json.loads(path.read_bytes())
    path.write_text(json.dumps(and_seal(document)), encoding="utf-8")


def _key_file(path: Path, secret: bytes) -> Path:
    path.write_bytes(secret)
    path.chmod(0o600)
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


def _lane(fixture: Fixture, *extra: str) -> tuple[str, ...]:
    return ("run", "--fixture", str(fixture.root), *LANE, *extra)


def _shards(
    capsys: pytest.CaptureFixture[str], fixture: Fixture, root: Path, count: int, *extra: str
) -> list[Path]:
    folders = []
    for index in range(1, count + 1):
        folder = root / f"shard-{index}"
        code, err = _run(capsys, *_lane(fixture, *extra), "--shard", f"{index}/{count}",
                         "--out", str(folder))  # fmt: skip
        assert code in (0, 1), err
        folders.append(folder)
    return folders


def _merge(
    capsys: pytest.CaptureFixture[str], out: Path, *shards: Path, fixture: Fixture
) -> tuple[int, str]:
    return _run(
        capsys, "merge", *map(str, shards), "--fixture", str(fixture.root), "--out", str(out),
        "--quiet",
    )  # fmt: skip


@pytest.mark.parametrize("count", [2, 3])
def test_merged_shards_write_the_single_runs_canonical_report(
    count: int, tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole = tmp_path / "whole"
    code, _ = _run(capsys, *_lane(tiny_fixture), "--out", str(whole))
    shards = _shards(capsys, tiny_fixture, tmp_path, count)
    merged_code, err = _merge(capsys, tmp_path / "merged", *reversed(shards), fixture=tiny_fixture)
    assert merged_code == code, err
    merged = (tmp_path / "merged" / "canonical.json").read_bytes()
    assert merged == (whole / "canonical.json").read_bytes()


def test_a_shard_writes_only_its_slice_and_no_gate(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (folder,) = _shards(capsys, tiny_fixture, tmp_path, 1)
    assert sorted(p.name for p in folder.iterdir()) == ["shard.json", "shard.md"]
    (first, _) = _shards(capsys, tiny_fixture, tmp_path / "two", 2)
    document = json.loads((first / "shard.json").read_bytes())
    assert document["shard"] == {"index": 1, "count": 2}
    assert len(document["receipts"]) == 6  # 12 scored pairs, round robin
    assert len(document["replayReceipts"]) == 3  # the capsule twins of its capsule pairs
    assert "the promotion gate is evaluated by the merge" in (first / "shard.md").read_text()


def test_merge_refuses_a_missing_shard(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 3)
    code, err = _merge(capsys, tmp_path / "merged", shards[0], shards[2], fixture=tiny_fixture)
    assert code == 2
    assert err == "agentic: shards_mismatch: shard(s) 2/3 missing; nothing was written\n"
    assert not (tmp_path / "merged").exists()


def test_merge_refuses_a_shard_given_twice(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    code, err = _merge(
        capsys, tmp_path / "m", shards[0], shards[0], shards[1], fixture=tiny_fixture
    )
    assert code == 2
    assert "shard 1/2 is given twice" in err


def test_merge_refuses_shards_of_another_run(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _shards(capsys, tiny_fixture, tmp_path / "a", 2)[0]
    other = _shards(capsys, tiny_fixture, tmp_path / "b", 2, "--timeout-ms", "20000")[1]
    code, err = _merge(capsys, tmp_path / "m", first, other, fixture=tiny_fixture)
    assert code == 2
    assert "shard 2/2 is of another run (timeoutMs differs)" in err


def test_merge_refuses_a_shard_holding_pairs_of_another_slice(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    path = shards[1] / "shard.json"
    _edit_sealed(path, lambda shard: shard["receipts"].pop())
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert "shard 2/2 does not hold exactly its slice of the pairs" in err


def test_merge_refuses_a_shard_whose_run_identity_is_malformed(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    path = shards[1] / "shard.json"
    edit_json(path, lambda shard: shard["run"]["adapters"][0].update(config="not a fingerprint"))
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert err.startswith(f"agentic: invalid_shard: {path}: /run/adapters/0/config: String")
    assert not (tmp_path / "m").exists()


def test_merge_refuses_a_shard_whose_gate_is_not_a_boolean_replay(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    path = shards[0] / "shard.json"
    edit_json(path, lambda shard: shard["gate"].update(replayRequired="no"))
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert err == (
        f"agentic: invalid_shard: {path}: 'gate' needs two adapter ids and a boolean "
        "replayRequired\n"
    )


def test_merge_refuses_a_tampered_receipt(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    path = shards[0] / "shard.json"
    edit_json(path, lambda shard: shard["receipts"][0]["canonical"].update(lifecycle="lukewarm"))
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert err.startswith("agentic: schema_violation: ") and "receipts[0]" in err


def test_merge_refuses_another_fixture(
    tiny_fixture: Fixture, tiny_fixture_dir: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    shards = _shards(capsys, tiny_fixture, tmp_path, 1)
    decoy = tiny_fixture_dir / "corpus" / "t0000a01" / "c0a1" / "d002.md"
    decoy.write_bytes(decoy.read_bytes() + b"One more line.\n")
    refresh_manifest(tiny_fixture_dir)
    other = load_fixture(tiny_fixture_dir)
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=other)
    assert code == 2
    assert "is not the shards' fixture" in err


def test_a_shard_output_refuses_a_folder_of_other_content(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me", encoding="utf-8")
    code, err = _run(capsys, *_lane(tiny_fixture), "--shard", "1/2", "--out", str(folder))
    assert code == 2
    assert err.startswith("agentic: unsafe_output_path: ")
    assert (folder / "notes.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.slow
@pytest.mark.real_process
def test_a_warm_receipt_does_not_depend_on_which_pairs_shared_its_session(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str], unsandboxed: None
) -> None:
    argv = ("run", "--fixture", str(tiny_fixture.root), "--adapter", "lexical,mcp-reference",
            "--lifecycle", "warm", "--promote", "none", "--quiet")  # fmt: skip
    assert _run(capsys, *argv, "--out", str(tmp_path / "whole"))[0] == 0
    whole = json.loads((tmp_path / "whole" / "report.json").read_bytes())["receipts"]
    alone = {}
    for index in (1, 2, 3):  # each warm session serves only one of the three tasks
        folder = tmp_path / f"shard-{index}"
        assert _run(capsys, *argv, "--shard", f"{index}/3", "--out", str(folder))[0] == 0
        for receipt in json.loads((folder / "shard.json").read_bytes())["receipts"]:
            alone[(receipt["canonical"]["adapterId"], receipt["canonical"]["taskId"])] = receipt
    assert len(alone) == len(whole) == 6
    for receipt in whole:
        key = (receipt["canonical"]["adapterId"], receipt["canonical"]["taskId"])
        assert alone[key]["canonical"] == receipt["canonical"]


def test_merge_refuses_a_forged_shard(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    path = shards[0] / "shard.json"
    # Schema-valid, of the right pair: only the seal can tell.
    edit_json(path, lambda shard: shard["receipts"][0]["canonical"].update(agentId="forged"))
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert err == (
        f"agentic: invalid_shard: {path}: its HMAC does not verify under the run's key "
        "(edited or forged)\n"
    )
    assert not (tmp_path / "m").exists()


def test_merge_refuses_a_shard_carrying_scores_even_sealed(
    tiny_fixture: Fixture, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 1)
    path = shards[0] / "shard.json"
    _edit_sealed(path, lambda shard: shard.update(scores=[]))
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert err == f"agentic: invalid_shard: {path}: unknown members ['scores'], missing []\n"


def test_merge_scores_every_pair_again_from_its_receipt_and_the_fixture(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    for shard in shards:  # the only stored scores, for the job's log
        (shard / "shard.md").write_text("every pair: PASS\n", encoding="utf-8")
    scored: list[tuple[str, str, str, str]] = []

    def spy(receipt: CanonicalReceipt, task: AgentTask, oracle: HiddenOracle) -> TaskScore:
        assert task == tiny_fixture.task(receipt.taskId)
        assert oracle == tiny_fixture.oracle(receipt.taskId)
        scored.append((receipt.adapterId, receipt.lifecycle, receipt.trialId, receipt.taskId))
        return score_receipt(receipt, task, oracle)

    monkeypatch.setattr("agentic.lane.results.score_receipt", spy)
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 1, err  # the gate fails: capsule vs lexical
    assert len(set(scored)) == len(scored) == SCORED_PAIRS


def test_merge_refuses_shards_run_in_another_environment(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first = _shards(capsys, tiny_fixture, tmp_path / "a", 2)[0]

    def elsewhere(**facts: Any) -> Environment:
        return collect_environment(**facts).model_copy(update={"platform": "another-os"})

    monkeypatch.setattr("agentic.lane.execute.collect_environment", elsewhere)
    second = _shards(capsys, tiny_fixture, tmp_path / "b", 2)[1]
    code, err = _merge(capsys, tmp_path / "m", first, second, fixture=tiny_fixture)
    assert code == 2
    assert err == (
        "agentic: shards_mismatch: shard 2/2 ran in another environment (platform differs); "
        "nothing was written\n"
    )


def test_merge_elsewhere_without_the_runs_key_is_refused(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    shards = _shards(capsys, tiny_fixture, tmp_path, 2)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "another-machine"))
    code, err = _merge(capsys, tmp_path / "m", *shards, fixture=tiny_fixture)
    assert code == 2
    assert err.startswith("agentic: run_key_missing: no key of this run at ")
    assert "or the same --key-file / AGENTIC_KEY_FILE on every machine)\n" in err
    assert not (tmp_path / "m").exists()


@pytest.mark.parametrize("given_by", ["variable", "option"])
def test_shards_of_several_machines_merge_with_their_one_key_file(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    given_by: str,
) -> None:
    whole = tmp_path / "whole"
    code, _ = _run(capsys, *_lane(tiny_fixture), "--out", str(whole))
    key = _key_file(tmp_path / "run.key", os.urandom(32))
    folders = []
    for index in (1, 2):  # each machine has its own state dir, and the one key file
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / f"machine-{index}"))
        option: tuple[str, ...] = ("--key-file", str(key)) if given_by == "option" else ()
        if not option:
            monkeypatch.setenv(KEY_FILE_ENV, str(key))
        folders.append(tmp_path / f"shard-{index}")
        shard = ("--shard", f"{index}/2", "--out", str(folders[-1]), *option)
        _run(capsys, *_lane(tiny_fixture), *shard)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "the-merging-machine"))
    monkeypatch.delenv(KEY_FILE_ENV, raising=False)
    merged_code, err = _run(
        capsys, "merge", *map(str, folders), "--fixture", str(tiny_fixture.root),
        "--out", str(tmp_path / "merged"), "--key-file", str(key), "--quiet",
    )  # fmt: skip
    assert merged_code == code, err
    merged = (tmp_path / "merged" / "canonical.json").read_bytes()
    assert merged == (whole / "canonical.json").read_bytes()


def test_merge_with_another_key_file_is_refused(
    tiny_fixture: Fixture,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(KEY_FILE_ENV, str(_key_file(tmp_path / "a.key", b"a" * 32)))
    shards = _shards(capsys, tiny_fixture, tmp_path, 1)
    other = _key_file(tmp_path / "b.key", b"b" * 32)
    code, err = _run(
        capsys, "merge", str(shards[0]), "--fixture", str(tiny_fixture.root),
        "--out", str(tmp_path / "m"), "--key-file", str(other), "--quiet",
    )  # fmt: skip
    assert code == 2
    assert err == (
        f"agentic: run_key_mismatch: {shards[0] / 'shard.json'} was sealed with another key "
        f"than {other}\n"
    )
