"""The README's two commands in order, and the wheel, in fresh virtual environments.

Marked ``slow`` and deselected by default; ``.ci/run`` runs them after the test suite
(``pytest -m slow``). No network: each new environment installs this package with
``--no-deps --no-build-isolation`` and sees the test environment's packages through a
path file (a plain path line: the test environment's own ``.pth`` files, such as its
editable finder for this checkout, are not processed there). pip is run as
``python -m pip``, the test environment's pip acting on the new environment.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numba
import pytest

import sklearn_linsep

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parents[1]
COMPILING = "compiling kernels, first run only"


def _copy_checkout(target):
    """The checkout's files as a clone would have them (untracked new files too)."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=CHECKOUT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = CHECKOUT / name
        if source.is_file():
            destination = target / name
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
    return target


def _fresh_venv(path):
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)],
                   check=True)  # fmt: skip
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    test_packages = sysconfig.get_paths()["purelib"]
    Path(purelib, "_test_environment.pth").write_text(test_packages + "\n")
    return python, Path(purelib)


def _run(command, cwd, environment, check=True):
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, command))} exited {result.returncode}:\n"
            f"{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
        )
    return result


def _environment(tmp_path):
    """No inherited numba cache or Python path; an empty per-user cache."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("NUMBA_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV")
    }
    environment["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    environment["PIP_NO_INDEX"] = "1"
    return environment


def _compiled_files(directory):
    return [
        path
        for pattern in ("*.nbi", "*.nbc")
        for path in Path(directory).rglob(pattern)
    ]


def test_the_readme_commands_in_order_leave_a_working_install(tmp_path):
    source = _copy_checkout(tmp_path / "checkout")
    python, site_packages = _fresh_venv(source / ".venv")
    environment = _environment(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    pip = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    linsep = source / ".venv" / "bin" / "linsep"

    # The main job: install, then the report, on an empty cache.
    _run([*pip, "."], source, environment)
    first = _run([linsep, "report"], source, environment)
    assert "43.01" in first.stdout
    assert first.stderr.count(COMPILING) == 1, first.stderr
    assert not _compiled_files(site_packages / "sklearn_linsep")
    user_cache = tmp_path / "user-cache" / "sklearn-linsep" / sklearn_linsep.__version__
    assert _compiled_files(user_cache)

    # The test command, in the same environment: editable, over the installed copy.
    _run([*pip, "-e", ".[test]"], source, environment)
    version = _run([linsep, "--version"], outside, environment)
    assert version.stdout.strip() == f"linsep {sklearn_linsep.__version__}"
    imported = _run(
        [python, "-c", "import sklearn_linsep as s; from sklearn_linsep import "
         "FisherDiscriminant; print(s.__file__)"],
        outside, environment,
    )  # fmt: skip
    assert Path(imported.stdout.strip()).parent == source / "sklearn_linsep"

    # The editable install is another installation, with a cache of its own (kept
    # beside the first, which stays valid for its files); once it is filled,
    # nothing compiles and nothing is said.
    first_editable = _run([linsep, "report", "--cv", "0"], outside, environment)
    assert first_editable.stderr.count(COMPILING) == 1
    again = _run([linsep, "report", "--cv", "0"], outside, environment)
    assert again.stdout == first_editable.stdout
    assert COMPILING not in again.stderr
    assert not _compiled_files(source / "sklearn_linsep")
    installations = user_cache / f"numba-{numba.__version__}"
    assert len(list(installations.iterdir())) == 2

    # A cache that cannot be written: the report runs, and says so in one line.
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    unwritable = {**environment, "XDG_CACHE_HOME": str(blocker / "cache")}
    uncached = _run([linsep, "report", "--cv", "0"], outside, unwritable)
    assert "43.01" in uncached.stdout
    (said,) = uncached.stderr.splitlines()
    assert said.startswith("linsep: compiling kernels: sklearn-linsep cannot write")


def test_a_built_wheel_installs_and_reports_from_outside_the_checkout(tmp_path):
    source = _copy_checkout(tmp_path / "checkout")
    builder, _ = _fresh_venv(tmp_path / "build-venv")
    environment = _environment(tmp_path)
    _run([builder, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
          "-w", tmp_path / "dist", "."], source, environment)  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("sklearn_linsep-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)
    assert any(name.endswith("breast-cancer-wisconsin.data") for name in names)
    assert not any(name.endswith((".nbi", ".nbc")) for name in names)

    python, site_packages = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "-q", "--no-deps", wheel], tmp_path,
         environment)  # fmt: skip
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    report = _run([tmp_path / "venv" / "bin" / "linsep", "report", "--cv", "2"],
                  outside, environment)  # fmt: skip
    assert "43.01" in report.stdout
    assert not _compiled_files(site_packages / "sklearn_linsep")
    metadata = _run(
        [python, "-c", "from importlib.metadata import metadata; "
         "m = metadata('sklearn-linsep'); "
         "print(m['Version'], m['License-Expression'])"],
        outside, environment,
    )  # fmt: skip
    assert metadata.stdout.split() == [sklearn_linsep.__version__, "BSD-3-Clause"]
