"""The perceptron family: Rosenblatt's perceptron, Gallant's pocket and Widrow-Hoff.

The three learners share one base, :class:`_OnlineLinearClassifier`: validation, the
one-vs-rest targets, learning-rate schedules, weight initialisation, ``fit`` /
``partial_fit`` and the epoch loop. They differ only in the update rule of an epoch,
which runs in a compiled kernel of ``_kernels`` on plain arrays.

A learner keeps one weight row per one-vs-rest task in ``W`` of shape
``(n_tasks, n_features + 1)``; the last column multiplies the constant ``bias`` of the
augmented sample ``x̃ = (x, bias)`` (1 with an intercept, 0 without). Two classes are a
single task whose positive class is ``classes_[1]``.
"""

import warnings
from dataclasses import dataclass, replace
from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.extmath import row_norms
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import (
    _check_partial_fit_first_call,
    check_classification_targets,
)
from sklearn.utils.validation import _check_sample_weight, validate_data

from . import _kernels
from ._base import LinearClassifierBase, reset_fitted_state
from ._validation import check_labels, encode_labels

_SCHEDULE_CODES = {
    "constant": _kernels.RATE_CONSTANT,
    "hyperbolic": _kernels.RATE_HYPERBOLIC,
    "invscaling": _kernels.RATE_INVSCALING,
}


@dataclass(frozen=True)
class LearningRateSchedule:
    """The resolved learning rate ``η_t`` of update ``t`` (counted from 0).

    ``"constant"``: ``η_t = eta0``; ``"hyperbolic"``: ``η_t = a / (b + t)``;
    ``"invscaling"``: ``η_t = eta0 / (t + 1) ** power_t``; ``"callable"``:
    ``η_t = function(t)``. Every rate is multiplied by ``scale`` (1 unless Adaline
    reduced it to stop a divergence).

    The learners of the perceptron family resolve their parameters (``"auto"``
    included) into one of these, exposed as ``schedule_``.

    Parameters
    ----------
    kind : {"constant", "hyperbolic", "invscaling", "callable"}
    eta0 : float
        The constant rate and the numerator of ``"invscaling"``.
    a, b : float
        The hyperbolic rate ``a / (b + t)``.
    power_t : float
        Exponent of ``"invscaling"``.
    function : callable, default=None
        The rate of update ``t`` for ``"callable"``.
    scale : float, default=1.0
        Factor applied to every rate.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import LearningRateSchedule, Perceptron
    >>> schedule = LearningRateSchedule("hyperbolic", 1.0, a=10, b=1000, power_t=0.5)
    >>> schedule(np.array([0, 1000]))
    array([0.01 , 0.005])
    >>> X, y = np.array([[0.0], [1.0], [3.0], [4.0]]), np.array([0, 0, 1, 1])
    >>> Perceptron(learning_rate="hyperbolic").fit(X, y).schedule_.kind
    'hyperbolic'
    """

    kind: str
    eta0: float
    a: float
    b: float
    power_t: float
    function: object = None
    scale: float = 1.0

    def __call__(self, t):
        """Rates of the updates ``t`` (an integer or an array of them)."""
        t = np.asarray(t, dtype=np.float64)
        if self.kind == "constant":
            rate = np.full_like(t, self.eta0)
        elif self.kind == "hyperbolic":
            rate = self.a / (self.b + t)
        elif self.kind == "invscaling":
            rate = self.eta0 / (t + 1.0) ** self.power_t
        else:
            rate = _call_schedule(self.function, t)
        return rate * self.scale

    def kernel_args(self, starts, length):
        """``(kind, params, table, starts)`` for a kernel whose task r makes at most
        ``length`` updates from update ``starts[r]``; a callable is tabulated over
        those ranges only.

        Parameters
        ----------
        starts : array-like of int of shape (n_tasks,)
            The number of updates each task has made so far.
        length : int
            The most updates any task makes in the kernel's call.
        """
        starts = np.array(starts, dtype=np.int64, ndmin=1)  # a copy: updates move
        params = np.array([self.eta0, self.a, self.b, self.power_t, self.scale])
        if self.kind != "callable":
            return _SCHEDULE_CODES[self.kind], params, np.zeros((1, 1)), starts
        steps = starts[:, None] + np.arange(length + 1)
        table = _call_schedule(self.function, steps)
        return _kernels.RATE_TABLE, params, table, starts


def _call_schedule(function, t):
    """``function`` over the update counts ``t``: one call on the array when it
    accepts one, else one call per count; rates must be finite and positive."""
    t_int = np.asarray(t).astype(np.int64)
    try:
        rates = np.asarray(function(t_int), dtype=np.float64)
        if rates.shape != t_int.shape:
            raise TypeError
    except (TypeError, ValueError):
        rates = np.array([function(int(step)) for step in t_int.ravel()], float)
        rates = rates.reshape(t_int.shape)
    if not np.all(np.isfinite(rates) & (rates > 0)):
        raise ValueError(
            "The learning_rate callable must return finite positive rates; it "
            f"returned {rates[~(np.isfinite(rates) & (rates > 0))][:3].tolist()}."
        )
    return rates


