"""tools/doc_tables.py: a block's text is swapped between its markers, everything else is kept,
a missing marker stops the script (exit status 1 with the markers named) and leaves the page as
it was, and a block without inputs (None) is left as is."""
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import doc_tables  # noqa: E402

PAGE = "# t\n<!-- B a -->\nold a\n<!-- E a -->\nmid\n<!-- B b -->\nold b\n<!-- E b -->\nend\n"


def markers(name):
    return f"<!-- B {name} -->", f"<!-- E {name} -->"


class DocTables(unittest.TestCase):
    def page(self):
        f = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False)
        f.write(PAGE)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_replaces_each_block_and_keeps_the_rest(self):
        path = self.page()
        with redirect_stderr(io.StringIO()) as err:
            doc_tables.rewrite(path, {"a": ["x", "y"], "b": None}, markers, "t")
        self.assertEqual(open(path).read(),
                         "# t\n<!-- B a -->\nx\ny\n<!-- E a -->\nmid\n<!-- B b -->\nold b\n"
                         "<!-- E b -->\nend\n")
        self.assertIn("b: its inputs are missing", err.getvalue())

    def test_same_text_twice_gives_the_same_bytes(self):
        path = self.page()
        doc_tables.rewrite(path, {"a": "z"}, markers, "t")
        once = open(path).read()
        doc_tables.rewrite(path, {"a": "z"}, markers, "t")
        self.assertEqual(open(path).read(), once)

    def test_missing_marker_stops_and_writes_nothing(self):
        path = self.page()
        with self.assertRaises(SystemExit) as e:
            doc_tables.rewrite(path, {"a": "new", "c": "x"}, markers, "t")
        self.assertIn("<!-- B c -->", str(e.exception.code))
        self.assertEqual(open(path).read(), PAGE)

    def test_end_before_begin_is_an_error(self):
        with self.assertRaises(SystemExit):
            doc_tables.replace_block("<!-- E a --> <!-- B a -->", "<!-- B a -->", "<!-- E a -->",
                                     "x", "t")


if __name__ == "__main__":
    unittest.main()
