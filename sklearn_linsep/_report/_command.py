"""``linsep report``: the command's work, once :mod:`sklearn_linsep.cli` has parsed
its line (read the table, run the report, print or plot it)."""

import json
import os
import sys

import numpy as np

from .._kernels import say_before_compiling
from ._read import read_table
from ._sections import (
    fitting_rows,
    format_report,
    plot_report,
    separability_report,
    standardizing_map,
)
from ._source import TableError

PLOT_FORMATS = (".png", ".svg", ".pdf")  # matplotlib picks the format by suffix


class _Progress:
    """A tqdm bar on stderr while cross-validation runs: off when stderr is not a
    terminal, or when asked to be quiet."""

    def __init__(self, total, quiet):
        self._bar = None
        if not quiet and total and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(
                total=total, desc="cross-validation", unit="fit", file=sys.stderr
            )

    def __call__(self):
        if self._bar is not None:
            self._bar.update()

    def close(self):
        if self._bar is not None:
            self._bar.close()


class _ReadingProgress:
    """A tqdm bar of the bytes read, per pass over the file, from the first block
    on: off as :class:`_Progress` is."""

    def __init__(self, path, quiet):
        self._on = not quiet and sys.stderr.isatty()
        self._total = os.path.getsize(path) if self._on else 0
        self._bar, self._pass = None, None

    def __call__(self, number, count):
        if not self._on:
            return
        if number != self._pass:
            from tqdm import tqdm

            self.close()
            self._pass = number
            description = "reading" if number == 1 else "reading again"
            self._bar = tqdm(total=self._total, desc=description, unit="B",
                             unit_scale=True, file=sys.stderr)  # fmt: skip
        self._bar.update(count - self._bar.n)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _bundled(args):
    from ..datasets import load_breast_cancer_wisconsin

    data = load_breast_cancer_wisconsin()
    names = [str(name) for name in data.target_names]
    y = data.target
    if args.target not in (None, "class"):
        raise TableError(
            f"The bundled data's class column is 'class', not {args.target!r}."
        )
    if args.positive is not None:
        if args.positive not in names:
            raise TableError(
                f"--positive {args.positive!r} is not a class; the classes are: "
                f"{', '.join(names)}."
            )
        positive = names.index(args.positive)
        names = [names[1 - positive], names[positive]]
        y = (y == positive).astype(int)
    title = (
        "Wisconsin breast cancer (bundled; UCI, 699 rows, the 16 missing values "
        "replaced by the column mean as in Ben-Israel & Levin 2005)"
    )
    return {
        "X": data.data,
        "y": y,
        "class_names": names,
        "statistics": None,
        "title": title,
        "notes": [],
        "feature_names": [str(name) for name in data.feature_names],
        "row_ids": None,
        "rows_named_by": "position among the data set's rows, from 0",
        "left_out": [],
    }


def _load(args, log):
    if args.path is None:
        if args.drop or args.missing:
            raise TableError(
                "--drop and --missing apply to a file given as PATH (--drop takes "
                "several names: give PATH before it, or end the names with --)."
            )
        return _bundled(args)
    progress = (
        _ReadingProgress(args.path, args.quiet) if os.path.isfile(args.path) else None
    )
    try:
        table = _read(args, log, progress)
    finally:
        if progress is not None:
            progress.close()
    for note in table.notes:
        log(f"note: {note}")
    return {
        "X": table.X,
        "y": table.y,
        "class_names": table.class_names,
        "statistics": table.statistics,
        "title": args.path,
        "notes": table.notes,
        "feature_names": table.feature_names,
        "row_ids": table.row_ids,
        "rows_named_by": table.rows_named_by,
        "left_out": table.left_out,
    }


def _read(args, log, progress):
    return read_table(
        args.path,
        args.target,
        drop=args.drop,
        keep=args.keep,
        missing=args.missing,
        positive=args.positive,
        sample_rows=args.sample_rows,
        seed=args.seed,
        decimal=args.decimal,
        keep_index=args.keep_index,
        max_decompressed=args.max_decompressed,
        log=log,
        progress=progress,
    )


def report_command(args):
    def log(message):
        if not args.quiet:
            print(f"linsep: {message}", file=sys.stderr)

    say_before_compiling(log)
    data = _load(args, log)
    X, y, class_names = data["X"], data["y"], data["class_names"]
    n_classes = len(class_names)
    smallest = int(np.min(np.bincount(y, minlength=n_classes)))
    if args.cv and smallest < args.cv:
        raise TableError(
            f"--cv {args.cv} needs at least {args.cv} rows of every class "
            f"(the smallest class has {smallest}); lower --cv."
        )
    # From here on the data are read: whatever fails is said in the report, under
    # "errors", and the rest of it prints (exit 0).
    plot_path, plot_error = None, None
    if args.plot is not None:
        # Drawn before the cross-validation: a plot that cannot be made is said
        # before the long part, not after.
        try:
            plot_path = _plot(args, X, y, class_names, data["statistics"])
        except Exception as error:  # noqa: BLE001 - a solver's too: said, not fatal
            plot_error = str(error)
            log(f"note: no plot: {error}")
    progress = _Progress(args.cv * 8, args.quiet)
    try:
        report = separability_report(
            X,
            y,
            class_names=class_names,
            statistics=data["statistics"],
            kappa=args.kappa,
            cv=args.cv,
            standardize=args.standardize,
            seed=args.seed,
            fit_rows=args.fit_rows,
            progress=progress,
            feature_names=data["feature_names"],
            row_ids=data["row_ids"],
        )
    finally:
        progress.close()
    report["source"] = data["title"]
    report["notes"] = data["notes"]
    report["data"]["rows_named_by"] = data["rows_named_by"]
    report["data"]["left_out"] = [
        {"column": name, "rule": rule} for name, rule in data["left_out"]
    ]
    if plot_path is not None:
        report["plot"] = plot_path
    if plot_error is not None:
        report["errors"]["plot"] = plot_error
    if args.json:
        # Strict JSON: a non-finite number (none is expected) becomes null.
        print(json.dumps(_finite(report), indent=2, allow_nan=False))
    else:
        sys.stdout.write(format_report(report, data["title"], explain=not args.quiet))
        if plot_path is not None:
            print(f"\nPlot saved to {plot_path}")


def _finite(value):
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def _plot(args, X, y, class_names, statistics):
    if len(class_names) != 2:
        raise TableError(
            f"--plot draws two classes; the data have {len(class_names)}. Use "
            "--positive."
        )
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise TableError("--plot needs matplotlib (pip install matplotlib).") from None
    if args.standardize:
        mean, scale = standardizing_map(
            statistics
            if statistics is not None
            else _statistics_of(X, y, len(class_names))
        )
        X = (X - mean) / scale
    path = args.plot
    if not path.lower().endswith(PLOT_FORMATS):
        path += ".png"
    # The plot fits the hard margin too: its soft limit does not scale to many rows.
    rows = fitting_rows(y, args.fit_rows, args.seed)
    X, y = X[rows], y[rows]
    try:
        title = os.path.basename(args.path) if args.path else "breast cancer (bundled)"
        plot_report(X, y, class_names, path, kappa=args.kappa, title=title)
    except OSError as error:
        raise TableError(f"Cannot write {path}: {error.strerror}.") from None
    return path


def _statistics_of(X, y, n_classes):
    from .._stats import ClassStatistics

    return ClassStatistics.from_data(X, y, np.arange(n_classes))
