// nvswitch:N: N GPUs on one NVSwitch that reduces and multicasts in the network (NVLink SHARP,
// as NCCL's NVLS uses it; Hopper architecture whitepaper, "NVLink SHARP"). The links are a
// switch:N's; the switch's ports move in-network traffic at a fraction of their link rate
// (topology.hpp SwitchReduction).
#include <fmt/format.h>

#include <string>

#include "core/error.hpp"
#include "topology/builders.hpp"
#include "topology/forms.hpp"
#include "topology/gpu_systems/gpu_system.hpp"

namespace collsim::topology {

TopologyForm nvswitch_form() {
  return {.name = "nvswitch",
          .syntax = "nvswitch:N",
          .example = "nvswitch:8:system=h100",
          .description =
              "N GPUs on one NVSwitch with in-network reduction and multicast (NVLS); options "
              ":system=S (h100, h200, gb200 take the preset's NVLS efficiency; a100 has none), "
              ":reduce=F (each port reduces/multicasts at F x its link rate, default 1), "
              ":reduce_latency=T (per operation, default 0)",
          .source = "Hopper whitepaper (NVLink SHARP); NCCL's tuner (nvlsEfficiency) for F",
          .args = FormArgs::Size,
          .options = "system,reduce,reduce_latency",
          .build = [](const CompactArgs& a, core::Bandwidth bw, core::Time lat) {
            const std::uint32_t n = a.sizes.at(0);
            double fraction = 1;
            std::string name = "nvswitch:" + std::to_string(n);
            if (const std::string* s = a.option("system")) {
              const GpuSystem& sys = find_gpu_system(*s, a.field + " (" + a.spec + ") system");
              fraction = sys.nvls.efficiency.value;
              name += ":system=" + *s;
            }
            if (a.option("reduce")) {
              fraction = a.option_number("reduce", 1);
              name += ":reduce=" + *a.option("reduce");
            }
            const core::Time latency = a.option_time("reduce_latency", core::Time{});
            if (const std::string* l = a.option("reduce_latency")) name += ":reduce_latency=" + *l;
            Topology t = Topology::product(name, {DimSpec{DimKind::Switch, n, bw, lat, 1}});
            if (fraction > 0) {
              t.set_in_network(n, {core::Bandwidth{fraction * bw.bytes_per_s}, latency},
                               a.field);
            }
            return t;
          }};
}

}  // namespace collsim::topology
