// The package all-reduce and all-gather of switch-fc-hierarchical-torus (Sec. III-B, Figs. 7-8),
// for a package whose NPUs reach each other through local switches in one hop.
//   all-reduce: log2 n steps; in step S rank i sends its whole partial sum to rank
//     (i + 2^(S-1)) mod n, receives from (i - 2^(S-1)) mod n and adds it in. After step S rank i
//     holds the sum of the 2^S ranks i, i-1, ..., so after log2 n steps every rank holds all n.
//     (The paper writes the step-S partner as i + 2 x (S-1), which is the same for n <= 8 and
//     counts some ranks twice beyond: collsim follows 2^(S-1).) T = log2 n (alpha + S/B).
//   all-gather: the same partners without reduction; in step S rank i sends the 2^(S-1) blocks
//     it holds (its own and the ones before it), so T = log2 n alpha + (n-1)/n S/B.
// Only power-of-two rank counts: with any other n some contributions would be added twice.
//
// Striping: the data is split over `stripes` program streams, and stream j of every rank asks
// the network for path j, which on a package of k local switches is switch (rule + j) mod k
// (topology.hpp LocalSwitchRule): with stripes = k every transfer is spread evenly over all k
// switches, the NPU using its k links at once, as a router that spreads a message's packets over
// equal-cost ports does. stripes = 0 (default) takes k from the local-switch dimension that holds
// the ranks, 1 elsewhere; stripes = 1 sends each transfer through one switch.
#include <fmt/format.h>

#include <algorithm>

#include "collective/algorithm.hpp"
#include "core/error.hpp"

namespace collsim::collective {
namespace {

// k of the local-switch dimension whose groups hold all of the communicator's NPUs, else 1.
std::uint32_t local_switches(const topology::Topology& topo, const Communicator& comm) {
  const auto& dims = topo.dimensions();
  if (dims.empty()) return 1;
  const std::vector<std::uint32_t> first = topo.coords(comm.npus.front());
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].spec.kind != topology::DimKind::LocalSwitches) continue;
    bool inside = true;
    for (topology::NodeId npu : comm.npus) {
      const std::vector<std::uint32_t> c = topo.coords(npu);
      for (std::size_t e = 0; e < dims.size() && inside; ++e) inside = e == d || c[e] == first[e];
    }
    if (inside) return dims[d].spec.links_per_npu;
  }
  return 1;
}

Program build(const BuildRequest& req) {
  const std::uint32_t n = req.ranks();
  require_power_of_two("package-doubling", n);
  const auto given = static_cast<std::uint32_t>(req.params.at("stripes"));
  const std::uint32_t stripes = given != 0 ? given : local_switches(req.topology, req.communicator);
  Program p = make_program("package-doubling", req.collective, n, req.size, req.chunks * stripes);
  p.streams = stripes;
  p.ops.assign(std::size_t{n} * stripes, {});
  const bool reduce = req.collective == Collective::AllReduce;
  std::vector<Transfer> step;
  for (std::uint32_t j = 0; j < stripes; ++j) {
    for (std::uint32_t d = 1; d < n; d *= 2) {
      step.clear();
      for (std::uint32_t c = 0; c < req.chunks; ++c) {
        const std::uint32_t base = (c * stripes + j) * n;  // the program chunk's first piece
        for (Rank r = 0; r < n; ++r) {
          const Rank to = (r + d) % n;
          if (reduce) {
            step.push_back(Transfer{r, to, base, n});
            continue;
          }
          // Blocks r-d+1 .. r (mod n): at most two contiguous runs of pieces.
          const std::uint32_t lo = (r + n - (d - 1)) % n;
          if (lo <= r) {
            step.push_back(Transfer{r, to, base + lo, d});
          } else {
            step.push_back(Transfer{r, to, base + lo, n - lo});
            step.push_back(Transfer{r, to, base, r + 1});
          }
        }
      }
      add_step(p, step, reduce, j);
    }
  }
  return p;
}

// Per stripe, log2 N steps of N transfers (all-gather: up to two runs each), stored.
ProgramSize size(const BuildRequest& req) {
  const std::uint64_t n = req.ranks();
  const auto given = static_cast<std::uint64_t>(req.params.at("stripes"));
  std::uint64_t stripes = given;
  if (stripes == 0) {
    stripes = 1;
    for (const auto& d : req.topology.dimensions()) {
      if (d.spec.kind == topology::DimKind::LocalSwitches) {
        stripes = std::max<std::uint64_t>(stripes, d.spec.links_per_npu);
      }
    }
  }
  const std::uint64_t sends =
      stripes * n * ceil_log2(n) * (req.collective == Collective::AllGather ? 2 : 1);
  return {sends, 2 * sends};
}

}  // namespace

AlgorithmInfo package_doubling_info() {
  AlgorithmInfo a{
      "package-doubling",
      "Package all-reduce / all-gather for a switch-based fully connected package: log2 n steps, "
      "step S sends everything held to rank i + 2^(S-1) (all-reduce: the whole partial sum, "
      "reduced); striped over the package's k local switches (power-of-two ranks)",
      "switch-fc-hierarchical-torus Sec. III-B, Figs. 7-8",
      {Collective::AllReduce, Collective::AllGather},
      {count_param("stripes", 0, 0, 64,
                   "streams a transfer is split over, stream j through local switch (rule + j) "
                   "mod k; 0: k of the package's local-switch dimension (1 on other topologies)")},
      &build};
  a.power_of_two = true;
  a.stage_steps = log2_steps;
  // Made for packages of local switches: "all" includes it only where there are some.
  a.in_all = [](const topology::Topology& t) {
    for (const auto& d : t.dimensions()) {
      if (d.spec.kind == topology::DimKind::LocalSwitches) return true;
    }
    return false;
  };
  a.size = &size;
  return a;
}

}  // namespace collsim::collective
