r"""The angle of separability computed from class statistics: the results
(:class:`AngleResult`, :class:`HotellingT2Result`) and the arithmetic behind them.

From the :class:`~._stats.ClassStatistics` of two classes (or of each pair of K) and
the regularised inverse S(κ)⁻¹ = S† + Q/κ of their pooled covariance S, θ(κ) =
arctan(κ‖S(κ)⁻¹d‖ / 2), the lifted normal (S(κ)⁻¹d, 2/κ) and Hotelling's T² need
neither the rows nor any validation. They are kept apart from :mod:`._separability`
(which validates data and parameters and holds the functions and the transformer) so
that :mod:`._fisher` (the parts of the mean difference its fit keeps) and the report
(the Mahalanobis distance between the class means) use them without importing an
estimator module.
"""

from dataclasses import dataclass
from itertools import combinations
from typing import NamedTuple

import numpy as np
from scipy import special

from ._basis import combine_parts


@dataclass(frozen=True)
class HotellingT2Result:
    """Hotelling's two-sample T² test of equal means, i.e. of θ = 0.

    Under two normal populations with a common covariance, θ = 0 exactly when d = 0.
    ``statistic`` is ``T² = (n₊n₋/n) dᵀS⁻¹d`` and
    ``f_statistic = (n - p - 1) / (p (n - 2)) · T²`` follows F(df1, df2) =
    F(p, n - p - 1) under the null hypothesis. ``df2`` is a float because frequency
    weights may make n fractional.

    Attributes
    ----------
    statistic : float
        Hotelling's T².
    f_statistic : float
        T² scaled to an F statistic.
    df1 : int
        The numerator degrees of freedom of F, p.
    df2 : float
        The denominator degrees of freedom of F, n - p - 1.
    pvalue : float
        The probability of an F this large or larger when θ = 0.

    Examples
    --------
    >>> from sklearn_linsep import load_bupa_liver, separability_statistics
    >>> X, y = load_bupa_liver(return_X_y=True)
    >>> test = separability_statistics(X, y).hotelling
    >>> test.df1, test.df2
    (6, 338.0)
    >>> bool(test.pvalue < 0.01)  # the class means differ, though θ is only 3.85°
    True
    """

    statistic: float
    f_statistic: float
    df1: int
    df2: float
    pvalue: float


@dataclass(frozen=True, repr=False)
class AngleResult:
    """The angle of separability of two classes and the quantities behind it.

    Attributes
    ----------
    angle : float
        θ(κ) in radians, in [0, π/2].
    cos_angle : float
        cos θ(κ) = (2/κ) / √(L² + 4/κ²), with L the length in the chosen metric.
        With the Euclidean length this is the cosine of the angle between ``normal``
        and the z axis; with the Mahalanobis length θ is a measure on the same scale,
        not that geometric angle.
    scaled_distance : float
        ‖S(κ)⁻¹d‖, the paper's length (units: 1 / units of X).
    mahalanobis_distance : float
        √(dᵀS(κ)⁻¹d), the length that is affine-invariant when S is nonsingular.
    metric : str
        Which length θ uses: "euclidean" (``scaled_distance``) or "mahalanobis".
    kappa : float
    rank : int
        Numerical rank of the pooled covariance S.
    normal : ndarray of shape (n_features + 1,)
        The normal n = (S(κ)⁻¹d, 2/κ) of the lifted hyperplane H(κ).
    hotelling : HotellingT2Result or None
        None when the test is undefined: S singular or n ≤ p + 1.
    mean_in_range : bool or None
        Whether d lies in the range of S in exact arithmetic over the rows as
        given (True: the Mahalanobis distance √(dᵀS⁺d) between the means is
        finite; False: the means differ along a direction in which no row of
        either class varies), proved either way. Decided where S's numerical
        split leaves d a null-space part Qd, which it then reads: as rounding,
        set to zero, where d is proved in the range and S's exact rank, proved
        too, is its numerical rank; else as d's part along directions the
        rank cut drops (rows varying by less than ``tol`` there, or none).
        None where not decided: no null-space part, no rows (statistics, dask
        blocks), or beyond the exact step's limit.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import separability_statistics
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0], [4.0, 1.0]])
    >>> result = separability_statistics(X, [0, 0, 1, 1])
    >>> round(result.degrees, 2), result.rank, np.round(result.normal, 12) + 0.0
    (56.31, 1, array([3., 0., 2.]))
    >>> result
    AngleResult(degrees=56.31, metric='euclidean', kappa=1, rank=1, hotelling=n/a)
    """

    angle: float
    cos_angle: float
    scaled_distance: float
    mahalanobis_distance: float
    metric: str
    kappa: float
    rank: int
    normal: np.ndarray
    hotelling: HotellingT2Result | None
    mean_in_range: bool | None = None

    @property
    def degrees(self):
        """θ(κ) in degrees."""
        return float(np.degrees(self.angle))

    def __repr__(self):
        """Short: θ in degrees and what it was measured with, no arrays."""
        test = "n/a" if self.hotelling is None else f"p={self.hotelling.pvalue:.3g}"
        return (
            f"AngleResult(degrees={self.degrees:.2f}, metric={self.metric!r}, "
            f"kappa={self.kappa:g}, rank={self.rank}, hotelling={test})"
        )


