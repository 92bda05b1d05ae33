"""``linsep report PATH --scheduler ADDRESS`` (``_report/_cluster.py``): read by
dask.dataframe on a cluster, the statistics and every pair's exact verdict over
every row, the rest on a sample; the same report as the one file in memory."""

import json
import time

import numpy as np
import pandas as pd
import pytest

from sklearn_linsep._report import _cluster
from sklearn_linsep.cli import main


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of threads in this process: its scheduler's address."""
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:  # fmt: skip
        yield cluster.scheduler_address


def _table(n, classes=2, gap=0.0, flip=(), seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = rng.integers(0, classes, n)
    X[:, 0] += 10.0 * y + gap * np.sign(X[:, 0])
    data = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    data["label"] = np.where(np.isin(np.arange(n), flip), (y + 1) % classes, y)
    return data


def _report(capsys, path, *options):
    status = main(["report", str(path), "--target", "label", "--cv", "0", "--json",
                   "--quiet", *options])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out)


def _files(folder, data, kind, count=3):
    folder.mkdir()
    for k, rows in enumerate(np.array_split(np.arange(len(data)), count)):
        part = data.iloc[rows]
        if kind == "parquet":
            part.to_parquet(folder / f"{k}.parquet", index=False)
        else:
            part.to_csv(folder / f"{k}.csv", index=False)
    return folder


@pytest.mark.parametrize("kind, classes, flip", [("parquet", 2, (5, 17)),
                                                 ("csv", 3, ())])  # fmt: skip
def test_the_report_on_a_cluster_is_the_report_of_every_row(
    tmp_path, capsys, scheduler, kind, classes, flip
):
    """Every pair's verdict (its margin, or its certificate's rows and weights),
    the distance, the angle and Cover's probability over every row, as the one
    file read in memory says them, though only a sample of 300 rows of the 2 000
    comes to the client; the verdict says it holds for all rows."""
    data = _table(2000, classes, gap=0.0 if flip else 0.4, flip=flip)
    data.to_csv(tmp_path / "whole.csv", index=False)
    folder = _files(tmp_path / "parts", data, kind)
    path = folder if kind == "parquet" else folder / "*.csv"
    local = _report(capsys, tmp_path / "whole.csv")
    remote = _report(capsys, path, "--scheduler", scheduler, "--sample-rows", "300")
    assert remote["data"]["n_samples"] == 2000 == local["data"]["n_samples"]
    assert remote["data"]["rows_in_memory"] < 400
    for mine, theirs in zip(remote["separability"], local["separability"], strict=True):
        assert mine["separable"] == theirs["separable"] == (not flip)
        assert mine["conclusive"] and mine["rows"] == theirs["rows"]
        if mine["separable"]:
            assert mine["margin"] == pytest.approx(theirs["margin"], rel=1e-9)
        else:
            assert mine["certificate"] == theirs["certificate"]
    for key in ("distance", "angle", "cover"):
        _close(remote[key], local[key])
    assert any("dask cluster" in note for note in remote["notes"])


def _close(mine, theirs):
    """The same JSON, numbers to 1e-9 (the cluster sums in other blocks)."""
    if isinstance(mine, dict):
        assert mine.keys() == theirs.keys()
        for key in mine:
            _close(mine[key], theirs[key])
    elif isinstance(mine, list):
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs, strict=True):
            _close(a, b)
    elif isinstance(mine, float):
        assert mine == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    else:
        assert mine == theirs


def test_a_scheduler_out_of_reach_is_one_error_line_within_the_timeout(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.setattr(_cluster, "CONNECT_SECONDS", 2)
    _table(50).to_csv(tmp_path / "d.csv", index=False)
    start = time.perf_counter()
    status = main(["report", str(tmp_path / "d.csv"), "--target", "label",
                   "--scheduler", "tcp://127.0.0.1:9"])  # fmt: skip
    elapsed = time.perf_counter() - start
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 1 and len(error) == 1, error
    assert "Cannot reach the dask scheduler at tcp://127.0.0.1:9 within 2 s" in error[0]
    assert elapsed < 15


def test_the_cluster_refuses_as_the_reader_does(tmp_path, capsys, scheduler):
    """Missing cells without --missing, one class, standard input: the reader's
    one error line; --missing drop reads the rest."""
    data = _table(300)
    data.loc[[3, 8], "b"] = np.nan
    data.to_parquet(tmp_path / "holes.parquet", index=False)
    _table(40).assign(label=1).to_csv(tmp_path / "one.csv", index=False)
    for path, said in ((tmp_path / "holes.parquet", "2 missing cell(s) (b: 2)"),
                       (tmp_path / "one.csv", "holds one class only"),
                       ("-", "--scheduler reads PATH on the cluster")):  # fmt: skip
        status = main(["report", str(path), "--target", "label", "--scheduler",
                       scheduler, "--quiet"])  # fmt: skip
        error = capsys.readouterr().err.strip().splitlines()
        assert status == 1 and len(error) == 1 and said in error[0], error
    kept = _report(capsys, tmp_path / "holes.parquet", "--scheduler", scheduler,
                   "--missing", "drop")  # fmt: skip
    assert kept["data"]["n_samples"] == 298
