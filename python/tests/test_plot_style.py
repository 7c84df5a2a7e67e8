"""The plotting module's words and units: sizes as users write them, legend entries without the
parameters every series shares, axis labels with units, and a bad --paper-line refused."""
import pandas as pd
import pytest

from collsim import plot


def test_sizes_read_as_users_write_them():
    assert plot.size_text(65536) == "64 KiB"
    assert plot.size_text(1 << 20) == "1 MiB"
    assert plot.size_text(64 * 10**6) == "64 MB"
    assert plot.size_text(102228128) == "102,228,128 B"
    assert plot.size_text(3 << 30) == "3 GiB"
    assert plot.size_text(1000) == "1 KB"
    assert plot.size_text(249200000) == "249.2 MB"  # not 249200 KB
    assert plot.size_text(1500 * 10**6) == "1.5 GB"
    assert plot.size_text(27190800) == "27.1908 MB"


def test_size_mb_facets_take_the_rows_bytes():
    df = pd.DataFrame({"size_bytes": [1048576, 65536], "size_MB": [1.049, 0.066]})
    assert plot.value_text(df, "size_MB", 1.049) == "1 MiB"
    assert plot.value_text(df, "size_MB", 0.066) == "64 KiB"
    assert plot.value_text(df, "platform", "torus-4x4") == "torus-4x4"


def test_legend_drops_the_parameters_all_series_share():
    names = plot.legend_names(["baseline:link_efficiency=94%:ideal_dma=true",
                               "ace:link_efficiency=94%:ideal_dma=true",
                               "ideal:link_efficiency=94%"])
    assert names["baseline:link_efficiency=94%:ideal_dma=true"] == "baseline (ideal_dma=true)"
    assert names["ideal:link_efficiency=94%"] == "ideal"
    assert plot.legend_names(["ring", "direct"]) == {"ring": "ring", "direct": "direct"}


def test_axis_labels_have_units():
    assert plot.column_label("time_us") == "time (µs)"
    assert plot.column_label("algbw_GBps") == "algbw (GB/s)"
    assert plot.column_label("size_MB") == "size"
    assert plot.column_label("no_such") == "no_such"


def test_paper_lines_parse_and_refuse_non_numbers():
    assert plot.lines_of(["Themis+SCF avg 95.14%=95.14"]) == [("Themis+SCF avg 95.14%", 95.14)]
    with pytest.raises(plot.UserError, match="LABEL=Y"):
        plot.lines_of(["no value"])
