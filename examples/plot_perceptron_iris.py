"""
The perceptron on Iris: mistakes, Novikoff's bound and the maximal margin
=========================================================================

Setosa against the other two species, on sepal length and sepal width only: a
linearly separable problem with a very thin margin. We follow Rosenblatt's
perceptron epoch by epoch (``errors_``), draw its last boundaries, count the
updates it made (``n_updates_``) against Novikoff's bound
(:func:`~sklearn_linsep.perceptron_mistake_bound`), and compare the hyperplane
found by the separability LP (:func:`~sklearn_linsep.linear_separability`) with
the maximal-margin one (:class:`~sklearn_linsep.HardMarginSVM`). Then we nudge a
single setosa flower, which widens the margin, and watch the perceptron converge
in a couple of epochs instead of hundreds.
"""

# %%
# The data
# --------
# Class +1 is setosa; the features are the first two columns of Iris (cm).
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.inspection import DecisionBoundaryDisplay

from sklearn_linsep import (
    HardMarginSVM,
    Perceptron,
    linear_separability,
    perceptron_mistake_bound,
)

iris = load_iris()
X = iris.data[:, :2]
y = (iris.target == 0).astype(int)  # 1 = setosa
print(f"{X.shape[0]} flowers, {y.sum()} setosa; features: {iris.feature_names[:2]}")

# %%
# The perceptron, epoch by epoch
# ------------------------------
# With a constant rate and zero initial weights, the online perceptron stops after
# the first epoch without a mistake. ``errors_`` holds the mistakes of every epoch.
# The margin here is thin: the mistakes hover at a few per epoch for hundreds of
# epochs, which scikit-learn's stopping rule (``tol=1e-3``, the default) cannot tell
# from inseparable data, so ``tol=None`` lets the perceptron run to convergence.
perceptron = Perceptron(tol=None, random_state=0).fit(X, y)
print(
    f"perceptron: converged = {perceptron.converged_} after {perceptron.n_iter_} "
    f"epochs and {perceptron.n_updates_} updates"
)
print(f"mistakes in the first 10 epochs: {perceptron.errors_[:10].tolist()}")
print(f"mistakes in the last 10 epochs:  {perceptron.errors_[-10:].tolist()}")

fig, ax = plt.subplots(figsize=(7, 3))
ax.plot(np.arange(1, perceptron.n_iter_ + 1), perceptron.errors_, lw=0.8)
ax.set_xlabel("epoch")
ax.set_ylabel("mistakes (updates)")
ax.set_title("Perceptron on Iris (setosa vs rest, sepal features)")
fig.tight_layout()

# %%
# The last boundaries
# -------------------
# The fit is deterministic given ``random_state``, so refitting with a smaller
# ``max_iter`` gives the weights after that many epochs. The final boundary is drawn
# with :class:`~sklearn.inspection.DecisionBoundaryDisplay`, the four before it as
# lines. They all pass close to the three flowers that fix the margin.


def line(ax, coef, intercept, **kwargs):
    """Draw coef . x + intercept = 0 across the axes, keeping their limits."""
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    xs = np.array(xlim)
    ax.plot(xs, -(coef[0] * xs + intercept) / coef[1], **kwargs)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)


def scatter(ax, X, y):
    for label, marker, name in [(1, "o", "setosa"), (0, "x", "other")]:
        ax.scatter(*X[y == label].T, marker=marker, s=20, label=name, c="k")


fig, ax = plt.subplots(figsize=(6, 5))
DecisionBoundaryDisplay.from_estimator(
    perceptron, X, response_method="predict", alpha=0.25, cmap="coolwarm", ax=ax
)
scatter(ax, X, y)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # stopped before converging
    for epochs in range(perceptron.n_iter_ - 4, perceptron.n_iter_):
        earlier = Perceptron(tol=None, random_state=0, max_iter=epochs).fit(X, y)
        line(
            ax,
            earlier.coef_[0],
            earlier.intercept_[0],
            lw=0.8,
            ls="--",
            color="gray",
        )
        print(
            f"after epoch {epochs}: w = {earlier.coef_[0]}, "
            f"b = {earlier.intercept_[0]:g}, "
            f"{int(np.sum(earlier.predict(X) != y))} training errors"
        )
line(ax, perceptron.coef_[0], perceptron.intercept_[0], color="C3", label="last")
ax.set_xlabel(iris.feature_names[0])
ax.set_ylabel(iris.feature_names[1])
ax.set_title("The perceptron's last boundaries (dashed: the epochs before)")
ax.legend(loc="lower right")

