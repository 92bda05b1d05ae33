"""The solvers of the exact core, and the registry of the routes to the maximal
margin of a set of rows.

A route is one module here and one :func:`register` call below: a name, which
shapes ``(rows, features)`` it suits, and ``solve(Z, c, start, tol)`` returning a
:class:`~sklearn_linsep._margin._result.Hyperplane`, or None to give way to the
next route. :func:`margin_of_rows` tries the routes that suit, in order of priority;
the nearest points suit every shape and always answer (a hyperplane, or the hulls'
meeting with its weights), so they come last.

Every solver takes plain arrays (rows ``Z`` already centred and scaled by the
caller, labels ``c = ±1``), reads its own status through one table in its own
module (``_clarabel.CLARABEL``, ``_highs.HIGHS``) and never sees an estimator.

The registry covers the hard margin of a set of rows, the subproblem of the
working set (the verdict, the maximal margin, the soft limit's separable subsets).
The soft limit's stages (the least-hinge LP, the QP over its optimal face), the
certificate's LP and the augmented margin each have one solver, called by name.
"""

from dataclasses import dataclass
from typing import Callable

from ._active_set import (
    _as_hull_weights,
    machine_from_feasible,
    machine_on_support,
    margin_from_feasible,
    support_hyperplane,
)
from ._clarabel import face_dual_qp, face_margin_qp, kesler_margin_qp, margin_qp
from ._dense_dual import (
    HeldSystem,
    dense_dual_margin,
    dense_dual_suits,
    gram_active_set,
    pair_active_set,
    pair_dual_suits,
    pair_held_system,
)
from ._highs import (
    hull_intersection_lp,
    kesler_flow_lp,
    kesler_hinge_lp,
    total_hinge_lp,
)
from ._ipm import least_hinge_ipm
from ._nearest import (
    NearestPoints,
    gram_coordinates,
    gram_margin,
    nearest_points,
    nearest_points_margin,
)


@dataclass(frozen=True)
class Route:
    """One way to the maximal margin of a set of rows."""

    name: str
    suits: Callable  # suits(rows, features) -> bool
    solve: Callable  # solve(Z, c, start, tol) -> Hyperplane, or None: next route
    priority: int  # lower first


ROUTES = []


def register(route):
    """Add a route to :func:`margin_of_rows`'s choices."""
    ROUTES.append(route)
    ROUTES.sort(key=lambda known: known.priority)


register(Route("dense dual", dense_dual_suits, dense_dual_margin, priority=10))
register(
    Route("nearest points", lambda m, q: True, nearest_points_margin, priority=100)
)


def margin_of_rows(Z, c, start=None, tol=1e-12):
    """The maximal-margin hyperplane of the rows ``Z`` (labels ``c = ±1``), or the
    meeting of their hulls (``feasible`` False, with the weights λ of the
    candidate certificate), by the first route that suits their shape and
    answers. ``start`` is the λ of a previous answer (a warm start)."""
    m, q = Z.shape
    for route in ROUTES:
        if route.suits(m, q):
            solution = route.solve(Z, c, start, tol)
            if solution is not None:
                if solution.weights is None and solution.dual is not None:
                    answer = (solution.coef, solution.intercept, solution.dual)
                    solution.weights = _as_hull_weights(answer, c)
                return solution
    raise AssertionError("the nearest points always answer")  # pragma: no cover


__all__ = [
    "HeldSystem",
    "NearestPoints",
    "ROUTES",
    "Route",
    "face_dual_qp",
    "face_margin_qp",
    "gram_active_set",
    "gram_coordinates",
    "gram_margin",
    "hull_intersection_lp",
    "kesler_flow_lp",
    "kesler_hinge_lp",
    "kesler_margin_qp",
    "margin_of_rows",
    "least_hinge_ipm",
    "machine_from_feasible",
    "machine_on_support",
    "margin_from_feasible",
    "margin_qp",
    "nearest_points",
    "pair_active_set",
    "pair_dual_suits",
    "pair_held_system",
    "register",
    "support_hyperplane",
    "total_hinge_lp",
]
