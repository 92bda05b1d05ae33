"""Rosenblatt's perceptron and Gallant's pocket with ratchet."""

import warnings
from numbers import Integral

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from .. import _kernels
from ._base import _OnlineLinearClassifier, history
from ._state import PerceptronTraining, averaging_start, open_pocket, start_average

# Rows an epoch may scan to score pocket candidates at once (Gallant); a check must
# fit in what is left, so on more than 2·10⁴ rows none is made at once. (With 10⁵,
# an epoch on 10⁵ rows cost two passes: measured 1.6-2x.)
_CHECK_BUDGET = 20_000


class _PerceptronRule(_OnlineLinearClassifier):
    """The perceptron's mistake-driven epoch, with or without Gallant's pocket, and
    with or without averaging."""

    _state_class = PerceptronTraining

    _parameter_constraints: dict = {
        **_OnlineLinearClassifier._parameter_constraints,
        "average": ["boolean", Interval(Integral, 0, None, closed="left")],
    }

    def _new_training(self, problem, weights, random, previous):
        training = super()._new_training(problem, weights, random, previous)
        training.average = start_average(weights, self.average)
        return training

    def _online_epoch(self, problem, order, pocket=None):
        """One pass; ``(mistakes, loss)`` per task, the loss being the perceptron
        criterion summed over the mistakes."""
        training = self._training
        mistakes = np.zeros(problem.n_tasks, dtype=np.int64)
        loss = np.zeros(problem.n_tasks)
        _kernels.perceptron_epoch(
            problem.samples,
            order,
            training.kernel_weights(),
            training.schedule.rates(training.updates, problem.n_samples),
            training.updates,
            mistakes,
            loss,
            pocket,
            training.average,
            training.strict,
        )
        return mistakes, loss

    def _stops_when_converged(self):
        return averaging_start(self.average) is None

    def _record_mistakes(self, mistakes, problem):
        training = self._training
        if not np.any(mistakes):
            mistakes = self._doubtful_rows(problem)
        training.mistakes.append(mistakes)
        training.converged = not np.any(mistakes)

    def _doubtful_rows(self, problem):
        """Per task, the rows of an epoch without mistakes whose class ``predict``
        may not give (:meth:`Problem.doubtful`), counted as the epoch's mistakes, so
        that ``converged_`` means ``predict`` is right on every row. Where there
        are some, the epochs go on strict (the kernel counts a score within its
        rounding of 0 a mistake); strict epochs have bounded the rounding already,
        and leave to check only ``predict``'s own evaluation (float32's range)."""
        training = self._training
        doubtful = problem.doubtful(training.weights, not training.strict)
        counts = doubtful.sum(axis=0)
        training.strict = bool(np.any(counts))
        return counts

    def _epoch_summary(self):
        return f"mistakes {int(np.sum(self._training.mistakes[-1]))}"

    def _finish(self, problem, final):
        super()._finish(problem, final)
        errors = history(self._training.mistakes, problem.n_tasks)
        self.errors_ = errors.astype(np.int64)


