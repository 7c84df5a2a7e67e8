"""Bad input from Python and to `collsim plot` ends in one clear error, never a traceback or a
crash (issue 36, items 1 and 10)."""
import os

import pandas as pd
import pytest

import collsim
import collsim.plot

PLATFORM = {"name": "t", "topology": "ring:4", "link_bandwidth": "16 GB/s",
            "link_latency": "150 ns"}


def test_dict_scenario_without_jobs_is_an_error_naming_the_dict():
    with pytest.raises(collsim.CollsimError) as e:
        collsim.run({"platforms": [PLATFORM], "jobs": []})
    assert e.value.status == 2
    assert "jobs: empty list" in str(e.value)
    assert "scenario (dict)" in str(e.value)
    assert ".collsim-" not in str(e.value)


def test_collective_with_output_returns_the_rows_written(tmp_path):
    out = tmp_path / "x.csv"
    df = collsim.collective("ring:4", sizes="1KiB", backend="analytical", output=str(out))
    assert len(df) == 1 and df.algorithm[0] == "ring"
    assert pd.read_csv(out).equals(df)


def _collective_csv(tmp_path):
    df = collsim.collective("ring:4", sizes="1KiB", backend="analytical")
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    return path, df


def _plot(capsys, *argv):
    status = collsim.plot.main(["auto", *map(str, argv)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return status, err


def test_plot_of_a_csv_without_backend_names_the_column(tmp_path, capsys):
    path, df = _collective_csv(tmp_path)
    df.drop(columns=["backend"]).to_csv(path, index=False)
    status, err = _plot(capsys, path, tmp_path / "x.png")
    assert status == 2 and "no column 'backend'" in err
    assert not (tmp_path / "x.png").exists()


def test_plot_of_a_non_utf8_file_says_so(tmp_path, capsys):
    path = tmp_path / "bin.csv"
    path.write_bytes(b"\xff\xfe\x00\x81size,time\n")
    status, err = _plot(capsys, path, tmp_path / "x.png")
    assert status == 2 and "not a UTF-8 text file" in err and str(path) in err


def test_plot_into_a_missing_folder_names_it(tmp_path, capsys):
    path, _ = _collective_csv(tmp_path)
    out = tmp_path / "sub" / "x.png"
    status, err = _plot(capsys, path, out)
    assert status == 2 and "no folder" in err and str(out) in err


def test_plot_of_a_text_column_where_numbers_belong_is_an_error(tmp_path, capsys):
    path, df = _collective_csv(tmp_path)
    df.assign(size_bytes="abc").to_csv(path, index=False)
    status, err = _plot(capsys, path, tmp_path / "x.png")
    assert status == 2 and "does not hold what collsim writes" in err
    assert not (tmp_path / "x.png").exists()
