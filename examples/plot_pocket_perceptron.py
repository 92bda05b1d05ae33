"""
The pocket algorithm against the perceptron on inseparable data
===============================================================

On data that no hyperplane separates, the perceptron never stops making mistakes:
its weights keep moving, and where they are when training stops is a matter of
luck. Gallant's pocket algorithm runs the same perceptron but keeps "in its pocket"
the weights that classified the most training samples correctly so far, replacing
them only by strictly better ones (the ratchet). We compare the two, and the
maximal-margin limit of :class:`~sklearn_linsep.HardMarginSVM` (its C → ∞
soft margin), on two overlapping Gaussian classes.
"""

# %%
# The data, and a proof that they are inseparable
# -----------------------------------------------
# :func:`~sklearn_linsep.linear_separability` returns a certificate: samples of
# each class whose convex combinations coincide, a point in both convex hulls.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.inspection import DecisionBoundaryDisplay
from sklearn.model_selection import train_test_split

from sklearn_linsep import (
    HardMarginSVM,
    NotLinearlySeparableWarning,
    Perceptron,
    PocketPerceptron,
    linear_separability,
)

rng = np.random.RandomState(0)
X = np.vstack(
    [rng.normal([0, 0], 1.0, (150, 2)), rng.normal([2.5, 1.5], 1.0, (150, 2))]
)
y = np.repeat([0, 1], 150)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
proof = linear_separability(X_train, y_train)
print(
    f"separable: {proof.separable}; certificate: {len(proof.certificate_indices)} "
    f"samples, common point {np.round(proof.common_point, 3)}, "
    f"verified: {proof.verify(X_train, y_train)}"
)

# %%
# Training both
# -------------
# Same epochs, same visiting order (same ``random_state``; ``tol=None``, so that the
# perceptron does not stop early by scikit-learn's rule). The perceptron runs its
# 100 epochs and warns that it did not converge; we silence that expected warning.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    perceptron = Perceptron(max_iter=100, tol=None, random_state=0)
    perceptron.fit(X_train, y_train)
    pocket = PocketPerceptron(max_iter=100, random_state=0).fit(X_train, y_train)
    warnings.simplefilter("ignore", NotLinearlySeparableWarning)
    svm = HardMarginSVM().fit(X_train, y_train)

epoch_accuracy = 1 - perceptron.errors_ / len(y_train)
print(
    f"perceptron: {perceptron.n_updates_} updates, mistakes per epoch between "
    f"{perceptron.errors_.min()} and {perceptron.errors_.max()}"
)
for name, model in [
    ("perceptron (last weights)", perceptron),
    ("pocket", pocket),
    ("HardMarginSVM (C -> inf)", svm),
]:
    print(
        f"{name:<26} training accuracy {model.score(X_train, y_train):.3f}, "
        f"test accuracy {model.score(X_test, y_test):.3f}"
    )
print(f"pocket_score_ = {pocket.pocket_score_:.3f}")

# %%
# Accuracy epoch by epoch
# -----------------------
# ``errors_`` counts the perceptron's mistakes *during* each epoch (while its
# weights move); ``pocket_history_`` is the training accuracy of the pocket's
# weights after each epoch, which never decreases. The accuracy of the perceptron's
# weights at the end of each epoch is computed by refitting with fewer epochs.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    end_of_epoch = [
        Perceptron(max_iter=k, tol=None, random_state=0)
        .fit(X_train, y_train)
        .score(X_train, y_train)
        for k in range(1, 101)
    ]
print(
    "perceptron's end-of-epoch training accuracy: "
    f"min {min(end_of_epoch):.3f}, max {max(end_of_epoch):.3f}, "
    f"last {end_of_epoch[-1]:.3f}"
)

fig, ax = plt.subplots(figsize=(8, 4))
epochs = np.arange(1, 101)
ax.plot(epochs, epoch_accuracy, lw=0.8, label="perceptron, during the epoch")
ax.plot(epochs, end_of_epoch, lw=0.8, label="perceptron, end of epoch")
ax.plot(epochs, pocket.pocket_history_, lw=2, label="pocket (ratchet)")
ax.set_xlabel("epoch")
ax.set_ylabel("training accuracy")
ax.set_title("Inseparable data: the perceptron wanders, the pocket keeps the best")
ax.legend()
fig.tight_layout()

# %%
# The boundaries
# --------------
fig, axes = plt.subplots(1, 3, figsize=(13, 4), sharey=True)
for ax, model, title in [
    (axes[0], perceptron, "perceptron, last weights"),
    (axes[1], pocket, "pocket"),
    (axes[2], svm, "HardMarginSVM, C → ∞ limit"),
]:
    DecisionBoundaryDisplay.from_estimator(
        model, X, response_method="predict", alpha=0.25, cmap="coolwarm", ax=ax
    )
    ax.scatter(*X_train.T, c=y_train, cmap="coolwarm", s=10, edgecolors="k", lw=0.3)
    ax.set_title(f"{title}\ntest accuracy {model.score(X_test, y_test):.3f}")
    ax.set_xlabel("x₁")
axes[0].set_ylabel("x₂")
certificate = X_train[proof.certificate_indices]
axes[1].scatter(
    *certificate.T, s=80, facecolors="none", edgecolors="k", label="certificate"
)
axes[1].plot(*proof.common_point, "k*", ms=12, label="common point")
axes[1].legend(loc="lower right", fontsize="small")
fig.tight_layout()
plt.show()
