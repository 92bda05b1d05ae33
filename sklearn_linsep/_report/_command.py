"""``linsep report``: the command's work, once :mod:`sklearn_linsep.cli` has parsed
its line (read the table, run the report, print or plot it)."""

import gc
import importlib
import importlib.util
import json
import os
import sys
import threading
import types

import numpy as np

from ._columns import did_you_mean
from ._errors import TableError
from ._read import Table, read_table

# The report's modules below import scikit-learn and SciPy (1.3 s of a 3.7 s report
# on a 1e6 x 10 CSV): a thread imports them while the file is read
# (:class:`_ImportedAhead`), and the functions that use them import them from then.
# The class statistics' modules (with their compiled pass) come first: the read makes
# the statistics while the thread imports the rest (0.2 s of the report's last 0.3 s
# of imports at 1e6 x 10), and the main thread imports nothing meanwhile.
STATISTICS_MODULES = ("sklearn_linsep._stats", "sklearn_linsep._kernels._stats")
REPORT_MODULES = ("._compute", "._plot", "._text")
# What reading a file imports, imported before that thread starts: the main thread
# then imports nothing while it runs. Two threads importing at once may see a module
# half made, and a Ctrl-C landing in the main thread's import left the import lock
# held, the thread waiting on it (found by review). pyarrow's first conversion
# imports pandas, where installed, and its vendored version module; a zip's names
# are cp437 (a Ctrl-C in that first conversion hung the report: found by review).
READER_MODULES = ("pyarrow", "pyarrow.compute", "pyarrow.csv", "pyarrow.parquet",
                  "pyarrow.pandas_compat", "pyarrow.vendored.version",
                  "encodings.utf_8_sig", "encodings.cp437", "tqdm")  # fmt: skip
OPTIONAL_READER_MODULES = ("pandas",)
# Seconds an interrupted report waits for the import thread: a Ctrl-C landing in
# the import machinery can leave an import lock held (a CPython weakness), and the
# thread would wait on it for ever; the program then ends without it.
IMPORTS_AFTER_INTERRUPT = 10.0
# Named by an import of scikit-learn's (``sklearn.utils.fixes``) but used by no step
# of a report without scikit-learn's models: without cross-validation, a stand-in
# while the thread imports (:func:`_defer_until_used`), so that the module runs only
# where a later step imports it: 0.4-0.5 s of a 2.4-2.9 s report at 1e6 x 10. Only
# in the ``linsep`` program's process: a thread of a caller of ``main`` importing
# it meanwhile would keep the stand-in (found by review).
DEFERRED_MODULES = ("scipy.stats",)
IMPORT_THREAD = "linsep-imports"
PLOT_FORMATS = (".png", ".svg", ".pdf")  # matplotlib picks the format by suffix


def imports_abandoned():
    """Whether an interrupted report left its import thread waiting (see
    ``IMPORTS_AFTER_INTERRUPT``)."""
    return any(thread.name == IMPORT_THREAD and thread.is_alive()
               for thread in threading.enumerate())  # fmt: skip


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


BUNDLED_TITLE = "Wisconsin breast cancer (bundled)"
STDIN_TITLE = "standard input"
STDIN_PATH = "/dev/stdin"  # what ``-`` reads (once, into a temporary copy)


class _ImportedAhead:
    """``STATISTICS_MODULES`` then ``REPORT_MODULES`` imported in a thread, started
    at once (pyarrow parses without the GIL, and the import takes the other core),
    with stand-ins for the modules named in ``defer`` while it imports.
    Call it to wait for them (and raise the import's error, if any);
    :meth:`statistics` waits for the first ones only; :meth:`join` waits only: every
    exit waits, since a thread still importing as the interpreter ends could crash
    it (3 early errors in 30, found by review).

    The cyclic collector pauses until then: the imports and the read make many
    objects and free few, so its passes over them find nothing (0.16 s of 1.4 s
    of imports at 1e6 x 10, measured); :meth:`join` resumes it."""

    def __init__(self, defer=()):
        self._deferred = defer
        self._collecting = gc.isenabled()
        gc.disable()
        try:
            for name in READER_MODULES:
                importlib.import_module(name)
            for name in OPTIONAL_READER_MODULES:
                try:
                    importlib.import_module(name)
                except ImportError:
                    pass
            self._failed = []
            self._statistics_in = threading.Event()
            self._thread = threading.Thread(target=self._load, daemon=True,
                                            name=IMPORT_THREAD)  # fmt: skip
            self._thread.start()
        except BaseException:  # a reader missing: no thread to join
            self._resume()
            raise

    def _load(self):
        try:
            for name in self._deferred:
                _defer_until_used(name)
            for name in STATISTICS_MODULES:
                importlib.import_module(name)
            self._statistics_in.set()
            for name in REPORT_MODULES:
                importlib.import_module(name, __package__)
        except BaseException as error:  # noqa: BLE001 - raised by the caller
            self._failed.append(error)
        finally:
            for name in self._deferred:
                _take_out(name)
            self._statistics_in.set()

    def __call__(self):
        self.join()
        if self._failed:
            raise self._failed[0]

    def statistics(self):
        """Wait for ``STATISTICS_MODULES`` (and raise their import's error; a
        later module's is :meth:`__call__`'s)."""
        self._statistics_in.wait()
        if self._failed and not set(STATISTICS_MODULES) <= sys.modules.keys():
            raise self._failed[0]

    def join(self, timeout=None):
        try:
            self._thread.join(timeout)
        finally:  # a Ctrl-C while waiting, too
            self._resume()

    def _resume(self):
        if self._collecting:
            gc.enable()


