# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The nearest points of two convex hulls, by Wolfe's active set.

min ‖Σ λ_i c_i y_i‖ over λ ≥ 0 with Σ λ = 1 on each side. The corral (the rows of
positive weight) is a reference row of each class, ``a`` and ``b``, and the columns
``y_i - y_a`` (positive i) or ``y_b - y_i`` (negative i) of B = QR, kept as ``Qt`` (one
orthonormal row per column of B) and R.

A major step joins the most violating row (Wolfe's) and, with it, up to ``batch``
more whose violation is at least ``BATCH_SHARE`` of its own; the minor cycle drops
those that do not help, and a batch that made no progress hands over to one row a
step for the rest of the run (Wolfe's proof of progress needs only the first). A
support of hundreds of rows (p ≈ n) is then reached in tens of products with all
rows, not hundreds: 1 000 × 500, 399 support vectors, 473 steps in 91 ms -> 24
steps in 26 ms (one BLAS thread). A batch joins the QR in one block (four matrix
products against Qt), and every other product, combination and rotation goes
through BLAS too (scipy's ``cython_blas``, on C-ordered arrays read as their
Fortran-ordered transposes). The whole iteration runs without the GIL.

A start of many rows (a guessed support, or the last answer on a grown working set)
is factored 64 columns at a time, heaviest first, and made a corral by a minor cycle
before the first step: a guess need not be exact, only near.
"""

from libc.float cimport DBL_EPSILON
from libc.math cimport INFINITY, fabs, hypot, sqrt
from libc.string cimport memmove, memset
from scipy.linalg.cython_blas cimport daxpy, dgemm, dgemv, drot, dtrsv

from ._records import (
    JOIN_MAX, NEAREST_CONVERGED, NEAREST_ITERATIONS, NEAREST_STALLED,
)

EPSILON = DBL_EPSILON

# The statuses as C ints, for the loop without the GIL.
cdef int _CONVERGED = NEAREST_CONVERGED
cdef int _STALLED = NEAREST_STALLED
cdef int _ITERATIONS = NEAREST_ITERATIONS
# BLAS takes int dimensions (numba refuses larger ones with this OverflowError).
cdef Py_ssize_t _INT_MAX = 2**31 - 1

# Rows that may join with the most violated one (a step's ``batch`` at most this),
# where their violation is at least BATCH_SHARE of its own. The kernel alone, one
# BLAS thread, row at a time QR (ms at 1 000 x 500 / 2 000 x 1 000 / 5 000 x 100):
# one row a step 66 / 1 345 / 27; batches of 8: 32 / 371 / 13.6; 16: 38 / 270 /
# 14; 32: 37 / 272 / 14.2; 64: 41 / 316 / 15.7; 16 at a share of 0.25: 36 / 267 /
# 14.1; 32 at 0.75: 37 / 341 / 14. (Then the block QR, and the right-hand side kept
# through the QR's changes: 16, 0.5: 26 / 176 / 11.2.)
cdef enum:
    MAX_BATCH = 64
if JOIN_MAX != MAX_BATCH:
    raise ImportError("_records.JOIN_MAX sizes the workspace for MAX_BATCH rows")
JOIN_BATCH = 16
cdef double BATCH_SHARE = 0.5
# Gram–Schmidt once is enough where the column kept this share of its norm
# (Daniel, Gragg, Kaufman & Stewart 1976); else once more.
cdef double ONCE_ENOUGH = 0.7071067811865476


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
    double *coefficients  # (capacity,)
    double *target  # (m,)
    double *v  # (q,)
    double *g  # (m,)
    double *block  # (MAX_BATCH, q): a batch's columns
    double *projections  # (2 MAX_BATCH, capacity): their coefficients on Qt
    double *towards  # (capacity,): Qt (y_b - y_a), kept through every change of Qt


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


cdef inline void _subtract_combination(
    const double *A, Py_ssize_t rows, Py_ssize_t cols, const double *x, double *out
) noexcept nogil:
    """``out -= Aᵀ x`` for a C-ordered ``A`` of shape (rows, cols) (BLAS dgemv
    with ``trans='n'`` on A read as the Fortran array Aᵀ)."""
    cdef char trans = b'n'
    cdef int m = <int>cols, n = <int>rows, lda = <int>cols, inc = 1
    cdef double alpha = -1.0, beta = 1.0
    if rows == 0 or cols == 0:
        return
    dgemv(&trans, &m, &n, &alpha, <double *>A, &lda, <double *>x, &inc, &beta, out,
          &inc)


cdef inline double _squared_norm(const double *x, Py_ssize_t n) noexcept nogil:
    cdef double total = 0.0
    cdef Py_ssize_t t
    for t in range(n):
        total += x[t] * x[t]
    return total


cdef inline void _record_towards(
    Corral *s, Py_ssize_t row, Py_ssize_t a, Py_ssize_t b
) noexcept nogil:
    """``towards[row] = Qt[row] · (y_b - y_a)``, for a row just written: the
    affine minimiser's right-hand side, kept rather than a product with all of Qt
    a minor cycle."""
    cdef Py_ssize_t q = s.q, t
    cdef double total = 0.0
    for t in range(q):
        total += s.Qt[row * q + t] * (s.Y[b * q + t] - s.Y[a * q + t])
    s.towards[row] = total


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
    """Append the column of row ``i`` to B = QR after its ``k`` (:func:`_add_block`
    of one row). False when it lies in the span to rounding."""
    cdef Py_ssize_t picked = i
    return _add_block(s, a, b, k, &picked, 1) == 1


cdef void _corral_delete(Corral *s, Py_ssize_t k, Py_ssize_t n) noexcept nogil:
    """Delete column ``k`` of B = Qt[:n].T R[:n, :n] in place (Givens rotations)."""
    cdef Py_ssize_t q = s.q, capacity = s.capacity, i, j
    cdef double *Qt = s.Qt
    cdef double *R = s.R
    cdef double x, y, radius, cos, sin
    cdef int rows = <int>q, inc = 1, length
    for i in range(n):  # row by row: R is C-ordered
        memmove(&R[i * capacity + k], &R[i * capacity + k + 1],
                (n - 1 - k) * sizeof(double))
        R[i * capacity + n - 1] = 0.0
    for j in range(k, n - 1):
        x = R[j * capacity + j]
        y = R[(j + 1) * capacity + j]
        radius = hypot(x, y)
        if radius == 0.0:
            continue
        cos = x / radius
        sin = y / radius
        length = <int>(n - 1 - j)
        drot(&length, &R[j * capacity + j], &inc, &R[(j + 1) * capacity + j], &inc,
             &cos, &sin)
        drot(&rows, &Qt[j * q], &inc, &Qt[(j + 1) * q], &inc, &cos, &sin)
        x = s.towards[j]
        y = s.towards[j + 1]
        s.towards[j] = cos * x + sin * y
        s.towards[j + 1] = -sin * x + cos * y
    for j in range(n):
        R[(n - 1) * capacity + j] = 0.0


cdef void _affine_minimiser(
    Corral *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k
) noexcept nogil:
    """Weights of the least-norm point of the corral's affine hull, into
    ``target`` (indexed by row): R t = Qt (y_b - y_a); ``coefficients`` is a
    buffer."""
    cdef Py_ssize_t capacity = s.capacity, j
    cdef double *rhs = s.coefficients
    cdef double *R = s.R
    cdef double positive = 0.0, negative = 0.0
    cdef char lower = b'L', transposed = b'T', general = b'N'
    cdef int order = <int>k, lda = <int>capacity, inc = 1
    for j in range(k):
        rhs[j] = s.towards[j]
    if k:  # R t = rhs: R C-ordered is the Fortran lower triangle Rᵀ
        dtrsv(&lower, &transposed, &general, &order, R, &lda, rhs, &inc)
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
    """Factorise the corral's columns anew (after a reference changed, or from a
    start of many rows), ``MAX_BATCH`` at a time (:func:`_add_block`: matrix
    products, where a column at a time reads Qt twice a column: a start of 399
    columns of 500 features, factored and checked, 20 -> 9.5 ms); a column that
    has become dependent to rounding gives its weight to its reference."""
    cdef Py_ssize_t kept = 0, start, count, joined, j, i, t
    cdef double *weights = s.weights
    cdef Py_ssize_t picked[MAX_BATCH]
    cdef Py_ssize_t block_rows[MAX_BATCH]
    cdef bint found
    start = 0
    while start < k:
        count = min(<Py_ssize_t>MAX_BATCH, k - start)
        for j in range(count):  # _add_block writes columns from kept <= start
            block_rows[j] = s.columns[start + j]
            picked[j] = block_rows[j]
        joined = _add_block(s, a, b, kept, picked, count)
        for j in range(count):  # joined ones are picked[:joined], in order
            i = block_rows[j]
            found = False
            for t in range(joined):
                found = found or picked[t] == i
            if not found:
                weights[a if s.c[i] > 0 else b] += weights[i]
                weights[i] = 0.0
        kept += joined
        start += count
    return kept


def nearest_points_kernel(
    const double[:, ::1] Y,
    const double[::1] c,
    double[::1] weights,
    double tol,
    Py_ssize_t max_iter,
    workspace,
    Py_ssize_t batch=JOIN_BATCH,
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
    batch : int, default=JOIN_BATCH
        Rows that may join the first step beside the most violating one (0:
        Wolfe's one at a time throughout; at most 64); later steps double or
        halve it by how many of the last batch kept a weight.

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
    cdef double[::1] coefficients, target, v, g
    cdef double[:, ::1] block, projections
    cdef double[::1] towards
    (Qt, R, columns, coefficients, target, v, g, block, projections,
     towards) = workspace
    cdef Py_ssize_t m = Y.shape[0], q = Y.shape[1], capacity = columns.shape[0]
    if (
        c.shape[0] != m or weights.shape[0] != m or target.shape[0] != m
        or g.shape[0] != m or v.shape[0] != q
        or Qt.shape[0] != capacity or Qt.shape[1] != q
        or R.shape[0] != capacity or R.shape[1] != capacity
        or coefficients.shape[0] != capacity
        or block.shape[0] != MAX_BATCH or block.shape[1] != q
        or projections.shape[0] != 2 * MAX_BATCH
        or projections.shape[1] != capacity or towards.shape[0] != capacity
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
    s.coefficients = &coefficients[0]
    s.target = &target[0] if m else NULL
    s.v = &v[0] if q else NULL
    s.g = &g[0] if m else NULL
    s.block = &block[0, 0] if q else NULL
    s.projections = &projections[0, 0]
    s.towards = &towards[0]
    cdef double level_positive = 0.0, level_negative = 0.0
    cdef Py_ssize_t iterations = 0
    cdef int status
    cdef Py_ssize_t first_batch = min(max(batch, 0), MAX_BATCH)
    with nogil:
        status = _nearest_points(
            &s, tol, max_iter, first_batch, &level_positive, &level_negative,
            &iterations,
        )
    return workspace.direction, level_positive, level_negative, iterations, status


cdef Py_ssize_t _join_more(
    Corral *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k, double level_positive,
    double level_negative, double threshold, Py_ssize_t batch, Py_ssize_t entering,
    Py_ssize_t *picked, double *deficits,
) noexcept nogil:
    """Append to the corral (after its ``k`` columns) up to ``batch`` more rows
    of weight 0 violating their side's level by more than ``threshold``, the most
    violating first, skipping those dependent to rounding; returns how many,
    ``picked`` starting with them."""
    cdef Py_ssize_t i, j, count = 0, joined = 0
    cdef double deficit
    cdef const double *g = s.g
    batch = min(batch, s.capacity - 1 - k)  # the room left in the corral
    if batch <= 0:
        return 0
    for i in range(s.m):
        if s.weights[i] > 0 or i == entering or i == a or i == b:
            continue
        deficit = level_positive - g[i] if s.c[i] > 0 else g[i] - level_negative
        if not deficit > threshold:
            continue
        if count == batch and deficit <= deficits[count - 1]:
            continue
        j = count if count < batch else batch - 1
        while j > 0 and deficits[j - 1] < deficit:
            deficits[j] = deficits[j - 1]
            picked[j] = picked[j - 1]
            j -= 1
        deficits[j] = deficit
        picked[j] = i
        if count < batch:
            count += 1
    return _add_block(s, a, b, k, picked, count)


cdef Py_ssize_t _add_block(
    Corral *s, Py_ssize_t a, Py_ssize_t b, Py_ssize_t k, Py_ssize_t *picked,
    Py_ssize_t count,
) noexcept nogil:
    """Append the columns of rows ``picked[:count]`` to B = QR after its ``k``:
    block Gram–Schmidt against the ``k`` rows of Qt (two matrix products, where a
    row at a time reads Qt twice a row), twice unless every column kept
    ``ONCE_ENOUGH`` of its norm (Giraud, Langou & Rozložník 2005), then each
    against those of the batch before it, twice. A column in the span to rounding
    is skipped; returns how many joined, ``picked`` starting with them."""
    cdef Py_ssize_t q = s.q, capacity = s.capacity, i, j, t, joined = 0, column
    cdef double *W = s.block
    cdef double *total = s.projections
    cdef double *step = s.projections + MAX_BATCH * capacity
    cdef double *work
    cdef double *coefficients = s.coefficients
    cdef double sizes[MAX_BATCH]
    cdef double rho
    cdef bint once
    cdef int rows = <int>q, n = <int>count, inner = <int>k, lda = <int>capacity
    cdef char plain = b'n', transposed = b't'
    cdef double one = 1.0, minus = -1.0, zero = 0.0
    for j in range(count):
        _corral_column(s, picked[j], a, b, &W[j * q])
        sizes[j] = sqrt(_squared_norm(&W[j * q], q))
    if k:
        # Fortran views: Qt is (q, k), W (q, count), the coefficients (k, count).
        dgemm(&transposed, &plain, &inner, &n, &rows, &one, s.Qt, &rows, W, &rows,
              &zero, total, &lda)
        dgemm(&plain, &plain, &rows, &n, &inner, &minus, s.Qt, &rows, total, &lda,
              &one, W, &rows)
        once = True
        for j in range(count):
            once = once and (
                sqrt(_squared_norm(&W[j * q], q)) > ONCE_ENOUGH * sizes[j]
            )
        if not once:
            dgemm(&transposed, &plain, &inner, &n, &rows, &one, s.Qt, &rows, W,
                  &rows, &zero, step, &lda)
            dgemm(&plain, &plain, &rows, &n, &inner, &minus, s.Qt, &rows, step,
                  &lda, &one, W, &rows)
            for j in range(count):
                for i in range(k):
                    total[j * capacity + i] += step[j * capacity + i]
    for j in range(count):
        column = k + joined
        if column + 1 >= capacity:
            break
        work = &W[j * q]
        for i in range(column):
            s.R[i * capacity + column] = total[j * capacity + i] if i < k else 0.0
        if joined:
            for t in range(2):
                _matvec(&s.Qt[k * q], joined, q, work, coefficients)
                for i in range(joined):
                    s.R[(k + i) * capacity + column] += coefficients[i]
                _subtract_combination(&s.Qt[k * q], joined, q, coefficients, work)
        rho = sqrt(_squared_norm(work, q))
        if not rho > 1e-13 * sizes[j]:
            continue
        for t in range(q):
            s.Qt[column * q + t] = work[t] / rho
        s.R[column * capacity + column] = rho
        _record_towards(s, column, a, b)
        s.columns[column] = picked[j]
        picked[joined] = picked[j]
        joined += 1
    return joined


cdef inline Py_ssize_t _next_batch(
    const double *weights, const Py_ssize_t *joined, Py_ssize_t count,
    Py_ssize_t batch,
) noexcept nogil:
    """The next step's batch: twice this one where every row that joined in it
    kept a weight, half where fewer than half did, and 0 for the rest of the run
    from 1 (few features, a support of a few rows: 2e4 x 20 took 15 ms at 16
    against 8 ms one at a time, the scan for more rows costing what the product
    with all rows costs)."""
    cdef Py_ssize_t j, kept = 0
    if count == 0:
        return batch
    for j in range(count):
        kept += weights[joined[j]] > 0
    if kept == count:
        return min(2 * batch, <Py_ssize_t>MAX_BATCH)
    if 2 * kept < count:
        return batch // 2  # from 1 to 0: Wolfe's one at a time, and no scan for more
    return batch


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


cdef void _heaviest_first(
    Py_ssize_t *columns, Py_ssize_t k, const double *weights
) noexcept nogil:
    """Order a start's columns by weight, the heaviest first (a stable insertion
    sort): the rows a guess holds wrongly are light, and a column deleted last in
    the QR costs the fewest rotations (1 000 x 500 from a guess: 13.2 -> 11.9 ms)."""
    cdef Py_ssize_t j, t, row
    for j in range(1, k):
        row = columns[j]
        t = j
        while t > 0 and weights[columns[t - 1]] < weights[row]:
            columns[t] = columns[t - 1]
            t -= 1
        columns[t] = row


cdef Py_ssize_t _minor_cycle(
    Corral *s, Py_ssize_t *a_out, Py_ssize_t *b_out, Py_ssize_t k
) noexcept nogil:
    """Wolfe's minor cycle: toward the affine minimiser of the corral's ``k``
    columns and references ``a``, ``b`` (updated in place), stopping where a weight
    reaches 0 and dropping that row, until the minimiser's weights are > 0; returns
    the columns left."""
    cdef Py_ssize_t a = a_out[0], b = b_out[0], i, j, t, leaving, heaviest, kept
    cdef double *weights = s.weights
    cdef double *target = s.target
    cdef Py_ssize_t *columns = s.columns
    cdef const double *c = s.c
    cdef double step, fraction
    cdef bint positive_side
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
    a_out[0] = a
    b_out[0] = b
    return k


cdef int _nearest_points(
    Corral *s,
    double tol,
    Py_ssize_t max_iter,
    Py_ssize_t batch,
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
    cdef Py_ssize_t a = -1, b = -1, k = 0, i, t, iteration
    cdef Py_ssize_t worst_positive, worst_negative, entering
    cdef double largest = 0.0, rounding, previous = INFINITY, squared, scale, total
    cdef double level_positive = 0.0, level_negative = 0.0
    cdef double deficit_positive, deficit_negative, allowed
    cdef int status = _ITERATIONS
    cdef int columns_q = <int>q, inc = 1
    cdef Py_ssize_t extras = 0
    cdef Py_ssize_t picked[MAX_BATCH]
    cdef double deficits[MAX_BATCH]
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
    _heaviest_first(columns, k, weights)
    k = _rebuild(s, a, b, k)
    if k:  # a start of more rows than the references: made a corral first
        k = _minor_cycle(s, &a, &b, k)
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
                daxpy(&columns_q, &scale, <double *>&Y[i * q], &inc, v, &inc)
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
        if _max(deficit_positive, deficit_negative) <= allowed:
            status = _CONVERGED
            break
        if squared >= previous:
            if extras == 0:
                status = _CONVERGED
                break
            batch = 0  # rows joined in a batch made no progress: Wolfe's one at a time
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
        extras = _join_more(
            s, a, b, k, level_positive, level_negative,
            BATCH_SHARE * _max(deficit_positive, deficit_negative), batch, entering,
            picked, deficits,
        )
        k += extras
        k = _minor_cycle(s, &a, &b, k)
        batch = _next_batch(weights, picked, extras, batch)
    else:
        iteration = max_iter
    level_positive_out[0] = level_positive
    level_negative_out[0] = level_negative
    iterations_out[0] = iteration
    return status
