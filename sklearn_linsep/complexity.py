r"""Ho & Basu's feature and linearity complexity measures, exact where the peers
approximate.

The measures of the data-complexity literature (Ho & Basu 2002), with the
definitions of Lorena et al.'s survey (2019), as problexity, pymfe and ECoL compute
them: each ``(X, y)`` of two or more classes gives a float in [0, 1], higher meaning
harder (further from linearly separable).

- :func:`f1`, :func:`f1v`, :func:`f2`, :func:`f3`, :func:`f4`: how well the
  features, one at a time or along Fisher's direction, tell the classes apart.
- :func:`l1`, :func:`l2`, :func:`l3`: how well a hyperplane does. The peers fit one
  linear SVM at a finite C and report its errors; here L1 is the exact least total
  hinge (the C → ∞ limit, the linear program Ho & Basu's L1 names), L2 the fewest
  training errors of *any* hyperplane with proven bounds, and L3 the error of L1's
  hyperplane (the C → ∞ limit's) on interpolated points. L1 and L2 are 0 exactly
  where the exact verdict proves the classes linearly separable.
- :func:`linearity_complexity` computes all eight at once, sharing the statistics
  and the exact solve.

K > 2 classes: F1 is defined on all classes at once (Lorena et al.); the others are
the mean over every pair of classes (one-vs-one), the pairs' values kept
(``average=False``, or :attr:`ComplexityResult.per_pair`).

Rows of zero ``sample_weight`` are left out everywhere; other weights weigh the
rows of F1, F1v, F3, F4 and L1, and L3 through L1's hyperplane (its points are
not weighted). F2 (a volume of ranges) and L2 (a count of rows) have no weighted
meaning and take none.

References
----------
T. K. Ho and M. Basu, "Complexity measures of supervised classification problems",
IEEE TPAMI 24(3), 289-300, 2002.

A. C. Lorena, L. P. F. Garcia, J. Lehmann, M. C. P. Souto and T. K. Ho, "How
complex is your classification problem? A survey on measuring classification
complexity", ACM Computing Surveys 52(5), 2019.
"""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, validate_params

from . import _complexity as kernels
from ._validation import plain_label

__all__ = [
    "ComplexityResult",
    "ErrorRateResult",
    "f1",
    "f1v",
    "f2",
    "f3",
    "f4",
    "l1",
    "l2",
    "l3",
    "linearity_complexity",
]

EFFORT = 40
"""Exact verdicts L2's search makes per pair by default (see
:func:`~sklearn_linsep.minimum_error_separation`): bounds that are the same on any
machine, at the peers' price on the benchmark's data sets."""

MEASURES = ("f1", "f1v", "f2", "f3", "f4", "l1", "l2", "l3")


@dataclass(frozen=True, repr=False)
class ErrorRateResult:
    """L2: the least training error rate of any hyperplane, bounded.

    Attributes
    ----------
    bounds : tuple of float
        ``(lower, upper)``: no hyperplane misclassifies fewer than ``lower · n``
        rows (proved by certificates of inseparability); the hyperplane ``coef``,
        ``intercept`` misclassifies exactly ``upper · n``. Equal where ``optimal``.
        K > 2 classes: the means over the pairs.
    coef : ndarray of shape (n_features,) or None
        The hyperplane of ``upper`` in X's coordinates, ``classes[1]`` on its
        positive side; a row whose score ``coef · x + intercept`` is exactly 0
        counts as an error. On separable data, the maximal-margin hyperplane.
        None for K > 2 classes (each pair's is in ``per_pair``).
    intercept : float or None
    errors : int or None
        Rows ``coef``, ``intercept`` misclassifies, each sign proved (in
        rationals where float64's rounding cannot tell): ``upper · n_samples``.
    n_samples : int
        Rows of the data (two classes: n, of which the bounds are rates).
    optimal : bool
        Whether the bounds meet (every pair's, for K > 2).
    stopped_by : str
        Why the search ended: "optimal", "effort", "time_limit" or
        "solver_error" (K > 2: the first pair's that is not "optimal").
    classes : ndarray
    per_pair : dict or None
        K > 2: ``{(a, b): ErrorRateResult}`` for every pair of labels a < b.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import l2
    >>> X, y = load_iris(return_X_y=True)
    >>> result = l2(X[y > 0], y[y > 0])  # versicolor against virginica
    >>> result.bounds, result.errors, result.optimal
    ((0.01, 0.01), 1, True)
    >>> float(result)
    0.01
    """

    bounds: tuple
    coef: np.ndarray | None
    intercept: float | None
    errors: int | None
    n_samples: int
    optimal: bool
    stopped_by: str
    classes: np.ndarray
    per_pair: dict | None = None

    def __float__(self):
        """The upper bound, the error rate of the hyperplane given."""
        return float(self.bounds[1])

    def __repr__(self):
        lower, upper = self.bounds
        state = "optimal" if self.optimal else f"stopped by {self.stopped_by}"
        return f"ErrorRateResult(bounds=({lower:.4g}, {upper:.4g}), {state})"


