"""One row of X, dense or CSR, against a weight row: compiled code only.

``rows`` is ``(X,)`` for a dense C-ordered X, or ``(data, indices, indptr)`` for a CSR
matrix. ``row_dot`` and ``row_axpy`` are overloaded on that tuple, so each kernel is
written once and compiled into a dense and a sparse loop. (A runtime ``if sparse``
inside the row loop made the dense epoch 6-8 times slower.)
"""

from numba.extending import overload


def row_dot(rows, i, W, k, bias):
    """``W[k] · (x_i, bias)``, accumulated in float64 (compiled code only)."""
    raise NotImplementedError("row_dot runs inside numba kernels only")


def row_axpy(rows, i, step, W, k, bias):
    """``W[k] += step * (x_i, bias)`` (compiled code only)."""
    raise NotImplementedError("row_axpy runs inside numba kernels only")


@overload(row_dot, inline="always")
def _row_dot_impl(rows, i, W, k, bias):
    if len(rows) == 1:

        def dense(rows, i, W, k, bias):
            X = rows[0]
            p = X.shape[1]
            total = W[k, p] * bias
            for j in range(p):
                total += W[k, j] * X[i, j]
            return total

        return dense

    def csr(rows, i, W, k, bias):
        data, indices, indptr = rows
        total = W[k, W.shape[1] - 1] * bias
        for jj in range(indptr[i], indptr[i + 1]):
            total += W[k, indices[jj]] * data[jj]
        return total

    return csr


def row_dot_pair(rows, i, W, V, k, bias):
    """``(W[k] · x̃_i, V[k] · x̃_i)`` in one loop over the row (compiled code only)."""
    raise NotImplementedError("row_dot_pair runs inside numba kernels only")


@overload(row_dot_pair, inline="always")
def _row_dot_pair_impl(rows, i, W, V, k, bias):
    if len(rows) == 1:

        def dense(rows, i, W, V, k, bias):
            X = rows[0]
            p = X.shape[1]
            first = W[k, p] * bias
            second = V[k, p] * bias
            for j in range(p):
                first += W[k, j] * X[i, j]
                second += V[k, j] * X[i, j]
            return first, second

        return dense

    def csr(rows, i, W, V, k, bias):
        data, indices, indptr = rows
        p = W.shape[1] - 1
        first = W[k, p] * bias
        second = V[k, p] * bias
        for jj in range(indptr[i], indptr[i + 1]):
            first += W[k, indices[jj]] * data[jj]
            second += V[k, indices[jj]] * data[jj]
        return first, second

    return csr


@overload(row_axpy, inline="always")
def _row_axpy_impl(rows, i, step, W, k, bias):
    if len(rows) == 1:

        def dense(rows, i, step, W, k, bias):
            X = rows[0]
            p = X.shape[1]
            W[k, p] += step * bias
            for j in range(p):
                W[k, j] += step * X[i, j]

        return dense

    def csr(rows, i, step, W, k, bias):
        data, indices, indptr = rows
        W[k, W.shape[1] - 1] += step * bias
        for jj in range(indptr[i], indptr[i + 1]):
            W[k, indices[jj]] += step * data[jj]

    return csr
