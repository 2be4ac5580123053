"""Safe output folders: the kit replaces only what it wrote, and a reproduced baseline stays put.

A write goes into a missing or empty folder, or over a previous report of the kit of the same
identity (lane: agent and adapters; ranking: adapters; generation: model; matrix: models).
Another identity is refused unless ``force``; a link, a file, or a folder holding anything else is
refused even with ``force``, and left byte for byte. ``agentic run --write`` over a committed
baseline with the same ``resultsFingerprint`` keeps its files (bytes and mtime) and says so.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import agentic.commands.run
import agentic.lane.execute
from agentic.cli import main
from agentic.commands.regression import load_report, write_baseline
from agentic.contract.errors import ContractError
from agentic.output.folder import previous_report
from agentic.output.staging import ARTIFACT_NAMES, write_artifacts

ROOT = Path(__file__).resolve().parents[2]
FINGERPRINT = "a" * 64
OTHER_FINGERPRINT = "b" * 64
PAST_NS = 1_000_000_000 * 1_000_000_000  # 2001-09-09: an mtime no write of this test gives


def lane_files(
    tag: str,
    *,
    agent: str = "agent-a",
    adapters: tuple[str, ...] = ("capsule", "lexical"),
    fingerprint: str = FINGERPRINT,
    html: bool = False,
) -> dict[str, bytes]:
    """A lane report's files, as the kit names them, identified by agent and adapters."""
    report = {
        "environment": {"agentId": agent},
        "preparations": [{"adapterId": adapter} for adapter in adapters],
        "resultsFingerprint": fingerprint,
        "tag": tag,
    }
    files = {name: f"{tag} {name}\n".encode() for name in ARTIFACT_NAMES}
    files["report.json"] = json.dumps(report).encode()
    if html:
        files["report.html"] = f"<html>{tag}</html>\n".encode()
    return files


def ranking_files(*adapters: str) -> dict[str, bytes]:
    report = {"reportKind": "ranking", "runs": [{"adapterId": a} for a in adapters]}
    files = {"ranking.json": json.dumps(report).encode(), "ranking.txt": b"table\n"}
    files["qrels.trec"] = b""
    files.update({f"run.{a}.default.trec": b"" for a in adapters})
    return files


def generation_files(model: str) -> dict[str, bytes]:
    report = {"reportKind": "generation", "model": {"id": model}}
    return {"generation.json": json.dumps(report).encode(), "generation.txt": b"rows\n"}


def matrix_files(*models: str) -> dict[str, bytes]:
    files = {"matrix.txt": b"table\n"}
    for model in models:
        report = {"reportKind": "generation", "model": {"id": model}}
        files[f"generation.{model}.json"] = json.dumps(report).encode()
    return files


