#include "workload/astra_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "workload/foreign_json.hpp"

namespace collsim::workload {
namespace {

using collective::Collective;

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (i < line.size()) {
    while (i < line.size() && space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

enum class Kind { Data, Model, HybridDataModel, HybridModelData, Transformer, Dlrm, Customized };

struct Parser {
  const std::string& path;
  std::size_t line = 0;

  [[noreturn]] void fail(const std::string& why) const {
    throw core::InputError(fmt::format("{}:{}: {}", path, line, why));
  }

  std::uint64_t number(std::string_view text, std::string_view field) const {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || p != text.data() + text.size()) {
      fail(fmt::format("{}: \"{}\" is not a whole number >= 0", field, text));
    }
    return v;
  }

  std::optional<Collective> comm_type(std::string_view text, std::string_view field) const {
    if (text == "NONE") return std::nullopt;
    if (text == "ALLREDUCE") return Collective::AllReduce;
    if (text == "ALLGATHER") return Collective::AllGather;
    if (text == "REDUCESCATTER") return Collective::ReduceScatter;
    if (text == "ALLTOALL") return Collective::AllToAll;
    fail(fmt::format(
        "{}: unknown collective \"{}\"; valid: NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL",
        field, text));
  }

  Kind kind(std::string_view text, std::string_view field, bool per_layer) const {
    if (text == "DATA" || (!per_layer && text == "MICRO")) return Kind::Data;
    if (text == "MODEL") return Kind::Model;
    if (text == "HYBRID_DATA_MODEL") return Kind::HybridDataModel;
    if (text == "HYBRID_MODEL_DATA") return Kind::HybridModelData;
    if (!per_layer) {
      if (text == "HYBRID_TRANSFORMER" || text == "HYBRID_TRANSFORMER_FWD_IN_BCKWD") {
        return Kind::Transformer;
      }
      if (text == "HYBRID_DLRM") return Kind::Dlrm;
      if (text == "HYBRID_CUSTOMIZED") return Kind::Customized;
    }
    fail(fmt::format("{}: unknown parallelism \"{}\"; valid: {}", field, text,
                     per_layer ? "DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA"
                               : "DATA, MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, "
                                 "HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, "
                                 "HYBRID_DLRM, HYBRID_CUSTOMIZED, MICRO"));
  }
};

// Forward / input-gradient and weight-gradient scopes of a layer of this kind.
std::pair<Scope, Scope> scopes(Kind k) {
  switch (k) {
    case Kind::HybridDataModel:
    case Kind::Transformer:
      return {Scope::ModelParallel, Scope::DataParallel};
    case Kind::HybridModelData:  // model-parallel groups strided: the "data-parallel" shape
      return {Scope::DataParallel, Scope::ModelParallel};
    default:
      return {Scope::All, Scope::All};
  }
}

}  // namespace

Workload parse_astra_text(std::string_view text, const std::string& path,
                          const std::vector<std::uint32_t>& dims, const AstraTextOptions& options) {
  Parser ps{path};
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? text.npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  auto next_nonblank = [&](std::size_t& i) -> std::vector<std::string_view> {
    while (i < lines.size()) {
      auto f = fields(lines[i++]);
      ps.line = i;
      if (!f.empty()) return f;
    }
    return {};
  };
  std::size_t i = 0;
  const auto head = next_nonblank(i);
  if (head.empty()) ps.fail("empty file: expected the parallelism (DATA, MODEL, HYBRID_...)");
  const Kind kind = ps.kind(head[0], "parallelism", false);
  std::uint64_t npus = 1;
  for (std::uint32_t d : dims) npus *= d;
  std::optional<std::uint64_t> dlrm_last_bottom;
  const std::uint32_t p0 = dims.empty() ? 1 : dims.front();

  Workload w;
  w.name = std::filesystem::path(path).stem().string();
  w.source = fmt::format("ASTRA-sim text workload {} ({})", path, head[0]);
  w.model_parallel_npus = 1;
  if (kind == Kind::HybridDataModel || kind == Kind::HybridModelData || kind == Kind::Customized) {
    w.model_parallel_npus = p0;
  }
  // key: value pairs after the kind.
  for (std::size_t k = 1; k < head.size(); ++k) {
    if (head[k] == "model_parallel_NPU_group:" && k + 1 < head.size()) {
      const auto g = ps.number(head[k + 1], "model_parallel_NPU_group");
      if (g == 0 || npus % g != 0) {
        ps.fail(fmt::format("model_parallel_NPU_group: {} does not divide the platform's {} NPUs",
                            g, npus));
      }
      w.model_parallel_npus = static_cast<std::uint32_t>(g);
      ++k;
    } else if (kind == Kind::Dlrm && k == 1) {
      dlrm_last_bottom = ps.number(head[k], "HYBRID_DLRM layer");
    } else if (head[k] == "checkpoints:" || head[k] == "checkpoint_initiates:") {
      w.source += "; checkpoints ignored (no forward recomputation)";
      while (k + 1 < head.size() && head[k + 1].find(':') == std::string_view::npos) ++k;
    }
  }
  if (kind == Kind::Transformer && w.model_parallel_npus == 1 &&
      std::find(head.begin(), head.end(), std::string_view("model_parallel_NPU_group:")) ==
          head.end()) {
    ps.fail("HYBRID_TRANSFORMER needs \"model_parallel_NPU_group: g\"");
  }
  const auto count_fields = next_nonblank(i);
  if (count_fields.empty()) ps.fail("missing the number of layers (line 2)");
  const std::uint64_t count = ps.number(count_fields[0], "number of layers");
  if (count == 0) ps.fail("number of layers: must be >= 1");
  const double cycle_ps = 1e12 / options.clock_hz;
  auto cycles = [&](std::string_view t, std::string_view field) {
    const double v = static_cast<double>(ps.number(t, field)) * cycle_ps;
    if (!(v < static_cast<double>(core::kHorizonPs))) {
      ps.fail(fmt::format("{}: {} cycles is beyond the simulation horizon (2^62 ps, about 53 days)",
                          field, t));
    }
    return core::Time{static_cast<std::int64_t>(std::llround(v))};
  };
  for (std::uint64_t l = 0; l < count; ++l) {
    const auto f = next_nonblank(i);
    if (f.empty()) {
      ps.fail(fmt::format("the file declares {} layers but has {}", count, l));
    }
    const std::size_t want = kind == Kind::Customized ? 13 : 12;
    if (f.size() < want) {
      static constexpr const char* kNames[] = {
          "name",         "reserved",       "fwd_compute",  "fwd_comm_type", "fwd_comm_size",
          "ig_compute",   "ig_comm_type",   "ig_comm_size", "wg_compute",    "wg_comm_type",
          "wg_comm_size", "wg_update_time", "parallelism"};
      ps.fail(fmt::format("layer {}: missing field {} ({} fields, {} expected)", f[0],
                          kNames[f.size()], f.size(), want));
    }
    Layer layer;
    layer.name = std::string(f[0]);
    const Kind lk = kind == Kind::Customized ? ps.kind(f[12], "parallelism", true) : kind;
    const auto [act, grad] = scopes(lk);
    static constexpr const char* kPass[] = {"fwd", "ig", "wg"};
    for (std::size_t p = 0; p < kPasses; ++p) {
      const std::size_t base = 2 + 3 * p;
      const std::string pass = kPass[p];
      layer.compute[p] = cycles(f[base], pass + "_compute");
      const auto type = ps.comm_type(f[base + 1], pass + "_comm_type");
      const std::uint64_t size = ps.number(f[base + 2], pass + "_comm_size");
      if (type && size > 0) {
        layer.comm[p] = Comm{type, core::Bytes{size}, p == 2 ? grad : act};
      }
    }
    layer.update = cycles(f[11], "wg_update_time");
    w.layers.push_back(std::move(layer));
  }
  if (!next_nonblank(i).empty()) {
    ps.fail(fmt::format("more layer lines than the {} declared on line 2", count));
  }
  // HYBRID_DLRM N: the embedding all-to-all runs beside the bottom MLP (layers up to N) and is
  // needed by layer N + 1; its backward all-to-all is waited for at the end of the iteration.
  if (dlrm_last_bottom && *dlrm_last_bottom + 1 < w.layers.size()) {
    for (std::size_t l = 0; l <= *dlrm_last_bottom; ++l) {
      Comm& f = w.layers[l].comm[0];
      if (f.collective == Collective::AllToAll) {
        f.overlapped = true;
        f.needed_before = static_cast<std::uint32_t>(*dlrm_last_bottom + 1);
      }
      Comm& g = w.layers[l].comm[1];
      if (g.collective == Collective::AllToAll) g.overlapped = true;
    }
  }
  if (npus % w.model_parallel_npus != 0) {
    throw core::InputError(
        fmt::format("{}: model-parallel group of {} NPUs does not divide the "
                    "platform's {} NPUs",
                    path, w.model_parallel_npus, npus));
  }
  return w;
}

Workload read_astra_text(const std::string& path, const std::vector<std::uint32_t>& dims,
                         const AstraTextOptions& options) {
  const std::string text = core::read_input(path, "workload file");
  refuse_chakra_json(text, path, "workload");
  return parse_astra_text(text, path, dims, options);
}

}  // namespace collsim::workload
