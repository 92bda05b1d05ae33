"""Compiled per-row loops (numba). Plain arrays in and out: no estimator ever here.

Each kernel is serial and releases the GIL (``nogil``): the BLAS call that follows it
uses the cores, and numba threads competing with BLAS threads on a small machine make
both slower.
"""

import numba


@numba.njit(cache=True, nogil=True)
def centre_with_indicator(X, y, reference, out):
    """``out[:, :p] = X - reference[y]`` and ``out[:, p:] = one-hot(y)``, in one pass.

    With that buffer B, the single product ``BᵀB`` holds the scatter of X about the
    per-class references, the class sums of the centred rows and the class counts.

    Parameters
    ----------
    X : ndarray of shape (n, p), float32 or float64
    y : ndarray of shape (n,), integer class indices in ``range(K)``
    reference : ndarray of shape (K, p), float64
    out : ndarray of shape (n, p + K), float64, written in full
    """
    n, p = X.shape
    n_classes = reference.shape[0]
    for i in range(n):
        k = y[i]
        for j in range(p):
            out[i, j] = X[i, j] - reference[k, j]
        for j in range(n_classes):
            out[i, p + j] = 0.0
        out[i, p + k] = 1.0


@numba.njit(cache=True, nogil=True)
def centre_with_indicator_weighted(X, y, reference, root_weight, out):
    """As :func:`centre_with_indicator`, each row scaled by ``√w_i``.

    ``BᵀB`` then holds ``Σ w_i z_i z_iᵀ``, the weighted class sums ``Σ w_i z_i`` and the
    class weights ``Σ w_i``.
    """
    n, p = X.shape
    n_classes = reference.shape[0]
    for i in range(n):
        k = y[i]
        r = root_weight[i]
        for j in range(p):
            out[i, j] = r * (X[i, j] - reference[k, j])
        for j in range(n_classes):
            out[i, p + j] = 0.0
        out[i, p + k] = r
