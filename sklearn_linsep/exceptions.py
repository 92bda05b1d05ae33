"""Warnings and errors: data that no hyperplane separates, and answers that float
precision cannot decide."""


class NotLinearlySeparableWarning(UserWarning):
    """The data are not linearly separable; the estimator fitted its fallback.

    :class:`~sklearn_linsep.HardMarginSVM` with ``on_inseparable="warn"`` emits it
    when it fits the limit C → ∞ of the soft margin instead of the hard margin
    (the default ``"soft"`` fits the same quietly: ``separable_`` says it).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_linsep import HardMarginSVM, NotLinearlySeparableWarning
    >>> X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 1, 0, 1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = HardMarginSVM(on_inseparable="warn").fit(X, y)
    >>> any(issubclass(w.category, NotLinearlySeparableWarning) for w in caught)
    True
    """


class NotLinearlySeparableError(ValueError):
    """The data are not linearly separable, and the method needs them to be.

    Parameters
    ----------
    message : str
    certificate : SeparabilityResult, default=None
        The proof: points of each class whose convex hulls share ``common_point``.

    Attributes
    ----------
    certificate : SeparabilityResult or None

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import HardMarginSVM, NotLinearlySeparableError
    >>> X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 1, 0, 1])
    >>> try:
    ...     HardMarginSVM(on_inseparable="raise").fit(X, y)
    ... except NotLinearlySeparableError as error:
    ...     print(error.certificate.verify(X, y))
    True
    """

    def __init__(self, message, certificate=None):
        super().__init__(message)
        self.certificate = certificate


class SolverError(RuntimeError):
    """The exact core could not certify an answer in float64.

    Raised instead of returning a hyperplane or a certificate that does not verify:
    when the two classes come within rounding of touching (near-duplicate rows with
    different labels), when a solver stops without an answer, or when the
    optimality conditions fail on the data. The message says which, and what to
    try (standardise the features, remove near-duplicates, or loosen ``tol``).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_linsep import SolverError, linear_separability
    >>> X = np.array([[0.0], [1.0], [1.0 + 1e-9], [2.0]])  # apart by 1e-9: decided
    >>> linear_separability(X, [0, 0, 1, 1]).separable
    True
    >>> issubclass(SolverError, RuntimeError)
    True
    """
