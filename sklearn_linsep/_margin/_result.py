"""What the exact core answers, and what a solver's status means: :class:`Status`
(each solver maps its own onto it with one table, read by :func:`read_status`),
:class:`Hyperplane` (a solver's answer on a set of rows), the margin results of two
and K classes, and the public verdicts with their scale-aware ``verify``: the one
place where the exact layer's rationals become the public Fractions
(``exact_coef``, ``certificate_weights_exact``).
"""

import copy
import enum
import sys
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .._exact._farkas import (
    EXACT_SOLVE_WORK,
    as_machine,
    least_pair_margin,
    pairs_matrix,
    solves_exactly,
)
from .._exact._numbers import exact_dot, fraction, rational, rational_scalar
from .._proofs import (
    certificate_holds,
    column_extremes,
    hyperplane_forms_agree,
    joint_proven_margins,
    pairs_proof,
    proven_margins,
    stated_certificate_agrees,
    stated_pairs_agree,
)
from .._rows import verify as verify_on_backend
from .._validation import plain_label
from .._working_set import certificate_rows, touched_features
from ..exceptions import SolverError

# The limits of one solver call.
MAX_ITERATIONS = 500
TIME_LIMIT = 300.0  # seconds
CHECKS = ("proof", "exact", "tolerance")  # of verify


class Status(enum.Enum):
    """How a solver ended, in the core's words."""

    OPTIMAL = "optimal"  # solved, to the solver's tolerance or exactly
    ALMOST_OPTIMAL = "almost optimal"  # a reduced-accuracy answer, checked on the data
    INFEASIBLE = "infeasible"  # proved: no separating hyperplane of these rows
    TOUCHING = "touching"  # the hulls meet to rounding: no separator either
    APPROXIMATE = "approximate"  # an interior point's guess, finished exactly later


def read_status(solver, table, status, what, limits):
    """The :class:`Status` of a solver's own ``status`` (its ``table``), or a
    SolverError that names it, with the ``limits`` it ran under."""
    outcome = table.get(status)
    if outcome is None:
        raise SolverError(
            f"{solver} stopped with status {status!s} on the {what} (limits: {limits})."
        )
    return outcome


@dataclass
class Hyperplane:
    """A subproblem's answer on a set of rows: a hyperplane ``(coef, intercept)`` with
    its dual, or infeasibility (no separator of the rows). ``dual`` means the same on
    every route: the Lagrange multiplier ``ν_i`` of row i's margin constraint
    ``c_i (w·z_i + b) - 1`` (``≥ 0`` for ``≥``, ``≤ 0`` for ``≤``, free on ``=``): on
    the margin QPs ``w = Σ ν_i c_i z_i``; on the least-hinge LP (and the soft limit's
    second stage, on its optimal face) ``Σ ν_i c_i (z_i, 1) = 0`` with ``0 ≤ ν ≤ s``.
    ``weights`` (λ) may be left None: :func:`~._solvers.margin_of_rows` fills it."""

    feasible: bool
    coef: np.ndarray = None  # w
    intercept: float = 0.0  # b
    dual: np.ndarray = None  # ν, one per row
    status: Status = Status.OPTIMAL
    weights: np.ndarray = None  # λ of the nearest points, one per row
    total: float = None  # the least total hinge (total_hinge_lp)
    budget_multiplier: float = None  # of the slack budget (margin_qp's, if any)


