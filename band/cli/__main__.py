"""``python -m band.cli``: the ``band`` command."""

import sys

from band.cli import main

sys.exit(main())
