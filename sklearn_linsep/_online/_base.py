"""The base of the perceptron family: validation, fit / partial_fit, the epoch loop."""

import sys
import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import (
    _check_partial_fit_first_call,
)

from .. import _kernels
from .._base import LinearClassifierBase, reset_fitted_state
from .._validation import check_class_weight, check_labels, validate_chunk
from ._problem import Problem
from ._schedule import resolve_schedule
from ._state import Training


class _OnlineLinearClassifier(LinearClassifierBase):
    """Shared base of the perceptron family.

    ``fit`` runs up to ``max_iter`` epochs from fresh (or ``coef_init``, or with
    ``warm_start`` the previous) weights; ``partial_fit`` runs one epoch on a batch,
    continuing the weights, counters and schedule of earlier calls. Both keep what
    carries over in ``_training`` (see ``_state``).

    A subclass supplies its state (``_state_class``, ``_new_training``), ``_epoch``
    (one pass: it returns the epoch's loss per task and sets ``converged`` when its
    own criterion stops training) and ``_finish`` (its fitted attributes), and
    declares its parameters in an ``__init__`` whose body is
    ``self._set_parameters(locals())``: scikit-learn reads each estimator's
    parameters and defaults from its own signature.
    """

    _accept_sparse = True
    _private_fitted_state = ("_training",)  # deleted with the fitted attributes

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shuffle": ["boolean", StrOptions({"blocks"})],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "learning_rate": [
            StrOptions({"constant", "hyperbolic", "invscaling"}),
            callable,
        ],
        "eta0": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "a": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "b": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "power_t": [Interval(Real, 0, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def _set_parameters(self, arguments):
        """Store an ``__init__``'s arguments, unvalidated (``fit`` validates)."""
        for name, value in arguments.items():
            if name not in ("self", "__class__"):
                setattr(self, name, value)

    # ------------------------------------------------------------------ public API

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the weights, running epochs until the learner's criterion (no
        mistake, or ``tol``) stops it or ``max_iter``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training samples; a sparse matrix is used in CSR form.
        y : array-like of shape (n_samples,)
            Class labels.
        coef_init : ndarray of shape (n_classes, n_features), default=None
            Initial weights (one row for two classes). Overrides ``warm_start``.
        intercept_init : ndarray of shape (n_classes,), default=None
            Initial intercepts (one for two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights: each update is scaled by the sample's weight.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        warm = self.warm_start and coef_init is None and intercept_init is None
        previous = getattr(self, "_training", None) if warm else None
        # Nothing of an earlier fit survives this one's failure: predict would
        # answer with it, and a warm start would continue from it.
        reset_fitted_state(self)
        try:
            X, codes, sample_weight = self._validate_fit_data(X, y, sample_weight)
            random = _private_random_state(self.random_state)
            problem = self._problem(X, codes, sample_weight, random)
            weights = self._initial_weights(
                problem, previous, coef_init, intercept_init
            )
            self._training = self._new_training(problem, weights, random, previous)
            self._train(problem, self.max_iter)
            self._finish(problem, final=True)
        except Exception:
            reset_fitted_state(self)
            raise
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run one epoch on a batch, continuing from the current state.

        For data in a dask array, dask-ml's ``Incremental`` wrapper calls this
        once per block: ``Incremental(Perceptron(), shuffle_blocks=False).fit(X, y,
        classes=[0, 1])`` gives the weights of calling it by hand on the blocks in
        order, and its ``predict`` returns a dask array.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Labels, all among ``classes`` (or ``classes_``).
        classes : array-like of shape (n_classes,), default=None
            Every class of the whole stream; required on the first call only.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
            The updated estimator.
        """
        first_call = _check_partial_fit_first_call(self, classes)
        try:
            return self._partial_fit(X, y, sample_weight, first_call)
        except Exception:
            if first_call:  # leave no half-made state for the next call
                reset_fitted_state(self)
            raise

    def _partial_fit(self, X, y, sample_weight, first_call):
        if first_call:
            check_labels(self.classes_, type(self).__name__)
        if self.class_weight == "balanced":
            raise ValueError(
                "class_weight='balanced' needs the whole training set; with "
                "partial_fit pass a dict, e.g. from sklearn.utils.class_weight."
                "compute_class_weight('balanced', classes=classes, y=y)."
            )
        X, codes, sample_weight = validate_chunk(
            self, X, y, sample_weight, self.classes_, first_call, accept_sparse=True
        )
        if sample_weight is not None and not np.any(sample_weight > 0):
            # A chunk of no weight adds nothing to statistics, but an epoch on it
            # has neither a loss nor an automatic rate.
            raise ValueError("sample_weight has no positive entry.")
        if first_call:
            random = _private_random_state(self.random_state)
            problem = self._problem(X, codes, sample_weight, random)
            weights = np.zeros((problem.n_tasks, X.shape[1] + 1))
            self._training = self._new_training(problem, weights, random, None)
        else:
            problem = self._problem(X, codes, sample_weight, self._training.random)
            self._resume(problem)
        self._training.streaming = True
        self._train(problem, 1)
        self._finish(problem, final=False)
        return self

    # ------------------------------------------------------------ shared machinery

    def _problem(self, X, codes, sample_weight, random):
        score_weight = sample_weight
        if self.class_weight is not None:
            per_class = compute_class_weight(
                self.class_weight, classes=self.classes_, y=self.classes_[codes]
            )
            check_class_weight(per_class, self.classes_, type(self).__name__)
            base = 1.0 if sample_weight is None else sample_weight
            sample_weight = base * per_class[codes]
        if self._permutes_rows():
            # One uniform permutation of the rows (a copy), then blockwise orders.
            rows = _kernels.shuffled_order(X.shape[0], _draw_seed(random))
            X, codes = X[rows], codes[rows]
            sample_weight = None if sample_weight is None else sample_weight[rows]
            score_weight = None if score_weight is None else score_weight[rows]
        problem = Problem.from_data(
            X, codes, len(self.classes_), sample_weight, self.fit_intercept
        )
        problem.score_weight = score_weight
        self._check_scale(problem)
        return problem

    def _permutes_rows(self):
        return self.shuffle == "blocks"

    # Entries of X beyond this size make w·x overflow (w grows like x); below its
    # inverse, w·x underflows.
    _largest_scale = 1e100

    def _check_scale(self, problem):
        """Refuse X whose scale makes the scores overflow or vanish in float64."""
        X = problem.matrix
        largest = _kernels.largest_magnitude(X.data if sp.issparse(X) else X)
        name = type(self).__name__
        if largest > self._largest_scale:
            raise ValueError(
                f"X holds entries of size {largest:.3g}: {name}'s scores w·x, with "
                "w of the size of x, would overflow float64. Divide X by a constant "
                "or use StandardScaler."
            )
        if 0 < largest < 1 / self._largest_scale:
            if not self.fit_intercept:
                raise ValueError(
                    f"X's largest entry is {largest:.3g}: {name}'s scores w·x, with "
                    "w of the size of x, would underflow float64. Multiply X by a "
                    "constant or use StandardScaler."
                )
            warnings.warn(
                f"X's largest entry is {largest:.3g}, against the constant 1 the "
                f"intercept multiplies: {name}'s rule is not scale-invariant with an "
                "intercept, and the features will barely count. Use StandardScaler.",
                UserWarning,
                stacklevel=4,
            )

    def _initial_weights(self, problem, previous, coef_init, intercept_init):
        """The weights a fit starts from: zero, or the ``previous`` fit's last
        weights (a warm start; an error where the data need another shape, as
        scikit-learn's), then ``coef_init`` and ``intercept_init``."""
        n_features = problem.matrix.shape[1]
        shape = (problem.n_tasks, n_features)
        weights = np.zeros((problem.n_tasks, n_features + 1))
        if previous is not None:
            if previous.weights.shape != weights.shape:
                raise ValueError(
                    f"warm_start=True continues from the previous fit's coef_ of "
                    f"shape {(len(previous.weights), previous.weights.shape[1] - 1)}"
                    f", but these data need {shape} (another number of features or "
                    "classes): fit with warm_start=False to start afresh."
                )
            weights[:] = previous.weights
        if coef_init is not None:
            coef_init = np.asarray(coef_init, dtype=np.float64)
            if coef_init.shape == shape[1:] and shape[0] == 1:
                coef_init = coef_init[None, :]
            if coef_init.shape != shape:
                raise ValueError(
                    f"coef_init has shape {coef_init.shape}; expected {shape} "
                    "(one row per class, a single row for two classes)."
                )
            weights[:, :-1] = coef_init
        if intercept_init is not None:
            if not self.fit_intercept:
                raise ValueError("intercept_init needs fit_intercept=True.")
            intercept_init = np.asarray(intercept_init, dtype=np.float64).ravel()
            if intercept_init.size != problem.n_tasks:
                raise ValueError(
                    f"intercept_init has {intercept_init.size} values; expected "
                    f"{problem.n_tasks}."
                )
            weights[:, -1] = intercept_init
        if not np.all(np.isfinite(weights)):
            raise ValueError("coef_init and intercept_init must be finite.")
        return weights

    _state_class = Training

    def _new_training(self, problem, weights, random, previous):
        """The state of a fresh fit from ``weights`` (a subclass adds its own;
        ``previous`` is the state a warm start continues from, or None)."""
        return self._state_class(
            weights=weights,
            schedule=resolve_schedule(self, problem),
            random=random,
            updates=np.zeros(problem.n_tasks, dtype=np.int64),
        )

    def _resume(self, problem):
        """Continue from the state of the last call (partial_fit)."""
        if problem.n_tasks != self._training.weights.shape[0]:
            raise ValueError("The number of classes changed since the last call.")

    def _epoch_order(self, problem):
        if not self.shuffle:
            return _kernels.STORED_ORDER
        seed = _draw_seed(self._training.random)
        if self.shuffle == "blocks":
            return _kernels.block_shuffled_order(
                problem.n_samples, problem.block_size, seed
            )
        return _kernels.shuffled_order(problem.n_samples, seed)

    def _train(self, problem, n_epochs):
        """Up to ``n_epochs`` epochs; ``_epoch`` returns the epoch's loss per task
        and sets ``converged`` when the learner's own criterion stops it."""
        training = self._training
        started = time.perf_counter()
        for _ in range(n_epochs):
            epoch_start = time.perf_counter()
            task_losses = self._epoch(problem, self._epoch_order(problem))
            training.losses.append(task_losses)
            training.n_iter += 1
            loss = float(np.sum(task_losses))
            training.tol_reached = self._no_improvement(loss)
            if self.verbose:
                now = time.perf_counter()
                print(
                    f"-- Epoch {training.n_iter}: loss {loss:.6g}, "
                    f"{self._epoch_summary()}, {now - epoch_start:.3f} s "
                    f"(total {now - started:.3f} s)",
                    file=sys.stderr,
                )
            if (training.converged and self._stops_when_converged()) or (
                training.tol_reached
            ):
                break

    def _stops_when_converged(self):
        """Whether ``converged`` ends training (not for a running average, which
        keeps moving toward the final weights)."""
        return True

    def _no_improvement(self, loss):
        """scikit-learn's stopping rule: whether ``n_iter_no_change`` epochs in a
        row have failed to lower the best epoch loss so far by ``tol``."""
        training = self._training
        if self.tol is not None and loss > training.best_loss - self.tol:
            training.stalled += 1
        else:
            training.stalled = 0
        training.best_loss = min(training.best_loss, loss)
        return self.tol is not None and training.stalled >= self.n_iter_no_change

    def _epoch_summary(self):
        """What ``verbose`` prints of an epoch beside its loss and time."""
        return f"updates {_squeeze(self._training.updates)}"

    def _finish(self, problem, final):
        """Publish ``coef_`` / ``intercept_`` and the counters."""
        weights = self._published_weights()
        if not np.all(np.isfinite(weights)):
            raise ValueError(
                f"{type(self).__name__} produced non-finite weights; reduce the "
                "learning rate or scale the features (e.g. StandardScaler)."
            )
        training = self._training
        # In X's dtype, as scikit-learn's Perceptron (the epochs run in float64).
        self.coef_, self.intercept_ = problem.published(weights)
        self.n_updates_ = _squeeze(training.updates)
        self.n_iter_ = training.n_iter
        self.converged_ = bool(training.converged)
        self.loss_ = history(training.losses, problem.n_tasks)

    def _published_weights(self):
        return self._training.weights

    @property
    def schedule_(self):
        """The resolved :class:`LearningRateSchedule`; ``schedule_(t)`` is the rate of
        update ``t``."""
        training = getattr(self, "_training", None)
        if training is None:  # unfitted: the attribute's own name, as coef_ says
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute 'schedule_'"
            )
        return training.schedule

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _private_random_state(random_state):
    """``check_random_state``, except that ``None`` gives a fresh generator seeded
    from the operating system instead of numpy's global one."""
    if random_state is None:
        return np.random.RandomState()
    return check_random_state(random_state)


def _draw_seed(random):
    """A seed for the kernels' orders, from the estimator's own generator."""
    return random.randint(np.iinfo(np.int64).max, dtype=np.int64)


def _squeeze(values):
    """Per-task values as a scalar for one task, else as an array."""
    values = np.asarray(values)
    return values.item() if values.size == 1 else values.copy()


def history(rows, n_tasks):
    """Stacked per-epoch records: ``(n_epochs,)`` for one task, else
    ``(n_epochs, n_tasks)``."""
    stacked = np.array(rows, dtype=float).reshape(-1, n_tasks)
    return stacked[:, 0] if n_tasks == 1 else stacked