def _angle(kappa_length):
    """``(θ, cos θ)`` with θ = arctan(κL/2), from the product κL."""
    half = kappa_length / 2.0
    return float(np.arctan(half)), float(1.0 / np.hypot(1.0, half))


def _kappa_length(kappa, pinv_sq, null_sq, metric, d_pinv):
    """κL: ``L² = ‖S†d‖² + ‖Qd‖²/κ²`` (Euclidean) or ``dᵀS†d + ‖Qd‖²/κ``
    (Mahalanobis), multiplied by κ² before the square root (κ finite: at κ = ∞
    the angle is 90° for any data with S†d ≠ 0, and is refused)."""
    with np.errstate(over="ignore"):  # κL beyond float64: θ is π/2 to the last bit
        if metric == "euclidean":
            return float(np.hypot(kappa * np.sqrt(pinv_sq), np.sqrt(null_sq)))
        return float(np.sqrt(kappa * kappa * d_pinv + kappa * null_sq))


def _hotelling(stats, d, rank, pinv_part):
    n = stats.total_weight
    p = stats.n_features
    if rank < p or n - p - 1 <= 0:
        return None
    # S is nonsingular here: S⁻¹d = S†d.
    t2 = float(stats.counts[0] * stats.counts[1] / n * (d @ pinv_part))
    f = (n - p - 1) / (p * (n - 2)) * t2
    # scipy.stats.f.sf's own function; f below 0 by rounding has all the weight.
    p_value = 1.0 if f <= 0 else float(special.fdtrc(p, n - p - 1, f))
    return HotellingT2Result(t2, f, p, float(n - p - 1), p_value)


class MeanDifferenceParts(NamedTuple):
    """``S†d``, ``Qd`` and S's numerical rank, for the mean difference d of two
    classes, with whether d lies in S's range exactly (None: not decided)."""

    pinv: np.ndarray
    null: np.ndarray
    rank: int
    in_range: bool | None = None


def mean_difference_parts(stats, reg, range_of=None):
    """The :class:`MeanDifferenceParts` of the mean difference d = m₁ - m₀ of
    two classes: all that the angle needs of S at any κ (S†d ⟂ Qd). A fitted
    estimator keeps them, so that the statistics of its fit need no second
    decomposition.

    Where Qd is not zero and ``range_of`` is given (``range_of(rank)`` decides
    on the rows, a :class:`~._fredholm.MeanRange`), Qd is read by the proof:
    rounding, set to zero, where d lies in S's range and S's exact rank, proved,
    is its numerical one (then the numerical null space is the exact one).
    """
    d = stats.mean_difference(1, 0)
    pinv_part, null_part = reg.split(d, atol=stats.mean_noise)
    if range_of is None or not np.any(null_part):
        return MeanDifferenceParts(pinv_part, null_part, reg.rank)
    decision = range_of(reg.rank)
    if decision.finite and decision.exact_rank == reg.rank:
        null_part = np.zeros_like(null_part)
    return MeanDifferenceParts(pinv_part, null_part, reg.rank, decision.finite)


def _length(vector):
    """‖v‖ without squaring v's entries: ``max|v|`` times the norm of v
    over it (a null-space part divided by a tiny κ reaches 1e200, whose
    square overflows though its length does not)."""
    largest = float(np.max(np.abs(vector), initial=0.0))
    if largest == 0.0 or not np.isfinite(largest):
        return largest
    return largest * float(np.linalg.norm(vector / largest))


