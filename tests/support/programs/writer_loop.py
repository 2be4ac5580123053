"""Child process for the kill test: rewrite one artifact set forever, generation by generation."""

from __future__ import annotations

import sys
from pathlib import Path

from agentic.output.staging import ARTIFACT_NAMES, write_artifacts

PADDING = b"x" * 200_000


def files_for(generation: int) -> dict[str, bytes]:
    stamp = f"generation {generation}\n".encode()
    return {name: stamp + PADDING for name in ARTIFACT_NAMES}


def main() -> None:
    target = Path(sys.argv[1])
    generation = int(sys.argv[2])
    while True:
        generation += 1
        write_artifacts(target, files_for(generation))
        print(generation, flush=True)


if __name__ == "__main__":
    main()
