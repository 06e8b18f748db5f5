"""``python -m band.mcp``."""

from band.mcp.cli import main

raise SystemExit(main())
