"""Start-up: imports, ``linsep --help``, first fits and the first report, each in a
fresh process, ours against scikit-learn's counterparts in the same run.

Run from the repository root (about 2 minutes at the default 5 repeats)::

    python benchmarks/bench_startup.py
    python benchmarks/bench_startup.py --repeats 3 --only fits

Every figure is the median wall time of ``--repeats`` fresh processes (start-up,
imports and the call). The kernels are compiled at install (C extension modules), so
a process's first fit is its only kind: there is no cache to fill and no "cold"
process. The peers are scikit-learn processes that import and fit:
``LinearDiscriminantAnalysis`` for FisherDiscriminant, ``Perceptron`` for
Perceptron, PocketPerceptron and Adaline, ``SVC(kernel="linear")`` for HardMarginSVM
and linear_separability. The data: 500 × 10, two Gaussian classes.

The targets, printed beside each ratio: a first fit within 1.5× of its peer's
process; ``from sklearn_linsep import FisherDiscriminant, Perceptron,
HardMarginSVM`` within 1.2× of scikit-learn's three estimator imports; ``linsep
--help`` and ``--version`` within 0.3 s and without numpy; ``linsep report`` on the
bundled data within 3 s.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line  # noqa: E402

DATA = (
    "import numpy as np; rng = np.random.RandomState(0); "
    "X = rng.normal(size=(500, 10)); y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int); "
)
FIT_OURS = "from sklearn_linsep import {} as E; E().fit(X, y)"
OURS = {
    **{
        name: FIT_OURS.format(name)
        for name in (
            "FisherDiscriminant",
            "Perceptron",
            "PocketPerceptron",
            "Adaline",
            "HardMarginSVM",
        )
    },
    "linear_separability": (
        "from sklearn_linsep import linear_separability; linear_separability(X, y)"
    ),
}
PEERS = {
    "LinearDiscriminantAnalysis": (
        "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis as E; "
        "E().fit(X, y)"
    ),
    "Perceptron": "from sklearn.linear_model import Perceptron as E; E().fit(X, y)",
    "SVC(kernel='linear')": (
        "from sklearn.svm import SVC; SVC(kernel='linear').fit(X, y)"
    ),
}
PEER_OF = {
    "FisherDiscriminant": "LinearDiscriminantAnalysis",
    "Perceptron": "Perceptron",
    "PocketPerceptron": "Perceptron",
    "Adaline": "Perceptron",
    "HardMarginSVM": "SVC(kernel='linear')",
    "linear_separability": "SVC(kernel='linear')",
}
IMPORT_OURS = "from sklearn_linsep import FisherDiscriminant, Perceptron, HardMarginSVM"
IMPORT_PEERS = (
    "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis; "
    "from sklearn.linear_model import Perceptron; from sklearn.svm import SVC"
)
NO_NUMPY = (
    "import sys; from sklearn_linsep.cli import main\n"
    "try:\n    main([{flag!r}])\nexcept SystemExit:\n    pass\n"
    "assert 'numpy' not in sys.modules, 'numpy was imported'"
)


def linsep_command():
    """The installed ``linsep`` script beside this interpreter."""
    script = os.path.join(os.path.dirname(sys.executable), "linsep")
    return (
        [script] if os.path.exists(script) else [sys.executable, "-m", "sklearn_linsep"]
    )


def run(command):
    """Wall seconds of one process."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def fresh(command, repeats):
    """Median seconds of ``command`` in ``repeats`` fresh processes (after one
    untimed, so that the files it reads are in the page cache as a user's are)."""
    run(command)
    return statistics.median(run(command) for _ in range(repeats))


def python(code):
    return [sys.executable, "-c", code]


def row(name, ours, peer=None, target=None, limit=None):
    """One line: our seconds, the peer's and the ratio against its target, or our
    seconds against an absolute limit."""
    if peer is not None:
        ratio = ours / peer
        verdict = "met" if ratio <= target else "MISSED"
        print(f"{name:<52} {ours:7.2f} s {peer:7.2f} s {ratio:6.2f}x  "
              f"(target <= {target}x: {verdict})")  # fmt: skip
    else:
        verdict = "met" if ours <= limit else "MISSED"
        print(f"{name:<52} {ours:7.2f} s {'':>9} {'':>7}  "
              f"(target <= {limit} s: {verdict})")  # fmt: skip


def imports(repeats):
    print(f"{'imports and the command line':<52} {'ours':>9} {'peer':>9} {'ratio':>7}")
    peer = fresh(python(IMPORT_PEERS), repeats)
    row("from sklearn_linsep import Fisher.., Perc.., Hard..",
        fresh(python(IMPORT_OURS), repeats), peer, 1.2)  # fmt: skip
    row("import sklearn_linsep (vs import sklearn)",
        fresh(python("import sklearn_linsep"), repeats),
        fresh(python("import sklearn"), repeats), 1.2)  # fmt: skip
    for flag in ("--help", "--version"):
        check = subprocess.run(
            python(NO_NUMPY.format(flag=flag)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        numpy = "no numpy" if check.returncode == 0 else "NUMPY IMPORTED"
        row(f"linsep {flag} ({numpy})",
            fresh([*linsep_command(), flag], repeats), limit=0.3)  # fmt: skip
    print()


def fits(repeats):
    print(
        f"{'first fit, 500 x 10, fresh process':<52} "
        f"{'ours':>9} {'peer':>9} {'ratio':>7}"
    )
    peers = {name: fresh(python(DATA + code), repeats)
             for name, code in PEERS.items()}  # fmt: skip
    for name, peer in peers.items():
        print(f"  peer {name:<39} {peer:7.2f} s")
    for name, code in OURS.items():
        peer = peers[PEER_OF[name]]
        row(name, fresh(python(DATA + code), repeats), peer, 1.5)
    print()


def report(repeats):
    print(f"{'linsep report (bundled data)':<52} {'ours':>9}")
    row("linsep report", fresh([*linsep_command(), "report"], repeats), limit=3)
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", choices=["imports", "fits", "report"])
    args = parser.parse_args()
    print(machine_line())
    print(f"python {sys.version.split()[0]}; medians of {args.repeats} fresh processes")
    print()
    for part in (imports, fits, report):
        if args.only in (None, part.__name__):
            part(args.repeats)


if __name__ == "__main__":
    main()
