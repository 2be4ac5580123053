"""``agentic validate``, ``agentic canonical`` and ``agentic tools``: exit codes and output.

Bad input ends in exit 2 with exactly one line on stderr, never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.fixture.loader import Fixture
from agentic.tools import tool_definitions
from tests.support import documents as docs
from tests.support.reports import resealed


def sealed_report() -> dict[str, Any]:
    return resealed(docs.report())


TOOLS_FINGERPRINT = "962605265a83834284686f2f41838c358bd1c2d67632efcdfb0897abdb58f484"
KIND_DOCUMENTS = {
    "task": docs.task,
    "oracle": docs.oracle,
    "envelope": docs.envelope,
    "receipt": docs.receipt,
    "report": sealed_report,
}


def write(path: Path, content: Any) -> Path:
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(code: int, err: str, prefix: str) -> None:
    assert code == 2
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith(f"agentic: {prefix}"), err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", sorted(KIND_DOCUMENTS))
def test_validate_accepts_a_valid_document_of_each_kind(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / f"{kind}.json", KIND_DOCUMENTS[kind]())

    code, out, err = run(capsys, "validate", kind, path)

    assert (code, out, err) == (0, f"ok {kind} {path}\n", "")


@pytest.mark.parametrize("kind", sorted(KIND_DOCUMENTS))
def test_validate_rejects_a_document_of_another_kind(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = "task" if kind != "task" else "oracle"
    path = write(tmp_path / "doc.json", KIND_DOCUMENTS[other]())

    code, _, err = run(capsys, "validate", kind, path)

    assert_one_line_error(code, err, f"schema_violation: {path}: /")


def test_validate_names_the_pointer_and_rule_of_a_schema_violation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "task.json", docs.with_value(docs.task(), "/taskId", "t0a1b2c3\n"))

    code, _, err = run(capsys, "validate", "task", path)

    assert_one_line_error(code, err, f"schema_violation: {path}: /taskId pattern")


def test_validate_rejects_malformed_json_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "task.json", '{"schemaVersion": "1.0",\n "taskId": }')

    code, _, err = run(capsys, "validate", "task", path)

    assert_one_line_error(code, err, f"malformed_json: {path}: Expecting value at line 2")


def test_validate_rejects_a_duplicate_key_naming_its_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps(docs.envelope())
    path = write(
        tmp_path / "envelope.json", text.replace('"gaps": [{', '"gaps": [{"reason": "x", ')
    )

    code, _, err = run(capsys, "validate", "envelope", path)

    assert_one_line_error(
        code, err, f"duplicate_key: {path}: duplicate key 'reason' at /gaps/0/reason"
    )


@pytest.mark.parametrize(
    ("content", "code_prefix"),
    [
        ("", "malformed_json"),
        ('{"a": NaN}', "malformed_json"),
        ('{"a": 1} and more', "malformed_json"),
        ('"\\ud800"', "malformed_json"),
    ],
)
def test_validate_fails_closed_on_any_non_json(
    content: str, code_prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "envelope.json", content)

    code, _, err = run(capsys, "validate", "envelope", path)

    assert_one_line_error(code, err, code_prefix)


def test_validate_reports_an_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "validate", "task", tmp_path / "missing.json")

    assert_one_line_error(code, err, "unreadable_file:")


def test_validate_with_task_runs_envelope_semantics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write(tmp_path / "task.json", docs.task())
    envelope = write(tmp_path / "envelope.json", docs.with_value(docs.envelope(), "/gaps", []))

    assert run(capsys, "validate", "envelope", envelope)[0] == 0
    code, _, err = run(capsys, "validate", "envelope", envelope, "--task", task)

    assert code == 0, err
    backwards = docs.with_value(docs.envelope(), "/claims/0/citations/0/startLine", 9)
    write(envelope, docs.with_value(backwards, "/gaps/0/claimKey", "budgetCode"))
    code, _, err = run(capsys, "validate", "envelope", envelope, "--task", task)
    assert_one_line_error(
        code,
        err,
        f"invalid_final_envelope: {envelope}: extra_gap:budgetCode, "
        "invalid_evidence_range:launchDate",
    )


def test_validate_with_an_invalid_task_file_names_the_task_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write(tmp_path / "task.json", docs.with_value(docs.task(), "/claims", []))
    envelope = write(tmp_path / "envelope.json", docs.envelope())

    code, _, err = run(capsys, "validate", "envelope", envelope, "--task", task)

    assert_one_line_error(code, err, f"schema_violation: {task}: /claims minItems")


def test_validate_task_option_applies_only_to_envelopes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    task = write(tmp_path / "task.json", docs.task())

    code, _, err = run(capsys, "validate", "task", task, "--task", task)

    assert_one_line_error(code, err, "invalid_cli_option: --task applies only to envelope")


def test_validate_rejects_an_unknown_kind_as_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "validate", "answer", write(tmp_path / "a.json", {}))

    assert_one_line_error(code, err, "invalid_cli_option: argument kind: invalid choice")


def test_canonical_prints_the_rfc_8785_bytes_without_a_newline(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    path = write(tmp_path / "doc.json", '{"b": [1.0, 1e21, "é"], "a": {"y": null, "x": true}}')

    code = main(["canonical", str(path)])

    assert code == 0
    assert capsysbinary.readouterr().out == '{"a":{"x":true,"y":null},"b":[1,1e+21,"é"]}'.encode()


def test_canonical_sha256_prints_the_fingerprint_of_those_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "doc.json", '{"b": 2, "a": 1}')

    code, out, err = run(capsys, "canonical", path, "--sha256")

    assert (code, err) == (0, "")
    assert out == hashlib.sha256(b'{"a":1,"b":2}').hexdigest() + "\n"


@pytest.mark.parametrize(
    ("content", "code_prefix"),
    [
        ('{"a": 1, "a": 2}', "duplicate_key"),
        ('{"a": [1, 2,]}', "malformed_json"),
        ("Infinity", "malformed_json"),
        ("", "malformed_json"),
        ("1e999", "malformed_json"),
    ],
)
def test_canonical_rejects_what_the_strict_parser_rejects(
    content: str, code_prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "doc.json", content)

    code, out, err = run(capsys, "canonical", path)

    assert out == ""
    assert_one_line_error(code, err, f"{code_prefix}: {path}")


def test_canonical_bytes_are_identical_across_processes_and_hash_seeds(tmp_path: Path) -> None:
    members = {
        f"key{n}\u00e9{chr(0x1F600 + n)}": [n, n / 7, {"z": n, "a": None}] for n in range(40)
    }
    path = write(tmp_path / "doc.json", members)

    def canonical_in_fresh_process(seed: str) -> bytes:
        done = subprocess.run(
            [sys.executable, "-m", "agentic", "canonical", str(path)],
            capture_output=True,
            timeout=60,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        return done.stdout

    assert canonical_in_fresh_process("1") == canonical_in_fresh_process("2")


def test_tools_prints_the_frozen_definitions_sorted_by_name(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "tools")

    assert (code, err) == (0, "")
    printed = json.loads(out)
    assert printed == tool_definitions()
    assert [tool["name"] for tool in printed] == ["get", "multi_get", "search"]


def test_tools_fingerprint_prints_the_contract_fingerprint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "tools", "--fingerprint") == (0, TOOLS_FINGERPRINT + "\n", "")


def test_the_printed_tools_hash_to_the_printed_fingerprint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "tools")
    path = write(tmp_path / "tools.json", out)

    assert run(capsys, "canonical", path, "--sha256")[1] == TOOLS_FINGERPRINT + "\n"


def test_the_installed_command_fails_with_one_line_and_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path / "receipt.json", '{"schemaVersion": "1.0", "schemaVersion": "1.0"}')

    done = subprocess.run(
        [sys.executable, "-m", "agentic", "validate", "receipt", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"agentic: duplicate_key: {path}: duplicate key 'schemaVersion' at /schemaVersion\n"
    )


def _ranking_into(
    capsys: pytest.CaptureFixture[str], fixture: Path, adapter: str, report: Path, *extra: str
) -> tuple[int, str]:
    code = main(
        [
            "ranking",
            "--fixture",
            str(fixture),
            "--adapter",
            adapter,
            "--out",
            str(report),
            "--quiet",
            *extra,
        ]
    )
    return code, capsys.readouterr().err


def test_ranking_refuses_a_report_folder_of_other_adapters_until_forced(
    tmp_path: Path, tiny_fixture_with_goldens: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    fixture, report = tiny_fixture_with_goldens.root, tmp_path / "report"
    assert _ranking_into(capsys, fixture, "lexical", report)[0] == 0
    before = {p.name: p.read_bytes() for p in report.iterdir()}

    code, err = _ranking_into(capsys, fixture, "capsule", report)

    assert_one_line_error(code, err, "output_holds_another_report: ")
    assert "(adapters lexical)" in err and "(adapters capsule)" in err and "--force" in err
    assert {p.name: p.read_bytes() for p in report.iterdir()} == before
    assert _ranking_into(capsys, fixture, "capsule", report, "--force")[0] == 0
    assert "run.capsule.default.trec" in {p.name for p in report.iterdir()}


def test_ranking_force_never_replaces_a_folder_holding_a_foreign_file(
    tmp_path: Path, tiny_fixture_with_goldens: Fixture, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report"
    report.mkdir()
    (report / "notes.txt").write_bytes(b"mine\n")

    code, err = _ranking_into(capsys, tiny_fixture_with_goldens.root, "lexical", report, "--force")

    assert_one_line_error(code, err, "unsafe_output_path: ")
    assert [p.name for p in report.iterdir()] == ["notes.txt"]
