"""The map in the repository (``ARCHITECTURE.md``) against the tree, and the
house rules it states: every module named, none over 900 lines, and the
rationals imported by three modules only."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sklearn_linsep"
MAP = ROOT / "ARCHITECTURE.md"
MAX_LINES = 900
# The number back-end, the public results (Fractions at the surface), the
# test helpers.
RATIONAL_MODULES = {"_exact/_numbers.py", "_margin/_result.py", "_testing.py"}


def package_modules():
    """Every source module of the package, as its path below the package."""
    found = [*PACKAGE.rglob("*.py"), *PACKAGE.rglob("*.pyx")]
    return sorted(path.relative_to(PACKAGE).as_posix() for path in found)


def named_in_map(module, text):
    """Whether ``module`` (``a/b.py``) is named in the map: as its path below
    the package, or, in a list of a folder's modules, its file name after the
    folder's path (``_kernels/_online.pyx``, or ``_online.pyx`` in
    ``_kernels/``'s entry)."""
    if re.search(rf"(?<![\w/]){re.escape(module)}(?!\w)", text):
        return True
    folder, _, name = module.rpartition("/")
    return bool(folder) and f"{folder}/" in text and f"`{name}`" in text


def test_the_map_names_every_module():
    text = MAP.read_text(encoding="utf-8")
    missing = [module for module in package_modules() if not named_in_map(module, text)]
    assert not missing, f"ARCHITECTURE.md does not name: {missing}"


def test_the_check_of_the_map_can_fail():
    text = MAP.read_text(encoding="utf-8")
    assert not named_in_map("_margin/_not_a_module.py", text)
    assert named_in_map("_exact/_simplex.py", text)


@pytest.mark.parametrize("module", package_modules())
def test_no_module_is_over_the_line_limit(module):
    lines = (PACKAGE / module).read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{module} has {lines} lines (limit {MAX_LINES})"


def rational_importers():
    """The modules that import ``fractions`` or ``flint`` (anywhere in them)."""
    found = set()
    for module in package_modules():
        if not module.endswith(".py"):
            continue
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if any(name.split(".")[0] in ("fractions", "flint") for name in names):
                found.add(module)
    return found


def test_rationals_are_imported_by_three_modules_only():
    assert rational_importers() <= RATIONAL_MODULES
    assert len(RATIONAL_MODULES) <= 3


def test_the_benchmark_dashboard_stays_a_dashboard():
    """``benchmarks/RESULTS.md`` holds today's table a script, at most 300
    lines; the rest goes to ``HISTORY.md``."""
    results = ROOT / "benchmarks" / "RESULTS.md"
    assert results.read_text(encoding="utf-8").count("\n") <= 300
    assert (ROOT / "benchmarks" / "HISTORY.md").exists()
