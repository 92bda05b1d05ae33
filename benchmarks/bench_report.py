"""The report on many classes against the bundled report, with the default BLAS
threads and with one, alone and beside a process that keeps one core busy.

Run from the repository root::

    python benchmarks/bench_report.py            # about 2 minutes

``linsep report digits.csv --target digit --cv 0`` (1 797 x 64, 10 classes: the
joint verdict, 45 pairs and their statistics) and the bundled ``linsep report
--cv 0``, each a fresh process (its import included), best of ``--repeats``.
The target (the issue "The report where a newcomer trips"): digits with the
default threads at most 1.5x the bundled report's time, or 4 s, whichever is
larger, alone and beside a busy core. The small solves of the exact core and the
statistics' small decompositions run on one BLAS thread (``_threads.py``): with
the default threads beside a busy core they used to wait on it (10 s and more).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import print_machine  # noqa: E402

BUSY = "import time\nend = time.time() + 600\nwhile time.time() < end: pass\n"


def write_digits(folder):
    from sklearn.datasets import load_digits

    data = load_digits(as_frame=True)
    frame = data.frame.rename(columns={"target": "digit"})
    path = os.path.join(folder, "digits.csv")
    frame.to_csv(path, index=False)
    return path


def seconds(command, environment):
    start = time.perf_counter()
    subprocess.run(command, env=environment, check=True, stdin=subprocess.DEVNULL,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print_machine()
    linsep = [sys.executable, "-m", "sklearn_linsep", "report"]
    with tempfile.TemporaryDirectory() as folder:
        digits = write_digits(folder)
        commands = {
            "bundled --cv 0": linsep + ["--cv", "0", "--quiet"],
            "digits --cv 0": linsep + [digits, "--target", "digit", "--cv", "0",
                                       "--quiet"],  # fmt: skip
        }
        default = dict(os.environ)
        one = dict(default, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
        subprocess.run(commands["bundled --cv 0"], check=True,  # warm the caches
                       stdin=subprocess.DEVNULL, capture_output=True)  # fmt: skip
        print("| load | BLAS threads | bundled (s) | digits (s) | ratio | target |")
        print("|---|---|---|---|---|---|")
        for load in ("alone", "one core busy"):
            busy = None
            if load != "alone":
                busy = subprocess.Popen([sys.executable, "-c", BUSY])
            try:
                for threads, environment in (("default", default), ("1", one)):
                    best = {
                        name: min(seconds(command, environment)
                                  for _ in range(args.repeats))  # fmt: skip
                        for name, command in commands.items()
                    }
                    bundled, many = best["bundled --cv 0"], best["digits --cv 0"]
                    target = max(1.5 * bundled, 4.0)
                    verdict = "met" if many <= target else "MISSED"
                    print(f"| {load} | {threads} | {bundled:.2f} | {many:.2f} | "
                          f"{many / bundled:.2f}x | <= {target:.2f} s: {verdict} |",
                          flush=True)  # fmt: skip
            finally:
                if busy is not None:
                    busy.kill()


if __name__ == "__main__":
    main()
