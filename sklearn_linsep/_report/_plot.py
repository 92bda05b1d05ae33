"""The report's figure. Two classes: the rows along the maximal-margin normal
(separable) or the Fisher direction (inseparable), in standardized units, with
the margin band or the certificate's rows, and the largest spread across that
axis. More classes: the rows on the top two discriminant directions, with the
joint certificate's rows circled."""

import warnings
from dataclasses import dataclass

import numpy as np

from .._fisher import FisherDiscriminant
from ._layout import of_rows, plain

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


def plot_coordinates(data, verdict):
    """The figure's coordinates of a two-class :class:`~._context.ReportData`,
    drawn from the report's ``verdict`` (its hyperplane, or its certificate's
    rows), so that the figure says what the verdict says: the fitting rows, and
    the certificate's rows among them."""
    rows, certificate = data.fitting_rows(), None
    if not verdict["separable"]:
        rows, certificate = certificate_positions(data, verdict["certificate"])
    Z, y = data.standardized[rows], data.y[rows]
    if verdict["separable"]:
        plane = verdict["hyperplane"]
        coef = np.array(list(plane["coef"].values()), dtype=float)
        intercept = float(plane["intercept"])
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fisher = FisherDiscriminant(kappa=data.settings.kappa).fit(Z, y)
        coef, intercept = fisher.coef_[0], float(fisher.intercept_[0])
    length = np.linalg.norm(coef)
    along = (Z @ coef + intercept) / length
    across = _largest_spread_across(Z, coef / length)
    margin = float(verdict["margin"]) if verdict["separable"] else None
    return PlotCoordinates(along, across, y, verdict["separable"], margin, certificate)


def _largest_spread_across(Z, direction):
    centred = Z - Z.mean(axis=0)
    rest = centred - np.outer(centred @ direction, direction)
    if Z.shape[1] < 2 or not np.any(rest):
        return np.zeros(len(Z))
    return centred @ np.linalg.svd(rest, full_matrices=False)[2][0]


def _pyplot():
    """matplotlib's pyplot on the file-only backend, or an error that names the
    extra to install."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            "--plot needs matplotlib: pip install \"sklearn-linsep[plot]\""
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def certificate_positions(data, certificate):
    """``(rows, marked)``: the fitting rows and the certificate's rows among
    them (``marked``, positions in ``rows``), from a certificate's entries
    (their ``row``, as the data name them)."""
    rows = data.fitting_rows()
    if not certificate:
        return rows, np.array([], dtype=np.intp)
    position = {plain(row): i for i, row in enumerate(data.row_ids)}
    proof = np.unique([position[plain(entry["row"])] for entry in certificate])
    rows = np.union1d(rows, proof)
    return rows, np.searchsorted(rows, proof)


def plot_classes(data, verdict, path, title=None):
    """Save the figure of K > 2 classes: the fitting rows on the top two
    discriminant directions (:class:`~sklearn_linsep.FisherDiscriminant`'s
    ``transform``, in standardized units), coloured by class, with the joint
    certificate's rows circled where the joint ``verdict`` is inseparable."""
    plt = _pyplot()
    rows, marked = certificate_positions(data, verdict.get("certificate"))
    Z, y = data.standardized[rows], data.y[rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fisher = FisherDiscriminant(kappa=data.settings.kappa).fit(Z, y)
    projected = fisher.transform(Z)
    if projected.shape[1] < 2:  # one feature: the second axis is empty
        projected = np.column_stack([projected[:, 0], np.zeros(len(Z))])
    figure, axes = plt.subplots(figsize=PLOT_SIZE, dpi=PLOT_DPI)
    colours = plt.get_cmap("tab10" if data.n_classes <= 10 else "tab20")
    for k, name in enumerate(data.class_names):
        mine = y == k
        axes.scatter(projected[mine, 0], projected[mine, 1], s=8, alpha=0.6,
                     color=colours(k % colours.N), label=name)  # fmt: skip
    if marked.size:
        axes.scatter(projected[marked, 0], projected[marked, 1], s=60,
                     facecolors="none", edgecolors="k", linewidths=1.2,
                     label=f"joint certificate ({marked.size} rows)")  # fmt: skip
    outcome = "jointly separable" if verdict["separable"] else "not jointly separable"
    figure.suptitle(
        f"{title + ': ' if title else ''}{data.n_classes} classes, {outcome} "
        f"({of_rows(len(y), data.n_rows)}, standardized units)"
    )
    axes.set_xlabel("first discriminant direction")
    axes.set_ylabel("second discriminant direction")
    axes.legend(loc="best", fontsize="small", ncol=2 if data.n_classes > 5 else 1)
    figure.tight_layout()
    figure.savefig(path, dpi=PLOT_DPI)
    plt.close(figure)


def plot_report(data, verdict, path, title=None):
    """Save the figure (its format from the suffix of ``path``: png, svg, pdf) of
    a two-class :class:`~._context.ReportData` and its report's ``verdict``
    (:func:`plot_coordinates`): the rows along the boundary's
    normal and across it, coloured by class, with the margin band (separable) or
    the certificate's rows circled (not); beside it, a histogram along the
    normal. ``title`` names the data in the figure's title."""
    plt = _pyplot()
    points = plot_coordinates(data, verdict)
    names = data.class_names
    figure, (scatter, histogram) = plt.subplots(
        1, 2, figsize=PLOT_SIZE, dpi=PLOT_DPI, width_ratios=[3, 2]
    )
    bins = _bins_edged_at_zero(points.along)
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
        f"({of_rows(len(points.y), data.n_rows)}, standardized units)"
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


def _bins_edged_at_zero(values, count=40):
    """About ``count`` bins of one width for both classes, one edge at 0: a bin
    must not straddle the boundary and show both classes on one side of it."""
    width = max(np.ptp(values), 1e-12) / count
    return width * np.arange(
        np.floor(values.min() / width), np.ceil(values.max() / width) + 1
    )


def _boundary(axes, points):
    name = "hyperplane" if points.separable else "Fisher boundary"
    axes.axvline(0.0, color="k", linewidth=1, label=name)
    if points.separable:
        axes.axvspan(-points.margin, points.margin, color="0.85", zorder=0,
                     label=f"margin band (±{points.margin:.3g})")  # fmt: skip
