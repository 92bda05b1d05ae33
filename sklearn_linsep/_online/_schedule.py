"""Learning-rate schedules: the estimators' parameters resolved into rates."""

from dataclasses import dataclass

import numpy as np

from .._kernels import (
    RATE_CONSTANT,
    RATE_HYPERBOLIC,
    RATE_INVSCALING,
    RATE_TABLE,
    Rates,
)

_KIND_CODES = {
    "constant": RATE_CONSTANT,
    "hyperbolic": RATE_HYPERBOLIC,
    "invscaling": RATE_INVSCALING,
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

    def rates(self, starts, length):
        """The kernels' :class:`~sklearn_linsep._kernels.Rates` for a call in which
        task r makes at most ``length`` updates from update ``starts[r]``; a callable
        is tabulated over those ranges only.

        Parameters
        ----------
        starts : array-like of int of shape (n_tasks,)
            The number of updates each task has made so far.
        length : int
            The most updates any task makes in the kernel's call.
        """
        starts = np.array(starts, dtype=np.int64, ndmin=1)  # a copy: updates move
        if self.kind == "callable":
            kind = RATE_TABLE
            table = _call_schedule(
                self.function, starts[:, None] + np.arange(length + 1)
            )
        else:
            kind, table = _KIND_CODES[self.kind], np.zeros((1, 1))
        return Rates(
            kind,
            float(self.eta0),
            float(self.a),
            float(self.b),
            float(self.power_t),
            float(self.scale),
            table,
            starts,
        )


def _call_schedule(function, t):
    """``function`` over the update counts ``t``: one call on the array when it
    accepts one, else one call per count; rates must be finite and positive."""
    t_int = np.asarray(t).astype(np.int64)
    try:
        rates = np.asarray(function(t_int), dtype=np.float64)
        if rates.shape != t_int.shape:
            raise TypeError
    except (TypeError, ValueError):
        rates = [np.asarray(function(int(step))) for step in t_int.ravel()]
        wrong = next((rate for rate in rates if rate.shape != ()), None)
        if wrong is not None:
            raise ValueError(
                "The learning_rate callable must return one rate per update count "
                f"(a number for a count, an array like the counts' for an array); "
                f"for one count it returned shape {wrong.shape}."
            ) from None
        rates = np.array(rates, dtype=np.float64).reshape(t_int.shape)
    if not np.all(np.isfinite(rates) & (rates > 0)):
        raise ValueError(
            "The learning_rate callable must return finite positive rates; it "
            f"returned {rates[~(np.isfinite(rates) & (rates > 0))][:3].tolist()}."
        )
    return rates


def resolve_schedule(estimator, problem):
    """The :class:`LearningRateSchedule` of ``estimator``'s parameters on ``problem``.

    ``eta0="auto"`` is ``1 / max_i s_i ‖x̃_i‖²``, the largest rate at which no single
    update overshoots its sample; ``b="auto"`` is ten times the number of samples of
    positive weight and ``a="auto"`` is ``b`` times the automatic ``eta0``.
    """
    auto_rate = None
    if "auto" in (estimator.eta0, estimator.a, estimator.b):
        auto_rate = 1.0 / max(problem.max_squared_norm(), np.finfo(float).tiny)
    b = 10.0 * problem.n_active if estimator.b == "auto" else estimator.b
    eta0 = auto_rate if estimator.eta0 == "auto" else estimator.eta0
    a = b * auto_rate if estimator.a == "auto" else estimator.a
    if callable(estimator.learning_rate):
        return LearningRateSchedule(
            "callable", eta0, a, b, estimator.power_t, estimator.learning_rate
        )
    return LearningRateSchedule(estimator.learning_rate, eta0, a, b, estimator.power_t)