@dataclass
class _Problem:
    """One training call's data, in the form the kernels take."""

    matrix: object  # X: C-ordered ndarray or CSR matrix
    codes: np.ndarray  # class index of each sample
    first_class: int
    sample_weight: np.ndarray  # sample_weight × class_weight, float64
    bias: float
    n_tasks: int
    score_weight: object = None  # the sample weights alone (None: all ones)

    @property
    def n_samples(self):
        return self.codes.shape[0]

    @property
    def block_size(self):
        """Rows per block of ``shuffle="blocks"``: about 64 KiB of X, at least 64."""
        row_bytes = self.matrix.dtype.itemsize * max(1, self.matrix.shape[1])
        if sp.issparse(self.matrix):
            row_bytes = self.matrix.data.nbytes / max(1, self.n_samples)
        return int(max(64, 2**16 // max(1, row_bytes)))

    @property
    def identity_order(self):
        """``range(n_samples)`` as an array, made once."""
        if getattr(self, "_identity", None) is None:
            self._identity = np.arange(self.n_samples)
        return self._identity

    @property
    def rows(self):
        """The kernels' ``rows``: ``(X,)`` or the CSR arrays."""
        if sp.issparse(self.matrix):
            return (self.matrix.data, self.matrix.indices, self.matrix.indptr)
        return (self.matrix,)

    def targets(self):
        """``(n_samples, n_tasks)`` one-vs-rest targets ±1."""
        tasks = np.arange(self.n_tasks) + self.first_class
        return np.where(self.codes[:, None] == tasks, 1.0, -1.0)

    def max_squared_norm(self):
        """``max_i s_i ‖x̃_i‖²``."""
        squared = row_norms(self.matrix, squared=True) + self.bias**2
        return float(np.max(self.sample_weight * squared))


def _make_problem(X, codes, n_classes, sample_weight, fit_intercept):
    X = X.tocsr() if sp.issparse(X) else np.ascontiguousarray(X)
    weights = (
        np.ones(X.shape[0])
        if sample_weight is None
        else np.ascontiguousarray(sample_weight, dtype=np.float64)
    )
    return _Problem(
        X,
        np.ascontiguousarray(codes, dtype=np.intp),
        1 if n_classes == 2 else 0,
        weights,
        1.0 if fit_intercept else 0.0,
        1 if n_classes == 2 else n_classes,
    )


def _private_random_state(random_state):
    """``check_random_state``, except that ``None`` gives a fresh generator seeded
    from the operating system instead of numpy's global one."""
    if random_state is None:
        return np.random.RandomState()
    return check_random_state(random_state)


def _squeeze(values):
    """Per-task values as a scalar for one task, else as an array."""
    values = np.asarray(values)
    return values.item() if values.size == 1 else values.copy()


def _history(rows, n_tasks):
    """Stacked per-epoch records: ``(n_epochs,)`` for one task, else
    ``(n_epochs, n_tasks)``."""
    stacked = np.array(rows, dtype=float).reshape(-1, n_tasks)
    return stacked[:, 0] if n_tasks == 1 else stacked


class _OnlineLinearClassifier(LinearClassifierBase):
    """Shared base of the perceptron family; a subclass supplies ``_epoch``.

    ``fit`` runs up to ``max_iter`` epochs from fresh (or ``coef_init``, or with
    ``warm_start`` the previous) weights; ``partial_fit`` runs one epoch on a batch,
    continuing the weights, counters and schedule of earlier calls.
    """

    _accept_sparse = True

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
    }

    # ------------------------------------------------------------------ public API

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, coef_init=None, intercept_init=None, sample_weight=None):
        """Fit the weights, running epochs until one makes no mistake or ``max_iter``.

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
        X, codes, sample_weight = self._validate_fit_data(X, y, sample_weight)
        self._random = _private_random_state(self.random_state)
        problem = self._problem(X, codes, sample_weight)
        self._warm = self.warm_start and coef_init is None and intercept_init is None
        weights = self._initial_weights(problem, X.shape[1], coef_init, intercept_init)
        self._start(problem, weights)
        self._streaming = False
        self._train(problem, self.max_iter, self._random)
        self._finish(problem, final=True)
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
        X, y = validate_data(
            self,
            X,
            y,
            reset=first_call,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
        )
        check_classification_targets(y)
        codes = encode_labels(y, self.classes_, type(self).__name__)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(
                sample_weight, X, dtype=np.float64, ensure_non_negative=True
            )
            if not np.any(sample_weight > 0):
                raise ValueError("sample_weight has no positive entry.")
        if first_call:
            self._random = _private_random_state(self.random_state)
            self._warm = False
        problem = self._problem(X, codes, sample_weight)
        if first_call:
            self._start(problem, np.zeros((problem.n_tasks, X.shape[1] + 1)))
        else:
            self._resume(problem)
        self._streaming = True
        self._train(problem, 1, self._random)
        self._finish(problem, final=False)
        return self

    # ------------------------------------------------------------ shared machinery

    def _problem(self, X, codes, sample_weight):
        score_weight = sample_weight
        if self.class_weight is not None:
            per_class = compute_class_weight(
                self.class_weight, classes=self.classes_, y=self.classes_[codes]
            )
            base = 1.0 if sample_weight is None else sample_weight
            sample_weight = base * per_class[codes]
        if self._permutes_rows():
            # One uniform permutation of the rows (a copy), then blockwise orders.
            seed = self._random.randint(np.iinfo(np.int64).max, dtype=np.int64)
            rows = _kernels.shuffled_order(X.shape[0], seed)
            X, codes = X[rows], codes[rows]
            sample_weight = None if sample_weight is None else sample_weight[rows]
            score_weight = None if score_weight is None else score_weight[rows]
        problem = _make_problem(
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
        values = X.data if sp.issparse(X) else X
        # max(max, -min): two reductions, no |X|-sized temporary.
        largest = float(max(values.max(), -values.min())) if values.size else 0.0
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

    def _initial_weights(self, problem, n_features, coef_init, intercept_init):
        shape = (problem.n_tasks, n_features)
        weights = np.zeros((problem.n_tasks, n_features + 1))
        previous = self._previous_weights(shape) if self._warm else None
        if previous is not None:
            weights[:] = previous
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

    def _previous_weights(self, shape):
        """The weights a warm start continues from, if they fit ``shape``."""
        coef = getattr(self, "coef_", None)
        if coef is None or coef.shape != shape:
            return None
        return np.column_stack([coef, self.intercept_])

    def _start(self, problem, weights):
        """Reset the state of a fresh fit to ``weights``."""
        self._weights = weights
        self._schedule = self._resolve_schedule(problem)
        self._updates = np.zeros(problem.n_tasks, dtype=np.int64)
        self._records = []
        self.n_iter_ = 0

    def _resume(self, problem):
        """Continue from the state of the last call (partial_fit)."""
        if problem.n_tasks != self._weights.shape[0]:
            raise ValueError("The number of classes changed since the last call.")

    def _resolve_schedule(self, problem):
        learning_rate = self.learning_rate
        auto_rate = None
        if "auto" in (self.eta0, self.a, self.b):
            # The largest rate at which no single update overshoots its sample.
            auto_rate = 1.0 / max(problem.max_squared_norm(), np.finfo(float).tiny)
        n_active = np.count_nonzero(problem.sample_weight)
        b = 10.0 * n_active if self.b == "auto" else self.b
        eta0 = auto_rate if self.eta0 == "auto" else self.eta0
        a = b * auto_rate if self.a == "auto" else self.a
        if callable(learning_rate):
            return LearningRateSchedule(
                "callable", eta0, a, b, self.power_t, learning_rate
            )
        return LearningRateSchedule(learning_rate, eta0, a, b, self.power_t)

    def _epoch_order(self, problem, random_state):
        if not self.shuffle:
            return problem.identity_order
        seed = random_state.randint(np.iinfo(np.int64).max, dtype=np.int64)
        if self.shuffle == "blocks":
            return _kernels.block_shuffled_order(
                problem.n_samples, problem.block_size, seed
            )
        return _kernels.shuffled_order(problem.n_samples, seed)

    def _train(self, problem, n_epochs, random_state):
        for _ in range(n_epochs):
            done = self._epoch(problem, self._epoch_order(problem, random_state))
            self.n_iter_ += 1
            if done:
                break

    def _finish(self, problem, final):
        """Publish ``coef_`` / ``intercept_`` and the histories."""
        weights = self._published_weights()
        if not np.all(np.isfinite(weights)):
            raise ValueError(
                f"{type(self).__name__} produced non-finite weights; reduce the "
                "learning rate or scale the features (e.g. StandardScaler)."
            )
        self.coef_ = weights[:, :-1].copy()
        self.intercept_ = weights[:, -1] * problem.bias
        self.n_updates_ = _squeeze(self._updates)

    def _published_weights(self):
        return self._weights

    def _kernel_schedule(self, starts, length):
        return self._schedule.kernel_args(starts, length)

    @property
    def schedule_(self):
        """The resolved :class:`LearningRateSchedule`; ``schedule_(t)`` is the rate of
        update ``t``."""
        return self._schedule

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class _PerceptronRule(_OnlineLinearClassifier):
    """The perceptron's mistake-driven epoch, with or without Gallant's pocket."""

    _pocket = False

    def _start(self, problem, weights):
        super()._start(problem, weights)
        self._mistakes = []
        self.converged_ = False

    def _online_epoch(self, problem, order, pocket_state):
        mistakes = np.zeros(problem.n_tasks, dtype=np.int64)
        schedule = self._kernel_schedule(self._updates, problem.n_samples)
        _kernels.perceptron_epoch(
            problem.rows,
            problem.codes,
            problem.first_class,
            problem.sample_weight,
            order,
            problem.bias,
            self._weights,
            *schedule,
            self._updates,
            mistakes,
            *pocket_state,
        )
        return mistakes

    def _record_mistakes(self, mistakes):
        self._mistakes.append(mistakes)
        self.converged_ = not np.any(mistakes)
        return self.converged_

    def _finish(self, problem, final):
        super()._finish(problem, final)
        self.errors_ = _history(self._mistakes, problem.n_tasks).astype(np.int64)


class Perceptron(_PerceptronRule):
    r"""Rosenblatt's perceptron, online or batch, on compiled epochs.

    Each sample is augmented to :math:`\tilde x = (x, 1)` (``(x, 0)`` without an
    intercept) and labelled :math:`c = \pm 1`. In ``mode="online"`` the samples are
    visited in turn and a mistake :math:`c\, w^T\tilde x \le 0` updates

    .. math:: w \leftarrow w + \eta_t\, s\, c\, \tilde x,

    with :math:`s` the sample's weight and :math:`t` the number of updates made so
    far. In ``mode="batch"`` an epoch is one gradient step on the perceptron
    criterion :math:`J(w) = -\sum_{\text{mistakes}} s\, c\, w^T\tilde x`, i.e.
    :math:`w \leftarrow w + \eta_t \sum_{\text{mistakes}} s\, c\, \tilde x`.

    Fitting stops after the first epoch with no mistake (``converged_``). On
    linearly separable data that epoch always comes: with :math:`w_0 = 0` and a
    constant rate the online rule makes at most :math:`(\tilde R/\tilde\gamma)^2`
    updates (Novikoff), :math:`\tilde R = \max\|\tilde x\|` and :math:`\tilde\gamma`
    the margin of the best separator through the origin of the augmented space.
    Otherwise it stops after ``max_iter`` epochs with a ``ConvergenceWarning``.
    More than two classes are learnt one-vs-rest, all in the same pass.

    Parameters
    ----------
    mode : {"online", "batch"}, default="online"
        Per-sample updates, or one step over all the mistakes of an epoch.
    fit_intercept : bool, default=True
        Learn an intercept (the weight of the constant 1 of :math:`\tilde x`).
    max_iter : int, default=1000
        Maximum number of epochs (passes over the training data).
    shuffle : bool or "blocks", default=True
        Visit the samples in a fresh uniformly random order each epoch (online
        mode). Random order costs memory latency: on 10⁶ × 10 rows an epoch takes
        about 6 times as long as in the stored order. ``"blocks"`` is the
        cache-friendly alternative, about 4 times faster an epoch there: the rows
        are permuted once (a copy of X), then each epoch visits blocks of about
        64 KiB of rows in a random order, each block read in sequence from a random
        start in a random direction. Rows of one block stay together, in the same
        cyclic order, from epoch to epoch.
    random_state : int, RandomState instance or None, default=None
        Seeds the order of the samples; no global random state is used.
    warm_start : bool, default=False
        Start ``fit`` from the weights of the previous fit.
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    learning_rate : str or callable, default="constant"
        :math:`\eta_t` of the ``t``-th update (from 0): ``"constant"`` is ``eta0``,
        ``"hyperbolic"`` is ``a / (b + t)``, ``"invscaling"`` is
        ``eta0 / (t + 1) ** power_t``; a callable gives ``learning_rate(t)``
        (called on an integer array of update counts when it accepts one). In
        batch mode ``t`` counts the steps.
    eta0 : float or "auto", default=1.0
        The constant rate and the numerator of ``"invscaling"``. ``"auto"`` is
        :math:`1/\max_i s_i\|\tilde x_i\|^2`. With :math:`w_0 = 0` a constant rate
        only scales the weights, so the default is as good as any.
    a, b : float or "auto", default=10.0, 1000.0
        The hyperbolic rate ``a / (b + t)``; ``b="auto"`` is ten times the number
        of samples and ``a="auto"`` is ``b`` times the automatic ``eta0``.
    power_t : float, default=0.5
        Exponent of ``"invscaling"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    converged_ : bool
        Whether the last epoch made no mistake.
    errors_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        Mistakes (updates) per epoch, per one-vs-rest task for K > 2.
    n_updates_ : int or ndarray of shape (n_classes,)
        Updates made since the start of the fit (or of the partial fits).
    n_iter_ : int
        Epochs run.
    schedule_ : LearningRateSchedule
        The resolved learning rate; ``schedule_(t)`` gives :math:`\eta_t`.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when X has feature names that are all strings.

    See Also
    --------
    PocketPerceptron : Keeps the best weights seen, for inseparable data.
    Adaline : The least-squares (Widrow-Hoff) rule.
    sklearn.linear_model.Perceptron : scikit-learn's SGD-based perceptron.

    References
    ----------
    F. Rosenblatt, Principles of Neurodynamics (1962); A. Novikoff, "On convergence
    proofs for perceptrons" (1962).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import Perceptron
    >>> X = np.array([[0.0, 0.0], [1.0, 0.2], [3.0, 3.0], [4.0, 3.5]])
    >>> y = np.array([0, 0, 1, 1])
    >>> clf = Perceptron(random_state=0).fit(X, y)
    >>> clf.converged_, clf.score(X, y)
    (True, 1.0)
    """

    _parameter_constraints: dict = {
        **_OnlineLinearClassifier._parameter_constraints,
        "mode": [StrOptions({"online", "batch"})],
    }

    def __init__(
        self,
        *,
        mode="online",
        fit_intercept=True,
        max_iter=1000,
        shuffle=True,
        random_state=None,
        warm_start=False,
        class_weight=None,
        learning_rate="constant",
        eta0=1.0,
        a=10.0,
        b=1000.0,
        power_t=0.5,
    ):
        self.mode = mode
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.a = a
        self.b = b
        self.power_t = power_t

    def _epoch(self, problem, order):
        if self.mode == "batch":
            mistakes = self._batch_step(problem)
        else:
            mistakes = self._online_epoch(problem, order, _NO_POCKET)
        return self._record_mistakes(mistakes)

    def _batch_step(self, problem):
        X = problem.matrix
        weights = self._weights
        targets = problem.targets()
        scores = X @ weights[:, :-1].T + problem.bias * weights[:, -1]
        wrong = (targets * scores <= 0) & (problem.sample_weight > 0)[:, None]
        pull = np.where(wrong, targets * problem.sample_weight[:, None], 0.0)
        rates = self._schedule(self._updates) * np.any(wrong, axis=0)
        weights[:, :-1] += rates[:, None] * np.asarray(X.T @ pull).T
        weights[:, -1] += rates * problem.bias * pull.sum(axis=0)
        self._updates += np.any(wrong, axis=0)
        return wrong.sum(axis=0)

    def _finish(self, problem, final):
        super()._finish(problem, final)
        if final and not self.converged_:
            remaining = int(np.sum(self._mistakes[-1]))
            warnings.warn(
                f"Perceptron did not converge in max_iter={self.max_iter} epochs: "
                f"the last epoch still made {remaining} mistakes. The data may not "
                "be linearly separable; PocketPerceptron keeps the best weights "
                "for such data.",
                ConvergenceWarning,
                stacklevel=3,
            )


_CHECK_BUDGET = 20_000

# Dummy pocket arguments of the perceptron kernel when there is no pocket.
_NO_POCKET = (
    False,
    np.zeros((3, 1, 1)),
    np.zeros((1, 2)),
    np.zeros((1, 7), dtype=np.int64),
    np.zeros(1, dtype=np.int64),
)


class PocketPerceptron(_PerceptronRule):
    r"""Gallant's pocket algorithm with ratchet: the perceptron for inseparable data.

    The online perceptron runs as in :class:`Perceptron`, and a second set of
    weights, the pocket, keeps the best weights seen: candidate weights replace the
    pocket only when they classify a strictly larger (weighted) number of training
    samples correctly (the ratchet). The fitted ``coef_`` and ``intercept_`` are the
    pocket's.

    Gallant's efficient form decides when to score a candidate: only when its run
    of consecutive correct classifications beats the pocket's (the pocket's run
    being the longest run its weights made). Each score is a pass over the
    training set (stopped early once the candidate cannot win); on 10⁶ noisy
    samples that would be dozens of passes per epoch. So an epoch may scan at most
    2·10⁴ rows for scores at once (on more samples, none); beyond that, the
    candidate with the longest run is kept and scored during the next epoch, in
    the same pass as the perceptron's updates (one more dot product per sample, no
    extra read of X). On small data candidates are scored at once, as Gallant
    does.
    The candidate left at the end of a ``fit`` or ``partial_fit`` and the
    perceptron's final weights are scored with one pass each, so for two classes
    the pocket is never worse on the training data than :class:`Perceptron` run
    with the same parameters. With K > 2 classes that holds for each one-vs-rest
    task, not necessarily for the arg-max rule.

    On separable data the perceptron converges and the pocket ends with zero
    training errors; on inseparable data the pocket's training accuracy never
    decreases from epoch to epoch (``pocket_history_``).

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an intercept.
    max_iter : int, default=100
        Epochs to run unless one makes no mistake (on inseparable data all are run).
    shuffle : bool or "blocks", default=True
        A fresh random order of the samples each epoch; ``"blocks"`` as in
        :class:`Perceptron`.
    random_state : int, RandomState instance or None, default=None
        Seeds the order of the samples.
    warm_start : bool, default=False
        Start ``fit`` from the previous fit's perceptron and pocket weights.
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    learning_rate : str or callable, default="constant"
        ``"constant"``, ``"hyperbolic"``, ``"invscaling"`` or a callable, as in
        :class:`Perceptron`.
    eta0 : float or "auto", default=1.0
        The constant rate and the numerator of ``"invscaling"``.
    a, b : float or "auto", default=10.0, 1000.0
        The hyperbolic rate ``a / (b + t)``.
    power_t : float, default=0.5
        Exponent of ``"invscaling"``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The pocket's weights.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    perceptron_coef_ : ndarray, shape as ``coef_``
        The perceptron's current weights (where training continues from).
    perceptron_intercept_ : ndarray, shape as ``intercept_``
    pocket_score_ : float
        Training accuracy of the pocket (weighted by ``sample_weight``): equal to
        ``score(X, y, sample_weight)`` on the data of the last ``fit`` or
        ``partial_fit``.
    pocket_history_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        The quantity the ratchet maximises (training accuracy weighted by the
        sample and class weights) after each epoch (per one-vs-rest task for
        K > 2); non-decreasing.
    converged_ : bool
        Whether the last epoch made no mistake.
    errors_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        The perceptron's mistakes per epoch.
    n_updates_ : int or ndarray of shape (n_classes,)
    n_iter_ : int
    schedule_ : LearningRateSchedule
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when X has feature names that are all strings.

    See Also
    --------
    Perceptron : The plain perceptron.

    References
    ----------
    S. I. Gallant, "Perceptron-based learning algorithms", IEEE Transactions on
    Neural Networks 1 (1990), 179-191.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import PocketPerceptron
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [1.5]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])  # 1.5 sits among the zeros: inseparable
    >>> clf = PocketPerceptron(random_state=0).fit(X, y)
    >>> round(clf.pocket_score_, 3), clf.score(X, y) == clf.pocket_score_
    (0.833, True)
    """

    _pocket = True

    def __init__(
        self,
        *,
        fit_intercept=True,
        max_iter=100,
        shuffle=True,
        random_state=None,
        warm_start=False,
        class_weight=None,
        learning_rate="constant",
        eta0=1.0,
        a=10.0,
        b=1000.0,
        power_t=0.5,
    ):
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.a = a
        self.b = b
        self.power_t = power_t

    def _previous_weights(self, shape):
        coef = getattr(self, "perceptron_coef_", None)
        if coef is None or coef.shape != shape:
            return None
        return np.column_stack([coef, self.perceptron_intercept_])

    def _start(self, problem, weights):
        super()._start(problem, weights)
        pocket = weights
        if self._warm and getattr(self, "coef_", None) is not None:
            if self.coef_.shape == (weights.shape[0], weights.shape[1] - 1):
                pocket = np.column_stack([self.coef_, self.intercept_])
        self._pocket_weights = np.stack([pocket, weights, weights])
        self._pocket_history = []
        self._open_pocket(problem)

    def _resume(self, problem):
        super()._resume(problem)
        self._open_pocket(problem)

    def _open_pocket(self, problem):
        """Score the pocket on this call's data; no candidate and no runs yet."""
        n_tasks = problem.n_tasks
        self._counts = np.zeros((n_tasks, 2))
        self._counts[:, _kernels.POCKET] = [
            self._correct(problem, self._pocket_weights[0], k) for k in range(n_tasks)
        ]
        self._runs = np.zeros((n_tasks, 7), dtype=np.int64)

    @staticmethod
    def _correct(problem, weights, task):
        return _kernels.weighted_correct(
            problem.rows,
            problem.codes,
            problem.first_class,
            problem.sample_weight,
            problem.bias,
            weights,
            task,
        )

    def _epoch(self, problem, order):
        # Rows an epoch may scan to score candidates at once (Gallant); a check
        # must fit in what is left, so on more than 2·10⁴ rows none is made at
        # once. (With 10⁵, an epoch on 10⁵ rows cost two passes: measured 1.6-2x.)
        budget = np.array([_CHECK_BUDGET], dtype=np.int64)
        pocket_state = (True, self._pocket_weights, self._counts, self._runs, budget)
        mistakes = self._online_epoch(problem, order, pocket_state)
        _kernels.pocket_end_of_epoch(
            self._weights, self._pocket_weights, self._counts, self._runs
        )
        self._pocket_history.append(self._pocket_accuracy(problem))
        return self._record_mistakes(mistakes)

    def _pocket_accuracy(self, problem):
        return self._counts[:, _kernels.POCKET] / problem.sample_weight.sum()

    def _close_pocket(self, problem):
        """Score the candidate left for a next epoch and the perceptron's current
        weights: one pass each, once a call. The pocket is then at least as good as
        the plain perceptron run with the same random state."""
        pocket, candidate, _ = self._pocket_weights
        for k in range(problem.n_tasks):
            finalists = [self._weights[k].copy()]
            if self._runs[k, _kernels.EVALUATING]:
                finalists.append(candidate[k].copy())
            trial = pocket.copy()
            for weights in finalists:
                trial[k] = weights
                correct = self._correct(problem, trial, k)
                if correct > self._counts[k, _kernels.POCKET]:
                    pocket[k] = weights
                    self._counts[k, _kernels.POCKET] = correct
            self._runs[k, _kernels.EVALUATING] = 0
        self._pocket_history[-1] = self._pocket_accuracy(problem)

    def _published_weights(self):
        return self._pocket_weights[0]

    def _finish(self, problem, final):
        self._close_pocket(problem)
        super()._finish(problem, final)
        self.perceptron_coef_ = self._weights[:, :-1].copy()
        self.perceptron_intercept_ = self._weights[:, -1] * problem.bias
        self.pocket_history_ = _history(self._pocket_history, problem.n_tasks)
        self.pocket_score_ = _accuracy(problem, self.coef_, self.intercept_)


