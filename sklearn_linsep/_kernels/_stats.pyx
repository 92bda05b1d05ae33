# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Passes over X: the centring of the class statistics, the centred margins of a
hyperplane, the class summaries of a dask block, the columns' extremes and the
weight outside an interval per column (the complexity measures), the largest
magnitude (the learners' scale check).

Every loop runs without the GIL (dask's threaded scheduler runs blocks side by side).
The arithmetic is that of the former numba kernels, bit for bit: a float32 X is
widened to float64 before it meets the float64 references (numba promotes a mixed
expression to float64), sums start at a float64 0.0 and run in the same order, and
the module is compiled with ``-ffp-contract=off`` so that no ``a * b + c`` becomes
a fused multiply-add (numba's LLVM fuses none).

X is float32 or float64 (``data_t``); everything else the callers hand over is
float64, but for the buffer of :func:`centre_with_indicator`, float32 for float32 X
in the float32 pass of the class statistics (``buffer_t``). Class indices are
``np.intp`` (``Py_ssize_t``), as ``encode_labels`` gives them.
"""

from libc.math cimport INFINITY, fabs

import numpy as np

ctypedef fused data_t:
    float
    double

ctypedef fused buffer_t:
    float
    double


def centre_with_indicator(
    const data_t[:, ::1] X,
    const Py_ssize_t[:] y,
    const double[:, ::1] reference,
    buffer_t[:, ::1] out,
):
    """``out[:, :p] = X - reference[y]`` and ``out[:, p:] = one-hot(y)``, in one pass.

    With that buffer B, the single product ``BᵀB`` holds the scatter of X about the
    per-class references, the class sums of the centred rows and the class counts.

    Parameters
    ----------
    X : ndarray of shape (n, p), float32 or float64, C-contiguous
    y : ndarray of shape (n,), intp class indices in ``range(K)``
    reference : ndarray of shape (K, p), float64, C-contiguous
    out : ndarray of shape (n, p + K), written in full, C-contiguous
        float64, or float32 for float32 X (the difference is formed in float64,
        then rounded once to float32).
    """
    if data_t is double and buffer_t is float:
        # No caller narrows float64 data into a float32 buffer: not compiled.
        raise TypeError("float64 X into a float32 buffer is not supported")
    else:
        _check_rows(X.shape[0], y.shape[0], out.shape[0])
        with nogil:
            _centre_with_indicator(X, y, reference, out)


cdef void _centre_with_indicator(
    const data_t[:, ::1] X,
    const Py_ssize_t[:] y,
    const double[:, ::1] reference,
    buffer_t[:, ::1] out,
) noexcept nogil:
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], n_classes = reference.shape[0]
    cdef Py_ssize_t i, j, k
    for i in range(n):
        k = y[i]
        for j in range(p):
            out[i, j] = <double>X[i, j] - reference[k, j]
        for j in range(n_classes):
            out[i, p + j] = 0.0
        out[i, p + k] = 1.0


def centre_with_indicator_weighted(
    const data_t[:, ::1] X,
    const Py_ssize_t[:] y,
    const double[:, ::1] reference,
    const double[:] root_weight,
    double[:, ::1] out,
):
    """As :func:`centre_with_indicator`, each row scaled by ``√w_i``.

    ``BᵀB`` then holds ``Σ w_i z_i z_iᵀ``, the weighted class sums ``Σ w_i z_i`` and the
    class weights ``Σ w_i``. ``out`` is float64 (weights never take the float32 pass).
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], n_classes = reference.shape[0]
    cdef Py_ssize_t i, j, k
    cdef double r
    _check_rows(n, y.shape[0], out.shape[0], root_weight.shape[0])
    with nogil:
        for i in range(n):
            k = y[i]
            r = root_weight[i]
            for j in range(p):
                out[i, j] = r * (<double>X[i, j] - reference[k, j])
            for j in range(n_classes):
                out[i, p + j] = 0.0
            out[i, p + k] = r


def shifted_class_sums(
    const data_t[:, ::1] X,
    const Py_ssize_t[:] y,
    const double[:, ::1] reference,
    const double[:] weight,
    double[:, ::1] sums,
):
    """``sums[k] = Σ_{y_i = k} w_i (X[i] - reference[k])``, reading X once (float64
    sums, row by row in the order of the rows)."""
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1]
    cdef Py_ssize_t i, j, k
    cdef double w
    _check_rows(n, y.shape[0], weight.shape[0])
    with nogil:
        for k in range(sums.shape[0]):
            for j in range(sums.shape[1]):
                sums[k, j] = 0.0
        for i in range(n):
            k = y[i]
            w = weight[i]
            for j in range(p):
                sums[k, j] += w * (<double>X[i, j] - reference[k, j])


def shifted_means(
    const double[:, ::1] reference,
    const double[:, ::1] sums,
    const double[:] counts,
    double[:, ::1] shift,
    double[:, ::1] means,
    double[:, ::1] residual,
):
    """Per class k of positive weight ``counts[k]``: ``shift = sums / counts`` and
    the mean ``reference + shift`` as ``means + residual``, exactly (Knuth's
    two-sum); zero for a class of no weight. One pass, no temporaries."""
    cdef Py_ssize_t n_classes = sums.shape[0], p = sums.shape[1]
    cdef Py_ssize_t k, j
    cdef double c, s, a, total, virtual
    with nogil:
        for k in range(n_classes):
            c = counts[k]
            for j in range(p):
                if c > 0:
                    s = sums[k, j] / c
                    a = reference[k, j]
                    total = a + s
                    virtual = total - a
                    shift[k, j] = s
                    means[k, j] = total
                    residual[k, j] = (a - (total - virtual)) + (s - virtual)
                else:
                    shift[k, j] = 0.0
                    means[k, j] = 0.0
                    residual[k, j] = 0.0


def centre_rows(
    const data_t[:, ::1] X,
    const Py_ssize_t[:] y,
    const double[:, ::1] reference,
    const double[:, ::1] shift,
    const double[:] root_weight,
    double[:, ::1] out,
):
    """``out[i] = √w_i ((X[i] - reference[y_i]) - shift[y_i])`` in one pass, and
    the largest absolute value written (NaN if any is NaN, inf if any overflowed).

    The rows form of the class statistics: the class mean is ``reference + shift``
    (shift small), and subtracting the two in turn keeps the digits that
    ``X - mean`` would lose far from the origin.

    Returns
    -------
    largest : float
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], quads = p - p % 4
    cdef Py_ssize_t i, j, k
    cdef double r, value, largest = 0.0
    cdef double largest0 = 0.0, largest1 = 0.0, largest2 = 0.0, largest3 = 0.0
    _check_rows(n, y.shape[0], out.shape[0], root_weight.shape[0])
    with nogil:
        for i in range(n):
            k = y[i]
            r = root_weight[i]
            # Four independent maxima: one chain of compare-and-select per value
            # would set the pace.
            for j in range(0, quads, 4):
                value = r * ((<double>X[i, j] - reference[k, j]) - shift[k, j])
                out[i, j] = value
                largest0 = _sticky_max(largest0, fabs(value))
                value = r * ((<double>X[i, j + 1] - reference[k, j + 1]) - shift[k, j + 1])
                out[i, j + 1] = value
                largest1 = _sticky_max(largest1, fabs(value))
                value = r * ((<double>X[i, j + 2] - reference[k, j + 2]) - shift[k, j + 2])
                out[i, j + 2] = value
                largest2 = _sticky_max(largest2, fabs(value))
                value = r * ((<double>X[i, j + 3] - reference[k, j + 3]) - shift[k, j + 3])
                out[i, j + 3] = value
                largest3 = _sticky_max(largest3, fabs(value))
            for j in range(quads, p):
                value = r * ((<double>X[i, j] - reference[k, j]) - shift[k, j])
                out[i, j] = value
                largest0 = _sticky_max(largest0, fabs(value))
        largest0 = _sticky_max(_sticky_max(largest0, largest1),
                               _sticky_max(largest2, largest3))
        if largest0 == largest0:
            # Without NaNs the order does not matter: ties are the same bits.
            largest = largest0
        else:
            # A NaN: the first one written, in the order of the values (its
            # payload may differ from a later NaN's), as one loop would keep it.
            for i in range(n):
                for j in range(p):
                    largest = _sticky_max(largest, fabs(out[i, j]))
    return largest


def centred_margins(
    const double[:, ::1] X,
    const Py_ssize_t[:] codes,
    const double[:] side,
    const double[:] sample_weight,
    const double[:] centre,
    const double[:] coef,
    double intercept,
    double[:] out,
):
    """``out[i] = side[codes[i]] · ((x_i - centre) · coef + intercept)``, in one pass.

    The margins of one block of rows for the working-set passes on dask blocks:
    centred row by row (X's offset costs no digits), with no temporary of the
    block's size (a fresh allocation per pass costs page faults). Rows of side 0
    or of weight 0 are out of the problem: ``+inf``, which no threshold violates.

    Parameters
    ----------
    X : ndarray of shape (n, p), float64, C-contiguous
    codes : ndarray of shape (n,), intp class indices
    side : ndarray of shape (K,), +1, -1 or 0 per class
    sample_weight : ndarray of shape (n,) or (0,) (all weights 1)
    centre, coef : ndarray of shape (p,)
    intercept : float
    out : ndarray of shape (n,), written in full
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1]
    cdef Py_ssize_t i, j
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef double c, total
    _check_rows(n, codes.shape[0], out.shape[0])
    if weighted:
        _check_rows(n, sample_weight.shape[0])
    if centre.shape[0] < p or coef.shape[0] < p:
        raise ValueError("centre and coef need one entry per column of X")
    with nogil:
        for i in range(n):
            c = side[codes[i]]
            if c == 0.0 or (weighted and not sample_weight[i] > 0.0):
                out[i] = INFINITY
                continue
            total = 0.0
            for j in range(p):
                total += (X[i, j] - centre[j]) * coef[j]
            out[i] = c * (total + intercept)


def centred_scores(
    const data_t[:, ::1] X,
    const double[:] centre,
    const double[:] coef,
    double intercept,
    double[:] out,
):
    """``out[i] = (x_i - centre) · coef + intercept`` in float64, in one pass.

    The scores of a two-class problem's hyperplane on its rows in memory: each row
    centred as it is read (X's offset costs no digits), float32 rows widened value
    by value (numpy made a float64 copy of each chunk: 1.7 ms a pass over 4 000 x
    256 float32 rows), with no temporary. Four partial sums per row, in a fixed
    order: the same bits on every CPU, where BLAS's order is its own.

    Parameters
    ----------
    X : ndarray of shape (n, p), float32 or float64, C-contiguous
    centre, coef : ndarray of shape (p,)
    intercept : float
    out : ndarray of shape (n,), written in full
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], quads = p - p % 4
    cdef Py_ssize_t i, j
    cdef double s0, s1, s2, s3
    cdef const data_t *row
    _check_rows(n, out.shape[0])
    if centre.shape[0] < p or coef.shape[0] < p:
        raise ValueError("centre and coef need one entry per column of X")
    with nogil:
        for i in range(n):
            s0 = s1 = s2 = s3 = 0.0
            if p > 0:
                row = &X[i, 0]
                for j in range(0, quads, 4):
                    s0 = s0 + (<double>row[j] - centre[j]) * coef[j]
                    s1 = s1 + (<double>row[j + 1] - centre[j + 1]) * coef[j + 1]
                    s2 = s2 + (<double>row[j + 2] - centre[j + 2]) * coef[j + 2]
                    s3 = s3 + (<double>row[j + 3] - centre[j + 3]) * coef[j + 3]
                for j in range(quads, p):
                    s0 = s0 + (<double>row[j] - centre[j]) * coef[j]
            out[i] = ((s0 + s1) + (s2 + s3)) + intercept


def class_summaries(
    const data_t[:, ::1] X,
    const Py_ssize_t[:] codes,
    const double[:] sample_weight,
    double[:] counts,
    double[:, ::1] sums,
    double[:, ::1] high,
    double[:, ::1] low,
):
    """Per class k, of its rows of positive weight: the count, the float64 sum of
    the rows and each feature's largest and smallest value, reading X once.

    The class summary of a dask block (its two-class seed's means come from the same
    sums). The sums run row by row in the order of the rows, as numpy's sum over
    axis 0 of the class's rows does: the same bits. Four numpy passes of each
    class's copied rows took 0.075 s a 500 000 x 20 block; this takes one pass.

    Parameters
    ----------
    X : ndarray of shape (n, p), float32 or float64, C-contiguous, finite
    codes : ndarray of shape (n,), intp class indices in ``[0, K)``
    sample_weight : ndarray of shape (n,) or (0,) (all weights 1)
    counts : ndarray of shape (K,), written in full
    sums, high, low : ndarrays of shape (K, p), written in full (``-inf`` and
        ``inf`` as the extremes of a class without rows)
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], K = counts.shape[0]
    cdef Py_ssize_t i, j, k
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef double value
    cdef const data_t *row
    cdef double *total
    cdef double *largest
    cdef double *smallest
    _check_rows(n, codes.shape[0])
    if weighted:
        _check_rows(n, sample_weight.shape[0])
    if (sums.shape[0] < K or high.shape[0] < K or low.shape[0] < K
            or sums.shape[1] < p or high.shape[1] < p or low.shape[1] < p):
        raise ValueError("sums, high and low need a row per class and a column per "
                         "feature")
    for i in range(n):  # with the GIL: an error, not a write out of bounds
        if codes[i] < 0 or codes[i] >= K:
            raise ValueError("every class index must lie in [0, K)")
    with nogil:
        for k in range(K):
            counts[k] = 0.0
            for j in range(p):
                sums[k, j] = 0.0
                high[k, j] = -INFINITY
                low[k, j] = INFINITY
        for i in range(n):
            if weighted and not sample_weight[i] > 0.0:
                continue
            k = codes[i]
            counts[k] += 1.0
            if p == 0:  # no first entry to point at
                continue
            # A row's pointers and selects without branches: the loop over the
            # features vectorises (2.0 ms for 10 000 x 256 float32, against 4.6 to
            # 7.8 ms with indexed views and branches); the sums' order is unchanged.
            row = &X[i, 0]
            total = &sums[k, 0]
            largest = &high[k, 0]
            smallest = &low[k, 0]
            for j in range(p):
                value = <double>row[j]
                total[j] += value
                largest[j] = value if value > largest[j] else largest[j]
                smallest[j] = value if value < smallest[j] else smallest[j]


