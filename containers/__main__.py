"""``python -m containers``: the pipeline behind ``nox -s container`` (see containers.pipeline)."""

from containers.pipeline import main

raise SystemExit(main())