class _Verdict:
    """What the two public verdicts share. Two classes are the case K = 2 of pairs
    (row, other class), so one check of a hyperplane, machine or certificate serves
    both; a kind gives its weights per pair's μ (``_per_mu``: two classes' λ is 2μ),
    its rounding-bounded margins (``_proven_margins``) and the rule of its stated
    certificate (``_stated_agrees``)."""

    def verify(self, X, y, rtol=1e-9, check="proof"):
        """Re-check the certificate on ``(X, y)``: a proof either way.

        A hyperplane (two classes) or a linear machine (K classes) holds when
        every row's margin ``c_i (coef · x_i + intercept)``, or its least margin
        over the other classes, less a proven bound on its rounding, is at least
        ``1 - rtol`` (about ``center`` where the result has one; the few rows that
        bound leaves below, in rationals); ``exact_coef``, where given, is checked
        in rationals. An inseparability certificate holds
        when positive weights on its rows (pairs), summing to 1 on each side (to
        1), make its two combinations coincide (balance per class) exactly on the
        rows as given (see the user guide, "What exact means"), and its stated
        ``certificate_weights`` (and ``common_point``) agree with that in every
        feature to ``rtol`` of the feature's spread over the classes.

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            A dask array is checked block by block (only the certificate's own
            rows and each feature's extremes come to the client).
        y : array-like of shape (n_samples,)
            Labels; samples of classes other than ``classes`` are ignored (a
            pair's result checks on the rows of all classes), but every class
            of ``classes`` must have rows.
        rtol : float, default=1e-9
            Tolerance of the margins (below 1) and of the stated certificate's
            float form (relative to each feature's spread); neither proof
            depends on it.
        check : {"proof", "exact", "tolerance"}, default="proof"
            ``"proof"``: the certificate proved by ``certificate_weights_exact``
            balancing exactly, else by its float enclosure or, where that cannot
            decide, in rationals within ``_exact._farkas.EXACT_SOLVE_WORK``
            (False beyond). ``"exact"``: in rationals whatever the size (the
            certificate's weights as :meth:`exact_weights`, at a cost growing
            with the cube of its rows; in memory, the margins too).
            ``"tolerance"``: the stated certificate's float form only: not a
            proof (the check of a result whose ``proven`` is False).

        Returns
        -------
        valid : bool

        Raises
        ------
        ValueError
            Where X, y cannot check the result: another number of features,
            no rows, or a class of ``classes`` without a row.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import linear_separability
        >>> X, y = np.array([[0.0], [1.0], [3.0]]), [0, 1, 1]
        >>> linear_separability(X, y).verify(X, y)
        True
        """
        if check not in CHECKS:
            raise ValueError(f"check must be one of {CHECKS}; got {check!r}.")
        return verify_on_backend(self, X, y, rtol, check)

    def exact_weights(self, X, y):
        """The certificate's weights as exact rationals, solved on its rows of X.

        Weights on the certificate's rows (two classes: ``λ ≥ 0`` on
        ``certificate_indices``, summing to 1 on each side) or pairs (K classes:
        ``μ ≥ 0`` on (``certificate_indices``, ``certificate_classes``), summing
        to 1) that balance exactly, aligned with them: ``certificate_weights_exact``
        where they balance on this X, else solved in rationals at a cost growing
        with the cube of the certificate's rows (the enclosure that proves a
        certificate shows they exist without computing them).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        weights : list of fractions.Fraction, or None
            None where no such weights exist on those rows of this X (the
            certificate is not of these data).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn_linsep import linear_separability
        >>> X, y = np.array([[0.0], [3.0], [1.0]]), [0, 0, 1]
        >>> [str(w) for w in linear_separability(X, y).exact_weights(X, y)]
        ['2/3', '1/3', '1']
        >>> X, y = np.array([[0.0], [2.0], [1.0], [1.0]]), [0, 0, 1, 2]
        >>> sum(linear_separability(X, y, multiclass="joint").exact_weights(X, y))
        Fraction(1, 1)
        """
        if self.separable:
            raise ValueError(
                "The classes are separable: the result has no inseparability "
                "certificate (its proof is the hyperplane; exact_coef where it was "
                "decided in rationals)."
            )
        points, labels = certificate_rows(X, y, self.certificate_indices)
        pairs = self._pairs_of(labels)
        if pairs is None:
            return None
        stored = self.certificate_weights_exact
        if solves_exactly(*pairs_matrix(points, *pairs), self._pair_weights(stored)):
            return list(stored)
        return self._from_pair_weights(pairs_proof(points, *pairs, exact=True)[1])

    def _verify_in_memory(self, X, y, rtol, check="proof"):
        """:meth:`verify` on X in memory (dense or sparse)."""
        X = X.tocsr() if sp.issparse(X) else np.asarray(X, dtype=float)
        y = np.asarray(y)
        if self.separable and (check == "exact" or self.exact_coef is not None):
            return self._holds_in_rationals(X, y, rtol)
        if self.separable:
            return bool(self._least_margin(X, y, rtol) >= 1 - rtol)
        member, _ = label_codes(y, self.classes)
        indices = np.asarray(self.certificate_indices)
        high, low = column_extremes(X[member])  # rows of every class: refused else
        points, stated, features = self._stated_on(X[indices])
        spread = (high - low)[features]
        return certificate_holds(stated, points, y[indices], spread, rtol,
                                 member.sum(), check)  # fmt: skip

    def _stated_on(self, block):
        """``(points, result, features)``: the certificate's rows ``block`` dense on
        the features they touch or its common point names (sparse rows: 0 on every
        other), the result as it reads on them, and those features."""
        point, stated = getattr(self, "common_point", None), copy.copy(self)
        named = () if point is None else np.flatnonzero(point)
        points, features = touched_features(block, named)
        if point is not None:
            stated.common_point = np.asarray(point)[features]
        return points, stated, features

    def _holds_in_rationals(self, X, y, rtol, stored_exact=True):
        """Every pair margin of the rows of ``classes`` at least ``1 - tolerance``, in
        rationals: of ``exact_coef`` with tolerance 0 (unless not ``stored_exact``),
        else of ``coef`` and its intercepts (about ``center`` where given) with
        ``rtol``."""
        if self.exact_coef is not None and stored_exact:
            W, b, tolerance = self.exact_coef, self.exact_intercept, fraction(0)
        else:
            W = [rational(row) for row in np.atleast_2d(self.coef)]
            tolerance = rational_scalar(rtol)
            if self.center is None:
                b = rational(self.intercept)
            else:
                center = rational(self.center)
                offsets = rational(self.intercept_at_center)
                b = [c - exact_dot(w, center) for w, c in zip(W, offsets, strict=True)]
            if self._per_mu == 2:  # two classes: one hyperplane
                W, b = W[0], b[0]
        if self._per_mu == 2:  # a hyperplane as K = 2's machine (-w/2, w/2)
            W, b = as_machine(W, b)
        member, codes = label_codes(y, self.classes)
        least = least_pair_margin(
            _dense(X[member]), codes[member], len(self.classes), W, b
        )
        return bool(least is None or least >= 1 - tolerance)

    def _least_margin(self, X, y, rtol):
        """The least proven margin of the rows of ``classes``: -inf where ``intercept``
        and ``intercept_at_center`` disagree (verify evaluates the second). Rows whose
        rounding bound leaves them below ``1 - rtol`` are decided in rationals, where
        they are few (``EXACT_SOLVE_WORK`` entries): ``1 - rtol`` where they hold.
        (One feature at 1e6 with an intercept of 3e8: a rounding bound of 1e-7 on
        margins exactly 1 + 6e-8 said False of the solver's proven answer.)"""
        hyperplane = self.coef, self.intercept, self.center, self.intercept_at_center
        if self.center is not None and not hyperplane_forms_agree(*hyperplane):
            return -np.inf
        member, codes = label_codes(y, self.classes)
        rows = X[member]
        margins = self._proven_margins(rows, codes[member], *hyperplane)
        doubt = np.flatnonzero(margins < 1 - rtol)
        few = doubt.size * X.shape[1] <= EXACT_SOLVE_WORK
        # The float hyperplane's own margins (a block's other rows were judged on it).
        if doubt.size and few and self._holds_in_rationals(
            rows[doubt], y[member][doubt], rtol, stored_exact=False
        ):
            margins[doubt] = 1 - rtol
        return float(margins.min(initial=np.inf))  # inf: a block without their rows

    def _pairs_of(self, labels):
        """``(own, others, K)`` of the certificate's pairs (two classes: a row against
        the other class), or None where a pair's row or class is of no class of
        ``classes``, or the same."""
        member, own = label_codes(labels, self.classes)
        if self._per_mu == 2:
            known, others = member, 1 - own
        else:
            known, others = label_codes(self.certificate_classes, self.classes)
        if not (np.all(member) and np.all(known)) or np.any(own == others):
            return None
        return own, others, len(self.classes)

    def _pair_weights(self, weights):
        """The pairs' μ of the certificate's ``weights`` (None stays None)."""
        return None if weights is None else [value / self._per_mu for value in weights]

    @classmethod
    def _from_pair_weights(cls, weights):
        return None if weights is None else [cls._per_mu * value for value in weights]

    def __repr__(self):
        """Short: the verdict and its size, no arrays (they are attributes)."""
        name, classes = type(self).__name__, np.asarray(self.classes).tolist()
        if self.separable:
            return (
                f"{name}(separable=True, margin={self.margin:.6g}, classes={classes})"
            )
        size = f"{len(self.certificate_indices)} {self._unit}"
        return f"{name}(separable=False, certificate of {size}, classes={classes})"


