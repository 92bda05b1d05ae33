"""The regularised inverse ``S(κ)⁻¹ = S† + Q/κ`` of a covariance, factored, with its
rank decided unit-free: from the (p, p) matrix S for tall data, or from the centred
rows C of ``S = CᵀC / divisor`` in their span for wide data (dense or sparse C), never
forming a (p, p) matrix (SPEC §10).
"""

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ._basis import ExplicitBasis, SpanBasis, as_rows, combine_parts
from ._krylov import KrylovCovariance
from ._threads import threads_for_matrix


@dataclass(frozen=True)
class RegularizedCovariance:
    """The regularised inverse ``S(κ)⁻¹ = S† + Q/κ`` of a covariance S, factored.

    With U an orthonormal (p, r) basis of the range R(S) and M an (r, r) matrix,
    ``S† = U M Mᵀ Uᵀ`` and ``Q = I - U Uᵀ``. Nothing is (p, p): Q is applied as
    ``b - U(Uᵀb)``. For wide data U is not formed either: it is ``Cᵀ Y``
    (:class:`~sklearn_linsep._basis.SpanBasis`), so that each product with U is a
    pass over the centred rows C. ``W = [U M, N / √κ]`` (N an orthonormal basis of
    the null space) whitens S(κ) = S + κQ: ``Wᵀ S(κ) W = I``.

    Attributes
    ----------
    range_coordinates : ndarray of shape (rank, rank)
        M, with ``S† = U M Mᵀ Uᵀ``.
    kappa : float
        The regularisation κ > 0 (``inf`` gives the Moore–Penrose inverse S†).
    basis : ExplicitBasis or SpanBasis
        U.
    """

    range_coordinates: np.ndarray
    kappa: float
    basis: ExplicitBasis | SpanBasis

    @property
    def rank(self):
        return int(self.range_coordinates.shape[0])

    @property
    def n_features(self):
        return self.basis.n_features

    @property
    def null_space_dim(self):
        return self.n_features - self.rank

    def to_range(self, b):
        """``Uᵀ b``: the coordinates of b's range part."""
        return self.basis.to_range(b)

    def from_range(self, coordinates):
        """``U c``: the vector of range coordinates c."""
        return self.basis.from_range(coordinates)

    @property
    def range_basis(self):
        """U, an orthonormal (p, r) basis of R(S), formed."""
        if isinstance(self.basis, ExplicitBasis):
            return self.basis.matrix
        return self.from_range(np.eye(self.rank))

    def split(self, b, atol=0.0):
        """``(S† b, Q b)`` for a vector or the columns of a matrix.

        A part whose norm is at most ``atol`` (per column; a pair: the range
        part's level, then the null part's) is set to zero: rounding noise in b
        must not become a direction, least of all divided by a small κ.
        """
        b = np.asarray(b, dtype=np.float64)
        in_range, pinv_part, in_null = self._parts(b.reshape(b.shape[0], -1))
        range_atol, null_atol = np.broadcast_to(atol, 2)
        # S† b depends on b only through its range part.
        pinv_part = pinv_part * (np.linalg.norm(in_range, axis=0) > range_atol)
        in_null = in_null * (np.linalg.norm(in_null, axis=0) > null_atol)
        if b.ndim == 1:
            return pinv_part[:, 0], in_null[:, 0]
        return pinv_part, in_null

    def _parts(self, b):
        """``(Uᵀ b, S† b, Q b)`` of the columns of b, in two passes over U (four
        where b lies mostly in the range)."""
        in_range = self.to_range(b)
        in_null, pinv_part = self._from_range_and_pinv(in_range)
        in_null = b - in_null
        # Where most of b was in the range, a second projection takes out what
        # rounding left of it (Kahan's "twice is enough"), so that Q b is as
        # accurate as with an explicit null basis.
        if np.any(
            np.linalg.norm(in_null, axis=0) < np.linalg.norm(b, axis=0) / np.sqrt(2)
        ):
            again = self.to_range(in_null)
            in_range += again
            back, pinv_again = self._from_range_and_pinv(again)
            in_null -= back
            pinv_part += pinv_again
        return in_range, pinv_part, in_null

    def _from_range_and_pinv(self, coordinates):
        """``(U c, S† U c)``, with ``S† U c = U M Mᵀ c``, in one product with U."""
        M = self.range_coordinates
        both = self.from_range(np.hstack([coordinates, M @ (M.T @ coordinates)]))
        return both[:, : coordinates.shape[1]], both[:, coordinates.shape[1] :]

    def solve(self, b, atol=0.0):
        """``S(κ)⁻¹ b = S† b + Q b / κ`` (see :meth:`split` for ``atol``)."""
        return self.combine(*self.split(b, atol))

    def combine(self, pinv_part, null_part):
        """``S† b + Q b / κ`` from the two parts :meth:`split` gives."""
        return combine_parts(pinv_part, null_part, self.kappa)

    def _null_basis(self, null_parts, vectors):
        """An orthonormal basis of ``null_parts``, the null-space parts of the
        columns of ``vectors``: all of N that they see."""
        # What rounding leaves of a vector in the range is no null-space direction.
        noise = 16 * np.sqrt(self.n_features) * np.finfo(float).eps
        noise *= np.max(np.linalg.norm(vectors, axis=0), initial=0.0)
        lengths = np.linalg.norm(null_parts, axis=0)
        if null_parts.shape[1] == 0 or not np.any(lengths > noise):
            return np.zeros((self.n_features, 0))
        basis, triangle, _ = scipy.linalg.qr(null_parts, mode="economic", pivoting=True)
        return basis[:, np.abs(np.diagonal(triangle)) > noise]

    def whitened(self, vectors):
        """``(vectors @ W', back)`` with W' = [U M, N_v / √κ], the whitening W
        restricted to N_v, an orthonormal basis of the null-space parts of the
        rows of ``vectors``: ``vectors @ W'`` has the singular values of
        ``vectors @ W``, and ``back(f)`` is ``W' f``. O(p·(r + K))."""
        M = self.range_coordinates
        in_range, _, null_parts = self._parts(vectors.T)
        whitened_range = in_range.T @ M
        if np.isinf(self.kappa):
            return whitened_range, lambda f: self.from_range(M @ f)
        null = self._null_basis(null_parts, vectors.T) / np.sqrt(self.kappa)
        rank = self.rank

        def back(f):
            return self.from_range(M @ f[:rank]) + null @ f[rank:]

        return np.hstack([whitened_range, vectors @ null]), back

    def whitening(self):
        """W = [U M, N / √κ], with ``Wᵀ S(κ) W = I`` (the N block vanishes at κ =
        ∞). It is (p, p): for small p and for checks; :meth:`whitened` is what
        the estimators use."""
        basis = self.range_basis
        null = np.linalg.qr(basis, mode="complete")[0][:, self.rank :]
        return np.hstack([basis @ self.range_coordinates, null / np.sqrt(self.kappa)])

    def null_projector(self):
        """Q = I - S†S, the orthogonal projector on the null space of S ((p, p))."""
        basis = self.range_basis
        return np.eye(self.n_features) - basis @ basis.T


