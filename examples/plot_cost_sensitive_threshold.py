"""
Cost-sensitive decisions: choosing the threshold for a gain matrix
==================================================================

A linear rule v'x > θ has a direction and a threshold. Fisher's direction does not
depend on what the errors cost, but the threshold should. Following Haralick's
"Linear Decision Rules", write the gain of assigning a sample of true class
c¹ or c² (rows) to class c¹ or c² (columns) as

.. math:: e = \\begin{pmatrix} \\alpha & \\beta \\\\ \\gamma & \\delta \\end{pmatrix}
          = \\begin{pmatrix} 2 & -3 \\\\ -4 & 4 \\end{pmatrix},

with priors P(c¹) = 0.6, P(c²) = 0.4. With the misdetect rate P_M (a c¹ sample
assigned to c²) and the false-alarm rate P_F (a c² sample assigned to c¹) of a
threshold, the expected gain is

.. math:: E[e] = -P_M P(c^1)(\\alpha - \\beta) - P_F P(c^2)(\\delta - \\gamma)
          + \\alpha P(c^1) + \\delta P(c^2).

In scikit-learn, choosing the threshold of a fitted direction to maximise such a
gain is :class:`~sklearn.model_selection.TunedThresholdClassifierCV` with a gain
scorer over ``decision_function``; here on a
:class:`~sklearn_linsep.FisherDiscriminant`.
"""

# %%
# The gain as a function of the error rates
# ------------------------------------------
# First the worked example of the lecture notes: at P_F = 0.4, P_M = 0.363 the gain
# is 0.431 (the best row of their table); at P_F = 0.5, P_M = 0.269 it is 0.393.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.inspection import DecisionBoundaryDisplay
from sklearn.metrics import make_scorer
from sklearn.model_selection import StratifiedKFold, TunedThresholdClassifierCV

from sklearn_linsep import FisherDiscriminant

(alpha, beta), (gamma, delta) = GAIN = np.array([[2.0, -3.0], [-4.0, 4.0]])
PRIOR_1, PRIOR_2 = 0.6, 0.4


def expected_gain(p_false_alarm, p_misdetect):
    """Haralick's E[e] for the gain matrix and priors above."""
    return (
        -p_misdetect * PRIOR_1 * (alpha - beta)
        - p_false_alarm * PRIOR_2 * (delta - gamma)
        + alpha * PRIOR_1
        + delta * PRIOR_2
    )


for p_f, p_m in [(0.4, 0.363), (0.5, 0.269)]:
    print(f"P_F = {p_f}, P_M = {p_m}: E[e] = {expected_gain(p_f, p_m):.3f}")

# %%
# Data and the gain scorer
# ------------------------
# Label 1 is c¹ (the class to detect), label 0 is c², drawn with the priors' odds;
# c² is twice as spread out as c¹. The scorer computes P_F and P_M on the data it is
# given and applies the formula with the stated priors, so the class proportions of
# a sample do not matter.
#
# With these gains and priors the costs nearly cancel: a false alarm costs
# (δ − γ) P(c²) = 3.2 and a misdetection (α − β) P(c¹) = 3.0, and with two Gaussian
# classes of *equal* covariance Fisher's decision function is their log-likelihood
# ratio, so the best threshold would be log(3.2/3.0) = 0.065, almost the midpoint.
# The unequal spreads are what make the midpoint a poor threshold here.
rng = np.random.RandomState(0)


def sample(n):
    y = (rng.uniform(size=n) < PRIOR_1).astype(int)
    X = rng.normal(size=(n, 2)) @ np.array([[1.0, 0.3], [0.0, 0.8]])
    X[y == 0] *= 2.0
    X[y == 1] += [1.5, 0.9]
    return X, y


def error_rates(y_true, y_pred):
    p_false_alarm = np.mean(y_pred[y_true == 0] == 1)
    p_misdetect = np.mean(y_pred[y_true == 1] == 0)
    return p_false_alarm, p_misdetect


