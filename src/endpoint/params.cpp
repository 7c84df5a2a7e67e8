#include "endpoint/params.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <optional>

#include "core/error.hpp"
#include "core/parse.hpp"

namespace collsim::endpoint {
namespace {

using K = EndpointParam::Kind;
using P = EndpointParams;

constexpr std::string_view kAll = "all";
constexpr std::string_view kNpu = "baseline, baseline++";
constexpr std::string_view kBusDma = "baseline, baseline++, ace (DMA)";
constexpr std::string_view kAce = "ace";

// A plain decimal number (no sign, no exponent), or nullopt.
std::optional<double> number(std::string_view t) {
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size() || t.empty() || t[0] == '-' ||
      t.find_first_of("eE") != std::string_view::npos || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

std::string_view trim(std::string_view t) {
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  return t;
}

double parse_share(std::string_view text, std::string_view field) {
  std::string_view t = trim(text);
  double scale = 1;
  if (!t.empty() && t.back() == '%') t = trim(t.substr(0, t.size() - 1)), scale = 0.01;
  const auto v = number(t);
  if (!v) {
    throw core::InputError(fmt::format(
        "{}: must be a fraction or a percentage (\"0.94\", \"94%\"), got \"{}\"", field, text));
  }
  const double s = *v * scale;
  if (s <= 0 || s > 1) {
    throw core::InputError(
        fmt::format("{}: must be in (0, 1] (0% < share <= 100%), got \"{}\"", field, text));
  }
  return s;
}

double parse_flops(std::string_view text, std::string_view field) {
  const std::string_view t = trim(text);
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"PFLOP/s", 1e15}, {"TFLOP/s", 1e12}, {"GFLOP/s", 1e9}, {"FLOP/s", 1}};
  for (const auto& [unit, scale] : kUnits) {
    if (t.size() > unit.size() && t.substr(t.size() - unit.size()) == unit) {
      const auto v = number(trim(t.substr(0, t.size() - unit.size())));
      if (v && *v > 0) return *v * scale;
      break;
    }
  }
  throw core::InputError(fmt::format(
      "{}: must be a positive FLOP rate with its unit (FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s), e.g. "
      "\"91.75 TFLOP/s\", got \"{}\"",
      field, text));
}

std::uint32_t parse_count(std::string_view text, std::string_view field) {
  const std::string_view t = trim(text);
  std::uint32_t n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || n == 0) {
    throw core::InputError(fmt::format(
        "{}: must be a whole number >= 1 (at most 4294967295), got \"{}\"", field, text));
  }
  return n;
}

std::string share_text(double s) { return fmt::format("{:g}%", s * 100); }

std::string flops_text(double f) {
  if (f >= 1e12) return fmt::format("{:g} TFLOP/s", f / 1e12);
  if (f >= 1e9) return fmt::format("{:g} GFLOP/s", f / 1e9);
  return fmt::format("{:g} FLOP/s", f);
}

std::string freq_text(double hz) {
  if (hz >= 1e9) return fmt::format("{:g} GHz", hz / 1e9);
  if (hz >= 1e6) return fmt::format("{:g} MHz", hz / 1e6);
  return fmt::format("{:g} Hz", hz);
}

}  // namespace

