"""The Python package against the command line's numbers and errors (run by CTest)."""
import os

import pytest

import collsim

SOURCE = os.environ.get("COLLSIM_SOURCE_DIR", os.getcwd())


def test_collective_sweep_is_a_dataframe_with_closed_form_times():
    # Direct all-reduce on fc:4 at 16 GB/s, 150 ns: 2 (alpha + S / (N B)); 1 MiB -> 33.068 us.
    df = collective("fc:4", algorithms=["direct", "ring"], sizes=["1MiB", "4MiB"],
                    link_bandwidth="16 GB/s", link_latency="150 ns", backend="analytical")
    assert len(df) == 4
    row = df[(df.algorithm == "direct") & (df.size_bytes == 1 << 20)].iloc[0]
    assert row.time_ns == pytest.approx(33068, rel=1e-6)
    assert set(df.algorithm) == {"direct", "ring"}


def collective(*args, **kwargs):
    return collsim.collective(*args, **kwargs)


def test_scenario_dict_and_train():
    df = collsim.run({"name": "py", "backend": "analytical",
                      "platforms": [{"name": "t", "topology": "torus:4x4",
                                     "link_bandwidth": "16 GB/s", "link_latency": "150 ns"}],
                      "jobs": [{"collective": "all-reduce", "sizes": ["64KiB"],
                                "algorithms": ["ring", "direct"]}]})
    assert list(df.algorithm) == ["ring", "direct"]
    t = collsim.train(os.path.join(SOURCE, "examples/training/toy.yaml"), "torus:4x4",
                      algorithms="ring", backend="analytical")
    assert "total" in set(t.layer)
    assert (t[t.layer == "total"].iteration_ns > 0).all()


def test_errors_carry_the_command_lines_message():
    with pytest.raises(collsim.CollsimError) as e:
        collsim.collective("torus:4x4", algorithms="nope")
    assert e.value.status == 2
    assert "nope" in str(e.value)


def test_standard_figure_of_a_dataframe(tmp_path):
    import collsim.plot

    df = collsim.collective("torus:4x4", algorithms=["ring", "direct"], sizes=["64KiB", "1MiB"],
                            backend="analytical")
    out = tmp_path / "f.png"
    collsim.plot.standard(df, str(out))
    assert out.stat().st_size > 1000
    with pytest.raises(collsim.plot.UserError):
        collsim.plot.standard(df.drop(columns=["algbw_GBps"]), str(tmp_path / "g.png"))


def test_astra_returns_the_report_rows(tmp_path):
    # An ASTRA-sim 1.0 text workload of one 1 MiB all-reduce on an 8-NPU ring (50 GB/s, 500 ns):
    # the CSV parses (ASTRA-sim's sys[i] lines go to standard error): the all-reduce (4 chunks,
    # an endpoint delay of 10) after 3 x 5 ns of compute.
    (tmp_path / "net.yml").write_text(
        "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n")
    (tmp_path / "sys.json").write_text(
        '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "preferred-dataset-splits": 4,'
        ' "all-reduce-implementation": ["ring"], "collective-optimization": "localBWAware"}')
    (tmp_path / "ar.txt").write_text(
        "MICRO\n1\nar -1 5 NONE 0 5 NONE 0 5 ALLREDUCE 1048576 5\n")
    df = collsim.astra(str(tmp_path / "ar.txt"), str(tmp_path / "sys.json"),
                       str(tmp_path / "net.yml"))
    total = df[df.layer == "total"].iloc[0]
    # With ASTRA-sim's compatibility mode (the default) the 4 chunks run one at a time
    # (active-chunks-per-dimension defaults to 1): 4 x 14 steps x (10 + 500 + 610.35) ns.
    assert total.iteration_ns == pytest.approx(4 * 14 * 1120.35 + 15, abs=1)


