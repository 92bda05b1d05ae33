"""``linsep report --cv 0`` on a large CSV against one ``pandas.read_csv`` of it,
both as whole processes (start-up included), in the same run.

Run from the repository root::

    python benchmarks/bench_read.py               # 1e6 x 10, ~1 minute
    python benchmarks/bench_read.py --rows 200000

The file (Gaussian classes, 10 features and a label, written by pandas without its
index, ~190 MB at 1e6 rows) is made in a temporary directory. Each command runs
``--repeats`` times in turn; the medians and their ratio are printed (the issue's
target: the report within 3x of pandas' read), with each process's peak resident
memory (``ru_maxrss``) against the file's numeric size (8 bytes per cell).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import machine_line

PEAK = (
    "import resource, sys; "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"
)


def commands(path):
    return {
        "pandas.read_csv": [
            sys.executable,
            "-c",
            f"import sklearn_linsep, pandas; pandas.read_csv({path!r}); {PEAK}",
        ],
        "linsep report --cv 0": [
            sys.executable,
            "-c",
            (
                "from sklearn_linsep.cli import _program; "  # the linsep program
                f"_program(['report', {path!r}, '--target', 'label', '--cv', '0', "
                f"'--quiet']); {PEAK}"
            ),
        ],
    }


def run_process(command):
    """``(seconds, peak RSS in MB)`` of one whole process running ``command``."""
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    peak_kb = int(done.stderr.strip().splitlines()[-1])
    return time.perf_counter() - start, peak_kb / 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"# {machine_line()}")
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; median of "
          f"{args.repeats} whole processes")  # fmt: skip
    rng = np.random.default_rng(0)
    n, p = args.rows, args.features
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, p)) + 0.5 * y[:, None]
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "big.csv")
        frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
        frame["label"] = y
        frame.to_csv(path, index=False)
        size = os.path.getsize(path) / 2**20
        numeric = n * (p + 1) * 8 / 2**20
        print(f"# {n} x {p} + label: {size:.0f} MB of CSV, {numeric:.0f} MB numeric")
        runs = {name: [] for name in commands(path)}
        for _ in range(args.repeats):
            for name, command in commands(path).items():
                runs[name].append(run_process(command))
        medians = {}
        for name, values in runs.items():
            seconds = statistics.median(v[0] for v in values)
            peak = max(v[1] for v in values)
            medians[name] = seconds
            print(f"{name:>22}: {seconds:6.2f} s, peak RSS {peak:6.0f} MB")
        ratio = medians["linsep report --cv 0"] / medians["pandas.read_csv"]
        print(f"report / read_csv = {ratio:.2f} (target <= 3)")


if __name__ == "__main__":
    main()
