"""sklearn-linsep: linear separability for scikit-learn.

Decide whether two classes can be split by a hyperplane, measure how well, and find the
hyperplane.

The public names are imported on first use (PEP 562): ``import sklearn_linsep`` costs
nothing, ``from sklearn_linsep import FisherDiscriminant`` loads the Fisher family
only, and ``linsep --help`` needs neither numpy nor scikit-learn.
"""

from ._compat import lazy_attributes
from ._version import __version__ as __version__

_MODULE_OF = {
    **dict.fromkeys(["AngleResult", "HotellingT2Result"], "._angle"),
    **dict.fromkeys(
        [
            "cover_separability_probability",
            "linear_separability",
            "minimum_error_separation",
            "perceptron_mistake_bound",
        ],
        "._certificates",
    ),
    "FisherDiscriminant": "._fisher",
    "FisherDiscriminantCV": "._fisher_cv",
    "JointSeparabilityResult": "._margin",
    "MinimumErrorResult": "._margin",
    "SeparabilityResult": "._margin",
    **dict.fromkeys(
        ["Adaline", "LearningRateSchedule", "Perceptron", "PocketPerceptron"],
        "._online",
    ),
    **dict.fromkeys(
        [
            "SeparabilityAngle",
            "separability_angle",
            "separability_curve",
            "separability_statistics",
        ],
        "._separability",
    ),
    **dict.fromkeys(
        ["make_separability_scorer", "separability_scorer"], "._separability_scorer"
    ),
    "ClassStatistics": "._stats",
    **dict.fromkeys(
        ["ComplexityResult", "ErrorRateResult", "linearity_complexity"], ".complexity"
    ),
    "HardMarginSVM": "._svm",
    **dict.fromkeys(
        [
            "load_breast_cancer_wisconsin",
            "load_bupa_liver",
            "load_hepatitis",
            "load_house_votes_84",
            "load_pima_diabetes",
        ],
        ".datasets",
    ),
    **dict.fromkeys(
        ["NotLinearlySeparableError", "NotLinearlySeparableWarning", "SolverError"],
        ".exceptions",
    ),
}

__all__ = sorted(_MODULE_OF)

__getattr__, __dir__ = lazy_attributes(__name__, _MODULE_OF)
