"""What a learner carries from epoch to epoch, and from one partial_fit to the next.

An estimator holds one of these as ``_training``; its public fitted attributes are
published from it at the end of each ``fit`` or ``partial_fit`` call.
"""

from dataclasses import dataclass, field

import numpy as np

from .._kernels import Average, Pocket
from ._schedule import LearningRateSchedule


@dataclass
class Training:
    """The state shared by the whole family."""

    weights: np.ndarray  # (n_tasks, n_features + 1): the last column is the bias's
    schedule: LearningRateSchedule
    random: np.random.RandomState  # the epochs' orders
    updates: np.ndarray  # (n_tasks,) int64: updates so far, the schedule's t
    streaming: bool = False  # partial_fit: one epoch a call, on a batch
    n_iter: int = 0
    converged: bool = False  # the learner's own stop: no mistake, or Adaline's lstsq
    best_loss: float = np.inf  # the lowest epoch loss so far
    stalled: int = 0  # epochs in a row that did not lower best_loss by tol
    tol_reached: bool = False  # stopped by tol and n_iter_no_change
    losses: list = field(default_factory=list)  # (n_tasks,) per epoch

    def kernel_weights(self):
        """``weights`` as the kernels take them: the row itself for one task (a
        view: the kernels' one-task loops are faster), else the matrix."""
        return self.weights[0] if self.weights.shape[0] == 1 else self.weights


@dataclass
class PerceptronTraining(Training):
    """Rosenblatt's rule, and Gallant's pocket when ``pocket`` is set."""

    mistakes: list = field(default_factory=list)  # (n_tasks,) per epoch
    strict: bool = False  # the epochs count a score within its rounding a mistake
    pocket: Pocket = None
    pocket_history: list = field(default_factory=list)  # the ratchet's, per epoch
    average: Average = None

    def averaged_weights(self):
        """The mean of the weights after each averaged sample; the weights
        themselves until averaging starts (as SGDClassifier does)."""
        if self.average is None:
            return self.weights
        n_averaged = self.average.seen[0] - self.average.start + 1
        if n_averaged <= 0:
            return self.weights
        return self.weights - self.average.correction / n_averaged


@dataclass
class AdalineTraining(Training):
    """The Widrow-Hoff rule, with what its divergence guard needs."""

    best_weights: np.ndarray = None  # the weights the best epoch started from
    reductions: int = 0  # times the rate was divided by 10
    norm_bound: float = 0.0  # max_i sqrt(s_i) ‖x̃_i‖


def open_pocket(pocket_weights, correct):
    """A pocket holding ``pocket_weights`` (classifying a weight ``correct`` of this
    call's samples correctly), with no candidate and no runs yet."""
    n_tasks = pocket_weights.shape[0]

    def counters(dtype):
        return np.zeros(n_tasks, dtype=dtype)

    return Pocket(
        weights=pocket_weights,
        candidate=np.zeros_like(pocket_weights),
        snapshot=np.zeros_like(pocket_weights),
        correct=np.asarray(correct, dtype=np.float64),
        candidate_correct=counters(np.float64),
        run=counters(np.int64),
        pocket_run=counters(np.int64),
        snapshot_run=counters(np.int64),
        evaluating=counters(np.int64),
        kept=counters(np.bool_),
        checked=counters(np.bool_),
        is_pocket=counters(np.bool_),
        budget=np.zeros(1, dtype=np.int64),
    )


def averaging_start(average):
    """The first averaged sample of the parameter ``average`` (``True``: the first;
    an int ``a``: the ``a``-th), or None for ``False`` and 0 (no averaging)."""
    if average is False or average == 0:
        return None
    return 1 if average is True else int(average)


def start_average(weights, average):
    """The averaging state of the parameter ``average``, or None."""
    start = averaging_start(average)
    if start is None:
        return None
    return Average(np.zeros_like(weights), np.zeros(1, dtype=np.int64), start)
