"""``python -m firmware.cli``: the ``cribbage-board`` command."""

import sys

from .command import main

sys.exit(main())
