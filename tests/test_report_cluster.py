"""``linsep report PATH --scheduler ADDRESS`` (``_report/_cluster.py``): read by
dask.dataframe on a cluster, the statistics and every pair's exact verdict over
every row, the rest on a sample; the same report as the one file in memory."""

import json
import os
import time

import numpy as np
import pandas as pd
import pytest

from sklearn_linsep._report import _cluster
from sklearn_linsep._testing import write_table_files
from sklearn_linsep.cli import main


@pytest.fixture(scope="module")
def scheduler():
    """A LocalCluster of threads in this process: its scheduler's address."""
    import distributed

    # Over TCP, as a scheduler elsewhere is reached (inproc addresses belong to
    # the thread that made them; the client is made in a thread of its own).
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                       processes=False, protocol="tcp://",
                                       dashboard_address=None)  # fmt: skip
    with cluster:
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


@pytest.mark.parametrize("kind, classes, flip", [("parquet", 2, (5, 17)),
                                                 ("csv", 3, ()),
                                                 ("parquet", 3, (5, 17))])  # fmt: skip
def test_the_report_on_a_cluster_is_the_report_of_every_row(
    tmp_path, capsys, scheduler, kind, classes, flip
):
    """Every pair's verdict (its margin, or its certificate's rows and weights),
    the distance, the angle and Cover's probability over every row, as the one
    file read in memory says them, though only a sample of 300 rows of the 2 000
    comes to the client; the verdict says it holds for all rows."""
    data = _table(2000, classes, gap=0.0 if flip else 0.4, flip=flip)
    data.to_csv(tmp_path / "whole.csv", index=False)
    folder = write_table_files(tmp_path / "parts", data, kind)
    path = folder if kind == "parquet" else folder / "*.csv"
    local = _report(capsys, tmp_path / "whole.csv")
    remote = _report(capsys, path, "--scheduler", scheduler, "--sample-rows", "300")
    assert remote["data"]["n_samples"] == 2000 == local["data"]["n_samples"]
    assert remote["data"]["rows_in_memory"] < 400
    verdicts = [*zip(remote["separability"], local["separability"], strict=True)]
    if classes > 2:  # the joint verdict too, over every row
        verdicts = [*verdicts, (remote["joint_separability"],
                                local["joint_separability"])]  # fmt: skip
    assert any(not verdict["separable"] for verdict, _ in verdicts) == bool(flip)
    for mine, theirs in verdicts:
        assert mine["separable"] == theirs["separable"]
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


def _silent_port():
    """A port that accepts connections and never says a word, and one that
    answers with bytes of another protocol and hangs up: ``(ports, stop)``."""
    import socket
    import threading

    servers, stop = [], threading.Event()

    def serve(server, reply):
        server.settimeout(0.2)
        held = []
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            if reply:
                connection.sendall(reply)
                connection.close()
            else:
                held.append(connection)
        for connection in held:
            connection.close()
        server.close()

    for reply in (b"", b"HTTP/1.1 200 OK\r\nContent-Length: 9999999999\r\n\r\n"):
        server = socket.create_server(("127.0.0.1", 0))
        servers.append(server.getsockname()[1])
        threading.Thread(target=serve, args=(server, reply), daemon=True).start()
    return servers, stop


def test_a_scheduler_out_of_reach_is_one_error_line_within_the_timeout(
    tmp_path, capsys, monkeypatch
):
    """Nothing at the port, a scheduler file that is not one: one line each,
    within the timeout (the ports that never answer: the slow test below)."""
    monkeypatch.setattr(_cluster, "CONNECT_SECONDS", 2)
    _table(50).to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "bad.json").write_text("{}")
    (tmp_path / "text.json").write_text("scheduler: tcp://127.0.0.1:9\n")
    (tmp_path / "list.json").write_text('["tcp://127.0.0.1:9"]')
    files = {"bad.json": "no 'address'", "text.json": "JSONDecodeError",
             "list.json": "TypeError"}  # fmt: skip
    for address in ("tcp://127.0.0.1:9", *(str(tmp_path / name) for name in files)):
        start = time.perf_counter()
        status = main(["report", str(tmp_path / "d.csv"), "--target", "label",
                       "--scheduler", address, "--quiet"])  # fmt: skip
        elapsed = time.perf_counter() - start
        error = capsys.readouterr().err.strip().splitlines()
        assert status == 1 and len(error) == 1, (address, error)
        assert f"Cannot use the dask scheduler at {address}: " in error[0]
        assert elapsed < 2 + 1 + 3, (address, elapsed)
        name = os.path.basename(address)
        if name in files:  # said what the file is, not distributed's bare error
            assert "not a dask scheduler file" in error[0], error
            assert files[name] in error[0] and "AssertionError" not in error[0], error