def default_rank_tol(n_samples, n_features, dtype=np.float64, spread_ratio=1.0):
    """The relative rank tolerance used when none is given.

    ``max(n, p) · eps64 + p · (4 · eps · r)²``. The first term is the rounding of the
    scatter accumulated in float64 over n rows. The second is the rounding of the data
    themselves (``eps`` of their dtype): a value x carries an error of about eps·|x|,
    so a feature whose magnitude is r times its spread adds noise of relative variance
    (eps·r)² to every direction, and an eigenvalue of the correlation matrix below
    that cannot be told from zero.
    """
    accumulation = max(n_samples, n_features) * np.finfo(np.float64).eps
    representation = n_features * (4.0 * np.finfo(dtype).eps * spread_ratio) ** 2
    return accumulation + representation


def regularized_covariance(
    S,
    kappa,
    tol=None,
    n_samples=1,
    dtype=np.float64,
    feature_scale=None,
    max_rank=None,
):
    """Factor S(κ)⁻¹ = S† + Q/κ, deciding the numerical rank of S unit-free.

    The rank is decided on the correlation matrix ``C = D^{-1/2} S D^{-1/2}``
    (``D = diag S``), so that it does not depend on the units of the features: an
    eigenvalue of C at most ``tol`` times the largest counts as zero. A feature whose
    variance is below its own rounding level (``(16 · eps · feature_scale)²``, e.g. a
    constant column) is in the null space outright. The range of S is then
    ``D^{1/2} V_r``; with ``A = D^{1/2} V_r Λ_r^{1/2} = U R`` (QR) the truncated S is
    ``A Aᵀ`` and ``S† = U R^{-T} R^{-1} Uᵀ``, which never inverts the graded S itself.

    Parameters
    ----------
    S : ndarray of shape (n_features, n_features)
        Symmetric positive semi-definite matrix.
    kappa : float
        The regularisation κ > 0, or ``inf`` for the Moore–Penrose inverse alone.
    tol : float, default=None
        Relative tolerance on the eigenvalues of C. None uses
        ``default_rank_tol(n_samples, n_features, dtype, r)`` with r the largest ratio
        of a feature's magnitude to its spread.
    n_samples : int, default=1
        Number of rows behind S, for the default tolerance.
    dtype : dtype, default=np.float64
        The dtype of the data behind S, for the default tolerance.
    feature_scale : ndarray of shape (n_features,), default=None
        The magnitude of each feature (e.g. the largest absolute class mean), which
        sets its rounding level. None: only exact zero variances count as zero.
    max_rank : int, default=None
        The rank S cannot exceed (rows minus classes for a pooled scatter): only the
        largest ``max_rank`` eigenvalues above the tolerance are kept.

    Returns
    -------
    reg : RegularizedCovariance

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._covariance import regularized_covariance
    >>> reg = regularized_covariance(np.diag([2.0, 0.0]), kappa=0.5)
    >>> reg.rank, reg.null_space_dim
    (1, 1)
    >>> reg.solve(np.array([1.0, 1.0]))
    array([0.5, 2. ])
    """
    n_features = S.shape[0]
    varying, root, correlation, tol = correlation_of(
        S, feature_scale, tol, n_samples, dtype
    )
    every_direction_kept = max_rank is None or max_rank >= varying.size
    proof = full_rank_proof(correlation) if every_direction_kept else None
    if proof is not None and proof[0] > _FULL_RANK_MARGIN * tol * proof[1]:
        # No eigenvalue is near the cut: S† restricted to the varying features
        # is D^{-1/2} C⁻¹ D^{-1/2} = M Mᵀ with M = D^{-1/2} L⁻ᵀ (C = L Lᵀ),
        # a fifth of an eigendecomposition's time.
        return RegularizedCovariance(
            proof[2].T / root[:, None],
            float(kappa),
            ExplicitBasis(np.eye(n_features)[:, varying]),
        )
    with threads_for_matrix(len(correlation)):
        eigenvalues, eigenvectors = np.linalg.eigh(correlation)
    keep = _kept(eigenvalues, tol, max_rank)
    eigenvalues, eigenvectors = eigenvalues[keep], eigenvectors[:, keep]
    if eigenvalues.size == varying.size:
        # The varying features are linearly independent: S† restricted to them is
        # the inverse D^{-1/2} C⁻¹ D^{-1/2}, and R(S) is spanned by their coordinates.
        return RegularizedCovariance(
            eigenvectors / (root[:, None] * np.sqrt(eigenvalues)),
            float(kappa),
            ExplicitBasis(np.eye(n_features)[:, varying]),
        )
    # Rank-deficient: S ≈ A Aᵀ with A = D^{1/2} V_r Λ_r^{1/2}.
    A = np.zeros((n_features, eigenvalues.size))
    A[varying] = (root[:, None] * eigenvectors) * np.sqrt(eigenvalues)
    return _range_of(A, kappa)


