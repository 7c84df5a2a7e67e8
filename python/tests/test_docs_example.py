"""docs/python.md's sweep-and-plot example, run as a reader would paste it into a notebook: it
must draw its PNG and print exactly the table the page shows below it."""
import contextlib
import io
import os
import re

import pytest

DOC = os.path.join(os.environ.get("COLLSIM_SOURCE_DIR",
                                  os.path.join(os.path.dirname(__file__), "..", "..")),
                   "docs", "python.md")


def example():
    """The first ```python block after 'A sweep and a plot', and the plain block after it."""
    text = open(DOC).read()
    start = text.index("A sweep and a plot")
    code = re.search(r"```python\n(.*?)```", text[start:], re.S)
    shown = re.search(r"```\n(.*?)```", text[start + code.end():], re.S)
    return code.group(1), shown.group(1)


def test_docs_python_example_runs_and_prints_what_the_page_shows(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    code, shown = example()
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {"__name__": "__main__"})
    assert (tmp_path / "sweep.png").stat().st_size > 0
    assert out.getvalue() == shown
