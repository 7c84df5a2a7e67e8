// The text topology format of SimAI (aliyun/SimAI): what astra-sim-alibabacloud/inputs/topo/
// gen_Topo_Template.py writes and the ns-3 frontend reads (astra-sim-alibabacloud/astra-sim/
// network_frontend/ns3/common.h, SetupNetwork), whitespace-separated:
//   node_num gpus_per_server nvswitch_num switch_num link_num gpu_type
//   <nvswitch_num NVSwitch ids> <switch_num switch ids>        (the generator: one line)
//   src dst rate latency error_rate                            (link_num lines)
// Nodes not listed as switches are GPUs (node_num - nvswitch_num - switch_num of them). `rate`
// is an ns-3 DataRate ("400Gbps"), `latency` an ns-3 Time ("0.0005ms"), `error_rate` the
// packet loss rate of the link's error model. Each line is a duplex link (ns-3 installs a
// point-to-point channel). collsim reads the fields the same way and refuses what it cannot
// model: a non-zero error rate (its links are lossless), a repeated link (ns-3 would keep two
// devices but route over one), a self-link.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "topology/graph_import.hpp"

namespace collsim::topology {
namespace {

// Whitespace-separated tokens with their line numbers.
class Tokens {
 public:
  Tokens(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  // The next token; `what` names the field for the message when the file ends before it.
  std::string_view next(std::string_view what) {
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    if (pos_ == text_.size()) {
      throw core::InputError(fmt::format("{}:{}: {}: the file ends here; expected {}", source_,
                                         line_, what, what));
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !is_space(text_[pos_])) ++pos_;
    token_line_ = line_;
    return text_.substr(start, pos_ - start);
  }
  bool at_end() {
    while (pos_ < text_.size() && is_space(text_[pos_])) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    return pos_ == text_.size();
  }
  // The line of the last token.
  int line() const { return token_line_; }
  [[noreturn]] void fail(std::string_view field, const std::string& why) const {
    throw core::InputError(fmt::format("{}:{}: {}: {}", source_, token_line_, field, why));
  }
  std::uint32_t uint(std::string_view what, std::uint32_t max) {
    const std::string_view t = next(what);
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc{} || end != t.data() + t.size()) {
      fail(what, fmt::format("\"{}\" is not a whole number", t));
    }
    if (v > max) fail(what, fmt::format("{} is too large (at most {})", v, max));
    return static_cast<std::uint32_t>(v);
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int token_line_ = 1;
};

constexpr std::uint32_t kMaxNodes = 1u << 24;
constexpr std::uint32_t kMaxLinks = 1u << 26;

// A decimal number (no sign, no exponent) at the start of `text`; the rest is the unit.
bool split_number(std::string_view text, double& value, std::string_view& unit) {
  std::size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
  if (i == 0) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + i, value);
  if (ec != std::errc{} || end != text.data() + i || !std::isfinite(value)) return false;
  unit = text.substr(i);
  return true;
}

// The dimensions of a SimAI file (docs/topology-import.md "Dimensions"): the generator numbers
// the GPUs of a server consecutively, so dimension 0 is a server's gpus_per_server GPUs (over
// its NVSwitch) and dimension 1 the servers (over the NICs). Only when the GPUs fill whole
// servers and the first GPU has a link of each kind (an NVSwitch one for dimension 0, another
// for dimension 1); otherwise none, as before.
std::vector<ImportedDim> simai_dimensions(const ImportedGraph& g, std::uint32_t per_server,
                                          const std::string& field) {
  std::uint32_t gpus = 0, first = g.nodes;
  for (std::uint32_t v = 0; v < g.nodes; ++v) {
    if (g.kind[v] != 0) continue;
    if (first == g.nodes) first = v;
    ++gpus;
  }
  if (gpus < 2 || gpus % per_server != 0) return {};
  bool nvlink = false, other = false;
  for (const ImportedGraph::Edge& e : g.edges) {
    if (e.a != first && e.b != first) continue;
    (g.kind[e.a == first ? e.b : e.a] == 2 ? nvlink : other) = true;
  }
  std::vector<ImportedDim> dims;
  for (const std::uint32_t size : {per_server, gpus / per_server}) {
    if (size < 2) continue;
    ImportedDim d;
    d.size = size;
    d.field = field;
    dims.push_back(d);
  }
  if (dims.size() == 2 && !(nvlink && other)) return {};
  return dims;
}

}  // namespace

core::Bandwidth parse_ns3_rate(std::string_view text, std::string_view field) {
  // ns-3 DataRate units: bits (bps, b/s) or bytes (Bps, B/s), with SI (k/K, M, G) or binary
  // (Ki, Mi, Gi; "/s" forms only) prefixes.
  struct Unit {
    std::string_view name;
    double bits;
  };
  static constexpr Unit kUnits[] = {
      {"bps", 1},         {"b/s", 1},         {"Bps", 8},          {"B/s", 8},
      {"kbps", 1e3},      {"kb/s", 1e3},      {"Kbps", 1e3},       {"Kb/s", 1e3},
      {"kBps", 8e3},      {"kB/s", 8e3},      {"KBps", 8e3},       {"KB/s", 8e3},
      {"Kib/s", 1024.0},  {"KiB/s", 8192.0},  {"Mbps", 1e6},       {"Mb/s", 1e6},
      {"MBps", 8e6},      {"MB/s", 8e6},      {"Mib/s", 1048576.0}, {"MiB/s", 8388608.0},
      {"Gbps", 1e9},      {"Gb/s", 1e9},      {"GBps", 8e9},       {"GB/s", 8e9},
      {"Gib/s", 1073741824.0}, {"GiB/s", 8589934592.0}, {"Tbps", 1e12}, {"Tb/s", 1e12}};
  double v = 0;
  std::string_view unit;
  if (split_number(text, v, unit)) {
    for (const Unit& u : kUnits) {
      if (u.name == unit) {
        if (!(v > 0)) break;
        return core::Bandwidth{v * u.bits / 8};
      }
    }
  }
  throw core::InputError(fmt::format(
      "{}: \"{}\" is not a positive ns-3 data rate; write a number and a unit without a space, "
      "e.g. 400Gbps (bps, kbps, Mbps, Gbps, Tbps; Bps, KBps, MBps, GBps for bytes; or b/s, "
      "Gb/s, GB/s, GiB/s ...)",
      field, text));
}

core::Time parse_ns3_time(std::string_view text, std::string_view field) {
  struct Unit {
    std::string_view name;
    double ps;
  };
  static constexpr Unit kUnits[] = {{"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3},
                                    {"ps", 1}};
  double v = 0;
  std::string_view unit;
  if (split_number(text, v, unit)) {
    for (const Unit& u : kUnits) {
      if (u.name == unit && v * u.ps < 9e18) {
        return core::Time{static_cast<std::int64_t>(std::llround(v * u.ps))};
      }
    }
  }
  throw core::InputError(fmt::format(
      "{}: \"{}\" is not an ns-3 time; write a number and a unit without a space, e.g. "
      "0.0005ms (s, ms, us, ns, ps)",
      field, text));
}

ImportedGraph parse_simai_topology(std::string_view text, const std::string& source) {
  Tokens tok(text, source);
  ImportedGraph g;
  g.name = std::filesystem::path(source).filename().string();
  g.nodes = tok.uint("node_num", kMaxNodes);
  const int header_line = tok.line();
  const std::uint32_t per_server = tok.uint("gpus_per_server", kMaxNodes);
  if (per_server == 0) tok.fail("gpus_per_server", "must be >= 1");
  const std::uint32_t nvswitches = tok.uint("nvswitch_num", kMaxNodes);
  const std::uint32_t switches = tok.uint("switch_num", kMaxNodes);
  const std::uint32_t links = tok.uint("link_num", kMaxLinks);
  tok.next("gpu_type");  // SimAI picks GPU-specific settings by it; collsim does not use it
  if (tok.line() != header_line) {
    tok.fail("gpu_type",
             "the first line must hold node_num gpus_per_server nvswitch_num switch_num link_num "
             "gpu_type (SimAI's header, six fields)");
  }
  if (std::uint64_t{nvswitches} + switches > g.nodes) {
    tok.fail("switch_num", fmt::format("nvswitch_num {} + switch_num {} exceed node_num {}",
                                       nvswitches, switches, g.nodes));
  }
  g.kind.assign(g.nodes, 0);
  for (std::uint32_t i = 0; i < nvswitches + switches; ++i) {
    const bool nv = i < nvswitches;
    const char* what = nv ? "NVSwitch id" : "switch id";
    const std::uint32_t id = tok.uint(what, kMaxNodes);
    if (id >= g.nodes) {
      tok.fail(what, fmt::format("node {} out of range (node_num {})", id, g.nodes));
    }
    if (g.kind[id] != 0) tok.fail(what, fmt::format("node {} listed twice", id));
    g.kind[id] = nv ? 2 : 1;
  }
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  g.edges.reserve(links);
  for (std::uint32_t i = 0; i < links; ++i) {
    ImportedGraph::Edge e;
    e.a = tok.uint("link src", kMaxNodes);
    const int line = tok.line();
    if (e.a >= g.nodes) {
      tok.fail("link src", fmt::format("node {} out of range (node_num {})", e.a, g.nodes));
    }
    e.b = tok.uint("link dst", kMaxNodes);
    if (e.b >= g.nodes) {
      tok.fail("link dst", fmt::format("node {} out of range (node_num {})", e.b, g.nodes));
    }
    if (e.a == e.b) tok.fail("link dst", fmt::format("a link from node {} to itself", e.a));
    const std::string_view rate = tok.next("link rate");
    e.bandwidth = [&] {
      try {
        return parse_ns3_rate(rate, "link rate");
      } catch (const core::InputError& err) {
        throw core::InputError(fmt::format("{}:{}: {}", source, tok.line(), err.what()));
      }
    }();
    const std::string_view lat = tok.next("link latency");
    e.latency = [&] {
      try {
        return parse_ns3_time(lat, "link latency");
      } catch (const core::InputError& err) {
        throw core::InputError(fmt::format("{}:{}: {}", source, tok.line(), err.what()));
      }
    }();
    const std::string_view err_text = tok.next("link error_rate");
    double err_rate = -1;
    const auto [end, ec] =
        std::from_chars(err_text.data(), err_text.data() + err_text.size(), err_rate);
    if (ec != std::errc{} || end != err_text.data() + err_text.size() || !(err_rate >= 0) ||
        err_rate > 1) {
      tok.fail("link error_rate", fmt::format("\"{}\" is not a loss rate in [0, 1]", err_text));
    }
    if (err_rate != 0) {
      tok.fail("link error_rate",
               fmt::format("{}: collsim's links are lossless; only 0 is supported", err_text));
    }
    if (tok.line() != line) {
      tok.fail("link", fmt::format("a link is one line \"src dst rate latency error_rate\"; "
                                   "this one starts on line {}",
                                   line));
    }
    const auto key = std::minmax(e.a, e.b);
    if (!seen.insert(key).second) {
      tok.fail("link", fmt::format("nodes {} and {} are linked twice", e.a, e.b));
    }
    g.edges.push_back(e);
  }
  if (!tok.at_end()) {
    tok.next("end of file");
    tok.fail("link_num", fmt::format("more text after the {} links the header announces", links));
  }
  g.dims = simai_dimensions(g, per_server, fmt::format("{}:{}: gpus_per_server", source,
                                                        header_line));
  return g;
}

}  // namespace collsim::topology
