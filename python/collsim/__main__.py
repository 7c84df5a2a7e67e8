"""`collsim` (the script pip installs) and `python -m collsim`: the command-line program.

Runs the program installed in the package (collsim/bin/collsim, put there by `pip install .`), or,
in a build folder used through PYTHONPATH, the one CMake built beside python/.
"""
import os
import sys


def program():
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "bin", "collsim"), os.path.join(here, "..", "..", "collsim")):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    return None


def main():
    exe = program()
    if exe is None:
        sys.exit("collsim: the command-line program is not in this package; install the package "
                 "with `pip install .` from the source tree, or build it with `make`")
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    main()
