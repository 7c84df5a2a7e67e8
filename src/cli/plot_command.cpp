// `collsim plot RESULTS.csv -o FIG.png`: the standard figure of a results CSV, and `collsim plot
// --trace FILE.json -o FIG.png`: a run's timeline, drawn by the Python plotting module every
// figure in docs/ uses (python/collsim/plot.py, timeline.py; matplotlib).
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "report/output_file.hpp"
#include "scheduler/limits.hpp"

extern char** environ;

namespace collsim::cli {

namespace {

// The plotting process's work, estimated before it starts: Python's pandas / json hold about 16
// bytes per byte of input beside matplotlib's 256 MiB, and draw every line of it (a point, or an
// event of a timeline). The size is checked first, so that a huge file is refused unread.
void check_plot_work(const std::vector<std::string>& files, const PlotOptions& opt) {
  const scheduler::RunLimits limits = parse_limits(opt.max_messages, opt.max_memory);
  constexpr std::uint64_t kPythonBytes = 256ull << 20, kBytesPerInputByte = 16;
  std::uint64_t bytes = 0;
  std::error_code ec;
  for (const std::string& f : files) bytes += std::filesystem::file_size(f, ec);
  const std::string what = fmt::format("plot of {}", opt.trace.empty() ? opt.csv : opt.trace);
  const std::uint64_t memory = kPythonBytes + kBytesPerInputByte * bytes;
  if (memory > limits.max_memory) {
    scheduler::check_command_work(0, "lines of input", memory, limits,
                                  what + fmt::format(" ({} bytes of input)", bytes));
  }
  std::uint64_t lines = 0;
  std::vector<char> buf(1 << 20);
  for (const std::string& f : files) {
    std::ifstream in(f, std::ios::binary);
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      lines += static_cast<std::uint64_t>(
          std::count(buf.data(), buf.data() + in.gcount(), '\n'));
    }
  }
  scheduler::check_command_work(lines, "lines of input", memory, limits, what);
}

}  // namespace

int plot_results(const PlotOptions& opt, std::ostream& err) {
  if (opt.output.empty()) throw core::InputError("-o: the PNG to write is missing");
  report::check_output_path(opt.output, "--output");
  if (opt.csv.empty() == opt.trace.empty()) {
    throw core::InputError(
        "plot: give a results CSV, or --trace FILE.json for a timeline, not both or neither");
  }
  if (opt.run != 1 && opt.trace.empty()) throw core::InputError("--run: only with --trace");
  if (opt.run < 1) throw core::InputError("--run: runs are numbered from 1");
  const std::string& input = opt.trace.empty() ? opt.csv : opt.trace;
  std::error_code ec;
  std::vector<std::string> files;
  for (std::size_t start = 0; start <= input.size();) {
    const auto comma = opt.trace.empty() ? std::min(input.find(',', start), input.size())
                                         : input.size();
    const std::string f = input.substr(start, comma - start);
    if (!std::filesystem::is_regular_file(f, ec)) {
      throw core::InputError(fmt::format("plot: {}: no such file", f));
    }
    files.push_back(f);
    start = comma + 1;
  }
  check_plot_work(files, opt);
  // Debian's python3 has matplotlib and pandas; the package comes from the source tree (or
  // from where `cmake --install` put it, which Debian's python3 searches anyway).
  const std::string python =
      std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::string path = COLLSIM_PYTHON_SOURCE_DIR;
  // Installed by `pip install .`, this program is collsim/bin/collsim inside the package.
  if (const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
      !ec && std::filesystem::is_regular_file(exe.parent_path().parent_path() / "plot.py", ec)) {
    path = exe.parent_path().parent_path().parent_path().string() + ":" + path;
  }
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  std::vector<std::string> env_strings{"PYTHONPATH=" + path};
  for (char** e = environ; *e; ++e) {
    if (std::string(*e).rfind("PYTHONPATH=", 0) != 0) env_strings.emplace_back(*e);
  }
  std::vector<std::string> args{python, "-m", "collsim.plot",
                                opt.trace.empty() ? "auto" : "timeline", input, opt.output};
  if (!opt.trace.empty()) args.insert(args.end(), {"--run", std::to_string(opt.run)});
  if (!opt.title.empty()) args.insert(args.end(), {"--title", opt.title});
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), envp.data()) != 0) {
    throw core::InputError(
        fmt::format("plot: cannot run {} (install python3-matplotlib and "
                    "python3-pandas: `make figures` does)",
                    python));
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
    err << "collsim: error: plot: the plotting process did not finish\n";
    return 1;
  }
  return WEXITSTATUS(status);
}

}  // namespace collsim::cli
