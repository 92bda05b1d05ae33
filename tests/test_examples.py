"""The README's quick start and the example scripts run and say what they claim."""

import re
import subprocess
import sys
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


@pytest.mark.parametrize(
    "script", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name
)
def test_example_script_runs(script):
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_breast_cancer_example_reports_the_papers_angle():
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "breast_cancer_separability.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "theta =  43.01 deg" in done.stdout
