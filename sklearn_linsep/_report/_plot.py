"""The report's figure: the rows along the maximal-margin normal (separable) or
the Fisher direction (inseparable), in standardized units, with the margin band
or the certificate's rows, and the largest spread across that axis."""

import warnings
from dataclasses import dataclass

import numpy as np

from .._certificates import linear_separability
from .._fisher import FisherDiscriminant
from ._layout import count

PLOT_SIZE = (10.0, 4.5)  # inches, at PLOT_DPI: 1000 x 450 pixels
PLOT_DPI = 100


@dataclass
class PlotCoordinates:
    """``along``: each row's signed distance to the boundary (standardized units,
    positive on class 1); ``across``: its coordinate on the largest spread
    orthogonal to that axis; ``margin`` (separable) or ``certificate`` (the rows
    of the certificate, inseparable)."""

    along: np.ndarray
    across: np.ndarray
    y: np.ndarray
    separable: bool
    margin: float = None
    certificate: np.ndarray = None


def plot_coordinates(data, rows=None):
    """The figure's coordinates of the rows ``rows`` (default: the fitting rows)
    of a two-class :class:`~._context.ReportData`."""
    rows = data.fitting_rows() if rows is None else rows
    Z, y = data.standardized[rows], data.y[rows]
    result = linear_separability(Z, y, tol=data.tol)
    if result.separable:
        coef, intercept = np.asarray(result.coef, float), float(result.intercept)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fisher = FisherDiscriminant(kappa=data.kappa).fit(Z, y)
        coef, intercept = fisher.coef_[0], float(fisher.intercept_[0])
    length = np.linalg.norm(coef)
    along = (Z @ coef + intercept) / length
    across = _largest_spread_across(Z, coef / length)
    if result.separable:
        return PlotCoordinates(along, across, y, True, margin=float(result.margin))
    certificate = np.asarray(result.certificate_indices)
    return PlotCoordinates(along, across, y, False, certificate=certificate)


def _largest_spread_across(Z, direction):
    centred = Z - Z.mean(axis=0)
    rest = centred - np.outer(centred @ direction, direction)
    if Z.shape[1] < 2 or not np.any(rest):
        return np.zeros(len(Z))
    return centred @ np.linalg.svd(rest, full_matrices=False)[2][0]


def plot_report(data, path, title=None):
    """Save the figure (its format from the suffix of ``path``: png, svg, pdf) of
    a two-class :class:`~._context.ReportData`: the rows along the boundary's
    normal and across it, coloured by class, with the margin band (separable) or
    the certificate's rows circled (not); beside it, a histogram along the
    normal. ``title`` names the data in the figure's title."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = plot_coordinates(data)
    names = data.class_names
    figure, (scatter, histogram) = plt.subplots(
        1, 2, figsize=PLOT_SIZE, dpi=PLOT_DPI, width_ratios=[3, 2]
    )
    bins = np.histogram_bin_edges(points.along, bins=40)  # one set for both classes
    for k, colour in ((0, "tab:blue"), (1, "tab:orange")):
        mine = points.y == k
        scatter.scatter(points.along[mine], points.across[mine], s=8, alpha=0.6,
                        c=colour, label=names[k])  # fmt: skip
        histogram.hist(points.along[mine], bins=bins, alpha=0.6, color=colour,
                       label=names[k])  # fmt: skip
    for axes in (scatter, histogram):
        _boundary(axes, points)
    if not points.separable:
        marked = points.certificate
        scatter.scatter(points.along[marked], points.across[marked], s=60,
                        facecolors="none", edgecolors="k", linewidths=1.2,
                        label=f"certificate ({len(marked)} rows)")  # fmt: skip
    verdict = "separable" if points.separable else "not separable"
    axis = ("distance to the maximal-margin hyperplane" if points.separable
            else "distance to Fisher's boundary")  # fmt: skip
    figure.suptitle(
        f"{title + ': ' if title else ''}{names[0]} vs {names[1]}, {verdict} "
        f"({_rows_shown(len(points.y), data.n_rows)}, standardized units)"
    )
    scatter.set_xlabel(axis)
    scatter.set_ylabel("largest spread across it")
    histogram.set_xlabel(axis)
    histogram.set_ylabel("rows")
    scatter.legend(loc="best", fontsize="small")
    histogram.legend(loc="best", fontsize="small")
    figure.tight_layout()
    figure.savefig(path, dpi=PLOT_DPI)
    plt.close(figure)


def _rows_shown(shown, of_rows):
    """``5 000 of 300 000 rows`` when the figure shows part of them."""
    if shown >= of_rows:
        return f"{count(shown)} rows"
    return f"{count(shown)} of {count(of_rows)} rows"


def _boundary(axes, points):
    name = "hyperplane" if points.separable else "Fisher boundary"
    axes.axvline(0.0, color="k", linewidth=1, label=name)
    if points.separable:
        axes.axvspan(-points.margin, points.margin, color="0.85", zorder=0,
                     label=f"margin band (±{points.margin:.3g})")  # fmt: skip