# The Cholesky route of regularized_covariance is taken when its bound on the
# smallest eigenvalue passes the rank cut by this factor (Cholesky's own
# backward error, about p · eps · ‖C‖, is below the cut: tol ≥ p · eps).
_FULL_RANK_MARGIN = 4.0


def full_rank_proof(correlation):
    """``(lower, upper, L⁻¹)`` where the symmetric ``correlation`` C = L Lᵀ has
    a Cholesky factor, else None: ``lower`` bounds its smallest eigenvalue from
    below, ``1 / ‖C⁻¹‖₂`` with ``‖C⁻¹‖₂ = ‖L⁻¹‖₂² ≤ min(‖L⁻¹‖_F², ‖L⁻¹‖₁
    ‖L⁻¹‖_∞)``, and ``upper = min(‖C‖_F, ‖C‖₁)`` its largest from above. Where
    ``lower > t · upper`` no eigenvalue is within t of the largest: the proof
    costs two triangular passes (p³/3 each), where eigenvalues cost about ten."""
    if not correlation.size:
        return None
    with threads_for_matrix(len(correlation)):
        try:
            lower = scipy.linalg.cholesky(correlation, lower=True)
        except np.linalg.LinAlgError:
            return None
        inverse, info = scipy.linalg.lapack.dtrtri(lower, lower=1)
    if info != 0 or not np.all(np.isfinite(inverse)):
        return None
    inverse_norm = min(
        np.linalg.norm(inverse) ** 2,
        np.linalg.norm(inverse, 1) * np.linalg.norm(inverse, np.inf),
    )
    largest = min(np.linalg.norm(correlation), np.linalg.norm(correlation, 1))
    return 1.0 / inverse_norm, float(largest), inverse