def column_extremes(const data_t[:, ::1] X, double[:] high, double[:] low):
    """Each column's largest and smallest value, reading X once (numpy's ``max`` and
    ``min`` over axis 0 read it twice: 7.9 ms for 1e5 x 10, against 1.3 ms here;
    11.3 against 5.7 ms at 2e4 x 256). A NaN wins, as in numpy's; no rows: ``-inf``
    and ``inf``.

    Parameters
    ----------
    X : ndarray of shape (n, p), float32 or float64, C-contiguous
    high, low : ndarrays of shape (p,), written in full
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1]
    cdef Py_ssize_t i, j
    cdef double value
    cdef const data_t *row
    cdef double *largest
    cdef double *smallest
    if high.shape[0] < p or low.shape[0] < p:
        raise ValueError("high and low need one entry per column of X")
    with nogil:
        for j in range(p):
            high[j] = -INFINITY
            low[j] = INFINITY
        if p > 0:
            largest = &high[0]
            smallest = &low[0]
        for i in range(n):
            if p == 0:
                break
            row = &X[i, 0]
            for j in range(p):  # selects, not branches: it vectorises
                value = <double>row[j]
                # ``value != value``: a NaN, kept (no comparison replaces it)
                largest[j] = (
                    value if value > largest[j] or value != value else largest[j]
                )
                smallest[j] = (
                    value if value < smallest[j] or value != value else smallest[j]
                )


def outside_weights(
    const data_t[:, ::1] X,
    const double[:] weight,
    const double[:] low,
    const double[:] high,
    double[:] out,
):
    """``out[j] = Σ_i w_i [x_ij < low_j or x_ij > high_j]``: per column, the weight
    of the rows outside the closed interval, reading X once (summed row by row in
    the rows' order; a NaN is in no interval's outside).

    Parameters
    ----------
    X : ndarray of shape (n, p), float32 or float64, C-contiguous
    weight : ndarray of shape (n,)
    low, high : ndarrays of shape (p,)
    out : ndarray of shape (p,), written in full
    """
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1]
    cdef Py_ssize_t i, j
    cdef double value, w
    _check_rows(n, weight.shape[0])
    if low.shape[0] < p or high.shape[0] < p or out.shape[0] < p:
        raise ValueError("low, high and out need one entry per column of X")
    with nogil:
        for j in range(p):
            out[j] = 0.0
        for i in range(n):
            w = weight[i]
            for j in range(p):
                value = <double>X[i, j]
                # No branch: taken one time in three at random, it cost 3x numpy.
                out[j] += w * ((value < low[j]) | (value > high[j]))


def largest_magnitude(values):
    """``max |v|`` over a finite array of any shape, in one pass and without a
    temporary (5 ms at 10⁷ float64 values, against 7 ms for numpy's max and min).

    Parameters
    ----------
    values : ndarray of any shape and memory layout, float32 or float64

    Returns
    -------
    largest : float
        NaNs are skipped (they compare False); 0.0 for an empty array.
    """
    # Flattened in whichever order the array is stored: a view of a contiguous
    # array (C or F), a contiguous copy of any other (the maximum does not depend
    # on the order).
    return _largest_magnitude(np.ravel(values, order="K"))


def _largest_magnitude(const data_t[::1] flat):
    # numba's loop kept the largest value and the smallest, max(high, -low) at the
    # end: that is the largest |v| over the values that are not NaN (a NaN never
    # compares greater), from a start of +0.0 (which no -0.0 replaces), exactly;
    # one comparison per value instead of two. Four independent maxima (ties are
    # the same bits, so the order does not matter): one dependency chain would
    # hold the loop below memory speed.
    cdef Py_ssize_t j, n = flat.shape[0], quads = n - n % 4
    cdef double size, largest0 = 0.0, largest1 = 0.0, largest2 = 0.0, largest3 = 0.0
    with nogil:
        for j in range(0, quads, 4):
            size = fabs(flat[j])
            largest0 = size if size > largest0 else largest0
            size = fabs(flat[j + 1])
            largest1 = size if size > largest1 else largest1
            size = fabs(flat[j + 2])
            largest2 = size if size > largest2 else largest2
            size = fabs(flat[j + 3])
            largest3 = size if size > largest3 else largest3
        for j in range(quads, n):
            size = fabs(flat[j])
            largest0 = size if size > largest0 else largest0
    return _max(_max(largest0, largest1), _max(largest2, largest3))


cdef inline double _sticky_max(double largest, double size) noexcept nogil:
    """``size`` where it is larger than ``largest`` or NaN (a NaN then stays: it
    compares False). Bitwise ``|``: one select, no branch."""
    return size if size != size else (size if size > largest else largest)


cdef inline double _max(double a, double b) noexcept nogil:
    """numba's (and Python's) ``max(a, b)``: ``b`` only when ``b > a``."""
    return b if b > a else a


cdef int _check_rows(
    Py_ssize_t n, Py_ssize_t first, Py_ssize_t second=-1, Py_ssize_t third=-1
) except -1:
    """A ValueError, not a write out of bounds, for per-row arrays that are too
    short (the loops run without bounds checks)."""
    if first < n or second != -1 and second < n or third != -1 and third < n:
        raise ValueError("every per-row array needs one entry per row of X")
    return 0
