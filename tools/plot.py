#!/usr/bin/env python3
"""collsim's figures from its CSV output: the plotting module is python/collsim/plot.py (also
`collsim plot` and `python3 -m collsim.plot`); this script runs it from the source tree."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from collsim.plot import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