_LINES = {
    "f1": "maximum Fisher's discriminant ratio, one feature",
    "f1v": "Fisher's ratio along Fisher's direction",
    "f2": "volume of the classes' overlapping region",
    "f3": "rows left in the overlap by the best feature",
    "f4": "rows left in the overlap by all features in turn",
    "l1": "least total hinge, as an error distance",
    "l2": "least training error of any hyperplane",
    "l3": "L1's hyperplane's error on interpolated points",
}


@dataclass(frozen=True, repr=False)
class ComplexityResult:
    """Ho & Basu's feature and linearity measures of one data set, each in
    [0, 1], lower meaning simpler (closer to linearly separable).

    Attributes
    ----------
    f1, f1v, f2, f3, f4, l1, l3 : float
        The measures (see their functions in :mod:`sklearn_linsep.complexity`).
    l2 : ErrorRateResult
        Bounds on the least training error rate, and the hyperplane of the upper.
    least_total_hinge : float
        The least total hinge ``Σ w_i max(0, 1 - s_i (w·x_i + b))`` of the C → ∞
        soft limit, behind L1 (K > 2: the mean over the pairs).
    kappa : float
        The regularisation of F1v's direction on a singular W.
    classes : ndarray
    n_samples : int
    per_pair : dict or None
        K > 2: ``{(a, b): ComplexityResult}`` of every pair of labels a < b (its
        ``f1`` the pair's own).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep import linearity_complexity
    >>> X, y = load_iris(return_X_y=True)
    >>> result = linearity_complexity(X, y, random_state=0)
    >>> round(result.f1v, 4), [round(bound, 4) for bound in result.l2.bounds]  # 1 of 150
    (0.0263, [0.0033, 0.0033])
    >>> result.per_pair[0, 1].l1, result.per_pair[1, 2].l2.errors
    (0.0, 1)
    """

    f1: float
    f1v: float
    f2: float
    f3: float
    f4: float
    l1: float
    l2: ErrorRateResult
    l3: float
    least_total_hinge: float
    kappa: float
    classes: np.ndarray
    n_samples: int
    per_pair: dict | None = field(default=None)

    def as_dict(self):
        """The eight measures as plain floats (L2: its upper bound), by name.

        Returns
        -------
        measures : dict
        """
        return {name: float(getattr(self, name)) for name in MEASURES}

    def __repr__(self):
        labels = [plain_label(label) for label in self.classes]
        lines = [f"ComplexityResult(classes={labels}, n_samples={self.n_samples})"]
        for name in MEASURES:
            if name == "l2":
                lower, upper = self.l2.bounds
                value = f"{upper:.4f}" if lower == upper else f"{lower:.4f}-{upper:.4f}"
            else:
                value = f"{getattr(self, name):.4f}"
            lines.append(f"  {name.upper():<4}{value:>14}  {_LINES[name]}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------


def _native_f1(data):
    return kernels.maximum_fisher_ratio(
        data.X, data.codes, data.n_classes, data.weights
    )


class _PairMeasures:
    """The measures of one pair, each computed once on first use."""

    def __init__(self, data, pair, settings):
        self.data, self.pair, self.settings = data, pair, settings
        self.values = {}

    def __getitem__(self, name):
        if name not in self.values:
            self.values[name] = getattr(self, "_" + name)()
        return self.values[name]

    def compute_all(self):
        """Every measure, the soft limit (L1) before L2, whose verdict it is."""
        for name in ("l1", *MEASURES):
            self[name]
        return self

    def _f1(self):
        pair = self.pair
        return kernels.maximum_fisher_ratio(pair.X, pair.c, 2, pair.weights)

    def _f1v(self):
        stats = self.data.statistics(self.pair)
        ratio, _, _ = kernels.directional_ratio(
            stats, self.data.rows(), self.pair.i, self.pair.j,
            self.settings["kappa"], self.settings["rank_tol"],
        )  # fmt: skip
        return 1.0 / (1.0 + ratio)

    def _f2(self):
        return kernels.overlap_volume(*kernels.class_extremes(self.pair.X, self.pair.c))

    def _f3(self):
        return kernels.feature_efficiency(self.pair)

    def _f4(self):
        return kernels.collective_efficiency(self.pair)

    def _soft(self):
        return self._exact(soft=True)

    def _verdict(self):
        """The soft limit where it was solved (it holds the verdict), else the
        verdict alone: separable or not, on sparse rows too."""
        return self.values["soft"] if "soft" in self.values else self._exact(False)

    def _exact(self, soft):
        problem = self.data.rows().two_class([self.pair.j], [self.pair.i])
        classes = self.data.classes[[self.pair.i, self.pair.j]]
        return kernels.exact_verdict(problem, self.settings["tol"], classes, soft)

    def _hinge(self):
        return self["soft"][0]

    def _l1(self):
        return kernels.error_distance(self["hinge"], self.pair.total)

    def _l2(self):
        pair, data = self.pair, self.data
        classes = data.classes[[pair.i, pair.j]]
        n = len(pair.c)
        errors = None
        if self["verdict"][1]:  # proved separable: its maximal-margin hyperplane
            _, _, coef, intercept = self["verdict"]
            lower, stopped_by = 0, "optimal"
            errors = int(kernels.misclassified(pair.X, pair.c, coef, intercept).sum())
        if errors != 0:  # inseparable; or separable in rationals only: search
            found = kernels.fewest_errors(
                pair, classes, effort=self.settings["effort"],
                time_limit=self.settings["time_limit"], tol=self.settings["tol"],
                name=data.name,
            )  # fmt: skip
            coef, intercept, errors = kernels.fewest_misclassified(
                pair.X, pair.c, found.coef, found.intercept, found.lower_bound
            )
            lower, stopped_by = found.lower_bound, found.stopped_by
        # The lower bound is proved, the errors counted exactly: never above them.
        assert lower <= errors, (lower, errors)
        return ErrorRateResult(
            bounds=(lower / n, errors / n),
            coef=np.asarray(coef, dtype=np.float64),
            intercept=float(intercept),
            errors=errors,
            n_samples=n,
            optimal=lower == errors,
            stopped_by="optimal" if lower == errors else stopped_by,
            classes=classes,
        )

    def _l3(self):
        _, _, coef, intercept = self["soft"]
        points, c = kernels.interpolated(self.pair, self.settings["rng"])
        return float(kernels.misclassified(points, c, coef, intercept).mean())


def _settings(kappa=np.inf, effort=EFFORT, time_limit=60.0, tol=1e-9, seed=None,
              rank_tol=None):  # fmt: skip
    return {
        "kappa": kappa,
        "rank_tol": rank_tol,
        "effort": effort,
        "time_limit": time_limit,
        "tol": tol,
        "rng": check_random_state(seed),
    }


def _per_pair(data, name, settings):
    """``{(a, b): value}`` of one measure over every pair."""
    with kernels.named(name):
        return {
            data.labels(pair): _PairMeasures(data, pair, settings)[name]
            for pair in data.pairs()
        }


def _averaged(values, average):
    if not average:
        return values
    return float(np.mean(list(values.values())))


def _combined_error_rates(results, classes, n_samples):
    """The :class:`ErrorRateResult` of K > 2 classes: the pairs' means."""
    first = next(iter(results.values()))
    if len(results) == 1:
        return first
    lower = float(np.mean([r.bounds[0] for r in results.values()]))
    upper = float(np.mean([r.bounds[1] for r in results.values()]))
    stops = [r.stopped_by for r in results.values() if not r.optimal]
    return ErrorRateResult(
        bounds=(lower, upper),
        coef=None,
        intercept=None,
        errors=None,
        n_samples=int(n_samples),
        optimal=not stops,
        stopped_by=stops[0] if stops else "optimal",
        classes=classes,
        per_pair=results,
    )


_XY = {"X": ["array-like", "sparse matrix"], "y": ["array-like"]}
_WEIGHT = {"sample_weight": ["array-like", None]}
_AVERAGE = {"average": ["boolean"]}
_TOL = {"tol": [Interval(Real, 0, 1, closed="neither")]}
_SEARCH = {
    "effort": [Interval(Integral, 0, None, closed="left"), None],
    "time_limit": [Interval(Real, 0, None, closed="neither")],
    **_TOL,
}
_KAPPA = {"kappa": [Interval(Real, 0, None, closed="right")]}
_SEED = {"random_state": ["random_state"]}


@validate_params({**_XY, **_WEIGHT}, prefer_skip_nested_validation=True)
def f1(X, y, *, sample_weight=None):
    r"""F1: the maximum Fisher's discriminant ratio over the features.

    .. math:: F1 = \frac{1}{1 + \max_f r_f}, \qquad
              r_f = \frac{\sum_k c_k (\mu_{kf} - \mu_f)^2}
                         {\sum_k \sum_{i \in k} w_i (x_{if} - \mu_{kf})^2},

    with :math:`c_k` the weight of class k, :math:`\mu_{kf}` its mean of feature f
    and :math:`\mu_f` the mean of all rows (Lorena et al. 2019, on all K classes at
    once, as ECoL's ``F1`` before its mean over features). A feature constant over
    all rows (0/0) gives r = 0; one constant within each class while the class
    means differ gives r = ∞ and F1 = 0. problexity's ``f1`` counts the two-class
    numerator twice (its r is 2× this one).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None

    Returns
    -------
    f1 : float
        In (0, 1]; low: some feature alone tells the classes apart.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import f1
    >>> X, y = load_iris(return_X_y=True)
    >>> round(f1(X, y), 4)
    0.0586
    """
    data = kernels.MeasureData(X, y, sample_weight, "f1")
    with kernels.named("f1"):
        return _native_f1(data)


_RANK_TOL = {"tol": [Interval(Real, 0, None, closed="left"), None]}


@validate_params(
    {**_XY, **_KAPPA, **_WEIGHT, **_AVERAGE, **_RANK_TOL},
    prefer_skip_nested_validation=True,
)
def f1v(X, y, *, kappa=np.inf, sample_weight=None, average=True, tol=None):
    r"""F1v: Fisher's discriminant ratio along Fisher's direction.

    .. math:: F1v = \frac{1}{1 + dF}, \qquad
              dF = \frac{d^\top B d}{d^\top W d}, \qquad d = W(\kappa)^{-1} \Delta,

    with :math:`\Delta = \mu_0 - \mu_1`, :math:`B = \Delta\Delta^\top` and
    :math:`W = \sum_c (c_c / c)\,\hat\Sigma_c`, :math:`\hat\Sigma_c` the biased
    covariance of class c (divided by its weight), as problexity and Lorena et al.
    define it; the library's S divides by n − 2 instead, which would move dF by
    n/(n − 2). Where W is nonsingular, :math:`dF = \Delta^\top W^{-1}\Delta`, and F1v
    equals problexity's ``f1v`` (an O(p²n) loop there).

    **A singular W** (p ≥ n, constant or collinear features): :math:`W(\kappa) = W
    + \kappa Q` with Q the projector on W's null space, the library's S(κ)
    regularisation. With :math:`a = \Delta^\top W^+ \Delta` and :math:`q = \|Q
    \Delta\|^2`, :math:`dF = (a + q/\kappa)^2 / a`. The default κ = ∞ is the
    Moore–Penrose direction :math:`W^+\Delta` (problexity's and pymfe's ``pinv``),
    except where Δ lies in the null space alone (a = 0 < q): the classes differ
    along a direction in which no row of either class varies, dF = ∞ (its limit)
    and F1v = 0, where the peers give 1 (0/0). Whether QΔ is rounding or real is
    decided on the rows with a proof (the rank decision of
    :func:`~sklearn_linsep.separability_statistics`).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    kappa : float, default=inf
        κ of W(κ), in the units of X squared.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights of the means and covariances.
    average : bool, default=True
        K > 2: the mean over every pair of classes (one-vs-one); False: a dict
        ``{(a, b): value}`` of every pair of labels a < b (two classes too).
    tol : float, default=None
        Rank tolerance of W, as in :func:`~sklearn_linsep.separability_statistics`.

    Returns
    -------
    f1v : float or dict
        In [0, 1]; low: the classes are far apart along Fisher's direction.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn_linsep.complexity import f1v
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> round(f1v(X, y), 4)
    0.0638
    """
    data = kernels.MeasureData(X, y, sample_weight, "f1v")
    settings = _settings(kappa=kappa, rank_tol=tol)
    return _averaged(_per_pair(data, "f1v", settings), average)


@validate_params({**_XY, **_AVERAGE}, prefer_skip_nested_validation=True)
def f2(X, y, *, average=True):
    r"""F2: the volume of the classes' overlapping region.

    .. math:: F2 = \prod_f \frac{\max(0, \operatorname{minmax}_f -
              \operatorname{maxmin}_f)}{\operatorname{maxmax}_f -
              \operatorname{minmin}_f},

    minmax the smaller of the two classes' maxima of feature f, maxmin the larger
    of their minima, maxmax and minmin the range of both (Lorena et al. 2019). A
    feature constant over both classes (0/0) is left out of the product, as ECoL
    (``na.rm``) and problexity (``nanprod``) leave it: it overlaps whole. Takes no
    weights: a volume of ranges.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    average : bool, default=True
        K > 2: the mean over every pair; False: ``{(a, b): value}``.

    Returns
    -------
    f2 : float or dict
        In [0, 1]; 0: some feature's ranges do not overlap.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import f2
    >>> X, y = load_iris(return_X_y=True)
    >>> round(f2(X, y), 4)
    0.0064
    """
    data = kernels.MeasureData(X, y, None, "f2")
    return _averaged(_per_pair(data, "f2", _settings()), average)


@validate_params({**_XY, **_WEIGHT, **_AVERAGE}, prefer_skip_nested_validation=True)
def f3(X, y, *, sample_weight=None, average=True):
    r"""F3: the maximum individual feature efficiency.

    .. math:: F3 = \min_f \frac{n_o(f)}{n}, \qquad n_o(f) = \sum_i
              [\operatorname{maxmin}_f \le x_{if} \le \operatorname{minmax}_f],

    the share of the rows inside the overlap of the classes' ranges of the best
    single feature (Lorena et al. 2019). The overlap is closed, as in ECoL and
    problexity: a row on a bound overlaps, so a constant feature leaves every row
    in it. Weighted: shares of the total weight.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None
    average : bool, default=True
        K > 2: the mean over every pair; False: ``{(a, b): value}``.

    Returns
    -------
    f3 : float or dict
        In [0, 1]; 0: one feature alone separates the classes.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import f3
    >>> X, y = load_iris(return_X_y=True)
    >>> round(f3(X, y), 4)
    0.1233
    """
    data = kernels.MeasureData(X, y, sample_weight, "f3")
    return _averaged(_per_pair(data, "f3", _settings()), average)


@validate_params({**_XY, **_WEIGHT, **_AVERAGE}, prefer_skip_nested_validation=True)
def f4(X, y, *, sample_weight=None, average=True):
    r"""F4: the collective feature efficiency.

    The feature whose overlap leaves out the most rows is used, the rows outside
    its overlap are set aside, and the overlaps are taken again on the rows left,
    with the features not yet used (Lorena et al. 2019):

    .. math:: F4 = \frac{n_o(f_{\min}(T_l))}{n},

    the share of the rows still in every overlap when no row is left, every feature
    is used, or the rows left are of one class (counted as left, as ECoL and
    problexity count them). Ties go to the first feature. Weighted: shares of the
    total weight.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None
    average : bool, default=True
        K > 2: the mean over every pair; False: ``{(a, b): value}``.

    Returns
    -------
    f4 : float or dict
        In [0, 1]; 0: the features in turn tell every row's class.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import f4
    >>> X, y = load_iris(return_X_y=True)
    >>> round(f4(X, y), 4)
    0.0433
    """
    data = kernels.MeasureData(X, y, sample_weight, "f4")
    return _averaged(_per_pair(data, "f4", _settings()), average)


@validate_params(
    {**_XY, **_WEIGHT, **_AVERAGE, **_TOL}, prefer_skip_nested_validation=True
)
def l1(X, y, *, sample_weight=None, average=True, tol=1e-9):
    r"""L1: the sum of the error distance by linear programming, exactly.

    .. math:: L1 = \frac{SED}{1 + SED}, \qquad SED = \frac{1}{n}
              \min_{w, b} \sum_i w_i \max(0, 1 - s_i (w \cdot x_i + b)),

    the least total hinge: the linear program of Ho & Basu's L1 (Smith 1968), the
    C → ∞ limit of the soft-margin SVM, solved and proved by the exact core
    (:class:`~sklearn_linsep.HardMarginSVM`'s soft limit). L1 = 0 exactly where the
    classes are linearly separable, decided by the exact verdict. The peers take a
    linear SVM at C = 1 or 2 instead and sum its misclassified rows' distances
    (problexity: geometric; ECoL: its decision values), which can be above 0 on
    separable data. The least total hinge does not move with any invertible
    affine map of the features (the LP's hyperplanes map with them), so neither
    does L1, where the peers' depends on the features' units.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the rows' hinges (n is then the total weight).
    average : bool, default=True
        K > 2: the mean over every pair; False: ``{(a, b): value}``.
    tol : float, default=1e-9
        Tolerance of the exact core, as in :class:`~sklearn_linsep.HardMarginSVM`.

    Returns
    -------
    l1 : float or dict
        In [0, 1); 0 exactly on linearly separable data.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import l1
    >>> X, y = load_iris(return_X_y=True)
    >>> l1(X, y, average=False)[0, 1], round(l1(X[y > 0], y[y > 0]), 4)
    (0.0, 0.053)
    """
    data = kernels.MeasureData(X, y, sample_weight, "l1")
    return _averaged(_per_pair(data, "l1", _settings(tol=tol)), average)


@validate_params({**_XY, **_SEARCH}, prefer_skip_nested_validation=True)
def l2(X, y, *, effort=EFFORT, time_limit=60.0, tol=1e-9):
    r"""L2: the least training error rate of any hyperplane, with proven bounds.

    .. math:: L2 = \min_{w, b} \frac{1}{n} \sum_i [s_i (w \cdot x_i + b) \le 0],

    from :func:`~sklearn_linsep.minimum_error_separation`: the lower bound by
    certificates of inseparability (each a set of rows of which one must be
    misclassified), the upper bound the error count of a hyperplane, each row's
    sign proved. 0 exactly on linearly separable data; above 0 (its lower bound)
    on inseparable data. The peers report one LinearSVC's training error, which
    is an upper bound of L2 at best; the upper bound here is the fewer errors of
    the search's hyperplane and ``LinearSVC()``'s (theirs), so never above theirs.
    Both bounds are proved on X as given; how close they come within ``effort``
    depends on the features' coordinates and the rows' order (a search), the
    least error itself on neither. Rows are counted, not weighted.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        A sparse X is made dense per pair, within the library's one limit on
        densifying (an error says so beyond it).
    y : array-like of shape (n_samples,)
    effort : int or None, default=40
        Exact verdicts the search makes per pair: the same bounds on any machine.
        None: until the bounds meet or ``time_limit``.
    time_limit : float, default=60.0
        Seconds per pair at most, a safety cap.
    tol : float, default=1e-9
        Tolerance of the verdicts.

    Returns
    -------
    result : ErrorRateResult
        ``bounds``, the hyperplane of the upper bound and its error count;
        ``float(result)`` is the upper bound. K > 2: the pairs' means, each pair's
        in ``per_pair``.

    Examples
    --------
    >>> from sklearn_linsep import load_breast_cancer_wisconsin
    >>> from sklearn_linsep.complexity import l2
    >>> X, y = load_breast_cancer_wisconsin(return_X_y=True)
    >>> result = l2(X, y)
    >>> result.errors == round(result.bounds[1] * len(y)), result.bounds[0] > 0
    (True, True)
    """
    data = kernels.MeasureData(X, y, None, "l2", weighted=False)
    settings = _settings(effort=effort, time_limit=time_limit, tol=tol)
    return _combined_error_rates(
        _per_pair(data, "l2", settings), data.classes, len(data.codes)
    )


@validate_params(
    {**_XY, **_SEED, **_WEIGHT, **_AVERAGE, **_TOL},
    prefer_skip_nested_validation=True,
)
def l3(X, y, *, random_state=None, sample_weight=None, average=True, tol=1e-9):
    r"""L3: the non-linearity of L1's hyperplane.

    .. math:: L3 = \frac{1}{l} \sum_{i=1}^{l} [s'_i (w \cdot x'_i + b) \le 0],

    on l = n points interpolated within each class (Lorena et al. 2019): for each
    class as many points as it has rows, each :math:`x_a + t (x_b - x_a)` for two
    distinct rows a, b of the class drawn uniformly and one :math:`t \sim U(0, 1)`
    for all features, labelled with the class. The hyperplane is **L1's**: the
    C → ∞ limit of the soft-margin SVM (the least total hinge, then the largest
    margin among the hyperplanes that attain it; on separable data the
    maximal-margin one, which puts every such point on its side: L3 = 0), where
    the peers use one LinearSVC at a finite C. The points are counted, not
    weighted; ``sample_weight`` weighs the rows' hinges behind the hyperplane, as
    in :func:`l1`.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    random_state : int, RandomState instance or None, default=None
        Draws the points.
    sample_weight : array-like of shape (n_samples,), default=None
        Weights of the rows' hinges behind L1's hyperplane; rows of weight 0 are
        left out.
    average : bool, default=True
        K > 2: the mean over every pair; False: ``{(a, b): value}``.
    tol : float, default=1e-9
        Tolerance of the exact core, as in :class:`~sklearn_linsep.HardMarginSVM`.

    Returns
    -------
    l3 : float or dict
        In [0, 1]; 0: every interpolated point is on its class's side.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep.complexity import l3
    >>> X, y = load_iris(return_X_y=True)
    >>> l3(X, y, random_state=0, average=False)[0, 1]
    0.0
    """
    data = kernels.MeasureData(X, y, sample_weight, "l3")
    settings = _settings(tol=tol, seed=random_state)
    return _averaged(_per_pair(data, "l3", settings), average)


@validate_params(
    {**_XY, **_KAPPA, **_SEED, **_WEIGHT, **_SEARCH},
    prefer_skip_nested_validation=True,
)
def linearity_complexity(X, y, *, kappa=np.inf, random_state=None,
                         sample_weight=None, effort=EFFORT, time_limit=60.0,
                         tol=1e-9):  # fmt: skip
    r"""Ho & Basu's eight feature and linearity measures at once.

    F1, F1v, F2, F3, F4, L1, L2 and L3 as their functions in
    :mod:`sklearn_linsep.complexity` define them, sharing one pass of class
    statistics and one exact solve per pair of classes: where the soft limit behind
    L1 proves a pair separable, L2 is 0 with that maximal-margin hyperplane and no
    search. ``sample_weight`` weighs F1, F1v, F3, F4, L1 and L3's hyperplane;
    rows of weight 0 are left out of all eight.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    kappa : float, default=inf
        F1v's κ (see :func:`f1v`).
    random_state : int, RandomState instance or None, default=None
        L3's points.
    sample_weight : array-like of shape (n_samples,), default=None
    effort : int or None, default=40
        L2's exact verdicts per pair (see :func:`l2`).
    time_limit : float, default=60.0
        L2's seconds per pair at most.
    tol : float, default=1e-9
        Tolerance of the exact core.

    Returns
    -------
    result : ComplexityResult
        The measures, with the pairs' own for K > 2 classes.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn_linsep import linearity_complexity
    >>> X, y = load_iris(return_X_y=True)
    >>> linearity_complexity(X[y > 0], y[y > 0], random_state=0)
    ComplexityResult(classes=[1, 2], n_samples=100)
      F1          0.3142  maximum Fisher's discriminant ratio, one feature
      F1V         0.0645  Fisher's ratio along Fisher's direction
      F2          0.0191  volume of the classes' overlapping region
      F3          0.3700  rows left in the overlap by the best feature
      F4          0.1300  rows left in the overlap by all features in turn
      L1          0.0530  least total hinge, as an error distance
      L2          0.0100  least training error of any hyperplane
      L3          0.0000  L1's hyperplane's error on interpolated points
    """
    data = kernels.MeasureData(X, y, sample_weight, "linearity_complexity")
    settings = _settings(kappa=kappa, effort=effort, time_limit=time_limit, tol=tol,
                         seed=random_state)  # fmt: skip
    with kernels.named("linearity_complexity"):
        pairs = {
            data.labels(pair): _result(
                _PairMeasures(data, pair, settings).compute_all(),
                data.classes[[pair.i, pair.j]],
            )
            for pair in data.pairs()
        }
        if len(pairs) == 1:
            return next(iter(pairs.values()))
        f1 = _native_f1(data)
    means = {
        name: float(np.mean([getattr(r, name) for r in pairs.values()]))
        for name in ("f1v", "f2", "f3", "f4", "l1", "l3", "least_total_hinge")
    }
    l2_rates = {label: r.l2 for label, r in pairs.items()}
    return ComplexityResult(
        f1=f1,
        l2=_combined_error_rates(l2_rates, data.classes, len(data.codes)),
        kappa=float(kappa),
        classes=data.classes,
        n_samples=len(data.codes),
        per_pair=pairs,
        **means,
    )


def _result(measures, classes):
    values = {name: measures[name] for name in MEASURES}
    return ComplexityResult(
        **values,
        least_total_hinge=measures["hinge"],
        kappa=float(measures.settings["kappa"]),
        classes=classes,
        n_samples=len(measures.pair.c),
    )