@dataclass(repr=False)
class SeparabilityResult(_Verdict):
    """Whether two classes are linearly separable, with a certificate either way.

    Separable: ``coef``, ``intercept`` with ``c_i (coef · x_i + intercept) ≥ 1`` for
    every sample (``c = +1`` for ``classes[1]``): the maximal-margin hyperplane, so
    ``margin`` (its geometric margin, ``1/‖coef‖``) is the largest margin of any
    separating hyperplane. Inseparable: ``certificate_indices`` of a few samples of
    each class and ``certificate_weights`` (λ ≥ 0, summing to 1 within each class)
    whose convex combinations coincide at ``common_point``: a point in both convex
    hulls, so no hyperplane has the two classes on strictly opposite sides (Gordan,
    Farkas). :meth:`verify` checks either.

    Attributes
    ----------
    separable : bool
    classes : ndarray of shape (2,)
        The negative and the positive class.
    coef, intercept, margin : ndarray, float, float
        The maximal-margin hyperplane and its geometric margin (None when
        inseparable).
    certificate_indices, certificate_weights : ndarray
        The samples (their positions, 0 to n_samples - 1, as ``X[indices]``
        takes them, not a DataFrame's index labels) and weights of the
        inseparability certificate (None when separable).
    certificate_index : ndarray or None
        The same samples by X's own index labels, where X had an index (a pandas
        DataFrame given to :func:`linear_separability`); None otherwise.
    common_point : ndarray of shape (n_features,)
        The point both weighted combinations give.
    certificate_signs : ndarray
        ``c`` (+1 for ``classes[1]``) of the certificate's samples.
    center, intercept_at_center : ndarray of shape (n_features,), float
        The same hyperplane about a centre of the data,
        ``coef · (x - center) + intercept_at_center``, which :meth:`verify`
        evaluates: given only where float64 cannot add ``intercept`` to
        ``coef · x`` on the data (a ``UserWarning`` says so); None otherwise.
    certificate_weights_exact : list of fractions.Fraction
        The certificate's weights as exact rationals (``certificate_weights``
        are their float64 roundings), computed only where the float enclosure
        could not decide and rational arithmetic did; None otherwise
        (:meth:`exact_weights` computes them on request).
    exact_coef, exact_intercept : list of fractions.Fraction, fractions.Fraction
        Where the classes come within float64's rounding of touching, the
        hyperplane decided in rational arithmetic (``c_i (w·x_i + b) ≥ 1`` on
        every row, as rationals; a ``UserWarning`` says so); ``coef`` and
        ``intercept`` are its float64 roundings (which may not separate) and
        ``margin`` its own, not the maximal one. None otherwise.
    proven : bool
        Whether the answer is a proof in exact arithmetic on the rows as given
        (see the user guide, "What exact means"). False only for a certificate
        that neither its float enclosure nor rational arithmetic could prove, on
        a problem beyond ``_exact._farkas.EXACT_ENTRIES``: it holds to ``1e-9``
        of each feature's spread (``verify(X, y, check="tolerance")``),
        ``verify(X, y)`` is False, and a ``UserWarning`` says so: the classes
        may be separable by a narrower gap.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import linear_separability
    >>> X = np.array([[0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]])
    >>> result = linear_separability(X, [0, 0, 1, 1])  # the XOR square
    >>> result.separable, result.common_point, result.verify(X, [0, 0, 1, 1])
    (False, array([1., 1.]), True)
    >>> result
    SeparabilityResult(separable=False, certificate of 4 samples, classes=[0, 1])
    """

    separable: bool
    classes: np.ndarray
    coef: np.ndarray = None
    intercept: float = None
    margin: float = None
    certificate_indices: np.ndarray = None
    certificate_weights: np.ndarray = None
    common_point: np.ndarray = None
    certificate_signs: np.ndarray = None  # c of the certificate's samples
    center: np.ndarray = None
    intercept_at_center: float = None
    certificate_weights_exact: list = None  # Fractions, where computed
    exact_coef: list = None  # Fractions: the hyperplane where float64 cannot decide
    exact_intercept: object = None
    proven: bool = True  # False: a certificate that holds only to a tolerance
    certificate_index: np.ndarray = None  # the rows by a DataFrame's index

    @property
    def n_features(self):
        """The number of features of the data the result was found on."""
        found = self.coef if self.separable else self.common_point
        return None if found is None else int(np.shape(found)[-1])

    _unit, _per_mu = "samples", 2  # a pair per row: λ = 2μ

    @staticmethod
    def _proven_margins(rows, codes, *hyperplane):
        return proven_margins(rows, np.where(codes == 1, 1.0, -1.0), *hyperplane)

    _stated_agrees = stated_certificate_agrees

    def describe(self, names=None):
        """One line: the verdict and the size of its certificate.

        Parameters
        ----------
        names : tuple of str, default=None
            What the negative and positive sides are, where the classes do not
            say it (one against the rest: ``("the other classes", "class
            'a'")``). None: ``class <label>`` of each.

        Returns
        -------
        line : str
        """
        if self.separable:
            return f"separable, by a hyperplane of margin {self.margin:.6g}"
        signs = self.certificate_signs
        counts = int(np.sum(signs < 0)), int(np.sum(signs > 0))
        negative, positive = names or (
            f"class {plain_label(label)!r}" for label in self.classes
        )
        return (
            f"{counts[1]} sample(s) of {positive} and {counts[0]} of {negative} "
            "have convex combinations that coincide at "
            f"{np.array2string(self.common_point, precision=6)}"
        )


