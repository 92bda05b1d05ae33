"""``python -m sklearn_linsep report ...``: the same as the ``linsep`` command."""

import sys

from .cli import main

sys.exit(main())
