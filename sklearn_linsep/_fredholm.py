r"""Whether the difference of two class means lies in the range of their pooled
scatter, proved either way: the Fredholm alternative on the rows as given
(SPEC §13).

With C the within-class centred rows of two classes (S ∝ CᵀC), either
``d = Cᵀa`` for some a (d ∈ R(S): the Mahalanobis distance √(dᵀS⁺d) is
finite) or some v has ``C v = 0`` and ``v·d ≠ 0`` (the means differ along a
direction in which no row of either class varies: the distance is infinite).
Both are facts about the float64 rows as rationals. A tolerance on the
null-space part of a float split of d cannot settle them: its rounding can
exceed any fixed noise level, and it depends on the BLAS kernel and the
thread count.

R(S) is the span of the rows' differences to one row of their own class (a
pivot), and d lies in it exactly where the difference e of the two pivots
does (d − e is an average of such differences). The decision takes the
cheapest proof first:

1. features constant within each class, by exact comparisons: one whose two
   values differ is v itself; the others neither vary nor differ, and are
   left out;
2. in float64, the Gram matrix of the differences, its rounding bounded,
   proved positive definite (:func:`~._exact._enclosure.proven_positive_definite`):
   of their columns (full rank: R(S) is everything), or where the features
   are as many as the rows, of their rows with e's (independent rows: e, so d,
   lies outside their span);
3. exactly (:func:`~._exact._span.decide_span`): which differences are independent,
   read modulo a prime, and one rational solve of the basis's size gives the
   weights a on a few rows, or the direction v, which is then checked on
   every row in integers.

The third step is limited to ``EXACT_SPAN_ENTRIES`` entries of X, a basis of
``EXACT_SPAN_RANK`` and a rational solve of ``EXACT_SPAN_WORK`` (its integers'
size counts: a feature whose values span a thousand binary orders is
integers of a thousand bits); beyond them the answer is undecided, with the
reason, never guessed.
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import _check_sample_weight, check_X_y

from ._exact._dyadic import row_chunks
from ._exact._enclosure import proven_positive_definite, rounding_factor
from ._exact._numbers import rational
from ._exact._span import decide_span

# The exact step's limits: the rows' entries it reads (a direction's check
# multiplies them all in integers) and the rank of its square solves (and
# their work, ``_exact._span.EXACT_SPAN_WORK``). Measured (benchmarks/
# bench_fredholm.py, RESULTS.md): 5 000 x 200 of 53-bit floats with a
# dependency 0.4 s, integers of rank 150 0.1-0.2 s; at the corners, 20 000 x
# 200 0.4 s and 10 000 x 400 of rank 399 2.6 s.
EXACT_SPAN_ENTRIES = 4_000_000
EXACT_SPAN_RANK = 400


@dataclass(frozen=True)
class MeanRange:
    """Whether the mean difference d lies in the range of S, and its proof.

    Attributes
    ----------
    finite : bool or None
        True: d ∈ R(S), the Mahalanobis distance between the means is finite.
        False: it is infinite. None: undecided (see ``proof``).
    proof : str
        What proves it: ``"constant feature"`` (a feature constant within each
        class, at two values), ``"no spread"`` (every feature constant within
        each class, at one value: d = 0), ``"full rank"`` (S nonsingular on
        the varying features, proved in float64 with its rounding bounded),
        ``"span"`` (rational weights on a few rows' differences make d),
        ``"direction"`` (a rational v checked on every row), ``"independent
        rows"`` (the rows' differences and the pivots' are linearly
        independent, proved in float64: d lies outside their span, with no v
        computed); or, where undecided, the reason.
    direction : ndarray of shape (n_features,) or None
        Where d ∉ R(S): v, its largest entry ±1, with ``v·x`` the same on every
        row of a class and larger on the second class (``v·d > 0``).
    exact_direction : dict or None
        v in rationals, as checked: its nonzero entries (Fractions) by
        feature index.
    rank_at_least : int or None
        A proved lower bound of S's exact rank, where the proof gives one.
    exact_rank : int or None
        S's exact rank, where proved (asked for with ``exact_rank=True``, or
        given by the proof: full rank, independent rows).
    """

    finite: bool | None
    proof: str
    direction: np.ndarray | None = None
    exact_direction: dict | None = None
    rank_at_least: int | None = None
    exact_rank: int | None = None

    @property
    def direction_features(self):
        """The features v weighs (its nonzero entries), in order."""
        return sorted(self.exact_direction or ())


def decide_mean_range(X, y, sample_weight=None, numerical_rank=None,
                      exact_rank=False):  # fmt: skip
    """Decide whether the difference of the two class means of (X, y) lies in
    the range of their pooled within-class scatter, with a proof either way.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Finite rows, as given (no rescaling: it would round them); made
        float64, exactly.
    y : array-like of shape (n_samples,)
        Exactly two classes among the rows of positive weight.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights: rows of weight 0 are left out (positive weights
        change neither S's range nor whether d lies in it).
    numerical_rank : int, default=None
        S's numerical rank, where known: the float proof of full rank is
        tried only where it can succeed.
    exact_rank : bool, default=False
        Also prove S's exact rank where the exact step decides (the null space
        of a basis of the differences, checked on every row).

    Returns
    -------
    decision : MeanRange
    """
    X, codes = _two_class_rows(X, y, sample_weight)
    n, p = X.shape
    varying, values = _constant_features(X, codes)
    apart = np.flatnonzero(~varying & (values[0] != values[1]))
    if apart.size:
        direction = np.zeros(p)
        direction[apart[0]] = np.sign(values[1, apart[0]] - values[0, apart[0]])
        exact = {int(apart[0]): rational(direction[apart[0]])[0]}
        return MeanRange(False, "constant feature", direction, exact)
    if not varying.any():
        return MeanRange(True, "no spread", rank_at_least=0, exact_rank=0)
    if not varying.all():
        X = X[:, varying]
    if sp.issparse(X):
        if n * X.shape[1] > EXACT_SPAN_ENTRIES:
            return MeanRange(None, _beyond(n, X.shape[1]))
        X = X.toarray()
    pivots = _pivot_rows(X, codes)
    if n - 1 <= X.shape[1]:  # as many features as differences: d's own, often
        if _full_rank_proven(X, codes, pivots, by_rows=True):
            return MeanRange(False, "independent rows", rank_at_least=n - 2,
                             exact_rank=n - 2)  # fmt: skip
    elif numerical_rank is None or numerical_rank >= X.shape[1]:
        if _full_rank_proven(X, codes, pivots):
            p_varying = X.shape[1]
            return MeanRange(True, "full rank", rank_at_least=p_varying,
                             exact_rank=p_varying)  # fmt: skip
    if X.size > EXACT_SPAN_ENTRIES or min(n, X.shape[1]) > EXACT_SPAN_RANK:
        return MeanRange(None, _beyond(n, X.shape[1]))
    found = decide_span(X, pivots[codes], (pivots[1], pivots[0]),
                        _first_rows(codes, pivots, X.shape[1]), exact_rank)  # fmt: skip
    if found is None:
        return MeanRange(None, "the search modulo two primes did not settle")
    if found[0] == "beyond":
        return MeanRange(None, found[1])
    if found[0] == "inside":
        return MeanRange(True, "span", rank_at_least=found[1], exact_rank=found[2])
    _, exact, rank, proved_rank = found
    features = np.flatnonzero(varying)
    largest = max(abs(value) for value in exact.values())
    exact = {int(features[j]): value / largest for j, value in exact.items()}
    direction = np.zeros(p)
    direction[list(exact)] = [float(value) for value in exact.values()]
    return MeanRange(False, "direction", direction, exact, rank, proved_rank)


def _beyond(n, p):
    return (
        f"the exact step reads at most {EXACT_SPAN_ENTRIES:,} entries and solves "
        f"for at most {EXACT_SPAN_RANK} independent rows; these classes have "
        f"{n:,} rows of {p:,} varying features"
    )


def _two_class_rows(X, y, sample_weight):
    """The rows of positive weight as float64 (exact: a float32 or integer X
    is exactly float64), finite, and their class codes 0, 1."""
    X, y = check_X_y(X, y, accept_sparse="csr", dtype=np.float64)
    if sample_weight is not None:
        keep = _check_sample_weight(sample_weight, X) > 0
        X, y = X[keep], y[keep]
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size != 2:
        raise ValueError(f"Two classes are needed; got {classes.size}.")
    return X, codes


def _constant_features(X, codes):
    """``(varying, values)``: whether each feature varies within some class
    (exact comparisons), and each class's smallest value of it."""
    low = np.full((2, X.shape[1]), np.inf)
    high = np.full((2, X.shape[1]), -np.inf)
    for rows in row_chunks(*X.shape):
        for k in (0, 1):
            part = X[rows][codes[rows] == k]
            if part.shape[0]:
                extremes = [part.min(axis=0), part.max(axis=0)]
                if sp.issparse(part):
                    extremes = [np.asarray(v.todense()).ravel() for v in extremes]
                low[k] = np.minimum(low[k], extremes[0])
                high[k] = np.maximum(high[k], extremes[1])
    return np.any(low != high, axis=0), low


