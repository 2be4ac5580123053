"""Goldens load strictly against the fixture they ship with; every mistake fails at load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentic.cli import main
from agentic.contract.errors import ContractError
from agentic.fixture.loader import Fixture, load_fixture
from agentic.ranking.goldens import load_goldens
from tests.support.goldens import (
    ATLAS,
    HARBOR,
    NORTH,
    golden,
    tiny_goldens,
    write_goldens,
    write_tiny_fixture_with_goldens,
)
from tests.support.tiny_fixture import TASK_A, TASK_C


@pytest.fixture
def fixture(tiny_fixture_dir: Path) -> Fixture:
    return load_fixture(tiny_fixture_dir)


def load_with(fixture: Fixture, goldens: list[dict[str, Any]]) -> Any:
    write_goldens(fixture.root, goldens)
    return load_goldens(fixture)


def error_code(fixture: Fixture, goldens: list[dict[str, Any]]) -> str:
    with pytest.raises(ContractError) as caught:
        load_with(fixture, goldens)
    return caught.value.code


def test_goldens_load_sorted_by_id(fixture: Fixture) -> None:
    loaded = load_with(fixture, tiny_goldens())
    ids = [g.id for g in loaded.goldens]
    assert ids == sorted(ids)
    assert len(ids) == 5


def test_fingerprint_ignores_line_order_across_files(fixture: Fixture) -> None:
    goldens = tiny_goldens()
    first = load_with(fixture, goldens).fingerprint
    (fixture.root / "goldens" / "tiny.jsonl").unlink()
    write_goldens(fixture.root, list(reversed(goldens[:2])), name="a.jsonl")
    write_goldens(fixture.root, goldens[2:], name="b.jsonl")
    assert load_goldens(fixture).fingerprint == first


def test_search_text_defaults_to_the_query(fixture: Fixture) -> None:
    loaded = load_with(fixture, [golden("plain", TASK_A, relevantDocIds=[NORTH])])
    assert loaded.goldens[0].search_text == "Question plain?"


def test_unknown_document_is_rejected(fixture: Fixture) -> None:
    bad = golden("ghost", TASK_A, relevantDocIds=["gno://c0a1/missing.md"])
    assert error_code(fixture, [bad]) == "golden_unknown_document"


def test_refusal_naming_relevant_documents_is_rejected(fixture: Fixture) -> None:
    bad = golden("refuse", TASK_C, expectRefusal=True, relevantDocIds=[HARBOR])
    assert error_code(fixture, [bad]) == "golden_refusal_invalid"


def test_answerable_golden_without_relevant_documents_is_rejected(fixture: Fixture) -> None:
    assert error_code(fixture, [golden("empty", TASK_A)]) == "golden_relevance_missing"


@pytest.mark.parametrize("field", ["mustInclude", "mustNotInclude"])
def test_regex_that_does_not_compile_is_rejected(fixture: Fixture, field: str) -> None:
    bad = golden("regex", TASK_A, relevantDocIds=[NORTH], **{field: ["(unclosed"]})
    assert error_code(fixture, [bad]) == "golden_regex_invalid"


def test_unknown_task_is_rejected(fixture: Fixture) -> None:
    bad = golden("task", "t0000fff", relevantDocIds=[NORTH])
    assert error_code(fixture, [bad]) == "golden_unknown_task"


def test_relevant_document_of_another_task_is_out_of_scope(fixture: Fixture) -> None:
    bad = golden("scope", TASK_A, relevantDocIds=[ATLAS])
    assert error_code(fixture, [bad]) == "golden_scope_invalid"


def test_collection_the_task_cannot_see_is_rejected(fixture: Fixture) -> None:
    bad = golden("coll", TASK_A, collection="c0b2", relevantDocIds=[NORTH])
    assert error_code(fixture, [bad]) == "golden_scope_invalid"


def test_grade_for_a_document_that_is_not_relevant_is_rejected(fixture: Fixture) -> None:
    bad = golden("grade", TASK_A, relevantDocIds=[NORTH], grades={"gno://c0a1/d002.md": 2})
    assert error_code(fixture, [bad]) == "golden_grade_invalid"


def test_duplicate_id_is_rejected(fixture: Fixture) -> None:
    one = golden("twice", TASK_A, relevantDocIds=[NORTH])
    assert error_code(fixture, [one, one]) == "golden_duplicate_id"


def test_unknown_field_is_rejected(fixture: Fixture) -> None:
    bad = golden("extra", TASK_A, relevantDocIds=[NORTH], answer="INC-4827")
    assert error_code(fixture, [bad]) == "golden_file_invalid"


def test_missing_seed_field_is_rejected(fixture: Fixture) -> None:
    bad = golden("noturns", TASK_A, relevantDocIds=[NORTH])
    del bad["turns"]
    assert error_code(fixture, [bad]) == "golden_file_invalid"


def test_duplicate_json_key_is_rejected(fixture: Fixture) -> None:
    folder = fixture.root / "goldens"
    folder.mkdir()
    (folder / "dup.jsonl").write_text('{"id": "a", "id": "b"}\n', encoding="utf-8")
    with pytest.raises(ContractError) as caught:
        load_goldens(fixture)
    assert caught.value.code == "duplicate_key"


def test_blank_line_is_rejected(fixture: Fixture) -> None:
    path = write_goldens(fixture.root, tiny_goldens()[:1])
    path.write_text(path.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    with pytest.raises(ContractError, match="blank line"):
        load_goldens(fixture)


def test_fixture_without_goldens_is_rejected(fixture: Fixture) -> None:
    with pytest.raises(ContractError) as caught:
        load_goldens(fixture)
    assert caught.value.code == "golden_file_invalid"


def test_error_names_file_and_line(fixture: Fixture) -> None:
    bad = golden("ghost", TASK_A, relevantDocIds=["gno://c0a1/missing.md"])
    with pytest.raises(ContractError, match=r"goldens/tiny\.jsonl:2"):
        load_with(fixture, [tiny_goldens()[0], bad])


def test_unknown_tag_selection_is_rejected(fixture: Fixture) -> None:
    loaded = load_with(fixture, tiny_goldens())
    with pytest.raises(ContractError) as caught:
        loaded.select(("no-such-tag",))
    assert caught.value.code == "golden_tag_unknown"


def test_tag_selection_keeps_the_full_set_fingerprint(fixture: Fixture) -> None:
    loaded = load_with(fixture, tiny_goldens())
    chosen = loaded.select(("multi-hop",))
    assert [g.id for g in chosen.goldens] == ["gateway-reviews"]
    assert chosen.fingerprint == loaded.fingerprint


def test_cli_rejects_a_bad_golden_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_tiny_fixture_with_goldens(tmp_path / "fx")
    bad = golden("regex", TASK_A, relevantDocIds=[NORTH], mustInclude=["[z-a]"])
    write_goldens(root, [bad], name="zz.jsonl")
    assert main(["ranking", "--fixture", str(root), "--adapter", "lexical", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("agentic: golden_regex_invalid: goldens/zz.jsonl:1")
