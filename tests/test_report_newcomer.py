"""``linsep report`` where a newcomer trips: standard input, a class of one row,
cross-validation on standardized features, the joint certificate's rows, plots,
--quiet, the headline's Gaussian error, binary files and the smaller items."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine

from sklearn_linsep import cli
from sklearn_linsep.cli import main

IRIS_NAMES = np.array(["setosa", "versicolor", "virginica"])


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def write_frame(path, X, y, target="y"):
    lines = [",".join([f"x{j}" for j in range(X.shape[1])] + [target])]
    lines += [",".join([*map(repr, map(float, row)), str(label)])
              for row, label in zip(X, y, strict=True)]  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def iris_csv(tmp_path):
    X, y = load_iris(return_X_y=True)
    return write_frame(tmp_path / "iris.csv", X, IRIS_NAMES[y], target="species")


def linsep(*args, **kwargs):
    command = [sys.executable, "-m", "sklearn_linsep", "report", *map(str, args)]
    return subprocess.run(command, capture_output=True, timeout=600, **kwargs)


# 1. Standard input


def test_standard_input_is_read_when_it_is_a_pipe_or_a_file(tmp_path, monkeypatch):
    read, write = os.pipe()
    with os.fdopen(read) as pipe, os.fdopen(write, "w"):
        monkeypatch.setattr(sys, "stdin", pipe)
        assert cli._data_path(None) == "-"
    path = tmp_path / "d.csv"
    path.write_text("a,y\n1,0\n")
    with open(path) as redirected:
        monkeypatch.setattr(sys, "stdin", redirected)
        assert cli._data_path(None) == "-"
    with open(os.devnull) as nothing:  # a character device: the bundled data
        monkeypatch.setattr(sys, "stdin", nothing)
        assert cli._data_path(None) is None
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no file behind it
    assert cli._data_path(None) is None
    monkeypatch.setattr(sys, "stdin", None)  # closed
    assert cli._data_path(None) is None
    assert cli._data_path("given.csv") == "given.csv"


@pytest.mark.slow  # processes of their own
def test_a_dash_reads_a_pipe_and_an_empty_one_is_named(iris_csv):
    piped = linsep("-", "--target", "species", "--cv", "0", "--json", "--quiet",
                   input=iris_csv.read_bytes())  # fmt: skip
    assert piped.returncode == 0, piped.stderr.decode()
    report = json.loads(piped.stdout)
    assert report["data"]["counts"] == [50, 50, 50]
    redirected = linsep("--target", "species", "--cv", "0", "--quiet",
                        stdin=open(iris_csv, "rb"))  # fmt: skip
    assert redirected.returncode == 0
    assert "standard input (150 rows" in redirected.stdout.decode()
    empty = linsep("-", "--target", "species", input=b"")
    assert empty.returncode == 1
    assert empty.stderr.decode().strip().splitlines() == [
        "linsep: error: - (standard input) is empty."
    ]
    bundled = linsep("--cv", "0", "--quiet", stdin=subprocess.DEVNULL)
    assert bundled.returncode == 0 and b"bundled" in bundled.stdout


def test_help_says_how_to_read_standard_input(capsys):
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "- reads standard input" in " ".join(capsys.readouterr().out.split())


# 2. A class of one row


def test_a_class_of_one_row_skips_cross_validation_and_the_rest_prints(
    tmp_path, capsys
):
    X, y = load_iris(return_X_y=True)
    keep = (y < 2) | (np.arange(len(y)) == 149)
    path = write_frame(tmp_path / "one.csv", X[keep], IRIS_NAMES[y[keep]])
    for folds in ("10", "5", "2"):
        status, out, err = run(["report", str(path), "--target", "y", "--cv", folds,
                                "--quiet"], capsys)  # fmt: skip
        assert status == 0, err
        assert "Exact linear separability" in out and "Angle of separability" in out
        assert "skipped: --cv" in out and "smallest class has 1" in out
        assert "--cv" not in out.splitlines()[3]  # "Next" advises no failing option
    status, out, _ = run(["report", str(path), "--target", "y", "--cv", "0"], capsys)
    assert status == 0 and "--cv" not in out.splitlines()[3]
    status, out, _ = run(["report", str(path), "--target", "y", "--cv", "2", "--json",
                          "--quiet"], capsys)  # fmt: skip
    assert list(json.loads(out)["cross_validation"]) == ["skipped"]


def test_next_advises_only_the_folds_a_file_allows(tmp_path, capsys):
    X, y = load_iris(return_X_y=True)
    keep = (y < 2) | (np.arange(len(y)) >= 146)  # four virginica rows
    path = write_frame(tmp_path / "four.csv", X[keep], IRIS_NAMES[y[keep]])
    status, out, _ = run(["report", str(path), "--target", "y", "--cv", "0"], capsys)
    assert status == 0 and "--cv 4 says how" in out.splitlines()[3]


# 3. Cross-validation on standardized features


def test_cross_validation_standardizes_within_folds_unless_raw(tmp_path, capsys):
    X, y = load_wine(return_X_y=True)
    path = write_frame(tmp_path / "wine.csv", X, y)
    argv = ["report", str(path), "--target", "y", "--cv", "3", "--quiet"]
    status, out, _ = run(argv, capsys)
    assert status == 0
    assert "features standardized within each fold" in out
    scaled = json.loads(run(argv + ["--json"], capsys)[1])["cross_validation"]
    raw = json.loads(run(argv + ["--json", "--cv-raw"], capsys)[1])
    assert raw["settings"]["cv_raw"] is True
    assert "raw features (--cv-raw)" in run(argv + ["--cv-raw"], capsys)[1]
    # The perceptrons depend on the units; Fisher's rule does not.
    assert scaled["Perceptron"]["mean"] > 0.9 > raw["cross_validation"]["Perceptron"][
        "mean"
    ]
    assert scaled["FisherDiscriminant"]["mean"] == pytest.approx(
        raw["cross_validation"]["FisherDiscriminant"]["mean"]
    )


# 4. The joint certificate's rows, 5. plots of K classes


def test_the_joint_certificate_rows_are_listed(iris_csv, capsys):
    argv = ["report", str(iris_csv), "--target", "species", "--cv", "0"]
    status, out, _ = run(argv, capsys)
    joint = json.loads(run(argv + ["--json"], capsys)[1])["joint_separability"]
    assert status == 0 and not joint["separable"]
    listed = out[out.index("certificate: row (other class, weight)"):]
    for entry in joint["certificate"]:
        shown = f"{entry['row']} (vs {entry['other_class']}, {entry['weight']:.3g})"
        assert shown in listed


def test_every_pair_certificate_rows_are_listed(iris_csv, capsys):
    argv = ["report", str(iris_csv), "--target", "species", "--cv", "0"]
    _, out, _ = run(argv, capsys)
    verdicts = json.loads(run(argv + ["--json"], capsys)[1])["separability"]
    (pair,) = [v for v in verdicts if v["separable"] is False]
    listed = out[out.index("versicolor vs virginica: certificate: row (weight)"):]
    listed = listed[: listed.index("\n\n")]
    assert len(pair["certificate"]) == pair["certificate_size"] == 6
    for entry in pair["certificate"]:
        assert f"{entry['row']} ({entry['weight']:.3g})" in listed
        assert entry["class"] in listed


def test_a_long_certificate_folds_in_text_and_json_keeps_every_row():
    from sklearn_linsep._report._layout import CERTIFICATE_SHOWN, certificate_lines

    weights = np.arange(1, 16) / 120.0  # 15 rows: the 3 lightest are folded
    entries = [
        {"row": f"r{j}", "class": "ab"[j % 2], "weight": w}
        for j, w in enumerate(weights)
    ]
    text = "\n".join(certificate_lines("  certificate:", entries, ["a", "b"]))
    shown = [e for e in entries if f"{e['row']} (" in text]
    assert len(shown) == CERTIFICATE_SHOWN == 12
    assert min(e["weight"] for e in shown) == weights[3]
    assert text.splitlines()[-1].strip() == (
        "and 3 more rows of smaller weight (--json lists them all)"
    )
    pairs = [e | {"other_class": "c"} for e in entries]
    text = "\n".join(certificate_lines("  certificate:", pairs, ["a", "b"]))
    assert "r14 (vs c, 0.125)" in text and "3 more pairs" in text


def test_more_classes_are_plotted_and_a_missing_plot_fails(
    iris_csv, tmp_path, capsys, monkeypatch
):
    figure = tmp_path / "iris.png"
    argv = ["report", str(iris_csv), "--target", "species", "--cv", "0", "--quiet"]
    status, out, err = run(argv + ["--plot", str(figure)], capsys)
    assert status == 0, err
    assert figure.read_bytes().startswith(b"\x89PNG") and "Plot saved" in out
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # not installed
    status, out, err = run(argv + ["--plot", str(tmp_path / "none.png")], capsys)
    assert status == 1 and "Linear separability report" in out
    assert err.strip().splitlines() == [
        'linsep: error: no plot: --plot needs matplotlib: pip install '
        '"sklearn-linsep[plot]"'
    ]
    assert not (tmp_path / "none.png").exists()


# 6. --quiet, 7. the Gaussian error, 8. binary files, 10. the smaller items


def test_quiet_keeps_the_glossary_and_the_gaussian_error_is_named(iris_csv, capsys):
    argv = ["report", str(iris_csv), "--target", "species", "--cv", "2"]
    status, out, err = run(argv + ["--quiet"], capsys)
    assert status == 0 and err == ""
    assert "How to read this:" in out and "(see below)" not in out
    how_well = out.splitlines()[2]
    assert "idealised Gaussian error" in how_well
    assert "best cross-validated accuracy is" in how_well


def test_binary_data_is_not_a_csv(tmp_path, capsys):
    image = tmp_path / "picture.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4)
    status, out, err = run(["report", str(image), "--target", "y"], capsys)
    assert status == 1 and out == ""
    assert "not a CSV or Parquet file" in err and "iconv" not in err


def test_smaller_items(iris_csv, tmp_path, capsys):
    status, _, err = run(["report", str(iris_csv), "--target", "species",
                          "--positive", "Virginica"], capsys)  # fmt: skip
    assert status == 1 and "Did you mean 'virginica'?" in err
    status, _, err = run(["report", str(tmp_path / "absent.csv")], capsys)
    assert status == 1 and err.strip() == (
        f"linsep: error: No such file: {tmp_path / 'absent.csv'}"
    )
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(1200, 2)), np.arange(1200) % 2
    path = write_frame(tmp_path / "many.csv", X + 3 * y[:, None], y)
    argv = ["report", str(path), "--target", "y", "--cv", "0"]
    out = run(argv, capsys)[1]
    assert "1 200 rows" in out and "1 200 points" in out and "1200" not in out
    angle = json.loads(run(argv + ["--json"], capsys)[1])["angle"]
    assert angle["euclidean"]["length"] == angle["euclidean"]["scaled_distance"]
    assert angle["mahalanobis"]["length"] == angle["mahalanobis"][
        "mahalanobis_distance"
    ]
