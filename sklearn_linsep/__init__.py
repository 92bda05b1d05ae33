"""sklearn-linsep: linear separability for scikit-learn.

Decide whether two classes can be split by a hyperplane, measure how well, and find the
hyperplane.
"""

from ._certificates import (
    cover_separability_probability,
    linear_separability,
    perceptron_mistake_bound,
)
from ._fisher import FisherDiscriminant, FisherDiscriminantCV
from ._margin import SeparabilityResult
from ._online import Adaline, LearningRateSchedule, Perceptron, PocketPerceptron
from ._separability import (
    AngleResult,
    HotellingT2Result,
    SeparabilityAngle,
    make_separability_scorer,
    separability_angle,
    separability_curve,
    separability_scorer,
    separability_statistics,
)
from ._stats import ClassStatistics
from ._svm import HardMarginSVM
from .datasets import (
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
    load_house_votes_84,
    load_pima_diabetes,
)
from .exceptions import (
    NotLinearlySeparableError,
    NotLinearlySeparableWarning,
    SolverError,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "Adaline",
    "LearningRateSchedule",
    "NotLinearlySeparableError",
    "NotLinearlySeparableWarning",
    "SolverError",
    "Perceptron",
    "PocketPerceptron",
    "AngleResult",
    "ClassStatistics",
    "FisherDiscriminant",
    "FisherDiscriminantCV",
    "HardMarginSVM",
    "HotellingT2Result",
    "SeparabilityAngle",
    "SeparabilityResult",
    "cover_separability_probability",
    "load_breast_cancer_wisconsin",
    "load_bupa_liver",
    "load_hepatitis",
    "load_house_votes_84",
    "linear_separability",
    "load_pima_diabetes",
    "make_separability_scorer",
    "perceptron_mistake_bound",
    "separability_angle",
    "separability_curve",
    "separability_scorer",
    "separability_statistics",
]