def _accuracy(problem, coef, intercept):
    """Training accuracy of a linear rule, weighted by the sample weights alone
    (what ``score(X, y, sample_weight)`` gives)."""
    scores = problem.matrix @ coef.T + intercept
    if scores.shape[1] == 1:
        predicted = (scores[:, 0] > 0).astype(np.intp)
    else:
        predicted = np.argmax(scores, axis=1)
    weights = (
        np.ones(problem.n_samples)
        if problem.score_weight is None
        else problem.score_weight
    )
    return float(np.sum(weights * (predicted == problem.codes)) / np.sum(weights))


class Adaline(_OnlineLinearClassifier):
    r"""Adaline: the Widrow-Hoff least-mean-squares rule, online or in closed form.

    With augmented samples :math:`\tilde x = (x, 1)` and targets :math:`c = \pm 1`,
    the online rule (``solver="online"``) visits the samples in turn and updates

    .. math:: w \leftarrow w + \delta_t\, s\, (c - w^T\tilde x)\, \tilde x,

    a stochastic gradient step on :math:`\sum s\,(c - w^T\tilde x)^2`. With
    :math:`\sum_t \delta_t = \infty` and :math:`\sum_t \delta_t^2 < \infty` (the
    default hyperbolic schedule) it converges to the weighted least-squares solution,
    which ``solver="lstsq"`` computes directly (the minimum-norm solution of
    :math:`\min \sum_i s_i (c_i - w^T\tilde x_i)^2`). The prediction is the sign of
    :math:`w^T\tilde x`; more than two classes are learnt one-vs-rest.

    The default rates are scale-aware: :math:`\delta_0 = 1/\max_i s_i\|\tilde x_i\|^2`,
    the largest rate at which no single update overshoots its sample, kept for
    about ten epochs and then decaying like ``1/epoch`` (``b`` = 10 × the number of
    samples, ``a = b δ₀``). A faster decay (``b`` = the number of samples) left
    ill-conditioned problems far from the least-squares weights after 1000 epochs
    (relative error 0.40 against 0.008 on the example below).

    A rate that makes the loss grow is detected: a residual 10⁴ times larger than
    possible at the start of the epoch, an epoch's mean squared error above 10 per
    task (the zero weights have 1), or above twice both that and the best epoch's.
    The fit then starts again from its initial weights (a ``partial_fit`` call
    from the weights the best epoch started from) with the rate divided by 10,
    with a warning; after 30 reductions it stops with an error. Coefficients are
    never left diverging.

    Parameters
    ----------
    solver : {"online", "lstsq"}, default="online"
        Widrow-Hoff epochs, or the least-squares solution they converge to
        (dense X: LAPACK's least squares on the augmented data; sparse X: the
        pseudo-inverse of the (p+1)² normal matrix).
    fit_intercept : bool, default=True
        Learn an intercept.
    max_iter : int, default=100
        Maximum number of epochs.
    tol : float or None, default=1e-4
        Stop when ``n_iter_no_change`` epochs in a row lower the best mean squared
        error so far by less than ``tol`` times its value (the error of an epoch is
        the running mean of the residuals met during it). ``None`` runs
        ``max_iter`` epochs.
    n_iter_no_change : int, default=5
        Epochs without sufficient improvement before stopping.
    shuffle : bool or "blocks", default=True
        A fresh random order of the samples each epoch; ``"blocks"`` as in
        :class:`Perceptron`.
    random_state : int, RandomState instance or None, default=None
        Seeds the order of the samples.
    warm_start : bool, default=False
        Start ``fit`` from the previous weights (online solver only).
    class_weight : dict, "balanced" or None, default=None
        Weights multiplying the sample weights of each class.
    learning_rate : str or callable, default="hyperbolic"
        ``"constant"``, ``"hyperbolic"``, ``"invscaling"`` or a callable:
        :math:`\delta_t` of the ``t``-th sample (from 0), as in :class:`Perceptron`.
    eta0 : float or "auto", default="auto"
        Rate of ``"constant"`` and numerator of ``"invscaling"``.
    a, b : float or "auto", default="auto", "auto"
        The hyperbolic rate ``a / (b + t)``.
    power_t : float, default=0.75
        Exponent of ``"invscaling"`` (above 1/2 for convergence).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    loss_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        Weighted mean squared error of each epoch (the residuals met before each
        update; for ``"lstsq"`` the single final value).
    converged_ : bool
        Whether the ``tol`` criterion was met (always True for ``"lstsq"``).
    n_updates_ : int or ndarray of shape (n_classes,)
        Samples (updates) processed since the start of the fit.
    n_iter_ : int
        Epochs run (1 for ``"lstsq"``).
    schedule_ : LearningRateSchedule
        The resolved schedule, ``scale`` included.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Defined only when X has feature names that are all strings.

    See Also
    --------
    sklearn.linear_model.SGDClassifier : ``loss="squared_error"`` is a similar rule.
    sklearn.linear_model.RidgeClassifier : The regularised least-squares classifier.

    References
    ----------
    B. Widrow, M. E. Hoff, "Adaptive switching circuits", IRE WESCON Convention
    Record 4 (1960), 96-104.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import Adaline
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [3.0, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1])
    >>> exact = Adaline(solver="lstsq").fit(X, y)
    >>> online = Adaline(tol=None, max_iter=1000, random_state=0).fit(X, y)
    >>> bool(np.allclose(online.coef_, exact.coef_, atol=0.05))
    True
    """

    _parameter_constraints: dict = {
        **_OnlineLinearClassifier._parameter_constraints,
        "solver": [StrOptions({"online", "lstsq"})],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left")],
    }

    _max_rate_reductions = 30

    def _check_scale(self, problem):
        if self.solver == "online":  # the least-squares solvers scale for themselves
            super()._check_scale(problem)

    def _permutes_rows(self):
        return self.solver == "online" and super()._permutes_rows()

    def __init__(
        self,
        *,
        solver="online",
        fit_intercept=True,
        max_iter=100,
        tol=1e-4,
        n_iter_no_change=5,
        shuffle=True,
        random_state=None,
        warm_start=False,
        class_weight=None,
        learning_rate="hyperbolic",
        eta0="auto",
        a="auto",
        b="auto",
        power_t=0.75,
    ):
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.random_state = random_state
        self.warm_start = warm_start
        self.class_weight = class_weight
        self.learning_rate = learning_rate
        self.eta0 = eta0
        self.a = a
        self.b = b
        self.power_t = power_t

    def _start(self, problem, weights):
        super()._start(problem, weights)
        self._losses = []
        self._best_loss, self._stalled = np.inf, 0
        self._best_weights = None
        self._reductions = 0
        self._norm_bound = np.sqrt(problem.max_squared_norm())
        self.converged_ = False

    def _train(self, problem, n_epochs, random_state):
        if self.solver == "lstsq":
            self._weights = _weighted_lstsq(problem)
            self._updates[:] = 0
            self._losses = [_mean_squared_error(problem, self._weights)]
            self.n_iter_, self.converged_ = 1, True
            return
        reductions = self._reductions
        weights, updates = self._weights.copy(), self._updates.copy()
        n_losses, n_iter = len(self._losses), self.n_iter_
        best_loss, stalled = self._best_loss, self._stalled
        while True:
            self._best_loss, self._stalled = best_loss, stalled
            try:
                super()._train(problem, n_epochs, random_state)
                break
            except _Diverged as diverged:
                # Start the call again at a tenth the rate: a fit from its initial
                # weights, a partial_fit from the weights the best epoch so far
                # started from (the earlier calls may have drifted already).
                if self._streaming and self._best_weights is not None:
                    weights = self._best_weights
                self._weights, self._updates = weights.copy(), updates.copy()
                del self._losses[n_losses:]
                self.n_iter_ = n_iter
                self._reduce_rate(diverged.loss)
        if self._reductions > reductions:
            warnings.warn(
                f"Adaline's loss diverged at the requested learning rate; the rate "
                f"was divided by {10.0**self._reductions:g}. Scaling the features "
                "(e.g. StandardScaler) or eta0='auto' avoids this.",
                ConvergenceWarning,
                stacklevel=3,
            )

    def _epoch(self, problem, order):
        start = self._weights.copy()
        limit = 1e4 * (1.0 + np.max(np.linalg.norm(start, axis=1)) * self._norm_bound)
        n_updates = int(np.count_nonzero(problem.sample_weight))
        t_first = int(self._updates[0])
        schedule = self._kernel_schedule([t_first], n_updates)
        loss = np.zeros(problem.n_tasks)
        stable = _kernels.lms_epoch(
            problem.rows,
            problem.codes,
            problem.first_class,
            problem.sample_weight,
            order,
            problem.bias,
            self._weights,
            *schedule,
            t_first,
            limit,
            loss,
        )
        loss /= problem.sample_weight.sum()
        if not stable:
            raise _Diverged(np.inf)
        if self._loss_grew(loss):
            raise _Diverged(float(np.sum(loss)))
        self._updates += n_updates
        self._losses.append(loss)
        total = float(np.sum(loss))
        improved = total < self._best_loss * (1.0 - (self.tol or 0.0))
        self._stalled = 0 if improved else self._stalled + 1
        if total < self._best_loss:
            # The running loss was measured from these weights on: a restart point.
            self._best_loss, self._best_weights = total, start
        if self.tol is None:
            return False
        self.converged_ = self._stalled >= self.n_iter_no_change
        return self.converged_

    def _loss_grew(self, loss):
        """Whether the epoch's loss shows a diverging rate.

        The zero weights have a loss of 1 per task (the targets are ±1). A loss
        above 10 per task, or above twice both the best epoch's loss since the fit
        (or the first partial_fit) and the zero weights' loss, is taken for
        divergence: a stable rate comes near neither.
        """
        total = float(np.sum(loss))
        if not np.isfinite(total):
            return True
        zero_weights = float(len(loss))
        if total > 10.0 * zero_weights:
            return True
        return total > 2.0 * max(self._best_loss, zero_weights)

    def _reduce_rate(self, loss):
        self._reductions += 1
        if self._reductions > self._max_rate_reductions:
            raise ValueError(
                "Adaline diverged even after dividing the learning rate by "
                f"1e{self._max_rate_reductions} (last mean squared error {loss:.3g} "
                "per call, against 1 per class for zero weights): the features are "
                "too badly scaled for the online rule, or earlier partial_fit calls "
                "had diverged already. Scale X or use solver='lstsq'."
            )
        self._schedule = replace(self._schedule, scale=self._schedule.scale / 10.0)

    def _finish(self, problem, final):
        super()._finish(problem, final)
        self.loss_ = _history(self._losses, problem.n_tasks)
        if final and self.solver == "online" and self.tol is not None:
            if not self.converged_:
                warnings.warn(
                    f"Adaline did not reach tol={self.tol:g} in max_iter="
                    f"{self.max_iter} epochs; increase max_iter or use "
                    "solver='lstsq' for the exact least-squares weights.",
                    ConvergenceWarning,
                    stacklevel=3,
                )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # Measured: on check_class_weight_classifiers' unscaled blobs (feature scale
        # 20, class weights 1000 : 0.0001) the stable rate 1/max s‖x̃‖² moves the
        # intercept only to -0.26 (least squares: -1.0) in the check's 1000
        # epochs, so the online rule predicts the heavy class for 78% of the test
        # set with 2 classes (94% with 3), not > 87%. Its limit, solver="lstsq",
        # predicts it for 100% and is not marked. This is the only check the tag
        # relaxes that the online rule fails.
        tags.classifier_tags.poor_score = self.solver == "online"
        return tags

    @available_if(lambda self: self.solver == "online")
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run one Widrow-Hoff epoch on a batch, continuing from the current state.

        Only with ``solver="online"``. dask-ml's ``Incremental`` wrapper calls it
        once per block of a dask array.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class of the whole stream; required on the first call only.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
            The updated estimator.
        """
        return super().partial_fit(X, y, classes=classes, sample_weight=sample_weight)


class _Diverged(Exception):
    """Adaline's loss grew: the call starts again at a lower rate."""

    def __init__(self, loss):
        super().__init__(loss)
        self.loss = loss


