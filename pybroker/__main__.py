"""``python -m pybroker``: the ``pybroker`` command (:mod:`pybroker.cli`)."""

import sys

from pybroker.cli import main

sys.exit(main())
