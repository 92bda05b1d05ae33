"""Cross-validated accuracy of the linear classifiers, ours and scikit-learn's."""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from ..._fisher import FisherDiscriminant
from ..._online import Adaline, Perceptron, PocketPerceptron
from ..._svm import HardMarginSVM
from .._layout import columns, of_rows
from .._section import Section


def report_models(kappa=1.0, seed=0):
    """The classifiers the report cross-validates: ours, then scikit-learn's peers."""
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
        return bool(data.cv)

    def compute(self, data, errors):
        rows = data.fitting_rows()
        data.settings["cv_rows"] = int(len(rows))
        X, y = data.X[rows], data.y[rows]
        splitter = StratifiedKFold(
            n_splits=data.cv, shuffle=True, random_state=data.seed
        )
        folds = list(splitter.split(X, y))
        progress = data.progress or (lambda: None)
        results = {}
        for name, model in report_models(data.kappa, data.seed).items():
            if data.standardize:
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
        return (
            f"{self.title} ({settings['cv']}-fold stratified, seed {settings['seed']}, "
            f"{rows}{sampled})"
        )

    def section_lines(self, report):
        rows = [
            [name]
            + ([f"{s['mean']:.4f}", f"{s['sd']:.4f}"] if s["mean"] is not None
               else [self.error(report, name), ""])
            for name, s in report[self.key].items()
        ]  # fmt: skip
        return [self.heading(report)] + columns(["model", "mean", "sd"], rows)


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