def snapshot(folder: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under ``folder`` (recursively, links not followed): bytes and mtime."""
    found: dict[str, tuple[bytes | None, int]] = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
        found[str(path.relative_to(folder))] = (data, info.st_mtime_ns)
    return found


def folder_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def refused(target: Path, files: dict[str, bytes], code: str, **options: Any) -> ContractError:
    with pytest.raises(ContractError) as caught:
        write_artifacts(target, files, **options)
    assert caught.value.code == code, caught.value
    return caught.value


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


# --- refused: what the kit did not write ------------------------------------------------------


def test_a_foreign_file_in_the_folder_is_refused_and_left_untouched(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))
    (target / "notes.txt").write_bytes(b"mine\n")
    before = snapshot(tmp_path)

    error = refused(target, lane_files("two"), "unsafe_output_path")

    assert "'notes.txt'" in error.message
    assert snapshot(tmp_path) == before


def test_a_folder_holding_only_a_foreign_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "thesis.tex").write_bytes(b"years of work\n")
    before = snapshot(tmp_path)

    refused(target, lane_files("one"), "unsafe_output_path")

    assert snapshot(tmp_path) == before


def test_a_subfolder_is_refused_and_left_untouched(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))
    (target / "report.md.d").mkdir()
    (target / "report.md.d" / "draft.md").write_bytes(b"draft\n")
    before = snapshot(tmp_path)

    error = refused(target, lane_files("two"), "unsafe_output_path")

    assert "folder" in error.message
    assert snapshot(tmp_path) == before


def test_a_symlink_inside_the_folder_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))
    (tmp_path / "elsewhere.md").write_bytes(b"kept\n")
    (target / "report.md").unlink()
    (target / "report.md").symlink_to(tmp_path / "elsewhere.md")
    before = snapshot(tmp_path)

    refused(target, lane_files("two"), "unsafe_output_path")

    assert snapshot(tmp_path) == before


def test_a_regular_file_target_is_refused_and_left_untouched(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_bytes(b"not a folder\n")
    before = snapshot(tmp_path)

    error = refused(target, lane_files("one"), "unsafe_output_path")

    assert "regular file" in error.message
    assert snapshot(tmp_path) == before


def test_a_symlink_target_is_refused_and_the_link_and_its_folder_are_untouched(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    write_artifacts(real, lane_files("one"))  # even a previous report of the same lane
    target = tmp_path / "out"
    target.symlink_to(real, target_is_directory=True)
    before = snapshot(tmp_path)

    error = refused(target, lane_files("two"), "unsafe_output_path")

    assert "symbolic link" in error.message
    assert snapshot(tmp_path) == before
    assert os.readlink(target) == str(real)


def test_a_folder_mixing_two_report_kinds_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    for name, data in {**generation_files("mock"), **ranking_files("lexical")}.items():
        (target / name).write_bytes(data)
    before = snapshot(tmp_path)

    refused(target, ranking_files("lexical"), "unsafe_output_path")

    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("shape", ["foreign file", "subfolder", "regular file", "symlink"])
def test_force_does_not_override_content_the_kit_did_not_write(tmp_path: Path, shape: str) -> None:
    target = tmp_path / "out"
    if shape == "regular file":
        target.write_bytes(b"mine\n")
    elif shape == "symlink":
        (tmp_path / "real").mkdir()
        target.symlink_to(tmp_path / "real", target_is_directory=True)
    else:
        write_artifacts(target, lane_files("one"))
        if shape == "foreign file":
            (target / "notes.txt").write_bytes(b"mine\n")
        else:
            (target / "sub").mkdir()
    before = snapshot(tmp_path)

    refused(target, lane_files("two"), "unsafe_output_path", force=True)

    assert snapshot(tmp_path) == before


# --- accepted: nothing there, or a previous report of the kit -----------------------------------


def test_an_empty_folder_is_written(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()

    assert write_artifacts(target, lane_files("one")) == "written"

    assert folder_files(target) == lane_files("one")


def test_a_previous_report_of_the_same_lane_is_replaced(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one", html=True))

    write_artifacts(target, lane_files("two", fingerprint=OTHER_FINGERPRINT))

    assert folder_files(target) == lane_files("two", fingerprint=OTHER_FINGERPRINT)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_leftover_companion_temp_of_the_kit_does_not_block_a_write(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))
    (target / ".agentic-tmp-report.html-0123456789abcdef").write_bytes(b"<html>half")

    write_artifacts(target, lane_files("two"))

    assert folder_files(target) == lane_files("two")


def test_a_previous_report_of_another_lane_is_refused_naming_both_lanes(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))
    before = snapshot(tmp_path)

    error = refused(target, lane_files("two", agent="agent-b"), "output_holds_another_report")

    assert "lane report (agent agent-a; adapters capsule,lexical)" in error.message
    assert "lane report (agent agent-b; adapters capsule,lexical)" in error.message
    assert "--force replaces it" in error.message
    assert snapshot(tmp_path) == before


def test_a_previous_report_of_other_adapters_is_another_lane(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))

    refused(target, lane_files("two", adapters=("lexical",)), "output_holds_another_report")


def test_a_previous_report_naming_no_lane_is_replaced_only_with_force(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "report.json").write_bytes(b"not json\n")

    error = refused(target, lane_files("one"), "output_holds_another_report")
    write_artifacts(target, lane_files("one"), force=True)

    assert "previous lane report (unidentified)" in error.message
    assert folder_files(target) == lane_files("one")


def test_force_replaces_a_previous_report_of_another_lane(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))

    write_artifacts(target, lane_files("two", agent="agent-b"), force=True)

    assert folder_files(target) == lane_files("two", agent="agent-b")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (ranking_files("lexical"), ranking_files("capsule")),
        (generation_files("mock"), generation_files("local-x")),
        (matrix_files("mock"), matrix_files("mock", "local-x")),
        (ranking_files("lexical"), lane_files("one")),
    ],
    ids=["ranking", "generation", "matrix", "another kind"],
)
def test_a_previous_report_of_another_run_of_each_kind_is_refused_without_force(
    tmp_path: Path, first: dict[str, bytes], second: dict[str, bytes]
) -> None:
    target = tmp_path / "out"
    write_artifacts(target, first)

    refused(target, second, "output_holds_another_report")
    write_artifacts(target, second, force=True)

    assert folder_files(target) == second


@pytest.mark.parametrize(
    ("folder", "identity"),
    [
        (
            "baselines/fixture-agent",
            "lane report (agent fixture-agent-v1; adapters capsule,lexical,mcp-reference)",
        ),
        ("baselines/optional/qmd-lex", "lane report (agent fixture-agent-v1; adapters qmd-lex)"),
    ],
)
def test_a_committed_baseline_written_before_the_check_has_its_identity(
    folder: str, identity: str
) -> None:
    previous = previous_report(ROOT / folder)
    assert previous is not None
    assert str(previous.identity) == identity


# --- permissions ---------------------------------------------------------------------------------


def test_the_written_folder_and_files_have_normal_permissions(
    tmp_path: Path, umask_022: None
) -> None:
    target = tmp_path / "out"

    write_artifacts(target, lane_files("one", html=True))

    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in target.iterdir()} == {
        name: 0o644 for name in lane_files("one", html=True)
    }


def test_a_replaced_folder_has_normal_permissions_too(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))

    write_artifacts(target, lane_files("two"))

    assert stat.S_IMODE(target.stat().st_mode) == 0o755


def _committed_ranking() -> Path:
    (path,) = (ROOT / "baselines" / "ranking").glob("*/ranking.json")
    return path


def test_an_accepted_baseline_file_has_normal_permissions(tmp_path: Path, umask_022: None) -> None:
    target = tmp_path / "baselines" / "ranking" / "f" / "ranking.json"

    write_baseline(load_report(_committed_ranking()), target)

    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o755


@pytest.mark.parametrize("shape", ["symlink", "folder"])
def test_accepting_over_a_link_or_a_folder_is_refused_and_left_untouched(
    tmp_path: Path, shape: str
) -> None:
    target = tmp_path / "ranking.json"
    if shape == "symlink":
        (tmp_path / "mine.json").write_bytes(b"{}")
        target.symlink_to(tmp_path / "mine.json")
    else:
        target.mkdir()
    before = snapshot(tmp_path)

    with pytest.raises(ContractError) as caught:
        write_baseline(load_report(_committed_ranking()), target)

    assert caught.value.code == "unsafe_output_path"
    assert snapshot(tmp_path) == before


# --- a reproduced baseline -----------------------------------------------------------------------


def _aged(folder: Path) -> dict[str, tuple[bytes | None, int]]:
    """Set every file's mtime far into the past, so a rewrite cannot hide in the same tick."""
    for path in folder.iterdir():
        os.utime(path, ns=(PAST_NS, PAST_NS))
    return snapshot(folder)


def test_a_reproduced_baseline_leaves_the_committed_files_byte_and_mtime_untouched(
    tmp_path: Path,
) -> None:
    target = tmp_path / "baseline"
    write_artifacts(target, lane_files("committed"))
    before = _aged(target)

    written = write_artifacts(target, lane_files("rerun"), keep_reproduced=FINGERPRINT)

    assert written == "reproduced"
    assert snapshot(target) == before


def test_a_reproduced_baseline_rewrites_only_the_companion_atomically(
    tmp_path: Path, umask_022: None
) -> None:
    target = tmp_path / "baseline"
    write_artifacts(target, lane_files("committed", html=True))
    committed = {k: v for k, v in _aged(target).items() if k != "report.html"}

    written = write_artifacts(target, lane_files("rerun", html=True), keep_reproduced=FINGERPRINT)

    assert written == "reproduced"
    after = snapshot(target)
    assert after.pop("report.html")[0] == b"<html>rerun</html>\n"
    assert after == committed  # no temp file left, the committed artifacts as they were
    assert stat.S_IMODE((target / "report.html").stat().st_mode) == 0o644


def test_changed_results_restage_every_file(tmp_path: Path) -> None:
    target = tmp_path / "baseline"
    write_artifacts(target, lane_files("committed"))
    new = lane_files("rerun", fingerprint=OTHER_FINGERPRINT, html=True)

    written = write_artifacts(target, new, keep_reproduced=OTHER_FINGERPRINT)

    assert written == "written"
    assert folder_files(target) == new


def test_an_incomplete_committed_set_is_restaged_even_with_the_same_results(
    tmp_path: Path,
) -> None:
    target = tmp_path / "baseline"
    write_artifacts(target, lane_files("committed"))
    (target / "observations.json").unlink()

    written = write_artifacts(target, lane_files("rerun"), keep_reproduced=FINGERPRINT)

    assert written == "written"
    assert folder_files(target) == lane_files("rerun")


def test_an_out_write_never_keeps_a_previous_report(tmp_path: Path) -> None:
    target = tmp_path / "out"
    write_artifacts(target, lane_files("one"))

    assert write_artifacts(target, lane_files("two")) == "written"

    assert folder_files(target) == lane_files("two")


# --- through the CLI -----------------------------------------------------------------------------


def _write_lane(capsys: pytest.CaptureFixture[str], fixture: Path, *extra: str) -> tuple[int, str]:
    code = main(["run", "--lane", "fixture-agent", "--fixture", str(fixture), "--write", *extra])
    return code, capsys.readouterr().err


@pytest.mark.slow
def test_run_write_over_a_reproduced_baseline_keeps_it_and_says_reproduced(
    tmp_path: Path,
    tiny_fixture_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.setattr(agentic.lane.execute, "repo_root", lambda: checkout)
    monkeypatch.setattr(agentic.commands.run, "repo_root", lambda: checkout)
    baseline = checkout / "baselines" / "fixture-agent"
    _, err = _write_lane(capsys, tiny_fixture_dir)
    assert f"agentic: wrote {baseline}\n" in err
    committed = {k: v for k, v in _aged(baseline).items() if k in ARTIFACT_NAMES}
    fingerprint = json.loads((baseline / "report.json").read_bytes())["resultsFingerprint"]

    _, err = _write_lane(capsys, tiny_fixture_dir)

    assert f"agentic: reproduced {fingerprint}\n" in err
    assert "agentic: wrote" not in err
    assert {k: v for k, v in snapshot(baseline).items() if k in ARTIFACT_NAMES} == committed


def test_run_out_refuses_a_folder_with_a_foreign_file_before_running(
    tmp_path: Path, tiny_fixture_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_bytes(b"mine\n")
    before = snapshot(tmp_path)

    code = main(["run", "--fixture", str(tiny_fixture_dir), "--out", str(out), "--force"])

    err = capsys.readouterr().err
    assert code == 2
    # One line and no progress: refused before any preparation, --force or not.
    assert err.count("\n") == 1 and err.startswith("agentic: unsafe_output_path: "), err
    assert snapshot(tmp_path) == before


def test_run_out_refuses_another_lanes_report_before_running(
    tmp_path: Path, tiny_fixture_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["run", "--fixture", str(tiny_fixture_dir), "--promote", "none", "--quiet"]
    assert main([*argv, "--adapter", "lexical", "--out", str(out)]) == 0
    capsys.readouterr()
    before = snapshot(tmp_path)

    code = main(["run", "--fixture", str(tiny_fixture_dir), "--adapter", "capsule",
                 "--promote", "none", "--out", str(out)])  # fmt: skip

    err = capsys.readouterr().err
    assert code == 2
    # One line and no progress: the other lane's report is named before any preparation.
    assert err.count("\n") == 1 and err.startswith("agentic: output_holds_another_report: "), err
    assert snapshot(tmp_path) == before