def _dense(rows):
    return np.asarray(rows.toarray() if sp.issparse(rows) else rows, dtype=float)


def label_codes(y, classes):
    """``(member, codes)``: which labels of ``y`` are among ``classes``, and each
    member's position in ``classes`` (0 elsewhere)."""
    y, classes = np.asarray(y), np.asarray(classes)
    order = np.argsort(classes, kind="stable")
    ordered = classes[order]
    position = np.clip(np.searchsorted(ordered, y), 0, len(classes) - 1)
    member = ordered[position] == y
    return member, np.where(member, order[position], 0)


@dataclass(repr=False)
class JointSeparabilityResult(_Verdict):
    """Whether K classes are jointly linearly separable (one linear machine
    classifies every row right), with a certificate either way.

    Separable: ``coef`` W (K × p) and ``intercept`` b (K) with
    ``(w_{y_i} - w_k)·x_i + b_{y_i} - b_k ≥ 1`` for every row i and every other class
    k, so ``argmax_k (w_k·x + b_k)`` is every row's own class: the Crammer–Singer
    maximal margin (``min ½ Σ‖w_k‖²``, :class:`HardMarginSVM` with
    ``multi_class="crammer_singer"``). Inseparable: Farkas weights μ ≥ 0 (summing to
    1) on pairs (row ``certificate_indices[j]``, other class
    ``certificate_classes[j]``) that balance per class, in weight and in weighted
    rows: ``Σ_j μ_j (e_{y_j} - e_{k_j}) ⊗ (x_j, 1) = 0``. Any W, b would give those
    pairs margins whose μ-weighted sum is 0, so not all ≥ 1 (Kesler's construction;
    Farkas). :meth:`verify` checks either.

    Attributes
    ----------
    separable : bool
    classes : ndarray of shape (n_classes,)
    coef : ndarray of shape (n_classes, n_features)
    intercept : ndarray of shape (n_classes,)
    margin : float
        ``min_{j<k} 1/‖w_j - w_k‖``, the least distance of a row to a boundary
        between its class and another (None when inseparable). Where the features'
        spreads lie so far apart (beyond 1e3) that the maximal margin in X's units
        cannot be certified, a UserWarning says so and the machine (still
        separating every row) is the maximal one of the features over their spreads.
    certificate_indices : ndarray of shape (n_pairs,)
        The rows of the certificate's pairs (a row may appear more than once),
        by position (0 to n_samples - 1, as ``X[indices]`` takes them).
    certificate_index : ndarray or None
        The same rows by X's own index labels, where X had an index (a pandas
        DataFrame); None otherwise.
    certificate_classes : ndarray of shape (n_pairs,)
        The other class of each pair (a label of ``classes``).
    certificate_weights : ndarray of shape (n_pairs,)
        μ ≥ 0, summing to 1.
    center, intercept_at_center : ndarray of shape (n_features,), (n_classes,)
        The same machine about a centre of the data (scores
        ``coef @ (x - center) + intercept_at_center``), where float64 cannot
        evaluate ``coef @ x + intercept`` (a ``UserWarning`` says so); else None.
    certificate_weights_exact : list of fractions.Fraction
        μ as exact rationals, where the float enclosure could not decide and
        rational arithmetic did; else None (:meth:`exact_weights` computes them).
    exact_coef, exact_intercept : list of lists of fractions.Fraction, list
        Where the classes come within float64's rounding of touching, the machine
        decided in rational arithmetic (every pair margin ≥ 1 as rationals);
        ``coef`` and ``intercept`` are its roundings, ``margin`` its own; else None.
    proven : bool
        Whether the answer is a proof in exact arithmetic, as
        :attr:`SeparabilityResult.proven`.
    n_features : int
        The number of features of the data it was found on (:meth:`verify`
        refuses X of another).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import linear_separability
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 0.5]])
    >>> result = linear_separability(X, [0, 1, 2, 1], multiclass="joint")
    >>> result
    JointSeparabilityResult(separable=True, margin=0.25, classes=[0, 1, 2])
    >>> result.verify(X, [0, 1, 2, 1])
    True
    """

    separable: bool
    classes: np.ndarray
    coef: np.ndarray = None
    intercept: np.ndarray = None
    margin: float = None
    certificate_indices: np.ndarray = None
    certificate_classes: np.ndarray = None
    certificate_weights: np.ndarray = None
    center: np.ndarray = None
    intercept_at_center: np.ndarray = None
    certificate_weights_exact: list = None  # Fractions, where computed
    exact_coef: list = None  # K lists of Fractions, where float64 cannot decide
    exact_intercept: list = None
    proven: bool = True  # False: a certificate that holds only to a tolerance
    n_features: int = None  # of the data: a certificate of pairs does not say it
    certificate_index: np.ndarray = None  # the rows by a DataFrame's index

    def __post_init__(self):
        if self.n_features is None and self.coef is not None:
            self.n_features = int(np.shape(self.coef)[-1])

    _unit, _per_mu = "pairs", 1

    _proven_margins = staticmethod(joint_proven_margins)

    _stated_agrees = stated_pairs_agree

    def describe(self):
        """One line: the verdict and the size of its certificate."""
        if self.separable:
            return f"jointly separable, by a linear machine of margin {self.margin:.6g}"
        return (
            f"Farkas weights on {len(self.certificate_indices)} pairs (row, other "
            f"class) over {len(np.unique(self.certificate_indices))} rows balance "
            "per class: no linear machine classifies every row right"
        )


