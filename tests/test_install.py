"""The README's two commands in order, the wheel and the sdist, in fresh virtual
environments: the kernels are compiled at install, and only there.

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
import tarfile
import zipfile
from pathlib import Path

import pytest

import sklearn_linsep

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parents[1]


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
    """No inherited Python path; an empty per-user cache; no index."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    environment["XDG_CACHE_HOME"] = str(tmp_path / "user-cache")
    environment["PIP_NO_INDEX"] = "1"
    return environment


# Every kernel source of the checkout is compiled at install.
KERNELS = tuple(
    path.stem for path in (CHECKOUT / "sklearn_linsep" / "_kernels").glob("*.pyx")
)
EXTENSION = sysconfig.get_config_var("EXT_SUFFIX")


def _built_kernels(package_directory):
    """The kernels' extension modules found in ``package_directory``."""
    return sorted(
        path.name.split(".")[0]
        for path in Path(package_directory, "_kernels").glob(f"*{EXTENSION}")
    )


def test_the_readme_commands_in_order_leave_a_working_install(tmp_path):
    source = _copy_checkout(tmp_path / "checkout")
    python, site_packages = _fresh_venv(source / ".venv")
    environment = _environment(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    pip = [python, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
    linsep = source / ".venv" / "bin" / "linsep"

    # The main job: install (the kernels compile here), then the report, which
    # compiles nothing and writes no cache.
    _run([*pip, "."], source, environment)
    assert _built_kernels(site_packages / "sklearn_linsep") == sorted(KERNELS)
    first = _run([linsep, "report"], source, environment)
    assert "43.01" in first.stdout
    assert "compil" not in first.stderr
    assert not (tmp_path / "user-cache").exists()

    # The test command, in the same environment: editable, over the installed
    # copy, its kernels built in the checkout.
    _run([*pip, "-e", ".[test]"], source, environment)
    version = _run([linsep, "--version"], outside, environment)
    assert version.stdout.strip() == f"linsep {sklearn_linsep.__version__}"
    imported = _run(
        [python, "-c", "import sklearn_linsep as s; from sklearn_linsep._kernels "
         "import _online; print(s.__file__); print(_online.__file__)"],
        outside, environment,
    )  # fmt: skip
    package, kernel = map(Path, imported.stdout.split())
    assert package.parent == source / "sklearn_linsep"
    assert kernel.parent == source / "sklearn_linsep" / "_kernels"
    again = _run([linsep, "report", "--cv", "0"], outside, environment)
    assert "43.01" in again.stdout
    assert "compil" not in again.stderr


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
    for kernel in KERNELS:
        assert f"sklearn_linsep/_kernels/{kernel}{EXTENSION}" in names
    assert "-py3-none-any" not in wheel.name  # a platform wheel: it holds C

    python, site_packages = _fresh_venv(tmp_path / "venv")
    _run([python, "-m", "pip", "install", "-q", "--no-deps", wheel], tmp_path,
         environment)  # fmt: skip
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    report = _run([tmp_path / "venv" / "bin" / "linsep", "report", "--cv", "2"],
                  outside, environment)  # fmt: skip
    assert "43.01" in report.stdout
    metadata = _run(
        [python, "-c", "from importlib.metadata import metadata, requires; "
         "m = metadata('sklearn-linsep'); "
         "print(m['Version'], m['License-Expression']); print(*requires("
         "'sklearn-linsep'), sep='\\n')"],
        outside, environment,
    )  # fmt: skip
    first, *requirements = metadata.stdout.splitlines()
    assert first.split() == [sklearn_linsep.__version__, "BSD-3-Clause"]
    assert not [name for name in requirements if name.startswith(("numba", "llvm"))]


def test_the_sdist_holds_the_kernels_sources_and_no_generated_code(tmp_path):
    source = _copy_checkout(tmp_path / "checkout")
    builder, _ = _fresh_venv(tmp_path / "build-venv")
    _run([builder, "-c", "from setuptools import build_meta; "
          f"build_meta.build_sdist({str(tmp_path / 'dist')!r})"],
         source, _environment(tmp_path))  # fmt: skip
    (sdist,) = (tmp_path / "dist").glob("sklearn_linsep-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = [name.split("/", 1)[1] for name in archive.getnames() if "/" in name]
    for kernel in KERNELS:
        assert f"sklearn_linsep/_kernels/{kernel}.pyx" in names
    assert "setup.py" in names
    assert not [name for name in names if name.endswith((".c", EXTENSION))]


def test_an_install_without_a_c_compiler_says_so_in_one_line(tmp_path):
    source = _copy_checkout(tmp_path / "checkout")
    python, _ = _fresh_venv(tmp_path / "venv")
    environment = {**_environment(tmp_path), "CC": str(tmp_path / "no-such-cc")}
    result = _run(
        [python, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "."],
        source, environment, check=False,
    )  # fmt: skip
    assert result.returncode != 0
    said = [line for line in (result.stdout + result.stderr).splitlines()
            if "no working C compiler was found" in line]  # fmt: skip
    assert len(said) == 1, result.stdout[-2000:] + result.stderr[-2000:]
