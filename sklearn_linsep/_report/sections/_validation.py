"""Cross-validated accuracy of the linear classifiers, ours and scikit-learn's."""

import warnings

import numpy as np
from sklearn.base import clone

from ..._fisher import FisherDiscriminant
from ..._online import Adaline, Perceptron, PocketPerceptron
from ..._svm import HardMarginSVM
from .._layout import columns, of_rows
from .._section import HeadlineParts, Section

_NEW_ROWS = "says how a linear rule does on new rows"  # what cross-validation says


def report_models(kappa=1.0, seed=0):
    """The classifiers the report cross-validates: ours, then scikit-learn's peers."""
    # Imported here, as the model selection in compute: a report without
    # cross-validation (--cv 0) never pays for them.
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.linear_model import Perceptron as SklearnPerceptron
    from sklearn.svm import LinearSVC

    return {
        "FisherDiscriminant": FisherDiscriminant(kappa=kappa),
        "Perceptron": Perceptron(random_state=seed),
        "PocketPerceptron": PocketPerceptron(random_state=seed),
        "Adaline": Adaline(random_state=seed),
        "HardMarginSVM": HardMarginSVM(),
        "sklearn LinearDiscriminantAnalysis": LinearDiscriminantAnalysis(),
        "sklearn Perceptron": SklearnPerceptron(random_state=seed),
        "sklearn LinearSVC": LinearSVC(random_state=seed),
    }


class CrossValidation(Section):
    key = "cross_validation"
    title = "Cross-validated accuracy"
    help = (
        (
            "accuracy",
            "the mean (and sd) over stratified folds of each classifier's accuracy "
            "on rows it was not fitted on: how well a linear rule does on new rows, "
            "which no verdict on the training rows says.",
        ),
    )

    def applies(self, data):
        return bool(data.settings.cv)

    def compute(self, data, errors):
        from sklearn.model_selection import StratifiedKFold
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        settings = data.settings
        rows = data.fitting_rows()
        data.run_settings["cv_rows"] = int(len(rows))
        X, y = data.X[rows], data.y[rows]
        smallest = int(np.bincount(y, minlength=data.n_classes).min())
        if smallest < settings.cv:
            return {"skipped": _too_few_rows(settings.cv, len(rows), smallest)}
        splitter = StratifiedKFold(
            n_splits=settings.cv, shuffle=True, random_state=settings.seed
        )
        folds = list(splitter.split(X, y))
        progress = data.progress or (lambda: None)
        results = {}
        for name, model in report_models(settings.kappa, settings.seed).items():
            if not settings.cv_raw:  # the scaler fitted on each fold's training rows
                model = make_pipeline(StandardScaler(), model)
            results[name] = self.guarded(
                errors,
                lambda m=model: _scores(m, X, y, folds, progress),
                part=name,
                failed={"mean": None, "sd": None},
            )
        return results

    def heading(self, report):
        settings, data = report["settings"], report["data"]
        rows = of_rows(settings.get("cv_rows", data["n_samples"]), data["n_samples"])
        sampled = " (uniform within each class)" if "of" in rows else ""
        scaling = (
            "raw features (--cv-raw)"
            if settings.get("cv_raw")
            else "features standardized within each fold"
        )
        return (
            f"{self.title} ({settings['cv']}-fold stratified, seed {settings['seed']}, "
            f"{rows}{sampled}; {scaling})"
        )

    def section_lines(self, report):
        if "skipped" in report[self.key]:
            return [self.heading(report), f"  skipped: {report[self.key]['skipped']}"]
        rows = [
            [name]
            + ([f"{s['mean']:.4f}", f"{s['sd']:.4f}"] if s["mean"] is not None
               else [self.error(report, name), ""])
            for name, s in report[self.key].items()
        ]  # fmt: skip
        return [self.heading(report)] + columns(["model", "mean", "sd"], rows)

    def headline(self, report):
        """The best accuracy measured, said after the distance's estimate; and the
        step to take next (asked also where the report has no cross-validation)."""
        section = report.get(self.key)
        best = best_model(section)
        measured = ""
        if best is not None:
            name, mean = best
            measured = (
                f"measured: the best cross-validated accuracy is {mean:.4f} ({name})"
            )
        return HeadlineParts(measured=measured, next_steps=_next_step(report, section))


def _next_step(report, section):
    """The cross-validation to look at, or the ``--cv`` these rows allow (none
    where they allow no folds)."""
    if section is not None and "skipped" not in section:
        return (f"the cross-validated accuracy {_NEW_ROWS}",)
    possible = report["settings"].get("cv_possible", 10)
    if possible >= 2:  # only folds this file allows
        return (f"--cv {min(10, possible)} {_NEW_ROWS}",)
    return ()


def _too_few_rows(cv, n_rows, smallest):
    """Why stratified folds cannot be made, and what would do."""
    advice = (
        f"--cv {smallest} is the most folds these rows allow"
        if smallest >= 2
        else "a class of one row cannot be both held out and fitted on, so these "
        "rows allow no cross-validation"
    )
    return (
        f"--cv {cv} needs at least {cv} rows of every class among the "
        f"{n_rows} rows it uses (--fit-rows), and the smallest class has {smallest}: "
        f"{advice}."
    )


def best_model(section):
    """``(name, mean accuracy)`` of the best cross-validated model, or None."""
    if not section or "skipped" in section:
        return None
    scored = [(s["mean"], name) for name, s in section.items() if s["mean"] is not None]
    if not scored:
        return None
    mean, name = max(scored)
    return name, mean


def largest_folds(data):
    """The most stratified folds the fitting rows allow (0: none)."""
    smallest = int(np.bincount(data.y[data.fitting_rows()],
                               minlength=data.n_classes).min())  # fmt: skip
    return smallest if smallest >= 2 else 0


def _scores(model, X, y, folds, progress):
    scores = []
    for train, test in folds:
        with warnings.catch_warnings():
            # Inseparable data make the perceptrons stop at max_iter and the hard
            # margin fall back to its soft limit, each with a warning: expected
            # here, and the accuracy says what matters.
            warnings.simplefilter("ignore")
            fitted = clone(model).fit(X[train], y[train])
            scores.append(float(fitted.score(X[test], y[test])))
        progress()
    return {"mean": float(np.mean(scores)), "sd": float(np.std(scores))}
