"""The package's front door (``sklearn_linsep/__init__.py``): its names load on first
use, so that importing an estimator pays for neither the compiled kernels nor the
optional dependencies, and ``linsep --help`` for nothing beyond argparse."""

import subprocess
import sys

import pytest

import sklearn_linsep


def _modules_after(code):
    """The top-level modules a fresh interpreter holds after ``code`` (a lazily
    loaded module that was never used counts as not loaded)."""
    probe = (
        code + "\nimport sys, importlib.util\n"
        "print(' '.join(sorted({name.split('.')[0] for name, module in "
        "sys.modules.items() if type(module).__name__ != '_LazyModule'})))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True,
                            text=True, check=True)  # fmt: skip
    return set(result.stdout.split())


def test_import_sklearn_linsep_imports_neither_numpy_nor_scikit_learn():
    loaded = _modules_after("import sklearn_linsep")
    assert not loaded & {"numpy", "sklearn", "scipy"}


@pytest.mark.slow  # processes of their own: 1.5-14 s
def test_importing_the_estimators_compiles_nothing_and_skips_optional_packages():
    ours = _modules_after(
        "from sklearn_linsep import FisherDiscriminant, Perceptron, HardMarginSVM"
    )
    scikit_learns = _modules_after(
        "from sklearn.discriminant_analysis import LinearDiscriminantAnalysis\n"
        "from sklearn.linear_model import Perceptron\nfrom sklearn.svm import SVC"
    )
    # clarabel, dask, matplotlib: none of them
    assert ours - scikit_learns == {"sklearn_linsep"}


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_the_command_line_help_and_version_import_no_numpy(flag):
    loaded = _modules_after(
        "from sklearn_linsep.cli import main\n"
        f"try:\n    main([{flag!r}])\nexcept SystemExit:\n    pass"
    )
    assert not loaded & {"numpy", "sklearn", "scipy"}


def test_every_public_name_resolves_and_is_listed():
    for name in sklearn_linsep.__all__:
        value = getattr(sklearn_linsep, name)
        assert getattr(value, "__name__", name) == name
    assert set(sklearn_linsep.__all__) | {"__version__"} <= set(dir(sklearn_linsep))
    assert sklearn_linsep.__version__.count(".") >= 2


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'FisherDiscriminent'"):
        sklearn_linsep.FisherDiscriminent  # noqa: B018
    with pytest.raises(ImportError):
        from sklearn_linsep import FisherDiscriminent  # noqa: F401


def test_submodules_are_attributes_as_before():
    assert sklearn_linsep.exceptions.SolverError is sklearn_linsep.SolverError
    assert callable(sklearn_linsep.datasets.load_bupa_liver)
    assert sklearn_linsep._svm.HardMarginSVM is sklearn_linsep.HardMarginSVM
    assert not hasattr(sklearn_linsep, "no_such_module")


THREADS = """
import threading
import numpy as np
import sklearn_linsep
names = ["FisherDiscriminant", "HardMarginSVM", "PocketPerceptron", "Adaline",
         "linear_separability", "SeparabilityAngle", "ClassStatistics"] * 2
errors, barrier = [], threading.Barrier(len(names))
X = np.random.RandomState(0).normal(size=(30, 2)); y = np.repeat([0, 1], 15)
def use(name):
    barrier.wait()
    try:
        getattr(sklearn_linsep, name)
    except Exception as error:
        errors.append(f"{name}: {type(error).__name__}: {error}")
threads = [threading.Thread(target=use, args=(name,)) for name in names]
for thread in threads: thread.start()
for thread in threads: thread.join()
print(len(errors), *errors, sep="\\n")
"""


@pytest.mark.slow  # processes of their own: 1.5-14 s
def test_threads_asking_for_different_names_at_once_all_get_them():
    for _ in range(5):  # a fresh interpreter each time; without the lock 1 in 2 fails
        result = subprocess.run([sys.executable, "-c", THREADS], capture_output=True,
                                text=True, check=True)  # fmt: skip
        assert result.stdout.splitlines()[0] == "0", result.stdout