class _UntilUsed(types.ModuleType):
    """A stand-in for a module not run yet, in ``sys.modules`` while the report's
    thread imports scikit-learn: an ``import`` of it binds it. Reading a name it
    does not hold takes it out (:func:`_take_out`) and reads the name in the module,
    imported by the import system (its locks, submodules and reload as in any
    process). Python's ``importlib.util.LazyLoader`` does not serve: every
    ``import`` of a module in ``sys.modules`` reads its ``__spec__``, which runs it."""

    def __getattr__(self, name):
        _take_out(self.__name__)
        return getattr(importlib.import_module(self.__name__), name)


_TAKING_OUT = threading.Lock()  # held over a check and a removal, never an import


def _defer_until_used(name):
    """Put an :class:`_UntilUsed` stand-in for ``name`` (a module of an imported
    parent) in ``sys.modules`` and its parent's names, where it is not imported
    yet."""
    if name in sys.modules:
        return
    parent, _, child = name.rpartition(".")
    spec = importlib.util.find_spec(name)
    if spec is None:
        return  # not installed: its import says so where it is made
    module = _UntilUsed(name)
    module.__spec__, module.__loader__ = spec, spec.loader
    module.__file__, module.__package__ = spec.origin, parent
    sys.modules[name] = module
    setattr(sys.modules[parent], child, module)


def _take_out(name):
    """Take the stand-in for ``name`` out of ``sys.modules`` and its parent's
    names, where it still is: the next import of ``name`` runs the module. The
    report's thread does this once it has imported what it imports, so that no
    stand-in outlives the imports that named the module."""
    with _TAKING_OUT:
        stand_in = sys.modules.get(name)
        if not isinstance(stand_in, _UntilUsed):
            return
        del sys.modules[name]
        parent, _, child = name.rpartition(".")
        # vars(): a missing name of the parent would import it (scipy's __getattr__)
        if vars(sys.modules[parent]).get(child) is stand_in:
            delattr(sys.modules[parent], child)


def _bundled(args):
    """The bundled Wisconsin data as a :class:`~._read.Table`."""
    from .._stats import ClassStatistics
    from ..datasets import load_breast_cancer_wisconsin

    if args.drop or args.missing or args.keep:
        raise TableError(
            "--drop, --keep and --missing apply to a file given as PATH (they take "
            "several names: give PATH before them, or end the names with --)."
        )
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
                f"{', '.join(names)}.{did_you_mean(args.positive, names)}"
            )
        positive = names.index(args.positive)
        names = [names[1 - positive], names[positive]]
        y = (y == positive).astype(int)
    return Table(
        X=data.data,
        y=y,
        row_ids=np.arange(len(y)),
        class_names=names,
        feature_names=[str(name) for name in data.feature_names],
        statistics=ClassStatistics.from_data(data.data, y, np.arange(2)),
        n_rows_read=len(y),
        n_rows_used=len(y),
        rows_named_by="position among the data set's rows, from 0",
        notes=[
            "the UCI file's 16 missing cells filled with the column means, as "
            "Ben-Israel & Levin (2005) did"
        ],
    )


def _load(args, log, ready):
    if args.path is None:
        ready()
        return _bundled(args)
    if args.path == "-":
        try:
            return _read(args, STDIN_PATH, log, ready)
        except TableError as error:  # named as the user named it
            raise TableError(str(error).replace(STDIN_PATH, "- (standard input)"))
    return _read(args, args.path, log, ready)


def _on_cluster(args, log):
    """``(table, verdicts)`` of PATH read on the cluster of ``--scheduler``
    (:mod:`._cluster`); its client closes when they are made."""
    if args.path in (None, "-"):
        raise TableError("--scheduler reads PATH on the cluster: give a file, a "
                         "directory or a glob its workers can read.")  # fmt: skip
    from ._cluster import connect, first_line, read_on_cluster

    with connect(args.scheduler):  # the default of dask's computations inside
        try:
            table, verdicts = read_on_cluster(args.path, args, log)
        except (TableError, ImportError):
            raise
        except Exception as error:  # noqa: BLE001 - a task's, raised by dask
            raise TableError(
                f"Reading {args.path} on the cluster at {args.scheduler} failed: "
                f"{first_line(error)}"
            ) from None
    for note in table.notes:
        log(f"note: {note}")
    return table, verdicts


def _title(args):
    if args.path is None:
        return BUNDLED_TITLE
    return STDIN_TITLE if args.path == "-" else args.path