const std::vector<EndpointParam>& endpoint_params() {
  static const std::vector<EndpointParam> all = {
      {"message_overhead", K::Time,
       "fixed delay at the source before each message enters the network (calibration)",
       "collsim calibration knob (docs/ace.md)", kAll, &P::message_overhead},
      {"link_efficiency", K::Share,
       "payload share of what crosses a link (headers, encoding): wire bytes = payload / "
       "efficiency",
       "ACE Table 7: 94%", kAll, &P::link_efficiency},
      {"bus_latency", K::Time, "LogGP L of the NPU-memory and NPU-NIC buses",
       "ACE Sec. 5: L = 50 cycles", kBusDma, &P::bus_latency},
      {"bus_overhead", K::Time, "LogGP o: per-transfer overhead at each end of a bus transfer",
       "ACE Sec. 5: o = 20 cycles", kBusDma, &P::bus_overhead},
      {"bus_gap", K::Time, "LogGP g: least time between two transfers starting on a bus",
       "ACE Sec. 5: g = 20 cycles", kBusDma, &P::bus_gap},
      {"npu_nic_bandwidth", K::Bandwidth, "NPU-NIC bus, each direction (LogGP G = 1 / it)",
       "ACE Table 7: 500 GB/s", kBusDma, &P::npu_nic_bandwidth},
      {"npu_memory_bandwidth", K::Bandwidth,
       "NPU-memory bus, reads and writes together; also training's memory bandwidth",
       "ACE Table 7: 900 GB/s", kBusDma, &P::npu_memory_bandwidth},
      {"baseline_compute_share", K::Share,
       "NPU compute a baseline collective reserves (training keeps the rest; local reductions "
       "run on it)",
       "ACE Sec. 5: ~5%", kNpu, &P::baseline_compute_share},
      {"baseline_memory_share", K::Share,
       "memory bandwidth a baseline collective reserves (training keeps the rest)",
       "ACE Sec. 5: ~20%", kNpu, &P::baseline_memory_share},
      {"ace_memory_share", K::Share,
       "memory bandwidth ACE's DMA reserves (training keeps the rest; baseline++ the same)",
       "ACE Sec. 5: 5%", "ace, baseline++", &P::ace_memory_share},
      {"npu_peak_flops", K::Flops, "the NPU's peak compute (local reductions of baseline)",
       "ACE Sec. 5: 256x256 systolic array at 700 MHz", kNpu, &P::npu_peak_flops},
      {"ace_sram", K::Bytes, "ACE SRAM, split into P + 1 partitions for a P-phase collective",
       "ACE Sec. 6: 4 x 1 MB banks", kAce, &P::ace_sram},
      {"ace_state_machines", K::Count, "state machines, spread evenly over the phases",
       "ACE Sec. 6: 16", kAce, &P::ace_state_machines},
      {"ace_alus", K::Count, "ALU units reducing arriving messages", "ACE Sec. 6: 4", kAce,
       &P::ace_alus},
      {"ace_alu_lanes", K::Count, "FP32 lanes per ALU", "ACE Sec. 6: 16", kAce, &P::ace_alu_lanes},
      {"ace_bus_width", K::Bytes, "SRAM-ALU bus of each ALU, bytes per cycle",
       "ACE Sec. 6: 64 B buses", kAce, &P::ace_bus_width},
      {"ace_clock", K::Frequency, "ACE's clock (ALUs and buses)",
       "not in the paper: ASTRA-sim's 1 GHz cycle", kAce, &P::ace_clock_hz},
      {"ace_chunk", K::Bytes, "largest chunk ACE takes in (a payload is split into such chunks)",
       "ACE Table 4: 64 KB on average", kAce, &P::ace_chunk},
  };
  return all;
}

void set_endpoint_param(EndpointParams& p, std::string_view key, std::string_view text,
                        std::string_view field) {
  for (const EndpointParam& e : endpoint_params()) {
    if (e.key != key) continue;
    switch (e.kind) {
      case K::Time:
        p.*std::get<core::Time P::*>(e.member) = core::parse_time(text, field, core::Zero::Allow);
        return;
      case K::Bandwidth:
        p.*std::get<core::Bandwidth P::*>(e.member) = core::parse_bandwidth(text, field);
        return;
      case K::Bytes:
        p.*std::get<core::Bytes P::*>(e.member) = core::parse_bytes(text, field);
        return;
      case K::Count:
        p.*std::get<std::uint32_t P::*>(e.member) = parse_count(text, field);
        return;
      case K::Share:
        p.*std::get<double P::*>(e.member) = parse_share(text, field);
        return;
      case K::Frequency:
        p.*std::get<double P::*>(e.member) = core::parse_frequency(text, field);
        return;
      case K::Flops:
        p.*std::get<double P::*>(e.member) = parse_flops(text, field);
        return;
    }
  }
  std::string valid;
  for (const EndpointParam& e : endpoint_params()) {
    valid += (valid.empty() ? "" : ", ") + std::string(e.key);
  }
  throw core::InputError(
      fmt::format("{}: unknown endpoint parameter \"{}\"; valid: {}", field, key, valid));
}

void set_endpoint_param(EndpointParams& p, std::string_view assignment, std::string_view field) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    throw core::InputError(fmt::format(
        "{}: must be KEY=VALUE (e.g. link_efficiency=94%), got \"{}\"", field, assignment));
  }
  const std::string_view key = trim(assignment.substr(0, eq));
  set_endpoint_param(p, key, assignment.substr(eq + 1), fmt::format("{} {}", field, key));
}

std::string format_endpoint_param(const EndpointParams& p, const EndpointParam& e) {
  switch (e.kind) {
    case K::Time:
      return core::to_string(p.*std::get<core::Time P::*>(e.member));
    case K::Bandwidth:
      return core::to_string(p.*std::get<core::Bandwidth P::*>(e.member));
    case K::Bytes:
      return core::to_string(p.*std::get<core::Bytes P::*>(e.member));
    case K::Count:
      return std::to_string(p.*std::get<std::uint32_t P::*>(e.member));
    case K::Share:
      return share_text(p.*std::get<double P::*>(e.member));
    case K::Frequency:
      return freq_text(p.*std::get<double P::*>(e.member));
    case K::Flops:
      return flops_text(p.*std::get<double P::*>(e.member));
  }
  return {};
}

std::string endpoint_label(std::string_view name, const EndpointParams& p) {
  static const EndpointParams defaults;
  std::string out(name);
  for (const EndpointParam& e : endpoint_params()) {
    const std::string v = format_endpoint_param(p, e);
    if (v != format_endpoint_param(defaults, e)) out += fmt::format(":{}={}", e.key, v);
  }
  return out;
}

}  // namespace collsim::endpoint
