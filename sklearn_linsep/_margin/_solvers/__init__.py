"""The solvers of the exact core, and the registry of the routes to a working
set's subproblem, for each problem kind of the driver (:mod:`.._driver`).

A route is one module here and one :func:`register` call: a name, the problem
kind it serves, what it suits (from the subproblem's size and shape, in one place
per route) and how it solves, returning a
:class:`~sklearn_linsep._margin._result.Hyperplane` or None to give way;
:func:`solve_by_routes` tries the routes that suit, in order of priority. The kinds:

- ``"rows"`` (two classes; :func:`margin_of_rows`): ``suits(rows, features)``,
  ``solve(Z, c, start, tol)``. The dense dual on the Gram matrix, then the
  nearest points, which suit every shape and always answer.
- ``"pairs"`` (K classes; registered in :mod:`._machine`): ``suits(subproblem,
  ids)``, ``solve(subproblem, ids, held)``, ``subproblem`` the loop's warm
  :class:`~._machine.WarmMachine`.

Every solver takes plain arrays (rows ``Z`` centred and scaled by the caller,
labels ``c = ±1``) and reads its own status through one table in its own module
(``_clarabel.CLARABEL``, ``_highs.HIGHS``). The soft limit's stages, the
certificate's LP and the augmented margin each have one solver, called by name.
"""

from dataclasses import dataclass
from typing import Callable

from ._active_set import (
    as_hull_weights,
    machine_from_feasible,
    margin_from_feasible,
    on_and_outside_margin,
)
from ._clarabel import (
    face_dual_qp,
    face_margin_qp,
    kesler_margin_qp,
    kesler_support_guess,
    margin_qp,
)
from ._dense_dual import dense_dual_margin, gram_active_set
from ._cost import dense_dual_suits
from ._highs import (
    hull_intersection_lp,
    kesler_flow_lp,
    kesler_hinge_lp,
    total_hinge_lp,
)
from ._ipm import least_hinge_ipm
from ._nearest import gram_margin, nearest_points, nearest_points_margin


@dataclass(frozen=True)
class Route:
    """One way to the maximal margin of a set of rows."""

    name: str
    suits: Callable  # suits(rows, features) -> bool
    solve: Callable  # solve(...) -> Hyperplane, or None: next route
    priority: int  # lower first
    kind: str = "rows"  # the problem kind it serves: "rows" or "pairs"


ROUTES = []


def register(route):
    """Add a route to its problem kind's choices (:func:`solve_by_routes`)."""
    ROUTES.append(route)
    ROUTES.sort(key=lambda known: known.priority)


def solve_by_routes(kind, suits_with, solve_with):
    """The answer of the first route of ``kind`` that suits (``route.suits(
    *suits_with)``) and answers (``route.solve(*solve_with)`` not None)."""
    for route in ROUTES:
        if route.kind == kind and route.suits(*suits_with):
            solution = route.solve(*solve_with)
            if solution is not None:
                return solution
    raise AssertionError(f"the last route of {kind} always answers")  # pragma: no cover


register(Route("dense dual", dense_dual_suits, dense_dual_margin, priority=10))
register(
    Route("nearest points", lambda m, q: True, nearest_points_margin, priority=100)
)


def margin_of_rows(Z, c, start=None, tol=1e-12):
    """The maximal-margin hyperplane of rows ``Z`` (labels ``c = ±1``) by the first
    route that suits and answers, or their hulls' meeting (``feasible`` False,
    ``weights`` the candidate certificate's λ). ``start``: a previous answer's λ."""
    solution = solve_by_routes("rows", Z.shape, (Z, c, start, tol))
    if solution.weights is None and solution.dual is not None:
        solution.weights = as_hull_weights(solution.dual, c)
    return solution


__all__ = [
    "as_hull_weights",
    "on_and_outside_margin",
    "ROUTES",
    "Route",
    "face_dual_qp",
    "face_margin_qp",
    "gram_active_set",
    "gram_margin",
    "hull_intersection_lp",
    "kesler_flow_lp",
    "kesler_hinge_lp",
    "kesler_margin_qp",
    "kesler_support_guess",
    "margin_of_rows",
    "least_hinge_ipm",
    "machine_from_feasible",
    "margin_from_feasible",
    "margin_qp",
    "nearest_points",
    "register",
    "solve_by_routes",
    "total_hinge_lp",
]
