"""The exact core: the maximal-margin hyperplane, the C → ∞ soft limit and the
certificates of (in)separability, on a working set of rows or pairs.

* ``_driver``: the one loop every problem kind goes through (decide, finish in
  X's units, check, prove; the certificate, the deciders beyond float64 with
  their typed ``Decision``, the soft limit), and the kinds' protocol;
* ``_result``: the statuses, the solvers' answer type and the results, with the
  scale-aware verification;
* ``_solvers/``: one module per solver, the registry of routes to a working
  set's subproblem (a new solver is one module and one ``register`` call) and
  ``_cost``, the one cost model;
* ``_hard``: two classes as a problem kind, the hard margin and the verdict;
  ``_soft``: the soft limit; ``_principal``: two and K classes decided again in
  the frame of the rows' principal axes;
  ``_certificate``: the certificate of inseparability; ``_kkt``: the optimality
  conditions every route checks and the proof on X;
* ``_wide``: the same answers for sparse rows with at least as many features as
  rows (text), in the span of the rows: the verdict from one sparse LP, every
  margin subproblem on the working set's Gram matrix, X never densified;
* ``_multiclass``: K classes jointly (Kesler's construction): the verdict with
  its certificate and the Crammer–Singer maximal margin, on a working set of
  pairs (row, other class);
* ``_min_error``: the fewest rows to remove for the rest to separate, bounded by
  certificates (a hitting-set MIP) from below and greedy removals from above.

The estimator (``_svm``) and the separability functions (``_certificates``) both
stand on :func:`maximal_margin_of`.
"""

from ._hard import maximal_margin, maximal_margin_of
from ._min_error import MinimumErrorResult, minimum_errors
from ._multiclass import joint_margin_of
from ._result import Hyperplane, JointSeparabilityResult, SeparabilityResult, Status
from ._solvers._highs import native_stdout_silenced

__all__ = [
    "Hyperplane",
    "JointSeparabilityResult",
    "MinimumErrorResult",
    "SeparabilityResult",
    "Status",
    "joint_margin_of",
    "maximal_margin",
    "maximal_margin_of",
    "minimum_errors",
    "native_stdout_silenced",
]
