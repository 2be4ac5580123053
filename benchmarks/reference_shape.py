"""A generated fixture of the contract reference's shape, for the ``reference-lane`` benchmark.

The shape of contract v1, section 2 ("Reference fixture shape"): 24 tasks over the nine
categories (counts 3/3/2/3/3/2/2/4/2), 34 four-line Markdown documents (``# Title``, blank,
``Label: value``, one more line) in 26 collections, one required substantive claim per task,
every oracle span a single line (line 3), budgets 3 calls / 12000 bytes except one 1-call task
with ``failOnUnexpectedEvidence``, two tasks with an ``expectedScope.collection`` (and a second
collection), two with forbidden evidence (a draft, an old policy), two abstention tasks
(``claims: []``, ``expectedMissing: [key]``) and multilingual tasks in es, zh, de and fr.

The content is made up; the bytes are deterministic. Hashing, span and manifest rules are the
kit's own (``agentic.fixture.spans``, ``agentic.contract.canonical``, ``fixture pin``). As in the
reference, the fixture agent fails two tasks per lexical cohort (the 1-call task returns
unexpected evidence; on one ambiguity task BM25 ranks a shorter decoy first) and none with
capsule, so the promotion gate capsule:lexical passes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentic.catalog.agent_openers import CUES_FILE
from agentic.contract.canonical import sha256_hex, stable_pretty_json
from agentic.fixture.manifest import corpus_prefix, oracle_path, task_path
from agentic.fixture.pin import HeaderOverrides, pin_fixture
from agentic.fixture.spans import span_hash

BUDGET_BYTES = 12000
INSTRUCTIONS = (
    "Return only the declared structured claims or gaps.",
    "Cite exact evidence spans and abstain when required evidence is absent.",
)
NORMALIZERS = {
    "identifier": "identifier-v1",
    "date": "iso-date-v1",
    "string[]": "string-set-v1",
    "number": "exact-v1",
    "boolean": "exact-v1",
    "string": "exact-v1",
}


@dataclass(frozen=True)
class Doc:
    """A four-line document; ``line`` (line 3) is the only line an oracle ever cites."""

    title: str
    line: str
    last: str

    def text(self) -> str:
        return f"# {self.title}\n\n{self.line}\n{self.last}\n"


@dataclass(frozen=True)
class Spec:
    """One task: its claim, the documents that answer it and the ones that only look alike."""

    category: str
    goal: str
    key: str
    value_type: str
    cue: str
    value: Any  # None: an abstention task, nothing in the corpus answers it
    answers: tuple[Doc, ...]
    decoys: tuple[Doc, ...] = ()
    forbidden: tuple[Doc, ...] = ()
    other_collection: Doc | None = None  # a second collection; the answer's becomes the scope
    one_call: bool = False
    normalizer: str = ""  # default: the one NORMALIZERS gives for the value type


SPECS: tuple[Spec, ...] = (
    # exact_identifier (3)
    Spec(
        "exact_identifier",
        "Which incident reference was assigned to the Ostrava card gateway outage?",
        "gatewayIncidentReference",
        "identifier",
        "incident reference:",
        "PAY-INC-2291",
        (Doc("Ostrava card outage", "Incident reference: PAY-INC-2291", "Closed after failover."),),
    ),
    Spec(
        "exact_identifier",
        "Which change ticket covers the Brno router firmware upgrade?",
        "routerChangeTicket",
        "identifier",
        "change ticket:",
        "NET-CHG-0417",
        (Doc("Brno firmware upgrade", "Change ticket: NET-CHG-0417", "Scheduled for Sunday."),),
        other_collection=Doc("Brno switch inventory", "Asset tag: NET-AST-9920", "Audited."),
    ),
    Spec(
        "exact_identifier",
        "Which handover ticket did the night shift file?",
        "handoverTicketReference",
        "identifier",
        "handover ticket reference:",
        "OPS-TKT-4410",
        (Doc("Night shift log", "Handover ticket reference: OPS-TKT-4410", "Filed at 06:00."),),
        one_call=True,
    ),
    # ambiguity (3)
    Spec(
        "ambiguity",
        "Who owns the primary billing database?",
        "primaryDatabaseOwner",
        "string",
        "database owner:",
        "Marta Kovacs",
        (Doc("Billing store", "Primary database owner: Marta Kovacs", "Reviewed in May 2026."),),
        # Shorter, so BM25 ranks it first: a lexical agent reads the replica's owner.
        decoys=(Doc("Replica", "Database owner: Ian Roy", "Read only."),),
    ),
    Spec(
        "ambiguity",
        "Which region hosts the Lisbon production cluster?",
        "productionClusterRegion",
        "string",
        "production cluster region:",
        "eu-south-2",
        (Doc("Lisbon hosting", "Production cluster region: eu-south-2", "Since March."),),
        decoys=(Doc("Lisbon staging", "Staging cluster region: eu-west-1", "Not production."),),
    ),
    Spec(
        "ambiguity",
        "What is the on-call pager alias of the payments team?",
        "paymentsPagerAlias",
        "string",
        "payments pager alias:",
        "pay-oncall",
        (Doc("On-call rota", "Payments pager alias: pay-oncall", "Rotates weekly."),),
        decoys=(Doc("Payout rota", "Payouts pager alias: payout-oncall", "Not payments."),),
        normalizer="trim-lower-v1",
    ),
    # multi_document_comparison (2)
    Spec(
        "multi_document_comparison",
        "Across both cold-chain runbooks, who are the escalation contacts?",
        "coldChainEscalationContacts",
        "string[]",
        "escalation contact:",
        ["Dana Whit", "Ravi Osei"],
        (
            Doc("Northern depot runbook", "Escalation contact: Dana Whit", "Night shift."),
            Doc("Southern depot runbook", "Escalation contact: Ravi Osei", "Day shift."),
        ),
    ),
    Spec(
        "multi_document_comparison",
        "Of the two archive tier contracts, what is the higher uptime in percent?",
        "archiveTierUptimePct",
        "number",
        "archive tier uptime:",
        99.9,
        (
            Doc("Bramble storage contract", "Archive tier uptime: 99.5", "Renewed in 2026."),
            Doc("Corvane storage contract", "Archive tier uptime: 99.9", "Signed in 2025."),
        ),
    ),
    # meeting_decision (3)
    Spec(
        "meeting_decision",
        "Which database did the ledger meeting decide on?",
        "ledgerDatabaseChoice",
        "string",
        "decided database:",
        "PostgreSQL",
        (Doc("Finance meeting minutes", "Decided database: PostgreSQL", "Unanimous."),),
        forbidden=(
            Doc("Finance meeting agenda", "Proposed database: MySQL", "Draft: decided next week."),
        ),
    ),
    Spec(
        "meeting_decision",
        "Did the release meeting approve the weekend freeze?",
        "weekendFreezeApproved",
        "boolean",
        "weekend freeze approved:",
        True,
        (Doc("Release meeting minutes", "Weekend freeze approved: yes", "From Friday 18:00."),),
    ),
    Spec(
        "meeting_decision",
        "On which date did the steering meeting set the Atlas launch?",
        "atlasLaunchDate",
        "date",
        "atlas launch date:",
        "2026-09-14",
        (Doc("Steering meeting minutes", "Atlas launch date: 2026-09-14", "Confirmed."),),
    ),
    # temporal (3)
    Spec(
        "temporal",
        "What is the current retention period for audit logs?",
        "auditLogRetention",
        "string",
        "current retention period:",
        "30 days",
        (Doc("Records policy 2026", "Current retention period: 30 days", "In force."),),
        forbidden=(
            Doc(
                "Records policy 2024", "Retention period: 90 days", "Retired: see the current one."
            ),
        ),
    ),
    Spec(
        "temporal",
        "From which date does the revised travel policy apply?",
        "travelPolicyEffectiveDate",
        "date",
        "revised policy effective:",
        "2026-05-01",
        (
            Doc(
                "Expense rules, second issue",
                "Revised policy effective: 2026-05-01",
                "Replaces v1.",
            ),
        ),
        decoys=(
            Doc("Expense rules, first issue", "Policy effective: 2025-01-01", "Revised in 2026."),
        ),
    ),
    Spec(
        "temporal",
        "When is the Ferrow load test due?",
        "ferrowLoadTestDue",
        "date",
        "load test due:",
        "2026-11-02",
        (Doc("Capacity plan", "Load test due: 2026-11-02", "Owner: platform team."),),
    ),
    # typed_relationship (2)
    Spec(
        "typed_relationship",
        "Which upstream service does the rate service depend on?",
        "rateServiceUpstream",
        "identifier",
        "depends on:",
        "SVC-FX-7",
        (Doc("Quotes backend", "Depends on: SVC-FX-7", "Called per quote."),),
        other_collection=Doc("FX service", "Consumed by: SVC-RATE-2", "Async feed."),
    ),
    Spec(
        "typed_relationship",
        "Which team maintains the invoice renderer?",
        "invoiceRendererMaintainer",
        "string",
        "maintained by:",
        "Docs Platform",
        (Doc("PDF output component", "Maintained by: Docs Platform", "Since 2025."),),
    ),
    # code_documentation (2)
    Spec(
        "code_documentation",
        "What is the default max_parallel setting of the upload CLI?",
        "uploadMaxParallelDefault",
        "number",
        "default max_parallel:",
        6,
        (Doc("CLI configuration reference", "Default max_parallel: 6", "Range 1 to 32."),),
    ),
    Spec(
        "code_documentation",
        "What is the default log level of the ingest worker?",
        "ingestDefaultLogLevel",
        "string",
        "default log level:",
        "info",
        (Doc("Worker settings", "Default log level: info", "Change it per environment."),),
        normalizer="trim-lower-v1",
    ),
    # multilingual (4: es, zh, de, fr)
    Spec(
        "multilingual",
        "¿Está activada la replicación entre regiones del clúster Albatros?",
        "albatrosReplicacionActiva",
        "boolean",
        "replicación entre regiones:",
        True,
        (Doc("Clúster de pagos", "Replicación entre regiones: activada", "Desde abril."),),
    ),
    Spec(
        "multilingual",
        "青石项目的负责人是谁？",
        "qingshiProjectLead",
        "string",
        "项目负责人",
        "李伟",
        (Doc("青石项目周报", "项目负责人：李伟", "下次评审在六月。"),),
    ),
    Spec(
        "multilingual",
        "Wie hoch ist der maximale Betriebsdruck der Kältemaschine KM-40 in bar?",
        "km40MaxDruckBar",
        "number",
        "maximaler betriebsdruck:",
        16,
        (Doc("Kältemaschine KM-40", "Maximaler Betriebsdruck: 16 bar", "Ausgabe 2026."),),
    ),
    Spec(
        "multilingual",
        "À partir de quelle date le règlement du parking entre-t-il en vigueur ?",
        "parkingRuleStartDate",
        "date",
        "entrée en vigueur :",
        "2026-04-01",
        (Doc("Règles du site", "Entrée en vigueur : 2026-04-01", "Affiché à l'accueil."),),
    ),
    # missing_evidence (2): the corpus talks about the subject but never states the value
    Spec(
        "missing_evidence",
        "On which date will the Hollin vendor sunset its API?",
        "vendorSunsetDate",
        "date",
        "sunset date:",
        None,
        (Doc("Roadmap notes", "Vendor: Hollin Systems", "A sunset has no date yet."),),
    ),
    Spec(
        "missing_evidence",
        "Which budget code was assigned to the Harbor project?",
        "harborBudgetCode",
        "identifier",
        "budget code:",
        None,
        (Doc("Project finances", "Budget owner: Finance", "The code is still pending."),),
    ),
)


def task_id(number: int) -> str:
    return f"t5e{number:05x}"


def canary(task: str) -> str:
    return f"oracle-only-{task}-9f7c2a"


def _evidence(collection: str, rel_path: str, doc: Doc) -> dict[str, Any]:
    return {
        "uri": f"gno://{collection}/{rel_path}",
        "sourceHash": sha256_hex(doc.text()),
        "startLine": 3,
        "endLine": 3,
        "spanHash": span_hash(doc.line),
        "sourceHashProvenance": "harness_observed",
        "spanHashProvenance": "harness_observed",
    }


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def _write_task(root: Path, number: int, spec: Spec, collections: list[str]) -> None:
    task = task_id(number)
    own, other = collections[0], collections[1:]
    placed: dict[str, list[dict[str, Any]]] = {"answers": [], "forbidden": []}
    groups = (("answers", spec.answers), ("decoys", spec.decoys), ("forbidden", spec.forbidden))
    documents = [(group, doc) for group, docs in groups for doc in docs]
    for index, (group, doc) in enumerate(documents, start=1):
        rel_path = f"d{index:03d}.md"
        _write(root / (corpus_prefix(task, own) + rel_path), doc.text())
        if group in placed:
            placed[group].append(_evidence(own, rel_path, doc))
    if spec.other_collection is not None:
        _write(root / (corpus_prefix(task, other[0]) + "d001.md"), spec.other_collection.text())
    calls = 1 if spec.one_call else 3
    public = {
        "schemaVersion": "1.0",
        "taskId": task,
        "category": spec.category,
        "brief": {"goal": spec.goal, "instructions": list(INSTRUCTIONS)},
        "claims": [
            {
                "claimKey": spec.key,
                "valueType": spec.value_type,
                "substantive": True,
                "required": True,
            }
        ],
        "allowedTools": ["search", "get", "multi_get"],
        "budgets": {"maxAgentCalls": calls, "maxModelVisibleBytes": BUDGET_BYTES},
        "corpus": {"collections": collections},
    }
    claims = []
    if spec.value is not None:
        claims.append(
            {
                "claimKey": spec.key,
                "expectedValue": {"type": spec.value_type, "value": spec.value},
                "normalizer": {"id": spec.normalizer or NORMALIZERS[spec.value_type], "version": 1},
                "requiredEvidence": placed["answers"],
                "optionalEvidence": [],
                "forbiddenEvidence": placed["forbidden"],
            }
        )
    oracle = {
        "schemaVersion": "1.0",
        "taskId": task,
        "claims": claims,
        "expectedMissing": [] if claims else [spec.key],
        "expectedScope": {"collection": own if other else None, "filters": {}},
        "completion": {
            "expectAbstention": not claims,
            "maxAgentCalls": calls,
            "maxModelVisibleBytes": BUDGET_BYTES,
            "failOnUnexpectedEvidence": spec.one_call,
        },
        "leakCanaries": [canary(task)],
    }
    _write(root / task_path(task), stable_pretty_json(public))
    _write(root / oracle_path(task), stable_pretty_json(oracle))


def write_reference_fixture(root: Path) -> Path:
    """Write the fixture and its cue table under ``root``, pin its manifest; return ``root``.

    Pinning runs the kit's full verification, so a generated fixture that would not load fails
    here with the loader's own message.
    """
    root = Path(root)
    collection = 0
    for number, spec in enumerate(SPECS):
        width = 2 if spec.other_collection is not None else 1
        collections = [f"c{collection + offset + 1:03x}" for offset in range(width)]
        collection += width
        _write_task(root, number, spec, collections)
    cues = {
        "schemaVersion": "1.0",
        "agentId": "fixture-agent-v1",
        "claims": {spec.key: {"cues": [spec.cue]} for spec in SPECS},
    }
    _write(root / CUES_FILE, stable_pretty_json(cues))
    pin_fixture(
        root,
        HeaderOverrides(
            fixture_version="reference-shape-1",
            license="MIT",
            provenance="generated by benchmarks/reference_shape.py (contract v1 reference shape)",
        ),
    )
    return root
