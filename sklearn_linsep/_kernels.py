"""Compiled per-row loops (numba). Plain arrays in and out: no estimator ever here.

Each kernel is serial and releases the GIL (``nogil``): the BLAS call that follows it
uses the cores, and numba threads competing with BLAS threads on a small machine make
both slower.
"""

import numba
import numpy as np


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


# --- The perceptron family --------------------------------------------------------
#
# A learner holds one weight row per one-vs-rest task, ``W`` of shape (K, p + 1), the
# last column multiplying the constant ``bias`` (1.0 with an intercept, else 0.0).
# Task k's target is ``c = +1`` where ``codes[i] == first_class + k`` and ``-1``
# elsewhere: two classes are one task with ``first_class = 1``.
#
# Rows come either from a dense ``X`` or from CSR arrays (``data, indices, indptr``),
# chosen by ``sparse``; the unused form is a dummy. One source serves both, and the
# branch on ``sparse`` is the same for every row, so it costs nothing measurable.
#
# A learning-rate schedule is ``(kind, params, table)``: kind 0 is constant
# ``params[0]``, 1 hyperbolic ``params[1] / (params[2] + t)``, 2 inverse scaling
# ``params[0] / (t + 1) ** params[3]``, 3 a table of rates indexed by
# ``t - params[4]``; every rate is multiplied by ``params[5]``. ``t`` counts the
# updates made before this one.

RATE_CONSTANT, RATE_HYPERBOLIC, RATE_INVSCALING, RATE_TABLE = 0, 1, 2, 3


@numba.njit(cache=True, nogil=True, inline="always")
def _rate(kind, params, table, t):
    if kind == 0:
        rate = params[0]
    elif kind == 1:
        rate = params[1] / (params[2] + t)
    elif kind == 2:
        rate = params[0] / (t + 1.0) ** params[3]
    else:
        rate = table[t - np.int64(params[4])]
    return rate * params[5]


@numba.njit(cache=True, nogil=True, inline="always")
def _row_dot(X, data, indices, indptr, sparse, i, W, k, bias):
    """``W[k] · (x_i, bias)``, accumulated in float64."""
    p = W.shape[1] - 1
    total = W[k, p] * bias
    if sparse:
        for jj in range(indptr[i], indptr[i + 1]):
            total += W[k, indices[jj]] * data[jj]
    else:
        for j in range(p):
            total += W[k, j] * X[i, j]
    return total


@numba.njit(cache=True, nogil=True, inline="always")
def _row_axpy(X, data, indices, indptr, sparse, i, step, W, k, bias):
    """``W[k] += step * (x_i, bias)``."""
    p = W.shape[1] - 1
    W[k, p] += step * bias
    if sparse:
        for jj in range(indptr[i], indptr[i + 1]):
            W[k, indices[jj]] += step * data[jj]
    else:
        for j in range(p):
            W[k, j] += step * X[i, j]


@numba.njit(cache=True, nogil=True)
def weighted_correct(
    X, data, indices, indptr, sparse, codes, first_class, sample_weight, bias, W, k
):
    """Total weight of the samples that row ``W[k]`` classifies as ``predict`` does
    (a score > 0 means the positive class, a score of 0 the negative one)."""
    n = codes.shape[0]
    total = 0.0
    for i in range(n):
        positive = codes[i] == first_class + k
        score = _row_dot(X, data, indices, indptr, sparse, i, W, k, bias)
        if (score > 0.0) == positive:
            total += sample_weight[i]
    return total


@numba.njit(cache=True, nogil=True)
def perceptron_epoch(
    X,
    data,
    indices,
    indptr,
    sparse,
    codes,
    first_class,
    sample_weight,
    order,
    bias,
    W,
    kind,
    params,
    table,
    updates,
    mistakes,
    pocket,
    P,
    pocket_correct,
    run,
    pocket_run,
    checked,
):
    """One pass of Rosenblatt's rule over ``order``, optionally with Gallant's pocket.

    For each sample i (in the given order) and task k, a mistake ``c·W[k]·x̃_i ≤ 0``
    of positive weight ``s_i`` gives ``W[k] += η_t s_i c x̃_i`` and ``updates[k] += 1``;
    ``mistakes[k]`` (set to 0 here) counts them.

    With ``pocket``, ``run[k]`` counts the consecutive correct classifications of
    the current ``W[k]`` and ``pocket_run[k]`` those that earned the pocket ``P[k]``
    its place. When a run beats the pocket's, the candidate ``W[k]`` (if not
    ``checked[k]`` already) is scored on the whole training set; it replaces the
    pocket only if it classifies a strictly larger weight of samples correctly
    (the ratchet), ``pocket_correct[k]`` holding the pocket's. A candidate is scored
    at most once, so an epoch costs one perceptron epoch plus one pass per check.
    """
    n_tasks = W.shape[0]
    for k in range(n_tasks):
        mistakes[k] = 0
    for position in range(order.shape[0]):
        i = order[position]
        weight = sample_weight[i]
        if weight == 0.0:
            continue
        for k in range(n_tasks):
            target = 1.0 if codes[i] == first_class + k else -1.0
            score = _row_dot(X, data, indices, indptr, sparse, i, W, k, bias)
            if target * score <= 0.0:
                step = _rate(kind, params, table, updates[k]) * weight * target
                _row_axpy(X, data, indices, indptr, sparse, i, step, W, k, bias)
                updates[k] += 1
                mistakes[k] += 1
                if pocket:
                    run[k] = 0
                    checked[k] = False
            elif pocket:
                run[k] += 1
                if run[k] > pocket_run[k] and not checked[k]:
                    checked[k] = True
                    correct = weighted_correct(
                        X,
                        data,
                        indices,
                        indptr,
                        sparse,
                        codes,
                        first_class,
                        sample_weight,
                        bias,
                        W,
                        k,
                    )
                    if correct > pocket_correct[k]:
                        P[k, :] = W[k, :]
                        pocket_correct[k] = correct
                        pocket_run[k] = run[k]


@numba.njit(cache=True, nogil=True)
def lms_epoch(
    X,
    data,
    indices,
    indptr,
    sparse,
    codes,
    first_class,
    sample_weight,
    order,
    bias,
    W,
    kind,
    params,
    table,
    t_start,
    limit,
    loss,
):
    """One pass of the Widrow-Hoff rule ``W[k] += δ_t s_i (c - W[k]·x̃_i) x̃_i``.

    ``t`` counts samples from ``t_start``. ``loss[k]`` receives the weighted sum of
    the squared residuals met before each update. Returns ``False`` as soon as a
    residual is not finite or exceeds ``limit`` in size (the rate diverges; the
    caller rolls back), else ``True``.
    """
    n_tasks = W.shape[0]
    for k in range(n_tasks):
        loss[k] = 0.0
    t = t_start
    for position in range(order.shape[0]):
        i = order[position]
        weight = sample_weight[i]
        if weight == 0.0:
            continue
        rate = _rate(kind, params, table, t)
        t += 1
        for k in range(n_tasks):
            target = 1.0 if codes[i] == first_class + k else -1.0
            residual = target - _row_dot(
                X, data, indices, indptr, sparse, i, W, k, bias
            )
            if not abs(residual) <= limit:
                return False
            loss[k] += weight * residual * residual
            _row_axpy(
                X,
                data,
                indices,
                indptr,
                sparse,
                i,
                rate * weight * residual,
                W,
                k,
                bias,
            )
    return True