def _pivot_rows(X, codes):
    """For each class, its row nearest its mean (the differences to it are
    smallest, the float Gram best conditioned; any row would do exactly)."""
    sides = np.stack([codes == 0, codes == 1]).astype(float)
    pivots = np.empty(2, dtype=np.intp)
    with np.errstate(all="ignore"):  # overflow: any row will do
        means = (sides @ X) / sides.sum(axis=1)[:, None]
        squares = np.einsum("ij,ij->i", X, X)
        for k in (0, 1):
            rows = np.flatnonzero(codes == k)
            distance = squares[rows] - 2 * (X @ means[k])[rows]
            pivots[k] = rows[np.nanargmin(distance) if np.isfinite(distance).any()
                             else 0]  # fmt: skip
    return pivots


def _first_rows(codes, pivots, p):
    """The rows the exact search starts its basis from: up to ``2(p + 1)`` of
    each class, the pivots left out."""
    first = []
    for k in (0, 1):
        rows = np.flatnonzero(codes == k)
        first += rows[rows != pivots[k]][: 2 * (p + 1)].tolist()
    return first


def _difference_blocks(X, codes, pivots, by_rows):
    """The matrix R of the rows' differences to their class's pivot (the
    pivots left out; with ``by_rows``, the pivots' difference ``x_p1 - x_p0``
    last), in blocks of rows (``by_rows`` False) or of columns (True), so that
    no copy of X is whole. Each entry is the exact difference rounded once."""
    rest = np.flatnonzero(~np.isin(np.arange(X.shape[0]), pivots))
    pivot_of = pivots[codes]
    if not by_rows:
        for rows in row_chunks(rest.size, X.shape[1]):
            rows = rest[rows]
            yield X[rows] - X[pivot_of[rows]]
        return
    for columns in row_chunks(X.shape[1], X.shape[0]):
        block = X[:, columns]
        yield np.vstack([block[rest] - block[pivot_of[rest]],
                         block[pivots[1]] - block[pivots[0]]])  # fmt: skip