class Perceptron(_PerceptronRule):
    r"""Rosenblatt's perceptron, online or batch, on compiled epochs.

    Each sample is augmented to :math:`\tilde x = (x, 1)` (``(x, 0)`` without an
    intercept) and labelled :math:`c = \pm 1`. In ``mode="online"`` the samples are
    visited in turn and a mistake :math:`c\, w^T\tilde x \le 0` updates

    .. math:: w \leftarrow w + \eta_t\, s\, c\, \tilde x,

    with :math:`s` the sample's weight and :math:`t` the number of updates made so
    far. An epoch without mistakes is checked in ``predict``'s own arithmetic (X's
    dtype, any order of summation): where a score's sign is within its rounding of
    0, that row counts a mistake, and the epochs go on counting such scores
    mistakes. In ``mode="batch"`` an epoch is one gradient step on the perceptron
    criterion :math:`J(w) = -\sum_{\text{mistakes}} s\, c\, w^T\tilde x`, i.e.
    :math:`w \leftarrow w + \eta_t \sum_{\text{mistakes}} s\, c\, \tilde x`.

    Fitting stops after the first epoch with no mistake (``converged_``; with
    ``average`` it goes on, the mean moving toward the final weights). On
    linearly separable data that epoch always comes: with :math:`w_0 = 0` and a
    constant rate the online rule makes at most :math:`(\tilde R/\tilde\gamma)^2`
    updates (Novikoff), :math:`\tilde R = \max\|\tilde x\|` and :math:`\tilde\gamma`
    the margin of the best separator through the origin of the augmented space.
    By default it also stops once the epoch loss stalls (``tol``, scikit-learn's
    rule), so that inseparable data cost a few epochs rather than ``max_iter``
    (``converged_`` is then False); a fit that reaches ``max_iter`` without an
    epoch free of mistakes says so with a ``ConvergenceWarning``, as
    scikit-learn's does.
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
    tol : float or None, default=1e-3
        Also stop when ``n_iter_no_change`` epochs in a row lower the best epoch
        loss so far by less than ``tol``, as scikit-learn's ``Perceptron`` does
        (with the same default). The loss of an epoch is the perceptron criterion
        :math:`\sum s\,\max(0, -c\,w^T\tilde x)` met before each update, divided
        by the total sample weight (summed over the one-vs-rest tasks; in batch
        mode, the criterion of the weights the step made). A fit this rule stops
        before an epoch without mistakes ends with a ``ConvergenceWarning``: on
        inseparable data that is the point, but separable data with a small
        margin can stall too. ``None`` stops only at an epoch without mistakes
        (which comes on separable data, Novikoff) or at ``max_iter``; for the
        verdict itself, :func:`linear_separability` decides exactly.
    n_iter_no_change : int, default=5
        Epochs without sufficient improvement before stopping (with ``tol``).
    average : bool or int, default=False
        Publish the averaged perceptron (Freund & Schapire): ``coef_`` and
        ``intercept_`` are the mean of the weights after every sample visited
        (of positive weight), from the first (``True``) or from the
        ``average``-th sample on, as ``SGDClassifier(average=...)`` computes it:
        equal to its weights for two classes, and for more without
        ``class_weight`` (its one-vs-rest weighs a task's other classes by 1,
        ours by their own class weights). An epoch without mistakes does not stop
        training then: the mean keeps moving toward the final weights. Online
        mode only. Averaging costs one more vector update per mistake.
    verbose : int, default=0
        Print each epoch's loss, mistakes and time on stderr.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights, or with ``average`` their mean.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    converged_ : bool
        Whether the last epoch made no mistake: then ``predict`` gives every
        training row of positive weight its class (with ``average``, the weights
        of that epoch do; ``coef_`` is their mean).
    errors_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        Mistakes per epoch, per one-vs-rest task for K > 2: the updates, and in
        an epoch that made none, the rows whose sign was within its rounding.
    loss_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        The loss ``tol`` watches, per epoch (per one-vs-rest task for K > 2).
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
    proofs for perceptrons" (1962); Y. Freund, R. E. Schapire, "Large margin
    classification using the perceptron algorithm", Machine Learning 37 (1999),
    277-296 (the averaged perceptron).

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
        **_PerceptronRule._parameter_constraints,
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
        tol=1e-3,
        n_iter_no_change=5,
        average=False,
        verbose=0,
    ):
        self._set_parameters(locals())

    def _new_training(self, problem, weights, random, previous):
        if self.mode == "batch" and averaging_start(self.average) is not None:
            raise ValueError(
                "average needs mode='online': it is the mean of the weights after "
                "each sample, and a batch step visits them all at once."
            )
        return super()._new_training(problem, weights, random, previous)

    def _epoch(self, problem, order):
        if self.mode == "batch":
            mistakes, loss = self._batch_step(problem)
        else:
            mistakes, loss = self._online_epoch(problem, order)
        self._record_mistakes(mistakes, problem)
        return loss / problem.total_weight

    def _published_weights(self):
        return self._training.averaged_weights()

    def _batch_step(self, problem):
        training = self._training
        weights = training.weights
        targets = problem.targets()
        margins = targets * problem.scores(weights)
        slack = problem.score_slack(weights) if training.strict else 0.0
        wrong = ~(margins > slack) & (problem.sample_weight > 0)[:, None]
        pull = np.where(wrong, targets * problem.sample_weight[:, None], 0.0)
        stepped = np.any(wrong, axis=0)
        rates = training.schedule(training.updates) * stepped
        weights[:, :-1] += rates[:, None] * np.asarray(problem.matrix.T @ pull).T
        weights[:, -1] += rates * problem.bias * pull.sum(axis=0)
        training.updates += stepped
        return wrong.sum(axis=0), self._criterion(problem, weights)

    @staticmethod
    def _criterion(problem, weights):
        """The perceptron criterion ``Σ s max(0, -c w·x̃)`` per task at ``weights``:
        batch mode's epoch loss, taken after its step (before it, the first step's
        zero weights would score a criterion of 0 that no later epoch beats)."""
        margins = problem.targets() * problem.scores(weights)
        return -np.sum(
            problem.sample_weight[:, None] * np.minimum(margins, 0.0), axis=0
        )

    def _finish(self, problem, final):
        super()._finish(problem, final)
        # As scikit-learn's: only max_iter warns. A stop by tol is the rule
        # working on inseparable data (converged_ is False, loss_ shows it).
        if final and not self.converged_ and not self._training.tol_reached:
            warnings.warn(
                self._not_converged_message(), ConvergenceWarning, stacklevel=3
            )

    def _not_converged_message(self):
        training = self._training
        mistakes = training.mistakes
        per_epoch = np.sum(np.reshape(mistakes, (len(mistakes), -1)), axis=1)
        best = int(np.argmin(per_epoch))
        return (
            f"Perceptron did not converge in max_iter={self.max_iter} epochs, and "
            f"no epoch was free of mistakes (the best, epoch "
            f"{best + 1}, made {int(per_epoch[best])}). The data may not be linearly "
            "separable: linear_separability(X, y) decides it exactly. "
            "PocketPerceptron keeps the best weights for inseparable data; tol=None "
            "runs until an epoch without mistakes, which comes on separable data."
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
    tol : float or None, default=None
        Also stop when ``n_iter_no_change`` epochs in a row lower the pocket's
        weighted training error rate (summed over the one-vs-rest tasks) by less
        than ``tol``. ``None`` stops only at an epoch without mistakes or at
        ``max_iter``.
    n_iter_no_change : int, default=5
        Epochs without sufficient improvement before stopping (with ``tol``).
    average : bool or int, default=False
        Average the perceptron's weights as :class:`Perceptron` does; their mean
        is one more finalist the pocket scores at the end of each call.
    verbose : int, default=0
        Print each epoch's pocket error, mistakes, pocket accuracy and time on
        stderr.

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
        Whether the last epoch made no mistake: then the pocket is those weights,
        and ``predict`` gives every training row of positive weight its class.
    errors_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        The perceptron's mistakes per epoch (as :class:`Perceptron`'s).
    loss_ : ndarray of shape (n_epochs,) or (n_epochs, n_classes)
        The pocket's weighted error rate after each epoch, ``1 - pocket_history_``.
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
        tol=None,
        n_iter_no_change=5,
        average=False,
        verbose=0,
    ):
        self._set_parameters(locals())

    def _new_training(self, problem, weights, random, previous):
        training = super()._new_training(problem, weights, random, previous)
        pocket = weights.copy()
        if previous is not None and previous.pocket.weights.shape == weights.shape:
            pocket = previous.pocket.weights.copy()  # a warm start keeps its pocket
        training.pocket = self._open_pocket(problem, pocket)
        return training

    def _resume(self, problem):
        super()._resume(problem)
        self._training.pocket = self._open_pocket(
            problem, self._training.pocket.weights
        )

    @staticmethod
    def _open_pocket(problem, pocket_weights):
        """The pocket ``pocket_weights`` scored on this call's data."""
        samples = problem.samples
        correct = [
            _kernels.weighted_correct(samples, pocket_weights, k)
            for k in range(problem.n_tasks)
        ]
        return open_pocket(pocket_weights, correct)

    def _epoch(self, problem, order):
        training = self._training
        training.pocket.budget[0] = _CHECK_BUDGET
        mistakes, _ = self._online_epoch(problem, order, training.pocket)
        _kernels.pocket_end_of_epoch(training.kernel_weights(), training.pocket)
        accuracy = self._pocket_accuracy(problem)
        training.pocket_history.append(accuracy)
        self._record_mistakes(mistakes, problem)
        return 1.0 - accuracy  # the pocket's weighted error rate

    def _epoch_summary(self):
        accuracy = self._training.pocket_history[-1]
        return f"{super()._epoch_summary()}, pocket accuracy {np.mean(accuracy):.6g}"

    def _pocket_accuracy(self, problem):
        return self._training.pocket.correct / problem.total_weight

    def _close_pocket(self, problem):
        """Score the candidate left for a next epoch, the perceptron's current
        weights and, with ``average``, their mean: one pass each, once a call. The
        pocket is then at least as good as the plain (or averaged) perceptron run
        with the same random state."""
        training = self._training
        pocket = training.pocket
        samples = problem.samples
        averaged = training.averaged_weights()
        for k in range(problem.n_tasks):
            finalists = [training.weights[k].copy()]
            if training.average is not None:
                finalists.append(averaged[k].copy())
            if pocket.evaluating[k]:
                finalists.append(pocket.candidate[k].copy())
            trial = pocket.weights.copy()
            for weights in finalists:
                trial[k] = weights
                correct = _kernels.weighted_correct(samples, trial, k)
                # Converged weights win a tie: their every sign is beyond rounding
                # (Problem.doubtful), where the pocket's may be a rounding's luck.
                tied = training.converged and weights is finalists[0]
                if correct > pocket.correct[k] or tied:
                    pocket.weights[k] = weights
                    pocket.correct[k] = correct
            pocket.evaluating[k] = 0
        training.pocket_history[-1] = self._pocket_accuracy(problem)
        training.losses[-1] = 1.0 - training.pocket_history[-1]

    def _published_weights(self):
        return self._training.pocket.weights

    def _finish(self, problem, final):
        self._close_pocket(problem)
        super()._finish(problem, final)
        training = self._training
        self.perceptron_coef_, self.perceptron_intercept_ = problem.published(
            training.weights
        )
        self.pocket_history_ = history(training.pocket_history, problem.n_tasks)
        self.pocket_score_ = problem.accuracy(self.coef_, self.intercept_)
