"""
Is the Wisconsin breast cancer data linearly separable, and how well?
=====================================================================

The angle of separability θ(κ) of Ben-Israel & Levin (2005) on the bundled UCI file,
prepared as the paper did (the 16 missing values replaced by the column mean), with
cos θ, ‖S⁻¹d‖, the affine-invariant variant and Hotelling's T² test of θ = 0; then
FisherDiscriminant against scikit-learn's LinearDiscriminantAnalysis in 10-fold
cross-validation. Run it with ``python examples/breast_cancer_separability.py``.
"""

# %%
import numpy as np
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import StratifiedKFold, cross_val_score

from sklearn_linsep import (
    FisherDiscriminant,
    load_breast_cancer_wisconsin,
    separability_statistics,
)

data = load_breast_cancer_wisconsin()
X, y = data.data, data.target
counts = np.bincount(y)
print(f"Wisconsin breast cancer: n = {X.shape[0]}, p = {X.shape[1]}")
print(
    f"classes: {data.target_names[0]} {counts[0]}, {data.target_names[1]} {counts[1]}\n"
)

# %%
# The angle of separability, in the paper's metric and in the affine-invariant one.
for metric in ("euclidean", "mahalanobis"):
    result = separability_statistics(X, y, kappa=1.0, metric=metric)
    print(
        f"{metric:>11}: theta = {result.degrees:6.2f} deg   cos theta = "
        f"{result.cos_angle:.4f}   ||S^-1 d|| = {result.scaled_distance:.4f}   "
        f"sqrt(d' S^-1 d) = {result.mahalanobis_distance:.4f}"
    )
test = result.hotelling
print(
    f"Hotelling T2 test of theta = 0: T2 = {test.statistic:.1f}, "
    f"F({test.df1}, {test.df2:g}) = {test.f_statistic:.1f}, p = {test.pvalue:.3g}"
)

# %%
# Cross-validated accuracy of the discriminant, beside scikit-learn's LDA.
cv = StratifiedKFold(n_splits=10, shuffle=True, random_state=0)
for name, model in [
    ("FisherDiscriminant", FisherDiscriminant()),
    (
        "FisherDiscriminant(threshold='accuracy')",
        FisherDiscriminant(threshold="accuracy"),
    ),
    ("LinearDiscriminantAnalysis", LinearDiscriminantAnalysis()),
]:
    scores = cross_val_score(model, X, y, cv=cv)
    print(f"{name:>42}: accuracy {scores.mean():.4f} +/- {scores.std():.4f}")
