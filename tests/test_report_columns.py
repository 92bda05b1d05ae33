"""Which columns of a file are identifiers (``_report._columns``), and how the
report names its rows: through ``read_table`` and ``linsep report``."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris

from sklearn_linsep import linear_separability
from sklearn_linsep._report._read import read_table
from sklearn_linsep.cli import main


def report_json(capsys, *argv):
    status = main(["report", *map(str, argv), "--json", "--cv", "0"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out), captured.err


def iris_frame():
    iris = load_iris(as_frame=True)
    return iris.frame.rename(columns={"target": "species"})


def test_a_named_id_column_is_left_out_and_names_the_rows(tmp_path, capsys):
    """The issue's repro: iris with ``id`` inserted read as a feature made every
    pair separable; versicolor/virginica are not."""
    frame = iris_frame()
    frame.insert(0, "id", range(1000, 1150))
    path = tmp_path / "iris_id.csv"
    frame.to_csv(path, index=False)
    report, err = report_json(capsys, path, "--target", "species")
    assert "column 'id' left out: named as an identifier (--keep id keeps it)" in err
    assert report["data"]["n_features"] == 4
    assert report["data"]["left_out"] == [
        {"column": "id", "rule": "named as an identifier"}
    ]
    verdicts = {tuple(v["classes"]): v for v in report["separability"]}
    assert verdicts["1", "2"]["separable"] is False
    # The certificate's rows by their ids, and they are a certificate.
    assert report["data"]["rows_named_by"] == "column 'id'"
    rows = [entry["row"] for entry in verdicts["1", "2"]["certificate"]]
    assert all(1050 <= row < 1150 for row in rows)
    by_id = frame.set_index("id")
    points = by_id.loc[rows].drop(columns="species").to_numpy()
    weights = np.array([e["weight"] for e in verdicts["1", "2"]["certificate"]])
    labels = np.array([e["class"] for e in verdicts["1", "2"]["certificate"]])
    np.testing.assert_allclose(
        weights[labels == "1"] @ points[labels == "1"],
        weights[labels == "2"] @ points[labels == "2"],
        atol=1e-9,
    )
    kept, err = report_json(capsys, path, "--target", "species", "--keep", "id")
    assert kept["data"]["n_features"] == 5 and "left out" not in err


@pytest.mark.parametrize("name", ["ID", "Index", "patient_id", "Sample_ID"])
def test_identifier_names_in_any_case(tmp_path, name):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    frame.insert(1, name, rng.integers(0, 5, 40))  # repeats: only the name tells
    frame["y"] = np.arange(40) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.feature_names == ["a", "b"]
    assert table.left_out == [(name, "named as an identifier")]
    # It repeats: it cannot name the rows, their positions do.
    assert table.rows_named_by.startswith("position")
    np.testing.assert_array_equal(table.row_ids, np.arange(40))


def test_names_that_only_contain_id_stay_features(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(30, 3)), columns=["valid", "idle", "grid"])
    frame["y"] = np.arange(30) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.feature_names == ["valid", "idle", "grid"] and not table.left_out


@pytest.mark.parametrize("values", ["rising", "falling", "text"])
def test_a_counter_column_is_left_out_by_its_values(tmp_path, values):
    rng = np.random.default_rng(2)
    n = 50
    counter = {
        "rising": np.arange(7, 7 + 3 * n, 3),
        "falling": np.arange(n, 0, -1),
        "text": [f"case{i:03d}" for i in range(n)],
    }[values]
    frame = pd.DataFrame({"a": rng.normal(size=n), "row": counter})
    frame["b"] = rng.integers(0, 3, n)  # integers, repeating: a feature
    frame["y"] = np.arange(n) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.feature_names == ["a", "b"]
    assert table.left_out == [
        ("row", "values all distinct and strictly monotone in row order")
    ]
    assert list(table.row_ids) == list(counter)
    if values != "text":
        kept = read_table(str(tmp_path / "t.csv"), "y", keep=["row"])
        assert kept.feature_names == ["a", "row", "b"]


def test_integers_that_are_not_a_counter_stay_features(tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"count": rng.permutation(60), "a": rng.normal(size=60)})
    frame["y"] = np.arange(60) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.feature_names == ["count", "a"]
    assert table.rows_named_by.startswith("position")
    np.testing.assert_array_equal(table.row_ids, np.arange(60))


def test_wisconsin_with_its_repeating_id_column(tmp_path, capsys):
    """The UCI file's first column: sample code numbers that repeat (so only the
    name gives it away); with the ids as a feature the verdict would change."""
    from sklearn_linsep import load_breast_cancer_wisconsin

    data = load_breast_cancer_wisconsin()
    rng = np.random.default_rng(0)
    ids = rng.integers(1_000_000, 1_400_000, len(data.target))
    ids[5] = ids[6]  # the UCI file repeats some
    frame = pd.DataFrame(data.data, columns=data.feature_names)
    frame.insert(0, "id", ids)
    frame["class"] = data.target
    path = tmp_path / "wisconsin.csv"
    frame.to_csv(path, index=False)
    report, err = report_json(capsys, path, "--target", "class")
    assert "column 'id' left out" in err
    assert report["data"]["n_features"] == 9
    assert report["separability"][0]["separable"] is False
    truth = linear_separability(data.data, data.target)
    assert report["separability"][0]["certificate_size"] == len(
        truth.certificate_indices
    )


def test_a_named_string_index_is_left_out(tmp_path):
    """What ``df.to_csv()`` writes for a frame indexed by sample names."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(rng.normal(size=(30, 3)), columns=["a", "b", "c"])
    frame.index = [f"TCGA-{k}" for k in rng.permutation(1000)[:30]]  # unsorted
    frame.index.name = "sample"
    frame["y"] = np.arange(30) % 2
    frame.to_csv(tmp_path / "t.csv")
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.feature_names == ["a", "b", "c"]
    assert table.left_out[0][0] == "sample"
    assert list(table.row_ids) == list(frame.index)


