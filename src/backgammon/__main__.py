"""``python -m backgammon`` runs the command line."""

import sys

from backgammon.cli import main

sys.exit(main())
