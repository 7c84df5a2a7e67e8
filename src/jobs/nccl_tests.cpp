#include "jobs/nccl_tests.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <set>
#include <sstream>

#include "core/error.hpp"

namespace collsim::jobs {

namespace nccl = collective::nccl;

std::uint64_t parse_nccl_size(std::string_view text, std::string_view field) {
  const auto bad = [&](const char* why) {
    return core::InputError(std::string(field) + ": '" + std::string(text) + "' " + why +
                            " (nccl-tests syntax: bytes, or a number with K, M or G, e.g. 32M "
                            "or 1.5M)");
  };
  if (text.empty()) throw bad("is empty");
  double scale = 1;
  std::string_view digits = text;
  switch (text.back()) {
    case 'K':
    case 'k':
      scale = 1024.0;
      break;
    case 'M':
    case 'm':
      scale = 1024.0 * 1024;
      break;
    case 'G':
    case 'g':
      scale = 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  if (scale != 1) digits.remove_suffix(1);
  if (digits.empty()) throw bad("has no number");
  // nccl-tests reads the number as a double (sscanf %lf) and truncates number x unit to bytes.
  bool dot = false, any = false;
  for (char c : digits) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c < '0' || c > '9') {
      throw bad("is not a number");
    } else {
      any = true;
    }
  }
  if (!any) throw bad("has no number");
  const double v = std::strtod(std::string(digits).c_str(), nullptr);
  const double bytes = v * scale;
  if (!(bytes < 1.8e19)) throw bad("is too large");
  return static_cast<std::uint64_t>(bytes);
}

std::uint32_t nccl_type_bytes(std::string_view type, std::string_view field) {
  struct T {
    std::string_view name;
    std::uint32_t bytes;
  };
  static constexpr T kTypes[] = {{"int8", 1},   {"uint8", 1},   {"int32", 4}, {"uint32", 4},
                                 {"int64", 8},  {"uint64", 8},  {"half", 2},  {"float", 4},
                                 {"double", 8}, {"bfloat16", 2}};
  std::string valid;
  for (const T& t : kTypes) {
    if (t.name == type) return t.bytes;
    valid += valid.empty() ? "" : ", ";
    valid += t.name;
  }
  throw core::InputError(std::string(field) + ": unknown type '" + std::string(type) +
                         "' (valid: " + valid + ")");
}

namespace {

// The count and size nccl-tests prints for a requested size (its *GetCollByteCount): all-gather,
// reduce-scatter and alltoall take count / ranks elements per rank (per peer for alltoall),
// rounded down to whole 16-byte lines (& -(16 / element size)), and print that count and the
// whole buffer, count x ranks; all-reduce and sendrecv take every element.
struct Rounded {
  std::uint64_t count = 0;
  std::uint64_t bytes = 0;
};
Rounded round_size(nccl::Op op, std::uint64_t size, std::uint32_t word, std::uint32_t ranks) {
  const std::uint64_t elements = size / word;
  switch (op) {
    case nccl::Op::AllGather:
    case nccl::Op::ReduceScatter:
    case nccl::Op::AllToAll: {
      const std::uint64_t line = word < 16 ? 16 / word : 1;
      const std::uint64_t per_rank = elements / ranks / line * line;
      return {per_rank, per_rank * ranks * word};
    }
    case nccl::Op::AllReduce:
    case nccl::Op::SendRecv:
      break;
  }
  return {elements, elements * word};
}

// nccl-tests' number format: two decimals while they fit in `width`, then one, then none.
std::string float_str(double value, int width) {
  int power = 0;
  for (std::uint64_t v = 1; value >= static_cast<double>(v) && power < 19; v *= 10) ++power;
  char buf[64];
  if (power < width - 2) {
    std::snprintf(buf, sizeof buf, "%*.2f", width, value);
  } else if (power < width - 1) {
    std::snprintf(buf, sizeof buf, "%*.1f", width, value);
  } else if (power < width + 1) {
    std::snprintf(buf, sizeof buf, "%*.0f", width, value);
  } else if (width >= 7) {
    std::snprintf(buf, sizeof buf, "%*.1e", width, value);
  } else {
    std::snprintf(buf, sizeof buf, "%*.0e", width, value);
  }
  return buf;
}

}  // namespace

