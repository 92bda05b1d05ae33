"""The hard margin's optimality (KKT) conditions on all samples, and its proof
on X with float64's rounding bounded: what every route to a maximal margin
checks before it answers."""

from dataclasses import dataclass

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from .._proofs import rounding_factor
from ..exceptions import SolverError
from ._result import PROOF_RTOL, warn_user

# Rows' bytes a block of :func:`_row_products` reads at a time (in cache).
TERMS_BLOCK_BYTES = 1 << 20


def proven(frame, result, tol, smallest):
    """The separating hyperplane, proved on every row with its rounding bounded.

    About the centre (``w·(x - centre) + b_z``, the solvers' frame) the margins
    are ≥ ``1 - tol``; the hyperplane is scaled up by at most that much so the
    proven bound reaches 1. ``smallest``, the optimality check's least margin about
    the centre, with its rounding bounded a priori by each feature's largest
    distance from the centre, proves them without a pass over X (made only where
    that bound is too loose). Far from the origin float64 may not hold
    ``w·x + intercept`` itself (an intercept of 1e15 leaves no digits): the result
    says so (``needs_center``, and a UserWarning to evaluate it about ``center``).
    """
    center, at_center = frame.centre, result.intercept_at_center
    # The rounding of every active row's w·(x - centre) + b as the checks compute it
    # (subtraction, division by the scale, sum): γ_{p+4} (Σ_j max|x_j - centre_j|
    # |w_j| + |b|), doubled for the bound's own; sparse X is not centred row by row.
    if sp.issparse(getattr(frame, "X", None)):
        least = -np.inf
    else:
        least = smallest - 2 * _rounding(frame.feature_scale, result.coef, at_center, 4)
    if not least > 1 - 1e3 * tol:
        least = frame.proven_min_margin(result.coef, 0.0, center, at_center)
    if not least > 1 - 1e3 * tol:
        raise SolverError(
            "The maximal-margin hyperplane cannot be proved to separate the classes "
            f"in float64 (its smallest margin, rounding bounded, is {least:.3g}): "
            "the classes come too close for float precision at the data's scale."
        )
    if least < 1:  # rounding: scale up by as little as proves c (w·x + b) ≥ 1
        grow_by = (1 + 8 * np.finfo(float).eps) / least
        result.coef, at_center = result.coef * grow_by, at_center * grow_by
        result.intercept *= grow_by
        result.dual, result.margin = result.dual * grow_by, result.margin / grow_by
    result.intercept_at_center = at_center
    # The plain form's rounding, bounded a priori by each feature's largest |x|
    # (the plain scores and their bound are within it of the true ones): where the
    # proof survives it, no pass is needed.
    if max(least, 1.0) - 3 * plain_rounding(frame, result) >= 1 - PROOF_RTOL:
        return result
    plain = frame.proven_min_margin(result.coef, result.intercept)
    if not plain >= 1 - PROOF_RTOL:
        say_about_centre(result, 1 - plain)
    return result


def plain_rounding(frame, result):
    """A bound on the rounding of ``coef · x + intercept`` on every row, from
    each feature's largest ``|x|``."""
    return _rounding(frame.magnitude, result.coef, result.intercept, 3)


def _rounding(per_feature, coef, offset, steps):
    """``γ_{p+steps} (Σ_j per_feature_j |w_j| + |b|)``, a score's rounding bound (its
    terms bounded by ``per_feature``); for a machine (``coef`` of K rows) twice the
    largest over its rows, since a margin is the difference of two scores."""
    coef = np.asarray(coef, dtype=float)
    gamma = rounding_factor(coef.shape[-1] + steps)
    if coef.ndim == 1:
        return gamma * (per_feature @ np.abs(coef) + abs(offset))
    return gamma * (2 * float(np.max(np.abs(coef) @ per_feature + np.abs(offset))))


def say_about_centre(result, share):
    """Mark the result to be evaluated about its centre, with a UserWarning
    (``share``: how much of a margin unit the plain form's rounding may reach)."""
    result.needs_center = True
    warn_user(
        "The data lie so far from the origin against their spread that float64 "
        "cannot evaluate coef · x + intercept on them to the margin's precision "
        f"(its rounding may reach {share:.1g} of the margin; the intercept is "
        f"{np.max(np.abs(result.intercept)):.3g}): the hyperplane is also given "
        "about a centre of the data, as coef · (x - center) + intercept_at_center, "
        "which verify() and decision_function use. Centring the features "
        "(StandardScaler) avoids this."
    )


@dataclass
class DualTerms:
    """What the KKT conditions read of a working set, either kind: its rows'
    ``combination`` by the dual (``Σ α c z``, or per class
    ``Σ α (e_own - e_other) z``), the same of ``|z|`` (``absolute``: per feature,
    so features on scales far apart keep their digits), the intercepts'
    ``balance`` (``Σ α c``, or per class; None without intercept), ``margins``."""

    combination: np.ndarray
    absolute: np.ndarray
    balance: np.ndarray
    margins: np.ndarray


