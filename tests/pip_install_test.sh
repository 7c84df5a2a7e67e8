#!/bin/sh
# `pip install --no-build-isolation .` offline into a fresh venv (made with
# --system-site-packages, as docs/python.md says) installs a package that imports, runs a
# collective in process, finds the model zoo, and a `collsim` command that runs. The CMake build
# the suite has just made is packaged (COLLSIM_PREBUILT) rather than built a second time.
# Skipped (77) where Debian's pip or setuptools is missing (`make deps` installs them).
# Usage: pip_install_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2 work=$2/pip-test
py=/usr/bin/python3
"$py" -c 'import setuptools, wheel, pip' 2>/dev/null || { echo "pip/setuptools/wheel missing: skipped"; exit 77; }
rm -rf "$work" && "$py" -m venv --without-pip --system-site-packages "$work/venv" || exit 1
cd "$src" || exit 1
COLLSIM_PREBUILT="$build" "$work/venv/bin/python" -m pip install -q --no-index --no-build-isolation \
  --no-warn-script-location . >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
cd "$work" || exit 1
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$work/venv/bin/python" - "$site" <<'PY' || exit 1
import os, sys
import collsim
site = sys.argv[1]
assert collsim.__file__.startswith(site), f"imported {collsim.__file__}, not the venv's"
df = collsim.collective("torus:4x4", algorithms=["ring"], sizes="1MiB", link_bandwidth="100 GB/s",
                        link_latency="500 ns")
# The ring's closed form: 2 x 15 steps of 1 MiB / 16 at 100 GB/s, plus 500 ns each.
t = float(df["time_ns"].iloc[0])
assert abs(t - (30 * 65536 / 100 + 30 * 500)) < 1e-3, t
assert os.path.isdir(os.environ["COLLSIM_MODELS"]), os.environ.get("COLLSIM_MODELS")
assert "resnet50" in collsim.cli("list"), "the model zoo was not found"
PY
"$work/venv/bin/collsim" --version | grep -q '^collsim [0-9]' || { echo "collsim script failed"; exit 1; }
"$work/venv/bin/collsim" list | grep -q resnet50 || { echo "installed collsim finds no model zoo"; exit 1; }
echo "pip install: ok"
