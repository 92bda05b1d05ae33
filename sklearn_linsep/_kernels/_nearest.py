"""The nearest points of two convex hulls, by Wolfe's active set.

min ‖Σ λ_i c_i y_i‖ over λ ≥ 0 with Σ λ = 1 on each side. The corral (the rows of
positive weight) is a reference row of each class, ``a`` and ``b``, and the columns
``y_i - y_a`` (positive i) or ``y_b - y_i`` (negative i) of B = QR, kept as ``Qt`` (one
orthonormal row per column of B) and R.
"""

import numpy as np

from ._jit import kernel
from ._records import NEAREST_CONVERGED, NEAREST_ITERATIONS, NEAREST_STALLED

EPSILON = float(np.finfo(np.float64).eps)


@kernel
def _squared_norm(x):
    total = 0.0
    for t in range(x.shape[0]):
        total += x[t] * x[t]
    return total


@kernel
def _corral_column(Y, c, i, a, b, out):
    if c[i] > 0:
        for j in range(Y.shape[1]):
            out[j] = Y[i, j] - Y[a, j]
    else:
        for j in range(Y.shape[1]):
            out[j] = Y[b, j] - Y[i, j]


@kernel
def _corral_add(Y, c, i, a, b, Qt, R, k, work, coefficients):
    """Append the column of row ``i`` to B = QR (Gram–Schmidt twice: Giraud, Langou
    & Rozložník 2005). False when it lies in the span to rounding."""
    _corral_column(Y, c, i, a, b, work)
    q = Y.shape[1]
    size = np.sqrt(_squared_norm(work))
    for j in range(k):
        R[j, k] = 0.0
    if k:
        basis = Qt[:k]
        projection = coefficients[:k]
        for _ in range(2):  # classical Gram–Schmidt: a BLAS product, then an axpy
            np.dot(basis, work, projection)
            for j in range(k):
                R[j, k] += projection[j]
                for t in range(q):
                    work[t] -= projection[j] * basis[j, t]
    rho = np.sqrt(_squared_norm(work))
    if not rho > 1e-13 * size:
        return False
    for t in range(q):
        Qt[k, t] = work[t] / rho
    R[k, k] = rho
    return True


@kernel
def _corral_delete(Qt, R, k, n):
    """Delete column ``k`` of B = Qt[:n].T R[:n, :n] in place (Givens rotations)."""
    for j in range(k, n - 1):
        for i in range(n):
            R[i, j] = R[i, j + 1]
    for i in range(n):
        R[i, n - 1] = 0.0
    q = Qt.shape[1]
    for j in range(k, n - 1):
        x, y = R[j, j], R[j + 1, j]
        radius = np.hypot(x, y)
        if radius == 0.0:
            continue
        cos, sin = x / radius, y / radius
        for col in range(j, n - 1):
            top, bottom = R[j, col], R[j + 1, col]
            R[j, col] = cos * top + sin * bottom
            R[j + 1, col] = -sin * top + cos * bottom
        for t in range(q):
            left, right = Qt[j, t], Qt[j + 1, t]
            Qt[j, t] = cos * left + sin * right
            Qt[j + 1, t] = -sin * left + cos * right
    for j in range(n):
        R[n - 1, j] = 0.0


@kernel
def _affine_minimiser(Y, c, a, b, columns, k, Qt, R, target, work, rhs):
    """Weights of the least-norm point of the corral's affine hull, into
    ``target`` (indexed by row); ``work`` and ``rhs`` are buffers."""
    q = Y.shape[1]
    for t in range(q):
        work[t] = -(Y[a, t] - Y[b, t])
    rhs = rhs[:k]
    if k:
        np.dot(Qt[:k], work, rhs)
    for j in range(k - 1, -1, -1):  # R t = rhs
        total = rhs[j]
        for i in range(j + 1, k):
            total -= R[j, i] * rhs[i]
        rhs[j] = total / R[j, j]
    positive, negative = 0.0, 0.0
    for j in range(k):
        target[columns[j]] = rhs[j]
        if c[columns[j]] > 0:
            positive += rhs[j]
        else:
            negative += rhs[j]
    target[a] = 1.0 - positive
    target[b] = 1.0 - negative


@kernel
def _rebuild(Y, c, a, b, columns, k, Qt, R, weights, work, coefficients):
    """Factorise the corral's columns anew (after a reference changed); a column
    that has become dependent to rounding gives its weight to its reference."""
    kept = np.intp(0)
    for j in range(k):
        i = columns[j]
        if _corral_add(Y, c, i, a, b, Qt, R, kept, work, coefficients):
            columns[kept] = i
            kept += 1
        else:
            weights[a if c[i] > 0 else b] += weights[i]
            weights[i] = 0.0
    return kept


