from agentic.cli import main

raise SystemExit(main())
