"""``python -m checkers``: the ``checkers`` command."""

import sys

from checkers.cli import main

sys.exit(main())
