"""Adaline: the Widrow-Hoff least-mean-squares rule."""

import warnings
from dataclasses import replace

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.metaestimators import available_if

from .. import _kernels
from .._lstsq import weighted_lstsq
from ._base import _OnlineLinearClassifier
from ._state import AdalineTraining


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
        error so far by less than ``tol`` (scikit-learn's rule; the error of an
        epoch is the running mean of the squared residuals met during it, summed
        over the one-vs-rest tasks). ``None`` runs ``max_iter`` epochs.
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
    verbose : int, default=0
        Print each epoch's loss, the rate's scale and the time on stderr.

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
    }

    _state_class = AdalineTraining
    _max_rate_reductions = 30

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
        verbose=0,
    ):
        self._set_parameters(locals())

    def _check_scale(self, problem):
        if self.solver == "online":  # the least-squares solvers scale for themselves
            super()._check_scale(problem)

    def _permutes_rows(self):
        return self.solver == "online" and super()._permutes_rows()

    def _new_training(self, problem, weights, random, previous):
        training = super()._new_training(problem, weights, random, previous)
        training.norm_bound = np.sqrt(problem.max_squared_norm())
        return training

    def _train(self, problem, n_epochs):
        training = self._training
        if self.solver == "lstsq":
            training.weights = weighted_lstsq(
                problem.matrix, problem.targets(), problem.sample_weight, problem.bias
            )
            training.updates[:] = 0
            training.losses = [_mean_squared_error(problem, training.weights)]
            training.n_iter, training.converged = 1, True
            return
        reductions = training.reductions
        weights, updates = training.weights.copy(), training.updates.copy()
        n_losses, n_iter = len(training.losses), training.n_iter
        best_loss, stalled = training.best_loss, training.stalled
        while True:
            training.best_loss, training.stalled = best_loss, stalled
            try:
                super()._train(problem, n_epochs)
                break
            except _Diverged as diverged:
                # Start the call again at a tenth the rate: a fit from its initial
                # weights, a partial_fit from the weights the best epoch so far
                # started from (the earlier calls may have drifted already).
                if training.streaming and training.best_weights is not None:
                    weights = training.best_weights
                training.weights, training.updates = weights.copy(), updates.copy()
                del training.losses[n_losses:]
                training.n_iter = n_iter
                self._reduce_rate(diverged.loss)
        if training.reductions > reductions:
            warnings.warn(
                f"Adaline's loss diverged at the requested learning rate; the rate "
                f"was divided by {10.0**training.reductions:g}. Scaling the features "
                "(e.g. StandardScaler) or eta0='auto' avoids this.",
                ConvergenceWarning,
                stacklevel=3,
            )

    def _epoch(self, problem, order):
        training = self._training
        start = training.weights.copy()
        largest = np.max(np.linalg.norm(start, axis=1))
        limit = 1e4 * (1.0 + largest * training.norm_bound)
        n_updates = problem.n_active
        t_first = int(training.updates[0])
        loss = np.zeros(problem.n_tasks)
        stable = _kernels.lms_epoch(
            problem.samples,
            order,
            training.kernel_weights(),
            training.schedule.rates([t_first], n_updates),
            t_first,
            limit,
            loss,
        )
        loss /= problem.total_weight
        if not stable:
            raise _Diverged(np.inf)
        if self._loss_grew(loss):
            raise _Diverged(float(np.sum(loss)))
        training.updates += n_updates
        if float(np.sum(loss)) < training.best_loss:
            # The running loss was measured from these weights on: a restart point.
            training.best_weights = start
        return loss

    def _epoch_summary(self):
        return f"rate scale {self._training.schedule.scale:g}"

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
        return total > 2.0 * max(self._training.best_loss, zero_weights)

    def _reduce_rate(self, loss):
        training = self._training
        training.reductions += 1
        if training.reductions > self._max_rate_reductions:
            raise ValueError(
                "Adaline diverged even after dividing the learning rate by "
                f"1e{self._max_rate_reductions} (last mean squared error {loss:.3g} "
                "per call, against 1 per class for zero weights): the features are "
                "too badly scaled for the online rule, or earlier partial_fit calls "
                "had diverged already. Scale X or use solver='lstsq'."
            )
        schedule = training.schedule
        training.schedule = replace(schedule, scale=schedule.scale / 10.0)

    def _finish(self, problem, final):
        super()._finish(problem, final)
        self.converged_ = bool(self._training.converged or self._training.tol_reached)
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


def _mean_squared_error(problem, weights):
    residuals = problem.targets() - problem.scores(weights)
    weighted = problem.sample_weight[:, None] * residuals**2
    return weighted.sum(axis=0) / problem.total_weight