def row_terms(rows, labels, solution, fit_intercept=True, products=None):
    """The :class:`DualTerms` of two classes: dense working-set rows Z, or their
    ``products`` ``(Z w, Zᵀ (α c), a bound on |Z|ᵀ α)`` where the rows give
    their own (sparse rows in the span of the working set)."""
    alpha = solution.dual
    if products is None:
        products = _row_products(rows, solution.coef, alpha * labels, alpha)
    scores, combination, absolute = products
    balance = alpha @ labels if fit_intercept else None
    margins = labels * (scores + solution.intercept)
    return DualTerms(combination, absolute, balance, margins)


def _row_products(rows, coef, weights, alpha):
    """``(Z w, Zᵀ weights, |Z|ᵀ α)`` of the rows Z; dense rows a block of about
    ``TERMS_BLOCK_BYTES`` at a time, each read once while in cache and its ``|z|``
    made in one buffer (a whole ``|Z|`` was a copy of the rows: 200 x 2 000,
    1.2 ms of an 8.4 ms fit)."""
    if sp.issparse(rows):
        return rows @ coef, rows.T @ weights, abs(rows).T @ alpha
    n, p = rows.shape
    step = max(1, TERMS_BLOCK_BYTES // (rows.itemsize * max(p, 1)))
    scores = np.empty(n, dtype=np.result_type(rows, coef))
    combination = np.zeros(p, dtype=np.result_type(rows, weights))
    absolute = np.zeros(p, dtype=np.result_type(rows, alpha))
    buffer = np.empty((min(step, n), p), dtype=rows.dtype)
    for start in range(0, n, step):
        block = rows[start : start + step]
        part = slice(start, start + len(block))
        scores[part] = block @ coef
        combination += weights[part] @ block
        absolute += alpha[part] @ np.abs(block, out=buffer[: len(block)])
    return scores, combination, absolute


def dual_problems(terms, solution, tol, allowed):
    """What fails of the dual's rules (two classes or K) on a working set's
    :class:`DualTerms`: ``coef`` equals the ``combination`` per feature, relative
    to the ``absolute`` terms; the ``balance`` vanishes; the dual is complementary
    to the ``margins``."""
    coef, alpha, balance = solution.coef, solution.dual, terms.balance
    given = (coef, alpha, terms.combination, terms.absolute, terms.margins)
    given += () if balance is None else (balance,)
    if not all(np.all(np.isfinite(values)) for values in given):
        return ["the dual's terms leave float64"]  # a bound of inf would pass anything
    # Relative to the largest multiplier (to 1 at least), which keeps every bound
    # finite: features 1e±70 apart made Σ α ~1e300 and its bound inf (the bound then
    # passed anything; ``allowed``, in units of ‖(w, 1)‖, stays loose there).
    top = max(float(np.max(np.abs(alpha), initial=0.0)), 1.0)
    share = alpha / top
    scale = max(float(share.sum()), 1.0 / top)  # max(Σ α, 1) / top
    norm = max(scipy.linalg.norm(np.ravel(coef)), 1e-300)  # nrm2: ‖w‖² may overflow
    problems = []
    allowed_w = (
        1e3 * tol * (terms.absolute + np.abs(coef)) + 64 * np.finfo(float).eps * norm
    )
    if np.any(np.abs(coef - terms.combination) > allowed_w):
        problems.append("w differs from Σ α c z")
    if balance is not None and np.max(np.abs(balance)) / top > 1e3 * tol * scale:
        problems.append(f"Σ α c = {np.max(np.abs(balance)):.2e}")
    slackness = share @ np.abs(terms.margins - 1.0)
    if slackness > (1e3 * tol + allowed) * scale:
        problems.append(f"complementary slackness off by {slackness * top:.2e}")
    return problems


def check_optimality(problem, terms, solution, tol):
    """The hard margin's KKT conditions on every row or pair of ``problem`` (or a
    SolverError); the smallest margin of an active row, as computed."""
    coef = np.ravel(solution.coef)
    allowed = 10 * tol + problem.rounding * scipy.linalg.norm(np.r_[coef, 1.0])
    problems = []
    smallest = problem.min_margin(solution.coef, solution.intercept)
    if smallest < 1 - allowed:
        problems.append(f"a constraint is violated by {1 - smallest:.2e}")
    problems += dual_problems(terms, solution, tol, allowed)
    if problems:
        raise SolverError(
            "The margin QP's answer fails the optimality conditions on the data ("
            + "; ".join(problems)
            + f"; solver status {solution.status.value}). Standardising the "
            "features (StandardScaler) or loosening tol may help."
        )
    return smallest


def mark_if_far(frame, result, factor=1):
    """A soft limit's result, marked for its centre where float64 cannot evaluate
    ``coef · x + intercept`` to the proof's precision (``factor`` times its rounding:
    scores of 1e16 at offsets of 2^30 spreads keep no digits of a machine's hinges)."""
    rounding = factor * plain_rounding(frame, result)
    if rounding >= PROOF_RTOL:
        say_about_centre(result, rounding)
    return result