std::vector<NcclTestsRow> run_nccl_tests(const NcclTestsOptions& opt, const nccl::Context& ctx) {
  const std::uint32_t word = nccl_type_bytes(opt.type, "-d");
  nccl::check_shape(ctx.system, ctx.shape);
  if (opt.min_bytes == 0) throw core::InputError("-b: must be at least 1 byte");
  if (opt.max_bytes < opt.min_bytes) {
    throw core::InputError("-e: " + std::to_string(opt.max_bytes) + " is below -b " +
                           std::to_string(opt.min_bytes));
  }
  if (opt.factor <= 1 && opt.increment == 0 && opt.max_bytes > opt.min_bytes) {
    throw core::InputError(
        "-i: a step of 0 bytes never reaches -e (give -i BYTES, or -f 2 or "
        "more)");
  }
  const std::uint32_t ranks = ctx.shape.ranks();
  std::vector<NcclTestsRow> rows;
  for (std::uint64_t size = opt.min_bytes; size <= opt.max_bytes;) {
    const Rounded r = round_size(opt.op, size, word, ranks);
    NcclTestsRow row;
    row.bytes = r.bytes;
    row.count = r.count;
    // A size that rounds to 0 elements still makes a call (nccl-tests times it): the model's
    // fixed part, as `validate nccl` would price the row.
    const nccl::Estimate e =
        nccl::estimate(opt.algorithm, opt.op, static_cast<double>(r.bytes), ctx, opt.protocol);
    row.time_us = e.seconds * 1e6;
    row.algbw = static_cast<double>(r.bytes) / e.seconds / 1e9;
    row.busbw = row.algbw * nccl::busbw_factor(opt.op, ranks);
    row.algorithm = std::string(e.algorithm->name) + "/" + std::string(to_string(e.protocol));
    rows.push_back(row);
    const std::uint64_t next = opt.factor > 1 ? size * opt.factor : size + opt.increment;
    if (next <= size) break;  // overflow
    size = next;
  }
  return rows;
}

