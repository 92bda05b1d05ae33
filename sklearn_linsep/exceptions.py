"""Warnings and errors for data that no hyperplane separates."""


class NotLinearlySeparableWarning(UserWarning):
    """The data are not linearly separable; the estimator fitted its fallback.

    :class:`~sklearn_linsep.HardMarginSVM` with ``on_inseparable="soft"`` emits it
    when it fits the limit C → ∞ of the soft margin instead of the hard margin.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn_linsep import HardMarginSVM, NotLinearlySeparableWarning
    >>> X, y = np.array([[0.0], [1.0], [2.0], [3.0]]), np.array([0, 1, 0, 1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = HardMarginSVM().fit(X, y)
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