def regularized_covariance_from_rows(
    rows,
    divisor,
    kappa,
    tol=None,
    n_samples=1,
    dtype=np.float64,
    feature_scale=None,
    max_rank=None,
    route="auto",
):
    r"""Factor S(κ)⁻¹ of ``S = CᵀC / divisor`` from the rows C, in their span.

    The same decision and factors as :func:`regularized_covariance` of S, in
    O(m²·p) time and O(m·p) memory for m rows, never a (p, p) matrix (SPEC §10).
    With ``E = diag(CᵀC)^{-1/2}`` on the varying features, the correlation matrix
    is ``(CE)ᵀ(CE)``, whose nonzero eigenvalues are those of the (m, m) Gram
    matrix ``G = (CE)(CE)ᵀ = U Λ Uᵀ``; its eigenvectors are ``V = E Cᵀ U Λ^{-1/2}``,
    so the kept part of S is ``A Aᵀ`` with ``A = D^{1/2} V_r Λ_r^{1/2} =
    Cᵀ U_r / √divisor``, whose thin QR gives the range and S†.

    Parameters
    ----------
    rows : ndarray of shape (n_rows, n_features)
        C, e.g. ``ClassStatistics.scatter_rows``.
    divisor : float or None
        The divisor of the covariance (None: C is zero, S = 0).
    kappa, tol, n_samples, dtype, feature_scale, max_rank
        As for :func:`regularized_covariance`.
    route : {"auto", "span", "krylov"}, default="auto"
        "span" factors S in the span of the rows (an (m, m) Gram matrix and its
        eigendecomposition); "krylov" solves by LSQR on the rows
        (:class:`~._krylov.KrylovCovariance`, for sparse rows); "auto" takes the
        cheaper (:func:`krylov_is_cheaper`).

    Returns
    -------
    reg : RegularizedCovariance or KrylovCovariance

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep._covariance import (
    ...     regularized_covariance, regularized_covariance_from_rows)
    >>> C = np.random.RandomState(0).normal(size=(3, 6))
    >>> wide = regularized_covariance_from_rows(C, 2.0, kappa=0.5)
    >>> square = regularized_covariance(C.T @ C / 2.0, kappa=0.5)
    >>> wide.rank, wide.null_space_dim
    (3, 3)
    >>> b = np.arange(6.0)
    >>> bool(np.allclose(wide.solve(b), square.solve(b)))
    True
    """
    rows = as_rows(rows)
    n_features = rows.n_features
    divisor = 1.0 if divisor is None else float(divisor)
    sums_of_squares = rows.column_squares()
    if not np.max(sums_of_squares, initial=0.0) < _LARGEST_SQUARES:
        # Rows this large would overflow the Gram matrices (sums over p).
        rows, divisor = _to_unit_scale(rows, divisor, np.max(sums_of_squares))
        sums_of_squares = rows.column_squares()
    given_tol = tol
    varying, _, tol = _rank_setup(
        sums_of_squares / divisor, feature_scale, tol, n_samples, n_features, dtype
    )
    inverse_root = np.zeros(n_features)
    inverse_root[varying] = 1.0 / np.sqrt(sums_of_squares[varying])
    if np.any(sums_of_squares[inverse_root == 0]):
        # A feature below its rounding level is constant: its rounding noise
        # must not enter the range.
        rows = rows.scaled((inverse_root > 0).astype(np.float64))
    if not (np.isfinite(divisor) and divisor > 0):
        raise overflow_error()
    graded = _graded(sums_of_squares[varying])
    if route == "krylov" or (route == "auto" and krylov_is_cheaper(rows, graded)):
        bound = min(rows.n_rows, varying.size)
        if max_rank is not None:
            bound = min(bound, max_rank)
        # The solves stop at the scatter's own rounding: the default tolerance's
        # term for the rounding of the data (large where a feature sits far
        # from the origin) is for the unit-free rank cut, not for LSQR.
        solve_tol = given_tol
        if solve_tol is None:
            solve_tol = default_rank_tol(n_samples, n_features)
        # Unit scale: LSQR's tests have an absolute floor that rows of 1e-12
        # would fall under.
        if varying.size:
            largest = np.max(sums_of_squares[varying])
            rows, divisor = _to_unit_scale(rows, divisor, largest)
        return KrylovCovariance(
            rows, divisor, float(kappa), int(bound), float(solve_tol)
        )
    plain_gram = rows.gram()
    if not np.all(np.isfinite(plain_gram)):
        raise overflow_error()
    full = _full_rank_span(plain_gram, inverse_root, tol, max_rank, divisor)
    if full is not None:
        M, coefficients = full
        basis = SpanBasis(rows, coefficients)
        if _orthogonality_defect(basis) <= _SPAN_ERROR_LIMIT:
            return RegularizedCovariance(M, float(kappa), basis)
    gram = rows.gram(inverse_root)
    with threads_for_matrix(len(gram)):
        eigenvalues, eigenvectors = np.linalg.eigh(gram)
    keep = _kept(eigenvalues, tol, max_rank) if varying.size else []
    eigenvalues, eigenvectors = eigenvalues[keep], eigenvectors[:, keep]
    if not eigenvalues.size:
        return _range_of(np.zeros((n_features, 0)), kappa)
    # B = Cᵀ Y = D^{1/2} V spans the range, with BᵀB = Yᵀ (C Cᵀ) Y = L Lᵀ; then
    # U = B L^{-T} is orthonormal, A = B Λ^{1/2} = U Lᵀ Λ^{1/2}, and
    # (A Aᵀ)† = U M Mᵀ Uᵀ with M = L^{-1} Λ^{-1/2}: all (m, m), C never copied.
    coefficients = eigenvectors / np.sqrt(eigenvalues * divisor)
    # Cholesky QR, and where its orthogonality defect (about eps·cond(BᵀB)) is
    # too large, once more on its result (CholeskyQR2).
    inverse = np.eye(eigenvalues.size)
    for _ in range(2):
        combined = coefficients @ inverse.T
        lower = _cholesky_or_none(combined.T @ plain_gram @ combined)
        if lower is None:
            break
        inverse = scipy.linalg.solve_triangular(lower, inverse, lower=True)
        basis = SpanBasis(rows, coefficients @ inverse.T)
        if _orthogonality_defect(basis) <= _SPAN_ERROR_LIMIT:
            return RegularizedCovariance(
                inverse / np.sqrt(eigenvalues), float(kappa), basis
            )
    # Graded features and a spread-out spectrum can cost the Gram route its
    # digits: then the range is found by Householder QR of A itself (O(p·r²)
    # time and O(p·r) memory, A formed).
    A = rows.tdot(eigenvectors) / np.sqrt(divisor)
    return _range_of(A, kappa)


