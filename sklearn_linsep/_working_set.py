"""The working-set loop shared by the hard margin and the separability test.

A problem whose constraints are one per sample (``c_i (w·x_i + b) ≥ 1``) is solved on
a small subset of the samples; one pass over all of them finds the constraints the
subset's answer violates; the worst join the subset; repeat until none is violated.
The answer on the final subset is then the answer on all the samples: it satisfies
every constraint, and no constraint outside the subset can do better. The
subproblem (a QP or an LP) is a parameter; so is the violation of a sample.
"""

import numpy as np
import scipy.sparse as sp

from ._solvers import SolverError

MAX_ROUNDS = 200


class ScaledRows:
    """X seen as ``Z = (X - centre) / scale`` without copying X.

    ``rows(indices)`` gives a dense block of Z; ``scores(w, b)`` gives
    ``Z @ w + b`` for all samples with one matrix-vector product on X.
    """

    def __init__(self, X, active, centre=True):
        self.X = X
        self.centre = _masked_mean(X, active) if centre else np.zeros(X.shape[1])
        if active.all():  # extremes by column, without a centred copy of X
            high = np.asarray(
                X.max(axis=0).todense() if sp.issparse(X) else X.max(axis=0)
            )
            low = np.asarray(
                X.min(axis=0).todense() if sp.issparse(X) else X.min(axis=0)
            )
        else:
            subset = X[active]
            high = np.asarray(
                subset.max(axis=0).todense() if sp.issparse(X) else subset.max(axis=0)
            )
            low = np.asarray(
                subset.min(axis=0).todense() if sp.issparse(X) else subset.min(axis=0)
            )
        spread = np.maximum(high.ravel() - self.centre, self.centre - low.ravel())
        largest = float(np.max(spread)) if spread.size else 0.0
        self.scale = largest if largest > 0 else 1.0

    def rows(self, indices):
        block = self.X[indices]
        block = block.toarray() if sp.issparse(block) else np.asarray(block, float)
        return (block - self.centre) / self.scale

    def scores(self, coef, intercept):
        """``Z @ coef + intercept`` for every sample (one pass over X).

        Dense X is centred chunk by chunk (a few MB at a time), so the scores do
        not lose the digits X's offset would cancel; sparse X cannot be centred
        without filling it, and its scores carry that rounding
        (:attr:`rounding` per unit of ``‖coef‖``).
        """
        weights = coef / self.scale
        if sp.issparse(self.X):
            raw = np.asarray(self.X @ weights).ravel()
            return raw + (intercept - self.centre @ weights)
        n, p = self.X.shape
        out = np.empty(n)
        step = max(1, (1 << 19) // max(p, 1))
        for start in range(0, n, step):
            block = self.X[start : start + step] - self.centre
            out[start : start + step] = block @ weights
        return out + intercept

    @property
    def rounding(self):
        """Bound on the rounding of :meth:`scores` per unit ``‖coef‖``."""
        magnitude = (
            float(np.max(np.abs(self.centre))) / self.scale
            if sp.issparse(self.X)
            else 1.0
        )
        return 16 * np.finfo(float).eps * (1.0 + magnitude) * np.sqrt(self.X.shape[1])

    def to_original(self, coef, intercept):
        """``(w, b)`` on X of the hyperplane ``(coef, intercept)`` on Z."""
        weights = coef / self.scale
        return weights, intercept - self.centre @ weights


def _masked_mean(X, mask):
    """Mean of the rows where ``mask`` holds: one matrix-vector product, no copy."""
    return np.asarray(mask.astype(float) @ X).ravel() / max(np.count_nonzero(mask), 1)


def seed_indices(scaled, c, active, size):
    """Candidate support vectors: of each class, the ``size`` active samples
    closest to (or beyond) the hyperplane halfway between the class means."""
    positive = active & (c > 0)
    negative = active & (c < 0)
    X = scaled.X
    mean_pos = _masked_mean(X, positive)
    mean_neg = _masked_mean(X, negative)
    direction = mean_pos - mean_neg
    if not np.any(direction):
        direction = np.ones_like(direction)
    offset = -direction @ (mean_pos + mean_neg) / 2
    signed = c * (np.asarray(X @ direction).ravel() + offset)
    chosen = []
    for members in (np.flatnonzero(positive), np.flatnonzero(negative)):
        take = min(size, members.size)
        nearest = np.argpartition(signed[members], take - 1)[:take]
        chosen.append(members[nearest])
    return np.unique(np.concatenate(chosen))


def grow(seed, solve, violations, batch, max_rounds=MAX_ROUNDS, drop_above=None):
    """The loop: ``(solution, working_set, rounds)``.

    ``solve(indices)`` solves the subproblem on those samples and returns an
    object with a ``feasible`` attribute; an infeasible subset ends the loop (it
    proves the whole set infeasible). ``violations(solution)`` returns one number
    per sample, positive where the constraint is violated; at most ``batch`` of
    the worst join per round. With ``drop_above``, members whose violation is
    below ``-drop_above`` (far inside their side) leave the working set when others
    join, which keeps the subproblems small; one that comes back as a violator is
    taken in again, and the round limit bounds any cycling.
    """
    working = np.unique(seed)
    for rounds in range(1, max_rounds + 1):
        solution = solve(working)
        if not solution.feasible:
            return solution, working, rounds
        violation = violations(solution)
        inside = violation[working]
        violation[working] = -np.inf  # solved for already, to the solver's precision
        violated = np.flatnonzero(violation > 0)
        if violated.size == 0:
            return solution, working, rounds
        if violated.size > batch:
            worst = np.argpartition(violation[violated], -batch)[-batch:]
            violated = violated[worst]
        if drop_above is not None:
            working = working[inside >= -drop_above]
        working = np.union1d(working, violated)
    raise SolverError(
        f"The working set still gained violated constraints after {max_rounds} "
        f"rounds ({working.size} samples in it)."
    )


class AugmentedRows:
    """X seen as ``Z = (X, 1) / scale``: the augmented samples of the perceptron,
    divided by one scalar (which keeps margins through the origin in proportion)
    but not centred (which would not)."""

    def __init__(self, X, active):
        values = X[active]
        values = (
            values.data
            if hasattr(values, "data") and hasattr(values, "indptr")
            else values
        )
        largest = float(np.max(np.abs(values))) if np.size(values) else 0.0
        self.X = X
        self.scale = max(largest, 1.0)

    def rows(self, indices):
        block = self.X[indices]
        block = block.toarray() if sp.issparse(block) else np.asarray(block, float)
        return np.column_stack([block, np.ones(len(indices))]) / self.scale

    def scores(self, coef, intercept):
        raw = np.asarray(self.X @ coef[:-1]).ravel() + coef[-1]
        return raw / self.scale + intercept

    def to_original(self, coef, intercept):
        return coef / self.scale, intercept

    @property
    def rounding(self):
        return 16 * np.finfo(float).eps * np.sqrt(self.X.shape[1] + 1)
