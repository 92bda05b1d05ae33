"""Weighted least squares with an intercept column, minimum norm."""

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from ._threads import threads_for_matrix


def weighted_lstsq(X, targets, sample_weight, bias):
    """Minimum-norm ``W`` of ``min Σ_i s_i ‖t_i - W x̃_i‖²``, ``x̃_i = (x_i, bias)``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    targets : ndarray of shape (n_samples, n_targets)
    sample_weight : ndarray of shape (n_samples,)
        Non-negative weights ``s_i``.
    bias : float
        The constant appended to every sample (0 fits no intercept).

    Returns
    -------
    W : ndarray of shape (n_targets, n_features + 1)
        The last column multiplies ``bias``.

    Dense X goes to LAPACK's least squares on the augmented, weighted rows (about
    their weighted means where there is an intercept); sparse X to the minimum-norm
    solution of the (p + 1)² normal equations.
    """
    root = np.sqrt(sample_weight)
    targets = targets * root[:, None]
    if sp.issparse(X):
        scaled = sp.hstack(
            [sp.diags(root) @ X, sp.csr_matrix(root[:, None] * bias)]
        ).tocsr()
        gram = np.asarray((scaled.T @ scaled).todense(), dtype=np.float64)
        return normal_equations(gram, np.asarray(scaled.T @ targets)).T
    # First about the weighted column means (with an intercept), each column
    # scaled by a power of two to a norm near 1: an offset (1e8 against a unit
    # spread) makes the column of ones nearly one of X's, a feature 1e-9 smaller
    # than the others loses digits to the solver's rounding, and the cut-off
    # drops them (RidgeClassifier centres too). Where the solution is unique this
    # changes nothing else; where it is not, the minimum-norm one is that of the
    # rows as given, solved as given.
    centre = np.average(X, axis=0, weights=sample_weight) if bias else 0.0
    centred = X - centre
    norms = np.linalg.norm(centred * root[:, None], axis=0)
    _, exponent = np.frexp(norms)
    # A value carries its rounding, eps·|x|: centred, a feature r times larger
    # than its spread keeps noise of relative size eps·r, and a direction below
    # that is no direction (x2 = x1 + 1e6 is exact nowhere in float64).
    spread = norms / np.sqrt(np.sum(sample_weight))
    varying = spread > 0
    ratio = np.max(np.max(np.abs(X), axis=0)[varying] / spread[varying], initial=1.0)
    cutoff = max(np.finfo(np.float64).eps * max(X.shape[0], X.shape[1] + 1),
                 4 * np.finfo(np.float64).eps * ratio)  # fmt: skip
    solution, rank = _augmented_lstsq(
        np.ldexp(centred, -exponent), targets, root, bias, cutoff
    )
    if rank == X.shape[1] + (1 if bias else 0):
        solution[:, :-1] = np.ldexp(solution[:, :-1], -exponent)
        if bias:  # w·(x - m) + c·bias = w·x + (c - w·m / bias)·bias
            solution[:, -1] -= solution[:, :-1] @ centre / bias
        return solution
    return _augmented_lstsq(X, targets, root, bias)[0]


def _augmented_lstsq(X, targets, root, bias, cutoff=None):
    """``(W, rank)``: LAPACK's minimum-norm least squares of ``[X, bias]``,
    the rows weighted by ``root``, and the rank it found (singular values at
    most ``cutoff`` of the largest count as zero; None: numpy's cut-off)."""
    augmented = np.empty((X.shape[0], X.shape[1] + 1))
    augmented[:, :-1] = X
    augmented[:, -1] = bias
    augmented *= root[:, None]
    # numpy's cut-off (rcond=None): singular values below eps·max(n, p + 1) of the
    # largest are zero. scipy's default (eps alone) kept a rank-10 X's rounding as
    # rank and returned ‖w‖ ≈ 1e13 instead of the minimum-norm answer.
    if cutoff is None:
        cutoff = np.finfo(np.float64).eps * max(augmented.shape)
    solution, _, rank, _ = scipy.linalg.lstsq(
        augmented, targets, cond=cutoff, overwrite_a=True, check_finite=False
    )
    return solution.T, rank


def normal_equations(gram, rhs):
    """Minimum-norm solution of ``gram w = rhs`` (``gram`` = AᵀA, ``rhs`` = Aᵀb).

    The columns are equilibrated first (``D gram D`` with unit diagonal), so that a
    feature on a small scale is not mistaken for a zero one. When the equilibrated
    matrix has full numerical rank the solution is unique and the scaling changes
    nothing; otherwise the minimum-norm solution is that of the unscaled system.
    """
    diagonal = np.diag(gram)
    used = diagonal > 0
    inverse_root = np.zeros_like(diagonal)
    inverse_root[used] = 1.0 / np.sqrt(diagonal[used])
    equilibrated = gram * np.outer(inverse_root, inverse_root)
    with threads_for_matrix(len(equilibrated)):
        eigenvalues, eigenvectors = scipy.linalg.eigh(equilibrated)
    cutoff = eigenvalues[-1] * len(diagonal) * np.finfo(float).eps * 16
    if np.all(used) and eigenvalues[0] > cutoff:
        inner = eigenvectors @ (
            (eigenvectors.T @ (inverse_root[:, None] * rhs)) / eigenvalues[:, None]
        )
        return inverse_root[:, None] * inner
    return scipy.linalg.pinvh(gram) @ rhs