def _to_unit_scale(rows, divisor, largest_square):
    """``(rows, divisor)`` scaled by a power of two (exact) so that the largest
    sum of squares ``largest_square`` is about 1; S = CᵀC / divisor unchanged."""
    exponent = int(np.frexp(np.sqrt(largest_square))[1])
    scaled = rows.scaled(np.full(rows.n_features, np.ldexp(1.0, -exponent)))
    return scaled, np.ldexp(divisor, -2 * exponent)


# The cost model of the two routes for sparse rows (seconds on the 2-core machine
# of benchmarks/RESULTS.md, one BLAS thread, TF-IDF text of 20-60 words a row):
# the span route is one (m, m) symmetric eigendecomposition, SPAN_SECONDS · m³
# (eigh at m = 2 000 took 2.0 s, plus the Gram matrix); the Krylov route is two
# LSQR solves of about KRYLOV_ITERATIONS_PER_ROW · m / (1 - √(m/p)) iterations
# each (text of 3 000 x 20 000, 8 000 x 30 000 and 20 000 x 50 000 took 280,
# 750 and 2 000 at tol 1e-12), each two
# passes over X and a few vectors of length m + p at KRYLOV_ENTRY_SECONDS an
# entry. Text crosses over at a few hundred rows.
SPAN_SECONDS = 2.5e-10
KRYLOV_ITERATIONS_PER_ROW = 0.06
KRYLOV_ENTRY_SECONDS = 1.5e-9

