"""FisherDiscriminantCV against GridSearchCV(FisherDiscriminant()): cases ported
from scikit-learn's test_search.py, test_ridge.py and test_logistic.py (ties,
failures, groups, metadata routing, score), and the repros of the issue "The
house, part 2"."""

import warnings

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


def test_a_frame_is_cut_and_scored_as_the_search_cuts_it():
    """GridSearchCV scores each fold on ``df.iloc[test]`` (F-ordered); scoring a
    C-ordered copy moved the last bits, and with them the chosen κ."""
    pd = pytest.importorskip("pandas")
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 40))
    y = np.arange(30) % 2
    X[:, :2] += y[:, None]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(40)])
    kappas = [np.inf, 1e16, 1e15]
    ours = FisherDiscriminantCV(kappas=kappas, cv=3, scoring="neg_log_loss")
    ours.fit(frame, y)
    theirs = GridSearchCV(
        FisherDiscriminant(), {"kappa": kappas}, cv=3, scoring="neg_log_loss"
    ).fit(frame, y)
    for key in ("split0_test_score", "mean_test_score", "rank_test_score"):
        np.testing.assert_array_equal(ours.cv_results_[key], theirs.cv_results_[key])
    assert ours.kappa_ == theirs.best_params_["kappa"]
    assert list(ours.feature_names_in_) == list(frame.columns)


def test_routing_with_the_default_scoring_and_a_generator_cv():
    X, y = tie_data()
    weights = np.random.RandomState(2).uniform(0.5, 2.0, 40)
    with sklearn.config_context(enable_metadata_routing=True):
        ours = FisherDiscriminantCV(kappas=KAPPAS, cv=3)
        ours.set_fit_request(sample_weight=True).set_score_request(sample_weight=True)
        ours.fit(X, y, sample_weight=weights)
        estimator = FisherDiscriminant().set_fit_request(sample_weight=True)
        estimator.set_score_request(sample_weight=True)
        theirs = GridSearchCV(estimator, {"kappa": KAPPAS}, cv=3)
        theirs.fit(X, y, sample_weight=weights)
        folds = (split for split in KFold(4).split(X))  # consumed once
        once = FisherDiscriminantCV(kappas=KAPPAS, cv=folds).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        rtol=1e-12,
    )
    assert len([key for key in once.cv_results_ if key.startswith("split")]) == 4


def test_a_scorer_must_return_a_number():
    X, y = tie_data()

    def forgot_return(estimator, X, y):
        accuracy_score(y, estimator.predict(X))

    with pytest.raises(ValueError, match="scoring must return a number"):
        FisherDiscriminantCV(kappas=KAPPAS, cv=3, scoring=forgot_return).fit(X, y)


def test_a_minus_infinite_mean_ranks_above_a_nan_one():
    import warnings

    X, y = tie_data()

    def scorer(estimator, X, y):
        if estimator.kappa == 0.01:
            raise FloatingPointError("fails here")
        if estimator.kappa == 1.0:
            return -np.inf
        return accuracy_score(y, estimator.predict(X))

    kappas = [10.0, 1.0, 0.01]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = FisherDiscriminantCV(kappas=kappas, cv=3, scoring=scorer).fit(X, y)
        theirs = GridSearchCV(
            FisherDiscriminant(), {"kappa": kappas}, cv=3, scoring=scorer
        ).fit(X, y)
    np.testing.assert_array_equal(
        ours.cv_results_["rank_test_score"], theirs.cv_results_["rank_test_score"]
    )


def test_kappas_accept_any_positive_reals_and_nothing_else():
    X, y = tie_data()
    FisherDiscriminantCV(kappas=[1, 2**70], cv=3).fit(X, y)
    FisherDiscriminantCV(kappas=(np.float32(0.5), np.inf), cv=3).fit(X, y)
    with pytest.raises(ValueError, match="'kappas' parameter"):
        FisherDiscriminantCV(kappas=[True, 2.0], cv=3).fit(X, y)


