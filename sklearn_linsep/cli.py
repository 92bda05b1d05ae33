"""The command line: ``linsep report [PATH] --target COLUMN``.

"Is my data linearly separable, and how well?" With no PATH, the report runs on the
bundled Wisconsin breast cancer data, prepared as Ben-Israel & Levin did (θ = 43.01°).
The tables go to stdout (or, with ``--json``, the same content as JSON and nothing
else); progress and notes go to stderr. Any problem with the input ends with one
line on stderr and exit status 1 (2 for a wrong command line), never a traceback.
"""

import argparse
import gc
import math
import os
import signal
import stat
import sys
import threading
import warnings

from ._version import __version__

# The report's code (and numpy and scikit-learn with it) is imported once the
# command line is parsed: ``linsep --help`` and ``--version`` need none of it.

EXIT_ERROR = 1
EXIT_INTERRUPTED = 128 + signal.SIGINT
STDIN = "-"  # PATH that reads standard input


def _parser():
    parser = argparse.ArgumentParser(
        prog="linsep",
        description="Linear separability of labelled data: decide it, measure it, "
        "find the hyperplane.",
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__}"
    )
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
        "path",
        nargs="?",
        help="a CSV file with a header row (or Parquet); a directory or a quoted "
        "glob ('parts/*.parquet') of such files with the same columns, read as one "
        "table; - reads standard input (cat data.csv | linsep report - --target y), "
        "and so does no PATH when standard input is a pipe or a file (linsep "
        "report --target y < data.csv)",
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
        help="compute the angle on features scaled to unit variance",
    )
    report.add_argument(
        "--cv-raw",
        action="store_true",
        help="cross-validate on the features as they are (by default each model "
        "standardizes them on each fold's training rows)",
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
        "--keep",
        nargs="+",
        action=_ColumnNames,
        default=[],
        metavar="COL",
        help="columns to keep as features though they look like identifiers "
        "(named id, index or *_id; integers counting the rows; distinct text)",
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
        "--max-decompressed",
        type=_byte_count,
        default=8 << 30,
        metavar="SIZE",
        help="the most an xz or zip file, or a pipe, may fill in a temporary "
        "file (8G; K, M, G, T are powers of 1024)",
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
        type=_plot_path,
        metavar="FILE",
        help="save the data on the Fisher direction (.png, .svg or .pdf; .png "
        "when the name has none of these)",
    )
    report.add_argument("--seed", type=_seed, default=0, help="random seed (0)")
    report.add_argument(
        "--sample-rows",
        type=_positive_int,
        default=200_000,
        help="rows of the sample that the exact test, the complexity measures, "
        "cross-validation and the plot use, about this many (every class keeps 50 "
        "rows or all it has); the class statistics use every row (200000)",
    )
    report.add_argument(
        "--max-held",
        type=_byte_count,
        default=256 << 20,
        metavar="SIZE",
        help="the most a file's parsed rows may take in memory while it is read "
        "(256M): a larger file is read twice, streamed, holding only its sample",
    )
    report.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="a dask.distributed scheduler (tcp://host:8786, or a scheduler file): "
        "PATH is read by dask.dataframe on its cluster, where the class statistics "
        "and every pair's exact verdict are computed over every row; a sample of "
        "--sample-rows comes here for the rest (the dask extra)",
    )
    report.add_argument(
        "--fit-rows",
        type=_positive_int,
        default=5000,
        help="rows for the cross-validation and the soft-margin hinge, which do not "
        "scale to many (5000)",
    )
    report.add_argument(
        "--effort",
        type=_non_negative_int,
        default=80,
        help="exact verdicts the search for the fewest rows to remove of an "
        "inseparable pair may make: the same lines on any machine (80)",
    )
    report.add_argument(
        "--time-limit",
        type=_positive_float,
        default=60.0,
        help="seconds that search may take per pair at most, a safety cap (60)",
    )
    report.add_argument(
        "--quiet",
        action="store_true",
        help="no progress display and no notes on stderr",
    )
    return parser


