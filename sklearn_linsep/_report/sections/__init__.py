"""The report's sections, in the order they print. A new section: a module here
with a :class:`~sklearn_linsep._report._section.Section` subclass, and one line
in ``SECTIONS``."""

from ._angle import Angle
from ._cover import Cover
from ._distance import Distance
from ._joint import JointVerdict
from ._validation import CrossValidation
from ._verdict import Verdict

SECTIONS = (JointVerdict(), Verdict(), Distance(), Angle(), Cover(), CrossValidation())
