#!/usr/bin/env python3
"""Print every skipped test with the reason it gave (GTEST_SKIP's message), from CTest's log.

CTest's summary lists skipped tests by name only; this prints why, so that a skip in
`make test` or `make sanitize` is never silent. Usage: skip_reasons.py BUILD/Testing/Temporary/LastTest.log
"""
import re
import sys


def main(path):
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return 0
    skipped = []
    # One block per test: "k/n Testing: NAME", its output, then "Test time = ...".
    for block in re.split(r"\n(?=\d+/\d+ Testing: )", text):
        m = re.match(r"\d+/\d+ Testing: (\S+)", block)
        if not m:
            continue
        why = re.search(r": Skipped\n(.*)\n", block)
        if why:
            skipped.append((m.group(1), why.group(1).strip() or "(no reason given)"))
    if skipped:
        print("skipped tests and why:")
        for name, why in skipped:
            print("  %s: %s" % (name, why))
    else:
        print("skipped tests: none")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) if len(sys.argv) == 2 else 2)