# Past this many bytes the span route's (m, m) matrices are not formed at all.
SPAN_LARGEST_BYTES = 1 << 30


def _krylov_seconds(n_rows, n_features, entries):
    # The smallest singular value of centred rows falls as 1 - √(min/max)
    # (Marchenko-Pastur): near a square shape the solves need many more
    # iterations (1 000 x 1 000 hit LSQR's limit of 4 100).
    small, large = sorted((n_rows, n_features))
    squareness = max(1.0 - np.sqrt(small / large), 1e-3)
    iterations = 2 * max(KRYLOV_ITERATIONS_PER_ROW * small / squareness, 50.0)
    per_iteration = 2 * entries + 10 * (n_rows + n_features)
    return iterations * per_iteration * KRYLOV_ENTRY_SECONDS


def _factored_is_dearer(order, n_rows, n_features, entries):
    """Whether an (order, order) matrix and its eigendecomposition cost more
    than two LSQR solves on sparse rows (or would not fit)."""
    if 8.0 * order * order * 3 > SPAN_LARGEST_BYTES:
        return True
    return _krylov_seconds(n_rows, n_features, entries) < SPAN_SECONDS * order**3


# Features whose spreads lie further apart than this factor make the Krylov
# route's condition limit (not unit-free, unlike the span route's rank cut)
# drop the directions of the smaller ones: the span route takes them where its
# matrices fit in memory. TF-IDF text spans about 100.
GRADED_SPREAD = 1e4


