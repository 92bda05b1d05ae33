"""``python -m sklearn_linsep report ...``: the same as the ``linsep`` command."""

import sys

from .cli import _program

sys.exit(_program())
