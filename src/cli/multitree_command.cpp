// `collsim multitree`: MultiTree's trees and schedule tables (MultiTree (ISCA'21) Fig. 3 and 5).
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "cli/backend_flags.hpp"
#include "cli/commands.hpp"
#include "collective/algorithms/multitree_build.hpp"
#include "core/error.hpp"
#include "scheduler/limits.hpp"
#include "topology/builders.hpp"

namespace collsim::cli {

namespace {

// The command's work before any tree is built: 2 N (N-1) tree edges (an all-gather tree per NPU,
// each edge also a reduce-scatter message) against --max-messages, and what building and printing
// them holds against --max-memory (build_multitree also refuses a construction past 2e10 link
// checks, whatever the limits).
void check_multitree_work(const topology::Topology& topo, collective::MultiTreeMode mode,
                          const MultiTreeOptions& opt) {
  const scheduler::RunLimits limits = parse_limits(opt.max_messages, opt.max_memory);
  const std::uint64_t n = topo.num_npus();
  const std::uint64_t edges = n * (n - 1);
  // Memory: the topology, each tree's membership (N^2 bytes) and its edges (40 B each), and
  // per edge about 300 B of JSON document with --format json. A switched network outside the
  // authors' search also keeps every NPU pair's route (24 B + 4 B per link).
  std::uint64_t bytes = scheduler::kBaseBytes + scheduler::kBytesPerLink * topo.links().size() +
                        n * n + 40 * edges + (opt.format == "json" ? 300 * edges : 0);
  bool one_link_each = true;
  for (topology::NodeId p = 0; p < n && one_link_each; ++p) {
    const auto out = topo.out_links(p);
    one_link_each = out.size() == 1 && !topo.is_npu(topo.links()[out[0]].dst);
  }
  if (topo.num_switches() != 0 &&
      !(mode == collective::MultiTreeMode::Reference && one_link_each) && n > 1) {
    bytes += n * n * (24 + 4 * std::uint64_t{std::max(2u, topo.hops(0, n - 1))});
  }
  scheduler::check_command_work(2 * edges, "tree edges", bytes, limits,
                                fmt::format("multitree on {} ({} NPUs)", topo.name(), n));
}

}  // namespace

int show_multitree(const MultiTreeOptions& opt, std::ostream& out) {
  const topology::Topology topo = topology::from_compact(opt.topology, core::Bandwidth{1e9},
                                                         core::Time::from_ns(1), "--topology");
  collective::MultiTreeMode mode;
  if (opt.mode == "reference") {
    mode = collective::MultiTreeMode::Reference;
  } else if (opt.mode == "paper") {
    mode = collective::MultiTreeMode::Paper;
  } else {
    throw core::InputError(fmt::format("--mode: must be reference or paper, got \"{}\"", opt.mode));
  }
  if (opt.kary < 2) throw core::InputError(fmt::format("--kary: must be >= 2, got {}", opt.kary));
  if (opt.format != "table" && opt.format != "json") {
    throw core::InputError(fmt::format("--format: must be table or json, got \"{}\"", opt.format));
  }
  check_multitree_work(topo, mode, opt);
  const auto plan = collective::build_multitree(topo, mode, opt.kary);
  const std::string problem = collective::check_multitree(topo, plan);
  const std::uint32_t n = topo.num_npus(), T = plan.steps;
  // The NPUs whose trees and schedule tables the table shows.
  std::vector<std::uint32_t> shown;
  if (opt.npu) {
    if (*opt.npu >= n) {
      throw core::InputError(
          fmt::format("--npu: {} is not an NPU of {} (0..{})", *opt.npu, topo.name(), n - 1));
    }
    shown.push_back(*opt.npu);
  } else {
    for (std::uint32_t a = 0; a < (n <= kMultiTreeTableNpus ? n : 1); ++a) shown.push_back(a);
  }
  // Per shown NPU and tree: its parent and children (all-gather direction) and the edge's step.
  struct Entry {
    int parent = -1;
    std::uint32_t step = 0;
    std::vector<std::uint32_t> children;
    std::uint32_t child_step = 0;  // the first child edge's all-gather step
  };
  std::vector<std::uint32_t> row(n, UINT32_MAX);  // NPU -> its row in `table`, if shown
  for (std::uint32_t k = 0; k < shown.size(); ++k) row[shown[k]] = k;
  std::vector<std::vector<Entry>> table(opt.format == "table" && !opt.check ? shown.size() : 0,
                                       std::vector<Entry>(n));
  for (std::uint32_t r = 0; r < n && !table.empty(); ++r) {
    for (const auto& e : plan.trees[r]) {
      if (row[e.child] != UINT32_MAX) {
        table[row[e.child]][r].parent = static_cast<int>(e.parent);
        table[row[e.child]][r].step = e.step;
      }
      if (row[e.parent] != UINT32_MAX) {
        Entry& up = table[row[e.parent]][r];
        if (up.children.empty()) up.child_step = e.step;
        up.children.push_back(e.child);
      }
    }
  }
  if (opt.format == "json") {
    nlohmann::json j;
    j["topology"] = topo.name();
    j["mode"] = opt.mode;
    j["kary"] = opt.kary;
    j["time_steps"] = T;
    j["check"] = problem.empty() ? "ok" : problem;
    for (std::uint32_t r = 0; r < n; ++r) {
      nlohmann::json edges = nlohmann::json::array();
      for (const auto& e : plan.trees[r]) {
        edges.push_back({{"child", e.child}, {"parent", e.parent}, {"step", e.step}});
      }
      j["trees"].push_back({{"root", r}, {"edges", edges}});
    }
    out << j.dump(1) << '\n';
    return problem.empty() ? 0 : 1;
  }
  out << fmt::format("{} ({} NPUs), mode {}, kary {}: T = {} time steps (all-reduce: {})\n",
                     topo.name(), n, opt.mode, opt.kary, T, 2 * T);
  if (opt.check) {
    out << (problem.empty() ? "check: ok, no directed link carries two tree edges in one time "
                              "step, every tree spans every NPU\n"
                            : "check: FAILED: " + problem + "\n");
    return problem.empty() ? 0 : 1;
  }
  if (shown.size() < n) {
    out << fmt::format("\n({} NPUs: NPU {}'s tree and schedule table only; --npu K shows NPU K's, "
                       "--format json every tree)\n",
                       n, shown.front());
  }
  out << "\ntrees (child <- parent @ all-gather step)\n";
  for (std::uint32_t r : shown) {
    std::string line = fmt::format("  tree {:>3}:", r);
    for (const auto& e : plan.trees[r])
      line += fmt::format(" {}<-{}@{}", e.child, e.parent, e.step);
    out << line << '\n';
  }
  out << "\nschedule tables (Fig. 5; t = the edge's all-gather step): Reduce sends to the parent "
         "at T - t + 1 (the root's, T + 1, only waits), Gather sends to the children at T + t\n";
  for (std::uint32_t k = 0; k < shown.size(); ++k) {
    const std::uint32_t a = shown[k];
    out << fmt::format("  NPU {}\n  {:<7} {:>6} {:>6}  {:<20} {:>4}\n", a, "Op", "FlowID", "Parent",
                       "Children", "Step");
    for (std::uint32_t r = 0; r < n; ++r) {  // Reduce: send to the parent once children are in
      const Entry& e = table[k][r];
      std::string kids;
      for (std::uint32_t c : e.children) kids += (kids.empty() ? "" : ",") + std::to_string(c);
      out << fmt::format("  {:<7} {:>6} {:>6}  {:<20} {:>4}\n", "Reduce", r,
                         e.parent < 0 ? std::string("nil") : std::to_string(e.parent),
                         kids.empty() ? "nil" : kids, e.parent < 0 ? T + 1 : T - e.step + 1);
    }
    for (std::uint32_t r = 0; r < n; ++r) {  // Gather: forward to the children
      const Entry& e = table[k][r];
      if (e.children.empty()) continue;
      std::string kids;
      for (std::uint32_t c : e.children) kids += (kids.empty() ? "" : ",") + std::to_string(c);
      out << fmt::format("  {:<7} {:>6} {:>6}  {:<20} {:>4}\n", "Gather", r,
                         e.parent < 0 ? std::string("nil") : std::to_string(e.parent), kids,
                         T + e.child_step);
    }
  }
  return problem.empty() ? 0 : 1;
}

}  // namespace collsim::cli
