#include "report/replay_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace collsim::report {
namespace {

double us(core::Time t) { return static_cast<double>(t.ps) / 1e6; }
double ns(core::Time t) { return static_cast<double>(t.ps) / 1e3; }

const workload::chakra::Node& node_of(const ReplayReport& r, std::uint32_t rank,
                                      std::uint32_t node) {
  const auto& ranks = *r.ranks;
  return ranks[ranks.size() == 1 ? 0 : rank].nodes[node];
}

}  // namespace

std::string render_replay(const ReplayReport& r, Format f) {
  const auto& res = r.result;
  if (f == Format::Csv) {
    std::string out = "trace,platform,backend,rank,finish_ns,compute_ns,exposed_ns,nodes\n";
    for (std::size_t k = 0; k < res.ranks.size(); ++k) {
      const auto& x = res.ranks[k];
      out += fmt::format("{},{},{},{},{},{},{},{}\n", csv_field(r.trace), csv_field(r.platform),
                         csv_field(r.backend), k, ns(x.finish), ns(x.compute),
                         ns(x.finish - x.compute), x.nodes);
    }
    return out;
  }
  if (f == Format::Json) {
    nlohmann::ordered_json j;
    j["trace"] = r.trace;
    j["platform"] = r.platform;
    j["backend"] = r.backend;
    j["total_ns"] = ns(res.total);
    j["collectives"] = res.collectives;
    j["sends"] = res.sends;
    j["memory_ops"] = res.memory_ops;
    j["messages"] = res.messages;
    j["bytes"] = res.bytes;
    j["events"] = res.events;
    std::uint64_t link_bytes = 0, busiest = 0;
    for (const auto& l : res.links) link_bytes += l.bytes, busiest = std::max(busiest, l.bytes);
    j["link_bytes"] = link_bytes;  // bytes x hops: every link a message crossed counts it
    j["max_link_bytes"] = busiest;
    j["ranks"] = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < res.ranks.size(); ++k) {
      const auto& x = res.ranks[k];
      j["ranks"].push_back({{"rank", k},
                            {"finish_ns", ns(x.finish)},
                            {"compute_ns", ns(x.compute)},
                            {"exposed_ns", ns(x.finish - x.compute)},
                            {"nodes", x.nodes}});
    }
    return j.dump(2) + "\n";
  }
  std::string out = fmt::format(
      "trace {} on {} ({}): {:.3f} us; {} collective{}, {} send{}, {} memory op{}; {} messages, "
      "{} bytes\n",
      r.trace, r.platform, r.backend, us(res.total), res.collectives,
      res.collectives == 1 ? "" : "s", res.sends, res.sends == 1 ? "" : "s", res.memory_ops,
      res.memory_ops == 1 ? "" : "s", res.messages, res.bytes);
  out += fmt::format("{:>6}  {:>14}  {:>14}  {:>14}  {:>7}\n", "rank", "finish (us)",
                     "compute (us)", "exposed (us)", "nodes");
  for (std::size_t k = 0; k < res.ranks.size(); ++k) {
    const auto& x = res.ranks[k];
    out += fmt::format("{:>6}  {:>14.3f}  {:>14.3f}  {:>14.3f}  {:>7}\n", k, us(x.finish),
                       us(x.compute), us(x.finish - x.compute), x.nodes);
  }
  return out;
}

std::string render_replay_trace(const ReplayReport& r) {
  using nlohmann::ordered_json;
  using Kind = jobs::ReplaySlice::Kind;
  ordered_json events = ordered_json::array();
  const auto meta = [&](int pid, int tid, const char* what, const std::string& name) {
    ordered_json e = {{"ph", "M"}, {"pid", pid}};
    if (tid >= 0) e["tid"] = tid;
    e["name"] = what;
    e["args"] = {{"name", name}};
    events.push_back(std::move(e));
  };
  auto slices = r.result.timeline;
  std::stable_sort(slices.begin(), slices.end(), [](const auto& a, const auto& b) {
    return std::tie(a.rank, a.begin) < std::tie(b.rank, b.begin);
  });
  // Tracks per rank: 1 compute, 2 cpu, 3 recv, 4 memory, 10+ communication (first free).
  std::vector<std::vector<core::Time>> comm_free(r.result.ranks.size());
  for (std::size_t k = 0; k < r.result.ranks.size(); ++k) {
    const int pid = static_cast<int>(k) + 1;
    meta(pid, -1, "process_name", fmt::format("sys[{}] ({} on {})", k, r.trace, r.platform));
    meta(pid, 1, "thread_name", "compute");
    meta(pid, 2, "thread_name", "cpu");
    meta(pid, 3, "thread_name", "recv");
    meta(pid, 4, "thread_name", "memory");
  }
  for (const auto& s : slices) {
    const auto& n = node_of(r, s.rank, s.node);
    const int pid = static_cast<int>(s.rank) + 1;
    int tid = 1;
    switch (s.kind) {
      case Kind::Compute:
        tid = n.is_cpu_op ? 2 : 1;
        break;
      case Kind::Recv:
        tid = 3;
        break;
      case Kind::Memory:
        tid = 4;
        break;
      case Kind::Collective:
      case Kind::Send: {
        auto& free = comm_free[s.rank];
        std::size_t t = 0;
        while (t < free.size() && free[t] > s.begin) ++t;
        if (t == free.size()) {
          free.push_back(s.end);
          meta(pid, 10 + static_cast<int>(t), "thread_name",
               t == 0 ? std::string("communication") : fmt::format("communication {}", t + 1));
        } else {
          free[t] = s.end;
        }
        tid = 10 + static_cast<int>(t);
        break;
      }
    }
    ordered_json args = {{"node", s.node}, {"id", n.id}, {"kind", to_string(s.kind)}};
    if (s.kind != Kind::Compute && s.kind != Kind::Memory) args["bytes"] = n.comm_size;
    if (s.kind == Kind::Memory && n.tensor_size) args["bytes"] = *n.tensor_size;
    events.push_back({{"ph", "X"},
                      {"pid", pid},
                      {"tid", tid},
                      {"name", n.name.empty() ? fmt::format("node {}", n.id) : n.name},
                      {"ts", us(s.begin)},
                      {"dur", us(s.end - s.begin)},
                      {"args", std::move(args)}});
  }
  ordered_json doc = {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ns"}};
  return doc.dump() + "\n";
}

}  // namespace collsim::report