@dataclass
class MarginResult:
    """The hyperplane ``coef · x + intercept`` of one two-class problem."""

    coef: np.ndarray
    intercept: float
    separable: bool
    margin: float  # geometric margin 1/‖w‖ (separable), else that of the C → ∞ limit
    support: np.ndarray  # indices of the samples with nonzero dual weight
    dual: np.ndarray  # α_i c_i of those samples, on the original scale of X
    hinge_violation: float  # Σ s_i max(0, 1 - c_i(w·x_i + b)); 0 when separable
    rounds: int  # working-set rounds
    certificate: SeparabilityResult = None  # when inseparable
    center: np.ndarray = None  # the hyperplane is coef · (x - center) + ...
    intercept_at_center: float = None
    needs_center: bool = False  # float64 cannot evaluate coef · x + intercept
    exact_coef: list = None  # Fractions, where float64 could not decide
    exact_intercept: object = None


# verify()'s default: the margins a proof must reach, below 1.
PROOF_RTOL = 1e-9


def margin_result(frame, working, solution, rounds, separable, hinge, centred=True):
    """The :class:`MarginResult` on X's scale of a solution on ``frame``'s rows (the
    Euclidean frame: one scalar scale); with ``centred`` also about the rows' centre
    (``intercept_at_center`` is the solver's own intercept, which keeps the digits
    ``intercept`` may lose far from the origin)."""
    coef, intercept = frame.to_original(solution.coef, solution.intercept)
    dual = solution.dual
    keep = np.abs(dual) > 1e-8 * max(np.abs(dual).max(initial=0.0), 1e-300)
    support = working[keep]
    labels = frame.labels(support)
    # w on Z is Σ α c z; on X, w = Σ (α / scale²) c x, Σ α c = 0 removing the
    # centre: so α is rescaled per class to balance on the support itself to
    # rounding (the solver meets it only to its tolerance, and X's centre
    # multiplies what is left).
    alpha = dual[keep]
    positive, negative = alpha[labels > 0].sum(), alpha[labels < 0].sum()
    if positive > 0 and negative > 0:
        middle = (positive + negative) / 2
        alpha = alpha * np.where(labels > 0, middle / positive, middle / negative)
    dual_coef = alpha * labels / frame.scale**2
    norm = np.linalg.norm(solution.coef)
    margin = frame.scale / norm if norm > 0 else np.nan
    return MarginResult(
        coef, float(intercept), separable, margin, support, dual_coef, hinge, rounds,
        center=frame.centre if centred else None,
        intercept_at_center=float(solution.intercept) if centred else None,
    )


