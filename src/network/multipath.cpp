#include "network/multipath.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace collsim::network {
namespace {

// In the order of Multipath.
constexpr std::string_view kMultipath[] = {"none", "ecmp", "spray-message", "spray-packet"};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

BackendParam multipath_param() {
  return {.spec = {.key = "multipath",
                   .type = ParamType::Choice,
                   .choices = kMultipath,
                   .description =
                       "how messages spread over equal-cost shortest paths (graph topologies: "
                       "fattree, bigraph, railfat, ...): none (the topology's deterministic route), ecmp "
                       "(a hash of src, dst, collective and stream picks one path per flow), "
                       "spray-message (each message of a source the next path), spray-packet "
                       "(packet: each packet the next path; flow: the message split evenly over "
                       "the paths as sub-flows)",
                   .source = "RoCE/InfiniBand ECMP hashing; Spectrum-X per-packet spraying "
                             "(docs/multipath.md)"},
          .label = "multipath",
          .models = "multipath routing",
          .set =
              [](BackendOptions& o, const ParamValue& v) {
                o.multipath = static_cast<Multipath>(std::get<ChoiceIndex>(v).index);
              },
          .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
            return ChoiceIndex{static_cast<std::uint32_t>(o.multipath)};
          }};
}

BackendParam ecmp_seed_param() {
  return {.spec = {.key = "ecmp_seed",
                   .type = ParamType::Count,
                   .max = 0xffffffffu,
                   .description =
                       "seed of the multipath flow hash: another seed, another assignment of "
                       "flows to paths (the same seed, the same paths)",
                   .source = "a switch's ECMP hash seed (docs/multipath.md)"},
          .label = "seed",
          .models = "multipath routing",
          .set = [](BackendOptions& o, const ParamValue& v) { o.ecmp_seed = as_u32(v); },
          .get = [](const BackendOptions& o) { return count_value(o.ecmp_seed); }};
}

std::uint64_t flow_hash(std::uint32_t seed, topology::NodeId src, topology::NodeId dst,
                        const MessageAttributes& attrs) {
  std::uint64_t h = mix(seed);
  h = mix(h ^ src);
  h = mix(h ^ dst);
  h = mix(h ^ attrs.flow);
  return mix(h ^ attrs.path);
}

PathChooser::PathChooser(const topology::Topology& topo, Multipath rule, std::uint32_t seed,
                         std::string_view backend)
    : rule_(rule), seed_(seed), paths_(topo) {
  if (rule == Multipath::None) {
    if (seed != 0) {
      throw core::InputError(fmt::format(
          "{} backend option ecmp_seed: needs multipath ecmp, spray-message or spray-packet",
          backend));
    }
    return;
  }
  const auto& dims = topo.dimensions();
  if (!topo.graph_routed() && !topo.dims_label_graph() &&
      !(dims.size() == 1 && dims[0].spec.kind == topology::DimKind::Switch)) {
    throw core::InputError(fmt::format(
        "{} backend option multipath: {} routes dimension-order; multipath applies to graph "
        "topologies (fattree, bigraph, railfat, ...) and switch:N",
        backend, topo.name()));
  }
  if (rule != Multipath::Ecmp) sent_.assign(topo.num_npus(), 0);
}

std::uint64_t PathChooser::message_path(topology::NodeId src, topology::NodeId dst,
                                        const MessageAttributes& attrs) {
  const std::uint64_t h = flow_hash(seed_, src, dst, attrs);
  return rule_ == Multipath::Ecmp ? h : h + sent_[src]++;
}

}  // namespace collsim::network
