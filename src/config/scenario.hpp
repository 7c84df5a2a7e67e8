#pragma once
// Scenario files (YAML; JSON is YAML too) parsed once into typed specs (docs/design.md "Config
// parsed once"). Unknown and duplicate keys are errors; every error names the file, line, key path
// and constraint:
//   examples/x.yaml:7: platforms[1].link_bandwidth: "16" has no unit; ...
//
// Schema (see README "Scenario files"):
//   name: text                       optional
//   backend: flow                    optional, default flow; a map with the backend's parameters
//   backend: {name: flow, npu_injection_bandwidth: 100 GB/s}    (its schema: `collsim list`)
//   backend: [analytical, queue, flow]   or a list: every job runs on each
//   platforms:                       list (or `platform:` for one)
//     - name: text                   optional, default the topology name
//       topology: torus:8x8          compact form, every link at link_bandwidth/link_latency
//       link_bandwidth: 16 GB/s
//       link_latency: 150 ns
//       npu_link_bandwidth: 32 GB/s  switched networks (fattree, bigraph, switch): the NPU-to-
//       npu_link_latency: 10 ns      switch links' own bandwidth and latency (optional)
//       fail_links: "sw0-sw8"        graph topologies: failed links, rerouted around
//                                    (topology/link_failures.hpp; optional)
//       endpoint: [baseline, ace]    optional endpoint model(s), default ideal (`collsim list`)
//       endpoint_params: {link_efficiency: 94%}   optional, endpoint/params.hpp keys
//     - topology: optical-ring:64    an optical ring (no link_bandwidth; link_latency is the
//       wavelengths: 64              propagation per hop), optional wavelengths per waveguide
//       wavelength_bandwidth: 25 Gb/s  and bandwidth of each (topology::OpticalSpec)
//       link_latency: 5 ns
//     - topology:                    or a map: hierarchical dimensions, each with its own links
//         dims:
//           - {kind: ring|uring|line|fc|sw, size: 4, bandwidth: 1000 Gb/s, latency: 20 ns,
//              links_per_npu: 2}
//   jobs:                            list (or `job:` for one)
//     - collective: all-reduce
//       sizes: ["32 KiB:64 MiB", 102228128 B]   sizes and doubling ranges
//       algorithms: [ring, halving-doubling]     or "all" (every algorithm that applies)
//       chunks: 1                                optional, default 1
//       group: dim:0                             optional communicators, default all
//       max_time: 10 s                           optional bound per run
//     - concurrent:                  several collectives at once on one network
//         - {collective: all-reduce, group: dim:0, algorithm: ring, size: 64 MiB, chunks: 4}
//         - {collective: all-to-all, group: dim:1, algorithm: direct, size: 8 MiB}
//       max_time: 10 s
//     - training:                    training iterations (jobs/training.hpp); a scenario's
//         workload: toy.yaml         jobs are all training jobs or none. A file (relative to
//         algorithms: [ring, direct] the scenario) or a model-zoo name (workload/load.hpp)
//         chunks: 1                  optional
//         overlap: [none, layer]     optional, default layer
//         order: fifo                optional: fifo or lifo
//         iterations: 1              optional
//         astra_clock: 1 GHz         optional: ASTRA-sim text workloads' cycle
//         batch: 16                  optional, zoo models: samples per NPU
//         compute: systolic          optional, zoo models: systolic[:...] or roofline[:...]
//         precision: 4               optional, zoo models: bytes per gradient element
//       max_time: 10 s
//     - llm: gpt.yaml                one LLM training iteration (docs/llm.md) on each platform
//                                    and backend (they replace the config's cluster): a config
//                                    file (relative to the scenario) or the config's map
//                                    {model, parallel, system}; a scenario's jobs are all llm
//                                    jobs or none.
#include <optional>
#include <string>
#include <vector>

#include "collective/algorithm.hpp"
#include "endpoint/endpoint.hpp"
#include "network/backend.hpp"
#include "jobs/collective_sweep.hpp"
#include "topology/topology.hpp"
#include "workload/formats/chakra.hpp"
#include "jobs/training_sweep.hpp"
#include "workload/llm_config.hpp"

namespace collsim::config {

using jobs::TrainingSpec;

struct Platform {
  std::string name;
  topology::Topology topology;
  /// `endpoint:` one name or a list (every job runs with each; default ideal) and
  /// `endpoint_params:` a map of endpoint/params.hpp keys.
  std::vector<const endpoint::EndpointInfo*> endpoints;
  endpoint::EndpointParams endpoint_params;
};

struct JobSpec {
  std::string name;  ///< "jobs[2]", for reports
  /// A concurrent job when not empty (the fields below but max_time are then unused).
  std::vector<jobs::ConcurrentMember> concurrent;
  collective::Collective collective = collective::Collective::AllReduce;
  std::vector<core::Bytes> sizes;
  bool all_algorithms = false;                          ///< "all"
  std::vector<collective::AlgorithmChoice> algorithms;  ///< when not "all"
  std::uint32_t chunks = 1;
  std::string group = "all";  ///< collective::parse_groups forms, checked on every platform
  std::optional<core::Time> max_time;
  std::optional<TrainingSpec> training;  ///< a training job (the collective fields are unused)
  std::optional<workload::LlmConfig> llm;  ///< an LLM iteration job (docs/llm.md)
};

struct BackendChoice {
  const network::BackendInfo* info = nullptr;
  network::BackendOptions options;
};

struct Scenario {
  std::string name;
  std::vector<BackendChoice> backends;  ///< at least one
  std::vector<Platform> platforms;
  std::vector<JobSpec> jobs;
};

/// Throws core::InputError (file, line, key path, reason) for any problem, including an
/// unreadable file.
Scenario load_scenario(const std::string& path);
/// Parse scenario text; `source` names it in errors.
Scenario parse_scenario(const std::string& text, const std::string& source);

}  // namespace collsim::config