@kernel
def nearest_points_kernel(Y, c, weights, tol, max_iter, workspace):
    """The nearest points of conv{y_i : c_i > 0} and conv{y_i : c_i < 0}.

    ``workspace`` is :func:`nearest_workspace` of ``Y``'s shape. ``weights`` (one
    per row) holds the start, λ ≥ 0 summing to 1 on each side (a
    warm start, or one row of each side), and returns the answer. Returns
    ``(v, level_positive, level_negative, iterations, status)``: ``v = p₊ - p₋``,
    the levels ``v·p₊`` and ``v·p₋``. Converged when no row lies more than
    ``tol ‖v‖²`` (plus the rounding of the products) beyond its side's level.
    """
    m, q = Y.shape
    Qt, R, columns, work, coefficients, target, v, g = workspace
    capacity = columns.shape[0]
    # References: the heaviest row of each side. (Integers that flow into calls are
    # np.intp, not literals: numba's type inference would first compile each callee
    # for Literal[int](-1), then again for int64.)
    a, b = np.intp(-1), np.intp(-1)
    for i in range(m):
        if weights[i] > 0:
            if c[i] > 0 and (a < 0 or weights[i] > weights[a]):
                a = i
            if c[i] < 0 and (b < 0 or weights[i] > weights[b]):
                b = i
    k = np.intp(0)
    for i in range(m):
        if weights[i] > 0 and i != a and i != b:
            columns[k] = i
            k += 1
    k = _rebuild(Y, c, a, b, columns, k, Qt, R, weights, work, coefficients)
    largest = 0.0
    for i in range(m):
        for t in range(q):
            largest = max(largest, abs(Y[i, t]))
    rounding = 16 * EPSILON * np.sqrt(q) * largest
    previous = np.inf
    level_positive, level_negative = 0.0, 0.0
    for iteration in range(1, max_iter + 1):
        v[:] = 0.0
        for i in range(m):
            if weights[i] > 0:
                scale = weights[i] * c[i]
                for t in range(q):
                    v[t] += scale * Y[i, t]
        squared = _squared_norm(v)
        level_positive, level_negative = 0.0, 0.0
        worst_positive, worst_negative = np.intp(-1), np.intp(-1)
        np.dot(Y, v, g)
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
        allowed = tol * squared + rounding * np.sqrt(squared) * max(1.0, np.sqrt(q))
        if max(deficit_positive, deficit_negative) <= allowed or squared >= previous:
            return v, level_positive, level_negative, iteration, NEAREST_CONVERGED
        previous = squared
        entering = (
            worst_positive if deficit_positive >= deficit_negative else worst_negative
        )
        if weights[entering] > 0 or entering == a or entering == b or k + 1 >= capacity:
            return v, level_positive, level_negative, iteration, NEAREST_STALLED
        if not _corral_add(Y, c, entering, a, b, Qt, R, k, work, coefficients):
            return v, level_positive, level_negative, iteration, NEAREST_STALLED
        columns[k] = entering
        k += 1
        # Wolfe's minor cycle: toward the affine minimiser, stopping where a weight
        # reaches 0 and dropping that row, until the minimiser's weights are > 0.
        while True:
            _affine_minimiser(Y, c, a, b, columns, k, Qt, R, target, work, coefficients)
            step, leaving = 1.0, np.intp(-1)
            for j in range(k + 2):
                i = a if j == k else (b if j == k + 1 else columns[j])
                if target[i] <= 0:
                    fraction = (
                        weights[i] / (weights[i] - target[i])
                        if weights[i] > target[i]
                        else 0.0
                    )
                    if leaving < 0 or fraction < step:
                        step, leaving = fraction, i
            for j in range(k + 2):
                i = a if j == k else (b if j == k + 1 else columns[j])
                weights[i] += step * (target[i] - weights[i])
                target[i] = 0.0
            if leaving < 0:
                break
            weights[leaving] = 0.0
            if leaving == a or leaving == b:
                positive_side = leaving == a
                heaviest = np.intp(-1)
                for j in range(k):
                    i = columns[j]
                    if (c[i] > 0) == positive_side and weights[i] > 0:
                        if heaviest < 0 or weights[i] > weights[heaviest]:
                            heaviest = i
                if positive_side:
                    a = heaviest
                else:
                    b = heaviest
                kept = np.intp(0)
                for j in range(k):
                    if columns[j] != heaviest and weights[columns[j]] > 0:
                        columns[kept] = columns[j]
                        kept += 1
                k = _rebuild(
                    Y, c, a, b, columns, kept, Qt, R, weights, work, coefficients
                )
            else:
                for j in range(k):
                    if columns[j] == leaving:
                        _corral_delete(Qt, R, j, k)
                        for t in range(j, k - 1):
                            columns[t] = columns[t + 1]
                        k -= 1
                        break
    return v, level_positive, level_negative, max_iter, NEAREST_ITERATIONS
