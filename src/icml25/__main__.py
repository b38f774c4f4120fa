"""``python -m icml25``: the same command line as ``icml25``."""

import sys

from icml25.lab.cli import main

sys.exit(main())
