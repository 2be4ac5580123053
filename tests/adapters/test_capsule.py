"""The capsule adapter (contract v1, 5.2): one search returns one ``evidence_bundle`` whose
``gno-context-agent-v1`` payload carries the selected lines within the task's byte budget."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from random import Random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.base import CallOutcome
from agentic.adapters.capsule import (
    CONFIG,
    BundleBound,
    Bundler,
    CapsuleAdapter,
    LineSpan,
    LineTables,
    cited_evidence,
    least_line_bytes,
    line_groups,
    normalized_lines,
    select_bundle,
)
from agentic.adapters.capsule_plan import normalize_text, plan_query
from agentic.adapters.capsule_select import (
    OMISSION_REASONS,
    POSSIBLE_REASONS,
    Candidate,
    select,
)
from agentic.adapters.errors import AdapterCallError
from agentic.adapters.reads import READ_HASH_REASON, line_evidence
from agentic.contract.canonical import canonical_bytes, canonical_text, fingerprint
from agentic.contract.jsrules import is_blank
from agentic.contract.receipt import ToolEvidence, ToolResult
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot
from agentic.tools import project_result, visible_bytes
from tests.support.sessions import TIMEOUT_S, call, capsule_session
from tests.support.snapshots import TASK_ID, corpus_file, filler, make_task, snapshot_from

SNAPSHOT = snapshot_from(
    {
        "c001/policy.md": (
            "# Retention policy\n\n"
            "Retention period: 30 days for standard logs.\n"
            "Regulated logs: kept 7 years.\n\n"
            "## Scope\nApplies to every service.\n"
        ),
        "c001/archive.md": "# Archive\n\nArchived logs keep their retention period.\n",
        "c002/glossary.md": "# Glossary\n\nSLA: service level agreement.\n",
        **filler(3),
    }
)
TASK = make_task(["c001", "c002"], claim_keys=("retentionPeriod",))
QUERY = "retention period logs"


def bundle(
    tmp_path: Path, task: AgentTask = TASK, snapshot: CorpusSnapshot = SNAPSHOT, **arguments: Any
) -> CallOutcome:
    with capsule_session(snapshot, tmp_path / "root", task) as session:
        return call(session, "search", **{"query": QUERY, **arguments})


def payload(result: ToolResult) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(result.content)
    return value


def selected_lines(result: ToolResult) -> list[tuple[str, int]]:
    return [(e.uri, e.startLine) for e in result.evidence]


def test_one_search_returns_one_evidence_bundle(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert (result.status, result.resultRole, result.errorCode) == ("ok", "evidence_bundle", None)
    assert result.evidence


def test_the_payload_is_canonical_json_with_the_projection_keys(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert result.content == canonical_text(payload(result))
    assert list(payload(result)) == ["b", "c", "e", "g", "id", "o", "r", "t", "trust", "v"]
    assert payload(result)["v"] == "gno-context-agent-v1"
    assert payload(result)["trust"] == "untrusted_data"
    assert payload(result)["g"] == ["untrusted_data", "hard_delimited", []]


def test_the_payload_e_tuples_are_exactly_the_bundle_evidence(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert payload(result)["e"] == [
        [
            e.uri,
            e.startLine,
            e.endLine,
            e.sourceHash,
            e.sourceHash,
            e.spanHash,
            e.text,
            None,
            None,
            [],
            "unavailable",
        ]
        for e in result.evidence
    ]
    assert {e.backendHashUnavailableReason for e in result.evidence} == {READ_HASH_REASON}


def test_the_payload_id_hashes_task_query_and_span_hashes(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert payload(result)["id"] == fingerprint(
        {"taskId": TASK_ID, "query": QUERY, "evidence": [e.spanHash for e in result.evidence]}
    )


def test_the_budget_section_derives_from_the_task_byte_budget(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], max_bytes=9001)

    result = bundle(tmp_path, task).result

    assert payload(result)["b"] == [2250, 9001, None, None, "model_visible_utf8", None]


def test_the_retrieval_section_names_index_config_and_retrieval_fingerprints(
    tmp_path: Path,
) -> None:
    adapter = CapsuleAdapter(SNAPSHOT)
    prepared = adapter.prepare(SNAPSHOT, tmp_path / "root", timeout_s=TIMEOUT_S)
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        session.reset(TASK, readiness_probe=False, timeout_s=TIMEOUT_S)
        outcome = call(session, "search", query=QUERY)
    finally:
        session.close()
    plan = plan_query(QUERY, ("retentionPeriod",))
    uris = {e.uri for e in outcome.result.evidence}
    stages = {
        "queryPlanning": 1,
        "lexicalSearch": len(plan.variants) * 2,
        "sourceRead": 2 * 2,  # policy.md and archive.md were hits
        "selection": 1,
        "finalization": 1,
    }

    assert uris == {"gno://c001/policy.md", "gno://c001/archive.md"}
    assert payload(outcome.result)["r"] == [
        "fast",
        prepared.index_fingerprint,
        fingerprint(CONFIG),
        fingerprint({"variants": list(plan.variants), "stages": stages}),
        None,
        None,
        ["lexicalSearch"],
        [],
    ]
    assert outcome.backend_invocations == sum(stages.values())


def test_coverage_lists_covered_facets_and_those_not_found(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], claim_keys=("retentionPeriod", "ownerName"))

    result = bundle(tmp_path, task).result

    assert payload(result)["c"] == [
        ["logs", "period", "retention"],
        [["name", "facet_not_found"], ["owner", "facet_not_found"]],
    ]


def test_omissions_are_counted_by_reason_and_total(tmp_path: Path) -> None:
    result = bundle(tmp_path).result
    total, counts = payload(result)["o"]

    assert total == sum(count for _, count in counts) > 0
    assert all(count > 0 for _, count in counts)
    order = ["duplicate", "overlap", "global_budget", "redundant_coverage"]
    assert [reason for reason, _ in counts] == [r for r in order if r in dict(counts)]


def test_every_non_blank_line_of_a_hit_is_either_selected_or_omitted(tmp_path: Path) -> None:
    result = bundle(tmp_path).result
    total, _ = payload(result)["o"]
    hits = [SNAPSHOT.by_uri("gno://c001/policy.md"), SNAPSHOT.by_uri("gno://c001/archive.md")]
    non_blank = sum(1 for file in hits if file for line in file.lines if line.strip())

    assert len(result.evidence) + total == non_blank


def test_selection_prefers_lines_that_cover_the_most_facets(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert selected_lines(result) == [("gno://c001/archive.md", 3), ("gno://c001/policy.md", 3)]


def test_within_the_budget_nothing_is_cut(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    assert payload(result)["t"] is False
    assert "global_budget" not in dict(payload(result)["o"][1])


def test_a_tight_budget_omits_lines_as_global_budget_and_stays_within_it(tmp_path: Path) -> None:
    roomy = bundle(tmp_path / "roomy").result
    budget = visible_bytes(roomy) - 1
    task = make_task(["c001", "c002"], max_bytes=budget)

    result = bundle(tmp_path / "tight", task).result

    assert visible_bytes(result) <= budget
    assert payload(result)["t"] is True
    assert dict(payload(result)["o"][1])["global_budget"] >= 1
    assert len(result.evidence) < len(roomy.evidence)


def test_a_budget_too_small_for_any_bundle_fails_the_call(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], max_bytes=200)

    with pytest.raises(AdapterCallError) as raised:
        bundle(tmp_path, task)

    assert (raised.value.code, raised.value.failure_class) == (
        "capsule_budget_exceeded",
        "product_error",
    )


def test_a_one_call_task_keeps_only_the_lines_with_the_most_facets(tmp_path: Path) -> None:
    task = make_task(["c001", "c002"], max_calls=1)
    snapshot = snapshot_from(
        {
            "c001/a.md": "# A\n\nRetention period logs: 30 days.\nRetention only.\n",
            "c001/b.md": "# B\n\nRetention period logs: 45 days.\n",
            **filler(3),
        }
    )

    result = bundle(tmp_path, task, snapshot).result

    assert selected_lines(result) == [("gno://c001/a.md", 3), ("gno://c001/b.md", 3)]


def test_a_named_collection_limits_the_bundle_to_it(tmp_path: Path) -> None:
    result = bundle(tmp_path, query="service level agreement", collection="c002").result

    assert {e.uri for e in result.evidence} == {"gno://c002/glossary.md"}


def test_a_search_that_finds_nothing_is_an_empty_bundle(tmp_path: Path) -> None:
    task = make_task(["c002"], claim_keys=("zzTop",))

    result = bundle(tmp_path, task, query="nonexistentterm").result

    assert result.evidence == ()
    assert payload(result)["e"] == [] and payload(result)["o"] == [0, []]


def test_the_agent_sees_the_bundle_once_its_evidence_list_is_empty(tmp_path: Path) -> None:
    result = bundle(tmp_path).result

    projected = project_result(result)

    assert projected.evidence == ()
    assert visible_bytes(result) == len(
        canonical_bytes(
            {
                "content": result.content,
                "errorCode": None,
                "evidence": [],
                "resultRole": "evidence_bundle",
                "status": "ok",
            }
        )
    )


def test_two_fresh_preparations_give_byte_identical_bundles(tmp_path: Path) -> None:
    first = bundle(tmp_path / "first").result
    second = bundle(tmp_path / "second").result

    assert canonical_bytes(first.to_json()) == canonical_bytes(second.to_json())


# --- the fast search is the search written plainly ----------------------------------------------

# Words for generated documents: facet words, text that NFKC changes (fullwidth letters, a
# ligature), case that lowercasing changes, an astral character, and what JSON must escape.
WORDS = (
    "retention",
    "Retention",
    "ＲＥＴＥＮＴＩＯＮ",
    "period",
    "periods",
    "logs",
    "ﬁle",
    "file",
    "İstanbul",
    "𠀀",
    "x",
    'say "hi"',
    "back\\slash",
    "tab\there",
    "dash-ed",
    "snake_case",
    "30",
    "days.",
)
lines_of_words = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
    st.sampled_from(("", "   ", "\t")),
)
documents = st.lists(st.lists(lines_of_words, min_size=1, max_size=12), min_size=1, max_size=3)
queries = st.lists(
    st.sampled_from(("retention", "period", "logs", "file", "x", "dash-ed", "30")),
    min_size=1,
    max_size=3,
).map(" ".join)


def hit_files(texts: list[list[str]]) -> list[CorpusFile]:
    return [
        corpus_file("c001", f"d{n}.md", "\n".join(lines) + "\n") for n, lines in enumerate(texts)
    ]


def make_bundler(query: str, *, max_bytes: int, max_calls: int) -> Bundler:
    task = make_task(
        ["c001"],
        claim_keys=("retentionPeriod", "fileName"),
        max_bytes=max_bytes,
        max_calls=max_calls,
    )
    plan = plan_query(query, tuple(c.claimKey for c in task.claims))
    return Bundler(
        task=task,
        plan=plan,
        index_fingerprint="1" * 64,
        config_fingerprint="2" * 64,
        retrieval_fingerprint="3" * 64,
    )


def tool_evidence(candidate: Candidate) -> ToolEvidence:
    assert isinstance(candidate.evidence, ToolEvidence)
    return candidate.evidence


def plain_bundle(bundler: Bundler, files: list[CorpusFile]) -> ToolResult:
    """The capsule's selection and payload as its module docstring states them, with no
    shortcut: a candidate with validated evidence for every non-blank line, facets tested line by
    line, ``select`` over all of them, every budget check serializing the whole bound bundle."""
    facets = bundler.plan.facets
    candidates = [
        Candidate(
            evidence=line_evidence(file, number, READ_HASH_REASON),
            retrieval_rank=index * 1000,
            facets=tuple(f for f in facets if f in normalize_text(line)),
        )
        for index, file in enumerate(files)
        for number, line in enumerate(file.lines, start=1)
        if not is_blank(line)
    ]
    worst = {reason: len(candidates) for reason in POSSIBLE_REASONS}
    budget = bundler.task.budgets.maxModelVisibleBytes

    def covered(chosen: Sequence[Candidate]) -> set[str]:
        return {f for c in chosen for f in c.facets}

    def fits(chosen: Sequence[Candidate]) -> bool:
        bound = bundler.result([tool_evidence(c) for c in chosen], covered(chosen), worst, False)
        return visible_bytes(bound) <= budget

    one_call = bundler.task.budgets.maxAgentCalls == 1
    selection = select(candidates, one_call=one_call, fits=fits)
    counts = {reason: selection.count(reason) for reason in OMISSION_REASONS}
    evidence = [tool_evidence(c) for c in selection.selected]
    result = bundler.result(
        evidence, covered(selection.selected), counts, counts["global_budget"] > 0
    )
    if visible_bytes(result) > budget:
        raise AdapterCallError("capsule_budget_exceeded", "product_error")
    return result


def outcome_bytes(make: Callable[[], ToolResult]) -> bytes:
    try:
        return canonical_bytes(make().to_json())
    except AdapterCallError as error:
        return error.code.encode()


# From too small for any bundle, through cut bundles, to every line fitting.
@given(documents, queries, st.integers(800, 3000), st.sampled_from((1, 3)))
def test_the_bundle_is_the_plain_searchs(
    texts: list[list[str]], query: str, max_bytes: int, max_calls: int
) -> None:
    files = hit_files(texts)
    bundler = make_bundler(query, max_bytes=max_bytes, max_calls=max_calls)

    fast = outcome_bytes(lambda: select_bundle(bundler, files, LineTables()))

    assert fast == outcome_bytes(lambda: plain_bundle(bundler, files))


def shuffled_candidates(
    texts: list[list[str]], query: str, rng: Random
) -> tuple[list[CorpusFile], Bundler, list[Candidate], dict[str, int], int]:
    """The hits of ``texts`` for ``query`` (12,000 bytes, three calls): every line candidate in
    a shuffled order, the omission counts at their largest, and the size of an empty bundle."""
    files = hit_files(texts)
    bundler = make_bundler(query, max_bytes=12000, max_calls=3)
    lines = line_groups(files, bundler.plan.facets, LineTables(), one_call=False)
    candidates = [g.member(i) for g in lines.groups for i in range(g.size)]
    rng.shuffle(candidates)
    worst = {reason: lines.total for reason in POSSIBLE_REASONS}
    return files, bundler, candidates, worst, visible_bytes(bundler.result([], set(), worst, False))


@given(documents, queries, st.randoms(use_true_random=False))
def test_the_bound_is_the_size_of_the_serialized_bound_bundle(
    texts: list[list[str]], query: str, rng: Random
) -> None:
    files, bundler, candidates, worst, empty = shuffled_candidates(texts, query, rng)
    bound = BundleBound(empty, bundler.plan.facets, 12000, least_tuple=0)

    for size in range(len(candidates) + 1):
        chosen = candidates[:size]
        evidence = cited_evidence(files, chosen)
        covered = {f for c in chosen for f in c.facets}
        serialized = visible_bytes(bundler.result(evidence, covered, worst, False))
        assert bound.size(chosen) == serialized
        assert bound.fits(chosen) == (serialized <= 12000)


def test_a_line_span_carries_what_a_read_gives() -> None:
    file = corpus_file("c001", "a.md", '# Ｔitle\n\nsay "hi" \\ \t tab\n𠀀 astral\n')

    for number in (1, 3, 4):
        e = line_evidence(file, number, READ_HASH_REASON)
        assert LineSpan.of(file, number) == (
            e.uri,
            e.sourceHash,
            e.startLine,
            e.endLine,
            e.spanHash,
            e.text,
        )


@given(documents, queries, st.randoms(use_true_random=False))
def test_a_full_bound_leaves_room_for_no_line_at_all(
    texts: list[list[str]], query: str, rng: Random
) -> None:
    files, bundler, candidates, _, empty = shuffled_candidates(texts, query, rng)
    chosen, rest = candidates[: len(candidates) // 2], candidates[len(candidates) // 2 :]
    exact = BundleBound(empty, bundler.plan.facets, 12000, least_tuple=0)
    smallest_next = min((exact.size([*chosen, c]) for c in rest), default=None)

    for budget in range(exact.size(chosen), exact.size(chosen) + 600, 3):
        bound = BundleBound(empty, bundler.plan.facets, budget, least_line_bytes(files))
        if bound.full(chosen):
            assert smallest_next is None or smallest_next > budget


line_texts = st.text(st.characters(blacklist_characters="\n\r", blacklist_categories=["Cs"]))


@given(st.lists(line_texts, min_size=1, max_size=6))
def test_normalizing_a_document_at_once_is_normalizing_each_line(lines: list[str]) -> None:
    assert normalized_lines(tuple(lines)) == [normalize_text(line) for line in lines]


@pytest.mark.parametrize(
    "lines",
    [
        ("ΟΔΟΣ", "Σ"),  # a final sigma at a line's end, a capital sigma alone
        ("e", "\u0301x"),  # a combining accent opening a line composes with nothing before it
        ("\u1100", "\u1161"),  # Hangul jamo split across lines stay apart
        ("ﬁ", "Ⅻ", "①"),  # compatibility forms
    ],
)
def test_normalizing_at_once_keeps_line_boundaries(lines: tuple[str, ...]) -> None:
    assert normalized_lines(lines) == [normalize_text(line) for line in lines]
