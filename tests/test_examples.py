"""The README's quick start runs and says what it claims.

The example scripts are run by the documentation build only (sphinx-gallery executes
every one of them, and CI builds the docs with warnings as errors); the figures they
print are asserted here through the library (the paper's 43.01°: the quick start,
``test_separability`` and ``test_cli``)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_quick_start_runs(capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"## Quick start\s+```python\n(.*?)```", readme, re.S).group(1)
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    exec(compile(code, "README quick start", "exec"), {})
    printed = capsys.readouterr().out.split()
    assert float(printed[0]) == pytest.approx(43.01, abs=0.01)
    assert printed[-1] == "1.0"