# %%
# Novikoff's bound against the updates made
# ------------------------------------------
# The bound that holds for the update on augmented samples x̃ = (x, 1) is
# (R̃/γ̃)², with γ̃ the margin of the best separator *through the origin* of the
# augmented space. The textbook (R/γ)² uses the free-bias margin; it is smaller and
# not guaranteed for this update. Both hold here, by a wide margin: the bound is a
# worst case.
guaranteed = perceptron_mistake_bound(X, y)
textbook = perceptron_mistake_bound(X, y, bound="textbook")
print(f"(R~/gamma~)^2 = {guaranteed:.0f}   (R/gamma)^2 = {textbook:.1f}")
updates = [
    Perceptron(tol=None, random_state=seed).fit(X, y).n_updates_ for seed in range(10)
]
print(f"updates made over 10 random visiting orders: {min(updates)}..{max(updates)}")

# %%
# The LP separator against the maximal-margin one
# -----------------------------------------------
# :func:`~sklearn_linsep.linear_separability` proves separability with *a*
# hyperplane satisfying c (w·x + b) ≥ 1: the LP has no objective, and any vertex of
# its feasible set is a certificate. :class:`~sklearn_linsep.HardMarginSVM` finds
# the hyperplane farthest from both classes; its geometric margin bounds every other
# separator's, the LP's and the perceptron's included. (A vertex of the LP has
# p + 1 = 3 tight constraints, as many as the maximal-margin line has support
# vectors here, so the two may well coincide on these data.)
lp = linear_separability(X, y)
svm = HardMarginSVM().fit(X, y)


def margin(coef, intercept):
    """Geometric margin of a hyperplane on the training data (negative if wrong)."""
    signed = (2 * y - 1) * (X @ coef + intercept)
    return signed.min() / np.linalg.norm(coef)


print(f"LP:          w = {lp.coef}, b = {lp.intercept:.4f}, margin {lp.margin:.6f}")
print(
    f"max margin:  w = {svm.coef_[0]}, b = {svm.intercept_[0]:.4f}, "
    f"margin {svm.margin_:.6f} (7/sqrt(6100) = {7 / np.sqrt(6100):.6f})"
)
print(f"support vectors: {svm.support_vectors_.tolist()}")
print(
    f"perceptron:  margin {margin(perceptron.coef_[0], perceptron.intercept_[0]):.6f}"
)
same = np.allclose(lp.coef, svm.coef_[0]) and np.isclose(
    lp.intercept, svm.intercept_[0]
)
print(f"LP separator is the maximal-margin line: {same}")

fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
for ax, model in [(axes[0], perceptron), (axes[1], svm)]:
    DecisionBoundaryDisplay.from_estimator(
        model, X, response_method="predict", alpha=0.25, cmap="coolwarm", ax=ax
    )
    scatter(ax, X, y)
    ax.set_xlabel(iris.feature_names[0])
axes[1].scatter(
    *svm.support_vectors_.T, s=120, facecolors="none", edgecolors="C2", label="SV"
)
line(axes[1], lp.coef, lp.intercept, color="C1", ls=":", lw=2, label="LP separator")
axes[0].set_ylabel(iris.feature_names[1])
axes[0].set_title("Perceptron")
axes[1].set_title("Maximal margin (HardMarginSVM) and the LP separator")
axes[1].legend(loc="lower right")
fig.tight_layout()

# %%
# Nudging one flower
# ------------------
# The setosa flower at (4.5, 2.3) is the one closest to the other species. Move it
# to (4.5, 2.8): the maximal margin grows from 0.0896 to 1/√50 = 0.1414, the bound
# drops, and the perceptron converges within a couple of epochs.
nudged = X.copy()
nudged[(X[:, 0] == 4.5) & (X[:, 1] == 2.3), 1] = 2.8
svm_nudged = HardMarginSVM().fit(nudged, y)
p_nudged = Perceptron(tol=None, random_state=0).fit(nudged, y)
print(
    f"nudged: max margin w = {svm_nudged.coef_[0]}, b = {svm_nudged.intercept_[0]:.4f},"
    f" margin {svm_nudged.margin_:.6f} (1/sqrt(50) = {1 / np.sqrt(50):.6f})"
)
print(
    f"nudged: (R~/gamma~)^2 = {perceptron_mistake_bound(nudged, y):.0f}, "
    f"(R/gamma)^2 = {perceptron_mistake_bound(nudged, y, bound='textbook'):.1f}; "
    f"perceptron: {p_nudged.n_iter_} epochs, {p_nudged.n_updates_} updates, "
    f"errors_ = {p_nudged.errors_.tolist()}"
)

fig, ax = plt.subplots(figsize=(6, 5))
DecisionBoundaryDisplay.from_estimator(
    svm_nudged, nudged, response_method="predict", alpha=0.25, cmap="coolwarm", ax=ax
)
scatter(ax, nudged, y)
ax.annotate(
    "",
    xy=(4.5, 2.8),
    xytext=(4.5, 2.3),
    arrowprops={"arrowstyle": "->", "color": "C2"},
)
line(ax, p_nudged.coef_[0], p_nudged.intercept_[0], color="C3", label="perceptron")
ax.set_xlabel(iris.feature_names[0])
ax.set_ylabel(iris.feature_names[1])
ax.set_title("Nudged data: maximal margin (shaded) and the perceptron")
ax.legend(loc="lower right")
plt.show()
