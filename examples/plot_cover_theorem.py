"""
Cover's theorem: how likely is a random labelling to be separable?
==================================================================

Cover (1965) counted the labellings of Z points in general position in R^N that a
hyperplane through the origin separates: C(Z, N) = 2 Σ_{k<N} binom(Z−1, k) of the
2^Z. A random labelling is therefore separable with probability C(Z, N)/2^Z, which
is 1 up to Z = N, exactly ½ at Z = 2N and falls to 0 beyond; the drop sharpens as N
grows. An affine hyperplane in R^d counts as one through the origin in R^(d+1), so
N = d + 1 for a classifier with an intercept.

We compare the exact probability
(:func:`~sklearn_linsep.cover_separability_probability`), Ripley's normal
approximation Φ((2N − Z)/√Z), and a Monte Carlo estimate that draws Gaussian points
and random labels and decides each case exactly with
:func:`~sklearn_linsep.linear_separability`.
"""

# %%
# The exact probability and Ripley's approximation
# ------------------------------------------------
import matplotlib.pyplot as plt
import numpy as np

from sklearn_linsep import cover_separability_probability, linear_separability

for d in (2, 5, 20):
    n = d + 1
    row = [cover_separability_probability(z, d) for z in (n, 2 * n, 3 * n)]
    ripley = [
        cover_separability_probability(z, d, method="ripley") for z in (n, 2 * n, 3 * n)
    ]
    print(
        f"d = {d:>2} (N = {n:>2}): P at Z = N, 2N, 3N: exact "
        f"{row[0]:.3f} {row[1]:.3f} {row[2]:.3f}; "
        f"Ripley {ripley[0]:.3f} {ripley[1]:.3f} {ripley[2]:.3f}"
    )

# %%
# Monte Carlo with the exact separability test
# --------------------------------------------
# For each Z, draw Z standard normal points in R^d (in general position with
# probability one) and independent fair labels; count how often
# :func:`~sklearn_linsep.linear_separability` finds a separating hyperplane. A
# labelling with one class only is separable by definition.
rng = np.random.RandomState(0)
n_trials = 150


def monte_carlo(d, sizes):
    rates = []
    for z in sizes:
        separable = 0
        for _ in range(n_trials):
            X = rng.normal(size=(z, d))
            y = rng.randint(0, 2, size=z)
            if np.unique(y).size < 2:
                separable += 1
            else:
                separable += linear_separability(X, y).separable
        rates.append(separable / n_trials)
    return np.array(rates)


simulated = {}
for d, step in [(2, 1), (5, 2)]:
    n = d + 1
    sizes = np.arange(2, 4 * n + 1, step)
    simulated[d] = sizes, monte_carlo(d, sizes)
    exact = np.array([cover_separability_probability(z, d) for z in sizes])
    gap = simulated[d][1] - exact
    # standard error of a rate over n_trials draws (none where P is 0 or 1)
    sd = np.sqrt(exact * (1 - exact) / n_trials)
    z_scores = np.divide(gap, sd, out=np.zeros_like(gap), where=sd > 0)
    print(
        f"d = {d}: {sizes.size} sizes x {n_trials} trials; largest gap between the "
        f"Monte Carlo rate and the exact probability {np.abs(gap).max():.3f}, "
        f"largest in standard errors {np.abs(z_scores).max():.1f}"
    )
    for z, rate, p in zip(sizes, simulated[d][1], exact, strict=True):
        print(
            f"    Z = {z:>2} (Z/N = {z / n:.2f}): Monte Carlo {rate:.3f}, exact {p:.3f}"
        )

# %%
# The curves against Z / N
# ------------------------
fig, ax = plt.subplots(figsize=(8, 5))
for i, d in enumerate((2, 5, 20, 100)):
    n = d + 1
    sizes = np.arange(1, 4 * n + 1)
    ratio = sizes / n
    exact = [cover_separability_probability(z, d) for z in sizes]
    ripley = [cover_separability_probability(z, d, method="ripley") for z in sizes]
    ax.plot(ratio, exact, color=f"C{i}", label=f"exact, d = {d}")
    ax.plot(ratio, ripley, color=f"C{i}", ls=":", lw=1)
    if d in simulated:
        sim_sizes, rates = simulated[d]
        ax.plot(sim_sizes / n, rates, "o", color=f"C{i}", ms=4, mfc="none")
ax.plot([], [], "k:", lw=1, label="Ripley's approximation")
ax.plot([], [], "ko", ms=4, mfc="none", label="Monte Carlo (linear_separability)")
ax.axvline(2, color="gray", lw=0.8)
ax.axhline(0.5, color="gray", lw=0.8)
ax.set_xlabel("Z / N  (N = d + 1: affine hyperplanes in R^d)")
ax.set_ylabel("P(random labelling is linearly separable)")
ax.set_title("Cover's counting theorem")
ax.legend(fontsize="small")
fig.tight_layout()
plt.show()
