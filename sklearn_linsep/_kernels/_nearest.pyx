# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The nearest points of two convex hulls, by Wolfe's active set.

min ‖Σ λ_i c_i y_i‖ over λ ≥ 0 with Σ λ = 1 on each side. The corral (the rows of
positive weight) is a reference row of each class, ``a`` and ``b``, and the columns
``y_i - y_a`` (positive i) or ``y_b - y_i`` (negative i) of B = QR, kept as ``Qt`` (one
orthonormal row per column of B) and R.

The arithmetic is that of the former numba kernel, bit for bit: the same order of
operations, compiled with ``-ffp-contract=off`` (no fused multiply-add, as numba's
LLVM fuses none), and the matrix-vector products through the very BLAS call numba
made for ``np.dot(A, x, out)`` on a C-ordered ``A``: scipy's ``dgemv`` with ``'t'``
on A read as its Fortran-ordered transpose. The whole iteration runs without the
GIL.
"""

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, fabs, hypot, sqrt
from libc.string cimport memset
from scipy.linalg.cython_blas cimport dgemv

from ._records import NEAREST_CONVERGED, NEAREST_ITERATIONS, NEAREST_STALLED

EPSILON = DBL_EPSILON

# The statuses as C ints, for the loop without the GIL.
cdef int _CONVERGED = NEAREST_CONVERGED
cdef int _STALLED = NEAREST_STALLED
cdef int _ITERATIONS = NEAREST_ITERATIONS
# BLAS takes int dimensions (numba refuses larger ones with this OverflowError).
cdef Py_ssize_t _INT_MAX = 2**31 - 1


cdef struct Corral:
    # The problem: m rows Y (C-ordered, q columns), their sides c (±1) and the
    # weights λ (updated in place).
    const double *Y
    const double *c
    double *weights
    Py_ssize_t m
    Py_ssize_t q
    # The workspace (NearestWorkspace), all C-ordered.
    Py_ssize_t capacity
    double *Qt  # (capacity, q)
    double *R  # (capacity, capacity)
    Py_ssize_t *columns  # (capacity,)
    double *work  # (q,)
    double *coefficients  # (capacity,)
    double *target  # (m,)
    double *v  # (q,)
    double *g  # (m,)


cdef inline double _max(double a, double b) noexcept nogil:
    """numba's (and Python's) ``max(a, b)``: ``b`` only when ``b > a``."""
    return b if b > a else a


cdef inline void _matvec(
    const double *A, Py_ssize_t rows, Py_ssize_t cols, const double *x, double *out
) noexcept nogil:
    """``out = A x`` for a C-ordered ``A`` of shape (rows, cols), exactly as numba's
    ``np.dot(A, x, out)``: zeros when either dimension is 0, else BLAS dgemv with
    ``trans='t'``, ``m = cols``, ``n = rows``, ``lda = cols`` (A is the Fortran
    array Aᵀ), alpha 1 and beta 0, unit strides."""
    cdef char trans = b't'
    cdef int m = <int>cols, n = <int>rows, lda = <int>cols, inc = 1
    cdef double alpha = 1.0, beta = 0.0
    if rows == 0 or cols == 0:
        memset(out, 0, rows * sizeof(double))
        return
    dgemv(&trans, &m, &n, &alpha, <double *>A, &lda, <double *>x, &inc, &beta, out,
          &inc)


cdef inline double _squared_norm(const double *x, Py_ssize_t n) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t t
    for t in range(n):
        total += x[t] * x[t]
    return total


cdef inline void _corral_column(
    Corral *s, Py_ssize_t i, Py_ssize_t a, Py_ssize_t b, double *out
) noexcept nogil:
    cdef Py_ssize_t j, q = s.q
    cdef const double *Y = s.Y
    if s.c[i] > 0:
        for j in range(q):
            out[j] = Y[i * q + j] - Y[a * q + j]
    else:
        for j in range(q):
            out[j] = Y[b * q + j] - Y[i * q + j]


cdef bint _corral_add(
    Corral *s, Py_ssize_t i, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k
) noexcept nogil:
    """Append the column of row ``i`` to B = QR (Gram–Schmidt twice: Giraud, Langou
    & Rozložník 2005). False when it lies in the span to rounding."""
    cdef Py_ssize_t q = s.q, capacity = s.capacity, j, t, repeat
    cdef double *work = s.work
    cdef double *projection = s.coefficients
    cdef double *Qt = s.Qt
    cdef double *R = s.R
    cdef double size, rho, coefficient
    _corral_column(s, i, a, b, work)
    size = sqrt(_squared_norm(work, q))
    for j in range(k):
        R[j * capacity + k] = 0.0
    if k:
        for repeat in range(2):  # classical Gram–Schmidt: a BLAS product, then an axpy
            _matvec(Qt, k, q, work, projection)
            for j in range(k):
                R[j * capacity + k] += projection[j]
                coefficient = projection[j]
                for t in range(q):
                    work[t] -= coefficient * Qt[j * q + t]
    rho = sqrt(_squared_norm(work, q))
    if not rho > 1e-13 * size:
        return False
    for t in range(q):
        Qt[k * q + t] = work[t] / rho
    R[k * capacity + k] = rho
    return True


cdef void _corral_delete(Corral *s, Py_ssize_t k, Py_ssize_t n) noexcept nogil:
    """Delete column ``k`` of B = Qt[:n].T R[:n, :n] in place (Givens rotations)."""
    cdef Py_ssize_t q = s.q, capacity = s.capacity, i, j, col, t
    cdef double *Qt = s.Qt
    cdef double *R = s.R
    cdef double x, y, radius, cos, sin, top, bottom, left, right
    for j in range(k, n - 1):
        for i in range(n):
            R[i * capacity + j] = R[i * capacity + j + 1]
    for i in range(n):
        R[i * capacity + n - 1] = 0.0
    for j in range(k, n - 1):
        x = R[j * capacity + j]
        y = R[(j + 1) * capacity + j]
        radius = hypot(x, y)
        if radius == 0.0:
            continue
        cos = x / radius
        sin = y / radius
        for col in range(j, n - 1):
            top = R[j * capacity + col]
            bottom = R[(j + 1) * capacity + col]
            R[j * capacity + col] = cos * top + sin * bottom
            R[(j + 1) * capacity + col] = -sin * top + cos * bottom
        for t in range(q):
            left = Qt[j * q + t]
            right = Qt[(j + 1) * q + t]
            Qt[j * q + t] = cos * left + sin * right
            Qt[(j + 1) * q + t] = -sin * left + cos * right
    for j in range(n):
        R[(n - 1) * capacity + j] = 0.0


cdef void _affine_minimiser(
    Corral *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k
) noexcept nogil:
    """Weights of the least-norm point of the corral's affine hull, into
    ``target`` (indexed by row); ``work`` and ``coefficients`` are buffers."""
    cdef Py_ssize_t q = s.q, capacity = s.capacity, i, j, t
    cdef const double *Y = s.Y
    cdef double *work = s.work
    cdef double *rhs = s.coefficients
    cdef double *R = s.R
    cdef double total, positive = 0.0, negative = 0.0
    for t in range(q):
        work[t] = -(Y[a * q + t] - Y[b * q + t])
    if k:
        _matvec(s.Qt, k, q, work, rhs)
    for j in range(k - 1, -1, -1):  # R t = rhs
        total = rhs[j]
        for i in range(j + 1, k):
            total -= R[j * capacity + i] * rhs[i]
        rhs[j] = total / R[j * capacity + j]
    for j in range(k):
        s.target[s.columns[j]] = rhs[j]
        if s.c[s.columns[j]] > 0:
            positive += rhs[j]
        else:
            negative += rhs[j]
    s.target[a] = 1.0 - positive
    s.target[b] = 1.0 - negative


cdef Py_ssize_t _rebuild(
    Corral *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k
) noexcept nogil:
    """Factorise the corral's columns anew (after a reference changed); a column
    that has become dependent to rounding gives its weight to its reference."""
    cdef Py_ssize_t kept = 0, j, i
    cdef double *weights = s.weights
    for j in range(k):
        i = s.columns[j]
        if _corral_add(s, i, a, b, kept):
            s.columns[kept] = i
            kept += 1
        else:
            weights[a if s.c[i] > 0 else b] += weights[i]
            weights[i] = 0.0
    return kept


def nearest_points_kernel(
    const double[:, ::1] Y,
    const double[::1] c,
    double[::1] weights,
    double tol,
    Py_ssize_t max_iter,
    workspace,
):
    """The nearest points of conv{y_i : c_i > 0} and conv{y_i : c_i < 0}.

    ``workspace`` is :func:`nearest_workspace` of ``Y``'s shape. ``weights`` (one
    per row) holds the start, λ ≥ 0 summing to 1 on each side (a
    warm start, or one row of each side), and returns the answer. Returns
    ``(v, level_positive, level_negative, iterations, status)``: ``v = p₊ - p₋``
    (the workspace's ``direction``), the levels ``v·p₊`` and ``v·p₋``. Converged
    when no row lies more than ``tol ‖v‖²`` (plus the rounding of the products)
    beyond its side's level.

    Parameters
    ----------
    Y : ndarray of shape (m, q), float64, C-contiguous
    c : ndarray of shape (m,), float64, ±1 (both present)
    weights : ndarray of shape (m,), float64, updated in place
    tol : float
    max_iter : int
    workspace : NearestWorkspace
        C-contiguous float64 buffers (``columns`` intp) of :func:`nearest_workspace`.

    Returns
    -------
    v : ndarray of shape (q,)
    level_positive, level_negative : float
    iterations : int
    status : int
        ``NEAREST_CONVERGED``, ``NEAREST_STALLED`` or ``NEAREST_ITERATIONS``.
    """
    cdef double[:, ::1] Qt, R
    cdef Py_ssize_t[::1] columns
    cdef double[::1] work, coefficients, target, v, g
    Qt, R, columns, work, coefficients, target, v, g = workspace
    cdef Py_ssize_t m = Y.shape[0], q = Y.shape[1], capacity = columns.shape[0]
    if (
        c.shape[0] != m or weights.shape[0] != m or target.shape[0] != m
        or g.shape[0] != m or work.shape[0] != q or v.shape[0] != q
        or Qt.shape[0] != capacity or Qt.shape[1] != q
        or R.shape[0] != capacity or R.shape[1] != capacity
        or coefficients.shape[0] != capacity
    ):
        raise ValueError("the workspace is not nearest_workspace(m, q) of Y's shape")
    if m > _INT_MAX or q > _INT_MAX:
        raise OverflowError("array size too large to fit in C int")
    _check_start(c, weights, capacity)
    cdef Corral s
    s.Y = &Y[0, 0] if m and q else NULL
    s.c = &c[0] if m else NULL
    s.weights = &weights[0] if m else NULL
    s.m = m
    s.q = q
    s.capacity = capacity
    s.Qt = &Qt[0, 0] if q else NULL
    s.R = &R[0, 0]
    s.columns = &columns[0]
    s.work = &work[0] if q else NULL
    s.coefficients = &coefficients[0]
    s.target = &target[0] if m else NULL
    s.v = &v[0] if q else NULL
    s.g = &g[0] if m else NULL
    cdef double level_positive = 0.0, level_negative = 0.0
    cdef Py_ssize_t iterations = 0
    cdef int status
    with nogil:
        status = _nearest_points(
            &s, tol, max_iter, &level_positive, &level_negative, &iterations
        )
    return workspace[6], level_positive, level_negative, iterations, status


cdef int _check_start(
    const double[::1] c, const double[::1] weights, Py_ssize_t capacity
) except -1:
    """A ValueError for a start the workspace cannot hold (the loops index
    without bounds checks): some weight on each side, and at most ``capacity``
    rows of positive weight besides the two references. Every start the callers
    make (one row per side, or a previous answer) passes."""
    cdef Py_ssize_t i, rows = 0
    cdef bint positive = False, negative = False
    for i in range(c.shape[0]):
        if weights[i] > 0:
            rows += 1
            positive = positive or c[i] > 0
            negative = negative or c[i] < 0
    if not (positive and negative):
        raise ValueError("the start needs a row of positive weight on each side")
    if rows - 2 > capacity:
        raise ValueError(
            f"the start has {rows} rows of positive weight; the workspace holds "
            f"{capacity + 2}"
        )
    return 0


cdef int _nearest_points(
    Corral *s,
    double tol,
    Py_ssize_t max_iter,
    double *level_positive_out,
    double *level_negative_out,
    Py_ssize_t *iterations_out,
) noexcept nogil:
    """:func:`nearest_points_kernel` on its pointers: the status, with the levels
    and the iteration count written to the last three arguments."""
    cdef Py_ssize_t m = s.m, q = s.q, capacity = s.capacity
    cdef const double *Y = s.Y
    cdef const double *c = s.c
    cdef double *weights = s.weights
    cdef Py_ssize_t *columns = s.columns
    cdef double *target = s.target
    cdef double *v = s.v
    cdef double *g = s.g
    cdef Py_ssize_t a = -1, b = -1, k = 0, kept, i, j, t, iteration
    cdef Py_ssize_t worst_positive, worst_negative, entering, leaving, heaviest
    cdef double largest = 0.0, rounding, previous = INFINITY, squared, scale, total
    cdef double level_positive = 0.0, level_negative = 0.0
    cdef double deficit_positive, deficit_negative, allowed, step, fraction
    cdef bint positive_side
    cdef int status = _ITERATIONS
    # References: the heaviest row of each side.
    for i in range(m):
        if weights[i] > 0:
            if c[i] > 0 and (a < 0 or weights[i] > weights[a]):
                a = i
            if c[i] < 0 and (b < 0 or weights[i] > weights[b]):
                b = i
    for i in range(m):
        if weights[i] > 0 and i != a and i != b:
            columns[k] = i
            k += 1
    k = _rebuild(s, a, b, k)
    for i in range(m):
        for t in range(q):
            largest = _max(largest, fabs(Y[i * q + t]))
    rounding = 16 * DBL_EPSILON * sqrt(<double>q) * largest
    for iteration in range(1, max_iter + 1):
        for t in range(q):
            v[t] = 0.0
        for i in range(m):
            if weights[i] > 0:
                scale = weights[i] * c[i]
                for t in range(q):
                    v[t] += scale * Y[i * q + t]
        squared = _squared_norm(v, q)
        level_positive = 0.0
        level_negative = 0.0
        worst_positive = -1
        worst_negative = -1
        _matvec(Y, m, q, v, g)
        for i in range(m):
            total = g[i]
            if c[i] > 0:
                level_positive += weights[i] * total
                if worst_positive < 0 or total < g[worst_positive]:
                    worst_positive = i
            else:
                level_negative += weights[i] * total
                if worst_negative < 0 or total > g[worst_negative]:
                    worst_negative = i
        deficit_positive = level_positive - g[worst_positive]
        deficit_negative = g[worst_negative] - level_negative
        allowed = tol * squared + rounding * sqrt(squared) * _max(1.0, sqrt(<double>q))
        if _max(deficit_positive, deficit_negative) <= allowed or squared >= previous:
            status = _CONVERGED
            break
        previous = squared
        entering = (
            worst_positive if deficit_positive >= deficit_negative else worst_negative
        )
        if weights[entering] > 0 or entering == a or entering == b or k + 1 >= capacity:
            status = _STALLED
            break
        if not _corral_add(s, entering, a, b, k):
            status = _STALLED
            break
        columns[k] = entering
        k += 1
        # Wolfe's minor cycle: toward the affine minimiser, stopping where a weight
        # reaches 0 and dropping that row, until the minimiser's weights are > 0.
        while True:
            _affine_minimiser(s, a, b, k)
            step = 1.0
            leaving = -1
            for j in range(k + 2):
                i = a if j == k else (b if j == k + 1 else columns[j])
                if target[i] <= 0:
                    fraction = (
                        weights[i] / (weights[i] - target[i])
                        if weights[i] > target[i]
                        else 0.0
                    )
                    if leaving < 0 or fraction < step:
                        step = fraction
                        leaving = i
            for j in range(k + 2):
                i = a if j == k else (b if j == k + 1 else columns[j])
                weights[i] += step * (target[i] - weights[i])
                target[i] = 0.0
            if leaving < 0:
                break
            weights[leaving] = 0.0
            if leaving == a or leaving == b:
                positive_side = leaving == a
                heaviest = -1
                for j in range(k):
                    i = columns[j]
                    if (c[i] > 0) == positive_side and weights[i] > 0:
                        if heaviest < 0 or weights[i] > weights[heaviest]:
                            heaviest = i
                if positive_side:
                    a = heaviest
                else:
                    b = heaviest
                kept = 0
                for j in range(k):
                    if columns[j] != heaviest and weights[columns[j]] > 0:
                        columns[kept] = columns[j]
                        kept += 1
                k = _rebuild(s, a, b, kept)
            else:
                for j in range(k):
                    if columns[j] == leaving:
                        _corral_delete(s, j, k)
                        for t in range(j, k - 1):
                            columns[t] = columns[t + 1]
                        k -= 1
                        break
    else:
        iteration = max_iter
    level_positive_out[0] = level_positive
    level_negative_out[0] = level_negative
    iterations_out[0] = iteration
    return status