def test_score_passes_weights_only_to_a_scorer_that_takes_them():
    X, y = tie_data()

    def plain(estimator, X, y):
        return accuracy_score(y, estimator.predict(X))

    clf = FisherDiscriminantCV(kappas=KAPPAS, cv=3, scoring=plain).fit(X, y)
    assert clf.score(X, y, sample_weight=np.ones(40)) == plain(clf, X, y)


def _apart():
    """Two classes 4 apart in 3 features, 20 rows each."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1], 20)
    X[y == 1] += 4
    return X, y


def test_the_routing_error_names_what_works():
    """Found by a user: the error said FisherDiscriminant.set_score_request, an
    object inside FisherDiscriminantCV that no user can reach."""
    import sklearn
    from sklearn.exceptions import UnsetMetadataPassedError

    X, y = _apart()
    weights = np.ones(40)
    with sklearn.config_context(enable_metadata_routing=True):
        model = FisherDiscriminantCV().set_fit_request(sample_weight=True)
        with pytest.raises(UnsetMetadataPassedError) as raised:
            model.fit(X, y, sample_weight=weights)
        message = str(raised.value)
        assert "FisherDiscriminantCV(...).set_score_request(sample_weight=True)" in message
        model.set_score_request(sample_weight=True).fit(X, y, sample_weight=weights)


def test_the_routing_error_of_a_given_scoring_and_of_score():
    import sklearn
    from sklearn.exceptions import UnsetMetadataPassedError

    X, y = _apart()
    weights = np.ones(40)
    with sklearn.config_context(enable_metadata_routing=True):
        model = FisherDiscriminantCV(scoring="accuracy").set_fit_request(
            sample_weight=True)  # fmt: skip
        with pytest.raises(UnsetMetadataPassedError, match="scorer object"):
            model.fit(X, y, sample_weight=weights)
        fitted = FisherDiscriminantCV().fit(X, y)
        with pytest.raises(UnsetMetadataPassedError) as raised:
            fitted.score(X, y, sample_weight=weights)
        assert "folds" not in str(raised.value) and "the score" in str(raised.value)


def test_a_scalar_sample_weight_is_one_per_row():
    """``sample_weight=2.0`` (scikit-learn's validation takes a scalar for every
    row): the same search as ``np.full(n, 2.0)``; the scorer of each fold took
    the scalar, and every fold failed."""
    rng = np.random.RandomState(0)
    X = np.r_[rng.randn(20, 3) + [1, 0, 0], rng.randn(20, 3) - [1, 0, 0]]
    y = np.repeat([0, 1], 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scalar = FisherDiscriminantCV().fit(X, y, sample_weight=2.0)
    full = FisherDiscriminantCV().fit(X, y, sample_weight=np.full(40, 2.0))
    np.testing.assert_array_equal(scalar.cv_results_["mean_test_score"],
                                  full.cv_results_["mean_test_score"])  # fmt: skip
    assert scalar.kappa_ == full.kappa_


def test_ranks_share_their_least_place_as_rankdata_min():
    """Ranks without scipy.stats (the report imports it only where used): ties
    share the least rank, nan means rank last, as GridSearchCV's rankdata."""
    from scipy.stats import rankdata

    from sklearn_linsep._fisher_cv import _cv_results

    scores = np.array([[0.5, 0.7], [0.9, 0.9], [0.6, 0.6], [0.9, 0.9], [-np.inf, 0.1],
                       [np.nan, 0.2], [0.6, 0.6]])  # fmt: skip
    with pytest.warns(UserWarning, match="non-finite"):
        ranks = _cv_results(np.arange(7.0), scores)["rank_test_score"]
    means = scores.mean(axis=1)
    filled = np.nan_to_num(means, nan=np.nanmin(means) - 1)
    assert ranks.tolist() == rankdata(-filled, method="min").astype(int).tolist()
    assert ranks.tolist() == [3, 1, 3, 1, 6, 7, 3]
