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

from sklearn_linsep import FisherDiscriminant, SeparabilityAngle

ESTIMATORS = [
    FisherDiscriminant(),
    FisherDiscriminant(kappa=0.1, priors=None, store_covariance=True),
    SeparabilityAngle(),
    SeparabilityAngle(metric="mahalanobis"),
]
TRANSFORMERS = [est for est in ESTIMATORS if hasattr(est, "transform")]


@parametrize_with_checks(ESTIMATORS)
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
        check_get_feature_names_out_error,
    ],
)
def test_checks_outside_parametrize(estimator, check):
    check(_name(estimator), estimator)


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
