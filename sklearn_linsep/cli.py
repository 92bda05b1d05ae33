"""The command line: ``linsep report [PATH] --target COLUMN``.

"Is my data linearly separable, and how well?" With no PATH, the report runs on the
bundled Wisconsin breast cancer data, prepared as Ben-Israel & Levin did (θ = 43.01°).
The tables go to stdout (or, with ``--json``, the same content as JSON and nothing
else); progress and notes go to stderr. Any problem with the input ends with one
line on stderr and exit status 1 (2 for a wrong command line), never a traceback.
"""

import argparse
import json
import os
import sys
import warnings

import numpy as np

from ._report import (
    fitting_rows,
    format_report,
    plot_report,
    separability_report,
    standardizing_map,
)
from ._table import TableError, read_table

EXIT_ERROR = 1
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


def _parser():
    parser = argparse.ArgumentParser(
        prog="linsep",
        description="Linear separability of labelled data: decide it, measure it, "
        "find the hyperplane.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command")
    report = commands.add_parser(
        "report",
        help="is my data linearly separable, and how well?",
        description="Print the angle of separability, the exact separability "
        "verdict with its certificate, Cover's probability and the cross-validated "
        "accuracy of the linear classifiers. Without PATH: the bundled Wisconsin "
        "breast cancer data, prepared as Ben-Israel & Levin (2005) did.",
    )
    report.add_argument(
        "path", nargs="?", help="a CSV file with a header row (or Parquet)"
    )
    report.add_argument("--target", help="the class column")
    report.add_argument("--positive", help="report this class against the rest")
    report.add_argument(
        "--kappa", type=_positive_float, default=1.0, help="regularisation κ (1)"
    )
    report.add_argument(
        "--cv",
        type=_folds,
        default=10,
        help="cross-validation folds (10; 0 skips it)",
    )
    report.add_argument(
        "--standardize",
        action="store_true",
        help="scale the features to unit variance first",
    )
    report.add_argument(
        "--drop",
        nargs="+",
        action=_ColumnNames,
        default=[],
        metavar="COL",
        help="columns to leave out (repeatable; also a comma list: --drop id,batch)",
    )
    report.add_argument(
        "--decimal",
        choices=[".", ","],
        default=".",
        help="the decimal mark of the CSV's numbers (.)",
    )
    report.add_argument(
        "--keep-index",
        action="store_true",
        help="keep a saved pandas index (an unnamed first column of unique "
        "integers, Unnamed: 0, Parquet's index columns) as a feature",
    )
    report.add_argument(
        "--missing",
        choices=["drop", "mean"],
        help="what to do with missing cells (default: refuse, counting them)",
    )
    report.add_argument(
        "--json", action="store_true", help="print the report as JSON only"
    )
    report.add_argument(
        "--plot",
        metavar="FILE",
        help="save the data on the Fisher direction (.png, .svg or .pdf; .png "
        "when the name has none of these)",
    )
    report.add_argument("--seed", type=int, default=0, help="random seed (0)")
    report.add_argument(
        "--sample-rows",
        type=_positive_int,
        default=200_000,
        help="rows kept in memory at most; larger files are streamed (200000)",
    )
    report.add_argument(
        "--fit-rows",
        type=_positive_int,
        default=5000,
        help="rows for the cross-validation and the soft-margin hinge, which do not "
        "scale to many (5000)",
    )
    report.add_argument(
        "--quiet", action="store_true", help="no progress display on stderr"
    )
    return parser


def _version():
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sklearn-linsep")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "(not installed)"


class _ColumnNames(argparse.Action):
    """``--drop`` given several times, each with names or comma lists, adds up
    (argparse's default keeps only the last ``--drop``, silently)."""

    def __call__(self, parser, namespace, values, option_string=None):
        names = [*getattr(namespace, self.dest, [])]
        for value in values:
            names += [name.strip() for name in value.split(",") if name.strip()]
        setattr(namespace, self.dest, names)


def _positive_float(text):
    value = float(text)
    if not np.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _folds(text):
    value = int(text)
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 (none) or 2 or more, got {text}")
    return value


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text}")
    return value


def _bundled(args):
    from .datasets import load_breast_cancer_wisconsin

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
        "row_numbers": None,
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
        "row_numbers": table.row_numbers,
    }


def _read(args, log, progress):
    return read_table(
        args.path,
        args.target,
        drop=args.drop,
        missing=args.missing,
        positive=args.positive,
        sample_rows=args.sample_rows,
        seed=args.seed,
        decimal=args.decimal,
        keep_index=args.keep_index,
        log=log,
        progress=progress,
    )


def report_command(args):
    def log(message):
        if not args.quiet:
            print(f"linsep: {message}", file=sys.stderr)

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
            row_numbers=data["row_numbers"],
        )
    finally:
        progress.close()
    report["source"] = data["title"]
    report["notes"] = data["notes"]
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
    from ._stats import ClassStatistics

    return ClassStatistics.from_data(X, y, np.arange(n_classes))


def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare ``linsep``: what it can do
        parser.print_help()
        return 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report_command(args)
    except BrokenPipeError:
        # The reader of stdout went away (linsep ... | head): as a command killed
        # by SIGPIPE, quietly; stdout goes to devnull so that the interpreter's
        # final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13
    except (TableError, ValueError, OSError) as error:
        print(f"linsep: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("linsep: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # one line, never a traceback
        print(f"linsep: error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_ERROR
    return 0


if __name__ == "__main__":
    sys.exit(main())
