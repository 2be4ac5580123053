"""One lane run end to end. Its modules read down the data flow:

- ``request``: what a run is asked, where its pairs execute, what it ends with;
- ``run_config``: what a run of pairs is given, and whom it tells of each record;
- ``plan``: the fixture verified, the agent opened, the schedule and gate checked, the identity;
- ``execute``: where the report goes, the pairs run on an executor, journaled or as a shard;
- ``executors``: this process (``local``), a local process pool, Ray tasks;
- ``work_dir``: the temporary folder a run works in, and the sweep of those left by killed runs;
- ``harness_records``: the preparation records, and the receipts of pairs that never ran;
- ``run_result``: what a run of pairs ends with, combined from its parts;
- ``journal``: every finished pair, sealed, so a killed run resumes;
- ``shards``: a slice of the pairs written for ``agentic merge``, and the merge's checks;
- ``results``: scores, gate, report, exit code.

Nothing in it imports a module above it: executors import ``plan`` and ``request``, never
``execute``.
"""

from agentic.lane.execute import execute_lane
from agentic.lane.plan import LanePlan, plan_lane
from agentic.lane.request import Execution, LaneOutcome, LaneRequest
from agentic.lane.results import harness_failure, report_lane

__all__ = [
    "Execution",
    "LaneOutcome",
    "LanePlan",
    "LaneRequest",
    "execute_lane",
    "harness_failure",
    "plan_lane",
    "report_lane",
]
