#include "workload/load.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/input_file.hpp"
#include "workload/astra_text.hpp"
#include "workload/foreign_json.hpp"
#include "workload/formats/chakra.hpp"
#include "workload/formats/chakra_graph.hpp"
#include "workload/model_zoo.hpp"
#include "workload/yaml_workload.hpp"

namespace collsim::workload {

Workload load_workload(const std::string& spec, const topology::Topology& topo,
                       const LoadOptions& options, const std::string& field) {
  std::vector<std::uint32_t> dims;
  for (const auto& d : topo.dimensions()) dims.push_back(d.spec.size);
  if (dims.empty()) dims.push_back(topo.num_npus());
  if (chakra::is_trace(spec)) {
    std::vector<chakra::RankTrace> ranks;
    for (const std::string& f : chakra::trace_files(spec)) ranks.push_back(chakra::read_et(f));
    const std::string name = std::filesystem::path(ranks.front().file).stem().stem().string();
    // Not one SPMD iteration, or written by collsim (its streams and groups): rank by rank.
    if (!ranks.front().streams.empty() || !chakra::replay_reason(ranks).empty()) {
      if (ranks.size() != 1 && ranks.size() != topo.num_npus()) {
        throw core::InputError(fmt::format(
            "trace {}: {} ranks (files) for a platform of {} NPUs; give one file per NPU, or "
            "rank 0's only to run it on every NPU",
            name, ranks.size(), topo.num_npus()));
      }
      Workload w;
      w.name = name;
      w.source = fmt::format("Chakra trace {} ({} ranks, run rank by rank: {})", spec,
                             ranks.size(),
                             ranks.front().streams.empty() ? chakra::replay_reason(ranks)
                                                           : "written by collsim");
      auto t = std::make_shared<chakra::TraceWorkload>();
      t->ranks = std::move(ranks);
      t->compute = options.chakra;
      w.trace = std::move(t);
      return w;
    }
    return chakra::to_workload(ranks, dims, options.chakra, name);
  }
  const std::filesystem::path p(spec);
  std::error_code ec;
  if (std::filesystem::is_regular_file(p, ec)) {
    const auto ext = p.extension().string();
    if (ext == ".yaml" || ext == ".yml") return read_yaml_workload(spec);
    return read_astra_text(spec, dims,
                           AstraTextOptions{options.astra_clock_hz * options.compute_share});
  }
  if (std::filesystem::is_regular_file(spec + ".0.json", ec)) {
    // PREFIX.0.json: a Chakra trace in JSON form, where PREFIX.0.et was meant.
    refuse_chakra_json(core::read_input(spec + ".0.json", "workload file"), spec + ".0.json", field);
  }
  if (spec.find('/') != std::string::npos || spec.find('.') != std::string::npos) {
    throw core::InputError(fmt::format("{}: \"{}\": no such workload file", field, spec));
  }
  const Model m = find_model(spec, field);
  auto compute = compute::make_compute_model(options.compute, "compute");
  if (options.compute_share != 1.0 || options.memory_share != 1.0) {
    compute = compute->scaled(options.compute_share, options.memory_share);
  }
  BuildOptions b{options.batch, options.bytes_per_element};
  if (m.model_parallel > 0) {
    b.model_parallel = model_parallel_group(m.model_parallel, dims);
  }
  return build_workload(m, *compute, b);
}

}  // namespace collsim::workload
