"""sklearn-linsep: linear separability for scikit-learn.

Decide whether two classes can be split by a hyperplane, measure how well, and find the
hyperplane.
"""

from ._fisher import FisherDiscriminant
from ._online import Adaline, LearningRateSchedule, Perceptron, PocketPerceptron
from ._separability import (
    AngleResult,
    HotellingT2Result,
    SeparabilityAngle,
    make_separability_scorer,
    separability_angle,
    separability_scorer,
    separability_statistics,
)
from .datasets import (
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
    load_house_votes_84,
    load_pima_diabetes,
)

__version__ = "0.1.0.dev0"

__all__ = [
    "Adaline",
    "LearningRateSchedule",
    "Perceptron",
    "PocketPerceptron",
    "AngleResult",
    "FisherDiscriminant",
    "HotellingT2Result",
    "SeparabilityAngle",
    "load_breast_cancer_wisconsin",
    "load_bupa_liver",
    "load_hepatitis",
    "load_house_votes_84",
    "load_pima_diabetes",
    "make_separability_scorer",
    "separability_angle",
    "separability_scorer",
    "separability_statistics",
]