def _full_rank_proven(X, codes, pivots, by_rows=False):
    """Whether the differences R (see :func:`_difference_blocks`) have full
    column rank (``by_rows``: full row rank, with e), proved in float64: their
    Gram matrix, each column (row) scaled by a power of two (exact) to a
    largest entry near 1 (no square overflows), is positive definite with its
    rounding bounded. Each entry of R is
    rounded once (``|δ - R| ≤ u|R|``) and each product sums ``k`` terms (``γ_k``,
    in any order, blocks included), so ``‖exact Gram - G‖₂ ≤ γ_{k+3} ‖R‖_F²``.
    Two passes over X in blocks: the scales, then the Gram."""
    rows = X.shape[0] - 1 if by_rows else X.shape[0] - 2
    size, k = (rows, X.shape[1]) if by_rows else (X.shape[1], rows)
    if k < size:
        return False
    axis = 1 if by_rows else 0
    with np.errstate(all="ignore"):
        largest = np.max([np.max(np.abs(R), axis=axis, initial=0.0)
                          for R in _difference_blocks(X, codes, pivots, by_rows)],
                         axis=0)  # fmt: skip
        _, exponent = np.frexp(largest)  # each column's largest entry in [1/2, 1)
        G, magnitude = np.zeros((size, size)), 0.0
        for R in _difference_blocks(X, codes, pivots, by_rows):
            scale = -exponent[:, None] if by_rows else -exponent[None, :]
            R = np.ldexp(R, scale, out=R)
            G += R @ R.T if by_rows else R.T @ R
            magnitude += float(np.einsum("ij,ij->", R, R))
    magnitude *= 1 + rounding_factor(k * size)
    radius = rounding_factor(k + 3) * magnitude + np.finfo(float).tiny * k * size
    return proven_positive_definite(G, radius)
