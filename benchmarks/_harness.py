"""What every benchmark script prints about where it ran: CPU, BLAS, code version."""

import os
import platform
import subprocess

from threadpoolctl import threadpool_info

REPOSITORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_model():
    """The CPU model name from /proc/cpuinfo (or platform's guess elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def blas_description():
    """One line per BLAS/OpenMP library loaded, as threadpoolctl sees it now."""
    lines = []
    for lib in threadpool_info():
        # The directory tells whose copy it is (numpy.libs, scipy.libs, cvxopt...).
        owner = os.path.basename(os.path.dirname(lib["filepath"]))
        lines.append(
            f"{lib['user_api']}: {lib['internal_api']} {lib.get('version')} "
            f"kernel={lib.get('architecture')} threads={lib['num_threads']} "
            f"layer={lib.get('threading_layer')} ({owner})"
        )
    return lines or ["(no BLAS library seen by threadpoolctl)"]


def code_version(root=REPOSITORY):
    """The git commit of the package under test at ``root``, and whether its
    sources are edited."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "sklearn_linsep"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    edited = [line[3:] for line in dirty if line.strip()]
    return commit + (f" + uncommitted edits to {', '.join(edited)}" if edited else "")