def _weighted_lstsq(problem):
    """Minimum-norm ``W`` of ``min Σ_i s_i (c_i - W x̃_i)²`` for all tasks at once."""
    root = np.sqrt(problem.sample_weight)
    targets = problem.targets() * root[:, None]
    if sp.issparse(problem.matrix):
        scaled = sp.hstack(
            [
                sp.diags(root) @ problem.matrix,
                sp.csr_matrix(root[:, None] * problem.bias),
            ]
        ).tocsr()
        gram = np.asarray((scaled.T @ scaled).todense(), dtype=np.float64)
        return _normal_equations(gram, np.asarray(scaled.T @ targets)).T
    augmented = np.empty((problem.n_samples, problem.matrix.shape[1] + 1))
    augmented[:, :-1] = problem.matrix
    augmented[:, -1] = problem.bias
    augmented *= root[:, None]
    # numpy's cut-off (rcond=None): singular values below eps·max(n, p + 1) of the
    # largest are zero. scipy's default (eps alone) kept a rank-10 X's rounding as
    # rank and returned ‖w‖ ≈ 1e13 instead of the minimum-norm answer.
    cutoff = np.finfo(np.float64).eps * max(augmented.shape)
    solution = scipy.linalg.lstsq(
        augmented, targets, cond=cutoff, overwrite_a=True, check_finite=False
    )[0]
    return solution.T


def _normal_equations(gram, rhs):
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
    eigenvalues, eigenvectors = scipy.linalg.eigh(equilibrated)
    cutoff = eigenvalues[-1] * len(diagonal) * np.finfo(float).eps * 16
    if np.all(used) and eigenvalues[0] > cutoff:
        inner = eigenvectors @ (
            (eigenvectors.T @ (inverse_root[:, None] * rhs)) / eigenvalues[:, None]
        )
        return inverse_root[:, None] * inner
    return scipy.linalg.pinvh(gram) @ rhs


def _mean_squared_error(problem, weights):
    scores = problem.matrix @ weights[:, :-1].T + problem.bias * weights[:, -1]
    residuals = problem.targets() - scores
    weighted = problem.sample_weight[:, None] * residuals**2
    return weighted.sum(axis=0) / problem.sample_weight.sum()