@pytest.mark.slow  # processes of their own: a client left hanging ends with them
def test_a_port_that_never_answers_is_one_error_line_and_the_process_ends(tmp_path):
    """A port that accepts and says nothing, and one that speaks another protocol:
    one error line after ``CONNECT_SECONDS`` and a bit, and the process exits."""
    import subprocess
    import sys

    _table(50).to_csv(tmp_path / "d.csv", index=False)
    ports, stop = _silent_port()
    try:
        for port in ports:
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-m", "sklearn_linsep", "report",
                 str(tmp_path / "d.csv"), "--target", "label", "--quiet",
                 "--scheduler", f"tcp://127.0.0.1:{port}"],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            elapsed = time.perf_counter() - start
            error = done.stderr.strip().splitlines()
            assert done.returncode == 1 and len(error) == 1, error
            assert "Cannot use the dask scheduler at tcp://127.0.0.1:" in error[0]
            assert elapsed < _cluster.CONNECT_SECONDS + 15, elapsed
    finally:
        stop.set()


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


def test_rows_left_out_keep_their_names_and_text_is_refused(
    tmp_path, capsys, scheduler
):
    """``--missing drop`` and ``mean``: the certificate's rows by their position
    among the data rows, as the reader names them; rows without a class counted
    out. A column of text is refused (the reader's rule), an ``id`` column left out
    and said so; one compression for every file, read by its first bytes."""
    data = _table(400, flip=(9, 31, 77))
    data.loc[[3, 50, 120], "b"] = np.nan
    data.loc[[5, 60], "label"] = np.nan
    data.to_csv(tmp_path / "holes.csv", index=False)
    for missing in ("drop", "mean"):
        local = _report(capsys, tmp_path / "holes.csv", "--missing", missing)
        remote = _report(capsys, tmp_path / "holes.csv", "--missing", missing,
                         "--scheduler", scheduler, "--sample-rows", "100")  # fmt: skip
        assert remote["separability"][0]["certificate"] == (
            local["separability"][0]["certificate"]
        )
        assert remote["data"]["n_samples"] == local["data"]["n_samples"]
    text = tmp_path / "text.csv"
    _table(60).assign(colour="red").to_csv(text, index=False)
    status = main(["report", str(text), "--target", "label", "--scheduler", scheduler,
                   "--quiet"])  # fmt: skip
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 1 and "non-numeric feature column 'colour'" in error[0], error
    named = tmp_path / "named.csv"
    _table(200, gap=0.4).assign(id=np.arange(200)).to_csv(named, index=False)
    report = _report(capsys, named, "--scheduler", scheduler)
    assert report["data"]["left_out"] and "id" in json.dumps(report["data"]["left_out"])
    import gzip

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    _table(100).to_csv(mixed / "a.csv", index=False)
    with gzip.open(mixed / "b.csv", "wt") as handle:  # gzip under a .csv name
        _table(100, seed=1).to_csv(handle, index=False)
    status = main(["report", str(mixed), "--target", "label", "--scheduler", scheduler,
                   "--quiet"])  # fmt: skip
    error = capsys.readouterr().err.strip().splitlines()
    assert status == 1 and "all plain or all compressed alike" in error[0], error
    (mixed / "a.csv").unlink()
    assert _report(capsys, mixed, "--scheduler", scheduler)["data"]["n_samples"] == 100


def test_an_errors_cause_is_said_with_it():
    """dask wraps a bad CSV cell as "An error occurred while calling the read_csv
    method registered to the pandas backend."; the cause says which cell."""
    from sklearn_linsep._report._cluster import first_line

    try:
        try:
            float("abc")
        except ValueError as cause:
            raise ValueError("An error occurred while calling read_csv.") from cause
    except ValueError as error:
        said = first_line(error)
    assert said == ("ValueError: An error occurred while calling read_csv. "
                    "(ValueError: could not convert string to float: 'abc')")  # fmt: skip
    assert first_line(RuntimeError("")) == "RuntimeError"