def external_stacklevel():
    """The ``stacklevel`` at which a warning raised by this function's caller points at
    the user's code: the first frame outside this package and scikit-learn (whose
    ``validate_params`` and ``_fit_context`` sit between the user and the warning)."""
    frame, level = sys._getframe(1), 1
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.partition(".")[0] not in ("sklearn_linsep", "sklearn"):
            return level
        frame, level = frame.f_back, level + 1
    return level


def warn_user(message):
    """A UserWarning pointing at the user's code (:func:`external_stacklevel`)."""
    warnings.warn(message, UserWarning, stacklevel=external_stacklevel())


def warn_if_inexact(solution):
    """UserWarning for a reduced-accuracy answer (it passed the checks on all rows)."""
    if solution.status is Status.ALMOST_OPTIMAL:
        warn_user(
            f"A solver stopped with status {solution.status.value}; its answer "
            "passed the checks on all samples (the optimality conditions of the "
            "margin, or the least total hinge of the soft limit)."
        )


@dataclass
class JointMarginResult:
    """The linear machine ``argmax_k (coef_k · x + intercept_k)`` of K classes."""

    coef: np.ndarray  # (K, p), on X
    intercept: np.ndarray  # (K,)
    separable: bool
    margin: float  # min over class pairs of 1/‖w_j - w_k‖
    support: np.ndarray  # rows of the pairs of nonzero dual weight
    support_classes: np.ndarray  # the other class of each of those pairs
    dual: np.ndarray  # α of those pairs: on X's scale (α / scale²), or the frame's
    hinge_violation: float  # Σ s_i max(0, 1 - least margin_i); 0 when separable
    rounds: int
    certificate: JointSeparabilityResult = None
    center: np.ndarray = None  # scores coef @ (x - center) + intercept_at_center
    intercept_at_center: np.ndarray = None
    needs_center: bool = False
    exact_coef: list = None  # Fractions, where float64 could not decide
    exact_intercept: list = None
