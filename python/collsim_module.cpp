// The Python extension behind the `collsim` package (python/collsim/__init__.py): collsim's
// command line run in process, its output and errors returned as text.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_collsim, m) {
  m.doc() = "collsim's command line, in process (use the collsim package's functions)";
  m.def(
      "run_cli",
      [](const std::vector<std::string>& args) {
        std::vector<const char*> argv{"collsim"};
        for (const std::string& a : args) argv.push_back(a.c_str());
        std::ostringstream out, err;
        int status = 0;
        {
          py::gil_scoped_release release;  // long simulations let other Python threads run
          status = collsim::cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
        }
        return py::make_tuple(status, out.str(), err.str());
      },
      py::arg("args"),
      "Run `collsim ARGS...`; returns (exit status, standard output, standard error).");
}
