"""``--shard K/N`` and ``agentic merge``: however a lane is split, its report is the same bytes,
and shards that do not belong together are refused before anything is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentic.cli import main
from agentic.fixture.loader import Fixture, load_fixture
from tests.support.json_files import edit_json
from tests.support.tiny_fixture import refresh_manifest

LANE = ("--adapter", "lexical,capsule", "--promote", "capsule:lexical", "--quiet")


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
    edit_json(path, lambda shard: shard["receipts"].pop())
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
