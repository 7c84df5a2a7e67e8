// The NI policy parameter shared by the packet and flow backends (backend.hpp NiPolicy).
#include "network/backend.hpp"
#include "network/params.hpp"

namespace collsim::network {
namespace {

// In the order of NiPolicy.
constexpr std::string_view kNiPolicy[] = {"fifo", "round-robin", "all-at-once"};

}  // namespace

BackendParam ni_policy_param() {
  return {.spec = {.key = "ni_policy",
                   .type = ParamType::Choice,
                   .choices = kNiPolicy,
                   .unset = "the backend's own: packet fifo, flow all-at-once",
                   .description =
                       "how an NPU's NI serves its queued messages: fifo (one after another), "
                       "round-robin (packet: a packet of each in turn; flow: all sharing one "
                       "link rate of injection and ejection) or all-at-once (flow only: limited "
                       "by the links alone)",
                   .source = "BookSim's source queue (fifo); max-min fair flows (all-at-once)"},
          .label = "nipolicy",
          .models = "an NPU's network interface",
          .set =
              [](BackendOptions& o, const ParamValue& v) {
                o.ni_policy = static_cast<NiPolicy>(std::get<ChoiceIndex>(v).index);
              },
          .get = [](const BackendOptions& o) -> std::optional<ParamValue> {
            if (!o.ni_policy) return std::nullopt;
            return ChoiceIndex{static_cast<std::uint32_t>(*o.ni_policy)};
          }};
}

}  // namespace collsim::network