class _ColumnNames(argparse.Action):
    """``--drop`` given several times adds up (argparse's default keeps only the
    last ``--drop``, silently). Comma lists are split once the header is known
    (a column may be called ``size,mm``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), *values])


def _positive_float(text):
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _folds(text):
    value = int(text)
    if value < 0 or value == 1:
        raise argparse.ArgumentTypeError(f"must be 0 (none) or 2 or more, got {text}")
    return value


def _seed(text):
    value = int(text)
    if not 0 <= value < 2**32:
        raise argparse.ArgumentTypeError(f"must be in [0, 2**32 - 1], got {text}")
    return value


def _byte_count(text):
    """``8G``, ``500M``, ``1048576``: a number of bytes, K/M/G/T by 1024."""
    units = {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
    number, unit = text.strip().upper().rstrip("IB"), ""
    if number and number[-1] in units:
        number, unit = number[:-1], number[-1]
    try:
        value = float(number) * (1 << units[unit])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a size such as 8G or 500M, got {text}"
        ) from None
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive size, got {text}")
    return int(value)


def _plot_path(text):
    """A file to write: not a directory, in a directory that exists."""
    if os.path.isdir(text):
        example = os.path.join(text, "report.png")
        raise argparse.ArgumentTypeError(
            f"{text} is a directory; give a file name (e.g. {example})"
        )
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"no directory {folder} to write into")
    return text


def _non_negative_int(text):
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {text}")
    return value


def _data_path(path):
    """PATH as given, or ``-`` (standard input) where none is given and standard
    input is a pipe, a FIFO or a redirected file; a terminal, ``/dev/null`` or a
    closed standard input leave the bundled data."""
    if path is not None:
        return path
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # closed, or no file behind it
        return None
    return STDIN if stat.S_ISFIFO(mode) or stat.S_ISREG(mode) else None


class _Interrupts:
    """Ctrl-C, remembered while the command runs: Python raises KeyboardInterrupt
    where the signal lands, and one landing in the import machinery's callbacks is
    printed as ignored, or becomes another error (numpy's ImportError, a module
    half made), and the report went on to exit 0 (found by review, 2-3% of
    Ctrl-Cs in the first second). The command ends as interrupted whenever one
    came. Only where Python's own handler is in place (not where SIGINT is
    ignored, nor off the main thread)."""

    def __init__(self):
        self.seen = False
        self._installed = (threading.current_thread() is threading.main_thread()
                           and signal.getsignal(signal.SIGINT)
                           is signal.default_int_handler)  # fmt: skip

    def _handler(self, signum, frame):
        self.seen = True
        raise KeyboardInterrupt

    def _unraisable(self, unraisable):
        # The import machinery's callbacks print an exception they cannot raise: a
        # Ctrl-C lost there is remembered here, not printed as a traceback.
        if not issubclass(unraisable.exc_type, KeyboardInterrupt):
            self._hook(unraisable)

    def __enter__(self):
        if self._installed:
            self._hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable
            signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            sys.unraisablehook = self._hook

    def check(self):
        """Raise the Ctrl-C that came, if one did (before the report prints)."""
        if self.seen:
            raise KeyboardInterrupt


def _interrupted():
    print("linsep: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def main(argv=None):
    """Run the command line; returns the exit status."""
    return _command_line(argv, whole_process=False)


def _command_line(argv, whole_process):
    """:func:`main`; ``whole_process``: the process ends with the command."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # a bare ``linsep``: what it can do
        parser.print_help()
        return 0
    args.path = _data_path(args.path)
    if args.path not in (None, STDIN) and not os.path.lexists(args.path):
        # Said before the report's imports (a second or more); a glob is
        # matched by the reader.
        from ._report._source import is_glob

        if not is_glob(args.path):
            print(f"linsep: error: No such file: {args.path}", file=sys.stderr)
            return EXIT_ERROR
    interrupts = _Interrupts()
    try:
        with warnings.catch_warnings(), interrupts:
            # The library's warnings are said in the report's own words (a
            # section that fails says why in its place).
            warnings.simplefilter("ignore")
            from ._report._command import report_command

            report_command(args, check_interrupt=interrupts.check,
                           whole_process=whole_process)  # fmt: skip
    except BrokenPipeError:
        # The reader of stdout went away (linsep ... | head): as a command killed
        # by SIGPIPE, quietly; stdout goes to devnull so that the interpreter's
        # final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as error:  # one line, never a traceback
        if interrupts.seen:  # the Ctrl-C became this error
            return _interrupted()
        shown = error  # TableError is a ValueError: its message is the whole line
        if not isinstance(error, (ValueError, OSError)):
            shown = f"{type(error).__name__}: {error}"
        print(f"linsep: error: {shown}", file=sys.stderr)
        return EXIT_ERROR
    return _interrupted() if interrupts.seen else 0



def _program(argv=None):
    """The ``linsep`` program (and ``python -m sklearn_linsep``): :func:`main`'s
    exit status."""
    status = _command_line(argv, whole_process=True)
    # The interpreter's last collections walk every object of the modules the report
    # imported (0.15 s of a 2.6 s report at 1e6 x 10): frozen, they are not walked.
    # The process ends here, with nothing of the command's left to collect.
    gc.freeze()
    command = sys.modules.get("sklearn_linsep._report._command")
    if command is not None and command.imports_abandoned():
        # An interrupt left the import thread on a lost lock: the interpreter's
        # shutdown would wait on it, or crash beside it.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":
    sys.exit(_program())