def _graded(sums_of_squares):
    """Whether the features' spreads (root sums of squares) lie more than
    ``GRADED_SPREAD`` apart."""
    if not sums_of_squares.size:
        return False
    return bool(np.max(sums_of_squares) > GRADED_SPREAD**2 * np.min(sums_of_squares))


def krylov_is_cheaper(rows, graded=False):
    """Whether S(κ)⁻¹ of the centred rows ``rows`` is found by two LSQR solves
    rather than in the span of the rows: for a sparse part only (dense rows have
    no pass cheaper than their Gram matrix), by the cost model above; for
    ``graded`` features only where the span's matrices would not fit."""
    if not rows.is_sparse:
        return False
    if graded:
        return 8.0 * rows.n_rows**2 * 3 > SPAN_LARGEST_BYTES
    entries = rows.sparse.nnz + rows.dense.size
    return _factored_is_dearer(rows.n_rows, rows.n_rows, rows.n_features, entries)


# Sums of squares above this could overflow a Gram matrix's sums over p features.
_LARGEST_SQUARES = 2.0**900

# The span basis's orthogonality defect ‖UᵀU - I‖_F above which it is found by
# Householder QR instead (slower by a factor of about 10 at p = 1e5 and O(p·r) in
# memory, but exact to rounding whatever the grading of the features). The
# defect bounds the relative error it brings to S(κ)⁻¹b; on 3 466 TF-IDF
# documents it was 7e-11 for an error of 7e-11 against the Householder route.
_SPAN_ERROR_LIMIT = 1e-10


def _full_rank_span(plain_gram, inverse_root, tol, max_rank, divisor):
    """``(M, Y)`` of S† from the plain Gram matrix alone, when it proves that the
    unit-free rank decision keeps every direction (``max_rank`` of them), else
    None.

    With ``G = C E² Cᵀ`` the Gram matrix of the correlation scale and ``G₀ = C Cᵀ``,
    ``G ⪰ min(E²) G₀`` gives ``λ_r(G) ≥ min(E²) λ_r(G₀)``, and ``λ_max(G) ≤
    trace(G)``, the number of varying features. Above ``tol`` times that, all r
    directions count, S keeps all of its range (the row space of C), and with
    ``G₀ = W Σ Wᵀ``: ``U = Cᵀ W_r Σ_r^{-1/2}`` and ``S† = U (divisor Σ_r⁻¹) Uᵀ``.
    The scaled Gram matrix is then never formed: half the work, on p ≫ n data
    whose features have a similar spread."""
    varying = inverse_root > 0
    rank = max_rank
    if rank is None or not 0 < rank <= plain_gram.shape[0] or not varying.any():
        return None
    with threads_for_matrix(len(plain_gram)):
        eigenvalues, eigenvectors = np.linalg.eigh(plain_gram)
    smallest = eigenvalues[-rank]
    unit_free = smallest * np.min(inverse_root[varying]) ** 2
    if not unit_free > 2.0 * tol * np.count_nonzero(varying):
        return None
    kept = eigenvalues[-rank:]
    M = np.diag(np.sqrt(divisor / kept))
    return M, eigenvectors[:, -rank:] / np.sqrt(kept)


def _cholesky_or_none(matrix):
    try:
        return scipy.linalg.cholesky(matrix, lower=True)
    except np.linalg.LinAlgError:
        return None


