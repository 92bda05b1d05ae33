"""The perceptron family: Rosenblatt's perceptron, Gallant's pocket and Widrow-Hoff.

The three learners share one base (``_base``): validation, the one-vs-rest targets,
learning-rate schedules (``_schedule``), weight initialisation, ``fit`` /
``partial_fit`` and the epoch loop. They differ in the update rule of an epoch,
which runs in a compiled kernel of ``sklearn_linsep._kernels`` on plain arrays, and
in the state they carry between epochs (``_state``).

A learner keeps one weight row per one-vs-rest task in ``weights`` of shape
``(n_tasks, n_features + 1)``; the last column multiplies the constant ``bias`` of the
augmented sample ``x̃ = (x, bias)`` (1 with an intercept, 0 without). Two classes are
a single task whose positive class is ``classes_[1]``.
"""

from ._adaline import Adaline
from ._perceptron import Perceptron, PocketPerceptron
from ._schedule import LearningRateSchedule

__all__ = ["Adaline", "LearningRateSchedule", "Perceptron", "PocketPerceptron"]