def gain_score(y_true, y_pred):
    return expected_gain(*error_rates(np.asarray(y_true), np.asarray(y_pred)))


gain_scorer = make_scorer(gain_score)
X_train, y_train = sample(5000)
X_test, y_test = sample(5000)

# %%
# The default threshold against the tuned one
# -------------------------------------------
# The midpoint threshold of Fisher's rule ignores the gains. The tuned threshold is
# chosen by 5-fold cross-validation over 200 candidate values of the decision
# function, then the direction is refitted on all the training data.
fisher = FisherDiscriminant().fit(X_train, y_train)
tuned = TunedThresholdClassifierCV(
    FisherDiscriminant(),
    scoring=gain_scorer,
    response_method="decision_function",
    thresholds=200,
    cv=StratifiedKFold(5, shuffle=True, random_state=0),
    store_cv_results=True,
).fit(X_train, y_train)
print(f"tuned threshold on the decision function: {tuned.best_threshold_:.3f}")
print(f"cross-validated gain at that threshold:   {tuned.best_score_:.3f}")
for name, model in [("midpoint (default)", fisher), ("tuned", tuned)]:
    p_f, p_m = error_rates(y_test, model.predict(X_test))
    print(
        f"test, {name:<18}: P_F = {p_f:.3f}, P_M = {p_m:.3f}, "
        f"E[e] = {expected_gain(p_f, p_m):.3f}"
    )

# %%
# The false-alarm / misdetect / gain table
# ----------------------------------------
# On the test data, for thresholds that give false-alarm rates 0.1, 0.2, …, 0.9:
# raising the threshold trades misdetections for false alarms, and the gain peaks
# in between.
scores_test = fisher.decision_function(X_test)
negatives = np.sort(scores_test[y_test == 0])
print(f"\n{'threshold':>10}{'P_F':>8}{'P_M':>8}{'E[e]':>8}")
for target in np.arange(0.9, 0.05, -0.1):
    threshold = np.quantile(negatives, 1 - target)
    p_f, p_m = error_rates(y_test, (scores_test > threshold).astype(int))
    print(f"{threshold:>10.3f}{p_f:>8.3f}{p_m:>8.3f}{expected_gain(p_f, p_m):>8.3f}")

# %%
# The gain against the threshold
# ------------------------------
# The cross-validated gain of every candidate threshold (``cv_results_``), the one
# chosen, and the midpoint threshold 0 of the untuned rule.
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot(tuned.cv_results_["thresholds"], tuned.cv_results_["scores"], lw=1)
ax.axvline(tuned.best_threshold_, color="C3", ls="--", label="tuned")
ax.axvline(0.0, color="gray", ls=":", label="midpoint")
ax.set_xlabel("threshold on the decision function")
ax.set_ylabel("expected gain E[e] (CV)")
ax.set_title("Gain matrix [[2, -3], [-4, 4]], priors 0.6 / 0.4")
ax.legend()
fig.tight_layout()

# %%
# Both boundaries
# ---------------
# The same direction, shifted: the tuned rule trades false alarms (each costs
# δ − γ = 8, with weight P(c²) = 0.4) against misdetections (each costs α − β = 5,
# with weight P(c¹) = 0.6) as the gain matrix asks, not as the midpoint does.
fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
shown = slice(0, 600)
for ax, model, title in [
    (axes[0], fisher, "midpoint threshold"),
    (axes[1], tuned, "tuned threshold"),
]:
    DecisionBoundaryDisplay.from_estimator(
        model, X_test, response_method="predict", alpha=0.25, cmap="coolwarm", ax=ax
    )
    ax.scatter(
        *X_test[shown].T, c=y_test[shown], cmap="coolwarm", s=8, edgecolors="k", lw=0.2
    )
    p_f, p_m = error_rates(y_test, model.predict(X_test))
    ax.set_title(f"{title}: P_F = {p_f:.2f}, P_M = {p_m:.2f}")
    ax.set_xlabel("x₁")
axes[0].set_ylabel("x₂")
fig.tight_layout()
plt.show()