def _orthogonality_defect(basis, n_probes=8):
    """``‖UᵀU - I‖_F`` of a span basis U = CᵀY, estimated from a few random probes
    z (``E‖(UᵀU - I) z‖² = ‖UᵀU - I‖_F²`` for standard normal z), each product a
    pass over the rows C as every later use of U makes (never through the Gram
    matrix, whose rounding is what is being checked). O(m·p·n_probes).

    It decides, a posteriori, whether the Gram route kept its digits: an a-priori
    bound (m·eps times the spread of the eigenvalues times cond(L)²) was 1e12
    times too pessimistic on TF-IDF text and sent it to the Householder route, 7
    times slower and O(p·r) in memory, for a result that differed by 2.5e-14."""
    rank = basis.coefficients.shape[1]
    probes = np.random.RandomState(0).standard_normal((rank, n_probes))
    defect = basis.to_range(basis.from_range(probes)) - probes
    return float(np.linalg.norm(defect) / np.sqrt(n_probes))


def _varying(variances, feature_scale, dtype):
    """Whether each variance is above the rounding level of its feature's own
    values (``(16 · eps · scale)²``): below it, the feature counts as constant.
    Compared as a standard deviation: the level's square overflows past 1e170."""
    return np.sqrt(variances) > 16 * np.finfo(dtype).eps * feature_scale


def correlation_of(S, feature_scale, tol, n_samples, dtype):
    """``(varying, root, C, tol)``: :func:`_rank_setup` of S's diagonal and the
    correlation matrix ``C = D^{-1/2} S D^{-1/2}`` on the varying features, where
    the rank is decided unit-free."""
    varying, root, tol = _rank_setup(
        np.diag(S), feature_scale, tol, n_samples, S.shape[0], dtype
    )
    return varying, root, S[np.ix_(varying, varying)] / np.outer(root, root), tol


def _rank_setup(variances, feature_scale, tol, n_samples, n_features, dtype):
    """``(varying, root, tol)``: the features whose variance is above their own
    rounding level, the square roots of those variances, and the rank tolerance
    (the default one when ``tol`` is None)."""
    variances = np.clip(variances, 0.0, None)
    scale = np.zeros(n_features) if feature_scale is None else np.asarray(feature_scale)
    varying = np.flatnonzero(_varying(variances, scale, dtype))
    root = np.sqrt(variances[varying])
    if tol is None:
        ratio = np.max((scale[varying] + root) / root, initial=1.0)
        tol = default_rank_tol(n_samples, n_features, dtype, ratio)
    return varying, root, tol


def _kept(eigenvalues, tol, max_rank):
    """The eigenvalues (ascending, as eigh gives them) that count: above ``tol``
    times the largest, and at most the ``max_rank`` largest."""
    if not eigenvalues.size:
        return np.zeros(0, dtype=bool)
    keep = eigenvalues > tol * max(eigenvalues[-1], 0.0)
    if max_rank is not None and np.count_nonzero(keep) > max_rank:
        keep = np.arange(eigenvalues.size) >= eigenvalues.size - max_rank
    return keep


def _range_of(A, kappa):
    """The factors of ``(A Aᵀ)† + Q/κ`` from A of full column rank.

    Householder QR of a row-graded matrix is accurate once its rows are sorted by
    decreasing norm; then ``A = U R`` and ``(A Aᵀ)† = U R^{-T} R^{-1} Uᵀ``, which
    never inverts the graded S itself.
    """
    if not A.shape[1]:
        return RegularizedCovariance(
            np.zeros((0, 0)), float(kappa), ExplicitBasis(np.zeros((A.shape[0], 0)))
        )
    order = np.argsort(-np.linalg.norm(A, axis=1), kind="stable")
    sorted_rows = A[order]
    del A
    U_sorted, R = scipy.linalg.qr(sorted_rows, mode="economic", overwrite_a=True)
    del sorted_rows
    range_basis = np.empty_like(U_sorted)
    range_basis[order] = U_sorted
    del U_sorted
    coordinates = scipy.linalg.solve_triangular(R, np.eye(R.shape[0])).T  # R^{-T}
    return RegularizedCovariance(coordinates, float(kappa), ExplicitBasis(range_basis))


def overflow_error():
    return ValueError(
        "The class statistics overflowed float64: the features are too large in "
        "magnitude (about 1e154 or more). Rescale X, e.g. with StandardScaler."
    )
