"""tools/fidelity.py: the claims file is well formed (unique ids, a known source per claim, the
paper's value inside its own band, at least 40 claims over the five seed papers); a claim's
status follows its band and its stated cause, a new deviation is tabulated open and named; the
reduced tier passes on identical rows and fails, naming the row, on any drift. Standard library,
no simulation (well under a second)."""
import csv
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import fidelity  # noqa: E402


def claim(lo, hi, deviation="", basis="±10%"):
    return {"id": "X1", "paper": "p", "figure": "Fig. 1", "metric": "m", "unit": "x",
            "band_lo": lo, "band_hi": hi, "band_basis": basis, "deviation": deviation}


class Claims(unittest.TestCase):
    def test_claims_file_is_well_formed(self):
        claims = fidelity.read_claims(fidelity.CLAIMS)
        self.assertGreaterEqual(len(claims), 40)
        self.assertEqual({c["paper"] for c in claims}, set(fidelity.PAPERS))
        for c in claims:
            self.assertIn(c["source"].split()[0], fidelity.SOURCES, c["id"])
            lo, hi = fidelity.number(c["band_lo"]), fidelity.number(c["band_hi"])
            self.assertTrue(lo is not None or hi is not None, c["id"])
            dev = c["deviation"].strip()
            self.assertTrue(dev == "" or dev.startswith(("named:", "open:")), c["id"])
            if c["source"] == "not_run":
                self.assertTrue(dev.startswith("open:"), c["id"])
            value = fidelity.number(c["paper_value"])
            if value is not None and not c["band_basis"].startswith("ordering"):
                self.assertTrue((lo is None or lo <= value) and (hi is None or value <= hi),
                                f"{c['id']}: the paper's {value} outside its band [{lo}, {hi}]")


class Status(unittest.TestCase):
    def test_inside_the_band_holds_whatever_the_note(self):
        self.assertEqual(fidelity.status(claim("0.9", "1.1"), 1.0), ("holds", ""))
        self.assertEqual(fidelity.status(claim("0.9", "1.1", "named: c"), 1.1)[0], "holds")
        self.assertEqual(fidelity.status(claim("1", ""), 7.0)[0], "holds")  # one-sided

    def test_outside_the_band_takes_the_stated_cause(self):
        self.assertEqual(fidelity.status(claim("0.9", "1.1", "named: the cause"), 1.5),
                         ("named deviation", "the cause"))
        self.assertEqual(fidelity.status(claim("", "1", "open: too long"), 1.5),
                         ("open", "too long"))

    def test_a_new_deviation_is_open_and_named_on_stderr(self):
        err = io.StringIO()
        with redirect_stderr(err):
            st, why = fidelity.status(claim("0.9", "1.1"), 2.0)
        self.assertEqual(st, "open")
        self.assertIn("no cause named yet", why)
        self.assertIn("claim X1", err.getvalue())
        self.assertIn("outside its band [0.90x, 1.10x] at 2.00x", err.getvalue())


class Reduced(unittest.TestCase):
    def write(self, folder, name, rows):
        with open(os.path.join(folder, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)

    def run_reduced(self, results, tables, update=False):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                fidelity.reduced(results, tables, ["wrht"], update)
                code = 0
            except SystemExit as e:
                code = e.code
        return code, out.getvalue() + err.getvalue()

    def test_identical_rows_pass_and_any_drift_fails_naming_the_row(self):
        with tempfile.TemporaryDirectory() as results, tempfile.TemporaryDirectory() as tables:
            rows = [{"algorithm": "ring", "size_bytes": "1000", "time_ns": "12.5", "note": "x"},
                    {"algorithm": "wrht", "size_bytes": "1000", "time_ns": "9.0", "note": "y"}]
            self.write(results, "wrht-fig2.csv", rows)
            self.assertEqual(self.run_reduced(results, tables, update=True)[0], 0)
            code, text = self.run_reduced(results, tables)
            self.assertEqual(code, 0, text)
            rows[1]["time_ns"] = "9.5"
            self.write(results, "wrht-fig2.csv", rows)
            code, text = self.run_reduced(results, tables)
            self.assertEqual(code, 1)
            self.assertIn("algorithm=wrht;size_bytes=1000", text)
            self.assertIn("time_ns=9.5", text)
            # A column that is not a figure (a note) does not count as drift.
            rows[1]["time_ns"], rows[1]["note"] = "9.0", "changed"
            self.write(results, "wrht-fig2.csv", rows)
            self.assertEqual(self.run_reduced(results, tables)[0], 0)

    def test_missing_results_or_table_stop_with_the_reason(self):
        with tempfile.TemporaryDirectory() as results, tempfile.TemporaryDirectory() as tables:
            code, _ = self.run_reduced(results, tables)
            self.assertIn("no reduced results for wrht", str(code))
            self.write(results, "wrht-fig2.csv", [{"algorithm": "ring", "time_ns": "1"}])
            code, _ = self.run_reduced(results, tables)
            self.assertIn("wrht.csv is missing", str(code))


if __name__ == "__main__":
    unittest.main()