def _two_class_angle(stats, kappa, metric, tol, parts=None, range_of=None):
    """AngleResult and the trace of H(κ) on z = 0 as ``(u / ‖u‖, the midpoint's
    coordinate along it)`` (zero where u = 0); from the ``parts`` of
    :func:`mean_difference_parts` when given."""
    if parts is None:
        reg = stats.regularized_inverse(kappa, tol)
        parts = mean_difference_parts(stats, reg, range_of)
    pinv_part, null_part, rank, in_range = parts
    d = stats.mean_difference(1, 0)
    u = combine_parts(pinv_part, null_part, kappa)
    if not np.all(np.isfinite(u)):
        raise ValueError(
            f"The separating hyperplane overflowed with kappa={kappa:g}: the "
            "null-space part of the mean difference is divided by kappa, so kappa is "
            "too small for the scale of X (kappa has the units of X squared)."
        )
    pinv_sq, null_sq = float(pinv_part @ pinv_part), float(null_part @ null_part)
    d_pinv = max(float(d @ pinv_part), 0.0)
    theta, cos_theta = _angle(_kappa_length(kappa, pinv_sq, null_sq, metric, d_pinv))
    length = _length(u)
    result = AngleResult(
        angle=theta,
        cos_angle=cos_theta,
        scaled_distance=length,
        # √(dᵀS†d + ‖Qd‖²/κ), with ‖Qd‖/√κ taken before it is squared.
        mahalanobis_distance=float(
            np.hypot(np.sqrt(d_pinv), np.sqrt(null_sq) / np.sqrt(kappa))
        ),
        metric=metric,
        kappa=float(kappa),
        rank=rank,
        normal=np.append(u, 2.0 / kappa),
        hotelling=_hotelling(stats, d, rank, pinv_part),
        mean_in_range=in_range,
    )
    unit = u / length if length > 0 else u
    return result, unit, float(unit @ (0.5 * stats.means[0] + 0.5 * stats.means[1]))


def class_mean_distance(stats, range_of, tol=None):
    """``(Δ, rank, decision)``: the Mahalanobis distance √(dᵀS⁺d) between the
    two class means of ``stats`` (S the pooled within-class covariance), S's
    numerical rank, and the :class:`~._fredholm.MeanRange` that ``range_of(rank)``
    decides on the rows.

    Δ is free of κ and invariant to any invertible affine map of the features
    where d lies in the range of S (always where S is nonsingular); where it does
    not, some direction has no spread within either class while the means differ
    along it, and Δ is ``inf``: the classes are apart without overlap there. Both
    only with a proof on the rows; ``nan`` where the decision is undecided.
    """
    reg = stats.regularized_inverse(1.0, tol)
    decision = range_of(reg.rank)
    if decision.finite is None:
        return float("nan"), reg.rank, decision
    if not decision.finite:
        return float("inf"), reg.rank, decision
    d = stats.mean_difference(1, 0)
    pinv_part, _ = reg.split(d, atol=stats.mean_noise)
    return float(np.sqrt(max(float(d @ pinv_part), 0.0))), reg.rank, decision


def _pairwise(stats, kappa, metric, tol, parts=None, rows=None):
    """``{(i, j): (AngleResult, u, offset)}`` for every pair of classes i < j
    (two classes: from ``parts`` when given), each pair's null-space part read
    by its rows' proof where ``rows`` (:class:`~._rows.Rows`) are given.

    Two classes need only the pooled scatter; more need the scatter of each class
    (``per_class`` statistics), from which every pair's is a sum.
    """
    if stats.n_classes == 2:
        return {(0, 1): _two_class_angle(
            stats, kappa, metric, tol, parts, _range_of(rows, 0, 1))}  # fmt: skip
    return {
        (i, j): _two_class_angle(
            stats.pair(i, j), kappa, metric, tol, range_of=_range_of(rows, i, j)
        )
        for i, j in combinations(range(stats.n_classes), 2)
    }


def _range_of(rows, i, j):
    """``range_of(rank)`` of classes i and j on ``rows``, or None without rows."""
    if rows is None:
        return None
    return lambda rank: rows.mean_range(j, i, numerical_rank=rank, exact_rank=True)


def _smallest_angle(stats, kappa, metric, tol, rows=None):
    pairs = _pairwise(stats, kappa, metric, tol, rows=rows)
    return min(result.angle for result, _, _ in pairs.values())
