"""One row of X, dense or CSR, against a weight row: compiled code only.

``rows`` is ``(X,)`` for a dense C-ordered X, or ``(data, indices, indptr)`` for a CSR
matrix. The functions here are overloaded on that tuple, so each kernel is written
once and compiled into a dense and a sparse loop. (A runtime ``if sparse`` inside the
row loop made the dense epoch 6-8 times slower.)

The weights ``W`` are ``(n_tasks, p + 1)``, or ``(p + 1,)`` for a single task: the
one-dimensional form compiles into a loop whose task is a constant, which measured
20% faster per dense epoch at 10⁶ × 10 than the same loop over a runtime count of
one task. ``task_count``, ``weight_at``, ``add_at`` and ``row_of`` read either form.
"""

from numba.extending import overload


def task_count(W):
    """The number of weight rows: 1 for a one-dimensional ``W``."""
    raise NotImplementedError("task_count runs inside numba kernels only")


def weight_at(W, k, j):
    """``W[k, j]`` (``W[j]`` for one task)."""
    raise NotImplementedError("weight_at runs inside numba kernels only")


def add_at(W, k, j, value):
    """``W[k, j] += value`` (``W[j]`` for one task)."""
    raise NotImplementedError("add_at runs inside numba kernels only")


def row_of(W, k):
    """The weight row ``W[k]`` as a view (``W`` itself for one task)."""
    raise NotImplementedError("row_of runs inside numba kernels only")


@overload(task_count, inline="always")
def _task_count_impl(W):
    if W.ndim == 1:
        return lambda W: 1
    return lambda W: W.shape[0]


@overload(weight_at, inline="always")
def _weight_at_impl(W, k, j):
    if W.ndim == 1:
        return lambda W, k, j: W[j]
    return lambda W, k, j: W[k, j]


@overload(add_at, inline="always")
def _add_at_impl(W, k, j, value):
    if W.ndim == 1:

        def one(W, k, j, value):
            W[j] += value

        return one

    def many(W, k, j, value):
        W[k, j] += value

    return many


@overload(row_of, inline="always")
def _row_of_impl(W, k):
    if W.ndim == 1:
        return lambda W, k: W
    return lambda W, k: W[k]


def row_dot(rows, i, W, k, bias):
    """``W[k] · (x_i, bias)``, accumulated in float64 (compiled code only)."""
    raise NotImplementedError("row_dot runs inside numba kernels only")


def row_axpy(rows, i, step, W, k, bias):
    """``W[k] += step * (x_i, bias)`` (compiled code only)."""
    raise NotImplementedError("row_axpy runs inside numba kernels only")


def row_dot_pair(rows, i, W, V, k, bias):
    """``(W[k] · x̃_i, V[k] · x̃_i)`` in one loop over the row (compiled code only)."""
    raise NotImplementedError("row_dot_pair runs inside numba kernels only")


@overload(row_dot, inline="always")
def _row_dot_impl(rows, i, W, k, bias):
    if len(rows) == 1:

        def dense(rows, i, W, k, bias):
            X = rows[0]
            p = X.shape[1]
            total = weight_at(W, k, p) * bias
            for j in range(p):
                total += weight_at(W, k, j) * X[i, j]
            return total

        return dense

    def csr(rows, i, W, k, bias):
        data, indices, indptr = rows
        total = weight_at(W, k, W.shape[-1] - 1) * bias
        for jj in range(indptr[i], indptr[i + 1]):
            total += weight_at(W, k, indices[jj]) * data[jj]
        return total

    return csr


@overload(row_dot_pair, inline="always")
def _row_dot_pair_impl(rows, i, W, V, k, bias):
    if len(rows) == 1:

        def dense(rows, i, W, V, k, bias):
            X = rows[0]
            p = X.shape[1]
            first = weight_at(W, k, p) * bias
            second = weight_at(V, k, p) * bias
            for j in range(p):
                first += weight_at(W, k, j) * X[i, j]
                second += weight_at(V, k, j) * X[i, j]
            return first, second

        return dense

    def csr(rows, i, W, V, k, bias):
        data, indices, indptr = rows
        p = W.shape[-1] - 1
        first = weight_at(W, k, p) * bias
        second = weight_at(V, k, p) * bias
        for jj in range(indptr[i], indptr[i + 1]):
            first += weight_at(W, k, indices[jj]) * data[jj]
            second += weight_at(V, k, indices[jj]) * data[jj]
        return first, second

    return csr


@overload(row_axpy, inline="always")
def _row_axpy_impl(rows, i, step, W, k, bias):
    if len(rows) == 1:

        def dense(rows, i, step, W, k, bias):
            X = rows[0]
            p = X.shape[1]
            add_at(W, k, p, step * bias)
            for j in range(p):
                add_at(W, k, j, step * X[i, j])

        return dense

    def csr(rows, i, step, W, k, bias):
        data, indices, indptr = rows
        add_at(W, k, W.shape[-1] - 1, step * bias)
        for jj in range(indptr[i], indptr[i + 1]):
            add_at(W, k, indices[jj], step * data[jj])

    return csr
