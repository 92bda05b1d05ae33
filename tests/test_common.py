"""scikit-learn's estimator checks over every public estimator, no expected failures.

``parametrize_with_checks`` runs the API, classifier and transformer checks. The checks
that neither it nor ``check_estimator`` runs (scikit-learn calls them from its own
test_common.py) are called directly below.
"""

import pytest
from sklearn.utils.estimator_checks import (
    check_all_zero_sample_weights_error,
    check_dataframe_column_names_consistency,
    check_get_feature_names_out_error,
    check_global_output_transform_pandas,
    check_param_validation,
    check_set_output_transform,
    check_set_output_transform_pandas,
    check_transformer_get_feature_names_out,
    check_transformer_get_feature_names_out_pandas,
    parametrize_with_checks,
)

from sklearn_linsep import (
    Adaline,
    FisherDiscriminant,
    Perceptron,
    PocketPerceptron,
    SeparabilityAngle,
)

ESTIMATORS = [
    FisherDiscriminant(),
    FisherDiscriminant(kappa=0.1, priors=None, store_covariance=True),
    SeparabilityAngle(),
    SeparabilityAngle(metric="mahalanobis"),
    Perceptron(),
    Perceptron(mode="batch"),
    Perceptron(learning_rate="hyperbolic", shuffle=False),
    PocketPerceptron(),
    Adaline(),
    Adaline(solver="lstsq"),
]
TRANSFORMERS = [est for est in ESTIMATORS if hasattr(est, "transform")]

_ONLINE_WEIGHTS = (
    "a per-sample pass visits a sample of weight w once with a w-times larger "
    "step, not w times: integer weights cannot equal repeated rows (as for "
    "scikit-learn's Perceptron and SGDClassifier)"
)


def expected_failed_checks(estimator):
    """The only expected failures: sample-weight equivalence of per-sample modes.

    They are strict (pyproject's ``xfail_strict``): a pass would fail the run.
    """
    online = (
        isinstance(estimator, PocketPerceptron)
        or (isinstance(estimator, Perceptron) and estimator.mode == "online")
        or (isinstance(estimator, Adaline) and estimator.solver == "online")
    )
    if not online:
        return {}
    return {
        "check_sample_weight_equivalence_on_dense_data": _ONLINE_WEIGHTS,
        "check_sample_weight_equivalence_on_sparse_data": _ONLINE_WEIGHTS,
    }


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def _name(estimator):
    return type(estimator).__name__


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
@pytest.mark.parametrize(
    "check",
    [
        check_param_validation,
        check_dataframe_column_names_consistency,
        check_all_zero_sample_weights_error,
    ],
)
def test_checks_outside_parametrize(estimator, check):
    check(_name(estimator), estimator)


@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=repr)
def test_get_feature_names_out_error(transformer):
    check_get_feature_names_out_error(_name(transformer), transformer)


@pytest.mark.parametrize("transformer", TRANSFORMERS, ids=repr)
@pytest.mark.parametrize(
    "check",
    [
        check_transformer_get_feature_names_out,
        check_transformer_get_feature_names_out_pandas,
        check_set_output_transform,
        check_set_output_transform_pandas,
        check_global_output_transform_pandas,
    ],
)
def test_transformer_checks_outside_parametrize(transformer, check):
    check(_name(transformer), transformer)