def test_text_that_repeats_is_still_refused(tmp_path):
    from sklearn_linsep._report._source import TableError

    path = tmp_path / "t.csv"
    path.write_text("a,colour,y\n1.5,red,0\n2.5,blue,1\n0.5,red,0\n")
    with pytest.raises(TableError, match="non-numeric feature column 'colour'"):
        read_table(str(path), "y")


def test_row_ids_count_rows_left_out_for_missing_cells(tmp_path):
    """Without an identifier, rows are named as pandas.read_csv(path).index."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.normal(size=(20, 2)), columns=["a", "b"])
    frame.loc[[2, 9], "a"] = np.nan
    frame["y"] = np.arange(20) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y", missing="drop")
    expected = pd.read_csv(tmp_path / "t.csv").dropna().index.to_numpy()
    np.testing.assert_array_equal(table.row_ids, expected)
    np.testing.assert_array_equal(table.X, frame.dropna()[["a", "b"]].to_numpy())


def test_a_sampled_file_keeps_the_ids_of_its_rows(tmp_path):
    rng = np.random.default_rng(6)
    n = 3000
    frame = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    frame.insert(0, "id", rng.permutation(10 * n)[:n])
    frame["y"] = np.arange(n) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y", sample_rows=300)
    assert table.sampled
    by_id = frame.set_index("id")
    np.testing.assert_array_equal(by_id.loc[table.row_ids, ["a", "b"]], table.X)


def test_a_parquet_index_names_the_rows(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(rng.normal(size=(25, 2)), columns=["a", "b"])
    frame.index = rng.permutation(100)[:25] + 500
    frame["y"] = np.arange(25) % 2
    frame.to_parquet(tmp_path / "t.parquet")
    table = read_table(str(tmp_path / "t.parquet"), "y")
    assert table.feature_names == ["a", "b"]
    assert list(table.row_ids) == list(frame.index)


def test_a_few_rows_cannot_tell_a_counter_from_a_feature(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b,y\n1,0.5,0\n2,0.1,1\n3,0.7,0\n4,0.2,1\n5,0.9,0\n")
    assert read_table(str(path), "y").feature_names == ["a", "b"]


def test_an_index_saved_twice_is_left_out_wherever_it_stands(tmp_path, capsys):
    """``df.sample(frac=1).to_csv(f)``, then ``pd.read_csv(f).to_csv(g)``: the old
    index becomes 'Unnamed: 0' in the second column; on iris sorted by class it
    encodes the class."""
    frame = iris_frame().sample(frac=1, random_state=0)
    frame.to_csv(tmp_path / "once.csv")
    pd.read_csv(tmp_path / "once.csv").to_csv(tmp_path / "twice.csv")
    report, err = report_json(capsys, tmp_path / "twice.csv", "--target", "species")
    assert report["data"]["n_features"] == 4
    assert [entry["column"] for entry in report["data"]["left_out"]] == [
        "unnamed_1",
        "Unnamed: 0",
    ]
    verdicts = {tuple(v["classes"]): v["separable"] for v in report["separability"]}
    assert verdicts["1", "2"] is False


def test_ids_that_repeat_or_are_missing_do_not_name_rows(tmp_path):
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    frame["patient_id"] = [f"p{k // 4}" for k in range(40)]
    frame["y"] = np.arange(40) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.rows_named_by.startswith("position")
    frame["patient_id"] = [f"p{k}" for k in range(40)]
    frame.loc[3, "patient_id"] = None
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert read_table(str(tmp_path / "t.csv"), "y").rows_named_by.startswith("position")


def test_ids_beyond_float64_do_not_name_rows_wrongly(tmp_path):
    rng = np.random.default_rng(9)
    frame = pd.DataFrame(rng.normal(size=(40, 2)), columns=["a", "b"])
    frame.insert(0, "row", 12345678901234567 + 8 * np.arange(40))  # a counter
    frame["y"] = np.arange(40) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert table.feature_names == ["a", "b"]
    assert table.rows_named_by.startswith("position")  # float64 cannot hold them
    frame = frame.rename(columns={"row": "id"})  # by name: read as text, exact
    frame.to_csv(tmp_path / "t.csv", index=False)
    table = read_table(str(tmp_path / "t.csv"), "y")
    assert list(table.row_ids) == frame["id"].tolist()


def test_text_ids_keep_their_spelling_and_numbers_read_alike_in_two_passes(
    tmp_path,
):
    rng = np.random.default_rng(10)
    n = 600
    frame = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    frame.insert(0, "id", [f"{k:04d}" for k in rng.permutation(n)])
    frame.insert(1, "step", 5.0 + 2 * np.arange(n))  # a float counter
    frame["y"] = np.arange(n) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    once = read_table(str(tmp_path / "t.csv"), "y")
    assert list(once.row_ids) == frame["id"].tolist()  # "0007" stays "0007"
    frame = frame.drop(columns="id")
    frame.to_csv(tmp_path / "t.csv", index=False)
    once = read_table(str(tmp_path / "t.csv"), "y")
    twice = read_table(str(tmp_path / "t.csv"), "y", sample_rows=100)
    assert once.row_ids.dtype == twice.row_ids.dtype == np.int64
    by_step = dict(zip(once.row_ids, map(tuple, once.X), strict=True))
    assert all(by_step[i] == tuple(x) for i, x in zip(twice.row_ids, twice.X,
                                                      strict=True))  # fmt: skip


def test_a_first_cell_that_is_no_number_does_not_make_an_index(tmp_path):
    from sklearn_linsep._report._source import TableError

    rng = np.random.default_rng(11)
    cells = ["<0.01"] + [f"{v:.4f}" for v in rng.normal(size=29)]
    lines = ["conc,b,y"] + [f"{c},{v:.3f},{k % 2}" for k, (c, v) in
                            enumerate(zip(cells, rng.normal(size=30)))]  # fmt: skip
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(TableError, match="non-numeric feature column 'conc'"):
        read_table(str(tmp_path / "t.csv"), "y")


def test_a_parquet_slice_names_rows_by_its_saved_range(tmp_path):
    rng = np.random.default_rng(12)
    frame = pd.DataFrame(rng.normal(size=(60, 2)), columns=["a", "b"])
    frame["y"] = np.arange(60) % 2
    part = frame.iloc[20:]
    part.to_parquet(tmp_path / "t.parquet")
    table = read_table(str(tmp_path / "t.parquet"), "y")
    np.testing.assert_array_equal(table.row_ids, pd.read_parquet(tmp_path /
                                                                 "t.parquet").index)  # fmt: skip


def test_drop_takes_a_name_with_a_comma(tmp_path):
    rng = np.random.default_rng(13)
    frame = pd.DataFrame(rng.normal(size=(30, 3)), columns=["size,mm", "b", "c"])
    frame["y"] = np.arange(30) % 2
    frame.to_csv(tmp_path / "t.csv", index=False)
    assert read_table(str(tmp_path / "t.csv"), "y", drop=["size,mm"]).feature_names == [
        "b",
        "c",
    ]
    assert read_table(str(tmp_path / "t.csv"), "y", drop=["b,c"]).feature_names == [
        "size,mm"
    ]
