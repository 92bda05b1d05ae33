"""The exact core: the maximal-margin hyperplane, the C → ∞ soft limit and the
certificates of (in)separability, on a working set of rows or pairs.

ARCHITECTURE.md maps its modules: ``_driver``, the one loop every problem kind
goes through; the kinds (``_hard``: two classes, dense or wide sparse rows;
``_multiclass``: K classes jointly, on Kesler's pairs) and what they share.

The estimator (``_svm``) and the separability functions (``_certificates``) both
stand on :func:`maximal_margin_of`.
"""

from ._hard import maximal_margin_of
from ._min_error import MinimumErrorResult, minimum_errors
from ._multiclass import joint_margin_of
from ._result import Hyperplane, JointSeparabilityResult, SeparabilityResult, Status

__all__ = [
    "Hyperplane",
    "JointSeparabilityResult",
    "MinimumErrorResult",
    "SeparabilityResult",
    "Status",
    "joint_margin_of",
    "maximal_margin_of",
    "minimum_errors",
]
