"""FisherDiscriminantCV against GridSearchCV(FisherDiscriminant()): cases ported
from scikit-learn's test_search.py, test_ridge.py and test_logistic.py (ties,
failures, groups, metadata routing, score), and the repros of the issue "The
house, part 2"."""

import numpy as np
import pytest
import sklearn
from sklearn.metrics import accuracy_score, f1_score, make_scorer
from sklearn.model_selection import GridSearchCV, GroupKFold, KFold

from sklearn_linsep import FisherDiscriminant, FisherDiscriminantCV

KAPPAS = [1e-3, 0.01, 0.1, 1.0, 10.0, 100.0, np.inf]


def tie_data():
    """The issue's repro: with 10 folds the means of two κ differ in the last bit
    when averaged along the other axis."""
    rng = np.random.RandomState(8)
    X = rng.normal(size=(40, 100))
    y = rng.randint(0, 2, 40)
    X[y == 1, :3] += 0.7
    return X, y


def search(**kwargs):
    return GridSearchCV(FisherDiscriminant(), {"kappa": KAPPAS}, **kwargs)


def test_ties_break_as_grid_search_breaks_them():
    X, y = tie_data()
    ours = FisherDiscriminantCV(kappas=KAPPAS, cv=10, scoring="f1_macro").fit(X, y)
    theirs = search(cv=10, scoring="f1_macro").fit(X, y)
    assert ours.kappa_ == theirs.best_params_["kappa"]
    for key in ("mean_test_score", "std_test_score", "rank_test_score"):
        np.testing.assert_array_equal(ours.cv_results_[key], theirs.cv_results_[key])
    assert ours.best_score_ == theirs.best_score_


def test_an_empty_cv_iterator_is_refused_as_grid_search_refuses_it():
    X, y = tie_data()
    with pytest.raises(ValueError, match="No fits were performed"):
        FisherDiscriminantCV(kappas=KAPPAS, cv=[]).fit(X, y)
    with pytest.raises(ValueError, match="No fits were performed"):
        search(cv=[]).fit(X, y)


def test_groups_reach_the_splitter():
    X, y = tie_data()
    groups = np.arange(40) % 8
    ours = FisherDiscriminantCV(kappas=KAPPAS, cv=GroupKFold(4)).fit(
        X, y, groups=groups
    )
    theirs = search(cv=GroupKFold(4)).fit(X, y, groups=groups)
    np.testing.assert_array_equal(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )
    assert ours.kappa_ == theirs.best_params_["kappa"]


def test_other_metadata_is_refused_without_routing():
    X, y = tie_data()
    with pytest.raises(ValueError, match="enable_metadata_routing"):
        FisherDiscriminantCV(kappas=KAPPAS).fit(X, y, something=np.ones(40))


def test_sample_weight_goes_to_a_scorer_that_takes_it():
    X, y = tie_data()
    weights = np.random.RandomState(0).uniform(0.5, 2.0, 40)
    ours = FisherDiscriminantCV(kappas=KAPPAS, cv=KFold(4)).fit(
        X, y, sample_weight=weights
    )
    theirs = search(cv=KFold(4)).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=1e-12,
    )


def test_metadata_routing_obeys_the_scorers_request():
    """With routing on, ``set_score_request(sample_weight=False)`` keeps the
    weights from the scorer: the fold scores are unweighted accuracies."""
    X, y = tie_data()
    weights = np.random.RandomState(1).uniform(0.1, 3.0, 40)
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_scorer(accuracy_score).set_score_request(sample_weight=False)
        ours = FisherDiscriminantCV(kappas=KAPPAS, cv=KFold(4), scoring=scorer)
        ours.set_fit_request(sample_weight=True).fit(X, y, sample_weight=weights)
        estimator = FisherDiscriminant().set_fit_request(sample_weight=True)
        theirs = GridSearchCV(
            estimator, {"kappa": KAPPAS}, cv=KFold(4), scoring=scorer
        ).fit(X, y, sample_weight=weights)
        weighted = make_scorer(accuracy_score).set_score_request(sample_weight=True)
        by_weights = FisherDiscriminantCV(kappas=KAPPAS, cv=KFold(4), scoring=weighted)
        by_weights.set_fit_request(sample_weight=True).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=1e-12,
    )
    # The same fits, scored with the weights: different means.
    assert not np.allclose(
        ours.cv_results_["mean_test_score"], by_weights.cv_results_["mean_test_score"]
    )


def test_score_is_by_the_scoring():
    X, y = tie_data()
    clf = FisherDiscriminantCV(kappas=KAPPAS, cv=5, scoring="f1_macro").fit(X, y)
    assert clf.score(X, y) == pytest.approx(
        f1_score(y, clf.predict(X), average="macro")
    )
    plain = FisherDiscriminantCV(kappas=KAPPAS, cv=5).fit(X, y)
    assert plain.score(X, y) == accuracy_score(y, plain.predict(X))


def test_priors_are_copied():
    X, y = tie_data()
    priors = np.array([0.3, 0.7])
    estimators = [
        FisherDiscriminant(priors=priors),
        FisherDiscriminantCV(kappas=KAPPAS, cv=3, priors=priors),
    ]
    for estimator in estimators:
        estimator.fit(X, y)
        priors[:] = [0.5, 0.5]
        np.testing.assert_array_equal(estimator.priors_, [0.3, 0.7])
        priors[:] = [0.3, 0.7]
