"""The report's sections, in the order they print.

A new section is one module here with a
:class:`~sklearn_linsep._report._section.Section` subclass (its key, compute step,
text, help, and :meth:`~sklearn_linsep._report._section.Section.headline` where it
has something to say in the report's first lines), and one entry in ``SECTIONS``.
The report's JSON, its text, its headline and "How to read this" take every
section registered here: none of them names a section. The order here is also the
order of the sections' clauses in the headline's verdict and of their steps in its
"Next" line.
"""

from ._angle import Angle
from ._complexity import Complexity
from ._cover import Cover
from ._distance import Distance
from ._joint import JointVerdict
from ._validation import CrossValidation
from ._verdict import Verdict

SECTIONS = (
    JointVerdict(),
    Verdict(),
    Distance(),
    Angle(),
    Cover(),
    Complexity(),
    CrossValidation(),
)