def _read(args, path, log, ready):
    progress = _ReadingProgress(path, args.quiet) if os.path.isfile(path) else None
    try:
        table = read_table(
            path,
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
            keep_bytes=args.max_held,
            log=log,
            progress=progress,
            ready=ready.statistics,
        )
    finally:
        if progress is not None:
            progress.close()
    for note in table.notes:
        log(f"note: {note}")
    return table


def _settings(args):
    """The report's settings, made once from the command line (which has no
    ``--tol``: the exact test's default)."""
    from ._context import ReportSettings

    return ReportSettings(
        kappa=args.kappa,
        cv=args.cv,
        standardize=args.standardize,
        cv_raw=args.cv_raw,
        seed=args.seed,
        fit_rows=args.fit_rows,
        effort=args.effort,
        time_limit=args.time_limit,
    )


def report_command(args, check_interrupt=lambda: None, whole_process=False):
    """``linsep report``: read, check, compute, plot, print; ``check_interrupt()``
    raises a Ctrl-C that came and was lost on its way, before anything prints.
    ``whole_process``: the process ends with the command (the ``linsep`` program),
    so no thread of another's may meet a stand-in (``DEFERRED_MODULES``)."""

    def log(message):
        if not args.quiet:
            print(f"linsep: {message}", file=sys.stderr)

    # Cross-validation's models use scipy.stats: imported beside the read, then.
    deferred = DEFERRED_MODULES if whole_process and not args.cv else ()
    ready = _ImportedAhead(defer=deferred)
    try:
        if args.scheduler is None:
            table, verdicts = _load(args, log, ready), None
        else:  # dask imports pandas too: not beside the thread
            ready()
            table, verdicts = _on_cluster(args, log)
    except BaseException:
        ready.join(IMPORTS_AFTER_INTERRUPT)  # then :func:`imports_abandoned`
        raise
    ready()
    from ._compute import compute_report
    from ._context import ReportData
    from ._text import format_report
    from .sections._validation import report_models

    settings = _settings(args)
    data = ReportData(
        X=table.X,
        y=table.y,
        class_names=table.class_names,
        statistics=table.statistics,
        feature_names=table.feature_names,
        row_ids=table.row_ids,
        settings=settings,
        verdicts=verdicts,
    )
    title = _title(args)
    # From here on the data are read: whatever fails is said in the report, under
    # "errors", and the rest of it prints (exit 0).
    fits = settings.cv * len(report_models()) if settings.cv else 0
    progress = _Progress(fits, args.quiet)
    data.progress = progress
    try:
        report = compute_report(
            data,
            source=title,
            notes=table.notes,
            rows_named_by=table.rows_named_by,
            left_out=table.left_out,
        )
    finally:
        progress.close()
    check_interrupt()
    failed_plot = None if args.plot is None else _plot(args, data, report, log)
    if args.json:
        print(json.dumps(_json_ready(report), indent=2, allow_nan=False))
    else:
        sys.stdout.write(format_report(report, title))
        if "plot" in report:
            print(f"\nPlot saved to {report['plot']}")
    if failed_plot is not None:  # the report printed; the command did not do all
        raise TableError(f"no plot: {failed_plot}")


# The figures of --json: float64's last digits depend on the BLAS kernel and
# thread count (the order of a sum's terms), which the report must not.
JSON_DIGITS = 10


def _json_ready(value):
    """Strict JSON of the report: a non-finite number (none is expected)
    becomes null, and every float is rounded to ``JSON_DIGITS`` significant
    digits."""
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_ready(item) for item in value]
    if isinstance(value, float):
        return float(f"{value:.{JSON_DIGITS}g}") if np.isfinite(value) else None
    return value


def _verdict_drawn(report, key):
    """The verdict the figure draws (a pair's, or the joint one), or an error."""
    verdict = report.get(key)
    if isinstance(verdict, list):  # the pairs: two classes have one
        verdict = verdict[0] if verdict else None
    if verdict is None or verdict["separable"] is None:
        raise TableError("the separability test failed: the figure draws its verdict.")
    return verdict


def _plot(args, data, report, log):
    """Draw the figure into ``report["plot"]``; where it cannot be drawn, say why
    under ``report["errors"]["plot"]`` and return the reason (the report still
    prints; the command then fails)."""
    path = args.plot
    if not path.lower().endswith(PLOT_FORMATS):
        path += ".png"
    from ._plot import plot_classes, plot_report

    title = os.path.basename(_title(args))
    try:
        try:
            if data.n_classes == 2:
                verdict = _verdict_drawn(report, "separability")
                plot_report(data, verdict, path, title=title)
            else:
                verdict = _verdict_drawn(report, "joint_separability")
                plot_classes(data, verdict, path, title=title)
        except OSError as error:
            raise TableError(f"Cannot write {path}: {error.strerror}.") from None
    except Exception as error:  # noqa: BLE001 - a solver's too: said at the end
        report["errors"]["plot"] = str(error)
        return str(error)
    report["plot"] = path
    return None
