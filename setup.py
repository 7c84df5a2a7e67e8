"""The CMake build behind `pip install .` (see pyproject.toml).

build_ext configures and builds the `collsim` and `_collsim` targets in setuptools' build folder
(with the interpreter that runs pip, so the extension matches it), then puts into the package: the
extension, the command-line program as collsim/bin/collsim (run by the `collsim` script) and the
model zoo as collsim/share/collsim/models (where that program looks, beside its bin/).
COLLSIM_PREBUILT=DIR takes both from an existing CMake build folder instead of building (the test
suite installs the build it has just made).
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


def version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(collsim VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("COLLSIM_PREBUILT")
        if build:
            build = Path(build).resolve()
        else:
            build = Path(self.build_temp).resolve() / "cmake"
            build.mkdir(parents=True, exist_ok=True)
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                            f"-DPython_EXECUTABLE={sys.executable}", "-DCOLLSIM_BENCH=OFF"],
                           check=True)
            subprocess.run(["cmake", "--build", str(build), "-j", str(os.cpu_count() or 2),
                            "--target", "collsim", "_collsim"], check=True)
        built = sorted((build / "python" / "collsim").glob("_collsim*.so"))
        if not built or not (build / "collsim").is_file():
            sys.exit(f"collsim: no collsim and _collsim*.so in {build}; build them first")
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        package = target.parent
        package.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], target)
        (package / "bin").mkdir(exist_ok=True)
        shutil.copy2(build / "collsim", package / "bin" / "collsim")
        shutil.copytree(ROOT / "models", package / "share" / "collsim" / "models",
                        dirs_exist_ok=True)


setup(
    version=version(),
    package_dir={"": "python"},
    packages=["collsim"],
    ext_modules=[Extension("collsim._collsim", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build folder, beside (not inside) CMake's build/ of the Makefile.
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": "build-pip"}},
    zip_safe=False,
)