void print_nccl_tests(std::ostream& out, const NcclTestsOptions& opt, const nccl::Context& ctx,
                      const std::vector<NcclTestsRow>& rows) {
  const std::string_view bin = nccl::perf_binary(opt.op);
  const bool no_redop = opt.op == nccl::Op::AllGather || opt.op == nccl::Op::AllToAll;
  const std::string redop = no_redop ? "none" : opt.redop;
  char line[256];
  out << "# collsim nccl-tests: " << bin << " on " << ctx.system.name << " (" << ctx.system.gpu
      << "), " << ctx.shape.nodes << " node(s) x " << ctx.shape.gpus
      << " GPUs, closed-form NCCL model (docs/nccl.md)\n";
  out << "# Collective test starting: " << bin << "\n";
  const bool by_factor = opt.factor > 1;
  std::snprintf(line, sizeof line,
                "# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: 0 "
                "iters: 1 agg iters: 1 validation: 0 graph: 0\n",
                static_cast<unsigned long long>(opt.min_bytes),
                static_cast<unsigned long long>(opt.max_bytes),
                static_cast<unsigned long long>(by_factor ? opt.factor : opt.increment),
                by_factor ? "factor" : "bytes");
  out << line << "#\n# Using devices\n";
  // One line per rank as nccl-tests prints them, so `collsim validate nccl` reads the shape back.
  const std::string device = "NVIDIA " + std::string(ctx.system.gpu);
  for (std::uint32_t r = 0; r < ctx.shape.ranks(); ++r) {
    const std::string host = "node" + std::to_string(r / ctx.shape.gpus);
    std::snprintf(line, sizeof line,
                  "#  Rank %2u Group %2d Pid %6u on %10s device %2u [0000:00:00] %s\n", r, 0, r,
                  host.c_str(), r % ctx.shape.gpus, device.c_str());
    out << line;
  }
  out << "#\n";
  std::snprintf(line, sizeof line,
                "# %10s  %12s  %8s  %6s  %6s           out-of-place          "
                "             in-place          \n",
                "", "", "", "", "");
  out << line;
  // nccl-tests 2.17's header, as its logs print it.
  static constexpr char columns[] =
      "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n";
  std::snprintf(line, sizeof line, columns, "size", "count", "type", "redop", "root", "time",
                "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out << line;
  std::snprintf(line, sizeof line, columns, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
                "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  out << line;
  double sum_busbw = 0;
  std::string algos;
  std::string last_algo;
  for (const NcclTestsRow& r : rows) {
    std::snprintf(line, sizeof line, "%12llu  %12llu  %8s  %6s  %6i",
                  static_cast<unsigned long long>(r.bytes),
                  static_cast<unsigned long long>(r.count), opt.type.c_str(), redop.c_str(), -1);
    out << line;
    for (int place = 0; place < 2; ++place) {  // in-place equals out-of-place in the model
      std::snprintf(line, sizeof line, "  %7s  %6s  %6s    N/A", float_str(r.time_us, 7).c_str(),
                    float_str(r.algbw, 6).c_str(), float_str(r.busbw, 6).c_str());
      out << line;
    }
    out << '\n';
    sum_busbw += r.busbw;
    if (r.algorithm != last_algo) {
      algos +=
          (algos.empty() ? "" : ", ") + r.algorithm + " from " + std::to_string(r.bytes) + " B";
      last_algo = r.algorithm;
    }
  }
  std::snprintf(line, sizeof line, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %g \n",
                rows.empty() ? 0.0 : sum_busbw / static_cast<double>(rows.size()));
  out << line << "#\n# collsim algorithm/protocol (" << opt.algorithm << ", " << opt.protocol
      << "): " << algos << "\n";
  out << "#\n# Collective test concluded: " << bin << "\n#\n";
}

std::string_view system_for_device(std::string_view device) {
  if (device.find("GB200") != std::string_view::npos) return "gb200";
  if (device.find("B200") != std::string_view::npos) return "gb200";
  if (device.find("H200") != std::string_view::npos) return "h200";
  if (device.find("H100") != std::string_view::npos) return "h100";
  if (device.find("A100") != std::string_view::npos) return "a100";
  return "";
}

std::vector<NcclLogRun> read_nccl_log(const std::string& text, const std::string& name) {
  std::vector<NcclLogRun> runs;
  std::set<std::string> hosts;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  const std::string start = "# Collective test starting: ";
  const std::string rank = "#  Rank";
  while (std::getline(in, line)) {
    ++number;
    const auto where = [&] { return name + ":" + std::to_string(number) + ": "; };
    if (line.rfind(start, 0) == 0) {
      std::string bin = line.substr(start.size());
      while (!bin.empty() && (bin.back() == ' ' || bin.back() == '\r')) bin.pop_back();
      NcclLogRun run;
      try {
        run.op = nccl::parse_perf_binary(bin, "test");
      } catch (const core::InputError& e) {
        throw core::InputError(where() + e.what());
      }
      runs.push_back(run);
      hosts.clear();
      continue;
    }
    if (line.rfind(rank, 0) == 0 && !runs.empty()) {
      // "#  Rank  0 Group  0 Pid 4180122 on HOST device  0 [0000:1b:00] NVIDIA H100 80GB HBM3"
      std::istringstream f(line);
      std::string w, host;
      while (f >> w) {
        if (w == "on") f >> host;
      }
      NcclLogRun& run = runs.back();
      ++run.ranks;
      if (hosts.insert(host).second) run.nodes = static_cast<std::uint32_t>(hosts.size());
      if (run.device.empty()) {
        const auto bracket = line.find("] ");
        if (bracket != std::string::npos) run.device = line.substr(bracket + 2);
      }
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream f(line);
    std::vector<std::string> cells;
    std::string c;
    while (f >> c) cells.push_back(c);
    if (cells.size() < 9) continue;  // not a result row (e.g. a warning)
    if (runs.empty()) throw core::InputError(where() + "a result row before any test started");
    try {
      std::size_t used = 0;
      const std::uint64_t bytes = std::stoull(cells[0], &used);
      if (used != cells[0].size()) throw std::invalid_argument("size");
      const double t = std::stod(cells[5], &used);
      if (used != cells[5].size() || !(t > 0)) throw std::invalid_argument("time");
      runs.back().bytes.push_back(bytes);
      runs.back().time_us.push_back(t);
      runs.back().type = cells[2];
    } catch (const std::exception&) {
      throw core::InputError(where() +
                             "cannot read a result row (size, count, type, redop, "
                             "root, time, ...): '" +
                             line + "'");
    }
  }
  return runs;
}

}  // namespace collsim::jobs