def test_unknown_keywords_are_type_errors_with_a_suggestion():
    # `algorithm=` is not an option (it is `algorithms=`): Python's own error, with the fix.
    with pytest.raises(TypeError) as e:
        collsim.collective("ring:4", algorithm="ring")
    assert "unexpected keyword argument 'algorithm'; did you mean 'algorithms'?" in str(e.value)
    with pytest.raises(TypeError) as e:
        collsim.train("examples/training/toy.yaml", "ring:4", backnd="flow")
    assert "'backend'" in str(e.value)


def test_dataframes_carry_their_units():
    df = collsim.collective("ring:4", sizes="1KiB", backend="analytical")
    assert df.attrs["units"]["time_ns"] == "nanoseconds"
    assert df.attrs["units"]["busbw_GBps"] == "10^9 bytes/s"


def test_llm_takes_a_path_or_a_dict_and_matches_the_command_line():
    path = os.path.join(SOURCE, "examples/llm/sc21-gpt3-1.7b.yaml")
    df = collsim.llm(path)
    assert list(df["gpus"]) == [32]
    text = collsim.cli("llm", path, "--format", "csv", "--quiet")
    assert f"{df['iteration_time_ms'][0]:.3f}" in text
    config = {"model": {"preset": "gpt3-1.7b"},
              "parallel": {"tp": 2, "pp": 2, "dp": 1, "micro_batch": 1, "global_batch": 4},
              "system": {"gpu": "h100"}}
    d = collsim.llm(config)
    assert 0 < d["mfu"][0] < 1
    assert d.attrs["units"]["iteration_time_ms"] == "milliseconds"
    config["parallel"]["tq"] = 1
    with pytest.raises(collsim.CollsimError) as e:
        collsim.llm(config)
    assert "config (dict)" in str(e.value) and "parallel.tq" in str(e.value)


def test_llm_search_and_breakdown_from_python():
    job = {"model": {"layers": 8, "hidden": 1024, "heads": 16, "ffn_hidden": 4096,
                     "seq_len": 2048, "vocab": 50257},
           "parallel": {"global_batch": 16, "zero": 1, "recompute": "selective"},
           "system": {"gpu": "a100-80gb", "gpus": 8}}
    top = collsim.llm(job, search=True, top=2)
    assert len(top) == 2 and top["iteration_time_ms"][0] <= top["iteration_time_ms"][1]
    best = {"model": job["model"], "system": {"gpu": "a100-80gb"},
            "parallel": {"tp": int(top["tp"][0]), "pp": int(top["pp"][0]),
                         "dp": int(top["dp"][0]), "micro_batch": int(top["micro_batch"][0]),
                         "global_batch": 16}}
    bd = collsim.llm(best, breakdown=True)
    assert set(bd["class"]) >= {"gemm", "softmax", "launch"}

def test_sweep_runs_points_on_threads_into_one_dataframe():
    # The same rows as the calls one by one, in the order of the points, with their index.
    points = [{"topology": "torus:4x4", "algorithms": a, "sizes": ["64KiB", "1MiB"],
               "backend": "flow"} for a in ("ring", "direct", "halving-doubling")]
    points.append({"command": "train", "workload": os.path.join(SOURCE, "examples/training/toy.yaml"),
                   "topology": "torus:4x4", "algorithms": "ring", "backend": "analytical"})
    df = collsim.sweep(points, jobs=2)
    serial = [collsim.collective(**p) for p in points[:3]]
    assert list(df.point[:6]) == [0, 0, 1, 1, 2, 2]
    assert list(df.algorithm[:6]) == ["ring", "ring", "direct", "direct",
                                      "halving-doubling", "halving-doubling"]
    for i, s in enumerate(serial):
        got = df[df.point == i].reset_index(drop=True)
        assert list(got.time_ns) == list(s.time_ns)
    assert "total" in set(df[df.point == 3].layer)
    assert df.attrs["units"]["time_ns"] == "nanoseconds"
    with pytest.raises(collsim.CollsimError) as e:
        collsim.sweep([points[0], {"topology": "torus:4x4", "algorithms": "nope"}], jobs=2)
    assert "points[1]" in str(e.value)
    with pytest.raises(ValueError):
        collsim.sweep(points, jobs=0)
