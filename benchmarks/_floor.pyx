# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The floor of ``bench_perceptron.py``: the perceptron's epoch with nothing else
(one task, labels ±1, no weights, no order, a unit rate, no counters), as tight as C
makes it. Compiled by ``pyximport`` when the benchmark starts (not part of the
package)."""


def bare_epoch(const double[:, ::1] X, const double[::1] c, double[::1] w):
    cdef Py_ssize_t n = X.shape[0], p = X.shape[1], i, j
    cdef double score
    with nogil:
        for i in range(n):
            score = w[p]
            for j in range(p):
                score += w[j] * X[i, j]
            if c[i] * score <= 0.0:
                for j in range(p):
                    w[j] += c[i] * X[i, j]
                w[p] += c[i]


def bare_epoch_csr(const double[::1] data, const int[::1] indices,
                   const int[::1] indptr, const double[::1] c, double[::1] w):
    """The floor on CSR rows (int32 indices, as scipy makes them)."""
    cdef Py_ssize_t p = w.shape[0] - 1, i, jj
    cdef double score
    with nogil:
        for i in range(c.shape[0]):
            score = w[p]
            for jj in range(indptr[i], indptr[i + 1]):
                score += w[indices[jj]] * data[jj]
            if c[i] * score <= 0.0:
                for jj in range(indptr[i], indptr[i + 1]):
                    w[indices[jj]] += c[i] * data[jj]
                w[p] += c[i]
