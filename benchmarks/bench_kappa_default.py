"""Would a unit-free default κ serve better than κ = 1? Cross-validated accuracy of
``FisherDiscriminant`` at κ = 1 (the default, in the units of X squared) against κ
relative to S's scale (κ = τ · trace(S) / p, τ = 0.01, 0.1, 1), against
``FisherDiscriminantCV`` and scikit-learn's peers, in the same run.

Run from the repository root::

    python benchmarks/bench_kappa_default.py

Data: TF-IDF text (the docstrings of two packages, as ``bench_probes.py``), two
kinds of embeddings (low rank plus noise, ``bench_probes.embeddings``: tall, and
wider than the folds' rows), and the paper's Table 1 (the five bundled UCI sets,
raw). Five stratified folds, seed 0, one BLAS thread. κ matters only where S is
singular (the text, the wide embeddings); on Table 1 every κ gives one rule.
"""

import os
import sys
import warnings

import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line
from bench_probes import corpus, embeddings

from sklearn_linsep import (
    FisherDiscriminant,
    FisherDiscriminantCV,
    load_breast_cancer_wisconsin,
    load_bupa_liver,
    load_hepatitis,
    load_house_votes_84,
    load_pima_diabetes,
)


class RelativeKappa(FisherDiscriminant):
    """FisherDiscriminant with κ = tau · trace(S) / p of its training rows."""

    def __init__(self, tau=1.0):
        super().__init__()
        self.tau = tau

    def fit(self, X, y, sample_weight=None):
        stats = FisherDiscriminant().fit(X, y).statistics_
        scale = float(np.sum(stats.scatter_diagonal())) / (
            (stats.total_weight - stats.n_classes) * stats.n_features
        )
        self.kappa = self.tau * scale
        return super().fit(X, y, sample_weight)


def data_sets():
    X, y = corpus(["sklearn", "scipy"], 20_000, limit=1500)
    yield "text: sklearn vs scipy docstrings (TF-IDF)", X, y
    X, y = embeddings(4000, 256, "float64", 2.0)
    yield "embeddings 4000 x 256 (shift 2)", X, y
    X, y = embeddings(300, 768, "float64", 2.0)
    yield "embeddings 300 x 768, wider than the folds", X, y
    for loader in (load_breast_cancer_wisconsin, load_bupa_liver, load_pima_diabetes,
                   load_house_votes_84, load_hepatitis):  # fmt: skip
        X, y = loader(return_X_y=True)
        yield f"Table 1: {loader.__name__[5:]}", X, y


def main():
    print(machine_line())
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    models = {
        "kappa=1": FisherDiscriminant(),
        "0.01 tr(S)/p": RelativeKappa(0.01),
        "0.1 tr(S)/p": RelativeKappa(0.1),
        "tr(S)/p": RelativeKappa(1.0),
        "FisherDiscriminantCV": FisherDiscriminantCV(),
        "LinearSVC": LinearSVC(),
        "LDA lsqr auto": LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"),
    }
    print(f"{'data':<46}" + "".join(f"{name:>22}" for name in models))
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for title, X, y in data_sets():
            row = f"{title:<46}"
            for name, model in models.items():
                if name.startswith("LDA") and hasattr(X, "tocsr"):
                    row += f"{'(dense only)':>22}"
                    continue
                scores = cross_val_score(model, X, y, cv=cv)
                row += f"{scores.mean():>15.4f} ± {scores.std():.3f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
