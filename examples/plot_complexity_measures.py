"""
Complexity measures across data sets
====================================

The data-complexity measures of Ho & Basu (2002), as Lorena et al. (2019) define
them, for a few data sets: the feature measures F1–F4 and F1v, and the linearity
measures L1–L3, computed by :func:`~sklearn_linsep.linearity_complexity`. Every
measure is in [0, 1], lower meaning simpler.

L2 here is the least training error rate of *any* hyperplane, with proven bounds
(:func:`~sklearn_linsep.minimum_error_separation`); the usual tools report one
linear SVM's training error instead, which is an upper bound of it at best. We plot
both, with scikit-learn's ``LinearSVC()`` (problexity's choice) for theirs.
"""

# %%
# The measures of six data sets
# -----------------------------
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.svm import LinearSVC

from sklearn_linsep import (
    linearity_complexity,
    load_breast_cancer_wisconsin,
    load_pima_diabetes,
)


def gaussian(shift, n=400, p=8, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, p))
    X[y == 1, 0] += shift
    return X, y


iris_X, iris_y = load_iris(return_X_y=True)
data_sets = {
    "iris (versicolor, virginica)": (iris_X[iris_y > 0], iris_y[iris_y > 0]),
    "wine": load_wine(return_X_y=True),
    "breast cancer (sklearn)": load_breast_cancer(return_X_y=True),
    "breast cancer (UCI, bundled)": load_breast_cancer_wisconsin(return_X_y=True),
    "Pima diabetes (bundled)": load_pima_diabetes(return_X_y=True),
    "two Gaussians, 2 sd apart": gaussian(2.0),
}
names = ["f1", "f1v", "f2", "f3", "f4", "l1", "l2", "l3"]
table, svm_errors = {}, {}
for label, (X, y) in data_sets.items():
    result = linearity_complexity(X, y, random_state=0)
    table[label] = result.as_dict()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LinearSVC's convergence warnings
        svm_errors[label] = float(np.mean(LinearSVC().fit(X, y).predict(X) != y))
    print(f"{label:<30}", " ".join(f"{table[label][m]:.3f}" for m in names))

# %%
# A heat map of the eight measures
# --------------------------------
values = np.array([[table[label][m] for m in names] for label in data_sets])
fig, ax = plt.subplots(figsize=(8, 3.5))
image = ax.imshow(values, cmap="viridis", vmin=0, vmax=1, aspect="auto")
ax.set_xticks(range(len(names)), [m.upper() for m in names])
ax.set_yticks(range(len(data_sets)), list(data_sets))
for (i, j), value in np.ndenumerate(values):
    ax.text(j, i, f"{value:.2f}", ha="center", va="center",
            color="white" if value < 0.5 else "black", fontsize=8)
fig.colorbar(image, ax=ax, label="0 simplest, 1 hardest")
ax.set_title("Ho & Basu's measures (sklearn_linsep)")
fig.tight_layout()

# %%
# L2: the least error of any hyperplane, against one LinearSVC's
# ---------------------------------------------------------------
# The exact L2 is never above the SVM's training error (its upper bound is a
# hyperplane's proven error count, and the search starts from the best it finds);
# on separable data it is 0, where LinearSVC at C = 1 may not be.
fig, ax = plt.subplots(figsize=(8, 3))
positions = np.arange(len(data_sets))
ax.barh(positions - 0.2, [table[label]["l2"] for label in data_sets], height=0.4,
        label="L2, least error of any hyperplane (exact bounds)")
ax.barh(positions + 0.2, [svm_errors[label] for label in data_sets], height=0.4,
        label="LinearSVC() training error (the peers' L2)")
ax.set_yticks(positions, list(data_sets))
ax.set_xlabel("training error rate")
ax.legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()
