"""The fewest rows whose removal leaves two classes linearly separable, or K
classes jointly separable by one linear machine (the minimum-error, or maximum
feasible subsystem, problem): bounds from both sides, exact when they meet.

Lower bounds by combinatorial Benders (Codato & Fischetti 2006): a certificate of
inseparability is a set of rows of which at least one must go. The fewest rows
meeting every certificate so far (a hitting-set MIP, HiGHS) are a lower bound and
a candidate removal; the exact verdict on the rows it keeps proves it (they
separate: the bounds meet) or gives new certificates. No big-M, no tolerance on w:
every bound rests on a certificate or a separating hyperplane, checked as the
verdict checks them.

Upper bounds: a greedy removal (rows of largest hinge under the soft limit C → ∞
of the rows kept, until the rest separate; then the removed rows that can come
back do) and every candidate removal that separates.
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np

from .._exact._farkas import as_hyperplane, as_machine, side_pairs
from .._kesler import worst_others
from .._rows._memory_pairs import KeslerRows
from .._rows._memory_two_class import ScaledRows
from .._threads import threads_for_fit
from ..exceptions import SolverError
from ._hard import maximal_margin_of
from ._multiclass import joint_margin_of
from ._solvers._highs import hitting_set_mip

# The greedy removal takes one row a verdict while at most ONE_BY_ONE are on the
# soft limit's wrong side, else a quarter of them; then tries back at most ADD_BACK
# removed rows one by one (each a verdict).
ONE_BY_ONE = 32
ADD_BACK = 64


@dataclass(repr=False)
class MinimumErrorResult:
    """The fewest rows to remove for the classes to separate, bounded (two
    classes by a hyperplane; K > 2 jointly, by one linear machine).

    Attributes
    ----------
    lower_bound, upper_bound : int
        At least ``lower_bound`` rows must be removed (proved by certificates of
        inseparability, of which at least one row each must go); removing the
        ``upper_bound`` rows ``removed`` is enough.
    optimal : bool
        Whether the bounds meet: ``removed`` is then a smallest removal.
    removed : ndarray of int
        Indices of the rows whose removal leaves the classes separable.
    coef, intercept : ndarray of shape (n_features,), float; or (K, n_features), (K,)
        The maximal-margin hyperplane of the rows kept: ``coef · x + intercept``
        is at least 1 on the kept rows of ``classes[1]`` and at most -1 on those
        of ``classes[0]`` (where one class is left, ``coef`` is 0 and
        ``intercept`` ±1). For K > 2 classes, the Crammer–Singer machine of the
        classes kept (``argmax_k coef_k · x + intercept_k`` right on every kept
        row), a class with no row kept scoring below every kept row's own class.
    classes : ndarray of shape (n_classes,)
    n_certificates : int
        Certificates of inseparability found (the hitting-set MIP's rows).
    rounds : int
        Hitting-set MIPs solved (candidate removals).
    stopped_by : {"optimal", "effort", "time_limit", "solver_error"}
        Why the search ended ("solver_error": a verdict on some subset of the rows
        could not be certified in float64; the bounds found until then stand).
    n_samples : int
        Rows of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import minimum_error_separation
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    >>> y = np.array([0, 0, 1, 0, 1, 1])  # one row on the wrong side
    >>> result = minimum_error_separation(X, y)
    >>> result.lower_bound, result.upper_bound, result.optimal
    (1, 1, True)
    >>> result
    MinimumErrorResult(1 of 6 rows to remove, optimal, classes=[0, 1])
    """

    lower_bound: int
    upper_bound: int
    optimal: bool
    removed: np.ndarray
    coef: np.ndarray
    intercept: float | np.ndarray
    classes: np.ndarray
    n_certificates: int = 0
    rounds: int = 0
    stopped_by: str = "optimal"
    n_samples: int = 0

    def __repr__(self):
        if self.optimal:
            how = f"{self.upper_bound} of {self.n_samples} rows to remove, optimal"
        else:
            how = (
                f"{self.lower_bound} to {self.upper_bound} of {self.n_samples} rows "
                f"to remove, stopped by {self.stopped_by}"
            )
        return f"MinimumErrorResult({how}, classes={self.classes.tolist()})"


class _Search:
    """One search over X with codes of K ≥ 2 classes: its certificates, best removal
    and limits (``effort`` counts exact verdicts, the same on any machine). A rule is
    a machine ``(W, b)``; two classes are K = 2 with ``W = (-w/2, w/2)``."""

    def __init__(self, X, codes, tol, classes, time_limit, effort):
        self.X, self.codes, self.tol, self.classes = X, codes, tol, classes
        self.n, self.n_classes = len(codes), len(classes)
        self.deadline = time.perf_counter() + time_limit
        self.effort = effort
        self.verdicts = 0
        self.certificates = []
        self.lower = 0
        self.rounds = 0
        # (removed rows, coef, intercept); to begin with, every row outside the
        # largest class out (ties: the first, so of two equal classes the positive
        # rows go) and a constant machine.
        largest = np.argmax(np.bincount(codes, minlength=self.n_classes))
        self.best = (np.flatnonzero(codes != largest), *self._constant(largest))

    def verdict(self, keep):
        """``(separable, machine or certificate rows)`` of the mask ``keep``, counted;
        the certificate's rows are X's."""
        self.verdicts += 1
        rows = np.flatnonzero(keep)
        present = np.unique(self.codes[rows])
        if present.size < 2:  # one class left: a constant rule classifies it
            return True, self._constant(present)
        result = self._machine(rows, present, soft=False)
        if result.separable:
            return True, self._all_classes(rows, present, result)
        return False, rows[np.asarray(result.certificate.certificate_indices)]

    def _constant(self, classes):
        """The constant machine: score 1 for ``classes``, 0 for the others."""
        scores = np.isin(np.arange(self.n_classes), classes).astype(float)
        return np.zeros((self.n_classes, self.X.shape[1])), scores

    def margins(self, rows, machine):
        """Each row's least ``s_own - s_k`` over the other classes; two
        classes: ``c (w·x + b)`` of the hyperplane, evaluated as such."""
        if self.n_classes == 2:
            coef, intercept = as_hyperplane(*machine)
            return (2.0 * self.codes[rows] - 1) * (self.X[rows] @ coef + intercept)
        coef, intercept = machine
        return worst_others(self.X[rows] @ coef.T + intercept, self.codes[rows])[0]

    def soft_margins(self, keep):
        """The kept rows' margins under their soft limit."""
        rows = np.flatnonzero(keep)
        present = np.unique(self.codes[rows])
        result = self._machine(rows, present, soft=True)
        return rows, self.margins(rows, self._all_classes(rows, present, result))

    def _machine(self, rows, present, soft):
        """The exact core (two-class, else joint) on ``rows`` of ``present``."""
        codes = np.searchsorted(present, self.codes[rows])
        # A search step is not an answer, and a hyperplane about a centre (or a
        # machine in its own frame) still separates to rounding: no warning.
        with warnings.catch_warnings():
            quiet = "The data lie so far|The classes separate jointly"
            warnings.filterwarnings("ignore", quiet, UserWarning)
            if present.size == 2:
                return maximal_margin_of(
                    ScaledRows(self.X[rows], np.where(codes == 1, 1.0, -1.0)),
                    tol=self.tol, soft=soft, classes=self.classes[present],
                )  # fmt: skip
            return joint_margin_of(
                KeslerRows(self.X[rows], codes, present.size),
                tol=self.tol,
                soft=soft,
                classes=present,
                units_or_verdict=True,
            )

    def _all_classes(self, rows, present, result):
        """A machine of all K classes from one of ``present``: an absent class gets
        w = 0 and an intercept 1 below every kept row's own score (never wins)."""
        coef = np.zeros((self.n_classes, self.X.shape[1]))
        intercept = np.zeros(self.n_classes)
        machine = result.coef, result.intercept
        if present.size == 2:  # the hyperplane w·x + b as K = 2's scores (-w/2, w/2)
            machine = as_machine(*machine)
        coef[present], intercept[present] = machine
        absent = np.setdiff1d(np.arange(self.n_classes), present)
        if absent.size:
            scores = self.X[rows] @ coef.T + intercept
            least = scores[np.arange(len(rows)), self.codes[rows]].min()
            intercept[absent] = least - 1.0
        return coef, intercept

    def stopped_by(self):
        """Why the search must stop now (None: it may go on)."""
        if self.lower >= self.best[0].size:  # the upper bound
            return "optimal"
        if self.effort is not None and self.verdicts >= self.effort:
            return "effort"
        if time.perf_counter() >= self.deadline:
            return "time_limit"
        return None

    def offer(self, removed, hyperplane):
        """A removal known to separate the rest, with their hyperplane."""
        if removed.size < self.best[0].size:
            self.best = (np.sort(removed), *hyperplane)

    def certificates_beyond(self, removed):
        """Disjoint certificates of the rows ``removed`` keeps (each one's rows set
        aside before the next verdict) until the rest separate; offers ``removed``
        if they separate at once. Each needs a row of its own out, so with nothing
        removed their number is a lower bound."""
        keep = np.ones(self.n, bool)
        keep[removed] = False
        found = 0
        while self.stopped_by() is None:
            separable, answer = self.verdict(keep)
            if separable:
                if found == 0:
                    self.offer(np.asarray(removed, dtype=np.intp), answer)
                break
            self.certificates.append(answer)
            keep[answer] = False
            found += 1
        self.lower = max(self.lower, found if len(removed) == 0 else min(found, 1))

    def greedy(self):
        """Rows of largest hinge out until the rest separate, then those that can
        come back do; at most half the effort, after which the last soft limit's
        wrong-side rows go too (one more verdict). Its certificates are cuts. An
        uncertified step ends it: the bounds never rest on the greedy."""
        limit = np.inf if self.effort is None else self.effort // 2
        keep = np.ones(self.n, bool)
        wrong_side = None
        try:
            while self.stopped_by() is None and self.verdicts + 3 <= limit:
                separable, answer = self.verdict(keep)
                if separable:
                    self.offer(*self._brought_back(keep, answer))
                    return
                self.certificates.append(answer)
                self.lower = max(self.lower, 1)
                self.verdicts += 1  # the soft limit costs a verdict or more
                rows, margins = self.soft_margins(keep)
                wrong_side = rows[margins <= 0]
                # One row a verdict where few are wrong (the best bounds in
                # benchmarks/bench_min_error.py); a quarter of them where many are.
                take = 1 if wrong_side.size <= ONE_BY_ONE else wrong_side.size // 4
                keep[rows[np.argpartition(margins, take - 1)[:take]]] = False
            if wrong_side is not None and wrong_side.size:
                keep[wrong_side] = False
                separable, answer = self.verdict(keep)
                if separable:
                    self.offer(np.flatnonzero(~keep), answer)
        except SolverError:
            return

    def _brought_back(self, keep, hyperplane):
        """``(removed, hyperplane)`` once removed rows came back: at once those the
        hyperplane puts on their side, then one by one the ``ADD_BACK`` nearest."""
        out = np.flatnonzero(~keep)
        margins = self.margins(out, hyperplane)
        if np.any(margins > 0):  # (w separates them strictly)
            hyperplane = self._back(keep, out[margins > 0], hyperplane)
        out = out[margins <= 0]
        for row in out[np.argsort(-margins[margins <= 0], kind="stable")][:ADD_BACK]:
            if self.stopped_by() is not None:
                break
            hyperplane = self._back(keep, row, hyperplane)
        return np.flatnonzero(~keep), hyperplane

    def _back(self, keep, rows, hyperplane):
        """The machine of the kept rows with ``rows`` back, where they separate;
        else ``hyperplane``, and ``rows`` stay out."""
        keep[rows] = True
        separable, answer = self.verdict(keep)
        if separable:
            return answer
        keep[rows] = False
        return hyperplane

    def run(self, greedy=True):
        """The bounds, as far as the limits let them go; why it stopped."""
        if greedy:
            self.greedy()
        candidate = np.array([], dtype=np.intp)
        try:
            while self.stopped_by() is None:
                known = len(self.certificates)
                self.certificates_beyond(candidate)
                if self.stopped_by() is not None or len(self.certificates) == known:
                    break  # (no new certificate: the MIP would answer the same)
                self.rounds += 1
                remaining = self.deadline - time.perf_counter()
                chosen, lower, _ = hitting_set_mip(self.certificates, self.n, remaining)
                self.lower = max(self.lower, lower)
                if chosen is None:
                    break
                candidate = chosen
        except SolverError:
            # An uncertified verdict: the bounds so far stand (each is certified).
            return self.stopped_by() or "solver_error"
        return self.stopped_by() or "time_limit"


def minimum_errors(X, c, classes, *, time_limit, effort, tol, greedy=True):
    """:class:`MinimumErrorResult` of X with signs c = ±1, or codes 0, …, K - 1 for
    K > 2 ``classes``; without ``greedy``, the upper bound is the candidates' only
    (for a caller that needs the lower bound)."""
    two = len(classes) == 2
    codes = side_pairs(c)[0] if two else np.asarray(c, np.intp)
    unknowns = (1 if two else len(classes)) * (X.shape[1] + 1)
    with threads_for_fit(*X.shape, unknowns):
        search = _Search(X, codes, tol, np.asarray(classes), time_limit, effort)
        stopped_by = search.run(greedy)
    removed, coef, intercept = search.best
    if two:
        coef, intercept = as_hyperplane(coef, intercept)
        intercept = float(intercept)
    optimal = search.lower >= removed.size
    return MinimumErrorResult(
        lower_bound=min(search.lower, removed.size),
        upper_bound=int(removed.size),
        optimal=bool(optimal),
        removed=removed.astype(np.intp),
        coef=np.asarray(coef, dtype=float),
        intercept=intercept,
        classes=np.asarray(classes),
        n_certificates=len(search.certificates),
        rounds=search.rounds,
        stopped_by="optimal" if optimal else stopped_by,
        n_samples=len(c),
    )
