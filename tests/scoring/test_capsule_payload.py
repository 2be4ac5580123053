"""The structural check of a replayed Capsule payload (``scoring/capsule_payload.py``), which the
promotion gate trusts before it compares two replays: canonical JSON whose sha256 is recorded,
then a ``gno-context-agent-v1`` projection with every field of the right shape.

The well-formed projection is ``tests.support.scoring.capsule_projection``; each case below
replaces one value at one path and must be refused, or is an allowed variant and must pass.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agentic.contract.canonical import sha256_hex
from agentic.contract.json_access import array_at
from agentic.contract.report import ReplayPayload
from agentic.scoring.capsule_payload import projection_valid, replay_payload_valid
from tests.support.scoring import HASH_A, HASH_B, capsule_projection, payload_text

Path = tuple[str | int, ...]
DROP = object()  # as a replacement value: remove the key


def replaced(path: Path, value: Any) -> dict[str, Any]:
    """The well-formed projection with the value at ``path`` replaced (or dropped)."""
    projection = copy.deepcopy(capsule_projection())
    *parents, last = path
    target: Any = projection
    for step in parents:
        target = target[step]
    if value is DROP:
        del target[last]
    else:
        target[last] = value
    return projection


GUIDANCE_ITEM = [HASH_A, "collection", "c001", "Cite exact lines."]
EVIDENCE = ("e", 0)

INVALID: list[tuple[Path, Any]] = [
    # top level
    (("t",), DROP),
    (("extra",), 1),
    (("v",), "gno-context-agent-v2"),
    (("id",), "a" * 63),
    (("id",), "A" * 64),
    (("id",), None),
    (("t",), 0),
    (("trust",), "trusted"),
    # b: [requestedTokens, requestedBytes, usedTokens|null, usedBytes|null, unit, tokenizer|null]
    (("b",), [3000, 12000, None, None, "model_visible_utf8"]),
    (("b",), {"tokens": 3000}),
    (("b", 0), "3000"),
    (("b", 0), True),
    (("b", 1), None),
    (("b", 2), "x"),
    (("b", 3), "x"),
    (("b", 4), None),
    (("b", 5), "tokenizer"),
    # r: [mode, index, config, retrieval, embedding|null, rerank|null, stages, fallbacks]
    (("r",), ["fast", HASH_A, HASH_B, HASH_A, None, None, ["lexicalSearch"]]),
    (("r", 0), None),
    (("r", 1), "x"),
    (("r", 2), None),
    (("r", 3), "x"),
    (("r", 4), "x"),
    (("r", 5), "x"),
    (("r", 6), "lexicalSearch"),
    (("r", 6), [1]),
    (("r", 7), "none"),
    (("r", 7), [None]),
    # e: one or more [uri, start, end, source, mirror, passage, text, title, heading, ids, egress]
    (("e",), []),
    (("e",), "evidence"),
    ((*EVIDENCE,), ["gno://c001/d001.md", 3, 3]),
    ((*EVIDENCE, 0), None),
    ((*EVIDENCE, 1), 3.5),
    ((*EVIDENCE, 1), "3"),
    ((*EVIDENCE, 2), 3.5),
    ((*EVIDENCE, 2), True),
    ((*EVIDENCE, 3), "x"),
    ((*EVIDENCE, 4), "x"),
    ((*EVIDENCE, 5), None),
    ((*EVIDENCE, 6), None),
    ((*EVIDENCE, 7), 1),
    ((*EVIDENCE, 8), 1),
    ((*EVIDENCE, 9), HASH_A),
    ((*EVIDENCE, 9), ["x"]),
    ((*EVIDENCE, 10), "internet"),
    # g: ["untrusted_data", "hard_delimited", [[hash, scope, target, text], ...]]
    (("g",), ["untrusted_data", "hard_delimited"]),
    (("g", 0), "trusted"),
    (("g", 1), "soft_delimited"),
    (("g", 2), "none"),
    (("g", 2), [GUIDANCE_ITEM[:3]]),
    (("g", 2), [["x", *GUIDANCE_ITEM[1:]]]),
    (("g", 2), [[HASH_A, "document", *GUIDANCE_ITEM[2:]]]),
    (("g", 2), [[*GUIDANCE_ITEM[:2], None, GUIDANCE_ITEM[3]]]),
    (("g", 2), [[*GUIDANCE_ITEM[:3], None]]),
    # c: [covered facets, [[facet, reason], ...]]
    (("c",), [["owner"]]),
    (("c", 0), [1]),
    (("c", 1), "none"),
    (("c", 1), [["team"]]),
    (("c", 1), [["team", 1]]),
    # o: [total, [[reason, count > 0], ...]], total == sum of counts
    (("o",), [3]),
    (("o", 0), 4),
    (("o", 0), "3"),
    (("o", 1), "duplicate"),
    (("o", 1), [["duplicate", 1], ["redundant_coverage", 2, "x"]]),
    (("o", 1), [[1, 1], ["redundant_coverage", 2]]),
    (("o", 1), [["duplicate", 1.5], ["redundant_coverage", 1.5]]),
    (("o", 1), [["duplicate", 0], ["redundant_coverage", 3]]),
    (("o", 1), [["duplicate", -1], ["redundant_coverage", 4]]),
]

ALLOWED: list[tuple[Path, Any]] = [
    (("b", 2), 2900),
    (("b", 3), 11000.5),
    (("b", 5), HASH_B),
    (("r", 4), HASH_B),
    (("r", 5), HASH_B),
    (("r", 7), ["semantic"]),
    ((*EVIDENCE, 1), 1e21),  # JSON has one number type: this is an integer
    ((*EVIDENCE, 7), "Policy"),
    ((*EVIDENCE, 8), "Owner"),
    ((*EVIDENCE, 9), [HASH_A, HASH_B]),
    ((*EVIDENCE, 10), "local_only"),
    (("g", 2), [GUIDANCE_ITEM]),
    (("c", 1), []),
    (("o",), [0, []]),
    (("t",), True),
]


def label(case: tuple[Path, Any]) -> str:
    path, value = case
    shown = "drop" if value is DROP else repr(value)[:24]
    return "/".join(str(step) for step in path) + "=" + shown


def test_the_well_formed_projection_is_valid() -> None:
    assert projection_valid(capsule_projection()) is True


@pytest.mark.parametrize("case", INVALID, ids=[label(c) for c in INVALID])
def test_a_projection_with_one_malformed_value_is_invalid(case: tuple[Path, Any]) -> None:
    assert projection_valid(replaced(*case)) is False


@pytest.mark.parametrize("case", ALLOWED, ids=[label(c) for c in ALLOWED])
def test_an_allowed_variant_of_one_value_is_valid(case: tuple[Path, Any]) -> None:
    assert projection_valid(replaced(*case)) is True


def test_several_evidence_tuples_are_each_checked() -> None:
    good = array_at(capsule_projection(), "e", 0)
    bad = [*good[:10], "internet"]

    assert projection_valid(capsule_projection(e=[good, good])) is True
    assert projection_valid(capsule_projection(e=[good, bad])) is False


# --- the replayed payload ---------------------------------------------------------------------


def payload(text: str, digest: str | None = None) -> ReplayPayload:
    return ReplayPayload(canonicalJson=text, sha256=digest or sha256_hex(text))


def test_a_canonical_payload_with_its_hash_is_valid() -> None:
    assert replay_payload_valid(payload(payload_text())) is True


def test_a_payload_recorded_with_another_hash_is_invalid() -> None:
    assert replay_payload_valid(payload(payload_text(), HASH_A)) is False


def test_a_payload_that_is_not_canonical_json_is_invalid() -> None:
    spaced = payload_text().replace(",", ", ", 1)

    assert replay_payload_valid(payload(spaced)) is False


def test_a_payload_that_is_not_json_is_invalid() -> None:
    assert replay_payload_valid(payload("{not json")) is False


def test_a_payload_beyond_canonical_json_numbers_is_invalid() -> None:
    assert replay_payload_valid(payload("[9007199254740993]")) is False


def test_a_canonical_payload_that_is_not_an_object_is_invalid() -> None:
    assert replay_payload_valid(payload("[1,2]")) is False


def test_a_canonical_object_that_is_no_projection_is_invalid() -> None:
    assert replay_payload_valid(payload(payload_text({**capsule_projection(), "v": "x"}))) is False
